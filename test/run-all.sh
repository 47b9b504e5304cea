#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-all.sh - run the test stages and print one closing line
# "N passed, N failed" (the sum over all stages), after one "FAILED stage:
# test" line per failure, so that the end of the log names them.
#
#   BUILD=dir      build to test (default build)
#   SAN_BUILD=dir  also run unit, shell and fuzz-corpus tests against this sanitizer build
#   stages: layers exports unit shell fuzz vm (default: all; vm runs when QEMU and a
#           kernel image are present, see test/vm/run.sh, once per kernel
#           of TP_VM_KERNELS, default "6.1 6.12", or once on TP_KERNEL_DIR;
#           each run runs every scenario once, on one kernel: the
#           scenarios (sorted) are dealt to the kernels that are there in
#           turn, from an offset that turns with TP_VM_TURN (default the
#           day, UTC), so with two kernels two days in a row run every
#           scenario on both (the run names each kernel's share;
#           TP_VM_TURN=N replays a turn); every scenario on every kernel
#           with TP_VM_FULL=1;
#           layers is
#           scripts/check-layers.sh, one result per rule group, LAYERS_STRICT
#           and LAYERS_CIRCLES as there; exports is
#           scripts/check-exports.sh, no function the product exports
#           unused by it but those of scripts/exports-allow.txt,
#           LAYERS_STRICT as there)
#   boot    the boot test (test/vm/boot.sh: a Debian 12 system with the
#           package booted four times under QEMU; make check-boot) and the
#           two-host scenarios (TP_VM_HOSTS=2 test/vm/run.sh: two guests
#           sharing disks, test/vm/s2-*.sh, on the first kernel) are part
#           of the vm stage, after its kernels, one of them each run: the
#           boot test on even turns (TP_VM_TURN), the two-host scenarios
#           on odd ones, so two days in a row run both; TP_VM_FULL=1 runs
#           both; TP_VM_BOOT=0, TP_VM_TWOHOST=0 leave either out
#   TP_MATRIX_TURN=N  the turn of the matrices' samples (t-damage-matrix,
#           t-interrupt-matrix, t-recv-interrupt's places: the sanitizer
#           build's run takes a part of their cells that turns each day,
#           TP_MATRIX_SAMPLE=1 takes them all) and of the main build's
#           half of the shell tests (TP_SHELL_SPLIT); one for the whole
#           run, by default the day (UTC) when it starts. With SAN_BUILD
#           and the shell stage the main build's run takes the cells it
#           leaves (TP_MATRIX_SPLIT=1), of the damage matrix only those of
#           the day's half (TP_MATRIX_SPLIT=2, the default here: the two
#           runs judge half its cells each day, every cell two days in a
#           row); TP_MATRIX_SPLIT=0 runs every cell in the main build as
#           well
#   TP_SHELL_SPLIT=0|1  with SAN_BUILD, the sanitizer build's run runs
#           every shell test and the main build's run half of them (1, the
#           default): every other test in sorted order, from an offset
#           that turns with TP_MATRIX_TURN, so two days in a row run every
#           test in both builds; the three sampled matrices run in both
#           every day (their cells split as above). The main build's stage
#           names the tests it left. 0: every test in both builds
#   TP_SHELL_FULL=1  shell tests that stop a command at each of its steps
#           with one signal in turn (t-recv-raw) use all three, and
#           t-recv-interrupt cuts a receive at 20 places per input, not 10
#   TP_TEST_TMPDIR=dir  where the unit and shell stages put their files
#           (their TMPDIR); by default a directory on /dev/shm when that is
#           a tmpfs with 4 GiB free and the host 4 GiB of memory available,
#           else TMPDIR as given. Every commit of the commands under test
#           flushes its files: on a disk each flush waits (t-pool-volumes'
#           120 took half a second of its four on a loaded host, the crash
#           simulator's unit suite a sixth of its time), on a tmpfs none
#           does, and nothing those stages check depends on a disk (what
#           a real disk and kernel do is the vm stage's). The directory
#           goes at the end unless a failed shell test's is kept in it
#           (the run says so); a shell stage whose TMPDIR is gone (the run
#           killed) stops rather than run a test outside its directory
#   TP_LANE_UNIT=0|1  with SAN_BUILD and the vm stage alongside, 1 runs
#           the sanitizer build's unit stage in the vm lane once its
#           guests are done; 0 (the default: that lane is the longer one
#           now that it runs its kernels, the boot test or the two-host
#           scenarios in one go) keeps it in the host-side lane, after the
#           main build's stages
#   TP_VM_ALONGSIDE=0|1  run the vm stage alongside the others (default 1
#           on a host with 2 or more CPUs: QEMU's emulation keeps one CPU
#           busy, the host-side tests the other); its output is kept and
#           printed, whole, when the other stages are done
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SAN_BUILD=${SAN_BUILD:-}
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(layers exports unit shell fuzz vm)
# Every knob is read before anything runs: a knob of 0 or 1 given another
# value (TP_VM_BOOT=yes, TP_PLAN=true) would leave a test out, or run the
# whole check for a plan, without a word; a turn is a day number (at most
# 15 digits, read in base 10: 08 is 8, never an octal error that drops
# the VM deal or the shell split); a stage is one of those above.
for v in TP_PLAN TP_VM_FULL TP_SHELL_SPLIT TP_SHELL_FULL TP_VM_BOOT TP_VM_TWOHOST TP_VM_SOAK \
	TP_LANE_UNIT TP_VM_ALONGSIDE; do
	[[ ${!v:-0} =~ ^[01]$ ]] || { echo "run-all: $v=${!v}: say 0 or 1"; exit 3; }
