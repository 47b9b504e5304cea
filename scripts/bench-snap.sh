#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-snap.sh - the geometry matrix of issue 14 on the real kernel: what
# tpcreate's profiles pick, chunks from 64 KiB to the full stripe, LVM's
# default and "performance" configurations, measured fresh, provisioned,
# and in the steady state after a snapshot (every write lands in a chunk
# still shared; see scripts/bench-snap-guest.sh for the configurations).
# Extends scripts/bench-throughput.sh, whose after-snapshot rows measured
# mostly unshared writes. scripts/bench-snap-matrix.sh summarises the
# results of several geometries (bench/snap-matrix.md and its plot).
#
#   scripts/bench-snap.sh                   # RAID6 7x512K on ramdisks, wall clock
#   GEOM=r6x12-64k scripts/bench-snap.sh    # r6x7-512k r6x6-512k r6x12-64k
#                                           # r5x5-512k disk
#   MODE=icount scripts/bench-snap.sh       # deterministic: QEMU -icount
#   BACKING=disk scripts/bench-snap.sh      # members on virtio disks, cache=none
#   QUICK=1 ...                             # one run per case, fewer workloads
#
# Every figure is a ratio to the raw array slice in the same fio invocation;
# median [min-max] over RUNS runs. The criterion column: for each workload
# the best configuration's median ratio; a configuration's score is its
# worst ratio to that best over all workloads (higher is better), with and
# without the after-snapshot workloads. Output in OUT (bench/), TAG =
# GEOM-MODE-BACKING:
#   snap-TAG-runs.csv      every run: mode,backing,config,workload,run,mbps
#   snap-TAG-configs.csv   the pools: config,chunk_k,zero,offset_k,what
#   snap-TAG.md            the table with the scores, also printed
# Settings: GEOM (r6x7-512k), BUILD (build), RUNS (3; QUICK 1), VOL_MB (40),
# SETTLE (2: idle seconds before each job, see the guest script), ROTATE
# (1; 0: the same order of pools in every run, TAG gets -samerun), PRETOUCH
# (1: write the array once first; 0: not, TAG gets -untouched; the results
# in bench/ without PRETOUCH in their header line predate it and ran without),
# WORKLOADS, CONFIGS (see the guest script), ICOUNT (shift=4,sleep=off; the
# guest's RTC then follows the virtual clock too), TP_VM_MEM (3584).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
QUICK=${QUICK:-0}
GEOM=${GEOM:-r6x7-512k}
MODE=${MODE:-wallclock}
BACKING=${BACKING:-ram}
OUT=${OUT:-bench}
VOL_MB=${VOL_MB:-40}
if [ "$QUICK" = 1 ]; then
	RUNS=${RUNS:-1}
	WORKLOADS=${WORKLOADS:-pr4k f1m fr4k c4k c64k c1m}
else
	RUNS=${RUNS:-3}
	WORKLOADS=${WORKLOADS:-pr4k f1m f64k fr4k c4k c64k cr4k c1m}
fi
case $GEOM in
r6x7-512k | r6x6-512k | r5x5-512k | disk) ;;
r6x12-64k) ;;
*) echo "bench-snap: unknown GEOM '$GEOM' (r6x7-512k r6x6-512k r6x12-64k r5x5-512k disk)"; exit 2 ;;
esac
ndev=$(case $GEOM in r6x7-512k) echo 7 ;; r6x6-512k) echo 6 ;; r6x12-64k) echo 12 ;; r5x5-512k) echo 5 ;; disk) echo 1 ;; esac)
ROTATE=${ROTATE:-1}
tag=$GEOM-$MODE-$BACKING
[ "$ROTATE" = 1 ] || tag=$tag-samerun
[ "${PRETOUCH:-1}" = 1 ] || tag=$tag-untouched

make -s -j"$(nproc)" BUILD="$BUILD" tests >/dev/null
VMOUT=$BUILD/bench-snap-$tag
rm -rf "$VMOUT"
mkdir -p "$VMOUT" "$OUT"
{
	echo "GEOM=$GEOM RUNS=$RUNS VOL_MB=$VOL_MB SETTLE=${SETTLE:-2} ROTATE=$ROTATE PRETOUCH=${PRETOUCH:-1} MODE=$MODE BACKING=$BACKING"
	echo "WORKLOADS='$WORKLOADS'"
	[ -n "${CONFIGS:-}" ] && echo "CONFIGS='$CONFIGS'"
	true
} >"$VMOUT/bench.conf"
# TP_VM_TIMEOUT bounds the run in host seconds; the scenario timeout counts
# guest seconds, which under -icount need not follow the host's clock
vmenv=(TP_VM_OUT="$VMOUT" TP_VM_MEM="${TP_VM_MEM:-3584}" TP_VM_TIMEOUT="${TP_VM_TIMEOUT:-2400}"
	TP_VM_SCENARIO_TIMEOUT=1000000 TP_VM_WORK="$BUILD/vm-snap-$tag")
if [ "$BACKING" = disk ]; then
	vmenv+=(TP_VM_DISKS=$((ndev + 1)) TP_VM_DISK_SIZE="${TP_VM_DISK_SIZE:-640M}" TP_VM_DISK_CACHE=none)
else
	vmenv+=(TP_VM_DISKS=1 TP_VM_DISK_SIZE=8M)
fi
[ "$MODE" = icount ] && vmenv+=(TP_VM_ICOUNT="${ICOUNT:-shift=4,sleep=off}")
env "${vmenv[@]}" BUILD="$BUILD" test/vm/run.sh scripts/bench-snap-guest.sh || vmrc=$?
[ "$(wc -l <"$VMOUT/runs.csv")" -gt 1 ] || { echo "bench-snap: no results from the VM"; exit 1; }
[ "${vmrc:-0}" = 0 ] || echo "bench-snap: WARNING: the guest reported failures; partial results"
cp "$VMOUT/runs.csv" "$OUT/snap-$tag-runs.csv"
cp "$VMOUT/configs.csv" "$OUT/snap-$tag-configs.csv"

# the table: ratios to raw per run, median [min-max], criterion scores
{
	echo "# bench-snap $tag"
	echo
	echo "Geometry $GEOM, backing $BACKING, mode $MODE ($([ "$MODE" = icount ] &&
		echo "QEMU -icount ${ICOUNT:-shift=4,sleep=off}: guest time counts instructions" ||
		echo "wall clock")); $(head -1 "$VMOUT/bench.conf"); workloads $WORKLOADS."
	echo "Made by scripts/bench-snap.sh on $(date -u +%F); raw figures in snap-$tag-runs.csv,"
	echo "pools in snap-$tag-configs.csv; the workloads and pools are described in"
	echo "scripts/bench-snap-guest.sh. Ratio to the raw array slice in the same fio run."
	echo
	awk -F, -f scripts/bench-snap.awk "$OUT/snap-$tag-configs.csv" "$OUT/snap-$tag-runs.csv"
} | tee "$OUT/snap-$tag.md"
