# SPDX-License-Identifier: GPL-2.0-or-later
# A backup is matched to its pool by uuid (tprepair(8) --restorefile), also
# when nothing on the devices and no devices file says which pool they
# are: this host keeps backups of its own pool p, and a backup of another
# pool p (another host's) restored onto p's wiped devices is refused with
# nothing written, naming both uuids and this host's newest backup of p;
# --force restores it, exit 4 (its volumes read something else). A refusal
# is said once, without a misleading errno line. A backup of a pool uuid
# the host keeps backups of is restored as before.
mkdir other
image q-data.img 64M
image q-meta.img 16M
TPTOOLS_DIR=$PWD/other ok tpcreate --data q-data.img --meta q-meta.img --chunk 64k p
TPTOOLS_DIR=$PWD/other ok tvcreate -V 4M -n a p
TPTOOLS_DIR=$PWD/other ok tvcreate -V 4M -n b p
foreign=$(ls other/backup/*/*.vg | tail -1)
DATA_SIZE=64M META_SIZE=16M new_pool p --chunk 64k
ok tvcreate -V 4M -n a p
write_chunks p a 0 4
ok tvcreate -V 4M -n b p
own=$(ls "$(backup_dir p)"/*.vg | tail -1)
ownuuid=$(basename "$(backup_dir p)")
foreignuuid=$(basename "$(dirname "$foreign")")
[ "$ownuuid" != "$foreignuuid" ] || fail "one uuid for two pools"
# onto the intact pool: refused by its labels, said once
md5sum ./p-*.img >sums.before
failed tprepair p --restorefile "$foreign"
err_has "not restoring over it"
err_lacks "Device or resource busy"
err_has "the input is unchanged"
md5sum ./p-*.img | cmp -s sums.before - || fail "a foreign backup onto the intact pool changed it"
# the VG areas lost on both devices, and the devices file gone
for f in p-data.img p-meta.img; do
	dd if=/dev/zero of=$f bs=1M count=1 conv=notrunc status=none
done
rm -f "$TPTOOLS_DIR/devices"
md5sum ./p-*.img >sums.before
same() { md5sum ./p-*.img | cmp -s sums.before - || fail "$1 changed a device"; }

failed tprepair p --restorefile "$foreign" --devices p-data.img,p-meta.img
err_has "uuid $foreignuuid"
err_has "pool uuid $ownuuid"
err_has "$own"
err_has "nothing was written"
err_lacks "Structure needs cleaning"
err_lacks "Device or resource busy"
same "a foreign backup"
[ ! -e "$TPTOOLS_DIR/devices" ] || ! grep -q "$foreignuuid" "$TPTOOLS_DIR/devices" ||
	fail "the refused restore recorded the other pool in the devices file"

# forced: restored, and said to read something else (exit 4)
cp p-data.img p-data.keep
cp p-meta.img p-meta.keep
expect_rc 4 tprepair p --force --restorefile "$foreign" --devices p-data.img,p-meta.img
cp p-data.keep p-data.img
cp p-meta.keep p-meta.img
rm -f "$TPTOOLS_DIR/devices"

# this host's own backup of the pool: restored, the volume as written
ok tprepair p --restorefile "$own" --devices p-data.img,p-meta.img
ok tpcheck p
out_has "p: clean"
ok tpstatus --noheadings -o pool_uuid p
out_has "$ownuuid"
