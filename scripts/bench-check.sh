#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-check.sh - tpcheck vs thin_check of both generations of
# thin-provisioning-tools (0.9.0 from Debian 12; 1.1.0 from Debian 13, set up
# by scripts/setup-reference.sh; REF110= skips it) on the same metadata, in
# the same run: wall time, CPU time (user + system, all threads) and peak
# RSS of each, ratios, and tpcheck --fast; then tpdump against thin_dump
# 1.1.0 (the XML to /dev/null) and tprestore against thin_restore 1.1.0 (that
# XML into a metadata file of the same size), each pair in the same run
# (DUMP=0 leaves them out). BASE=REV also times tpcheck and tpdump of this
# tree against the build of commit REV, interleaved, median of 9
# (scripts/bench-builds.sh), so that a slowdown between two builds shows.
#
#   scripts/bench-check.sh [TOTAL_MAPPINGS] [DEVICES]   (default 10000000 100)
#
# The metadata (tp-metagen: DEVICES devices, TOTAL/DEVICES mappings each,
# DEVICES/4 snapshots with overwrites) is generated once into
# build-bench/check-N.img and reused. Targets: 5x faster, no more memory,
# --fast under 1 s; tpcheck, tpdump and tprestore at least 5x faster than
# 1.1.0 at no more memory (issue 26).
# Needs `make tests` (BUILD=build by default).
set -eu
cd "$(dirname "$0")/.."
total=${1:-10000000}
devs=${2:-100}
BUILD=${BUILD:-build}
dir=build-bench
if [ -z "${REF110+set}" ]; then
	REF110=$(scripts/setup-reference.sh) || { echo "no thin-provisioning-tools 1.1.0" >&2; exit 2; }
fi
mkdir -p $dir
img=$dir/check-$total-$devs.img
meta_size=$(( (total / 40 + 4096) * 4096 ))	# ~ 4 KiB per 40 mappings, plus room
[ $meta_size -le $((16 * 1024 * 1024 * 1024)) ] || meta_size=$((16 * 1024 * 1024 * 1024))
if [ ! -f "$img" ]; then
	echo "generating $total mappings over $devs devices (once)..."
	"$BUILD"/test/bin/tp-metagen --out "$img" --meta-size "$meta_size" --devices "$devs" \
		--mappings $((total / devs)) --snapshots $((devs / 4)) --seed 1 \
		--data-blocks $((total * 2))
fi
measure() { # cmd... -> "seconds rss_kb cpu_seconds", the fastest of 3 runs (the machine is shared)
	local best="" _ s kb u k
	for _ in 1 2 3; do
		/usr/bin/time -o $dir/time.out -f '%e %M %U %S' "$@" >/dev/null 2>&1 || true
		read -r s kb u k <$dir/time.out
		if [ -z "$best" ] || awk -v a="$s" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
			best="$s $kb $(awk -v u="$u" -v k="$k" 'BEGIN { printf "%.2f", u + k }')"
		fi
	done
	echo "$best"
}
# warm the page cache so both read from memory
cat "$img" >/dev/null
read -r tc_s tc_kb tc_cpu < <(measure thin_check "$img")
r11_s=- r11_kb=- r11_cpu=-
[ -n "$REF110" ] && read -r r11_s r11_kb r11_cpu < <(measure "$REF110/thin_check" "$img")
read -r tp_s tp_kb tp_cpu < <(measure "$BUILD"/bin/tpcheck -q --metadata "$img")
read -r fast_s fast_kb fast_cpu < <(measure "$BUILD"/bin/tpcheck -q --fast --metadata "$img")
printf '%-22s %10s %10s %12s\n' "" "wall s" "CPU s" "peak RSS KiB"
printf '%-22s %10s %10s %12s\n' "thin_check 0.9.0" "$tc_s" "$tc_cpu" "$tc_kb"
printf '%-22s %10s %10s %12s\n' "thin_check 1.1.0" "$r11_s" "$r11_cpu" "$r11_kb"
printf '%-22s %10s %10s %12s\n' "tpcheck" "$tp_s" "$tp_cpu" "$tp_kb"
printf '%-22s %10s %10s %12s\n' "tpcheck --fast" "$fast_s" "$fast_cpu" "$fast_kb"
awk -v a="$tc_s" -v b="$tp_s" -v c="$tc_kb" -v d="$tp_kb" 'BEGIN {
	printf "speed-up (thin_check / tpcheck): %.2fx (target >= 5)\n", a / (b > 0.01 ? b : 0.01)
	printf "memory (tpcheck / thin_check):   %.2f (target <= 1)\n", (c > 0 ? d / c : 0) }'
