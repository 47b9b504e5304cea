#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two hosts, one shared pool: the owner is paused past its lease, as a
# hypervisor pauses a machine (QEMU's stop: the guest's clocks stand still,
# so on cont its sanlock sees no late renewal and runs no kill path).
# a activates the pool and writes 8 MiB with fsync, then is paused; b's
# tpactivate --all passes the pool by naming host 1, b is refused until
# sanlock counts a dead, activates the pool, writes 8 MiB of
# its own with fsync (new chunks: a new thin transaction) and takes sums
# of the shared disks (all but the lockspace, which b's sanlock renews);
# then a is resumed. a's lease holder's watcher, which reads the lease's
# owner on the disk once a second, finds host 2 there and fences the pool: the kernel's
# log says so, the pool's devices are gone or error, a write to the volume
# fails, the holder ends. b then finds the shared disks as it summed them
# (nothing of a reached them after its resume), reads both hosts' data
# back, and after tpdeactivate tpcheck is clean. FAULT_PAUSE=sigstop
# stops a's QEMU process instead (its clocks jump on: its sanlock finds its
# renewal late past the grace time and SIGKILLs the holder, without the
# kill path; the watcher fences the pool). What a had in flight at
# the instant of its pause is not tested: a is idle (tptools(7) SHARED
# STORAGE says what a pause gives up).
# vm-soak: long (two guests, a host-dead wait); TP_VM_SOAK=1 or by name
# vm-timeout: 600
. "$TP_SRC/test/vm/lib.sh"
vm_begin -e
[ -n "${TP_HOST:-}" ] || skip_scenario "a two-host scenario (TP_VM_HOSTS=2)"
. "$TP_SRC/test/vm/shared-pool.sh"
# FAULT_PAUSE=sigstop: SIGSTOP and SIGCONT of a's QEMU instead (a's clocks
# jump on over the pause)
how=${FAULT_PAUSE:-stop}
case $how in stop | sigstop) ;; *) fail "FAULT_PAUSE is stop or sigstop" ;; esac
# the shared disks but the lease area (2 MiB at 1 MiB on META: b's sanlock
# renews its delta lease there, and a's, releasing, marks its own block of
# the resource lease released, as sanlock's protocol does)
disks_sum() {
	{
		dd if="$META" iflag=direct bs=1M count=1 status=none
		dd if="$META" iflag=direct bs=1M skip=3 status=none
		dd if="$DATA" iflag=direct bs=1M status=none
	} | md5sum | cut -d' ' -f1
}
vol_sum() { # MiB-offset MiB
	dd if="$VOL" iflag=direct bs=1M skip="$1" count="$2" status=none | md5sum | cut -d' ' -f1
}

if [ "$TP_HOST" = a ]; then
	must tpcreate --data "$DATA" --meta "$META" --lock-type sanlock --chunk 64k pool
	must tvcreate -V 64M -n v pool
	must tpactivate pool
	holder=$(holder_pid)
	[ -n "$holder" ] || fail "no lease holder runs"
	head -c 8M /dev/urandom >data
	must dd if=data of="$VOL" bs=1M oflag=direct conv=fsync status=none
	put asum "$(md5sum <data | cut -d' ' -f1)"
	expect_eq "the lease owner a reads" "$(owner)" 1
fi
barrier active

