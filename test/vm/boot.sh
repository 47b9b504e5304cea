#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# boot.sh - the boot test (make check-boot): a real Debian 12 system with
# systemd as PID 1 and tptools installed from its .deb with dpkg, booted four
# times under QEMU (TCG) on Debian's kernel; each boot must bring the pools up
# through udev and the package's units, mount the fstab volume and read back
# what was written before, and each shutdown must leave nothing of the pools
# in the kernel. The guest side is test/vm/boot-guest.sh (what each boot
# checks is there); test/vm/README.md says what this covers.
#
#   BUILD=build test/vm/boot.sh
#
# Steps on the host:
#   1. make deb (the release build) and the cached Debian 12 root
#      (scripts/mkbootroot.sh: debootstrap once into /var/cache/tptools/bootroot)
#   2. a fresh copy of that root: the package installed with dpkg in a chroot
#      (its maintainer scripts run: they must succeed and enable the units),
#      the kernel's modules, fstab, hostname, machine-id, the test's units;
#      made into an ext4 image with mke2fs -d (no mount, no loop device)
#   3. a busybox initramfs that loads virtio and ext4, mounts /dev/vda
#      read-only and switch_roots into /lib/systemd/systemd
#   4. the boots, one QEMU process each (-no-reboot: the guest's reboot ends
#      it, the next boot starts on the same disks), results from the guest's
#      second serial port; the host answers its requests through the QEMU
#      monitor: boot 2 "hotplug" (drive_add + device_add of a pool's data
#      disk), boot 3 "reset" (system_reset once the guest has fsync'd)
#
# Results: one line per test (the package's install, then each boot), PASS or
# FAIL with the guest's failed checks; "boot: N passed, N failed". Without
# QEMU, a kernel, busybox, root, or the cached root (and no network to make
# it): SKIP, nothing counted.
#
# Settings: BUILD (default build), TP_RESULTS (file for "passed failed" and
# the failures, as test/vm/run.sh), TP_KERNEL (6.1, the default: Debian 12's
# own kernel; 6.12), TP_VM_MEM (guest MiB, default 768), TP_BOOT_TIMEOUT
# (seconds per boot, a backstop, default 900), TP_VM_WORK (default
# $BUILD/vm-boot), TP_VM_KEEP=1 (keep the images), TP_BOOT_DEB (a package
# to test instead of building one).
set -u
cd "$(dirname "$0")/../.." || exit 1
SRC=$(pwd -P)
BUILD=${BUILD:-build}
RESULTS=${TP_RESULTS:-}
MEM=${TP_VM_MEM:-768}
BOOT_TIMEOUT=${TP_BOOT_TIMEOUT:-900}
WORK=${TP_VM_WORK:-$BUILD/vm-boot}
case $WORK in /*) ;; *) WORK=$SRC/$WORK ;; esac

failed_names=()
passed=0
failed=0
report() {
	[ -n "$RESULTS" ] && { echo "$passed $failed"; printf '%s\n' "${failed_names[@]}"; } >"$RESULTS"
	return 0
}
skip() {
	echo "boot: SKIP: $*"
	passed=0 failed=0
	report
	exit 0
}
# a test's verdict: name, then the reason when it failed
result() {
	if [ $# -eq 1 ]; then
		printf 'boot: %-34s PASS\n' "$1"
		passed=$((passed + 1))
	else
		printf 'boot: %-34s FAIL (%s)\n' "$1" "$2"
		failed=$((failed + 1))
		failed_names+=("$1: $2")
	fi
}
die() { # setup failed: every test counted failed
	echo "boot: FAIL: $*"
	result "setup" "$*"
	report
	exit 1
}

# ---- prerequisites ------------------------------------------------------
. test/vm/kernel.sh
QEMU=$(command -v qemu-system-x86_64) || skip "qemu-system-x86_64 is not installed (scripts/install-deps.sh)"
vm_kernel_find || {
	[ "$VM_KERNEL_BAD" = 1 ] && die "TP_KERNEL=$TP_KERNEL: say 6.1 or 6.12"
	skip "no kernel image in $KDIR (scripts/fetch-kernel.sh ${TP_KERNEL:-6.1})"
}
BUSYBOX=$(command -v busybox) || skip "busybox is not installed (busybox-static)"
for t in cpio depmod modprobe xz mke2fs chroot dpkg-deb; do
	command -v $t >/dev/null || skip "$t is not installed"
done
[ "$(id -u)" = 0 ] || skip "needs root (dpkg in a chroot, the root's owners in the image)"

t_start=$SECONDS
deb=${TP_BOOT_DEB:-}
if [ -z "$deb" ]; then
	deb=$(make -s --no-print-directory BUILD="$BUILD" deb) || die "make deb failed"
fi
case $deb in /*) ;; *) deb=$SRC/$deb ;; esac
[ -f "$deb" ] || die "no package $deb"
CACHE=$(scripts/mkbootroot.sh "$deb") || skip "no Debian 12 root for the boot test (scripts/mkbootroot.sh)"

mkdir -p "$WORK"
ROOT=$WORK/root
rm -rf "$ROOT" "$WORK"/*.img "$WORK"/*.log "$WORK"/mon.*
cp -a "$CACHE/." "$ROOT" || die "cannot copy $CACHE"

# ---- the package, as dpkg installs it (maintainer scripts in a chroot) ---
cp "$deb" "$ROOT/tmp/tptools.deb"
in_root() { chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C "$@"; }
why=""
if ! in_root dpkg -i /tmp/tptools.deb >"$WORK/dpkg.log" 2>&1; then
	why="dpkg -i failed: $(grep -iE 'error|fail' "$WORK/dpkg.log" | head -2 | paste -sd';' -)"
elif ! in_root dpkg -s tptools 2>/dev/null | grep -q '^Status: install ok installed'; then
	why="dpkg does not list tptools as installed"
elif grep -qiE 'warning|error|fail' "$WORK/dpkg.log"; then
	why="dpkg said: $(grep -iE 'warning|error|fail' "$WORK/dpkg.log" | head -2 | paste -sd';' -)"
else
	# postinst enabled both units the debhelper way
	for l in sysinit.target.wants/tptools-activate.service multi-user.target.wants/tptools-monitor.service; do
		[ -L "$ROOT/etc/systemd/system/$l" ] || why="${why:+$why; }postinst did not enable ${l#*/} ($l)"
	done
	for u in tptools-activate.service tptools-monitor.service; do
		s=$(in_root systemctl is-enabled "$u" 2>&1)
		[ "$s" = enabled ] || why="${why:+$why; }systemctl is-enabled $u: $s"
	done
