#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-throughput.sh - throughput of thin volumes against the raw device,
# on the real kernel (issue 7). Boots Debian's kernel under QEMU (one vCPU)
# through test/vm/run.sh and runs scripts/bench-throughput-guest.sh there:
# brd ramdisks as md RAID6/RAID5 arrays and as a plain disk, measured with
# fio raw, through dm linear, and through thin pools: tptools' whole-stripe
# policy (--profile throughput, the default before issue 14), LVM's defaults (64K chunk, zeroing on, data at
# 1 MiB) and the field report's 1 MiB chunk with zeroing.
#
#   scripts/bench-throughput.sh            # the full run (~25 min on 2 cores)
#   QUICK=1 scripts/bench-throughput.sh    # a few-minute smoke run
#
# The after-snapshot matrix in steady state, every profile and LVM's
# configurations, and the deterministic -icount mode: scripts/bench-snap.sh.
#
# Every figure is a ratio to the raw device in the same boot; each case is
# run RUNS times (3) and reported as median [min-max] of the per-run ratios
# (a configuration's figure over the raw device's in the same fio invocation). Output in OUT (bench/, QUICK: $BUILD/bench-quick):
#   throughput-runs.csv   every run: target,config,workload,run,mbps
#   throughput.csv        target,config,workload,runs,mbps,ratio,ratio_min,ratio_max
#   throughput.md         the table (markdown), also printed
#   throughput-<target>.png  ratio per block size and configuration
# Settings: BUILD (build), RUNS (3), RT (seconds per fio job, 1), TARGETS
# (r6x7-512k r6x6-512k r6x7-64k r5x5-512k plain), TP_VM_MEM (3584),
# LIMIT (seconds for the whole script, 1800: the guest starts no run past
# what is left of it after the build, and reports the rest as skipped; 0: none),
# WORKLOADS and BENCH_CONFIGS (override the lists, for experiments),
# FROM=DIR (no VM: tables and plots from DIR/runs.csv of an earlier run).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
	OUT=${OUT:-$BUILD/bench-quick}
	RUNS=${RUNS:-2}
else
	OUT=${OUT:-bench}
	RUNS=${RUNS:-3}
fi
RT=${RT:-1}
LIMIT=${LIMIT:-1800}
t0=$(date +%s)

if [ -n "${FROM:-}" ]; then
	# tables and plots again from an earlier run's guest output
	VMOUT=$FROM
	mkdir -p "$OUT"
else
	echo "bench: building ($BUILD)"
	make -s -j"$(nproc)" BUILD="$BUILD" tests >/dev/null

	BUDGET=0
	# what is left after the build, less boot, ramdisk set-up and the tables
	[ "$LIMIT" -gt 0 ] && BUDGET=$((LIMIT - ($(date +%s) - t0) - 150))
	[ "$LIMIT" -gt 0 ] && [ "$BUDGET" -lt 60 ] && BUDGET=60
	VMOUT=$BUILD/bench-vm
	rm -rf "$VMOUT"
	mkdir -p "$VMOUT" "$OUT"
	{
		echo "QUICK=$QUICK RUNS=$RUNS RT=$RT BUDGET=$BUDGET"
		[ -n "${TARGETS:-}" ] && echo "TARGETS='$TARGETS'"
		[ -n "${WORKLOADS:-}" ] && echo "WORKLOADS='$WORKLOADS'"
		[ -n "${BENCH_CONFIGS:-}" ] && echo "CONFIGS='$BENCH_CONFIGS'"
		true
	} >"$VMOUT/bench.conf"
	vm_timeout=${TP_VM_TIMEOUT:-2400}
	TP_VM_OUT=$VMOUT TP_VM_MEM=${TP_VM_MEM:-3584} TP_VM_DISKS=1 TP_VM_DISK_SIZE=8M \
		TP_VM_TIMEOUT=$vm_timeout TP_VM_SCENARIO_TIMEOUT=$vm_timeout \
		BUILD=$BUILD test/vm/run.sh scripts/bench-throughput-guest.sh || vmrc=$?
	[ -s "$VMOUT/runs.csv" ] || { echo "bench: no results from the VM"; exit 1; }
	[ "${vmrc:-0}" = 0 ] || echo "bench: WARNING: the guest part reported failures (see above); partial results follow"
