# SPDX-License-Identifier: GPL-2.0-or-later
# Stacked devices on image files (STACKED DEVICES in tptools(7)): an image
# that carries our label AND an md superblock at its end (what a member of
# an md RAID1 with metadata 1.0 or 0.90 looks like) is a component, not a
# pool device: --devices refuses it (exit 5) unless --allow-component, the
# devices file never gets it, udev-probe prints nothing for it and
# autoactivation passes it by. And tpcreate refuses data and metadata on
# the same storage (same file, symlink, hard link, a loop device over the
# other), exit 3. Every refusal leaves the images byte-for-byte unchanged.

# md_super IMG VERSION: write an md superblock where md keeps it on a
# member of IMG's size: 0.90 at the last 64 KiB boundary minus 64 KiB,
# 1.0 (checksummed) 8-12 KiB before the end.
md_super() {
	python3 - "$1" "$2" <<'EOF'
import os, struct, sys
path, ver = sys.argv[1], sys.argv[2]
size = os.path.getsize(path)
uuid = bytes(range(0x21, 0x31))
if ver == "0.90":
    sb = bytearray(4096)
    struct.pack_into("<IIII", sb, 0, 0xa92b4efc, 0, 90, 0)
    struct.pack_into("<I", sb, 20, 0x01020304)
    struct.pack_into("<I", sb, 28, 1)
    struct.pack_into("<III", sb, 52, 0x05060708, 0x090a0b0c, 0x0d0e0f10)
    off = (size & ~0xffff) - 0x10000
else:
    sb = bytearray(512)
    off = (((size // 512) - 16) & ~7) * 512
    struct.pack_into("<II", sb, 0, 0xa92b4efc, 1)
    sb[16:32] = uuid
    sb[32:39] = b"box:one"
    struct.pack_into("<I", sb, 72, 1)            # level
    struct.pack_into("<I", sb, 92, 2)            # raid disks
    struct.pack_into("<QQQ", sb, 128, 0, off // 512, off // 512)
    s = sum(struct.unpack_from("<64I", sb, 0))
    struct.pack_into("<I", sb, 216, (s & 0xffffffff) + (s >> 32) & 0xffffffff)
with open(path, "r+b") as f:
    f.seek(off)
    f.write(sb)
EOF
}

have tp-thinmap || fail "tp-thinmap not built (make tests)"
DATA_SIZE=256M META_SIZE=16M new_pool mp --chunk 64k
ok tvcreate -V 4M -n v mp
truncate -s 4M v.want
write_chunks mp v 0 3
cp etc/devices devices.before

for ver in 0.90 1.0; do
	cp mp-data.img d-$ver.img
	md_super d-$ver.img $ver
	blkid -p -o value -s TYPE d-$ver.img >type.out 2>&1 || true
	[ "$(cat type.out)" = linux_raid_member ] || fail "blkid does not see md $ver: $(cat type.out)"
done
mv d-0.90.img mp-data.img
sums mp-data.img mp-meta.img >sums.before

# --devices naming the member: refused, naming the array, nothing written
failed tpstatus --devices mp-data.img,mp-meta.img mp
err_has "mp-data.img is a member of md array"
err_has "md array with uuid 01020304-0506-0708-090a-0b0c0d0e0f10"
err_has "not assembled"
err_has "allow-component"
failed tvcreate --devices mp-data.img,mp-meta.img -V 64M -n w mp
err_has "member of md array"
failed tpactivate --devices mp-data.img,mp-meta.img mp
err_has "member of md array"
sums mp-data.img mp-meta.img | cmp -s - sums.before || fail "a refusal changed the images"

# --allow-component: for recovery, with a warning; still not recorded
ok tpstatus --devices mp-data.img,mp-meta.img --allow-component mp
err_has "using it anyway (--allow-component"
out_has " v "
usage_error tpstatus --allow-component mp
err_has "goes with --devices"
usage_error tpactivate --allow-component mp
# recovery: a volume copied off the member, the same as before
failed tpsend --format raw --devices mp-data.img,mp-meta.img -o v.raw mp/v
err_has "member of md array"
[ ! -e v.raw ] || fail "a refused tpsend wrote v.raw"
ok tpsend --format raw --devices mp-data.img,mp-meta.img --allow-component -o v.raw mp/v
err_has "using it anyway"
cmp v.raw v.want || fail "the volume read off the member differs"
usage_error tpsend --format raw --allow-component -o v.raw mp/v

# the devices file's entry for mp-data.img now points at a component: passed by
# with one line, and the pool waits for its array; readers write nothing
failed tpstatus mp
err_has "skipping $PWD/mp-data.img: a member of md array"
err_has "waiting for its data device, md array"
err_has "mdadm --assemble --scan"
err_has "mdadm --assemble --run"
[ "$(grep -c 'skipping' err)" = 1 ] || fail "the skip line is not said once: $(cat err)"
failed tpactivate mp
err_has "waiting for its data device, md array"
failed tvcreate -V 64M -n w mp
cmp -s etc/devices devices.before || fail "the devices file changed: $(cat etc/devices)"
sums mp-data.img mp-meta.img | cmp -s - sums.before || fail "a refusal changed the images"

# udev: nothing for the member, the metadata device is still marked;
# autoactivation passes the member by (exit 0), the array's event does it
ok tp udev-probe mp-data.img
[ ! -s out ] || fail "udev-probe printed for a member: $(cat out)"
ok tp udev-probe mp-meta.img
out_has "ID_FS_TYPE=tptools_member"
ok tpactivate --auto "$PWD/mp-data.img"
out_has "skipping $PWD/mp-data.img: a member of md array"
out_has "0 pool(s) activated, 1 left as they were, 0 failed"

# md 1.0 (checksummed, named): the same, with the array's name
mv d-1.0.img mp-data.img
failed tpstatus --devices mp-data.img,mp-meta.img mp
err_has "a member of md array box:one (uuid 21222324"
failed tpstatus mp
err_has "waiting for its data device, md array"

# the label scan over block devices: the member as a loop device is passed
# by, the pool waits for its array, nothing is recorded; udev-probe marks
# nothing on it (the rules themselves: `udevadm test` in test/vm/s-components.sh,
# not here, where udev's database is the host's)
if have losetup && ml=$(losetup -f --show mp-data.img 2>/dev/null); then
	trap 'losetup -d "$ml" 2>/dev/null || true' EXIT
	grep -v "^mp [0-9a-f-]* data " devices.before >etc/devices
	cp etc/devices devices.scan
	failed tpstatus mp
	err_has "skipping $ml: a member of md array box:one"
	err_has "waiting for its data device, md array /dev/md/one (name box:one, uuid 21222324"
	err_has "mdadm --assemble --run /dev/md/one $ml"
	cmp -s etc/devices devices.scan || fail "a member was recorded: $(cat etc/devices)"
	ok tp udev-probe "$ml"
	[ ! -s out ] || fail "udev-probe printed for a member: $(cat out)"
	losetup -d "$ml"
	trap - EXIT
	cp devices.before etc/devices
fi

# ---- data and metadata on the same storage: tpcreate refuses, exit 3 ----
image d2.img 64M
image m2.img 16M
ln -s d2.img d2.link
ln d2.img d2.hard
sums d2.img m2.img >sums2.before
for meta in d2.img d2.link d2.hard "$PWD/d2.img"; do
	usage_error tpcreate --data d2.img --meta "$meta" two
	err_has "share their storage"
	err_has "A pool needs two separate devices"
done
err_has "same file (a hard link or a symlink)"
usage_error tpcreate --data d2.link --meta d2.hard two
sums d2.img m2.img | cmp -s - sums2.before || fail "a refusal changed the images"
[ ! -e etc/devices ] || ! grep -q "^two " etc/devices || fail "pool two was recorded"

# a loop device over the other image, when this host can attach one
if have losetup && loop=$(losetup -f --show d2.img 2>/dev/null); then
	trap 'losetup -d "$loop" 2>/dev/null || true' EXIT
	usage_error tpcreate --data d2.img --meta "$loop" two
	err_has "$loop is a loop device over $PWD/d2.img"
	usage_error tpcreate --data "$loop" --meta d2.hard two
	err_has "share their storage"
	losetup -d "$loop"
	trap - EXIT
fi
sums d2.img m2.img | cmp -s - sums2.before || fail "a refusal changed the images"
ok tpcreate --data d2.img --meta m2.img two
