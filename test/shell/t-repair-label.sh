# SPDX-License-Identifier: GPL-2.0-or-later
# Label and VG-area repair (tprepair(8)): a damaged label on either
# device is rewritten from the other device's VG metadata; VG areas lost on
# both devices, or both labels lost, come back from a backup with
# --restorefile. In every case tpcheck names the command, the command is
# run as tpcheck printed it, and afterwards the pool is clean (tpcheck,
# thin_check) with every volume and mapping there. Devices that are too
# small or carry another device's label are refused, unchanged.
DATA_SIZE=512M META_SIZE=16M new_pool vault
ok tvcreate -V 1G -n www vault
ok tvsnap vault/www -n monday
bdir=$(backup_dir vault)
# mappings, so the comparison below means something
ok tpdump -o plain.xml vault
sed -e '/<device dev_id="0"/a <range_mapping origin_begin="0" data_begin="0" length="100" time="0"/>' \
    -e '/<device dev_id="1"/a <range_mapping origin_begin="200" data_begin="100" length="50" time="1"/>' \
    plain.xml >mapped.xml
read -r off len < <(meta_area vault)
ok tprestore --force -i mapped.xml -o vault-meta.img --offset "$off" --size "$len"
ok tpcheck vault
ok tpdump -o want.xml vault
grep -q range_mapping want.xml || fail "no mappings to compare"
ok tpstatus -o vol_name,vol_size,vol_origin,vol_dev_id,vol_mapped vault
cp out want.status

# the pool is whole again: clean, thin_check, same volumes and mappings
whole() {
	ok tpcheck vault
	out_has "vault: clean"
	if have thin_check; then thin_check_pool vault; fi
	ok tpdump -o got.xml vault
	cmp -s want.xml got.xml || { diff want.xml got.xml >&2; fail "the mappings changed"; }
	ok tpstatus -o vol_name,vol_size,vol_origin,vol_dev_id,vol_mapped vault
	cmp -s want.status out || { diff want.status out >&2; fail "the volumes changed"; }
}

# run_next: run the command tpcheck's "next:" line names, as printed
run_next() {
	local cmd
	cmd=$(sed -n "s/^next: .*'\(tprepair [^']*\)'.*/\1/p" out)
	[ -n "$cmd" ] || { cat out >&2; fail "tpcheck named no tprepair command"; }
	echo "running: $cmd"
	# shellcheck disable=SC2086
	ok $cmd
}

# two damaged bytes in either device's label
for dev in data meta; do
	printf '\377\377' | dd of=vault-$dev.img bs=1 seek=600 conv=notrunc status=none
	expect_rc 2 tpcheck vault
	out_has "vault-$dev.img: no valid tptools label"
	out_has "next: run 'tprepair vault' to rewrite the label of .*vault-$dev.img from the other device's copy"
	run_next
	out_has "rewrote the label of .*vault-$dev.img"
	whole
done

# a wiped label, devices named on the command line
dd if=/dev/zero of=vault-meta.img bs=512 seek=1 count=1 conv=notrunc status=none
expect_rc 2 tpcheck --devices vault-data.img,vault-meta.img vault
out_has "next: run 'tprepair vault --devices vault-data.img,vault-meta.img' to rewrite the label of vault-meta.img"
run_next
whole

# VG metadata areas damaged on both devices (both slots of each)
for dev in data meta; do
	for slot in 0 1; do
		printf '\377\377\377\377' | dd of=vault-$dev.img bs=1 conv=notrunc status=none \
			seek=$((4096 + slot * (1048576 - 4096) / 2 + 64))
	done
done
expect_rc 2 tpcheck vault
out_has "next: restore with 'tprepair vault --restorefile $bdir/.*\.vg --devices .*vault-data.img,.*vault-meta.img'"
cp out vg.out
unchanged 5 tprepair vault
err_has "no VG metadata copy is left on its devices; restore with 'tprepair vault --restorefile"
cp vg.out out
run_next
out_has "VG metadata restored from"
whole

