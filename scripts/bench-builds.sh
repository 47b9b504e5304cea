#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-builds.sh - two builds of tptools timed in one run, so that a
# change that slows a command down is seen (issue 40: "no silent
# slowdowns"). Sourced by the metadata benchmarks (bench-check.sh), or run
# on its own:
#
#   scripts/bench-builds.sh REV [TOTAL_MAPPINGS] [DEVICES]
#
# builds REV (a commit, tag or branch) beside this tree, generates the
# metadata bench-check.sh uses (tp-metagen, once, cached in build-bench/),
# and times tpcheck, tpdump and tprestore of this tree against REV's,
# interleaved (this, REV, this, REV, ...; RUNS each, default 9), medians,
# ratios. With COUNT=1 it also gives each command's instruction count under
# valgrind's callgrind: repeatable whatever else the machine does, where
# the wall clock of a shared machine is noise.
#
# Functions for the other benchmarks:
#   bb_build REV        -> prints the bin directory of REV's release build
#                          (build-bench/rev-<hash>/, made once: git worktree,
#                          make; the worktree is removed afterwards)
#   bb_compare NAME CMD_THIS -- CMD_REV
#                       -> one line: NAME, median seconds of each, ratio
#                          REV/this (above 1: this tree is faster)
#   bb_icount CMD...    -> the instruction count of one run (callgrind)
set -eu

bb_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BB_RUNS=${RUNS:-9}

bb_build() {
	local rev=$1 hash dir wt
	hash=$(git -C "$bb_root" rev-parse --short=12 "$rev^{commit}") ||
		{ echo "bench-builds: $rev is no commit of this repository" >&2; return 1; }
	dir=$bb_root/build-bench/rev-$hash
	if [ ! -x "$dir/bin/tp" ]; then
		wt=$(mktemp -d)
		git -C "$bb_root" worktree add -q --detach "$wt/src" "$hash" >&2
		# the release flags of the Makefile's default, as this tree's build
		if ! make -C "$wt/src" -s -j"$(nproc)" BUILD="$dir" >"$wt/make.log" 2>&1; then
			echo "bench-builds: building $rev failed; see $wt/make.log" >&2
			git -C "$bb_root" worktree remove --force "$wt/src"
			return 1
		fi
		git -C "$bb_root" worktree remove --force "$wt/src"
		rm -rf "$wt"
	fi
	echo "$dir/bin"
}

# The median of the numbers on standard input.
bb_median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
		else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Seconds one run of CMD... took (its output discarded).
bb_time() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || true
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}

bb_compare() {
	local name=$1 a=() b=() i ta tb ma mb
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	ta=$(mktemp) tb=$(mktemp)
	"${a[@]}" >/dev/null 2>&1 || true	# warm the caches for both
	"${b[@]}" >/dev/null 2>&1 || true
	for ((i = 0; i < BB_RUNS; i++)); do
		bb_time "${a[@]}" >>"$ta"
		bb_time "${b[@]}" >>"$tb"
	done
	ma=$(bb_median <"$ta") mb=$(bb_median <"$tb")
	rm -f "$ta" "$tb"
	awk -v n="$name" -v a="$ma" -v b="$mb" 'BEGIN {
		printf "%-28s this %8.3f s   base %8.3f s   base/this %5.2f\n", n, a, b,
			b / (a > 0.0001 ? a : 0.0001) }'
}

bb_icount() {
	local out
	out=$(mktemp)
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" >/dev/null 2>"$out" || true
	awk '/Collected :/ { print $NF }' "$out"
	rm -f "$out"
}

# ---- run on its own ----
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	[ $# -ge 1 ] || { sed -n '3,26p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
	rev=$1 total=${2:-10000000} devs=${3:-100}
	cd "$bb_root"
	BUILD=${BUILD:-build}
	[ -x "$BUILD/bin/tp" ] && [ -x "$BUILD/test/bin/tp-metagen" ] ||
		make -s -j"$(nproc)" BUILD="$BUILD" tests >/dev/null
	this=$PWD/$BUILD/bin
	base=$(bb_build "$rev")
	mkdir -p build-bench
	img=build-bench/check-$total-$devs.img
	meta_size=$(((total / 40 + 4096) * 4096))
	[ -f "$img" ] || "$BUILD"/test/bin/tp-metagen --out "$img" --meta-size "$meta_size" \
		--devices "$devs" --mappings $((total / devs)) --snapshots $((devs / 4)) \
		--seed 1 --data-blocks $((total * 2)) >/dev/null
	xml=build-bench/builds-$total-$devs.xml
	"$this/tpdump" -q "$img" >"$xml"
	out=build-bench/builds-restore.img
	truncate -s "$(stat -c %s "$img")" "$out"
	echo "this tree ($(git describe --always --dirty)) against $rev, $total mappings," \
		"median of $BB_RUNS interleaved runs:"
	bb_compare "tpcheck" "$this/tpcheck" -q --metadata "$img" -- \
		"$base/tpcheck" -q --metadata "$img"
	bb_compare "tpdump" "$this/tpdump" -q -o /dev/null "$img" -- \
		"$base/tpdump" -q -o /dev/null "$img"
	bb_compare "tprestore" "$this/tprestore" -q -i "$xml" -o "$out" -- \
		"$base/tprestore" -q -i "$xml" -o "$out"
	if [ "${COUNT:-0}" = 1 ]; then
		echo "instructions (callgrind, one run each):"
		for c in "tpcheck -q --metadata $img" "tpdump -q -o /dev/null $img"; do
			set -- $c
			cmd=$1
			shift
			a=$(bb_icount "$this/$cmd" "$@")
			b=$(bb_icount "$base/$cmd" "$@")
			awk -v n="$cmd" -v a="$a" -v b="$b" 'BEGIN {
				printf "%-28s this %14d   base %14d   base/this %6.3f\n", n, a, b, b / a }'
		done
	fi
	rm -f "$xml" "$out"
fi
