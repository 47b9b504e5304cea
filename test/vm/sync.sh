#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sync.sh - the meeting points of the two guests of a two-host run
# (TP_VM_HOSTS=2, test/vm/run.sh), sourced by guest.sh and lib.sh. Both
# see the host directory TP_SYNC (9p, uncached); a guest arriving at a
# point leaves a file NAME.HOST there and waits for the other's.

# vm_other_host: the other guest's name
vm_other_host() { [ "${TP_HOST:-a}" = a ] && echo b || echo a; }

# vm_barrier NAME [SECONDS]: until the other guest reached NAME too (true);
# false after SECONDS (default 600), or at once when the other guest's
# scenario has ended without reaching it. Without TP_SYNC: true. Inside a
# scenario (TP_SCENARIO) the points are that scenario's own: two scenarios
# may both have a point "refused".
vm_barrier() {
	local name=$1 limit=${2:-600} other i point
	[ -n "${TP_SYNC:-}" ] || return 0
	other=$(vm_other_host)
	point=$name
	[ -n "${TP_SCENARIO:-}" ] && [ "$name" != "end-$TP_SCENARIO" ] && point=$TP_SCENARIO.$name
	: >"$TP_SYNC/$point.$TP_HOST"
	for ((i = 0; i < limit * 5; i++)); do
		[ -e "$TP_SYNC/$point.$other" ] && return 0
		[ -n "${TP_SCENARIO:-}" ] && [ "$name" != "end-$TP_SCENARIO" ] &&
			[ -e "$TP_SYNC/end-$TP_SCENARIO.$other" ] && return 1
		sleep 0.2
	done
	return 1
}
