#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# guest.sh - runs in the test VM, chrooted into the host's read-only /
# (see init.sh): each scenario in its own temp dir, then a clean-up so the
# next one starts from blank disks. Prints one line per scenario:
#   VMTEST-SCENARIO <name> <rc> <seconds>
# Arguments: SRC BUILD DISKS DISK_BYTES SCENARIOS (lists comma separated;
# scenarios are script paths relative to SRC)
# SCENARIO_TIMEOUT (seconds; a scenario past it is killed: rc 124),
# ENVFILE (run.sh's FAULT_* knobs as export lines; optional).
SRC=$1 BUILD=$2 DISKS=${3//,/ } DISK_BYTES=$4 SCENARIOS=${5//,/ } LIMIT=${6:-240} ENVFILE=${7:-}
# a tree under the host's /tmp (a fresh clone) is at /run/host-tmp here
case $SRC in /tmp/*) SRC=/run/host-tmp/${SRC#/tmp/} ;; esac
case $BUILD in /tmp/*) BUILD=/run/host-tmp/${BUILD#/tmp/} ;; esac
case $ENVFILE in /tmp/*) ENVFILE=/run/host-tmp/${ENVFILE#/tmp/} ;; esac
[ -n "$ENVFILE" ] && [ -f "$ENVFILE" ] && . "$ENVFILE"
if [ -n "${TP_HOST:-}" ]; then
	# two hosts: the shared disks are the virtio disks with serial tpsharedN
	# (their names depend on the order QEMU probes them), in N's order; the
	# others are this host's scratch disks
	TP_SHARED="" DISKS=""
	for b in /sys/block/vd*; do
		serial=$(cat "$b/serial" 2>/dev/null)
		case $serial in tpshared*) ;; *) DISKS="$DISKS /dev/${b##*/}" ;; esac
	done
	for ((i = 0; ; i++)); do
		d=$(grep -lx "tpshared$i" /sys/block/vd*/serial 2>/dev/null | head -1)
		[ -n "$d" ] || break
		d=${d%/serial}
		TP_SHARED="$TP_SHARED /dev/${d##*/}"
	done
	TP_SHARED=${TP_SHARED# } DISKS=${DISKS# }
	export TP_SHARED
fi
export TP_SRC=$SRC TP_BUILD=$BUILD TP_DISKS=$DISKS TP_DISK_SIZE=$DISK_BYTES
export PATH=$BUILD/bin:$BUILD/test/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TMPDIR=/tmp LC_ALL=C
# no udev here: libdevmapper (dmsetup and ours) makes /dev/mapper nodes
export DM_DISABLE_UDEV=1
mkdir -p /run/mdadm /run/lock

now() { cut -d' ' -f1 /proc/uptime; }

cleanup() { # scenario-dir
	local d m i
	# no udev between scenarios (see above): a udevd a scenario left
	# running is stopped and its database dropped
	if pgrep -x systemd-udevd >/dev/null; then
		echo "VMTEST: a udevd was left running; stopping it"
		SYSTEMD_IGNORE_CHROOT=1 udevadm control --exit 2>/dev/null
		for ((i = 0; i < 50; i++)); do
			pgrep -x systemd-udevd >/dev/null || break
			sleep 0.1
		done
		pkill -KILL -x systemd-udevd 2>/dev/null
	fi
	[ -e /run/udev ] && rm -rf /run/udev
	# a killed scenario may leave file systems mounted in its dir
	for m in $(awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
		umount -l "$m" 2>/dev/null
	done
	# a killed scenario may leave devices suspended: resume before removal
	for d in $(dmsetup ls 2>/dev/null | awk '$1 != "No" { print $1 }'); do
		dmsetup resume "$d" >/dev/null 2>&1
	done
	for d in $(dmsetup ls 2>/dev/null | awk '$1 != "No" { print $1 }'); do
		dmsetup remove --retry "$d" >/dev/null 2>&1
	done
	dmsetup remove_all >/dev/null 2>&1
	mdadm --stop --scan >/dev/null 2>&1
	# a disk a scenario took away (its virtio device unbound) comes back
	for v in /sys/bus/virtio/devices/*; do
		[ -e "$v/driver" ] || echo "${v##*/}" >/sys/bus/virtio/drivers/virtio_blk/bind \
			2>/dev/null
	done
	# the first MiB and the last (md 1.0 and 0.90 superblocks live at
	# the end: a stale one would make the disk an md member); never a
	# regular file made in /dev where a disk is missing
	for d in $TP_DISKS; do
		[ -b "$d" ] || { echo "VMTEST: $d is missing after the scenario"; continue; }
		dd if=/dev/zero of="$d" bs=1M count=1 oflag=direct status=none 2>/dev/null
		dd if=/dev/zero of="$d" bs=1M count=1 seek=$((TP_DISK_SIZE / 1048576 - 1)) \
			oflag=direct status=none 2>/dev/null
	done
	for m in brd loop; do
		grep -q "^$m " /proc/modules && rmmod $m 2>/dev/null
	done
}

[ -d /run/out ] && export TP_OUT=/run/out
# two hosts: the meeting points, and which disks both hosts see
[ -d /run/sync ] && [ -n "${TP_HOST:-}" ] && export TP_SYNC=/run/sync
. "$SRC/test/vm/sync.sh"

for path in $SCENARIOS; do
	s=${path##*/}
	s=${s%.sh}
	dir=$(mktemp -d "/tmp/$s.XXXXXX")
	echo "=== [$(now)s] $s"
	t0=$(now)
	# stdin is not the console: a command that asks must be given -y, or
	# it refuses at once (as without a terminal) instead of waiting
	limit=$(sed -n 's/^# vm-timeout: *\([0-9][0-9]*\).*/\1/p' "$SRC/$path" | head -1)
	[ "${limit:-0}" -gt "$LIMIT" ] || limit=$LIMIT
	# TP_BOOT=2: the host booted again after its crash in this scenario
	boot=1
	[ "$path" = "${TP_BOOT_AGAIN:-}" ] && boot=2 &&
		echo "VMTEST: $s again after this host's crash (TP_BOOT=2)"
	(cd "$dir" && TP_SCENARIO=$s TP_BOOT=$boot exec timeout -k 5 "$limit" bash "$SRC/$path") \
		</dev/null 2>&1
	rc=$?
	t1=$(now)
	echo "VMTEST-SCENARIO $s $rc $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
	cleanup "$dir"
	rm -rf "$dir"
	if [ -n "${TP_SYNC:-}" ]; then
		# both done with it; host a blanks the shared disks, then both go on
		vm_barrier "end-$s" "$limit" || echo "VMTEST: host $(vm_other_host) did not end $s"
		[ "$TP_HOST" = a ] && for d in $TP_SHARED; do
			dd if=/dev/zero of="$d" bs=1M count=1 oflag=direct status=none
			dd if=/dev/zero of="$d" bs=1M count=1 seek=$((TP_DISK_SIZE / 1048576 - 1)) \
				oflag=direct status=none
		done
		vm_barrier "clean-$s" 120 || echo "VMTEST: host $(vm_other_host) did not clean up after $s"
	fi
done
