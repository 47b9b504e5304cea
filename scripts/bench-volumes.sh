#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-volumes.sh - every per-volume change and read on pools of many
# volumes against the same on a pool of 3 (issue 40), on image files.
#
#   scripts/bench-volumes.sh [COUNT...]      (default: 0 1000 10000 100000)
#
# For each COUNT a pool of that many volumes is built afresh in
# build-bench/volumes/ (its own TPTOOLS_DIR; COUNT 0 is the base pool of
# 3 volumes; a COUNT at the VG's limit of volumes, 100000, gets one less,
# since the runs add one): tpcreate, then tp-volgen (test/tools/tp-volgen.c),
# which adds them as tvcreate and tvsnap would (a quarter snapshots) in one
# commit. A count the pool's VG area cannot hold is not built, and the
# table says why; when tpcreate offers --vg-area the area is sized for the
# count. Then, in one run, each command is timed against every pool,
# interleaved (run 1 on every pool, run 2 ...; RUNS each, default 9, after
# one warm-up), each change undone untimed after each run so that the
# count stays the same:
#   tvcreate, tvsnap (of vol0), tvremove (of a volume made untimed
#   before), tvrename (vol1, and back), tvresize (vol1 1G -> 2G, and back),
#   tvchange --readonly y (and n), tpchange --warn 81 (and 80);
#   tpstatus POOL, tpstatus POOL/vol0, tpstatus --json POOL,
#   tpstatus --format prometheus POOL (the reads also with their peak
#   memory: /usr/bin/time's maximum resident set size, one more run).
# The table: the pool's volume count, the command, the median seconds, the
# ratio to the 3-volume pool (issue 40's target: <= 2; tpstatus POOL <=
# 0.5 s), the reads' peak RSS.
#
# Knobs (environment):
#   COUNTS="0 1000"   the counts, as the arguments
#   RUNS=9            timed runs per command and pool
#   WARMUP=0          no untimed warm-up run first (for the largest counts,
#                     where one change takes a minute)
#   ONLY="tvcreate status"  only these of the commands: tvcreate tvsnap
#                     tvremove tvrename tvresize tvchange tpchange, and
#                     status status-vol status-json status-prom (the reads)
#   BASE=REV          also time the build of commit REV (scripts/
#                     bench-builds.sh: bb_build), interleaved with this
#                     tree's on the same pools: its median and REV/this
#   COUNT=1           also each command's instruction count (callgrind, one
#                     run: repeatable where the wall clock of a shared
#                     machine is noise), this tree's and REV's
#   PROFILE=CMD       keep a callgrind profile of CMD (e.g. tvcreate) at the
#                     largest count built, and print its top functions
#   DEVICES=1         every timed command names the pool's images
#                     (--devices DATA,META) instead of finding them through
#                     the devices file; the default with BASE, whose devices
#                     file may be of another format
#   FILL=commands     build each pool by one tvcreate or tvsnap per volume
#                     (this tree's; issue 40's acceptance: a pool made by
#                     tvcreate/tvsnap) instead of tp-volgen; slow: every
#                     change reads and writes the whole VG
#   VERIFY=1          check each built pool with the reference checker
#                     ../shared/tools/thinmeta.py refcheck too (tpcheck
#                     always)
# Needs `make tests` (BUILD=build by default).
set -eu
cd "$(dirname "$0")/.."
. scripts/bench-builds.sh	# bb_build, bb_median, bb_icount (sourced: no run of its own)