fi
rm -f "$ROOT/tmp/tptools.deb"
cat "$WORK/dpkg.log"
if [ -n "$why" ]; then
	result "dpkg -i in a chroot" "$why"
	report
	exit 1
fi
result "dpkg -i in a chroot"

# ---- the rest of the system ---------------------------------------------
# the kernel that boots, its modules: disks, md, dm thin, ext4, loop
vm_copy_modules "$ROOT" virtio_pci virtio_blk ext4 crc32c_generic crc32c-intel md-mod raid456 \
	raid1 raid0 raid10 linear dm-mod dm-thin-pool dm-bufio dm-crypt xts loop autofs4 >/dev/null ||
	die "cannot install the modules of $KVER"
echo tpboot >"$ROOT/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 tpboot\n' >"$ROOT/etc/hosts"
# one machine id for all boots: the journal of the boot before is found
od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$ROOT/etc/machine-id"
echo >>"$ROOT/etc/machine-id"
mkdir -p "$ROOT/var/log/journal"
printf '/dev/vda / ext4 errors=remount-ro 0 1\n' >"$ROOT/etc/fstab"
# not what the test is about, and slow under emulation
for u in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
	fstrim.timer e2scrub_reap.service getty@tty1.service; do
	in_root systemctl disable "$u" >/dev/null 2>&1
