# SPDX-License-Identifier: GPL-2.0-or-later
# An added data device (tpextend --data) whose label and VG area are lost
# while the device is still at its path (tprepair(8) step 1): tpcheck
# advises tprepair, not 'tpreduce --missing' (which would take away a
# device that holds data), tprepair rewrites its label and VG copy from
# the VG metadata, and the pool opens again with every volume's bytes as
# they were. The device is checked first, never trusted: one too small
# for what the VG records of it, or one the devices file does not name
# there, is not written (exit 5, every image unchanged).
image p-data.img 24M
image p-meta.img 16M
image d2.img 24M
image d3.img 24M
ok tpcreate --data p-data.img --meta p-meta.img --chunk 64k p
ok tpextend --data d2.img p
ok tpextend --data d3.img p
# a volume over all three data devices
head -c 56M /dev/urandom >a.want
ok tprecv --format raw -n a p <a.want
ok tpstatus --noheadings --devices-report p
grep -q "^p  *data 2 .* ok  *$PWD/d2.img$" out || fail "d2 not data device 2: $(cat out)"
cp d2.img d2.orig

lose_label() { dd if=/dev/zero of=d2.img bs=1M count=1 conv=notrunc status=none; }
lose_label
md5sum ./*.img >sums.before
same() { md5sum ./*.img | cmp -s sums.before - || fail "$1 changed an image"; }

# a device too small for what the VG records of it is not data device 2
cp d2.img d2.lost
truncate -s 16M d2.img
md5sum ./*.img >sums.before
expect_rc 2 tpcheck p
out_lacks "tprepair p"
failed tprepair p
err_has "tprepair writes no pool without every data device"
same "tprepair of a too small device"
cp d2.lost d2.img

# the devices file names it elsewhere: not taken for it
cp "$TPTOOLS_DIR/devices" devices.orig
sed -i "s#$PWD/d2.img#$PWD/elsewhere.img#" "$TPTOOLS_DIR/devices"
cmp -s devices.orig "$TPTOOLS_DIR/devices" && fail "the devices file does not name d2.img"
md5sum ./*.img >sums.before
failed tprepair p
same "tprepair of a device the devices file names elsewhere"
cp devices.orig "$TPTOOLS_DIR/devices"

# where the VG and the devices file say: the commands name tprepair
md5sum ./*.img >sums.before
failed tpstatus p
err_has "A device without a valid label is at $PWD/d2.img"
expect_rc 2 tpcheck p
out_has "next: run 'tprepair p' to rewrite the lost label of data device 2 ($PWD/d2.img"
out_lacks "tpreduce --missing"
same "tpcheck"
ok tprepair p
out_has "rewrote the lost label and VG area of data device 2 ($PWD/d2.img)"
ok tpcheck p
out_has "p: clean"
thin_check_pool p
ok tpstatus --noheadings --devices-report p
grep -q "^p  *data 2 .* ok  *$PWD/d2.img$" out || fail "d2 not back: $(cat out)"
# its data area untouched, and the volume reads as before
cmp -s <(tail -c +$((1024 * 1024 + 1)) d2.orig) <(tail -c +$((1024 * 1024 + 1)) d2.img) ||
	fail "d2's data area changed"
ok tpsend --format raw -o a.got p/a
cmp a.got a.want || fail "volume a reads other bytes after the repair"
# the pool takes changes again, on every device
ok tvcreate -V 4M -n b p
ok tpcheck p