BUILD=${BUILD:-build}
RUNS=${RUNS:-9}
[ $# -gt 0 ] && COUNTS="$*"
COUNTS=${COUNTS:-0 1000 10000 100000}
ALL="tvcreate tvsnap tvremove tvrename tvresize tvchange tpchange status status-vol status-json status-prom"
ONLY=${ONLY:-$ALL}
READS=" status status-vol status-json status-prom "
[ -x "$BUILD/bin/tp" ] && [ -x "$BUILD/test/bin/tp-volgen" ] ||
	make -s -j2 BUILD="$BUILD" tests >/dev/null
this=$PWD/$BUILD/bin tools=$PWD/$BUILD/test/bin
base=
if [ -n "${BASE:-}" ]; then
	base=$(bb_build "$BASE")
	DEVICES=${DEVICES:-1}
fi
dir=$PWD/build-bench/volumes
rm -rf "$dir"
mkdir -p "$dir/etc"
export TPTOOLS_DIR=$dir/etc	# hermetic: the host's devices file and backups untouched
cd "$dir"

# ---- the pools ----
has_vg_area=0
"$this/tpcreate" --help 2>&1 | grep -q -- "--vg-area" && has_vg_area=1
built=() skipped=()
# fill_commands POOL N: N volumes by one tvcreate or tvsnap each (every
# fourth a snapshot of the volume three before it), as an administrator
# would make them; the seconds of each thousand on standard error
fill_commands() {
	local p=$1 n=$2 i t0=$EPOCHREALTIME
	for ((i = 0; i < n; i++)); do
		if [ $((i % 4)) = 3 ]; then
			"$this/tvsnap" -q -n "vol$i" "$p/vol$((i - 3))" >/dev/null 2>fill.err || return 1
		else
			"$this/tvcreate" -q -V 1G -n "vol$i" "$p" >/dev/null 2>fill.err || return 1
		fi
		if [ $(((i + 1) % 1000)) = 0 ]; then
			echo "fill $p: $((i + 1)) volumes; the last 1,000 took" \
				"$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s" >&2
			t0=$EPOCHREALTIME
		fi
	done
}
max_vols=$(sed -n 's/^#define VG_MAX_VOLUMES \([0-9]*\)u.*/\1/p' "$bb_root/metadata/vg/vg.h")
for n in $COUNTS; do
	vols=$n
	[ "$n" = 0 ] && vols=3
	# the runs add one volume at a time: a pool at the limit gets one less
	[ "$vols" -ge "$max_vols" ] && vols=$((max_vols - 1))
	pool=bv$n
	truncate -s 64G "$pool-data.img"
	truncate -s 1G "$pool-meta.img"
	opt=()
	# two slots of ~104 bytes per volume (today's text), room to spare
	[ $has_vg_area = 1 ] && opt=(--vg-area $(( (vols * 320 + 2 * 1048576) / 1048576 + 1 ))M)
	"$this/tpcreate" -q --data "$pool-data.img" --meta "$pool-meta.img" "${opt[@]}" "$pool" \
		>/dev/null
	t0=$EPOCHREALTIME
	if [ "${FILL:-volgen}" = commands ]; then
		fill_commands "$pool" "$vols" || { skipped+=("$n: $(tail -1 fill.err)"); continue; }
	elif ! "$tools/tp-volgen" --snapshots $((vols / 4)) "$pool" "$vols" 2>volgen.err; then
		skipped+=("$n: $(sed 's/^tp-volgen: error: //' volgen.err | head -1)")
		continue
	fi
	t1=$EPOCHREALTIME
	"$this/tpcheck" -q "$pool" || { echo "bench-volumes: tpcheck finds $pool damaged" >&2; exit 1; }
	if [ "${VERIFY:-0}" = 1 ]; then
		read -r off len < <("$this/tpstatus" --noheadings --nosuffix --units b \
			-o pool_meta_offset,pool_meta_length "$pool")
		dd if="$pool-meta.img" of=area.img bs=1M iflag=skip_bytes,count_bytes skip="$off" \
			count="$len" status=none
		python3 "$bb_root/../shared/tools/thinmeta.py" refcheck area.img | tail -1 |
			grep -q "^refcheck: 0 errors" ||
			{ echo "bench-volumes: thinmeta.py refcheck finds $pool wrong" >&2; exit 1; }
		rm -f area.img
	fi
	echo "built $pool: $vols volumes ($((vols / 4)) snapshots) in" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s," \
		"VG text $("$tools/tp-vgtool" text "$pool-data.img" | wc -c) bytes"
	built+=("$n")
done
[ ${#built[@]} -gt 0 ] || { echo "bench-volumes: no pool could be built" >&2; exit 1; }

# ---- the commands ----
# op_cmd OP BIN POOL: the timed command into CMD
op_cmd() {
	local b=$2 p=$3 d=()
	[ "${DEVICES:-}" = 1 ] && d=(--devices "$dir/$p-data.img,$dir/$p-meta.img")
	case $1 in
	tvcreate) CMD=("$b/tvcreate" "${d[@]}" -V 1G -n bench "$p") ;;
	tvsnap) CMD=("$b/tvsnap" "${d[@]}" -n bench "$p/vol0") ;;
	tvremove) CMD=("$b/tvremove" "${d[@]}" -y "$p/bench") ;;
	tvrename) CMD=("$b/tvrename" "${d[@]}" "$p/vol1" bench) ;;
	tvresize) CMD=("$b/tvresize" "${d[@]}" -V 2G "$p/vol1") ;;
	tvchange) CMD=("$b/tvchange" "${d[@]}" --readonly y "$p/vol1") ;;
	tpchange) CMD=("$b/tpchange" "${d[@]}" --warn 81 "$p") ;;
	status) CMD=("$b/tpstatus" "${d[@]}" "$p") ;;
	status-vol) CMD=("$b/tpstatus" "${d[@]}" "$p/vol0") ;;
	status-json) CMD=("$b/tpstatus" "${d[@]}" --json "$p") ;;
	status-prom) CMD=("$b/tpstatus" "${d[@]}" --format prometheus "$p") ;;
	*) echo "bench-volumes: no command $1 (one of: $ALL)" >&2; exit 2 ;;
	esac
}
# before / after each timed run, untimed, by this tree's build
prep_op() {
	case $1 in
	tvremove) "$this/tvcreate" -V 1G -n bench "$2" ;;
	esac
}
undo_op() {
	case $1 in
	tvcreate | tvsnap) "$this/tvremove" -y "$2/bench" ;;
	tvrename) "$this/tvrename" "$2/bench" vol1 ;;
	tvresize) "$this/tvresize" -V 1G "$2/vol1" ;;
	tvchange) "$this/tvchange" --readonly n "$2/vol1" ;;
	tpchange) "$this/tpchange" --warn 80 "$2" ;;
	esac
}
label() {
	case $1 in
	status) echo "tpstatus POOL" ;;
	status-vol) echo "tpstatus POOL/VOL" ;;
	status-json) echo "tpstatus --json" ;;
	status-prom) echo "tpstatus -f prometheus" ;;
	tvchange) echo "tvchange --readonly" ;;
	tpchange) echo "tpchange --warn" ;;
	*) echo "$1" ;;
	esac
}
# sample OP BIN POOL FILE: one prepared, timed and undone run, its seconds
# appended to FILE ("fail", and the errors shown, when the command fails)
sample() {
	local t0 t1 rc=0
	prep_op "$1" "$3" >/dev/null 2>prep.err || { cat prep.err >&2; exit 1; }
	op_cmd "$1" "$2" "$3"
	t0=$EPOCHREALTIME
	"${CMD[@]}" >/dev/null 2>op.err || rc=$?
	t1=$EPOCHREALTIME
	if [ $rc != 0 ]; then
		echo "bench-volumes: '$(label "$1")' on $3 exited $rc:" >&2
		sed 's/^/    /' op.err >&2
		echo fail >>"$4"
	else
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.5f\n", b - a }' >>"$4"
	fi
	undo_op "$1" "$3" >/dev/null 2>undo.err ||
		{ echo "bench-volumes: undoing '$(label "$1")' on $3 failed:" >&2; cat undo.err >&2;
		  exit 1; }
}
median() { # FILE: the median, or "fail" when a run failed
	if grep -q fail "$1"; then echo fail; else bb_median <"$1"; fi
}
builds=(this)
[ -n "$base" ] && builds+=(base)
bin_of() { if [ "$1" = base ]; then echo "$base"; else echo "$this"; fi; }
vols_of() { "$this/tpstatus" --noheadings -o pool_volumes "bv$1" | awk 'NF { print $1; exit }'; }
declare -A before ic
for n in "${built[@]}"; do before[$n]=$(vols_of "$n"); done

