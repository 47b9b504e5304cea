#!/bin/bash
# bench-remove.sh - issue 26's removal benchmark on the real kernel (QEMU,
# TCG): the worst I/O stall (max and p99 latency of a fio random-write job
# on another volume of the same pool) while a volume of CHUNKS mapped 64 KiB
# chunks is removed, by tvremove (discards of 1 GiB through the volume, each
# committed, then the kernel's delete of the emptied device) and by LVM's
# lvremove (the kernel's delete message, one transaction), in one boot on
# disks of the same kind. Prints both and the ratios; the guest part is
# scripts/bench-remove-guest.sh. Needs lvm2 on the host (the guest runs the
# host's root): scripts/install-deps.sh.
#
#   scripts/bench-remove.sh                  # CHUNKS=1048576 (64 GiB of volume)
#   CHUNKS=262144 scripts/bench-remove.sh    # smaller, quicker
#
# Settings: CHUNKS (1048576), FIO_MB (256: the measured volume's range),
# BUILD (build), TP_VM_MEM (3072), TP_VM_TIMEOUT (3600).
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
echo "CHUNKS=$CHUNKS FIO_MB=$FIO_MB FILL=${FILL:-restore} VARIANTS='${VARIANTS:-}'" >"$VMOUT/bench.conf"
disk=$(((CHUNKS * 64 / 1048576 + 4) ))G
vmrc=0
TP_VM_OUT=$VMOUT TP_VM_MEM=${TP_VM_MEM:-3072} TP_VM_DISKS=3 TP_VM_DISK_SIZE=$disk \
	TP_VM_TIMEOUT=${TP_VM_TIMEOUT:-3600} TP_VM_SCENARIO_TIMEOUT=${TP_VM_TIMEOUT:-3600} \
	BUILD=$BUILD test/vm/run.sh scripts/bench-remove-guest.sh || vmrc=$?
[ -s "$VMOUT/results.txt" ] || { echo "bench-remove: no results from the VM"; exit 1; }
[ "$vmrc" = 0 ] || echo "bench-remove: WARNING: the guest part reported failures; partial results follow"
r() { awk -F= -v k="$1" '$1 == k { print $2 }' "$VMOUT/results.txt"; }
echo
echo "removal of a volume with $(r tp.mapped_chunks) mapped chunks of 64 KiB, fio 4k randwrite QD1 on another volume"
printf '%-10s %10s %10s %10s %8s\n' "" "removal s" "max ms" "p99 ms" "I/Os"
for t in idle_tp tvremove idle_lvm lvremove $(for v in ${VARIANTS:-}; do echo "tv_${v/:/_}"; done); do
	printf '%-10s %10s %10s %10s %8s\n' "$t" "$(r $t.seconds)" "$(r $t.max_ms)" "$(r $t.p99_ms)" "$(r $t.ios)"
done
awk -v a="$(r tvremove.max_ms)" -v b="$(r lvremove.max_ms)" -v c="$(r tvremove.p99_ms)" \
	-v d="$(r lvremove.p99_ms)" 'BEGIN {
	printf "worst stall: tvremove %.1f ms, lvremove %.1f ms: ratio %.3f (target <= 0.1)\n", a, b, b ? a / b : 0
	printf "p99: tvremove %.2f ms, lvremove %.2f ms: ratio %.3f\n", c, d, d ? c / d : 0 }'
