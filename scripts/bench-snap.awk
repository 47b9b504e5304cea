# SPDX-License-Identifier: GPL-2.0-or-later
# bench-snap.awk - the statistics of one scripts/bench-snap.sh result:
#   awk -F, -f scripts/bench-snap.awk [-v out=table|tsv] CONFIGS.csv RUNS.csv
# CONFIGS.csv: config,chunk_k,zero,offset_k,what; RUNS.csv:
# mode,backing,config,workload,run,mbps (raw = the array slice itself, in
# the first place of each run; raw@first and raw@last: its two places).
# Per configuration and workload: the ratio to raw in each run, median
# [min-max]. Criterion: per workload the best configuration's median; a
# configuration's score is its worst median/best over all workloads, and
# over the workloads that are not after-snapshot (c*) ones. out=table
# (default): a markdown table. out=tsv: lines
#   cell CONFIG WORKLOAD MEDIAN MIN MAX
#   ratio CONFIG WORKLOAD RUN RATIO
#   score CONFIG SCORE SCORE_NO_SNAPSHOT CHUNK_K ZERO OFFSET_K
#   runs N
#   raw WORKLOAD SPREAD     raw's own MB/s over the runs: max/min - 1
#   abs CONFIG WORKLOAD SPREAD   the pool's own MB/s: (max-min)/median
#   place WORKLOAD RATIO    raw@last / raw@first, median over the runs
function median(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
FNR == 1 { next }
FILENAME == ARGV[1] {
	chunk[$1] = $2; zero[$1] = $3; off[$1] = $4; what[$1] = $5
	for (i = 6; i <= NF; i++) what[$1] = what[$1] "," $i
	next
}
$3 ~ /^raw@/ { rw[$3, $4, $5] = $6; next } # raw's two places; "raw" is the first
{
	mb[$3, $4, $5] = $6
	if (!($3 in seen)) { seen[$3] = 1; cfg[++nc] = $3 }
	if (!($4 in wseen)) { wseen[$4] = 1; W[++nw] = $4 }
	if ($5 > runs[$4]) runs[$4] = $5
}
END {
	nr = 0
	for (w = 1; w <= nw; w++) for (c = 1; c <= nc; c++) {
		n = 0; lo = 1e9; hi = 0
		for (r = 1; r <= runs[W[w]]; r++) {
			raw = mb["raw", W[w], r]; v = mb[cfg[c], W[w], r]
			if (raw > 0 && v != "") {
				x[++n] = v / raw; rr[cfg[c], W[w], r] = x[n]
				if (x[n] < lo) lo = x[n]
				if (x[n] > hi) hi = x[n]
			}
		}
		if (!n) continue
		med[cfg[c], W[w]] = median(x, n); mn[cfg[c], W[w]] = lo; mx[cfg[c], W[w]] = hi
		if (n > nr) nr = n
	}
	for (w = 1; w <= nw; w++) {
		best[W[w]] = 0
		for (c = 1; c <= nc; c++) if (cfg[c] != "raw" && med[cfg[c], W[w]] > best[W[w]]) best[W[w]] = med[cfg[c], W[w]]
	}
	for (c = 1; c <= nc; c++) {
		s = 1e9; sf = 1e9
		for (w = 1; w <= nw; w++) {
			if (!((cfg[c], W[w]) in med)) continue
			q = best[W[w]] > 0 ? med[cfg[c], W[w]] / best[W[w]] : 0
			if (q < s) s = q
			if (substr(W[w], 1, 1) != "c" && q < sf) sf = q
		}
		score[cfg[c]] = s; scoref[cfg[c]] = sf
	}
	if (out == "tsv") {
		printf "runs\t%d\n", nr
		for (c = 1; c <= nc; c++) {
			if (cfg[c] == "raw") continue
			for (w = 1; w <= nw; w++) if ((cfg[c], W[w]) in med)
				printf "cell\t%s\t%s\t%.4f\t%.4f\t%.4f\n", cfg[c], W[w], med[cfg[c], W[w]], mn[cfg[c], W[w]], mx[cfg[c], W[w]]
			for (w = 1; w <= nw; w++) for (r = 1; r <= runs[W[w]]; r++) if ((cfg[c], W[w], r) in rr)
				printf "ratio\t%s\t%s\t%d\t%.4f\n", cfg[c], W[w], r, rr[cfg[c], W[w], r]
			for (w = 1; w <= nw; w++) {
				n = 0
				for (r = 1; r <= runs[W[w]]; r++) if (mb[cfg[c], W[w], r] != "") x[++n] = mb[cfg[c], W[w], r]
				if (!n) continue
				lo = x[1]; hi = x[1]
				for (i = 2; i <= n; i++) { if (x[i] < lo) lo = x[i]; if (x[i] > hi) hi = x[i] }
				m = median(x, n)
				if (m > 0) printf "abs\t%s\t%s\t%.4f\n", cfg[c], W[w], (hi - lo) / m
			}
			printf "score\t%s\t%.4f\t%.4f\t%s\t%s\t%s\n", cfg[c], score[cfg[c]], scoref[cfg[c]], chunk[cfg[c]], zero[cfg[c]], off[cfg[c]]
		}
		# raw's own run-to-run spread: max/min MB/s per workload
		for (w = 1; w <= nw; w++) {
			lo = 1e9; hi = 0
			for (r = 1; r <= runs[W[w]]; r++) { v = mb["raw", W[w], r]; if (v != "") { if (v < lo) lo = v; if (v > hi) hi = v } }
			if (hi > 0) printf "raw\t%s\t%.4f\n", W[w], (hi - lo) / lo
		}
		# raw in the last place of a run against the first: median over runs
		for (w = 1; w <= nw; w++) {
			n = 0
			for (r = 1; r <= runs[W[w]]; r++) {
				a = rw["raw@first", W[w], r]; b = rw["raw@last", W[w], r]
				if (a > 0 && b != "") x[++n] = b / a
			}
			if (n) printf "place\t%s\t%.4f\n", W[w], median(x, n)
		}
		exit
	}
	printf "| configuration (%d run%s) | chunk | zeroing | data at |", nr, nr == 1 ? "" : "s"
	for (w = 1; w <= nw; w++) printf " %s |", W[w]
	printf " score | score, no snapshot workloads |\n|---|---|---|---|"
	for (w = 1; w <= nw + 2; w++) printf "---|"
	printf "\n"
	for (c = 1; c <= nc; c++) {
		if (cfg[c] == "raw") continue
		printf "| %s: %s | %sK | %s | %sK |", cfg[c], what[cfg[c]], chunk[cfg[c]], zero[cfg[c]] ? "on" : "off", off[cfg[c]]
		for (w = 1; w <= nw; w++) {
			if (!((cfg[c], W[w]) in med)) { printf " |"; continue }
			printf " %.3f [%.3f-%.3f] |", med[cfg[c], W[w]], mn[cfg[c], W[w]], mx[cfg[c], W[w]]
		}
		printf " %.2f | %.2f |\n", score[cfg[c]], scoref[cfg[c]]
	}
}