done
install -D -m 0755 test/vm/boot-guest.sh "$ROOT/usr/local/lib/tp-boottest/boot-guest.sh"
cat >"$ROOT/etc/systemd/system/tp-boottest.service" <<'EOT'
[Unit]
Description=tptools boot test (test/vm/boot.sh)
After=multi-user.target tptools-monitor.service

[Service]
Type=exec
ExecStart=/usr/local/lib/tp-boottest/boot-guest.sh run
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
EOT
# stopped after tptools-activate.service at shutdown (the reverse of Before=)
cat >"$ROOT/etc/systemd/system/tp-boottest-shutdown.service" <<'EOT'
[Unit]
Description=tptools boot test: what the pools' deactivation at shutdown left
DefaultDependencies=no
Before=tptools-activate.service shutdown.target
Conflicts=shutdown.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/true
ExecStop=/usr/local/lib/tp-boottest/boot-guest.sh shutdown
TimeoutStopSec=120
StandardOutput=journal+console

[Install]
WantedBy=sysinit.target
EOT
in_root systemctl enable tp-boottest.service tp-boottest-shutdown.service >/dev/null 2>&1 ||
	die "cannot enable the test's units"

IMG=$WORK/tproot.img
mke2fs -q -t ext4 -L tproot -d "$ROOT" "$IMG" 2G >/dev/null || die "mke2fs -d $ROOT failed"
[ "${TP_VM_KEEP:-0}" = 1 ] || rm -rf "$ROOT"

# ---- initramfs: busybox, virtio and ext4, then systemd -------------------
IRD=$WORK/initramfs
rm -rf "$IRD"
mkdir -p "$IRD"/{bin,dev,proc,sys,newroot,etc}
cp "$BUSYBOX" "$IRD/bin/busybox"
for a in sh mount umount insmod switch_root sleep cat; do ln -s busybox "$IRD/bin/$a"; done
vm_copy_modules "$IRD" virtio_pci virtio_blk crc32c_generic ext4 >/dev/null || die "initramfs modules"
vm_modfiles virtio_pci virtio_blk crc32c_generic ext4 | sed -E 's/\.ko\.(xz|zst)$/.ko/' >"$IRD/etc/modules"
cat >"$IRD/init" <<'EOT'
#!/bin/sh
# PID 1 until the root is mounted: virtio disks and ext4, then systemd
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r ko; do insmod "$ko" 2>/dev/null; done </etc/modules
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
mount -t ext4 -o ro /dev/vda /newroot || { echo "initramfs: cannot mount /dev/vda"; sleep 5; exit 1; }
umount /proc /sys /dev
exec switch_root /newroot /lib/systemd/systemd
EOT
chmod 755 "$IRD/init"
INITRD=$WORK/initramfs.cpio
(cd "$IRD" && find . | cpio -o -H newc --quiet) >"$INITRD" || die "cpio failed"
rm -rf "$IRD"
BOOT=$(vm_vmlinux "$WORK")

# ---- disks (serials: the guest finds them under /dev/disk/by-id) -------
# RAID6 members tpr0..tpr4, pool tpa's metadata tpmeta, pool tpb's data
# tphot (hot-added in boot 2) and metadata tpbmeta, pool tpc's tpcdata and
# tpcmeta (--activate n), pool tpd's tpddata and tpdmeta (made in boot 3
# with its thin superblock zeroed: it fails to activate in boot 4)
disks=(tpr0:64M tpr1:64M tpr2:64M tpr3:64M tpr4:64M tpmeta:16M tphot:64M tpbmeta:16M
	tpcdata:32M tpcmeta:16M tpddata:16M tpdmeta:16M)
for d in "${disks[@]}"; do
	truncate -s "${d#*:}" "$WORK/${d%:*}.img"
