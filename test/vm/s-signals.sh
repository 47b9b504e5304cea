#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Signals, kills and half-applied changes on a live pool (issue 12).
# SIGINT, SIGTERM and SIGKILL land at each step of a live tvsnap, a live
# tvrollback and a live tpstatus, deterministically: TP_TEST_PAUSE=STEP makes the command
# stop at STEP (lib/base/critical.h) until the scenario has sent its
# signal. Afterwards: SIGINT/SIGTERM waited for the end of the critical
# section (no device suspended, no metadata snapshot held, the change whole
# or not made); a SIGKILL's leftovers (a suspended origin, a held metadata
# snapshot, an interrupted transaction) are cleared by the next command,
# which says so. Every round checks that the origin's data reads back and
# that it takes writes. Then an active pool refused by tpremove, tprepair,
# tpcheck and tprestore, a change the kernel applied whose transaction id
# was not set (TP_TEST_FAIL=set-tid) completed by the next command, and
# device-mapper that does not answer (not root) refusing instead of
# "offline". Finally the pool offline: tpcheck clean, data intact.
. "$TP_SRC/test/vm/lib.sh"
vm_begin -n 2 -e
DATA=${disks[0]} META=${disks[1]}

# kernel_tid / held_root: fields of the thin-pool status line
kernel_tid() { dmsetup status sig-tpool | awk '{ print $4 }'; }
held_root() { dmsetup status sig-tpool | awk '{ print $7 }'; }
vg_tid() {
	tpstatus --noheadings -o pool_transaction_id sig 2>/dev/null | awk 'NF { print $1; exit }'
}
suspended() {
	dmsetup info -c --noheadings --separator ' ' -o name,suspended 2>/dev/null |
		awk '$2 == "Suspended" { print $1 }'
}
origin_sum() { dd if=/dev/mapper/sig-vol bs=1M count=16 iflag=direct status=none | md5sum; }

# signal_at STEP SIG CMD...: run CMD paused at STEP, send SIG there, let
# it go on; sets $rc (the command's exit status) and leaves cmd.err
signal_at() {
	local step=$1 sig=$2 pid
	shift 2
	rm -f pause
	# a script's background jobs ignore SIGINT: give it back its default
	TP_TEST_PAUSE=$step TP_TEST_PAUSE_FILE=$PWD/pause \
		env --default-signal=INT,TERM,HUP "$@" >cmd.out 2>cmd.err &
	pid=$!
	while [ ! -e pause ]; do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid"
			cat cmd.err
			note_fail "$* never reached $step (exit $?)"
			rc=-1
			return
		fi
		sleep 0.1
	done
	kill "-$sig" "$pid"
	rm -f pause
	wait "$pid" && rc=0 || rc=$?
}

# want_rc SIG: the exit status of a command SIG ended
want_rc() { case $1 in INT) echo 130 ;; TERM) echo 143 ;; KILL) echo 137 ;; esac; }

# settled WHAT: nothing suspended, no snapshot held, VG and kernel agree,
# the origin's data intact and writable
settled() {
	local s
	s=$(suspended)
	expect_eq "$1: suspended devices" "$s" ""
	expect_eq "$1: held metadata snapshot" "$(held_root)" "-"
	expect_eq "$1: transaction ids (VG, kernel)" "$(vg_tid)" "$(kernel_tid)"
	expect_eq "$1: origin data" "$(origin_sum)" "$sum"
	timeout 120 dd if=/dev/urandom of=/dev/mapper/sig-vol bs=64K count=4 seek=512 \
		oflag=direct status=none || note_fail "$1: the origin does not take writes"
}

# next_command WHAT: the next command (a reader, then a writer) clears
# and completes what the killed one left, saying so
next_command() {
	tpstatus sig >next.out 2>next.err || { cat next.err; note_fail "$1: tpstatus after the kill"; }
	cat next.err
	[ -z "$2" ] || grep -q "$2" next.err || note_fail "$1: the next command did not say '$2'"
	must tvcreate -V 4M -n "probe$n" sig 2>next.err
	cat next.err
	[ -z "$3" ] || grep -q "$3" next.err || note_fail "$1: the next change did not say '$3'"
	n=$((n + 1))
}

step "a live pool with a volume holding a pattern"
must tpcreate --data "$DATA" --meta "$META" --yes sig
must tvcreate -V 64M -n vol sig
must tpdump sig >sig.xml
read -r spare len <<<"$(tpstatus --noheadings --units b -o pool_spare_offset,pool_meta_length sig |
	awk 'NF == 2 { sub("b", "", $1); sub("b", "", $2); print; exit }')"
must tpactivate sig
must dd if=/dev/urandom of=/dev/mapper/sig-vol bs=1M count=16 oflag=direct status=none
sum=$(origin_sum)
n=0

step "tvsnap: SIGINT and SIGTERM wait for the end of the change"
for st in after-vg-commit after-suspend after-create-snap after-apply; do
	for sig in INT TERM; do
		snap="s-$st-$sig"
		signal_at "$st" "$sig" tvsnap sig/vol -n "$snap"
		expect_eq "tvsnap $st $sig: exit" "$rc" "$(want_rc $sig)"
		# the snapshot is whole: in the VG and in the kernel
		check tpactivate sig "$snap"
		check test -b "/dev/mapper/sig-${snap//-/--}"
		check tpdeactivate sig "$snap"
		settled "tvsnap $st $sig"
	done
done

