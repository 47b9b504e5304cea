# SPDX-License-Identifier: GPL-2.0-or-later
# tpactivate --all / --auto, tpdeactivate --all and the activation flags
# (tpcreate/tvcreate --activate, tpchange/tvchange) on image files. This
# host has no device-mapper: activation itself fails cleanly, which is
# what lets us see which pools and volumes --all tried; test/vm
# (s-tp-pool.sh) covers the real kernel.
DATA_SIZE=128M META_SIZE=16M
new_pool alpha
new_pool beta --activate n
ok tvcreate -V 1G -n www alpha
ok tvcreate -V 1G -n scratch --activate n alpha
out_has "Volume alpha/scratch created"

# the flags, shown and changed
ok tpchange alpha
out_has "Pool alpha: activate y."
ok tpchange beta
out_has "Pool beta: activate n."
ok tvchange alpha/www
out_has "Volume alpha/www: activate y."
ok tvchange alpha/scratch
out_has "Volume alpha/scratch: activate n."
ok tvchange --activate n alpha/www
ok tvchange --activate y alpha/www
out_has "activate y"
usage_error tpchange --activate maybe alpha
err_has "--activate takes y or yes, n or no, not 'maybe'"
usage_error tvchange alpha
unchanged 5 tvchange --activate n alpha/nosuch
err_has "no volume nosuch"
usage_error tvcreate -V 1G -n x --activate 1 alpha
usage_error tvcreate -V 1G -n x --activate auto alpha
usage_error tpcreate --data x --meta y --activate maybe gamma
# --activate takes the spellings --zero takes (less auto), on every command
ok tpchange --activate No beta
out_has "activate n"
ok tpchange --activate YES beta
out_has "activate y"
ok tpchange --activate no beta
ok tvchange --activate no alpha/www
out_has "activate n"
ok tvchange --activate yes alpha/www
out_has "activate y"
ok tvcreate -V 1G -n tmp --activate No alpha
ok tvchange alpha/tmp
out_has "Volume alpha/tmp: activate n."
ok tvremove -y alpha/tmp
image gamma-data.img 128M
image gamma-meta.img 16M
ok tpcreate --data gamma-data.img --meta gamma-meta.img --activate no gamma
ok tpchange gamma
out_has "Pool gamma: activate n."
ok tpremove -y gamma

# the command line
usage_error tpactivate
usage_error tpactivate --all alpha
usage_error tpactivate --all --devices alpha-data.img,alpha-meta.img
usage_error tpdeactivate --all alpha

# (a /dev/mapper/control node alone may be stale: libdevmapper, run by
# libcryptsetup in the encryption tests, makes one on a kernel without dm)
if [ -e /sys/class/misc/device-mapper ] || grep -qw device-mapper /proc/misc; then
	skip "this host has device-mapper; see test/vm"
fi

# --all: alpha is tried (and fails here), beta is skipped by its flag;
# one failure makes the exit 5, after every pool was tried
failed tpactivate --all
out_has "Pool beta: skipped (activation flag n)."
out_has "0 pool(s) activated, 1 left as they were, 1 failed."
err_has "device-mapper"
# a pool busy on this host (its data device in use by another tptools
# command, here a held flock) is a failure, said as such: not passed by as
# a shared pool whose lease another host holds (tptools(7) SHARED STORAGE;
# that case, between two kernels: test/vm/s2-pause.sh)
expect_rc 5 flock -x alpha-data.img tpactivate --all
err_has "alpha-data.img is in use by another tptools command"
out_lacks "lease"
out_has "0 pool(s) activated, 1 left as they were, 1 failed."
# nothing flagged y: nothing wanted, nothing failed
ok tpchange --activate n alpha
ok tpactivate --all
out_has "Pool alpha: skipped"
out_has "0 pool(s) activated, 2 left as they were, 0 failed."
ok tpchange --activate y alpha
# a pool whose lock another command keeps (a hung holder would stall the
# boot): --all and --auto wait at most --lock-wait seconds in all
# (tptools.conf's activate/lock_wait, default 60), then that pool fails,
# named with its holder's pid, and the other pools are still tried
ok tpchange --activate y beta
flock -F -x "$TPTOOLS_DIR/lock/alpha.lock" sleep 60 &
holder=$!
sleep 0.5
failed tpactivate --all --lock-wait 1
err_has "pool alpha: its lock is still held by process $holder (sleep 60)"
err_has "waits at most 1 s in all for locks"
grep -q "device-mapper" err || fail "beta was not tried after alpha"
out_has "0 pool(s) activated, 0 left as they were, 2 failed."
# the bound is the whole run's: a second held pool is not waited on again
flock -F -x "$TPTOOLS_DIR/lock/beta.lock" sleep 60 &
holder2=$!
sleep 0.5
failed tpactivate --auto alpha beta --lock-wait 1
err_has "pool alpha: its lock is still held by process $holder "
err_has "pool beta: its lock is still held by process $holder2 "
out_has "0 pool(s) activated, 0 left as they were, 2 failed."
kill $holder2
wait $holder2 || true
# from tptools.conf, and for tpdeactivate --all (the shutdown side)
printf 'activate {\n\tlock_wait = 0\n}\n' >"$TPTOOLS_DIR/tptools.conf"
ok tpconfig activate/lock_wait
out_has "0"
failed tpdeactivate --all
err_has "pool alpha: its lock is still held by process $holder "
err_has "waits at most 0 s in all for locks"
out_has "0 pool(s) deactivated, 1 left as they were, 1 failed."
failed tpactivate --auto alpha
err_has "pool alpha: its lock is still held by process $holder "
rm "$TPTOOLS_DIR/tptools.conf"
kill $holder
wait $holder || true
usage_error tpactivate --lock-wait 5 alpha
err_has "--lock-wait goes with --all or --auto"
usage_error tpactivate --all --lock-wait -1
usage_error tpactivate --all --lock-wait 3601
ok tpchange --activate n beta
# an explicit name still activates a pool flagged n (and fails here on dm)
failed tpactivate beta
err_has "device-mapper"

