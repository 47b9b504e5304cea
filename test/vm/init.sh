#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# init.sh - PID 1 of the test VM (busybox sh; copied into the initramfs by
# test/vm/run.sh). Loads the boot modules, mounts the host's / (9p,
# read-only) at /hostroot with the guest's /dev /proc /sys and fresh tmpfs
# /tmp /run on top, then runs test/vm/guest.sh in that chroot under bash
# (Debian's busybox runs its own applets before PATH: never run tests
# under its sh). The guest kernel's modules appear in the chroot under
# /run/kmods (`modprobe -d /run/kmods`, see lib.sh vm_modprobe), the
# host's /tmp (hidden by the guest's) under /run/host-tmp. Arguments (kernel command line after "--"):
#   SRC BUILD DISKS DISK_BYTES SCENARIOS SCENARIO_TIMEOUT (lists comma separated)
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
echo "VMTEST: init at $(cut -d' ' -f1 /proc/uptime)s"
while read -r ko; do
	# crc32c-intel fails without SSE4.2; crc32c_generic covers it
	insmod "$ko" 2>/dev/null
done </etc/modules.boot
H=/hostroot
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288,cache=loose,ro hostroot $H &&
	mount -t devtmpfs devtmpfs $H/dev && mount -t proc proc $H/proc &&
	mount -t sysfs sysfs $H/sys && mount -t tmpfs tmpfs $H/run &&
	mkdir -p $H/run/kmods/lib/modules $H/run/host-tmp &&
	mount -o bind /lib/modules $H/run/kmods/lib/modules &&
	mount -o bind $H/tmp $H/run/host-tmp && mount -t tmpfs tmpfs $H/tmp; then
	echo "VMTEST: host root mounted at $(cut -d' ' -f1 /proc/uptime)s"
	# run.sh shares TP_VM_OUT read-write as tag "out" (optional)
	mkdir -p $H/run/out
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 out $H/run/out 2>/dev/null ||
		rmdir $H/run/out
	# and, for two hosts (TP_VM_HOSTS=2), the meeting points as "sync"
	mkdir -p $H/run/sync
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 sync $H/run/sync 2>/dev/null ||
		rmdir $H/run/sync
	case $1 in /tmp/*) src=/run/host-tmp/${1#/tmp/} ;; *) src=$1 ;; esac
	chroot $H /bin/bash "$src/test/vm/guest.sh" "$@"
	echo "VMTEST-DONE rc=$?"
else
	echo "VMTEST: cannot mount the host root over 9p"
fi
sync
poweroff -f