done
drive_args() { # serial...: -drive/-device pairs
	local s
	for s in "$@"; do
		printf '%s\n' -drive "file=$WORK/$s.img,if=none,id=$s,format=raw,cache=unsafe" \
			-device "virtio-blk-pci,drive=$s,serial=$s"
	done
}
t_setup=$SECONDS
echo "boot: setup took $((t_setup - t_start))s (package, root image, initramfs)"

# ---- the boots ------------------------------------------------------------
MON=$WORK/mon
# qmp JSON: one QMP command into the monitor's pipe (its answer goes to the
# boot's monitor log); the first one of a boot is qmp_capabilities
qmp() {
	timeout 60 sh -c 'printf "%s\n" "$1" >"$2"' sh "$1" "$MON.in" ||
		echo "boot: QMP command not delivered: $1"
}
# qmp_ok N: the monitor log holds N answers and no error
qmp_ok() {
	local i
	for ((i = 0; i < 30; i++)); do
		[ "$(grep -c '"return"' "$mlog")" -ge "$1" ] && break
		sleep 1
	done
	if grep -q '"error"' "$mlog" || [ "$(grep -c '"return"' "$mlog")" -lt "$1" ]; then
		echo "boot: the QEMU monitor refused or did not answer: $(grep '"error"' "$mlog" | head -1)"
	fi
}
# run_boot N SERIAL...: one QEMU process until it ends (guest reboot or
# power-off, or the reset), answering the guest's requests; sets qrc
run_boot() {
	local n=$1 log=$WORK/console-$1.log res=$WORK/results-$1.log mlog=$WORK/monitor-$1.log
	local qpid cpid t0=$SECONDS hot=0 reset=0 lines
	shift
	rm -f "$MON.in" "$MON.out"
	mkfifo "$MON.in" "$MON.out"
	: >"$res"
	mapfile -t lines < <(drive_args tproot "$@")
	# the root disk is the first virtio disk: /dev/vda
	"$QEMU" -nodefaults -machine pc -accel tcg -cpu max -smp 1 -m "$MEM" -display none \
		-no-reboot -kernel "$BOOT" -initrd "$INITRD" \
		-append "console=ttyS0 root=/dev/vda ro panic=-1 loglevel=4 mitigations=off systemd.show_status=1" \
		-serial "file:$log" -serial "file:$res" \
		-chardev "pipe,id=mon,path=$MON" -mon chardev=mon,mode=control \
		"${lines[@]}" </dev/null >"$WORK/qemu-$n.log" 2>&1 &
	qpid=$!
	cat "$MON.out" >"$mlog" &
	cpid=$!
	qmp '{"execute": "qmp_capabilities"}'
	while kill -0 $qpid 2>/dev/null; do
		if [ $((SECONDS - t0)) -gt "$BOOT_TIMEOUT" ]; then
			echo "boot: boot $n ran past TP_BOOT_TIMEOUT=${BOOT_TIMEOUT}s; stopped"
			echo "BT TIMEOUT" >>"$res"
			kill $qpid
			break
		fi
		if [ $hot = 0 ] && grep -q '^BT REQ hotplug' "$res"; then
			hot=1
			echo "boot: boot $n asks for its data disk: blockdev-add + device_add virtio-blk-pci (tphot)"
			qmp '{"execute": "blockdev-add", "arguments": {"driver": "raw", "node-name": "tphot",
				"cache": {"no-flush": true}, "file": {"driver": "file", "filename": "'"$WORK/tphot.img"'"}}}'
			qmp '{"execute": "device_add", "arguments": {"driver": "virtio-blk-pci", "drive": "tphot",
				"id": "tphot-dev", "serial": "tphot"}}'
			qmp_ok 3
		fi
		if [ $reset = 0 ] && grep -q '^BT REQ reset' "$res"; then
			reset=1
			echo "boot: boot $n has fsync'd: system_reset"
			qmp '{"execute": "system_reset"}'
		fi
		sleep 1
	done
	wait $qpid
	qrc=$?
	kill $cpid 2>/dev/null
	wait $cpid 2>/dev/null
	sed -i 's/\r$//' "$res"
	grep '^BT ' "$res" | grep -vE '^BT (ok|  )' | sed "s/^/  /"
	echo "boot: boot $n: $((SECONDS - t0))s in QEMU (rc $qrc; console $log)"
}
# verdict N NAME SHUTDOWN REQ: boot N's checks all passed, it ended as
# expected: SHUTDOWN ok (a clean shutdown record) or none (reset); REQ the
# request it had to make (or -)
verdict() {
	local n=$1 name=$2 want_sd=$3 req=$4 res=$WORK/results-$1.log why="" f
	if ! grep -q "^BT BOOT $n begin" "$res"; then
		why="the test unit did not start (no 'BT BOOT $n begin'; see $WORK/console-$n.log)"
	elif ! grep -q "^BT BOOT $n end" "$res"; then
		why="the boot's checks did not finish"
	fi
	f=$(grep -c "^BT FAIL $n " "$res")
	[ "$f" = 0 ] || why="${why:+$why; }$f check(s) failed: $(grep "^BT FAIL $n " "$res" | head -3 | cut -d' ' -f4- | cut -c1-200 | paste -sd';' -)"
	[ "$req" = - ] || grep -q "^BT REQ $req" "$res" || why="${why:+$why; }it did not ask for the $req"
	case $want_sd in
	ok) if grep -q "^BT SHUTDOWN $n ok" "$res"; then :
	    elif grep -q "^BT SHUTDOWN $n" "$res"; then
		why="${why:+$why; }shutdown: $(grep "^BT SHUTDOWN $n" "$res" | head -1 | cut -d' ' -f4- | cut -c1-200)"
	    else why="${why:+$why; }no shutdown record (the state after tpdeactivate --all)"
	    fi ;;
	none) ! grep -q "^BT SHUTDOWN $n" "$res" || why="${why:+$why; }a shutdown ran: the reset was not a hard one" ;;
	esac
	grep -q '^BT TIMEOUT' "$res" && why="${why:+$why; }stopped after ${BOOT_TIMEOUT}s"
	if [ -z "$why" ]; then result "$name"; else result "$name" "$why"; fi
}

