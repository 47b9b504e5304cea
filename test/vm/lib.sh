#!/bin/bash
# lib.sh - helpers for VM scenarios (source "$TP_SRC/test/vm/lib.sh").
#
# ok and fail mean the same here and in test/shell/lib.sh: they STOP the
# scenario. `fail MSG` stops it with a message and its location; `ok CMD`
# (like `must CMD`) demands that CMD succeeds, else it stops.
# The checks that record a failure and go on, so that one run shows every
# failure, have names of their own: `check CMD`, `not CMD`, `expect_eq`,
# and `note_fail MSG`; `finish` then makes the scenario exit 1 when any
# was recorded.
set -u
VM_FAILS=0

now() { cut -d' ' -f1 /proc/uptime; }
step() { echo "--- [$(now)s] $*"; }

# ---- stop the scenario ----
# fail MSG: stop at once (die: the same, for the bench scripts' guest parts)
fail() { echo "FAIL: $* (${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]})"; exit 1; }
die() { echo "FAIL: $* (${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]})"; exit 1; }
# must CMD... / ok CMD...: CMD succeeds, else stop
must() { "$@" || fail "exit $?: $*"; }
ok() { "$@" || fail "exit $?: $*"; }

# ---- record a failure and go on ----
# note_fail MSG: print FAIL with MSG and the location, count it
note_fail() {
	echo "FAIL: $* (${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]})"
	VM_FAILS=$((VM_FAILS + 1))
}
# check CMD...: CMD succeeds, else record a failure
check() { "$@" || note_fail "exit $?: $*"; }
# not CMD...: CMD fails
not() { if "$@"; then note_fail "unexpected success: $*"; fi; }
# expect_eq WHAT GOT WANT
expect_eq() { [ "$2" = "$3" ] || note_fail "$1: got '$2', want '$3'"; }

# field KEY LINE: the value of KEY=value in a key=value line
field() { tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"; }
# wait_file FILE PID: until FILE exists (true) or PID has ended or 5
# minutes passed (false); a slow or loaded host may take many seconds
wait_file() {
	local i
	for ((i = 0; i < 3000; i++)); do
		[ -e "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	[ -e "$1" ]
}
# the guest kernel's modules (the chroot's /lib/modules is the host's)
vm_modprobe() { modprobe -d /run/kmods "$@"; }
skip_scenario() { echo "SKIP: $*"; exit 77; }

# scenario end: exit status from the recorded failures
finish() {
	if [ "$VM_FAILS" -gt 0 ]; then
		echo "$VM_FAILS check(s) failed"
		exit 1
	fi
	exit 0
}
