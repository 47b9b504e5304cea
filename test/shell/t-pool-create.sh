# SPDX-License-Identifier: GPL-2.0-or-later
# tpcreate on image files: geometry from TPTOOLS_TOPOLOGY, --explain, the
# layout recorded, and thin_check on the metadata we wrote.

# 6-disk RAID6, 512K md chunk: stripe 2M
raid_geometry 524288 2097152
new_pool vault --chunk auto --explain
out_has "Full stripe 2 MiB"
out_has "profile:     balanced"
out_has "Criterion: .*worst ratio"
out_has "chunk:       64 KiB"
out_has "divides the 512 KiB md chunk"
out_has "zeroing:     off"
out_has "data of deleted volumes"
out_has "data offset: 2 MiB"
out_has "Pool vault created.*(profile balanced)"
ok tpstatus --noheadings --units b -o pool_chunk,pool_zero,pool_profile,pool_data_offset vault
read -r chunk zero profile off < out
[ "$chunk" = "65536b" ] || fail "chunk $chunk"
[ "$zero" = no ] || fail "zero $zero"
[ "$profile" = balanced ] || fail "profile $profile"
[ $((off % 2097152)) = 0 ] && [ "$off" -ge 1048576 ] || fail "data offset $off"
thin_check_pool vault

# 7-disk RAID6, 512K chunk: stripe 2.5M (not a power of two)
raid_geometry 524288 2621440
new_pool r7 --explain --profile throughput
out_has "profile:     throughput"
out_has "chunk:       2.50 MiB"
out_has "1 full stripe of 2.50 MiB"
ok tpstatus --noheadings --units b -o pool_chunk,pool_profile,pool_data_offset r7
read -r chunk profile off < out
[ "$chunk" = "2621440b" ] || fail "r7 chunk $chunk"
[ "$profile" = throughput ] || fail "r7 profile $profile"
[ $((off % 2621440)) = 0 ] || fail "r7 data offset $off not stripe aligned"
thin_check_pool r7

# alignment offset is added to the data offset
raid_geometry 65536 196608 4096
new_pool r5 --explain -P THROUGHPUT
ok tpstatus --noheadings --units b -o pool_chunk,pool_data_offset r5
read -r chunk off < out
[ $(( ${chunk%b} % 196608 )) = 0 ] && [ $(( ${chunk%b} % 65536 )) = 0 ] || fail "r5 chunk $chunk"
[ $(( (off - 4096) % 196608 )) = 0 ] || fail "r5 data offset $off"

# explicit chunk that straddles the stripe: accepted with a warning naming the better value
raid_geometry 524288 2097152
new_pool odd --chunk 768k
err_has "warning"
err_has "2 MiB"
err_has "chunk 64 KiB (what --profile balanced chooses)"
ok tpstatus --noheadings --units k -o pool_chunk,pool_profile odd
grep -q "768k *custom" out || fail "explicit chunk not kept: $(cat out)"

# the snapshots profile zeroes; a bad profile is a usage error that writes nothing
new_pool snaps --profile snapshots
out_has "zeroing on (profile snapshots)"
ok tpstatus --noheadings -o pool_zero,pool_profile snaps
grep -q "yes *snapshots" out || fail "snapshots profile: $(cat out)"
image bad-d.img 1G
image bad-m.img 16M
before=$(sums bad-d.img bad-m.img)
usage_error tpcreate --data bad-d.img --meta bad-m.img --profile fast bad
err_has "--profile takes balanced, throughput or snapshots, not 'fast'"
[ "$(sums bad-d.img bad-m.img)" = "$before" ] || fail "a refused --profile changed a device"
# devices named twice: the message names the options the user gave
image bad-m2.img 16M
unchanged 3 tpcreate --data bad-d.img --meta bad-m.img,bad-m.img bad
err_has "\--meta bad-m.img,bad-m.img: the mirror's two metadata devices share their storage: the same path twice"
err_lacks "\--data"
ln -s bad-m.img bad-link
unchanged 3 tpcreate --data bad-d.img --meta bad-m.img,bad-link bad
err_has "\--meta bad-m.img,bad-link: the mirror's two metadata devices share their storage: they are the same file"
unchanged 3 tpcreate --data bad-d.img --meta bad-m.img,bad-d.img bad
err_has "\--data bad-d.img and the mirror's second metadata device (--meta bad-m.img,bad-d.img) share their storage"
unchanged 3 tpcreate --data bad-m.img --meta bad-m.img,bad-m2.img bad
err_has "\--data bad-m.img and --meta bad-m.img share their storage: the same path twice"
rm -f bad-link

# explicit zeroing and when-full; no topology at all
unset TPTOOLS_TOPOLOGY
new_pool plain --zero y --when-full error --discards ignore
ok tpstatus --noheadings -o pool_zero,pool_when_full,pool_discards plain
grep -q "yes *error *ignore" out || fail "settings not kept: $(cat out)"
thin_check_pool plain

# the command table's aliases
image a.img 1G
image b.img 16M
ok tp create --data a.img --meta b.img viaalias
ok tp status viaalias
out_has viaalias
