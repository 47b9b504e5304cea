#!/bin/bash
# lib.sh - helpers for VM scenarios (source "$TP_SRC/test/vm/lib.sh").
# A failed check prints FAIL with the command and location and makes the
# scenario exit non-zero at the end (so one run shows every failure);
# die stops at once.
set -u
VM_FAILS=0

now() { cut -d' ' -f1 /proc/uptime; }
step() { echo "--- [$(now)s] $*"; }
die() { echo "FAIL: $* (${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]})"; exit 1; }
fail() {
	echo "FAIL: $* (${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]})"
	VM_FAILS=$((VM_FAILS + 1))
}
# must CMD...: CMD succeeds, else stop
must() { "$@" || die "exit $?: $*"; }
# ok CMD...: CMD succeeds, else record a failure
ok() { "$@" || fail "exit $?: $*"; }
# not CMD...: CMD fails
not() { if "$@"; then fail "unexpected success: $*"; fi; }
# expect_eq WHAT GOT WANT
expect_eq() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }
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
# scenario end: exit status from the recorded failures
finish() {
	if [ "$VM_FAILS" -gt 0 ]; then
		echo "$VM_FAILS check(s) failed"
		exit 1
	fi
	exit 0
}
skip_scenario() { echo "SKIP: $*"; exit 77; }
