# SPDX-License-Identifier: GPL-2.0-or-later
# The host's copies belong to a pool by its uuid (issue 38; tprepair(8),
# tp-metadata(5) BACKUPS and DEVICES FILE): a pool removed, another renamed
# to its name, both devices' labels and VG areas lost. tpcheck names the
# backup of the pool the devices are (by the uuid the devices file
# records), one that agrees with the thin metadata, and the restore brings
# the volume's bytes back; a backup of the pool that had the name before,
# or a hand-edited one of another chunk size, is refused with nothing
# written, and --force restores it saying which volumes now read
# differently, exit 4. Without the devices file's uuid (its first format)
# the thin metadata still singles out the pool; backups of the first
# layout (a directory per name) are read and moved by the next commit; a
# new pool under an old name and renames back and forth keep each pool's
# backups and damaged-metadata copies apart; a devices-file entry whose
# device now holds something else is never trusted.
DATA_SIZE=256M META_SIZE=16M

# pool ab (64 KiB chunks): changes, four forced repairs (damaged copies
# kept), then removed
new_pool ab --chunk 64k
ok tvcreate -V 8M -n x ab
write_chunks ab x 0 4
ok tvsnap ab/x -n s
ok tvrename ab/s s2
ok tpchange --warn 85 ab
ok tvrename ab/s2 s3
for i in 1 2 3 4; do ok tprepair --force ab; done
old=$(backup_dir ab)
olduuid=$(basename "$old")
[ "$(ls "$old" | grep -c '^spare-')" = 3 ] || fail "the first ab keeps $(ls "$old" | grep -c '^spare-') damaged copies"
ok tpremove -y ab
# pool cd (128 KiB chunks) with a 20 MiB volume of random bytes, renamed ab
new_pool cd --chunk 128k
head -c 20M /dev/urandom >v.raw
ok tprecv --format raw -n v cd <v.raw
ok tprename cd ab
cur=$(backup_dir ab)
uuid=$(basename "$cur")
[ "$cur" != "$old" ] || fail "two pools in one backup directory"
ls "$old"/*.vg >old.list
sums "$old"/* >old.sums
grep -l '^	name="ab"$' "$old"/*.vg | cmp -s - old.list || fail "the first ab's backups were touched"

# the listing: each pool's backups apart, the one on the devices last
ok tprepair --list-backups ab
tail -n +2 out >rows
grep " $olduuid " rows | grep -vq "; of another pool named ab$" &&
	{ cat out >&2; fail "the first ab's backups are not all marked another pool's"; }
grep " $uuid " rows | grep -q "another pool" && { cat out >&2; fail "the pool's own backup called another pool's"; }
tail -1 rows | grep -q " $uuid .*after 'tprename cd ab'$" || { cat out >&2; fail "the pool's own is not last"; }
grep " $uuid " rows | head -1 | grep -q "; when the pool was named cd$" || { cat out >&2; fail "the name cd not said"; }
err_has "the pool ab on its devices is uuid $uuid (from the label of "

# both devices' labels and VG areas lost (their first MiB)
for d in data meta; do
	dd if=/dev/zero of=cd-$d.img bs=1M count=1 conv=notrunc status=none
	cp --sparse=always cd-$d.img $d.lost
done
cp etc/devices devices.lost
# lost: the devices (and the devices file) as after the loss again
lost() {
	for d in data meta; do cp --sparse=always $d.lost cd-$d.img; done
	cp devices.lost etc/devices
}
same() {
	cmp -s cd-data.img data.lost && cmp -s cd-meta.img meta.lost || fail "$* changed a device"
}
expect_rc 2 tpcheck ab
cp out check.out
out_has "^next: restore with 'tprepair ab --restorefile $cur/[0-9]*\.vg --devices "
out_has "the pool on the devices, uuid $uuid, from the devices file's entry for "
grep -q "$old" out && fail "tpcheck named a backup of the pool removed"
same "tpcheck"

# the removed pool's backup, same transaction id: refused, nothing written
newold=$(tail -1 old.list)
grep -q "transaction_id=$(sed -n 's/^\ttransaction_id=//p' "$(ls "$cur"/*.vg | tail -1)")$" "$newold" ||
	fail "the backups compared are not at one transaction id"
expect_rc 5 tprepair ab --restorefile "$newold" --devices cd-data.img,cd-meta.img
err_has "does not match the devices: it is a backup of pool ab, uuid $olduuid, but the devices are pool uuid $uuid's"
err_has "its chunk is 64 KiB, but the thin metadata's data blocks are 128 KiB"
err_has "nothing was written; restore with 'tprepair ab --restorefile $cur/"
same "tprepair --restorefile of the pool removed"

# following tpcheck: the volume's bytes, the pool clean
cmd=$(sed -n "s/^next: [^']*'\([^']*\)'.*/\1/p" check.out)
# shellcheck disable=SC2086
ok $cmd
out_has "VG metadata restored from $cur/"
ok tpcheck ab
out_has "ab: clean"
ok tpsend --format raw -o v.got ab/v
cmp v.raw v.got || fail "ab/v reads otherwise than the bytes imported"
[ "$(pool_bytes ab pool_chunk)" = 131072 ] || fail "the chunk is not 128 KiB"

