#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two hosts, one shared pool, offline changes from both at once: each host
# creates FAULT_LEASE_ROUNDS volumes (default 20; a knob for a longer
# soak), retrying while the other holds the lease (exit 5 naming its host
# id). Every tvcreate takes the lease for its change and reads the VG again
# under it, so none is lost: afterwards both hosts' volumes all exist,
# tpcheck is clean and, activated, the kernel's transaction id is the VG's.
# vm-soak: long (two guests, a host-dead wait); TP_VM_SOAK=1 or by name
# vm-timeout: 900
. "$TP_SRC/test/vm/lib.sh"
vm_begin -e
[ -n "${TP_HOST:-}" ] || skip_scenario "a two-host scenario (TP_VM_HOSTS=2)"
. "$TP_SRC/test/vm/shared-pool.sh"
ROUNDS=${FAULT_LEASE_ROUNDS:-20}

on_host a must tpcreate --data "$DATA" --meta "$META" --lock-type sanlock --chunk 64k pool
barrier created
busy=0
t0=$(now)
for ((i = 1; i <= ROUNDS; i++)); do
	for ((try = 0; ; try++)); do
		rc=0
		tvcreate -V 1M -n "$TP_HOST$i" pool >tv.out 2>&1 || rc=$?
		[ "$rc" = 0 ] && break
		[ "$rc" = 5 ] && grep -q "is held by host $other_id" tv.out ||
			fail "tvcreate $TP_HOST$i: exit $rc: $(cat tv.out)"
		busy=$((busy + 1))
		[ "$try" -lt 200 ] || fail "tvcreate $TP_HOST$i never got the lease"
		sleep "0.$((RANDOM % 5))"
	done
done
step "host $TP_HOST: $ROUNDS volumes in $(awk -v a="$t0" -v b="$(now)" \
	'BEGIN { printf "%.0f", b - a }') s, refused $busy times while the other host held the lease"
put busy "$busy"
barrier done
if [ "$TP_HOST" = a ]; then
	tpstatus --noheadings -o vol_name pool >vols.out || note_fail "tpstatus"
	missing=0
	for h in a b; do
		for ((i = 1; i <= ROUNDS; i++)); do
			grep -qx " *$h$i *" vols.out || { missing=$((missing + 1)); note_fail "volume $h$i is lost"; }
		done
	done
	expect_eq "volumes" "$(grep -c . vols.out)" "$((2 * ROUNDS))"
	rc=0
	tpcheck pool >check.out 2>&1 || rc=$?
	expect_eq "tpcheck after the race" "$rc" 0
	[ "$rc" = 0 ] || cat check.out
	vgtid=$(tpstatus --noheadings -o pool_transaction_id pool | awk 'NF { print $1; exit }')
	must tpactivate pool
	expect_eq "the kernel's transaction id = the VG's" \
		"$(dmsetup status pool-tpool | awk '{ print $4 }')" "$vgtid"
	expect_eq "the VG's transaction id: one per volume" "$vgtid" "$((2 * ROUNDS))"
	must tpdeactivate pool
	step "both hosts were refused $((busy + $(get busy))) times in all"
fi
barrier checked
finish