done
[[ ${TP_MATRIX_SPLIT:-0} =~ ^[012]$ ]] || { echo "run-all: TP_MATRIX_SPLIT=$TP_MATRIX_SPLIT: say 0, 1 or 2"; exit 3; }
for v in TP_VM_TURN TP_MATRIX_TURN; do
	[ -z "${!v:-}" ] || [[ ${!v} =~ ^[0-9]{1,15}$ ]] ||
		{ echo "run-all: $v=${!v}: a turn is a number of at most 15 digits"; exit 3; }
	[ -z "${!v:-}" ] || export "$v=$((10#${!v}))"
done
for s in "${stages[@]}"; do
	case $s in layers|exports|unit|shell|boot|fuzz|vm) ;; *) echo "unknown stage $s"; exit 3 ;; esac
done
# (a kernel test/vm/kernel.sh does not know was dropped as "not unpacked",
# and the VM lane ran on the default kernel instead)
for k in ${TP_VM_KERNELS:-}; do
	case $k in 6.1|6.12) ;; *) echo "run-all: TP_VM_KERNELS=$TP_VM_KERNELS: $k is not a kernel test/vm/kernel.sh knows (6.1, 6.12)"; exit 3 ;; esac
done

total_pass=0
total_fail=0
work=$(mktemp -d)
vmpid=
tmp_made=
killtree() { local c; for c in $(pgrep -P "$1"); do killtree "$c"; done; kill "$1" 2>/dev/null; }
sentinel_loops=()
# the tests' tmpfs directory goes unless a failed shell test's directory
# is kept there ("kept in" its log says)
tmp_done() {
	[ -n "$tmp_made" ] || return 0
	if compgen -G "$tmp_made/tp-shell-*" >/dev/null; then
		echo "=== kept: $tmp_made (the directories of the failed tests above)"
	else
		rm -rf "$tmp_made"
	fi
}
trap '[ -n "$vmpid" ] && killtree "$vmpid"
	for l in "${sentinel_loops[@]}"; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$work"; tmp_done' EXIT
results=$work/results

failures=() # "label stage: what failed", printed again at the very end

add() { # label file: add a stage's results ("passed failed", then names)
	local p f n=0 name
	if read -r p f <"$2" && [ -n "$p" ]; then
		total_pass=$((total_pass + p))
		total_fail=$((total_fail + f))
		while read -r name; do
			[ -n "$name" ] || continue
			failures+=("$1: $name")
			n=$((n + 1))
		done < <(tail -n +2 "$2")
		[ "$f" -gt "$n" ] && failures+=("$1: $((f - n)) failed (see its output above)")
	else
		echo "$1: produced no result (crashed?)"
		total_fail=$((total_fail + 1))
		failures+=("$1: produced no result (crashed?)")
	fi
}