all=(tpr0 tpr1 tpr2 tpr3 tpr4 tpmeta tphot tpbmeta tpcdata tpcmeta tpddata tpdmeta)
cold=(tpr0 tpr1 tpr2 tpr3 tpr4 tpmeta tpbmeta tpcdata tpcmeta tpddata tpdmeta)
echo "boot: kernel $KVER (${BOOT##*/}), ${MEM} MiB, root $CACHE"
run_boot 1 "${all[@]}"
verdict 1 "boot 1: set up, clean reboot" ok -
if grep -q "^BT BOOT 1 end 0" "$WORK/results-1.log"; then
	run_boot 2 "${cold[@]}"
	verdict 2 "boot 2: checks, hot-plugged pool" ok hotplug
	run_boot 3 "${all[@]}"
	verdict 3 "boot 3: checks, fsync, hard reset" none reset
	run_boot 4 "${all[@]}"
	verdict 4 "boot 4: checks after the reset" ok -
	grep -h '^BT TIME' "$WORK"/results-[234].log | sed 's/^BT TIME /boot: time: boot /'
else
	for t in "boot 2: checks, hot-plugged pool" "boot 3: checks, fsync, hard reset" \
		"boot 4: checks after the reset"; do
		result "$t" "not run: boot 1 failed"
	done
fi
echo "boot: total $((SECONDS - t_start))s (setup $((t_setup - t_start))s, boots $((SECONDS - t_setup))s)"
[ "${TP_VM_KEEP:-0}" = 1 ] || rm -f "$WORK"/*.img
rm -f "$MON.in" "$MON.out"
echo "boot: $passed passed, $failed failed (logs in $WORK)"
report
[ "$failed" = 0 ]
