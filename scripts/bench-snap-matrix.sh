#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-snap-matrix.sh - the summary of scripts/bench-snap.sh results over
# several geometries (issue 14): per array the criterion score of what
# tpcreate's profiles pick next to LVM's default and "performance"
# configurations, the fresh-write comparison against the LVM pools with
# the measured repeat spread, and the spread of each result set.
#
#   scripts/bench-snap-matrix.sh [TAG...]    # TAG = GEOM-MODE-BACKING
#
# Without TAGs: every bench/snap-GEOM-MODE-BACKING-configs.csv of the five
# arrays. A result set whose bench/snap-TAG.md header lacks PRETOUCH=1 ran
# before the slices were pre-written at set-up and is labelled "before
# PRETOUCH" ("(old)" in the plot). Writes bench/snap-matrix.md
# (also printed) and, with gnuplot, bench/snap-matrix.png
# (scripts/plot-snap-matrix.gp). Settings: OUT (bench).
set -eu
cd "$(dirname "$0")/.."
OUT=${OUT:-bench}
tags=("$@")
if [ ${#tags[@]} = 0 ]; then
	# the issue's order of arrays, deterministic mode first
	for m in icount-ram wallclock-ram icount-disk wallclock-disk; do
		for g in r6x7-512k r6x6-512k r6x12-64k r5x5-512k disk; do
			[ -e "$OUT/snap-$g-$m-configs.csv" ] && tags+=("$g-$m")
		done
	done
fi
[ ${#tags[@]} -gt 0 ] || { echo "bench-snap-matrix: no results in $OUT (run scripts/bench-snap.sh)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in "${tags[@]}"; do
	[ -f "$OUT/snap-$t-runs.csv" ] || { echo "bench-snap-matrix: no $OUT/snap-$t-runs.csv"; exit 1; }
	# result sets whose header lacks PRETOUCH=1 predate the pre-write at set-up
	grep -qs 'PRETOUCH=1' "$OUT/snap-$t.md" && lab=$t || lab="$t (before PRETOUCH)"
	awk -F, -v out=tsv -f scripts/bench-snap.awk "$OUT/snap-$t-configs.csv" "$OUT/snap-$t-runs.csv" |
		sed "s/^/$lab\t/"
done >"$tmp/all.tsv"

# TAG KIND ...: runs N | cell CFG W MED MIN MAX | score CFG S SF CHUNK ZERO OFF | raw W SPREAD
awk -F'\t' -v dat="$tmp/scores.dat" -v datf="$tmp/scores-fresh.dat" '
function cfgname(t, c) { return (t, c) in ch ? sprintf("%sK %s", ch[t, c], zr[t, c] ? "on" : "off") : "-" }
function sc(t, c) { return (t, c) in s ? sprintf("%s: **%.2f** / %.2f", cfgname(t, c), s[t, c], sf[t, c]) : "-" }
function spread(t, c, w) { return med[t, c, w] > 0 ? (mx[t, c, w] - mn[t, c, w]) / med[t, c, w] : 0 }
{
	t = $1
	if (!(t in seen)) { seen[t] = 1; T[++nt] = t }
	if ($2 == "runs") runs[t] = $3
	else if ($2 == "cell") {
		med[t, $3, $4] = $5; mn[t, $3, $4] = $6; mx[t, $3, $4] = $7
		if (!((t, $4) in wseen)) { wseen[t, $4] = 1; W[t, ++nw[t]] = $4 }
		if (!((t, $3) in cseen)) { cseen[t, $3] = 1; C[t, ++nc[t]] = $3 }
	} else if ($2 == "score") { s[t, $3] = $4; sf[t, $3] = $5; ch[t, $3] = $6; zr[t, $3] = $7; of[t, $3] = $8 }
	else if ($2 == "raw") { if ($4 > rawsp[t]) rawsp[t] = $4 }
	else if ($2 == "place") { pl[t, ++npl[t]] = $4 }
	else if ($2 == "abs") { ab[t, ++nab[t]] = $5; if ($5 > abbig[t]) { abbig[t] = $5; abwhere[t] = $3 " " $4 } }
	else if ($2 == "ratio") { rv[t, $3, $4, $5] = $6; if ($5 > nrun[t, $4]) nrun[t, $4] = $5 }
}
END {
	print "### The pools compared\n"
	print "Chunk, zeroing, data offset from the start of the data device (stripe-aligned slice).\n"
	print "| array | balanced (default) | throughput | snapshots | LVM default | LVM performance |"
	print "|---|---|---|---|---|---|"
	for (i = 1; i <= nt; i++) {
		t = T[i]; line = "| " t " |"
		n = split("balanced throughput snapshots lvm lvmperf", P, " ")
		for (k = 1; k <= n; k++) line = line (((t, P[k]) in ch) ? sprintf(" %s, data at %sK |", cfgname(t, P[k]), of[t, P[k]]) : " - |")
		print line
	}
	print ""
	print "### Criterion score per array\n"
	print "Score = the worst ratio, over the workloads, of a configuration to the best configuration of"
	print "that workload (higher is better); **with the after-snapshot workloads** / without them."
	print "Chunk and zeroing in front. \"best\" = the highest score among all pools measured on that array.\n"
	print "| array (mode, backing, runs) | balanced (default) | throughput | snapshots | LVM default | LVM performance | best measured |"
	print "|---|---|---|---|---|---|---|"
	printf "array balanced throughput snapshots lvm lvmperf\n" >dat
	printf "array balanced throughput snapshots lvm lvmperf\n" >datf
	for (i = 1; i <= nt; i++) {
		t = T[i]; b = ""; bs = -1
		for (j = 1; j <= nc[t]; j++) if (s[t, C[t, j]] > bs) { bs = s[t, C[t, j]]; b = C[t, j] }
		printf "| %s (%d runs) | %s | %s | %s | %s | %s | %s (%s) %.2f |\n", t, runs[t], sc(t, "balanced"), sc(t, "throughput"),
			sc(t, "snapshots"), sc(t, "lvm"), sc(t, "lvmperf"), b, cfgname(t, b), bs
		xt = t; sub(/ \(before PRETOUCH\)/, "(old)", xt)
		printf "%s", xt >dat; printf "%s", xt >datf
		n = split("balanced throughput snapshots lvm lvmperf", P, " ")
		for (k = 1; k <= n; k++) { printf " %s", ((t, P[k]) in s) ? s[t, P[k]] : "NaN" >dat; printf " %s", ((t, P[k]) in sf) ? sf[t, P[k]] : "NaN" >datf }
		printf "\n" >dat; printf "\n" >datf
	}
	print "\n### Fresh writes: the default against the LVM pools\n"
	print "Median ratio to the raw array; spread = the larger (max-min)/median of the two cells compared."
	print "\"loses by more than the spread\" is the acceptance test of issue 14.\n"
	print "balanced/LVM per run: the two pools in the same fio run (so the raw array\x27s own run-to-run"
	print "change cancels), min-max over the runs.\n"
	print "| array | workload | balanced | LVM default | spread | balanced/LVM per run | LVM performance | spread | balanced/LVM perf per run | loses by more than the spread? |"
	print "|---|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= nt; i++) {
		t = T[i]
		for (j = 1; j <= nw[t]; j++) {
			w = W[t, j]
			if (substr(w, 1, 1) != "f" || !((t, "balanced", w) in med)) continue
			verdict = "no"
			line = sprintf("| %s | %s | %.3f |", t, w, med[t, "balanced", w])
			n = split("lvm lvmperf", L, " ")
			for (k = 1; k <= n; k++) {
				l = L[k]
				if (!((t, l, w) in med)) { line = line " - | - | - |"; continue }
				sp = spread(t, "balanced", w); if (spread(t, l, w) > sp) sp = spread(t, l, w)
				loss = med[t, l, w] > 0 ? 1 - med[t, "balanced", w] / med[t, l, w] : 0
				qlo = 1e9; qhi = 0
				for (r = 1; r <= nrun[t, w]; r++) if ((t, l, w, r) in rv && (t, "balanced", w, r) in rv && rv[t, l, w, r] > 0) {
					q = rv[t, "balanced", w, r] / rv[t, l, w, r]
					if (q < qlo) qlo = q
					if (q > qhi) qhi = q
				}
				line = line sprintf(" %.3f | %.1f%% | %.2f-%.2f |", med[t, l, w], 100 * sp, qlo, qhi)
				if (loss > sp) verdict = sprintf("**YES** (%.1f%% below %s)", 100 * loss, l)
			}
			print line " " verdict " |"
		}
	}
	print "\n### Repeat spread\n"
	print "Per result set: (max-min)/median of the ratio over the runs, for every pool and workload (median"
	print "and largest); the same for the pools\x27 own MB/s, without the raw slice; and the largest"
	print "run-to-run change of the raw array itself (MB/s, max/min-1); where raw was measured at both"
	print "ends of each run, raw at the end against raw at the start (median over the workloads, and the"
	print "lowest): what a job\x27s place in the run costs it.\n"
	print "| array (mode, backing) | runs | median cell spread | largest cell spread (where) | pools\x27 MB/s: median spread | pools\x27 MB/s: largest (where) | raw array, largest change | raw last/first place |"
	print "|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= nt; i++) {
		t = T[i]; n = 0; big = 0; where = ""
		for (j = 1; j <= nc[t]; j++) for (k = 1; k <= nw[t]; k++) {
			c = C[t, j]; w = W[t, k]
			if (!((t, c, w) in med)) continue
			x[++n] = spread(t, c, w)
			if (x[n] > big) { big = x[n]; where = c " " w }
		}
		for (a = 1; a <= n; a++) for (b2 = a + 1; b2 <= n; b2++) if (x[b2] < x[a]) { y = x[a]; x[a] = x[b2]; x[b2] = y }
		m = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
		na = nab[t]
		for (a = 1; a <= na; a++) z[a] = ab[t, a]
		for (a = 1; a <= na; a++) for (b2 = a + 1; b2 <= na; b2++) if (z[b2] < z[a]) { y = z[a]; z[a] = z[b2]; z[b2] = y }
		am = !na ? 0 : na % 2 ? z[(na + 1) / 2] : (z[na / 2] + z[na / 2 + 1]) / 2
		np = npl[t]; pm = "-"
		for (a = 1; a <= np; a++) z[a] = pl[t, a]
		for (a = 1; a <= np; a++) for (b2 = a + 1; b2 <= np; b2++) if (z[b2] < z[a]) { y = z[a]; z[a] = z[b2]; z[b2] = y }
		if (np) pm = sprintf("%.3f (lowest %.3f)", np % 2 ? z[(np + 1) / 2] : (z[np / 2] + z[np / 2 + 1]) / 2, z[1])
		printf "| %s | %d | %.1f%% | %.1f%% (%s) | %.1f%% | %.1f%% (%s) | %.1f%% | %s |\n", t, runs[t], 100 * m, 100 * big, where,
			100 * am, 100 * abbig[t], abwhere[t], 100 * rawsp[t], pm
	}
}' "$tmp/all.tsv" >"$tmp/summary.md"
{
	echo "# bench-snap matrix"
	echo
	echo "Summary of scripts/bench-snap.sh results (made by scripts/bench-snap-matrix.sh on $(date -u +%F));"
	echo "the full tables are bench/snap-TAG.md, TAG = GEOM-MODE-BACKING."
	echo
	cat "$tmp/summary.md"
} | tee "$OUT/snap-matrix.md"
if command -v gnuplot >/dev/null; then
	gnuplot -c scripts/plot-snap-matrix.gp "$tmp/scores.dat" "$tmp/scores-fresh.dat" "$OUT/snap-matrix.png" ||
		echo "bench-snap-matrix: gnuplot failed"
else
	echo "bench-snap-matrix: gnuplot is not installed: no plot"
fi