# --auto POOL: the rules of udev's and the boot's activation for the named pools only
ok tpactivate --auto beta
out_has "Pool beta: skipped"
failed tpactivate --auto alpha beta
out_has "1 failed"

# --auto DEVICE (what the udev rule's unit runs for the device that just
# appeared): the label names the pool
ok tpactivate --auto "$PWD/beta-data.img"
out_has "Pool beta: skipped"
image plain.img 1M
failed tpactivate --auto "$PWD/plain.img"
err_has "no (readable) tptools label"
out_has "0 pool(s) activated, 0 left as they were, 1 failed."

# the first device of a pool appears, the other is still missing: left
# for later (the event of the last device activates it), not a failure
mv beta-meta.img beta-meta.away
ok tpactivate --auto "$PWD/beta-data.img"
out_has "Pool beta: not all of its devices are present"
ok tpactivate --auto beta
out_has "Pool beta: not all of its devices are present"
mv beta-meta.away beta-meta.img
ok tpchange --activate y beta
mv alpha-meta.img alpha-meta.away
failed tpactivate --auto "$PWD/beta-meta.img"
out_has "0 pool(s) activated, 0 left as they were, 1 failed."
# --all: alpha is incomplete (left), beta complete (tried: no dm here)
failed tpactivate --all
out_has "Pool alpha: not all of its devices are present"
out_has "0 pool(s) activated, 1 left as they were, 1 failed."
mv alpha-meta.away alpha-meta.img
ok tpchange --activate n beta

# deactivation of all: nothing is active on this host
ok tpdeactivate --all
out_has "0 pool(s) deactivated, 2 left as they were, 0 failed."

# On loop devices, as udev sees them: 60-tptools-member.rules and
# 69-tptools-autoactivate.rules ask systemd for
# tptools-autoactivate@MAJ:MIN.service; the unit's command finds the pool
# incomplete while its metadata device is missing and tries it once both
# are there (no device-mapper here: exit 5 naming it).
have losetup || exit 0
image g-data.img 128M
image g-meta.img 16M
gd=$(losetup -f --show g-data.img 2>/dev/null) || exit 0
gm=$(losetup -f --show g-meta.img 2>/dev/null) || { losetup -d "$gd"; exit 0; }
private=""
cleanup() {
	[ -z "$private" ] || rm -f $private
	for l in "$gd" "$gm"; do [ -z "$l" ] || losetup -d "$l" 2>/dev/null || true; done
}
trap cleanup EXIT
ok tpcreate --data "$gd" --meta "$gm" gamma
mm=$(printf '%d:%d' $(stat -Lc '0x%t 0x%T' "$gd"))
if have udevadm && [ -w /run ] && [ -e "/sys/class/block/${gd#/dev/}" ]; then
	mkdir -p /run/udev/rules.d
	private="/run/udev/rules.d/60-tptools-member-test-$$.rules /run/udev/rules.d/69-tptools-autoactivate-test-$$.rules"
	set -- $private
	sed "s|/usr/sbin/tp |$TOP/$BUILD/bin/tp |" "$TOP/udev/60-tptools-member.rules" >"$1"
	cp "$TOP/udev/69-tptools-autoactivate.rules" "$2"
	ok udevadm test "/sys/class/block/${gd#/dev/}"
	out_has "^SYSTEMD_WANTS=tptools-autoactivate@$mm.service$"
	rm -f $private
	private=""
fi
losetup -d "$gm"
# a detach while something else (udev's probe, a scan of another test) holds
# the device open is deferred: wait until the loop device is unbound
for _ in $(seq 50); do losetup "$gm" >/dev/null 2>&1 || break; sleep 0.2; done
losetup "$gm" >/dev/null 2>&1 && { echo "FAIL: $gm stays bound after losetup -d" >&2; exit 1; }
gm=""
ok tpactivate --auto "/dev/block/$mm"
out_has "Pool gamma: not all of its devices are present"
gm=$(losetup -f --show g-meta.img)
failed tpactivate --auto "/dev/block/$mm"
err_has "device-mapper"
out_has "0 pool(s) activated, 0 left as they were, 1 failed."
