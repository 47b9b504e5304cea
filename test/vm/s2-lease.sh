#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two hosts, one lease area on a shared disk (lease/lease.h through
# tp-lease; issue 24): each host runs its own sanlock daemon (without the
# watchdog: -w 0) and joins the lockspace with its host id. While a holds
# the lease, b's acquire is refused naming host 1 and the storage says a
# owns it; a releases, b acquires and releases; a acquires again and then
# "dies" (its sanlock daemon killed: its delta lease is no longer renewed,
# the lease stays held on disk): b is refused while a's delta lease is
# fresh and acquires the lease only after sanlock counts host 1 dead.
# vm-timeout: 600
. "$TP_SRC/test/vm/lib.sh"
vm_begin
[ -n "${TP_HOST:-}" ] || skip_scenario "a two-host scenario (TP_VM_HOSTS=2)"
command -v sanlock >/dev/null || skip_scenario "sanlock is not installed"
read -r LEASE _ <<<"$TP_SHARED"
id=1
[ "$TP_HOST" = b ] && id=2
IOT=2
mkdir -p /run/sanlock
sanlock daemon -w 0 -U root -G root -l 0 -L -1 -S -1 -e "host$TP_HOST" || fail "sanlock daemon"
trap 'sanlock client shutdown -f 1 >/dev/null 2>&1' EXIT
for ((i = 0; i < 50; i++)); do
	sanlock client status >/dev/null 2>&1 && break
	sleep 0.2
done
lease() { tp-lease "$1" pool "$LEASE" 0 "${@:2}"; }
# hold_bg OUT: tp-lease hold in the background, its pid in $holder
hold_bg() { tp-lease hold pool "$LEASE" 0 >"$1" 2>&1 & holder=$!; }
wait_acquired() { # OUT: true when the holder said so, false when it ended first
	for ((i = 0; i < 600; i++)); do
		grep -q acquired "$1" && return 0
		kill -0 "$holder" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}

on_host a must lease format "$IOT"
barrier formatted
t0=$(now)
must lease join "$id" "$IOT"
step "host $TP_HOST joined as $id in $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s"
must lease joined "$id"
barrier joined

if [ "$TP_HOST" = a ]; then
	hold_bg hold1.out
	wait_acquired hold1.out || fail "a could not acquire: $(cat hold1.out)"
fi
barrier held

if [ "$TP_HOST" = b ]; then
	rc=0
	lease hold >hold.out 2>&1 || rc=$?
	expect_eq "b's acquire while a holds it" "$rc" 2
	grep -q "busy: host 1" hold.out || note_fail "b: the refusal does not name host 1: $(cat hold.out)"
	expect_eq "the owner b reads" "$(lease owner | cut -d' ' -f1,2)" "owner 1"
fi
barrier refused

if [ "$TP_HOST" = a ]; then
	kill -TERM "$holder"
	rc=0; wait "$holder" || rc=$?
	expect_eq "a's release" "$rc" 0
fi
barrier released

if [ "$TP_HOST" = b ]; then
	hold_bg hold2.out
	wait_acquired hold2.out || note_fail "b could not acquire after a released: $(cat hold2.out)"
	expect_eq "the owner b reads" "$(lease owner | cut -d' ' -f1,2)" "owner 2"
	kill -TERM "$holder"
	rc=0; wait "$holder" || rc=$?
	expect_eq "b's release" "$rc" 0
fi
barrier b-released

if [ "$TP_HOST" = a ]; then
	hold_bg hold3.out
	wait_acquired hold3.out || fail "a could not acquire again: $(cat hold3.out)"
	# a dies: no more renewals of its delta lease; the lease stays on disk
	pkill -9 -x sanlock
	trap - EXIT
fi
barrier a-dead

if [ "$TP_HOST" = b ]; then
	t0=$(now) tries=0 refused=0
	while :; do
		tries=$((tries + 1))
		hold_bg hold4.out
		if wait_acquired hold4.out; then
			break
		fi
		wait "$holder"
		rc=$?
		[ "$rc" = 2 ] || fail "b's acquire after a died: exit $rc: $(cat hold4.out)"
		refused=$((refused + 1))
		[ "$tries" -lt 120 ] || fail "b never acquired the dead host's lease"
		sleep 2
	done
	took=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
	step "b acquired the dead host's lease after $took s ($refused refusals first)"
	[ "$refused" -ge 1 ] || note_fail "b acquired at once: a's fresh delta lease did not count"
	expect_eq "the owner b reads" "$(lease owner | cut -d' ' -f1,2)" "owner 2"
	kill -TERM "$holder"
	wait "$holder"
	must lease leave "$id"
fi
barrier done
finish
