#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-remove.sh - issue 26's removal benchmark on the real kernel (QEMU,
# TCG): the worst I/O stall (max and p99 latency of a fio random-write job
# on another volume of the same pool) while a volume of CHUNKS mapped 64 KiB
# chunks is removed, by tvremove (discards of 16 chunks through the volume,
# committed by a flush every 16th, then the kernel's delete of the emptied
# device) and by LVM's lvremove (the kernel's delete message, one
# transaction), in one boot on disks of the same kind. RUNS pairs, each with
# an idle row (the emulator's own worst case at that time), a
# fresh restore of both volumes, and a control job on the other pool during
# each removal (the same window's noise, a pool the removal does not
# touch); prints each run's rows and ratios and the
# median ratio. The guest part is scripts/bench-remove-guest.sh. Needs lvm2
# on the host (the guest runs the host's root): scripts/install-deps.sh.
#
#   scripts/bench-remove.sh                  # CHUNKS=1048576 (64 GiB of volume), 1 run
#   CHUNKS=262144 scripts/bench-remove.sh    # smaller, quicker
#   OFFLINE=0 CHUNKS=4194304 RUNS=3 scripts/bench-remove.sh   # the big one:
#       256 GiB volumes on sparse disks (only metadata is written), about
#       25 minutes of TCG per pair (2 restores of 2-3.5 min, tvremove's
#       65536 steps 16-19 min)
#
# Settings: CHUNKS (1048576), RUNS (1), FIO_MB (256: the measured volume's
# range), VARIANTS ('' or "STEP:FLUSH ...": more tvremove rows with other
# live steps, test builds only), BUILD (build), TP_VM_MEM (3072; 4096 on
# ram), TP_VM_TIMEOUT (from RUNS and CHUNKS),
# MODE: icount (the default) runs QEMU with -icount ICOUNT (shift=4,sleep=off):
#   the guest's clock counts the instructions it executes, so a latency is
#   what the guest did, not when the host ran it: the host's load and its
#   descheduling of the emulator (the 15-800 ms noise of the wall-clock rows
#   in bench/remove.md) do not show; wallclock: the guest's clock is the host's
# BACKING: ram (the default) puts the three pools' devices on brd RAM disks in
#   the guest (sparse: only what is written takes memory), so no I/O waits on
#   the host either; disk: three sparse virtio disks (cache=unsafe).
# Then, offline on the host (OFFLINE=0 skips it): the same number of
# mappings restored into a pool's metadata with tp-thinmap, removed by
# tvremove, timed, with the longest single thin transaction (from the
# debug log's step times), against the tvremove of BASE_BUILD (a build
# of the previous tvremove, one transaction) when given: bench-scale.sh's
# pool of 3 volumes sharing OFF_N (4194304) data blocks, the second one
# removed. LIVE=0 skips the VM part.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
CHUNKS=${CHUNKS:-1048576}
FIO_MB=${FIO_MB:-256}
RUNS=${RUNS:-1}
# guest seconds (under icount the guest's clock): a pair of 1M chunks took 4200+ s
# since the live step is 16 chunks (tvremove alone 1420 s)
TIMEOUT=${TP_VM_TIMEOUT:-$((1800 + RUNS * (CHUNKS / 1048576 + 1) * 2400))}
make -s -j"$(nproc)" BUILD="$BUILD" tests >/dev/null

# ---- offline: bench-scale's pool of 3 volumes sharing OFF_N data blocks ----
offline() {
	local n=${OFF_N:-4194304} dir bin=$PWD/$BUILD/bin t0 t1 worst steps
	dir=$PWD/build-bench/scale-$n-3
	SCALE_BUILD_ONLY=1 BUILD=$BUILD scripts/bench-scale.sh "$n" 3
	export TPTOOLS_DIR=$dir/etc
	t0=$(date +%s.%N)
	TPTOOLS_DEBUG=pool "$bin/tvremove" -y scale/v2 >/dev/null 2>"$dir/remove.debug"
	t1=$(date +%s.%N)
	read -r steps worst < <(awk '/removal of v2: step/ { n++; for (i = 1; i <= NF; i++)
		if ($i == "in") { v = $(i + 1) + 0; if (v > m) m = v } } END { print n + 0, m + 0 }' \
		"$dir/remove.debug")
	"$bin/tpcheck" scale >/dev/null || { echo "bench-remove: tpcheck after the removal failed"; exit 1; }
	printf 'offline tvremove of a volume of %d mappings (counts 3 -> 2): %.1f s in %d steps, longest step %.2f s\n' \
		"$n" "$(echo "$t1 - $t0" | bc)" "$steps" "$worst"
	if [ -n "${BASE_BUILD:-}" ]; then
		SCALE_BUILD_ONLY=1 BUILD=$BUILD scripts/bench-scale.sh "$n" 3
		t0=$(date +%s.%N)
		"$BASE_BUILD/bin/tvremove" -y scale/v2 >/dev/null
		t1=$(date +%s.%N)
		printf 'offline tvremove of %s (one transaction): %.1f s\n' "$BASE_BUILD" \
			"$(echo "$t1 - $t0" | bc)"
	fi
	unset TPTOOLS_DIR
}
[ "${OFFLINE:-1}" = 0 ] || offline
[ "${LIVE:-1}" = 1 ] || exit 0

