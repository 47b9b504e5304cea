#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Stacked devices on the real kernel (issue 28, STACKED DEVICES in
# tptools(7)): a pool whose data device is an md RAID1 with metadata 1.0 or
# 0.90 (the superblock at the end, so every member carries the pool's
# label in sector 1), and 1.2 as the control (superblock and data offset at
# the start: the members show no label). With the array stopped, tpstatus
# says the pool waits for /dev/md1 and records no member, tpactivate
# refuses (exit 5) naming the array and loads nothing; with one member
# wiped (degraded) and the array stopped, the same; once
# `mdadm --assemble --run` starts the degraded array, tpactivate works and
# the data written before reads back. udev: `tp udev-probe` prints nothing
# for a member, `udevadm test` on a member asks for no autoactivation and
# on the running array does. A path of a dm-multipath map is passed by the
# label scan the same way, and tpcreate refuses the map and its own path
# as data and metadata (the same storage, sysfs slaves/).
. "$TP_SRC/test/vm/lib.sh"
vm_begin -n 5 -e -m -k raid1
A=${disks[0]} B=${disks[1]} META=${disks[2]} MP=${disks[3]} MPMETA=${disks[4]}
MIB=$((TP_DISK_SIZE >> 20))

# rc CMD...: CMD's exit status, its stderr in ./err, stdout in ./out
rc() { "$@" >out 2>err && echo 0 || echo $?; }
has() { grep -q -- "$2" "$1" || note_fail "$1 lacks '$2': $(cat "$1")"; }
lacks() { ! grep -q -- "$2" "$1" || note_fail "$1 has '$2': $(cat "$1")"; }
# no_pool POOL: device-mapper holds nothing of POOL
no_pool() {
	local t
	t=$(dmsetup table 2>/dev/null | grep "^$1-" || true)
	expect_eq "dm devices of $1 after a refusal" "$t" ""
}
# wipe_member DEV: its md superblock (start or end) and its first and last MiB
wipe_member() {
	mdadm --zero-superblock "$1" 2>/dev/null
	dd if=/dev/zero of="$1" bs=1M count=1 oflag=direct status=none
	dd if=/dev/zero of="$1" bs=1M count=1 seek=$((MIB - 1)) oflag=direct status=none
}

# udev_test DEV [RULES]: `udevadm test` with our rules (the tp of this
# build) into ./udev.out; mdadm's incremental assembly rule is masked so
# the test does not start the array, and the database entry it wrote is
# dropped after. RULES: a rules file put at 68 (after our member rule,
# before our autoactivation rule) to feign what other rules would set.
udev_test() {
	local mm r=/run/udev/rules.d
	mkdir -p $r
	sed "s|/usr/sbin/tp |$TP_BUILD/bin/tp |" "$TP_SRC/udev/60-tptools-member.rules" \
		>$r/60-tptools-member.rules
	cp "$TP_SRC/udev/69-tptools-autoactivate.rules" $r/
	: >$r/64-md-raid-assembly.rules
	printf '%s\n' "${2:-}" >$r/68-tptools-feign.rules
	[ -z "${2:-}" ] || : >$r/63-md-raid-arrays.rules
	udevadm test "/sys/class/block/${1#/dev/}" >udev.out 2>&1 || note_fail "udevadm test $1"
	mm=$(printf '%d:%d' $(stat -Lc '0x%t 0x%T' "$1"))
	rm -f $r/60-tptools-member.rules $r/69-tptools-autoactivate.rules \
		$r/64-md-raid-assembly.rules $r/63-md-raid-arrays.rules $r/68-tptools-feign.rules \
		"/run/udev/data/b$mm"
}

