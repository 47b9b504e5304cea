# SPDX-License-Identifier: GPL-2.0-or-later
# t-run-plan.sh - what make check (test/run-all.sh) leaves to the next
# day's run, it runs then (README "Testing", test/run-all.sh's header,
# test/vm/README.md):
# - each run runs every VM scenario once, dealt to the kernels there;
#   two turns in a row run every scenario on every kernel; each run has
#   the boot test or the two-host scenarios, two in a row both;
# - with the sanitizer build, the main build's shell run takes half of the
#   tests (the three matrices always), each day another half: two turns
#   in a row run every test in the main build; the sanitizer's runs all;
# - the damage matrix's cells: the main build's two-day split and the
#   sanitizer's sample never take one cell twice in a run, and two turns
#   in a row take every cell (TP_MATRIX_SPLIT=2, SAN_SAMPLE even).
# test/run-all.sh TP_PLAN=1 and t-damage-matrix.sh TP_MATRIX_PLAN say what
# a run would take without running it.
T=9   # any turn: T and T + 1 are two days in a row
(cd "$TOP" && ls test/shell/t-*.sh) | sed 's#.*/##' | sort >all.tests
(cd "$TOP" && for f in test/vm/s-*.sh; do grep -q '^# vm-soak' "$f" || basename "$f" .sh; done) |
	sort >all.scen

# plan TURN [ENV...]: run-all's plan of that turn, into plan.TURN
plan() {
	local t=$1
	shift
	env -u TP_RESULTS -u TP_MATRIX_SPLIT -u TP_SHELL_SPLIT -u TP_VM_FULL -u TP_VM_BOOT -u TP_VM_TWOHOST \
		-u TP_VM_SOAK -u TP_VM_KERNELS -u TP_KERNEL_DIR TP_PLAN=1 \
		TP_TEST_TMPDIR="$PWD" SAN_BUILD=build-san TP_MATRIX_TURN="$t" TP_VM_TURN="$t" "$@" \
		"$TOP/test/run-all.sh" >"plan.$t" || fail "run-all's plan (turn $t) failed"
}
field() { sed -n "s/^$1: *//p" "$2" | tr ' ' '\n' | sed '/^$/d; s#.*/##' | sort; }

# ---- the shell tests ----
for t in $T $((T + 1)); do
	plan "$t"
	field "shell main" "plan.$t" >main.$t
	field "shell left" "plan.$t" >left.$t
	[ -s "main.$t" ] && [ -s "left.$t" ] || { cat "plan.$t" >&2; fail "turn $t: no half"; }
	[ -z "$(comm -12 "main.$t" "left.$t")" ] || fail "turn $t: a test both run and left"
	sort -m "main.$t" "left.$t" | cmp -s - all.tests || fail "turn $t: run + left is not every test"
	for m in t-damage-matrix.sh t-interrupt-matrix.sh t-recv-interrupt.sh; do
		grep -qx "$m" "main.$t" || fail "turn $t: the main build leaves $m"
	done
done
sort -u main.$T main.$((T + 1)) | cmp -s - all.tests ||
	fail "two turns in a row leave a shell test out of the main build"
[ "$(wc -l <main.$T)" -lt "$(wc -l <all.tests)" ] || fail "the main build takes every test"
plan $T TP_SHELL_SPLIT=0
grep -qx "shell main: every test" plan.$T || { cat plan.$T >&2; fail "TP_SHELL_SPLIT=0 still splits"; }

# ---- the knobs: a turn with a leading zero is that turn (08 is 8, not a
# bash octal error that dropped the plan and ran the whole check, or ran
# no VM scenario yet passed); a turn past 15 digits, a two-valued knob
# given another value (TP_VM_BOOT=yes left the boot test out without a
# word, TP_PLAN=yes ran the whole check) or an unknown stage: exit 3
# before anything runs. Each is asked for the "exports" stage of a build
# that is not there, with no losetup in PATH: had run-all gone on, it
# would fail in a moment, never run the check. ----
knob() { # EXPECTED-RC ENV...: run-all's plan with ENV, its output into knob.out
	local want=$1 rc=0
	shift
	env -u TP_RESULTS -u TP_MATRIX_SPLIT -u TP_SHELL_SPLIT -u TP_VM_FULL -u TP_VM_BOOT \
		-u TP_VM_TWOHOST -u TP_VM_SOAK -u TP_LANE_UNIT -u TP_VM_ALONGSIDE -u TP_SHELL_FULL -u TP_VM_KERNELS \
		PATH=/usr/bin:/bin TP_PLAN=1 TP_TEST_TMPDIR="$PWD" SAN_BUILD=build-san BUILD="$PWD/no-build" \
		TP_MATRIX_TURN=$T TP_VM_TURN=$T "$@" "$TOP/test/run-all.sh" exports >knob.out 2>&1 || rc=$?
	[ "$rc" = "$want" ] || { cat knob.out >&2; fail "run-all with $*: exit $rc, not $want"; }
	grep -q 'check-exports\|^=== main: exports' knob.out && { cat knob.out >&2; fail "run-all with $*: ran a stage"; }
	return 0
}
knob 0 TP_VM_TURN=8 TP_MATRIX_TURN=8
cp knob.out plan.8
knob 0 TP_VM_TURN=08 TP_MATRIX_TURN=08
cmp -s knob.out plan.8 || { diff plan.8 knob.out >&2; fail "turn 08 is not turn 8"; }
for e in TP_VM_TURN=9223372036854775808 TP_MATRIX_TURN=1234567890123456 TP_VM_TURN=-1 TP_MATRIX_TURN=x \
	TP_PLAN=yes TP_VM_BOOT=yes TP_VM_TWOHOST=true TP_VM_FULL=2 TP_SHELL_SPLIT=no TP_MATRIX_SPLIT=3 \
	"TP_VM_KERNELS=6.1 7.0"; do
	knob 3 "$e"
	grep -q "^run-all: ${e%%=*}=" knob.out || { cat knob.out >&2; fail "run-all with $e: does not name it"; }