command -v lvm >/dev/null || { echo "bench-remove: lvm2 is not installed (scripts/install-deps.sh)"; exit 1; }
VMOUT=$BUILD/bench-remove
rm -rf "$VMOUT"
mkdir -p "$VMOUT"
MODE=${MODE:-icount}
BACKING=${BACKING:-ram}
case $MODE in icount|wallclock) ;; *) echo "bench-remove: MODE is icount or wallclock, not '$MODE'"; exit 2 ;; esac
case $BACKING in ram|disk) ;; *) echo "bench-remove: BACKING is ram or disk, not '$BACKING'"; exit 2 ;; esac
disk_gib=$((CHUNKS * 64 / 1048576 + 4))
echo "CHUNKS=$CHUNKS FIO_MB=$FIO_MB FILL=${FILL:-restore} RUNS=$RUNS VARIANTS='${VARIANTS:-}' BACKING=$BACKING DISK_GIB=$disk_gib WATCH=${WATCH:-}" >"$VMOUT/bench.conf"
vmenv=(TP_VM_OUT="$VMOUT" TP_VM_TIMEOUT="$TIMEOUT" TP_VM_SCENARIO_TIMEOUT="$TIMEOUT" BUILD="$BUILD")
if [ "$BACKING" = disk ]; then
	vmenv+=(TP_VM_MEM="${TP_VM_MEM:-3072}" TP_VM_DISKS=3 TP_VM_DISK_SIZE="${disk_gib}G")
else
	vmenv+=(TP_VM_MEM="${TP_VM_MEM:-4096}" TP_VM_DISKS=1)	# the guest's arguments want one disk; unused
fi
[ "$MODE" = icount ] && vmenv+=(TP_VM_ICOUNT="${ICOUNT:-shift=4,sleep=off}")
echo "mode $MODE$([ "$MODE" = icount ] && echo " (QEMU -icount ${ICOUNT:-shift=4,sleep=off}: guest time counts instructions)"), backing $BACKING"
vmrc=0
env "${vmenv[@]}" test/vm/run.sh scripts/bench-remove-guest.sh || vmrc=$?
[ -s "$VMOUT/results.txt" ] || { echo "bench-remove: no results from the VM"; exit 1; }
[ "$vmrc" = 0 ] || echo "bench-remove: WARNING: the guest part reported failures; partial results follow"
r() { awk -F= -v k="$1" '$1 == k { print $2 }' "$VMOUT/results.txt"; }
runs=$(r runs)
echo
echo "mode $MODE, backing $BACKING"
echo "removal of a volume with $(r tp.mapped_chunks) mapped chunks of 64 KiB (the kernel: $(r kernel.tp_mapped_chunks) and $(r kernel.lvm_mapped_chunks)), fio 4k randwrite QD1 on another volume, $runs run(s)"
printf '%-16s %10s %10s %10s %10s %8s\n' "" "removal s" "max ms" "p99 ms" "p50 ms" "I/Os"
row() { printf '%-16s %10s %10s %10s %10s %8s\n' "$1" "$(r "$1".seconds)" "$(r "$1".max_ms)" \
	"$(r "$1".p99_ms)" "$(r "$1".p50_ms)" "$(r "$1".ios)"; }
: >"$VMOUT/ratios"
for i in $(seq 1 "${runs:-0}"); do
	for t in idle tvremove lvremove; do row "${t}_$i"; row "${t}_${i}_ctl"; done
	[ -n "$(r "lvremove_$i.max_ms")" ] && [ -n "$(r "tvremove_$i.max_ms")" ] || continue
	awk -v i="$i" -v a="$(r "tvremove_$i.max_ms")" -v b="$(r "lvremove_$i.max_ms")" \
		-v c="$(r "tvremove_$i.p99_ms")" -v d="$(r "lvremove_$i.p99_ms")" \
		-v e="$(r "tvremove_${i}_ctl.max_ms")" -v f="$(r "lvremove_${i}_ctl.max_ms")" \
		-v g="$(r "idle_$i.max_ms")" -v h="$(r "idle_${i}_ctl.max_ms")" 'BEGIN {
		printf "run %d: worst stall tvremove %.1f ms, lvremove %.1f ms: ratio %.3f; p99 %.2f / %.2f ms: ratio %.3f\n",
			i, a, b, b ? a / b : 0, c, d, d ? c / d : 0
		printf "run %d: noise: the untouched pool worst %.1f ms during tvremove, %.1f ms during lvremove; idle %.1f / %.1f ms\n",
			i, e, f, g, h
		printf "%.4f %.4f\n", b ? a / b : 0, d ? c / d : 0 >> "'"$VMOUT/ratios"'" }'
done
for v in ${VARIANTS:-}; do row "tv_${v/:/_}"; row "tv_${v/:/_}_ctl"; done
# the medians of the per-run ratios (worst stall, p99)
med() { sort -g | awk '{ v[++n] = $1 } END { if (n) printf "%.3f", n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'; }
n=$(wc -l <"$VMOUT/ratios")
[ "$n" -gt 0 ] || { echo "bench-remove: no complete run"; exit 1; }
echo "worst stall ratio tvremove/lvremove: per run $(awk '{ printf "%s ", $1 }' "$VMOUT/ratios")median $(awk '{ print $1 }' "$VMOUT/ratios" | med) over $n run(s) (target <= 0.1)"
echo "p99 ratio tvremove/lvremove: per run $(awk '{ printf "%s ", $2 }' "$VMOUT/ratios")median $(awk '{ print $2 }' "$VMOUT/ratios" | med)"