# round VERSION POOL: the whole story on an md RAID1 of $A and $B
round() {
	local ver=$1 pool=$2 sum got
	step "RAID1, metadata $ver: a pool on /dev/md1, data written"
	must mdadm --create /dev/md1 --run --quiet --assume-clean --level=1 --raid-devices=2 \
		--metadata="$ver" "$A" "$B"
	vm_live_pool "$pool" /dev/md1 "$META" 32M v
	must dd if=/dev/urandom of=data.bin bs=1M count=8 status=none
	must dd if=data.bin of="/dev/mapper/$pool-v" bs=1M oflag=direct status=none
	sum=$(md5sum <data.bin)
	must tpdeactivate "$pool"
	cp etc/devices devices.before
	has etc/devices "^$pool [^ ]* data .* /dev/md1$"

	step "metadata $ver: the array stopped"
	must mdadm --stop --quiet /dev/md1
	expect_eq "$ver: blkid on a member" "$(blkid -p -o value -s TYPE "$A")" linux_raid_member
	expect_eq "$ver: tpstatus exit" "$(rc tpstatus "$pool")" 5
	cat err
	if [ "$ver" = 1.2 ]; then
		# the control: no label on the members at all
		lacks err "skipping"
		has err "data device was not found"
	else
		has err "skipping $A: a member of md array"
		has err "skipping $B: a member of md array"
		has err "waiting for its data device, md array /dev/md1"
		has err "the array is not assembled"
		has err "mdadm --assemble --run /dev/md1 $A $B"
	fi
	cmp -s etc/devices devices.before || note_fail "$ver: the devices file changed: $(cat etc/devices)"
	lacks etc/devices " $A$"
	expect_eq "$ver: tpactivate exit" "$(rc tpactivate "$pool")" 5
	[ "$ver" = 1.2 ] || has err "md array /dev/md1"
	no_pool "$pool"
	if [ "$ver" != 1.2 ]; then
		expect_eq "$ver: tpactivate --devices member" \
			"$(rc tpactivate --devices "$A,$META" "$pool")" 5
		has err "$A is a member of md array"
		has err "allow-component"
		no_pool "$pool"
		expect_eq "$ver: udev-probe on a member" "$(rc tp udev-probe "$A")" 0
		expect_eq "$ver: udev-probe output for a member" "$(cat out)" ""
		expect_eq "$ver: tpactivate --auto member" "$(rc tpactivate --auto "$A")" 0
		has out "skipping $A: a member of md array"
		no_pool "$pool"
		# boot: --all leaves the waiting pool for the array's event
		expect_eq "$ver: tpactivate --all" "$(rc tpactivate --all)" 0
		has out "Pool $pool: not all of its devices are present; left as it is."
		has err "skipping $A: a member of md array"
		no_pool "$pool"
	fi
	if [ "$ver" = 1.0 ] && [ -x /lib/systemd/systemd-udevd ]; then
		step "metadata $ver: udev rules on a member of the stopped array"
		udev_test "$A"
		lacks udev.out "tptools-autoactivate@"
		lacks udev.out "ID_FS_TYPE=tptools_member"
	fi

	step "metadata $ver: one member wiped, the array still stopped"
	wipe_member "$B"
	expect_eq "$ver: tpstatus exit, degraded" "$(rc tpstatus "$pool")" 5
	[ "$ver" = 1.2 ] || has err "waiting for its data device, md array /dev/md1"
	expect_eq "$ver: tpactivate exit, degraded" "$(rc tpactivate "$pool")" 5
	cat err
	[ "$ver" = 1.2 ] || has err "md array /dev/md1"
	no_pool "$pool"
	cmp -s etc/devices devices.before || note_fail "$ver: the devices file changed: $(cat etc/devices)"

	if [ "$ver" = 1.0 ] && [ -x /lib/systemd/systemd-udevd ]; then
		step "metadata $ver: the degraded array assembled but not started (incremental)"
		# what udev's incremental assembly does at boot with one member
		mdadm --incremental "$A" 2>&1
		md=$(ls "/sys/class/block/${A#/dev/}/holders" | head -1)
		expect_eq "array state of $md, not started" \
			"$(cat "/sys/class/block/$md/md/array_state" 2>&1)" inactive
		expect_eq "$ver: tpactivate exit, inactive array" "$(rc tpactivate "$pool")" 5
		cat err
		has err "skipping $A: a member of md array /dev/$md"
		has err "waiting for its data device, md array /dev/$md"
		has err "mdadm --run /dev/$md"
		no_pool "$pool"
		# our own guard, with the member mark and without mdadm's rule
		# (which would set SYSTEMD_READY=0 first)
		udev_test "/dev/$md" 'ENV{ID_FS_TYPE}="tptools_member", ENV{TPTOOLS_POOL}="'"$pool"'"'
		has udev.out "^ID_FS_TYPE=tptools_member"
		lacks udev.out "tptools-autoactivate@"
		must mdadm --stop --quiet "/dev/$md"
	fi

	step "metadata $ver: the degraded array assembled: the pool is there"
	must mdadm --assemble --run --quiet /dev/md1 "$A"
	expect_eq "$ver: tpactivate exit, assembled" "$(rc tpactivate "$pool")" 0
	cat err
	lacks err "skipping"
	got=$(dd if="/dev/mapper/$pool-v" bs=1M count=8 iflag=direct status=none | md5sum)
	expect_eq "$ver: data read back" "$got" "$sum"
	if [ "$ver" = 1.0 ] && [ -x /lib/systemd/systemd-udevd ]; then
		must tpdeactivate "$pool"
		step "metadata $ver: udev rules on the running array"
		udev_test /dev/md1
		has udev.out "ID_FS_TYPE=tptools_member"
		has udev.out "^SYSTEMD_WANTS=.*tptools-autoactivate@9:1.service"
		# a multipath path is never activated (the property multipath's
		# rules set, feigned on the array)
		udev_test /dev/md1 'ENV{DM_MULTIPATH_DEVICE_PATH}="1"'
		has udev.out "ID_FS_TYPE=tptools_member"
		lacks udev.out "tptools-autoactivate@"
		must tpactivate "$pool"
	fi
	must tpdeactivate "$pool"
	must tpremove -y "$pool"
	must mdadm --stop --quiet /dev/md1
	wipe_member "$A"
	wipe_member "$B"
	dd if=/dev/zero of="$META" bs=1M count=1 oflag=direct status=none
	rm -f etc/devices
}

