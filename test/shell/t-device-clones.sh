# SPDX-License-Identifier: GPL-2.0-or-later
# Cloned devices (issue 11): copies of a pool's devices (dd clones, LUN
# snapshots) attached as loop devices are duplicates. Every command that
# would write refuses (exit 5) naming both paths of each pair, tpstatus
# and tpcheck still read and warn, and no image changes; --devices picks.
# Also: a block device another program holds with O_EXCL is refused, by
# writers and readers alike.
[ "$(id -u)" = 0 ] || skip "loop devices need root"
have losetup || skip "no losetup"
cleanup() {
	[ -z "${holder:-}" ] || kill "$holder" 2>/dev/null || true
	loops_detach
}
trap cleanup EXIT

# a pool name no other test on this machine uses: the label scan sees
# every block device
pool=clone$$
image d.img 64M
image m.img 16M
loop_attach D d.img
loop_attach M m.img
ok tpcreate -d "$D" -m "$M" "$pool"
ok tvcreate -V 8M -n v "$pool"
cp d.img d2.img
cp m.img m2.img
loop_attach D2 d2.img
loop_attach M2 m2.img

refused() {
	unchanged 5 "$@"
	err_has "duplicate devices"
	err_has "$D and $D2"
	err_has "$M and $M2"
	err_has "--devices DATA,META"
}
refused tvcreate -V 8M -n w "$pool"
refused tvsnap -n s "$pool/v"
refused tvremove "$pool/v"
refused tpremove -y "$pool"
refused tpremove -y --force "$pool"
refused tpactivate "$pool"
refused tpdeactivate "$pool"
refused tprepair "$pool"
# tpcreate over a copy: it carries a known pool's label
unchanged 5 tpcreate --force -d "$D2" -m "$M2" other$$
err_has "belongs to pool $pool"

# readers read, and warn
sums ./*.img >sums.before
ok tpstatus "$pool"
err_has "duplicate devices"
err_has "$D and $D2"
out_has " v "
ok tpcheck "$pool"
err_has "duplicate devices"
sums ./*.img >sums.after
cmp -s sums.before sums.after || fail "a reader changed an image"

# --devices picks: the change goes to the named devices only
sum2=$(sums d2.img m2.img)
ok tvcreate -V 8M -n w --devices "$D,$M" "$pool"
err_has "duplicate devices"
[ "$sum2" = "$(sums d2.img m2.img)" ] || fail "--devices $D,$M wrote to the copies"
losetup -d "$D2" "$M2"

# a device another program holds exclusively (as a mount would)
python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
print("held", flush=True)
time.sleep(120)' "$D" >held &
holder=$!
wait_until "$holder" grep -q held held || fail "the holder of $D did not start"
unchanged 5 tvcreate -V 8M -n x "$pool"
err_has "$D is held by the kernel or another program"
# readers too (issue 12): the pool may be running under another name, so
# whether it is live cannot be told; refused rather than read as offline
unchanged 5 tpstatus "$pool"
err_has "none of the pool's own kernel devices is loaded"
kill "$holder"
wait "$holder" 2>/dev/null || true
holder=
ok tvcreate -V 8M -n x "$pool"
ok tpremove -y "$pool"
