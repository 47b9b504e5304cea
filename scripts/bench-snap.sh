#!/bin/bash
# bench-snap.sh - the geometry matrix of issue 14 on the real kernel: chunk
# sizes from 64 KiB to the full stripe, zeroing on and off, LVM's default
# and "performance" configurations, measured fresh, provisioned, and in the
# steady state after a snapshot (every write lands in a chunk still shared;
# see scripts/bench-snap-guest.sh). Extends scripts/bench-throughput.sh,
# whose after-snapshot rows measured mostly unshared writes.
#
#   scripts/bench-snap.sh                   # RAID6 7x512K on ramdisks, wall clock
#   MODE=icount scripts/bench-snap.sh       # deterministic: QEMU -icount
#   BACKING=disk scripts/bench-snap.sh      # md members on virtio disks, cache=none
#   QUICK=1 ...                             # one run per case, fewer workloads
#
# Every figure is a ratio to the raw array slice in the same fio invocation;
# median [min-max] over RUNS runs. The criterion column: for each workload
# the best configuration's median ratio; a configuration's score is its
# worst ratio to that best over all workloads (higher is better), with and
# without the after-snapshot workloads. Output in OUT (bench/):
#   snap-MODE-BACKING-runs.csv   every run: mode,backing,config,workload,run,mbps
#   snap-MODE-BACKING.md         the table with the scores, also printed
# Settings: BUILD (build), RUNS (3; QUICK 1), RT (seconds per job, 1),
# VOL_MB (40), WORKLOADS, CONFIGS (see the guest script), ICOUNT
# (shift=4,sleep=off), TP_VM_MEM (3584).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
QUICK=${QUICK:-0}
MODE=${MODE:-wallclock}
BACKING=${BACKING:-ram}
OUT=${OUT:-bench}
RT=${RT:-1}
VOL_MB=${VOL_MB:-40}
if [ "$QUICK" = 1 ]; then
	RUNS=${RUNS:-1}
	WORKLOADS=${WORKLOADS:-f1m fr4k c4k c64k c1m pr4k}
else
	RUNS=${RUNS:-3}
	WORKLOADS=${WORKLOADS:-f1m f64k fr4k c4k c64k cr4k c1m pr4k}
fi
tag=$MODE-$BACKING

make -s -j"$(nproc)" BUILD="$BUILD" tests >/dev/null
VMOUT=$BUILD/bench-snap-$tag
rm -rf "$VMOUT"
mkdir -p "$VMOUT" "$OUT"
{
	echo "RUNS=$RUNS RT=$RT VOL_MB=$VOL_MB MODE=$MODE BACKING=$BACKING"
	echo "WORKLOADS='$WORKLOADS'"
	[ -n "${CONFIGS:-}" ] && echo "CONFIGS='$CONFIGS'"
	true
} >"$VMOUT/bench.conf"
# TP_VM_TIMEOUT bounds the run in host seconds; the scenario timeout counts
# guest seconds, which under -icount need not follow the host's clock
vmenv=(TP_VM_OUT="$VMOUT" TP_VM_MEM="${TP_VM_MEM:-3584}" TP_VM_TIMEOUT="${TP_VM_TIMEOUT:-2400}"
	TP_VM_SCENARIO_TIMEOUT=1000000 TP_VM_WORK="$BUILD/vm-snap-$tag")
if [ "$BACKING" = disk ]; then
	vmenv+=(TP_VM_DISKS=8 TP_VM_DISK_SIZE=320M TP_VM_DISK_CACHE=none)
else
	vmenv+=(TP_VM_DISKS=1 TP_VM_DISK_SIZE=8M)
fi
[ "$MODE" = icount ] && vmenv+=(TP_VM_ICOUNT="${ICOUNT:-shift=4,sleep=off}")
env "${vmenv[@]}" BUILD="$BUILD" test/vm/run.sh scripts/bench-snap-guest.sh || vmrc=$?
[ "$(wc -l <"$VMOUT/runs.csv")" -gt 1 ] || { echo "bench-snap: no results from the VM"; exit 1; }
[ "${vmrc:-0}" = 0 ] || echo "bench-snap: WARNING: the guest reported failures; partial results"
cp "$VMOUT/runs.csv" "$OUT/snap-$tag-runs.csv"

# ratios to raw per run; median [min-max]; criterion scores
awk -F, -v tag="$tag" -v wl="$WORKLOADS" '
NR == 1 { next }
{ mb[$3, $4, $5] = $6; if (!($3 in seen)) { seen[$3] = 1; cfg[++nc] = $3 }; runs[$4] = $5 > runs[$4] ? $5 : runs[$4] }
function median(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	nw = split(wl, W, " ")
	for (w = 1; w <= nw; w++) for (c = 1; c <= nc; c++) {
		n = 0; lo = 1e9; hi = 0
		for (r = 1; r <= runs[W[w]]; r++) {
			raw = mb["raw", W[w], r]; v = mb[cfg[c], W[w], r]
			if (raw > 0 && v != "") { x[++n] = v / raw; if (x[n] < lo) lo = x[n]; if (x[n] > hi) hi = x[n] }
		}
		if (!n) continue
		med[cfg[c], W[w]] = median(x, n); mn[cfg[c], W[w]] = lo; mx[cfg[c], W[w]] = hi; nr = n
	}
	printf "| %s (%d run%s) |", tag, nr, nr == 1 ? "" : "s"
	for (w = 1; w <= nw; w++) printf " %s |", W[w]
	printf " score | score, no snapshot workloads |\n|---|"
	for (w = 1; w <= nw + 2; w++) printf "---|"
	printf "\n"
	for (w = 1; w <= nw; w++) { best[W[w]] = 0; for (c = 1; c <= nc; c++) if (cfg[c] != "raw" && med[cfg[c], W[w]] > best[W[w]]) best[W[w]] = med[cfg[c], W[w]] }
	for (c = 1; c <= nc; c++) {
		if (cfg[c] == "raw") continue
		s = 1e9; sf = 1e9
		printf "| %s |", cfg[c]
		for (w = 1; w <= nw; w++) {
			if (!((cfg[c], W[w]) in med)) { printf " |"; continue }
			printf " %.3f [%.3f-%.3f] |", med[cfg[c], W[w]], mn[cfg[c], W[w]], mx[cfg[c], W[w]]
			q = best[W[w]] > 0 ? med[cfg[c], W[w]] / best[W[w]] : 0
			if (q < s) s = q
			if (substr(W[w], 1, 1) != "c" && q < sf) sf = q
		}
		printf " %.2f | %.2f |\n", s, sf
	}
}' "$OUT/snap-$tag-runs.csv" | tee "$OUT/snap-$tag.md"