round 1.0 c10
round 0.90 c090
round 1.2 c12

step "dm-multipath: a path of a map is passed by, the map is the device"
if vm_modprobe dm-multipath && vm_modprobe dm-round-robin; then
	sectors=$(blockdev --getsz "$MP")
	must dmsetup create mpatha --uuid mpath-tptoolstest \
		--table "0 $sectors multipath 0 0 1 1 round-robin 0 1 1 $MP 1000"
	# data and metadata on the same storage: the map and its own path
	head -c 1048576 "$MP" | md5sum >mp.sum
	expect_eq "tpcreate on a map and its path" \
		"$(rc tpcreate --data /dev/mapper/mpatha --meta "$MP" mp)" 3
	has err "/dev/mapper/mpatha is built on $MP"
	expect_eq "the path after the refusal" "$(head -c 1048576 "$MP" | md5sum)" "$(cat mp.sum)"
	must tpcreate --data /dev/mapper/mpatha --meta "$MPMETA" mp
	rm -f etc/devices
	expect_eq "tpstatus over the label scan" "$(rc tpstatus mp)" 0
	cat err
	has err "skipping $MP: a path of multipath device /dev/mapper/mpatha"
	lacks etc/devices " $MP$"
	expect_eq "--devices naming a path" "$(rc tpstatus --devices "$MP,$MPMETA" mp)" 5
	has err "a path of multipath device /dev/mapper/mpatha"
	expect_eq "udev-probe on a path" "$(rc tp udev-probe "$MP")" 0
	expect_eq "udev-probe output for a path" "$(cat out)" ""
	must tpremove -y mp
	must dmsetup remove mpatha
	dd if=/dev/zero of="$MP" bs=1M count=1 oflag=direct status=none
else
	echo "no dm-multipath module: the unit table covers multipath paths"
fi
finish