for op in $ONLY; do op_cmd "$op" x y; done	# a name that is no command stops here
echo "timing: $RUNS runs each, interleaved over the pools${base:+ and the two builds}" \
	"$([ "${WARMUP:-1}" = 0 ] && echo "(no warm-up)" || echo "after one warm-up")..."
for op in $ONLY; do
	for n in "${built[@]}"; do
		for b in "${builds[@]}"; do
			: >"t.$op.$n.$b"
			[ "${WARMUP:-1}" = 0 ] || sample "$op" "$(bin_of "$b")" "bv$n" /dev/null
		done
	done
	for ((i = 0; i < RUNS; i++)); do
		for n in "${built[@]}"; do
			for b in "${builds[@]}"; do
				sample "$op" "$(bin_of "$b")" "bv$n" "t.$op.$n.$b"
			done
		done
	done
	case $READS in
	*" $op "*)
		for n in "${built[@]}"; do
			for b in "${builds[@]}"; do
				op_cmd "$op" "$(bin_of "$b")" "bv$n"
				/usr/bin/time -o rss -f %M "${CMD[@]}" >/dev/null 2>&1 || true
				tail -1 rss >"m.$op.$n.$b"
			done
		done ;;
	esac
done
for n in "${built[@]}"; do
	[ "$(vols_of "$n")" = "${before[$n]}" ] ||
		echo "bench-volumes: WARNING: bv$n has $(vols_of "$n") volumes, not ${before[$n]}" >&2