# A stage that exits other than 0 with no failure in its results: one
# failure more (the unit runner writes its results before LeakSanitizer
# reports at its exit, exit code 86; a runner killed or crashed).
exit_counts() { # rc
	local p f
	[ "$1" -ne 0 ] || return 0
	read -r p f <"$results" 2>/dev/null
	[ "${f:-0}" -eq 0 ] || return 0
	{ echo "${p:-0} 1"; echo "exit $1 after its tests (a sanitizer's report at exit, or killed: see its output)"; } >"$results"
}

exec_stage() { # stage build label [vm scenarios]: run it, results into $results
	local stage=$1 build=$2 label=$3
	: >"$results"
	case $stage in unit|shell) [ -z "$test_tmp" ] || local -x TMPDIR=$test_tmp ;; esac
	case $stage in
	layers)
		echo "=== $label: layer rules ($build)"
		TP_RESULTS=$results scripts/check-layers.sh -b "$build" ;;
	exports)
		echo "=== $label: exports the product does not use ($build)"
		TP_RESULTS=$results scripts/check-exports.sh -b "$build" ;;
	unit)
		echo "=== $label: unit tests ($build)"
		# (no block device of the host: a scan root with none,
		# lib/base/devfilter.h)
		TP_TEST_SCAN_ROOT=$work/no-devices TP_RESULTS=$results "$build/test/unit-tests"
		exit_counts $? ;;
	shell)
		echo "=== $label: shell tests ($build)${shell_left:+; left to the sanitizer build's run (and the main build's next day):$shell_left}"
		# shellcheck disable=SC2086 # $4: a list of tests
		TP_RESULTS=$results BUILD=$build test/shell/run.sh ${4:-}
		exit_counts $? ;;
	fuzz)
		echo "=== $label: fuzz corpus replay ($build)"
		TP_RESULTS=$results BUILD=$build test/fuzz/replay.sh
		exit_counts $? ;;
	vm)
		echo "=== $label: real-kernel tests under QEMU, ${TP_KERNEL_DIR:-kernel ${TP_KERNEL:-6.1}}${TP_VM_HOSTS:+, $TP_VM_HOSTS hosts} ($build)${4:+: $4}"
		# shellcheck disable=SC2086 # $4: a list of scenario names
		TP_RESULTS=$results BUILD=$build test/vm/run.sh ${4:-} ;;
	boot)
		echo "=== $label: boot test under QEMU, ${TP_KERNEL_DIR:-kernel ${TP_KERNEL:-6.1}} ($build)"
		TP_RESULTS=$results BUILD=$build test/vm/boot.sh ;;
	esac
}

# The hermetic check: a pool of the host's, "tp-sentinel" on two loop
# devices outside every test's directory, is there while the unit and
# shell tests run (each confined to its own devices: the scan root of
# lib/base/devfilter.h); afterwards its images must be byte-for-byte what
# they were. Skipped (said) where loop devices cannot be attached.
# the unit and shell stages' TMPDIR (TP_TEST_TMPDIR above); set in
# exec_stage only, not for the vm stage's guests and their disk images
test_tmp=${TP_TEST_TMPDIR:-}
if [ -n "$test_tmp" ] && { [ ! -d "$test_tmp" ] || [ ! -w "$test_tmp" ]; }; then
	echo "run-all: TP_TEST_TMPDIR=$test_tmp is not a directory this user can write"
	exit 3
fi
tmpfs_room() { # dir: a tmpfs with 4 GiB free, on a host with 4 GiB available
	local free avail
	[ "$(stat -f -c %T "$1" 2>/dev/null)" = tmpfs ] || return 1
	free=$(df -k --output=avail "$1" 2>/dev/null | tail -1)
	avail=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null)
	[ "${free:-0}" -ge 4194304 ] && [ "${avail:-0}" -ge 4194304 ]
}
if [ -z "$test_tmp" ] && [ -d /dev/shm ] && tmpfs_room /dev/shm; then
	test_tmp=$(mktemp -d /dev/shm/tp-check.XXXXXX) && tmp_made=$test_tmp || test_tmp=
fi
[ -z "$test_tmp" ] || echo "=== the unit and shell stages' files: $test_tmp (TP_TEST_TMPDIR)"