step "tvsnap: SIGKILL at each step; the next command clears and completes"
for st in after-vg-commit after-suspend after-create-snap after-apply; do
	snap="k-$st"
	signal_at "$st" KILL tvsnap sig/vol -n "$snap"
	expect_eq "tvsnap $st KILL: exit" "$rc" 137
	left=$(suspended)
	case $st in
	after-suspend | after-create-snap)
		expect_eq "tvsnap $st KILL: the origin is left suspended" "$left" sig-vol
		next_command "tvsnap $st KILL" "resumed sig-vol" "had been interrupted" ;;
	*)
		expect_eq "tvsnap $st KILL: nothing suspended" "$left" ""
		next_command "tvsnap $st KILL" "" "had been interrupted" ;;
	esac
	check tpactivate sig "$snap"
	check tpdeactivate sig "$snap"
	settled "tvsnap $st KILL"
done

step "tvrollback: INT, TERM and KILL at each step; the volume ends as the snapshot"
must tvsnap sig/vol -n rb-base
rb_sum=$(origin_sum)
for st in after-vg-commit after-create-snap after-apply; do
	for sig in INT TERM KILL; do
		# the volume moves away from the snapshot, then is rolled back
		must dd if=/dev/urandom of=/dev/mapper/sig-vol bs=1M count=2 oflag=direct status=none
		[ "$(origin_sum)" != "$rb_sum" ] || note_fail "tvrollback $st $sig: the write did not land"
		signal_at "$st" "$sig" tvrollback sig/vol --to rb-base
		expect_eq "tvrollback $st $sig: exit" "$rc" "$(want_rc $sig)"
		[ "$sig" = KILL ] && next_command "tvrollback $st KILL" "" ""
		[ -b /dev/mapper/sig-vol ] || must tpactivate sig vol
		sum=$rb_sum
		settled "tvrollback $st $sig"
	done
done
sum=$(origin_sum)

step "tpstatus: SIGINT, SIGTERM and SIGKILL inside the metadata snapshot"
for st in after-reserve before-release; do
	for sig in INT TERM KILL; do
		signal_at "$st" "$sig" tpstatus sig
		expect_eq "tpstatus $st $sig: exit" "$rc" "$(want_rc $sig)"
		if [ "$sig" = KILL ]; then
			[ "$(held_root)" != "-" ] || note_fail "tpstatus $st KILL: no snapshot was left held"
			next_command "tpstatus $st KILL" "released a metadata snapshot" ""
		else
			expect_eq "tpstatus $st $sig: snapshot released" "$(held_root)" "-"
		fi
		settled "tpstatus $st $sig"
	done
done

step "an active pool: tpremove, tprepair, tpcheck, tprestore refuse, nothing written"
meta_before=$(dd if="$META" bs=1M count=1 status=none | md5sum)
not tpremove -y sig 2>err
grep -q "active in the kernel" err || { cat err; note_fail "tpremove: no clear refusal"; }
not tprepair sig 2>err
grep -q "active in the kernel" err || { cat err; note_fail "tprepair: no clear refusal"; }
not tprepair --force sig 2>err
not tpcheck sig 2>err
grep -q "active in the kernel" err || { cat err; note_fail "tpcheck: no clear refusal"; }
tprestore -i sig.xml -o "$META" --offset "$spare" --size "$len" --force 2>err
expect_eq "tprestore into the spare of an active pool: exit" "$?" 5
grep -q "active in the kernel" err || { cat err; note_fail "tprestore: no clear refusal"; }
tpremove -y sig >/dev/null 2>&1
expect_eq "tpremove exit" "$?" 5
expect_eq "labels and VG area unchanged" "$(dd if="$META" bs=1M count=1 status=none | md5sum)" \
	"$meta_before"
check tpstatus sig
settled "refusals"

step "the kernel applied a change whose transaction id was not set"
tid=$(kernel_tid)
TP_TEST_FAIL=set-tid tvcreate -V 8M -n half sig 2>err
expect_eq "tvcreate with set_transaction_id failing: exit" "$?" 5
cat err
grep -q "completes it" err || note_fail "the half-applied change was not explained"
expect_eq "kernel transaction id unchanged" "$(kernel_tid)" "$tid"
must tvcreate -V 4M -n after sig 2>err
cat err
grep -q "transaction $((tid + 1)) had been interrupted; it is now complete" err ||
	note_fail "the next command did not complete transaction $((tid + 1))"
check tpactivate sig half
check test -b /dev/mapper/sig-half
check tpdeactivate sig half
settled "completion"

step "device-mapper that does not answer: refused, never offline"
if command -v setpriv >/dev/null; then
	# the devices readable, /dev/mapper/control not (root only)
	chmod -R a+rwX "$TPTOOLS_DIR"
	chmod a+rx "$PWD"
	modes=$(stat -c %a "$DATA" "$META")
	chmod a+r "$DATA" "$META"
	setpriv --reuid=65534 --regid=65534 --clear-groups tpstatus sig 2>err
	expect_eq "tpstatus as nobody: exit" "$?" 5
	cat err
	grep -q "cannot tell whether the kernel runs it" err || note_fail "no fail-closed refusal"
	set -- $modes
	chmod "$1" "$DATA"
	chmod "$2" "$META"
else
	echo "no setpriv: skipped"
fi

step "offline: tpcheck clean, data intact"
must tpdeactivate sig
check tpcheck sig
must tpactivate sig vol
expect_eq "origin data after reactivation" "$(origin_sum)" "$sum"
must tpdeactivate sig
must tpremove -y sig
finish
