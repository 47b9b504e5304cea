# SPDX-License-Identifier: GPL-2.0-or-later
# tpextend: the data area grows to the data device's current size in whole
# chunks; refusals leave the images alone; a crash between the VG commit
# and the thin commit (or before the labels) is completed by the next
# command; a changed stripe is reported.

# refusals on a small pool (unchanged compares every image)
DATA_SIZE=256M new_pool small --chunk 1m
unchanged 5 tpextend small
err_has "no whole chunk"
usage_error tpextend
usage_error tpextend small other

# the array's stripe changed (2.5 MiB now, which the 1 MiB chunk straddles):
# said, and --explain says what it costs
raid_geometry 512k 2560k
unchanged 5 tpextend small
err_has "stripe changed"
failed tpextend --explain small
out_has "full stripe is now 2.50 MiB"
out_has "read-modify-write"
# a stripe the chunk divides (3 MiB = 3 x 1 MiB) is no change worth a word
raid_geometry 512k 3m
unchanged 5 tpextend small
! grep -q "stripe changed" err || fail "a 3 MiB stripe was reported as a change: $(cat err)"
unset TPTOOLS_TOPOLOGY

# a fatally damaged pool is not grown
truncate -s 512M small-data.img
read -r off len < <(meta_area small)
dd if=/dev/zero of=small-meta.img bs=4096 seek=$((off / 4096)) count=1 conv=notrunc status=none
unchanged 5 tpextend small
rm -f small-*.img

new_pool grow --chunk 1m
ok tvcreate -V 1G -n a grow
data_size() { tpstatus --noheadings --units b -o pool_size grow | awk 'NF { print $1; exit }'; }

# 4 GiB -> 8 GiB + half a chunk: 8 GiB of whole chunks
truncate -s $((8 * 1024 * 1024 * 1024 + 512 * 1024)) grow-data.img
ok tpextend grow
out_has "grown from 4.00 GiB to"
[ "$(data_size)" = "$(( 8 * 1024 * 1024 * 1024 - 1048576 ))b" ] || fail "data size after tpextend: $(data_size)"
thin_check_pool grow
thin_dump area.img | grep -q "nr_data_blocks=\"8191\"" || fail "space map not grown: $(thin_dump area.img | head -1)"
ok tpcheck grow
ok tvcreate -V 1G -n b grow

# the labels record the new geometry
label() { dd if="$1" bs=512 skip=1 count=1 status=none | od -An -tx1; }
label grow-data.img >label.grown
ok tpstatus grow

# crash after the VG commit: the thin metadata and the labels are old
truncate -s $((8 * 1024 + 64))M grow-data.img
save_area grow before.img
label grow-data.img >label.before
dd if=grow-data.img of=sector.before bs=512 skip=1 count=1 status=none
ok tpextend grow
label grow-data.img >label.after
load_area grow before.img
dd if=sector.before of=grow-data.img bs=512 seek=1 count=1 conv=notrunc status=none
ok tpstatus grow
err_has "interrupted"
ok tvcreate -V 1G -n c grow
err_has "completed the interrupted growth of the data area to 8255 chunks"
thin_check_pool grow
thin_dump area.img | grep -q 'nr_data_blocks="8255"' || fail "interrupted growth not completed"
[ "$(label grow-data.img)" = "$(cat label.after)" ] || fail "the label was not rewritten"
ok tpcheck grow

# crash after the thin commit, before the labels: a writer puts them right
truncate -s $((8 * 1024 + 128))M grow-data.img
dd if=grow-data.img of=sector.before bs=512 skip=1 count=1 status=none
ok tpextend grow
label grow-data.img >label.after
dd if=sector.before of=grow-data.img bs=512 seek=1 count=1 conv=notrunc status=none
ok tpstatus grow
[ "$(data_size)" = "$(( (8 * 1024 + 127) * 1048576 ))b" ] || fail "size with a stale label: $(data_size)"
ok tvremove grow/c
[ "$(label grow-data.img)" = "$(cat label.after)" ] || fail "the stale label was not rewritten"
thin_check_pool grow
ok tpcheck grow

