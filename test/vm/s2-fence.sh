#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two hosts, one shared pool: the kill path. On a, the pool's metadata
# device is a dm linear device over the shared disk, and a activates the
# pool (its lease holder, the build's $TP_BUILD/lib/tptools/tp-lease-holder found
# beside its bin/tp, registers the tp-lease-fence beside it with sanlock) and
# writes data with fsync; a writer keeps writing. Then a loses the shared
# storage: that linear device is switched to the error target, so a's
# sanlock can no longer renew its lease and, 8 x io_timeout later, runs
# the kill path. On a: the kernel's log says so, the pool's devices are
# gone or switch to the error target, the writer stops, the holder ends,
# and the shared data disk does not change any more. b is refused until
# sanlock counts a dead, then activates the pool: the data disk is still
# as a left it at the fence, the data a fsync'd reads back, and after
# tpdeactivate tpcheck is clean.
# vm-soak: long (two guests, a host-dead wait); TP_VM_SOAK=1 or by name
# vm-timeout: 600
. "$TP_SRC/test/vm/lib.sh"
vm_begin -e
[ -n "${TP_HOST:-}" ] || skip_scenario "a two-host scenario (TP_VM_HOSTS=2)"
. "$TP_SRC/test/vm/shared-pool.sh"
disk_sum() { dd if="$DATA" iflag=direct bs=1M status=none | sha256sum | cut -d' ' -f1; }

if [ "$TP_HOST" = a ]; then
	sectors=$(blockdev --getsz "$META")
	must dmsetup create smeta --table "0 $sectors linear $META 0"
	must tpcreate --data "$DATA" --meta /dev/mapper/smeta --lock-type sanlock --chunk 64k pool
	must tvcreate -V 64M -n v pool
	must tpactivate pool
	holder=$(holder_pid)
	[ -n "$holder" ] || fail "no lease holder runs"
	# the build's own program, not a command of tp nor an installed one
	[ "$(readlink -f "/proc/$holder/exe")" = "$(readlink -f "$TP_BUILD/lib/tptools/tp-lease-holder")" ] ||
		note_fail "the lease holder runs $(readlink -f "/proc/$holder/exe"), not the build's tp-lease-holder"
	head -c 8M /dev/urandom >data
	must dd if=data of="$VOL" bs=1M oflag=direct conv=fsync status=none
	sha256sum <data | cut -d' ' -f1 >"$TP_SYNC/$TP_SCENARIO.sum"
	# a writer that keeps going (behind the fsync'd 8 MiB)
	( while dd if=/dev/urandom of="$VOL" bs=64k count=16 seek=$((256 + RANDOM % 256)) \
		oflag=direct status=none 2>/dev/null; do :; done; echo stopped >writer.out ) &
	writer=$!
	sleep 2
	step "a loses the shared metadata disk (its lease area with it)"
	must dmsetup suspend --noflush smeta
	must dmsetup load smeta --table "0 $sectors error"
	must dmsetup resume smeta
	t0=$(now)
	for ((i = 0; i < 600; i++)); do
		kill -0 "$holder" 2>/dev/null || break
		sleep 0.2
	done
	step "the lease holder ended $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }') s after"
	kill -0 "$holder" 2>/dev/null && note_fail "the lease holder still runs after the kill path"
	dmesg | grep tptools: | sed 's/^/  kernel log: /'
	dmesg | grep -q "tptools: pool pool lost its sanlock lease" ||
		note_fail "the kill path said nothing in the kernel's log"
	for ((i = 0; i < 100; i++)); do
		[ -e writer.out ] && break
		sleep 0.2
	done
	[ -e writer.out ] || note_fail "the writer still writes after the kill path"
	kill "$writer" 2>/dev/null
	left=$(dmsetup ls 2>/dev/null | awk '$1 ~ /^pool/ { print $1 }')
	for d in $left; do
		t=$(dmsetup table "$d" | awk '{ print $3 }')
		[ "$t" = error ] || note_fail "$d is still loaded with a $t table"
	done
	step "after the kill path: $(echo ${left:-no device of the pool}) left"
	if [ "$VM_FAILS" -gt 0 ]; then
		sanlock client log_dump 2>&1 | grep -i -E "kill|helper|dead|fail" | tail -25 |
			sed 's/^/  sanlock: /'
	fi
	s1=$(disk_sum)
	[ -e "$VOL" ] && dd if=/dev/zero of="$VOL" bs=64k count=1 oflag=direct status=none \
		2>/dev/null && note_fail "a write to the volume succeeded after the kill path"
	sleep 5
	expect_eq "the shared data disk after the kill path" "$(disk_sum)" "$s1"
	put sum "$s1"
fi
barrier fenced

if [ "$TP_HOST" = b ]; then
	take_over 100 "a's fence"
	must tpdeactivate pool
	expect_eq "the shared data disk b finds" "$(disk_sum)" "$(get sum)"
	must tpactivate pool
	got=$(head -c 8M "$VOL" | sha256sum | cut -d' ' -f1)
	expect_eq "the data a fsync'd, read on b" "$got" "$(cat "$TP_SYNC/$TP_SCENARIO.sum")"
	must tpdeactivate pool
	rc=0
	tpcheck pool >check.out 2>&1 || rc=$?
	expect_eq "tpcheck after the kill path" "$rc" 0
	[ "$rc" = 0 ] || cat check.out
fi
barrier done
finish