done

# ---- the VM scenarios ----
grep '^vm ' plan.$T | grep -v '^vm extra:' | awk '{ print $2 }' | tr -d : >kernels
if [ -s kernels ]; then
	for t in $T $((T + 1)); do
		plan "$t"
		sed -n '/^vm extra:/d; s/^vm [^:]*: *//p' "plan.$t" | tr ' ' '\n' | sed '/^$/d' | sort >ran.$t
		sort -u "ran.$t" | cmp -s - "ran.$t" || fail "turn $t: a scenario runs twice"
		cmp -s "ran.$t" all.scen || { cat "plan.$t" >&2; fail "turn $t: not every scenario once"; }
	done
	while read -r k; do
		for t in $T $((T + 1)); do field "vm $k" "plan.$t"; done | sort -u | cmp -s - all.scen ||
			fail "kernel $k: two turns in a row leave a scenario out"
	done <kernels
	plan $T TP_VM_FULL=1
	while read -r k; do
		field "vm $k" plan.$T | cmp -s - all.scen || fail "TP_VM_FULL=1: kernel $k not every scenario"
	done <kernels
else
	echo "NOTE: no VM kernel unpacked here: the VM deal is not checked"
fi

# ---- the boot test and the two-host scenarios: one a turn, both in two ----
for t in $T $((T + 1)); do
	plan "$t"
	grep '^vm extra:' "plan.$t" | sed 's/^vm extra: *//' >"extra.$t"
	[ "$(wc -w <"extra.$t")" = 1 ] || { cat "plan.$t" >&2; fail "turn $t: not one of boot, two-host"; }
done
[ "$(cat extra.$T extra.$((T + 1)) | sort | tr '\n' ' ')" = "boot two-host " ] ||
	fail "two turns in a row do not run both the boot test and the two-host scenarios"
plan $T TP_VM_FULL=1
grep -qx "vm extra: boot two-host" plan.$T || fail "TP_VM_FULL=1 leaves the boot test or the two-host scenarios out"

# ---- the damage matrix's cells ----
# cells FILE: "group:cell" of a plan's groups (ID KIND POOL CELLS ...)
cells() { awk '{ n = split($4, c, ","); for (i = 1; i <= n; i++) print $1 ":" c[i] }' "$1" | sort; }
mplan() { # NAME TURN [ENV...]: the matrix's groups of that run, cells into NAME
	local name=$1 t=$2
	shift 2
	env -u TP_RESULTS -u TP_SHELL_LOGS -u TP_MATRIX_SAMPLE -u TP_SHELL_FULL -u TP_MATRIX_ONLY \
		TP_MATRIX_PLAN="$PWD/$name.groups" TP_MATRIX_TURN="$t" TP_SANITIZE=0 TP_MATRIX_SPLIT=0 "$@" \
		"$TOP/test/shell/run.sh" test/shell/t-damage-matrix.sh >"$name.log" 2>&1 ||
		{ cat "$name.log" >&2; fail "the damage matrix's plan $name failed"; }
	cells "$name.groups" >"$name"
}
mplan every $T
for t in $T $((T + 1)); do
	mplan main.m$t "$t" TP_MATRIX_SPLIT=2
	mplan san.m$t "$t" TP_SANITIZE=1
	[ -z "$(comm -12 "main.m$t" "san.m$t")" ] || fail "turn $t: a cell in both builds' runs"
	[ -s "main.m$t" ] && [ -s "san.m$t" ] || fail "turn $t: a build's run takes no cell"
done
sort -u main.m$T san.m$T main.m$((T + 1)) san.m$((T + 1)) | cmp -s - every ||
	fail "two turns in a row leave a damage matrix cell out"
# and each day's half is half: the main build's run alone is less
[ "$(wc -l <main.m$T)" -lt "$(($(wc -l <every) * 2 / 5))" ] || fail "the two-day split takes too many cells"