done

# ---- the table ----
b0=${built[0]}
echo
echo "$(date -u '+%F %H:%M') UTC, $(git -C "$bb_root" describe --always --dirty)," \
	"median of $RUNS${base:+, base $BASE}$([ "${DEVICES:-}" = 1 ] && echo ", --devices"); ratio: to the pool of" \
	"${before[$b0]} volumes"
printf '%8s  %-22s %9s %7s %10s' volumes command "median s" ratio "max RSS K"
[ -n "$base" ] && printf ' %9s %9s' "base s" base/this
echo
for op in $ONLY; do
	m0=$(median "t.$op.$b0.this")
	for n in "${built[@]}"; do
		m=$(median "t.$op.$n.this")
		rss=-
		[ -f "m.$op.$n.this" ] && rss=$(cat "m.$op.$n.this")
		printf '%8s  %-22s %9s %7s %10s' "${before[$n]}" "$(label "$op")" "$m" \
			"$(awk -v a="$m" -v z="$m0" 'BEGIN { if (a == "fail" || z == "fail") print "-";
				else printf "%.2f", a / (z > 0.00001 ? z : 0.00001) }')" "$rss"
		if [ -n "$base" ]; then
			mb=$(median "t.$op.$n.base")
			printf ' %9s %9s' "$mb" "$(awk -v a="$m" -v b="$mb" 'BEGIN {
				if (a == "fail" || b == "fail") print "-"; else printf "%.2f", b / a }')"
		fi
		echo
	done
done
if [ ${#skipped[@]} -gt 0 ]; then
	echo "not built:"
	printf '  %s\n' "${skipped[@]}"
fi

# ---- instructions ----
if [ "${COUNT:-0}" = 1 ]; then
	echo
	echo "instructions (callgrind, one run each):"
	printf '%8s  %-22s %14s' volumes command this
	[ -n "$base" ] && printf ' %14s %9s' base base/this
	echo
	for op in $ONLY; do
		for n in "${built[@]}"; do
			printf '%8s  %-22s' "${before[$n]}" "$(label "$op")"
			for b in "${builds[@]}"; do
				prep_op "$op" "bv$n" >/dev/null 2>&1
				op_cmd "$op" "$(bin_of "$b")" "bv$n"
				ic[$b]=$(bb_icount "${CMD[@]}")
				undo_op "$op" "bv$n" >/dev/null 2>&1
			done
			printf ' %14s' "${ic[this]}"
			[ -n "$base" ] && printf ' %14s %9s' "${ic[base]}" \
				"$(awk -v a="${ic[this]}" -v b="${ic[base]}" 'BEGIN { printf "%.3f", b / a }')"
			echo
		done
	done
fi

# ---- a profile ----
if [ -n "${PROFILE:-}" ]; then
	n=${built[${#built[@]} - 1]}
	out=$dir/callgrind.$PROFILE.$n
	prep_op "$PROFILE" "bv$n" >/dev/null 2>&1
	op_cmd "$PROFILE" "$this" "bv$n"
	valgrind --tool=callgrind --callgrind-out-file="$out" "${CMD[@]}" >/dev/null 2>&1 || true
	undo_op "$PROFILE" "bv$n" >/dev/null 2>&1
	echo
	echo "callgrind profile of '$(label "$PROFILE")' at ${before[$n]} volumes: $out"
	echo "inclusive, tptools' own functions (callgrind_annotate --inclusive=yes):"
	callgrind_annotate --inclusive=yes "$out" 2>/dev/null | grep "^ *[0-9,]* (" |
		grep -F "$bb_root/" | sed "s|$bb_root/||; s| \[.*||" | awk '!seen[$0]++' |
		grep -v 'tp\.c:main\|commands\.c:tp_main' | head -25
	echo "self, the top 15 (libdevmapper and libc included):"
	callgrind_annotate "$out" 2>/dev/null | sed -n '/file:function/,$p' | sed -n '3,17p' |
		sed "s|$bb_root/||; s| \[.*||"
fi
