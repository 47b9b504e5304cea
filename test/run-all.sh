#!/bin/bash
# run-all.sh - run the test stages and print one closing line
# "N passed, N failed" (the sum over all stages), after one "FAILED stage:
# test" line per failure, so that the end of the log names them.
#
#   BUILD=dir      build to test (default build)
#   SAN_BUILD=dir  also run unit, shell and fuzz-corpus tests against this sanitizer build
#   stages: layers unit shell fuzz vm (default: all; vm runs when QEMU and a
#           kernel image are present, see test/vm/run.sh, once per kernel
#           of TP_VM_KERNELS, default "6.1 6.12", or once on TP_KERNEL_DIR;
#           the first kernel runs every scenario, the others the scenarios
#           of TP_VM_LATER (default below: the quick ones; the long fault
#           and monitor soaks add little on a second kernel), or every
#           scenario with TP_VM_FULL=1;
#           layers is
#           scripts/check-layers.sh, one result per rule group, LAYERS_STRICT
#           and LAYERS_CIRCLES as there)
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SAN_BUILD=${SAN_BUILD:-}
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(layers unit shell fuzz vm)

total_pass=0
total_fail=0
results=$(mktemp)
trap 'rm -f "$results"' EXIT

failures=() # "label stage: what failed", printed again at the very end

add() { # add "label" from the results file: "passed failed", then names
	local p f n=0 name
	if read -r p f <"$results" && [ -n "$p" ]; then
		total_pass=$((total_pass + p))
		total_fail=$((total_fail + f))
		while read -r name; do
			[ -n "$name" ] || continue
			failures+=("$1: $name")
			n=$((n + 1))
		done < <(tail -n +2 "$results")
		[ "$f" -gt "$n" ] && failures+=("$1: $((f - n)) failed (see its output above)")
	else
		echo "$1: produced no result (crashed?)"
		total_fail=$((total_fail + 1))
		failures+=("$1: produced no result (crashed?)")
	fi
	: >"$results"
}

run_stage() { # stage build label [vm scenarios]
	local stage=$1 build=$2 label=$3
	: >"$results"
	case $stage in
	layers)
		echo "=== $label: layer rules ($build)"
		TP_RESULTS=$results scripts/check-layers.sh -b "$build" ;;
	unit)
		echo "=== $label: unit tests ($build)"
		TP_RESULTS=$results "$build/test/unit-tests" ;;
	shell)
		echo "=== $label: shell tests ($build)"
		TP_RESULTS=$results BUILD=$build test/shell/run.sh ;;
	fuzz)
		echo "=== $label: fuzz corpus replay ($build)"
		TP_RESULTS=$results BUILD=$build test/fuzz/replay.sh ;;
	vm)
		echo "=== $label: real-kernel tests under QEMU, ${TP_KERNEL_DIR:-kernel ${TP_KERNEL:-6.1}} ($build)${4:+: $4}"
		# shellcheck disable=SC2086 # $4: a list of scenario names
		TP_RESULTS=$results BUILD=$build test/vm/run.sh ${4:-} ;;
	esac
	add "$label $stage"
}

VM_LATER=${TP_VM_LATER:-s-dm-pool s-dm-thin s-md-topology s-tp-pool s-udev s-snapshots s-send}

run_vm() { # every kernel of TP_VM_KERNELS, or the one in TP_KERNEL_DIR
	local k
	if [ -n "${TP_KERNEL_DIR:-}" ]; then
		run_stage vm "$BUILD" main
		return
	fi
	local first=1
	for k in ${TP_VM_KERNELS:-6.1 6.12}; do
		if [ $first = 1 ] || [ "${TP_VM_FULL:-0}" = 1 ]; then
			TP_KERNEL=$k run_stage vm "$BUILD" main
		else
			TP_KERNEL=$k run_stage vm "$BUILD" main "$VM_LATER"
		fi
		first=0
	done
}

for s in "${stages[@]}"; do
	case $s in
	layers|unit|shell) run_stage "$s" "$BUILD" main ;;
	fuzz) [ -x test/fuzz/replay.sh ] && run_stage fuzz "$BUILD" main ;;
	vm) [ -x test/vm/run.sh ] && run_vm ;;
	*) echo "unknown stage $s"; exit 3 ;;
	esac
done
if [ -n "$SAN_BUILD" ]; then
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=86}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=87}
	export TP_SANITIZE=1
	for s in "${stages[@]}"; do
		case $s in unit|shell|fuzz) run_stage "$s" "$SAN_BUILD" sanitizer ;; esac
	done
fi
echo
# the failures again, last: a CI log shows only its tail
for f in "${failures[@]}"; do
	echo "FAILED $f"
done
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