# a hand-edited copy of its own backup with another chunk: refused
lost
sed 's/^\tchunk_size=256$/\tchunk_size=128/' "$(ls "$cur"/*.vg | tail -1)" >edited.vg
grep -q '^	chunk_size=128$' edited.vg || fail "no chunk to edit"
expect_rc 5 tprepair ab --restorefile edited.vg --devices cd-data.img,cd-meta.img
err_has "the backup edited.vg does not match the devices: its chunk is 64 KiB, but the thin metadata's data blocks are 128 KiB"
err_lacks "another pool"
same "tprepair --restorefile edited.vg"
# forced: restored, the volume named as reading otherwise, exit 4
expect_rc 4 tprepair ab --restorefile edited.vg --devices cd-data.img,cd-meta.img --force
out_has "VG metadata restored from edited.vg"
err_has "restoring it anyway (--force)"
err_has "1 volume now reads something else than before the repair: v (the backup edited.vg contradicted the devices"
ok tpsend --format raw -o v.got ab/v
cmp -s v.raw v.got && fail "the forced restore was said to change ab/v, which reads the same"
# ... and the removed pool's backup forced: exit 4, its volume named
lost
expect_rc 4 tprepair ab --restorefile "$newold" --devices cd-data.img,cd-meta.img --force
err_has "volume now reads something else than before the repair: x "

# ... and one whose volumes' thin devices the devices lack (every one
# reported lost): still exit 4, never 0
lost
sed 's/^\t\t\tdev_id=\([0-9]*\)$/\t\t\tdev_id=9\1/; s/^\tnext_dev_id=.*/\tnext_dev_id=100/' "$newold" >gone.vg
grep -q 'dev_id=9' gone.vg || fail "no dev_id to edit in $newold"
expect_rc 4 tprepair ab --restorefile gone.vg --devices cd-data.img,cd-meta.img --force
err_has "none of its volumes kept its content (each is reported lost)"
err_lacks "now reads something else"

# the devices file of the first format (no pool uuid): the thin metadata
# alone singles out the pool whose backups agree
lost
sed -i "s/^ab $uuid /ab /" etc/devices
grep -q "^ab data " etc/devices || fail "no entry of the first format: $(cat etc/devices)"
expect_rc 2 tpcheck ab
out_has "^next: restore with 'tprepair ab --restorefile $cur/[0-9]*\.vg "
out_has "a backup of pool uuid $uuid, the only pool named ab whose backups agree with the thin metadata"
same "tpcheck"

# the first layout: this pool's backups in a directory of its name (a
# host upgraded from it); listed, named, restored, and moved by the
# restore's own commits to the directory of the pool's uuid
mkdir etc/backup/ab
mv "$cur"/*.vg etc/backup/ab/
n=$(ls etc/backup/ab | wc -l)
ok tprepair --list-backups ab
[ "$(grep -c " $uuid  $TPTOOLS_DIR/backup/ab/" out)" = "$n" ] ||
	{ cat out >&2; fail "the first layout's backups not listed as the pool's"; }
expect_rc 2 tpcheck ab
out_has "^next: restore with 'tprepair ab --restorefile $TPTOOLS_DIR/backup/ab/[0-9]*\.vg "
cmd=$(sed -n "s/^next: [^']*'\([^']*\)'.*/\1/p" out)
# shellcheck disable=SC2086
ok $cmd
ok tpsend --format raw -o v.got ab/v
cmp v.raw v.got || fail "ab/v reads otherwise after a restore from the first layout"
grep -q "^ab $uuid data " etc/devices || fail "the restore did not record the uuid: $(cat etc/devices)"
[ ! -e etc/backup/ab ] || fail "the first layout's directory was not emptied: $(ls etc/backup/ab)"
[ "$(ls "$cur"/*.vg | wc -l)" = $((n + 2)) ] || fail "the backups did not move: $(ls "$cur")"
sums_same old.sums || fail "the first ab's backups were touched"

# renames back and forth: one directory, each backup saying the name
ok tprename ab ef
ok tprename ef ab
[ "$(backup_dir ab)" = "$cur" ] || fail "the rename moved the backups"
ok tprepair --list-backups ab
grep " $uuid " out | grep -q "after 'tprename ab ef'; when the pool was named ef$" ||
	{ cat out >&2; fail "the rename's backup does not say ef"; }