sentinel_up() {
	local s=$work/sentinel bin=$BUILD/bin
	mkdir -p "$s/etc"
	truncate -s 64M "$s/d.img" && truncate -s 16M "$s/m.img" || return 1
	sentinel_loops[0]=$(losetup -f --show "$s/d.img" 2>/dev/null) || return 1
	sentinel_loops[1]=$(losetup -f --show "$s/m.img" 2>/dev/null) || return 1
	TPTOOLS_DIR=$s/etc TP_TEST_SCAN_ROOT=$s "$bin/tpcreate" -q --data "${sentinel_loops[0]}" \
		--meta "${sentinel_loops[1]}" --chunk 64k tp-sentinel >/dev/null &&
		TPTOOLS_DIR=$s/etc TP_TEST_SCAN_ROOT=$s "$bin/tvcreate" -q -V 16M -n v tp-sentinel \
		>/dev/null || return 1
	cksum "$s/d.img" "$s/m.img" >"$s/sums"
	echo "=== hermetic: a pool of the host, tp-sentinel, on ${sentinel_loops[*]} while the tests run"
}
sentinel_check() {
	local s=$work/sentinel
	[ -s "$s/sums" ] || return 0
	if cksum "$s/d.img" "$s/m.img" | cmp -s - "$s/sums"; then
		echo "hermetic: tp-sentinel's images are unchanged"; echo "1 0" >"$results"
	else
		echo "hermetic: FAIL: a test wrote tp-sentinel's images (a pool of the host)"
		printf '0 1\ntp-sentinel changed\n' >"$results"
	fi
	add "main hermetic" "$results"
}

times=() # "label stage Ns", printed at the end
run_stage() { # stage build label [vm scenarios]: run it and add its results
	local t0=$SECONDS
	exec_stage "$@"
	times+=("$3 $1 $((SECONDS - t0))s")
	add "$3 $1" "$results"
}

