#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
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

# vm_begin [-n NDISKS] [-e] [-m] [-d DIR]... [-k MODULE]... [-o MODULE]...:
# the opening scenarios share. disks[] gets the scratch disks of
# TP_DISKS; with -n the scenario is skipped when there are fewer than
# NDISKS. -e: TPTOOLS_DIR=$PWD/etc (exported, made); -m: /run/mdadm made
# (mdadm's map); -d DIR: a directory made in the scenario's dir; -k
# MODULE: a guest kernel module the scenario needs (skipped without it);
# -o MODULE: one it may use (loaded if it can be, quietly). In the order
# given.
vm_begin() {
	local opt OPTIND=1
	# shellcheck disable=SC2206 # TP_DISKS: paths without blanks, split
	disks=(${TP_DISKS:-})
	while getopts "n:emd:k:o:" opt; do
		case $opt in
		n) [ ${#disks[@]} -ge "$OPTARG" ] ||
			skip_scenario "needs $OPTARG disks, have ${#disks[@]}" ;;
		e) export TPTOOLS_DIR=$PWD/etc
		   mkdir -p "$TPTOOLS_DIR" ;;
		m) mkdir -p /run/mdadm ;;
		d) mkdir -p "$OPTARG" ;;
		k) vm_modprobe "$OPTARG" || skip_scenario "no $OPTARG module" ;;
		o) vm_modprobe "$OPTARG" 2>/dev/null || true ;;
		*) fail "vm_begin: unknown option" ;;
		esac
	done
}

# areas_equal A B OFF LEN WHAT: bytes OFF..OFF+LEN of devices A and B (two
# legs' active thin-metadata areas) are the same, else a failed check
# naming WHAT
areas_equal() {
	dd if="$1" of=area-a.img bs=1M iflag=skip_bytes,count_bytes skip="$3" count="$4" \
		status=none
	dd if="$2" of=area-b.img bs=1M iflag=skip_bytes,count_bytes skip="$3" count="$4" \
		status=none
	cmp area-a.img area-b.img || note_fail "the legs' active thin-metadata areas differ $5"
}

# vm_live_pool POOL DATA META SIZE VOLS [tpcreate options...]: pool POOL
# made on DATA and META (tpcreate with the options), a volume of SIZE for
# each name in VOLS (space separated; "" for none, SIZE then unused), then
# activated; stops the scenario when a step fails
vm_live_pool() {
	local pool=$1 data=$2 meta=$3 size=$4 vols=$5 v
	shift 5
	must tpcreate --data "$data" --meta "$meta" "$@" "$pool"
	for v in $vols; do
		must tvcreate -V "$size" -n "$v" "$pool"
	done
	must tpactivate "$pool"
}

# ---- two hosts (TP_VM_HOSTS=2, s2-*.sh scenarios) ----
# shellcheck source=test/vm/sync.sh
. "${TP_SRC:-.}/test/vm/sync.sh"
# barrier NAME: wait until the other host reached NAME too, else stop
barrier() {
	step "host $TP_HOST at $1"
	vm_barrier "$1" || fail "host $(vm_other_host) never reached '$1'"
}
# on_host H CMD...: run CMD only on host H
on_host() { local h=$1; shift; [ "${TP_HOST:-}" != "$h" ] || "$@"; }
# drop_caches: forget what this guest's page cache holds of the disks, so
# the next read sees what the other host wrote
drop_caches() {
	local d
	sync
	for d in ${TP_SHARED:-}; do blockdev --flushbufs "$d"; done
	echo 3 >/proc/sys/vm/drop_caches
}

# scenario end: exit status from the recorded failures
finish() {
	if [ "$VM_FAILS" -gt 0 ]; then
		echo "$VM_FAILS check(s) failed"
		exit 1
	fi
	exit 0
}