if [ "$TP_HOST" = a ]; then
	# the kernel's log from here on (an earlier scenario's fence is in it)
	kbefore=$(dmesg | wc -l)
	step "a asks to be paused ($how) until b has taken the pool over"
	echo "$how 400" >"$TP_SYNC/pause.a"
	for ((i = 0; i < 6000; i++)); do
		[ -e "$TP_SYNC/resumed.a" ] && break
		sleep 0.1
	done
	[ -e "$TP_SYNC/resumed.a" ] || fail "a was never paused and resumed"
	t0=$(now)
	step "a runs again"
	for ((i = 0; i < 300; i++)); do
		kill -0 "$holder" 2>/dev/null || break
		sleep 0.2
	done
	step "a's lease holder ended $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s after a saw its resume"
	kill -0 "$holder" 2>/dev/null && note_fail "a's lease holder still runs"
	klog() { dmesg | tail -n +$((kbefore + 1)); }
	klog | grep tptools: | sed 's/^/  kernel log: /'
	if [ "$how" = stop ]; then
		# only the holder can see it: sanlock's clock stood still
		klog | grep -q "tptools: pool pool lost its sanlock lease (host 2 holds it now" ||
			note_fail "a's kill path said nothing of host 2 in the kernel's log"
	else
		# sanlock (the late renewal) or the holder (host 2 on the disk)
		klog | grep -q "tptools: pool pool lost its sanlock lease" ||
			note_fail "a's kill path said nothing in the kernel's log"
	fi
	left=$(dmsetup ls 2>/dev/null | awk '$1 ~ /^pool/ { print $1 }')
	for d in $left; do
		t=$(dmsetup table "$d" | awk '{ print $3 }')
		[ "$t" = error ] || note_fail "$d is still loaded with a $t table"
	done
	step "after the kill path: $(echo ${left:-no device of the pool}) left"
	[ -e "$VOL" ] && dd if=/dev/zero of="$VOL" bs=64k count=1 oflag=direct status=none \
		2>/dev/null && note_fail "a's write to the volume succeeded after the kill path"
	expect_eq "the lease owner a reads after its resume" "$(owner)" 2
	# what a's own sanlock made of the pause (it saw no late renewal)
	sanlock client log_dump 2>&1 | grep -i -E "check_our_lease|kill|renewal error" | tail -5 |
		sed 's/^/  sanlock on a: /'
	rc=0
	tpactivate pool >act.out 2>&1 || rc=$?
	expect_eq "a's tpactivate after its fence" "$rc" 5
	grep -q "is held by host 2" act.out || note_fail "a's refusal: $(cat act.out)"
fi

if [ "$TP_HOST" = b ]; then
	# boot's and udev's way, while a holds the lease: passed by, naming a
	rc=0
	tpactivate --all >all.out 2>&1 || rc=$?
	expect_eq "b's tpactivate --all while a holds the pool" "$rc" 0
	grep -q "Pool pool: skipped (host 1 holds its sanlock lease" all.out ||
		note_fail "tpactivate --all: $(cat all.out)"
	[ -e "$VOL" ] && note_fail "tpactivate --all loaded the volume a holds"
	take_over 150 "a's pause began"
	[ "$refused" -ge 1 ] || note_fail "b took the pool at once: a's fresh lease did not count"
	expect_eq "a's data, read on b" "$(vol_sum 0 8)" "$(get asum)"
	head -c 8M /dev/urandom >data
	must dd if=data of="$VOL" bs=1M seek=16 oflag=direct conv=fsync status=none
	bsum=$(md5sum <data | cut -d' ' -f1)
	expect_eq "the lease owner b reads" "$(owner)" 2
	s1=$(disks_sum)
	step "b wrote 8 MiB with fsync and holds the pool; a is resumed"
	: >"$TP_SYNC/unpause.a"
fi
barrier fenced

if [ "$TP_HOST" = b ]; then
	expect_eq "the shared disks after a's resume and fence" "$(disks_sum)" "$s1"
	expect_eq "b's data after a's resume" "$(vol_sum 16 8)" "$bsum"
	expect_eq "a's data after a's resume" "$(vol_sum 0 8)" "$(get asum)"
	must tpdeactivate pool
	rc=0
	tpcheck pool >check.out 2>&1 || rc=$?
	expect_eq "tpcheck on b after a's resume" "$rc" 0
	[ "$rc" = 0 ] || cat check.out
	expect_eq "the lease owner after b's tpdeactivate" "$(owner)" none
fi
barrier done
finish
