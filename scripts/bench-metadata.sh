#!/bin/bash
# bench-metadata.sh - time tpdump and tprestore against thin_dump and
# thin_restore of both generations of thin-provisioning-tools (0.9.0, C++,
# Debian 12; 1.1.0, Rust, Debian 13, set up by scripts/setup-reference.sh)
# on the same inputs, in the same run, and print the ratios of wall time and
# peak memory (RSS). A benchmark, not a test.
#
#   scripts/bench-metadata.sh [-r RUNS] [-s SIZES] [-k]
#     BUILD=dir   build holding bin/tp (default build)
#     -r RUNS     repetitions per measurement, best time / worst RSS kept (3)
#     -s SIZES    blocks per device, comma list; a trailing "s" makes every
#                 run a single block, the most XML per mapping
#                 (default 100000,1000000,100000s)
#     -k          keep the work directory
#     REF110=dir  the 1.1.0 commands (default: what setup-reference.sh prints;
#                 REF110= skips the 1.1.0 columns)
#
# Workloads: 10 devices of SIZE mapped blocks each (test/data/xml/gen.awk:
# runs of 1..64 blocks, 20% single blocks, 30% of runs shared with the
# first device as a snapshot would, holes; or only single blocks). thin_restore writes the
# metadata both dumpers read; both restorers read the same XML and write
# into a fresh sparse file of the same size.
set -eu
cd "$(dirname "$0")/.."
top=$PWD
BUILD=${BUILD:-build}
runs=3 sizes=100000,1000000,100000s keep=0
while getopts "r:s:k" o; do
	case $o in
	r) runs=$OPTARG ;;
	s) sizes=$OPTARG ;;
	k) keep=1 ;;
	*) sed -n '2,/^set/p' "$0" | sed 's/^# \{0,1\}//;/^set/d'; exit 3 ;;
	esac
done
tp=$top/$BUILD/bin/tp
[ -x "$tp" ] || { echo "no $tp: run make first" >&2; exit 2; }
for t in thin_dump thin_restore /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "needs $t" >&2; exit 2; }
done
if [ -z "${REF110+set}" ]; then
	REF110=$(scripts/setup-reference.sh) || { echo "no thin-provisioning-tools 1.1.0" >&2; exit 2; }
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-metadata.XXXXXX")
[ "$keep" = 1 ] && echo "work directory: $work" || trap 'rm -rf "$work"' EXIT

# measure NAME CMD...: run CMD $runs times (output to /dev/null), print
# "best_seconds max_rss_kib"
measure() {
	local best="" rss=0 t m i
	for ((i = 0; i < runs; i++)); do
		[ -n "${PREP:-}" ] && eval "$PREP"
		/usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
			{ cat "$work/err" >&2; echo "failed: $*" >&2; exit 5; }
		read -r t m <"$work/time"
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
		[ "$m" -gt "$rss" ] && rss=$m
	done
	echo "$best $rss"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) b = 0.01; printf "%.2f", a / b }'; }

printf '%-40s %7s %7s %7s %8s %8s %7s %7s %7s\n' workload "0.9.0 s" "1.1.0 s" "tp s" \
	"vs 0.9.0" "vs 1.1.0" "0.9 MiB" "1.1 MiB" "tp MiB"
row() { # row LABEL T09 RSS09 T11 RSS11 TTP RSSTP (1.1.0 fields "-" when not run)
	local v11=- m11=-
	[ "$4" != - ] && v11=$(ratio "$4" "$6")x m11=$(($5 / 1024))
	printf '%-40s %7s %7s %7s %8s %8s %7s %7s %7s\n' "$1" "$2" "$4" "$6" "$(ratio "$2" "$6")x" \
		"$v11" "$(($3 / 1024))" "$m11" "$(($7 / 1024))"
}
# ref110 CMD: the path of 1.1.0's CMD, or "" when the 1.1.0 columns are off
ref110() { [ -n "$REF110" ] && echo "$REF110/$1"; }

IFS=, read -ra list <<<"$sizes"
for spec in "${list[@]}"; do
	n=${spec%s} gen=() kind=""
	[ "$n" != "$spec" ] && gen=(-v single=100 -v share=0) kind=" singles"
	xml=$work/w$spec.xml meta=$work/m$spec.img out=$work/o$spec.img
	awk -v ndev=10 -v blocks="$n" -v seed=7 "${gen[@]}" -f test/data/xml/gen.awk >"$xml"
	# metadata size: thin_metadata_size's rule of thumb, doubled, >= 64 MiB
	mb=$((n * 10 / 126 * 2 * 4096 / 1048576 + 64))
	rm -f "$meta"
	truncate -s "${mb}M" "$meta"
	thin_restore -i "$xml" -o "$meta" >/dev/null
	thin_dump "$meta" >"$work/a.xml"
	"$tp" dump "$meta" >"$work/b.xml"
	cmp -s "$work/a.xml" "$work/b.xml" || echo "WARNING: tpdump and thin_dump differ on 10x$n" >&2
	label="10 x $n$kind ($(( $(stat -c %s "$xml") / 1048576 )) MiB XML)"

	read -r ot om < <(measure thin_dump "$meta")
	rt=- rm=-
	[ -n "$REF110" ] && read -r rt rm < <(measure "$(ref110 thin_dump)" "$meta")
	read -r nt nm < <(measure "$tp" dump "$meta")
	row "dump $label" "$ot" "$om" "$rt" "$rm" "$nt" "$nm"

	PREP="rm -f '$out'; truncate -s ${mb}M '$out'"
	read -r ot om < <(measure thin_restore -i "$xml" -o "$out")
	rt=- rm=-
	[ -n "$REF110" ] && read -r rt rm < <(measure "$(ref110 thin_restore)" -i "$xml" -o "$out")
	read -r nt nm < <(measure "$tp" restore -i "$xml" -o "$out")
	PREP=
	row "restore $label" "$ot" "$om" "$rt" "$rm" "$nt" "$nm"
	thin_dump "$out" | cmp -s - "$xml" || echo "WARNING: tprestore output does not dump back to the XML (10x$n)" >&2
	rm -f "$meta" "$out" "$xml"
done
echo "vs 0.9.0, vs 1.1.0 = that version's time / tptools' time (higher is better for us);"
echo "targets: dump >= 4x 1.1.0 at no more memory; restore >= 1.5x 1.1.0 at <= 1/10 of its memory"
