#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two hosts, one shared pool (tpcreate --lock-type sanlock; tptools(7)
# SHARED STORAGE), each host with its own sanlock daemon (without the
# watchdog: -w 0) and host id (a 1, b 2; io_timeout 2 s, so sanlock counts
# a host dead 8 x 2 + 60 = 76 s after its last renewal). a creates the
# pool; both run tpactivate at once: exactly one succeeds, the other exits
# 5 naming the holder's host id, and its tvcreate is refused the same way.
# The holder W writes checksummed data with fsync (more writes in flight)
# and crashes (sysrq b: no clean shutdown; run.sh boots it again, TP_BOOT=2).
# The other host L is refused while W's lease is fresh, then activates the
# pool after the host-dead time: the fsync'd data reads back, and after
# tpdeactivate tpcheck is clean and the VG's transaction id is the thin
# metadata's. L activates it again; W, booted again, sees L holding it
# (pool_lease_owner) and its tpactivate is refused naming L.
# vm-soak: long (two guests, a host-dead wait); TP_VM_SOAK=1 or by name
# vm-timeout: 900
. "$TP_SRC/test/vm/lib.sh"
vm_begin -e
[ -n "${TP_HOST:-}" ] || skip_scenario "a two-host scenario (TP_VM_HOSTS=2)"
. "$TP_SRC/test/vm/shared-pool.sh"

if [ "${TP_BOOT:-1}" = 2 ]; then
	# W again, after its crash: the other host holds the pool now
	step "host $TP_HOST booted again after its crash"
	before=$(cat "$TP_SYNC/$TP_SCENARIO.fails.$TP_HOST" 2>/dev/null || echo "?")
	[ "$before" = 0 ] || note_fail "$before check(s) failed on W before its crash (above)"
	barrier taken
	expect_eq "the lease owner W reads after its crash" "$(owner)" "$other_id"
	rc=0
	tpactivate pool >act3.out 2>&1 || rc=$?
	expect_eq "W's tpactivate while L holds the pool" "$rc" 5
	grep -q "is held by host $other_id" act3.out ||
		note_fail "the refusal does not name host $other_id: $(cat act3.out)"
	[ -e "$VOL" ] && note_fail "W loaded the volume while L holds the pool"
	barrier seen
	barrier released
	finish
fi

if [ "$TP_HOST" = a ]; then
	must tpcreate --data "$DATA" --meta "$META" --lock-type sanlock --chunk 64k pool
	t0=$(now)
	must tvcreate -V 64M -n v pool
	step "tvcreate (joining the lockspace first) took $(awk -v a="$t0" -v b="$(now)" \
		'BEGIN { printf "%.1f", b - a }') s"
	must tpstatus -o pool_name,pool_lock_type,pool_lease_owner pool
	expect_eq "the lease owner after a's offline change" "$(owner)" none
fi
barrier created

# both at once
rc=0
tpactivate pool >act.out 2>&1 || rc=$?
step "host $TP_HOST: tpactivate exit $rc: $(tr '\n' ' ' <act.out)"
put rc "$rc"
barrier activated
orc=$(get rc)
if [ "$rc" = 0 ] && [ "$orc" = 5 ]; then
	role=W
elif [ "$rc" = 5 ] && [ "$orc" = 0 ]; then
	role=L
else
	fail "tpactivate on both hosts: $TP_HOST exit $rc, $(vm_other_host) exit $orc (want one 0, one 5)"
fi
step "host $TP_HOST is $role"

if [ $role = L ]; then
	grep -q "is held by host $other_id" act.out ||
		note_fail "the refusal does not name host $other_id: $(cat act.out)"
	[ -e "$VOL" ] && note_fail "the refused host loaded the volume"
	expect_eq "the lease owner L reads" "$(owner)" "$other_id"
	rc=0
	tvcreate -V 16M -n w pool >tv.out 2>&1 || rc=$?
	expect_eq "L's tvcreate while W holds the pool" "$rc" 5
	grep -q "is held by host $other_id" tv.out ||
		note_fail "tvcreate's refusal does not name host $other_id: $(cat tv.out)"
else
	[ -b "$VOL" ] || fail "W has no $VOL"
	expect_eq "the lease owner W reads" "$(owner)" "$id"
	[ -n "$(holder_pid)" ] || note_fail "no lease holder runs"
	head -c 8M /dev/urandom >data
	must dd if=data of="$VOL" bs=1M oflag=direct conv=fsync status=none
	sha256sum <data | cut -d' ' -f1 >"$TP_SYNC/$TP_SCENARIO.sum"
	step "W wrote 8 MiB with fsync"
fi
barrier written

if [ $role = W ]; then
	# more writes in flight, never flushed, then no clean shutdown
	dd if=/dev/urandom of="$VOL" bs=1M seek=16 count=32 status=none &
	sleep 1
	# what failed before the crash counts in the second boot's result
	put fails "$VM_FAILS"
	echo "${BASH_SOURCE[0]#"$TP_SRC"/}" >"$TP_SYNC/boot-again.$TP_HOST"
	: >"$TP_SYNC/$TP_SCENARIO.dying.$TP_HOST"
	step "W crashes (sysrq b)"
	echo b >/proc/sysrq-trigger
	sleep 60
	fail "still alive after sysrq b"
fi

# L: take the pool over once sanlock counts W dead
for ((i = 0; i < 3000; i++)); do
	[ -e "$TP_SYNC/$TP_SCENARIO.dying.$(vm_other_host)" ] && break
	sleep 0.2
done
[ -e "$TP_SYNC/$TP_SCENARIO.dying.$(vm_other_host)" ] || fail "W never crashed"
t0=$(now) tries=0 refused=0
while :; do
	tries=$((tries + 1))
	rc=0
	tpactivate pool >act2.out 2>&1 || rc=$?
	[ "$rc" = 0 ] && break
	[ "$rc" = 5 ] || fail "L's tpactivate after W crashed: exit $rc: $(cat act2.out)"
	grep -q "is held by host $other_id" act2.out ||
		note_fail "a refusal does not name host $other_id: $(cat act2.out)"
	refused=$((refused + 1))
	[ "$tries" -lt 150 ] || fail "L never took the pool over"
	sleep 2
done
took=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
step "L activated the pool $took s after W crashed ($refused refusals first)"
[ "$refused" -ge 1 ] || note_fail "L took the pool at once: W's fresh lease did not count"
expect_eq "the lease owner after the takeover" "$(owner)" "$id"
got=$(head -c 8M "$VOL" | sha256sum | cut -d' ' -f1)
expect_eq "the data W fsync'd, read on L" "$got" "$(cat "$TP_SYNC/$TP_SCENARIO.sum")"
vgtid=$(tpstatus --noheadings -o pool_transaction_id pool | awk 'NF { print $1; exit }')
expect_eq "the kernel's transaction id = the VG's after the takeover" \
	"$(dmsetup status pool-tpool | awk '{ print $4 }')" "$vgtid"
must tpdeactivate pool
rc=0
tpcheck pool >check.out 2>&1 || rc=$?
expect_eq "tpcheck after the takeover" "$rc" 0
[ "$rc" = 0 ] || cat check.out
must tpactivate pool
expect_eq "the lease owner L holds again" "$(owner)" "$id"
barrier taken
barrier seen
must tpdeactivate pool
expect_eq "the lease owner after L's tpdeactivate" "$(owner)" none
barrier released
finish