ok tpsend --format raw -o v.want ab/v
for d in data meta; do dd if=/dev/zero of=cd-$d.img bs=1M count=1 conv=notrunc status=none; done
expect_rc 2 tpcheck ab
cmd=$(sed -n "s/^next: [^']*'\([^']*\)'.*/\1/p" out)
case $cmd in *"--restorefile $cur/"*) ;; *) fail "tpcheck named '$cmd'" ;; esac
# shellcheck disable=SC2086
ok $cmd
ok tpsend --format raw -o v.got ab/v
cmp v.want v.got || fail "ab/v reads otherwise after the renames"

# the spare's damaged copies: this pool's in its directory, the first
# ab's three untouched (the new pool's seqnos are lower: they once pruned
# its own copy at once)
ls "$old"/spare-* >spares.before
ok tprepair --force ab
ok tprepair --force ab
out_has "was kept in $cur/spare-"
kept=$(sed -n 's/.*was kept in \([^ ]*\.img\)$/\1/p' out)
[ -f "$kept" ] || fail "the kept copy '$kept' is gone"
ls "$old"/spare-* | cmp -s - spares.before || fail "the first ab's damaged copies were pruned"

# a new pool under the old name: its backups apart, the others listed apart
ok tpremove -y ab
new_pool ab --chunk 64k
[ "$(ls "$(backup_dir ab)"/*.vg | wc -l)" = 1 ] || fail "the new ab's backups are mixed"
ok tprepair --list-backups ab
err_has "the pool ab on its devices is uuid $(basename "$(backup_dir ab)")"
err_has "the backups of the 2 other pools that had the name are listed first"

# two pools of one name alike (the same chunk, volumes, transaction id):
# with no devices-file entry at all, both are named and neither picked;
# an entry of the first format (its device uuids) picks the pool's
DATA_SIZE=64M
for i in 1 2; do
	image tw$i-data.img 64M
	image tw$i-meta.img 16M
	ok tpcreate --data tw$i-data.img --meta tw$i-meta.img --chunk 64k tw
	ok tvcreate -V 4M -n x tw
	[ $i = 2 ] || ok tpremove -y tw
done
tw=$(basename "$(backup_dir tw)")
for d in data meta; do dd if=/dev/zero of=tw2-$d.img bs=1M count=1 conv=notrunc status=none; done
sed -i "s/^tw [-0-9a-f]* /tw /" etc/devices
expect_rc 2 tpcheck tw
out_has "^next: restore with 'tprepair tw --restorefile $TPTOOLS_DIR/backup/$tw/"
out_has "the only pool named tw whose backups agree with the thin metadata and the device uuids the devices file records"
grep -v "^tw " etc/devices >devices.tw
cp devices.tw etc/devices
expect_rc 2 tpcheck tw --devices tw2-data.img,tw2-meta.img
out_has "^next: backups of 2 pools that were named tw agree with the thin metadata"
out_lacks "restorefile /"
DATA_SIZE=256M

# a devices-file entry whose device now holds something else: the new
# ab's meta image made a file system, its label lost
ok tpremove -y ab
new_pool ab --chunk 64k
sums ab-data.img >data.sum
if have mkfs.ext4; then
	mkfs.ext4 -q -F ab-data.img 200M
	sums ab-data.img >data.sum
	dd if=/dev/zero of=ab-meta.img bs=1M count=1 conv=notrunc status=none
	expect_rc 2 tpcheck ab
	out_has "^next: .*ab-data.img carries no tptools label but ext4 filesystem .*: it is no longer a device of pool ab"
	out_lacks "restorefile"
	unchanged 5 tprepair ab --restorefile "$(ls "$(backup_dir ab)"/*.vg | tail -1)" \
		--devices ab-data.img,ab-meta.img
	err_has "ab-data.img carries no tptools label but ext4 filesystem"
	err_has "not writing over it"
	sums_same data.sum || fail "the file system was written"
fi
true

# a backup of pool a restored under the name of another pool b: refused
# before anything is written (two pools of one name), naming the restore
# under a's own name, which then works
DATA_SIZE=64M META_SIZE=16M new_pool ida
DATA_SIZE=64M META_SIZE=16M new_pool idb
ok tvcreate -V 4M -n v ida
ua=$(awk '$1 == "ida" { print $2; exit }' "$TPTOOLS_DIR/devices")
f=$(ls "$TPTOOLS_DIR/backup/$ua/"*.vg | tail -1)
dd if=/dev/zero of=ida-data.img bs=512 seek=1 count=1 conv=notrunc status=none
dd if=/dev/zero of=ida-meta.img bs=512 seek=1 count=1 conv=notrunc status=none
unchanged 5 tprepair idb --restorefile "$f" --devices ida-data.img,ida-meta.img
err_has "another pool is called idb on this host"
err_has "restore it under its own name with 'tprepair ida --restorefile $f --devices DATA,META'"
ok tprepair ida --restorefile "$f" --devices ida-data.img,ida-meta.img
err_lacks "error"	# a successful restore prints no error line
ok tpcheck ida
ok tpcheck idb