# both labels lost
dd if=/dev/zero of=vault-data.img bs=512 seek=1 count=1 conv=notrunc status=none
dd if=/dev/zero of=vault-meta.img bs=512 seek=1 count=1 conv=notrunc status=none
expect_rc 2 tpcheck vault
out_has "next: restore with 'tprepair vault --restorefile"
cp out lost.out
# refused: a device smaller than the VG says, a device of another pool
backup=$(ls "$bdir"/*.vg | tail -1)
image small.img 256M
unchanged 5 tprepair vault --restorefile "$backup" --devices small.img,vault-meta.img
err_has "small.img has .* bytes, less than"
DATA_SIZE=512M META_SIZE=16M new_pool other
unchanged 5 tprepair vault --restorefile "$backup" --devices other-data.img,vault-meta.img
err_has "other-data.img carries the label of device .*not restoring over it"
usage_error tprepair --metadata vault-meta.img -o x.img --restorefile "$backup"
cp lost.out out
run_next
out_has "rewrote the label of .*vault-data.img from"
out_has "rewrote the label of .*vault-meta.img from"
whole
# a restore file the devices are newer than: the devices' VG is kept
ok tvcreate -V 1G -n extra vault
ok tprepair vault --restorefile "$backup" --devices vault-data.img,vault-meta.img
err_lacks "error"	# a successful restore prints no error line
err_has "not older than the backup"
ok tpstatus -o vol_name vault
out_has extra

# an older label put back (the pool's name then, its size then): the pool
# is found by its uuid all the same (the devices file records it), readers
# take the VG's word, tpcheck says the label lags (exit 1) and names
# tprepair, which rewrites it; a writer would too
DATA_SIZE=256M META_SIZE=16M new_pool old0
dd if=old0-data.img of=old.label bs=512 skip=1 count=1 status=none
ok tprename old0 lag
truncate -s 320M old0-data.img
ok tpextend lag
ok tvcreate -V 64M -n v lag
dd if=old.label of=old0-data.img bs=512 seek=1 conv=notrunc status=none
sums ./old0-*.img >lag.sums
ok tpstatus --noheadings -o vol_name lag
out_has "^ *v *$"
expect_rc 1 tpcheck lag
out_has "the label of .*old0-data.img lags behind the VG metadata"
out_has "next: run 'tprepair lag' to rewrite the label that lags behind the VG metadata"
sums_same lag.sums || fail "a reader rewrote a label that lags"
ok tprepair lag
out_has "rewrote 1 label that lagged behind the VG metadata"
ok tpcheck lag
dd if=old.label of=old0-data.img bs=512 seek=1 conv=notrunc status=none
ok tvcreate -V 64M -n w lag	# a writer puts it right as it opens
ok tpcheck lag

# a device cut short (an image file truncated): its label is not taken,
# the finding says the device is cut short with both sizes (never that
# the intact label is not valid), and what to do is to grow it back
# (tprepair cannot); then the check says what the cut cost
DATA_SIZE=256M META_SIZE=16M new_pool cut
ok tvcreate -V 64M -n v cut
truncate -s 3M cut-meta.img
expect_rc 2 tpcheck cut
err_has "cut-meta.img: shorter than its tptools label records (3145728 of 16777216 bytes): the device was cut short; grow it back to 16777216 bytes"
out_has "^error: .*cut-meta.img is cut short: 3145728 bytes, but its label, intact, records 16777216$"
out_lacks "no valid tptools label"
# the data device cut to half: the same finding, of it
cp --sparse=always cut-data.img cut-data.keep
truncate -s 128M cut-data.img
truncate -s 16777216 cut-meta.img
expect_rc 2 tpcheck cut
out_has "^error: .*cut-data.img is cut short: 134217728 bytes, but its label, intact, records 268435456$"
out_lacks "no valid tptools label"
out_has "next: run 'truncate -s 268435456 .*cut-data.img'"
# named by relative --devices paths, here and from another directory: the
# advice names each file once, as given (not again by the devices file's
# absolute name), and checks again with the same --devices
expect_rc 2 tpcheck --devices ./cut-data.img,./cut-meta.img cut
out_has "^next: run 'truncate -s 268435456 ./cut-data.img' to grow the image file back to the size its label records, then 'tpcheck cut --devices ./cut-data.img,./cut-meta.img' says what was cut off (it is gone)$"
mkdir -p sub
(cd sub && expect_rc 2 tpcheck --devices ../cut-data.img,../cut-meta.img cut &&
	out_has "^next: run 'truncate -s 268435456 ../cut-data.img' to grow the image file back to the size its label records, then 'tpcheck cut --devices ../cut-data.img,../cut-meta.img' says") ||
	fail "the advice from another directory"
# too short to hold its label: the size the VG metadata records
truncate -s 256 cut-data.img
expect_rc 2 tpcheck cut
out_has "^error: .*cut-data.img is cut short: 256 bytes, too few to hold its label, but the VG metadata records 268435456 for the pool's data device$"
mv cut-data.keep cut-data.img
ok tpcheck cut
truncate -s 3M cut-meta.img
expect_rc 2 tpcheck cut
out_has "next: run 'truncate -s 16777216 .*cut-meta.img' to grow the image file back"
unchanged 5 tprepair cut
# any other command says the same, never that tprepair rewrites the label
failed tpstatus cut
err_has "its metadata device .*cut-meta.img is shorter than its label records (cut short); run 'truncate -s 16777216 .*cut-meta.img' to grow the image file back to the size its label records, then 'tpcheck cut' says what was cut off (it is gone)$"
# the check's advice is the same words
expect_rc 2 tpcheck cut
grep -q "^next: run 'truncate -s 16777216 .*cut-meta.img' to grow the image file back to the size its label records, then 'tpcheck cut' says what was cut off (it is gone)$" out ||
	{ cat out >&2; fail "tpcheck's advice is not in the one wording"; }
err_lacks "tprepair"
truncate -s 16777216 cut-meta.img
ok tpcheck cut

# mends POOL PATTERN: tpcheck finds the damage (exit 2, PATTERN in its
# report), tprepair mends it, the pool checks clean and lists volume v
mends() {
	expect_rc 2 tpcheck "$1"
	out_has "$2"
	ok tprepair "$1"
	ok tpcheck "$1"
	ok tpstatus --noheadings -o vol_name "$1"
	out_has "^ *v *$"
}

# both legs of a mirror cut short to the same size: one truncate names
# both image files; after it the check says what the cut cost (nothing
# here: the areas lie in the first 3 MiB)
DATA_SIZE=256M META_SIZE=16M new_pool twocut
image twocut-meta1.img 16M
ok tpchange --meta-mirror twocut-meta1.img twocut
truncate -s 3M twocut-meta.img
truncate -s 3M twocut-meta1.img
expect_rc 2 tpcheck twocut
out_has "next: run 'truncate -s 16777216 .*twocut-meta.img .*twocut-meta1.img' to grow the image files back to the size their labels record, then 'tpcheck twocut' says"
truncate -s 16777216 twocut-meta.img twocut-meta1.img
ok tpcheck twocut

# a copy of another pool's label written over a device's (a label sector
# copied, as dd or a clone leaves it): the device keeps its place in its
# pool; tpcheck says the label is a copy, tprepair writes the device's own
# label over it, and the pool the copy names is untouched throughout
DATA_SIZE=256M META_SIZE=16M new_pool mine
DATA_SIZE=256M META_SIZE=16M new_pool theirs
ok tvcreate -V 64M -n v mine
dd if=theirs-data.img of=mine-data.img bs=512 skip=1 seek=1 count=1 conv=notrunc status=none
sums ./theirs-*.img >theirs.sums
expect_rc 2 tpcheck mine
out_has "mine-data.img: its label is a copy of pool theirs's data device label"
out_has "next: run 'tprepair mine' to rewrite the label of .*mine-data.img"
ok tprepair mine
err_has "carries a copy of pool theirs's data device label; writing its own label over it"
ok tpcheck mine
ok tpcheck theirs
sums_same theirs.sums || fail "the pool whose label was copied changed"
ok tpstatus --noheadings -o vol_name mine
out_has "^ *v *$"

# a lost label and its devices-file entry damaged at once: the VG copy on
# the metadata device says where the data device was; with the whole file
# lost, this host's newest backup does
DATA_SIZE=256M META_SIZE=16M new_pool gone
ok tvcreate -V 64M -n v gone
dd if=/dev/zero of=gone-data.img bs=512 seek=1 count=1 conv=notrunc status=none
# every other command says the device is there without its label and
# names tpcheck, never 'tpremove --force' (which would forget a pool
# that tprepair mends)
sums ./gone-*.img >gone.sums
failed tpstatus gone
err_has "its data device .*gone-data.img (the devices file lists it) carries no valid tptools label: lost or damaged; run 'tpcheck gone'"
err_lacks "tpremove"
failed tvcreate -V 1M -n w gone
err_lacks "tpremove"
sums_same gone.sums || fail "a command wrote to the pool whose label is lost"
sed -i 's/^gone .* data .*/gone damaged line/' "$TPTOOLS_DIR/devices"
mends gone "next: run 'tprepair gone' to rewrite the label of .*gone-data.img"
dd if=/dev/zero of=gone-data.img bs=512 seek=1 count=1 conv=notrunc status=none
grep -v "^gone " "$TPTOOLS_DIR/devices" >devices.new && mv devices.new "$TPTOOLS_DIR/devices"
mends gone "next: run 'tprepair gone' to rewrite the label of .*gone-data.img"

# the same copy while the device the copied label names is not there (its
# pool's device moved): the devices file lists the path as pool mine2's
# and its VG areas are mine2's, so the label is a copy all the same
DATA_SIZE=256M META_SIZE=16M new_pool mine2
DATA_SIZE=256M META_SIZE=16M new_pool theirs2
ok tvcreate -V 64M -n v mine2
dd if=theirs2-data.img of=mine2-data.img bs=512 skip=1 seek=1 count=1 conv=notrunc status=none
mv theirs2-data.img theirs2-moved.img
mends mine2 "mine2-data.img: its label is a copy of pool theirs2's data device label"
# a device reused by another pool (its VG areas that pool's) while a stale
# entry still lists it as the old pool's: no copy, so nothing writes over
# the new pool's label
DATA_SIZE=256M META_SIZE=16M new_pool old3
grep "^old3 " "$TPTOOLS_DIR/devices" >old3.entries
ok tpremove -y old3
image new3-meta.img 16M
ok tpcreate -q --data old3-data.img --meta new3-meta.img new3
cat old3.entries >>"$TPTOOLS_DIR/devices"
sums ./old3-data.img ./new3-meta.img >new3.sums
ok tpcheck new3
expect_rc 5 tpcheck old3
expect_rc 5 tprepair old3
sums_same new3.sums || fail "the reused device or its new pool's metadata device was written"
ok tpcheck new3

# pool b's data label copied onto pool a's data device while b's device is
# away: no command of pool b takes a's device (a writer refuses, its
# devices file entry pointed there is no help), nothing writes a's VG,
# and tprepair a then mends a's label
DATA_SIZE=64M META_SIZE=16M new_pool cpa
DATA_SIZE=64M META_SIZE=16M new_pool cpb
ok tvcreate -V 4M -n v cpa
dd if=cpb-data.img of=cpa-data.img bs=512 skip=1 seek=1 count=1 conv=notrunc status=none
mv cpb-data.img cpb-data.away
sums ./cpa-data.img ./cpa-meta.img ./cpb-meta.img >cp.sums
failed tvcreate -V 1M -n bx --devices cpa-data.img,cpb-meta.img cpb
err_has "cpa-data.img: its label is a copy of pool cpb's data device label"
sed -i '/^cpb .* data /s#cpb-data.img#cpa-data.img#' "$TPTOOLS_DIR/devices"
failed tvcreate -V 1M -n bx cpb
expect_rc 5 tpcheck cpb
err_has "carries a copy of its label, but it is a device of pool uuid"
failed tprepair cpb
sums_same cp.sums || fail "a command of pool cpb wrote pool cpa's device or its own"
mv cpb-data.away cpb-data.img
ok tpcheck cpb --devices cpb-data.img,cpb-meta.img
ok tprepair cpa
ok tpcheck cpa
ok tpcheck cpb

# a blank device named with --devices for a role whose device is there,
# labelled: not labelled in its place (the pool would read the blank
# device's bytes as its data), exit 5, every image unchanged
DATA_SIZE=64M META_SIZE=16M new_pool bl
ok tvcreate -V 4M -n v bl
image blank.img 64M
sums ./bl-data.img ./bl-meta.img ./blank.img >bl.sums
failed tprepair bl --devices blank.img,bl-meta.img
err_has "bl-data.img carries the label of the pool's data device"
err_has "blank.img is not that device; nothing was written"
sums_same bl.sums || fail "tprepair labelled a blank device in place of the pool's data device"
ok tpcheck bl
out_has "bl: clean"