[ "$r11_s" = - ] || awk -v a="$r11_s" -v b="$tp_s" -v c="$r11_kb" -v d="$tp_kb" 'BEGIN {
	printf "speed-up (thin_check 1.1.0 / tpcheck): %.2fx (target >= 5)\n", a / (b > 0.01 ? b : 0.01)
	printf "memory (tpcheck / thin_check 1.1.0):   %.2f (target <= 1)\n", (c > 0 ? d / c : 0) }'
[ "$r11_s" = - ] || awk -v a="$r11_cpu" -v b="$tp_cpu" 'BEGIN {
	printf "CPU time (thin_check 1.1.0 / tpcheck): %.2fx (of the fastest runs)\n", a / (b > 0.01 ? b : 0.01) }'

if [ -n "${BASE:-}" ]; then
	. scripts/bench-builds.sh
	base=$(bb_build "$BASE")
	echo "this tree against $BASE, median of $BB_RUNS interleaved runs:"
	bb_compare "tpcheck" "$BUILD"/bin/tpcheck -q --metadata "$img" -- \
		"$base"/tpcheck -q --metadata "$img"
	bb_compare "tpdump" "$BUILD"/bin/tpdump -q -o /dev/null "$img" -- \
		"$base"/tpdump -q -o /dev/null "$img"
fi
[ "${DUMP:-1}" = 1 ] && [ -n "$REF110" ] || exit 0
# ---- tpdump / thin_dump 1.1.0, tprestore / thin_restore 1.1.0 ----
xml=$dir/check-$total-$devs.xml
[ -s "$xml" ] || "$REF110/thin_dump" "$img" >"$xml"
cat "$xml" >/dev/null
out=$dir/restore-$total-$devs.img
rm -f "$out"
truncate -s "$(stat -c %s "$img")" "$out"
read -r d11_s d11_kb d11_cpu < <(measure "$REF110/thin_dump" "$img")
read -r dtp_s dtp_kb dtp_cpu < <(measure "$BUILD"/bin/tpdump -q "$img")
read -r r11_s r11_kb r11_cpu < <(measure "$REF110/thin_restore" -q -i "$xml" -o "$out")
read -r rtp_s rtp_kb rtp_cpu < <(measure "$BUILD"/bin/tprestore -q -i "$xml" -o "$out")
# (1.1.0's XML shares runs in <def> sections: compare tpdump of both images)
cmp -s <("$BUILD"/bin/tpdump -q "$out") <("$BUILD"/bin/tpdump -q "$img") ||
	echo "bench-check: WARNING: tprestore's metadata does not dump as the original does"
"$BUILD"/bin/tpcheck -q --metadata "$out" ||
	echo "bench-check: WARNING: tpcheck finds tprestore's metadata damaged"
"$REF110/thin_check" -q "$out" ||
	echo "bench-check: WARNING: thin_check 1.1.0 finds tprestore's metadata damaged"
rm -f "$out"
printf '%-22s %10s %10s %12s\n' "" "wall s" "CPU s" "peak RSS KiB"
printf '%-22s %10s %10s %12s\n' "thin_dump 1.1.0" "$d11_s" "$d11_cpu" "$d11_kb"
printf '%-22s %10s %10s %12s\n' "tpdump" "$dtp_s" "$dtp_cpu" "$dtp_kb"
printf '%-22s %10s %10s %12s\n' "thin_restore 1.1.0" "$r11_s" "$r11_cpu" "$r11_kb"
printf '%-22s %10s %10s %12s\n' "tprestore" "$rtp_s" "$rtp_cpu" "$rtp_kb"
ratio() { # NAME REF_S OURS_S REF_KB OURS_KB
	awk -v n="$1" -v a="$2" -v b="$3" -v c="$4" -v d="$5" 'BEGIN {
		printf "speed-up (%s): %.2fx (target >= 5); memory: %.2f (target <= 1)\n", n,
			a / (b > 0.01 ? b : 0.01), (c > 0 ? d / c : 0) }'
}
ratio "thin_dump 1.1.0 / tpdump" "$d11_s" "$dtp_s" "$d11_kb" "$dtp_kb"
ratio "thin_restore 1.1.0 / tprestore" "$r11_s" "$rtp_s" "$r11_kb" "$rtp_kb"