fi
cp "$VMOUT/runs.csv" "$OUT/throughput-runs.csv"
rm -f "$OUT/throughput-skipped.csv"
if [ -s "$VMOUT/skipped.csv" ]; then
	cp "$VMOUT/skipped.csv" "$OUT/throughput-skipped.csv"
	echo "bench: $(wc -l <"$VMOUT/skipped.csv") run(s) or target(s) skipped past the time budget (LIMIT=${LIMIT}s): $OUT/throughput-skipped.csv"
fi

# ---- ratios: each run's figure over the raw device's in the same run (the
# same fio invocation, seconds apart); median and min-max over the runs
CONFIGS="linear tp-fresh tp-prov tp-snap lvm-fresh lvm-prov field-fresh field-prov"
awk -F, '
function median(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
NR == 1 { next }
{
	k = $1 SUBSEP $2 SUBSEP $3
	if (!(k in runs)) order[++nk] = k
	runs[k] = runs[k] " " $5
	ratio[k] = ratio[k] " " $4 ":" $5
	if ($2 == "raw") raw[$1, $3, $4] = $5
}
END {
	print "target,config,workload,runs,mbps,ratio,ratio_min,ratio_max"
	for (i = 1; i <= nk; i++) {
		split(order[i], f, SUBSEP)
		n = split(ratio[order[i]], v, " ")
		lo = 1e9; hi = 0; rs = ""
		for (j = 1; j <= n; j++) {
			split(v[j], rv, ":")
			if (!((f[1], f[3], rv[1]) in raw) || raw[f[1], f[3], rv[1]] <= 0) continue
			r = rv[2] / raw[f[1], f[3], rv[1]]
			rs = rs " " r
			if (r < lo) lo = r
			if (r > hi) hi = r
		}
		if (rs == "") continue
		printf "%s,%s,%s,%d,%.1f,%.3f,%.3f,%.3f\n", f[1], f[2], f[3], n,
			median(runs[order[i]]), median(rs), lo, hi
	}
}' "$OUT/throughput-runs.csv" >"$OUT/throughput.csv"

# ---- the table: one per target, workloads down, configurations across
WL_ORDER="sw4k sw8k sw16k sw64k sw1m rw4k rw8k rw16k rw64k rw1m pr br512 br64k"
awk -F, -v configs="$CONFIGS" -v wls="$WL_ORDER" '
BEGIN {
	nc = split(configs, C, " "); nw = split(wls, WL, " ")
	name["sw"] = "seq write"; name["rw"] = "rand write"
}
NR == 1 { next }
{
	if (!($1 in seen)) { seen[$1] = 1; T[++nt] = $1 }
	cell[$1, $2, $3] = sprintf("%.2f [%.2f-%.2f]", $6, $7, $8)
	if ($2 == "raw") rawmb[$1, $3] = $5
	has[$1, $2] = 1
}
END {
	for (t = 1; t <= nt; t++) {
		hdr = "| " T[t] " | raw MB/s"; sep = "|---|---:"
		for (c = 1; c <= nc; c++) if (has[T[t], C[c]]) { hdr = hdr " | " C[c]; sep = sep "|---" }
		print hdr " |"; print sep "|"
		for (w = 1; w <= nw; w++) {
			if (!((T[t], WL[w]) in rawmb)) continue
			wl = WL[w]
			if (wl ~ /^[sr]w/) label = name[substr(wl, 1, 2)] " " substr(wl, 3)
			else if (wl == "pr") label = "16 parallel readers"
			else label = "buffered read " substr(wl, 3)
			line = "| " label " | " rawmb[T[t], WL[w]]
			for (c = 1; c <= nc; c++) {
				if (!has[T[t], C[c]]) continue
				k = T[t] SUBSEP C[c] SUBSEP WL[w]
				line = line " | " ((k in cell) ? cell[k] : "")
			}
			print line " |"
		}
		print ""
	}
}' "$OUT/throughput.csv" >"$OUT/throughput.md"
echo
echo "Ratio to the raw device, median [min-max] of $RUNS runs (same VM boot, 1 vCPU):"
echo
cat "$OUT/throughput.md"

# ---- issue 7's targets, with LVM's defaults and the field report beside them
awk -F, '
NR > 1 { r[$1, $2, $3] = sprintf("%.2f", $6); if ($1 ~ /^r6/) t[$1] = 1 }
function g(t, c, w) { return ((t, c, w) in r) ? r[t, c, w] : "-" }
END {
	for (x in t) {
		printf "%s: fresh 1M writes %s (goal 0.9; LVM defaults %s, field report %s); ", x,
			g(x, "tp-fresh", "sw1m"), g(x, "lvm-fresh", "sw1m"), g(x, "field-fresh", "sw1m")
		printf "provisioned 1M writes %s (goal 0.95); ", g(x, "tp-prov", "sw1m")
		printf "parallel reads of provisioned blocks %s (goal 0.9; LVM %s, field %s)\n",
			g(x, "tp-prov", "pr"), g(x, "lvm-prov", "pr"), g(x, "field-prov", "pr")
	}
}' "$OUT/throughput.csv" | sort | tee "$OUT/throughput-targets.txt"

# ---- plots: the targets measured with every configuration
if command -v gnuplot >/dev/null; then
	plot_targets=$(awk -F, 'NR > 1 && $2 == "linear" { print $1 }' "$OUT/throughput.csv" | sort -u)
	[ -n "$plot_targets" ] || plot_targets=$(awk -F, 'NR == 2 { print $1 }' "$OUT/throughput.csv")
	for t in $plot_targets; do
		for panel in sw rw rd; do
			awk -F, -v t="$t" -v p="$panel" -v configs="$CONFIGS" -v wls="$WL_ORDER" '
			BEGIN { nc = split(configs, C, " "); nw = split(wls, WL, " ") }
			NR > 1 && $1 == t { r[$2, $3] = $6 " " $7 " " $8; used[$2] = 1 }
			END {
				for (w = 1; w <= nw; w++) {
					wl = WL[w]
					if (p == "rd" ? wl ~ /^[sr]w/ : substr(wl, 1, 2) != p) continue
					if (!(("raw", wl) in r)) continue
					W[++n] = wl
					for (c = 1; c <= nc; c++) if ((C[c], wl) in r) inpanel[C[c]] = 1
				}
				printf "workload"
				for (c = 1; c <= nc; c++) if (C[c] in inpanel) printf " %s lo hi", C[c]
				print ""
				for (i = 1; i <= n; i++) {
					wl = W[i]
					label = wl ~ /^[sr]w/ ? substr(wl, 3) : (wl == "pr" ? "16x-par" : "buf-" substr(wl, 3))
					printf "%s", label
					for (c = 1; c <= nc; c++) if (C[c] in inpanel)
						printf " %s", ((C[c], wl) in r) ? r[C[c], wl] : "NaN NaN NaN"
					print ""
				}
			}' "$OUT/throughput.csv" >"$VMOUT/plot-$t-$panel.dat"
		done
		gnuplot -c scripts/plot-throughput.gp "$VMOUT/plot-$t" "$OUT/throughput-$t.png" "$t" ||
			echo "bench: gnuplot failed for $t"
	done
else
	echo "bench: gnuplot is not installed: no plot"
fi
echo
echo "bench: results in $OUT/ ($(($(date +%s) - t0)) s in all)"