VM_TURN=${TP_VM_TURN:-$(($(date -u +%s) / 86400))}	# (checked above)
# vm_deal: the kernels of TP_VM_KERNELS that are there (into vm_kernels)
# and each one's share of the scenarios test/vm/run.sh runs (vm_share[i]:
# scenario j, in sorted order, goes to kernel (j + VM_TURN) mod their
# count; every scenario to each with TP_VM_FULL=1)
vm_deal() {
	local f n j=0 k nk
	vm_kernels=() vm_share=()
	for k in ${TP_VM_KERNELS:-6.1 6.12}; do
		if (. test/vm/kernel.sh && TP_KERNEL=$k TP_KERNEL_DIR='' vm_kernel_find); then
			vm_kernels+=("$k")
		else
			echo "=== main: kernel $k is not unpacked (scripts/fetch-kernel.sh $k): the other kernels run its share"
		fi
	done
	nk=${#vm_kernels[@]}
	[ "$nk" -gt 0 ] || return 0
	for f in test/vm/s-*.sh; do
		n=${f##*/}; n=${n%.sh}
		grep -q '^# vm-soak' "$f" && [ "${TP_VM_SOAK:-0}" != 1 ] && continue
		if [ "${TP_VM_FULL:-0}" = 1 ]; then
			for ((k = 0; k < nk; k++)); do vm_share[k]+=" $n"; done
		else
			vm_share[(j + VM_TURN) % nk]+=" $n"
		fi
		j=$((j + 1))
	done
}

# shell_half: with the sanitizer build's run (which runs every shell
# test), the main build's run takes half of them (into shell_main; the
# others into shell_left): every other test in sorted order from an
# offset that turns with TP_MATRIX_TURN, and the sampled matrices always
# (they split their cells themselves); TP_SHELL_SPLIT=0 runs every test
shell_main='' shell_left=''
shell_half() {
	local t j=0
	for t in test/shell/t-*.sh; do
		case ${t##*/} in
		t-damage-matrix.sh|t-interrupt-matrix.sh|t-recv-interrupt.sh) shell_main+=" $t" ;;
		*)
			if (((j + TP_MATRIX_TURN) % 2 == 0)); then shell_main+=" $t"; else shell_left+=" ${t##*/}"; fi
			j=$((j + 1)) ;;
		esac
	done
}
# run_vm: every kernel of TP_VM_KERNELS, or the one in TP_KERNEL_DIR; each
# kernel's results go to $work/vm.N (added by add_vm)
run_vm() {
	local i t0=$SECONDS
	if [ -n "${TP_KERNEL_DIR:-}" ]; then
		results=$work/vm.0 exec_stage vm "$BUILD" main
	else
		vm_deal
		if [ ${#vm_kernels[@]} = 0 ]; then	# (run.sh says why it skips: of the first kernel
			# asked for, never the default one run instead)
			# shellcheck disable=SC2086 # a list of kernels
			TP_KERNEL=$(set -- ${TP_VM_KERNELS:-6.1 6.12}; echo "$1") \
				results=$work/vm.0 exec_stage vm "$BUILD" main
		fi
		[ "${TP_VM_FULL:-0}" = 1 ] || [ ${#vm_kernels[@]} -lt 2 ] ||
			echo "=== main: every scenario once, dealt to kernels ${vm_kernels[*]} at turn $VM_TURN (TP_VM_TURN=$VM_TURN replays it; TP_VM_FULL=1 runs every scenario on every kernel)"
		for i in "${!vm_kernels[@]}"; do
			[ -n "${vm_share[i]:-}" ] || continue
			TP_KERNEL=${vm_kernels[i]} results=$work/vm.$i exec_stage vm "$BUILD" main "${vm_share[i]:-}"
		done
	fi
	echo "$((SECONDS - t0))" >"$work/vm.time"
	# the day's other guests follow the kernels at once
	vm_extras
	[ "$want_boot" != 1 ] || run_boottest
	[ "$want_twohost" != 1 ] || run_twohost
	[ "${1:-}" != kernels ] || [ "$lane_unit" != 1 ] || run_lane_unit
}
# vm_extras: whether this run has the boot test (want_boot) and the
# two-host scenarios (want_twohost): one a turn, both with TP_VM_FULL=1
vm_extras() {
	want_boot=0 want_twohost=0
	if [ "${TP_VM_FULL:-0}" = 1 ]; then
		want_boot=1 want_twohost=1
	elif ((VM_TURN % 2 == 0)); then
		want_boot=1
	else
		want_twohost=1
	fi
	[ "${TP_VM_BOOT:-1}" = 1 ] || want_boot=0
	[ "${TP_VM_TWOHOST:-1}" = 1 ] && [ -z "${TP_KERNEL_DIR:-}" ] || want_twohost=0
}
# run_twohost: the two-host scenarios (results to $work/vm.8, time to
# hosts.time); run_boottest: the boot test (results to $work/vm.9,
# boot.time)
run_twohost() {
	local t0=$SECONDS
	TP_VM_HOSTS=2 results=$work/vm.8 exec_stage vm "$BUILD" main
	echo "$((SECONDS - t0))" >"$work/hosts.time"
}
run_boottest() {
	local t0=$SECONDS
	results=$work/vm.9 exec_stage boot "$BUILD" main
	echo "$((SECONDS - t0))" >"$work/boot.time"
}
# run_lane_unit: the sanitizer build's unit stage, in the vm lane once its
# guests are done (results to $work/lane.unit, time to lane.unit.time):
# the lane is idle by then while the host-side stages still run
run_lane_unit() {
	local t0=$SECONDS
	san_env
	TP_SANITIZE=1 results=$work/lane.unit exec_stage unit "$SAN_BUILD" sanitizer
	echo "$((SECONDS - t0))" >"$work/lane.unit.time"
}
san_env() {
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=86}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=87}
}
add_vm() {
	local f
	for f in "$work"/vm.[0-9]*; do
		[ -e "$f" ] && add "main vm" "$f"
	done
	[ -s "$work/vm.time" ] && times+=("main vm $(cat "$work/vm.time")s")
	[ -s "$work/hosts.time" ] && times+=("main two-host $(cat "$work/hosts.time")s")
	[ -s "$work/boot.time" ] && times+=("main boot $(cat "$work/boot.time")s")
	return 0
}

# one turn of the matrices' samples for both builds' shell tests; with
# the sanitizer build's, the main build's run takes the cells it leaves
# (of the damage matrix, those of the day's half: TP_MATRIX_SPLIT=2)
export TP_MATRIX_TURN=${TP_MATRIX_TURN:-$(($(date -u +%s) / 86400))}	# (checked above)
split=0
for s in "${stages[@]}"; do [ "$s" = shell ] && [ -n "$SAN_BUILD" ] && split=2; done
[ "$split" = 0 ] || [ "${TP_SHELL_SPLIT:-1}" = 0 ] || shell_half
# TP_PLAN=1: say what this run would run (the main build's shell tests
# and those it leaves, each kernel's scenarios), run nothing
if [ "${TP_PLAN:-0}" = 1 ]; then
	echo "shell main:${shell_main:- every test}"
	echo "shell left:$shell_left"
	vm_deal
	for i in "${!vm_kernels[@]}"; do echo "vm ${vm_kernels[i]}:${vm_share[i]:-}"; done
	vm_extras
	echo "vm extra:$([ "$want_boot" = 0 ] || echo -n " boot")$([ "$want_twohost" = 0 ] || echo -n " two-host")"
	exit 0
fi

alongside=${TP_VM_ALONGSIDE:-}
[ -n "$alongside" ] || { [ "$(nproc 2>/dev/null || echo 1)" -ge 2 ] && alongside=1 || alongside=0; }
want_vm=0
for s in "${stages[@]}"; do [ "$s" = vm ] && want_vm=1; done
[ -x test/vm/run.sh ] || want_vm=0
[ ${#stages[@]} -gt 1 ] || [ -n "$SAN_BUILD" ] || alongside=0
# alongside, with TP_LANE_UNIT=1, the vm lane ends with the sanitizer
# build's unit stage (by default it is the host side's: in one run the vm
# lane took 2,911 s with it, the host side 2,050 s without it)
lane_unit=0
if [ $want_vm = 1 ] && [ "$alongside" = 1 ] && [ -n "$SAN_BUILD" ] &&
	[ "${TP_LANE_UNIT:-0}" = 1 ]; then
	for s in "${stages[@]}"; do [ "$s" = unit ] && lane_unit=1; done
fi
if [ $want_vm = 1 ] && [ "$alongside" = 1 ]; then
	echo "=== main: real-kernel tests under QEMU: running alongside; output follows the other stages"
	[ "$lane_unit" = 0 ] || echo "=== sanitizer: unit tests: in that lane, after its guests"
	run_vm kernels >"$work/vm.log" 2>&1 &
	vmpid=$!
fi
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null; then
	sentinel_up || echo "=== hermetic: no loop devices here; the sentinel pool is not made"
fi

for s in "${stages[@]}"; do
	case $s in
	layers|exports|unit) run_stage "$s" "$BUILD" main ;;
	shell) TP_MATRIX_SPLIT=${TP_MATRIX_SPLIT:-$split} run_stage "$s" "$BUILD" main "$shell_main"
		shell_left='' ;;
	boot) [ -x test/vm/boot.sh ] && run_stage boot "$BUILD" main ;;
	fuzz) [ -x test/fuzz/replay.sh ] && run_stage fuzz "$BUILD" main ;;
	vm) [ $want_vm = 1 ] && [ -z "$vmpid" ] && { run_vm; add_vm; } ;;
	*) echo "unknown stage $s"; exit 3 ;;
	esac
done
if [ -n "$SAN_BUILD" ]; then
	san_env
	for s in "${stages[@]}"; do
		[ "$s" = unit ] && [ "$lane_unit" = 1 ] && continue
		case $s in unit|shell|fuzz) TP_SANITIZE=1 run_stage "$s" "$SAN_BUILD" sanitizer ;; esac
	done
fi
if [ -n "$vmpid" ]; then
	echo "=== main: real-kernel tests under QEMU (ran alongside the stages above)"
	wait "$vmpid"
	vmpid=
	cat "$work/vm.log"
	add_vm
	if [ "$lane_unit" = 1 ]; then
		add "sanitizer unit" "$work/lane.unit"
		[ -s "$work/lane.unit.time" ] &&
			times+=("sanitizer unit (vm lane) $(cat "$work/lane.unit.time")s")
	fi
fi
# (after the vm lane: its sanitizer unit stage is host-side too)
sentinel_check
echo
# what each stage took, and the failures again, last: a CI log shows only
# its tail
echo "stage times: $(IFS=,; echo "${times[*]}" | sed 's/,/, /g') (total ${SECONDS}s)"
for f in "${failures[@]}"; do
	echo "FAILED $f"
done
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
