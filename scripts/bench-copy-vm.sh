#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-copy-vm.sh - issue 26's copy benchmark on block devices: the real
# kernel under QEMU (TCG), a pool on virtio disks, tpsend (raw, stream),
# tprecv (raw, stream) and tvremove --wipe against dd with
# iflag=direct/oflag=direct over the same bytes of the same devices, in one
# boot, offline and with the pool active; prints MiB/s and the ratios
# (ours/dd throughput, target >= 0.8). The guest part, and what each line
# compares, is scripts/bench-copy-guest.sh. scripts/bench-copy.sh is the
# page-cache-warm twin on image files.
#
#   scripts/bench-copy-vm.sh [SIZE_MIB]   (default 256)
#
# Settings: RUNS (3), BUILD (build), TP_VM_MEM (1536 + 4 * SIZE_MIB; the
# source image and the stream live in the guest's tmpfs, half its memory), TP_VM_SMP (2), TP_VM_TIMEOUT (3600).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
MIB=${1:-256}
make -s -j"$(nproc)" BUILD="$BUILD" tests >/dev/null
VMOUT=$BUILD/bench-copy-vm
rm -rf "$VMOUT"
mkdir -p "$VMOUT"
echo "MIB=$MIB RUNS=${RUNS:-3}" >"$VMOUT/bench.conf"
vmrc=0
TP_VM_OUT=$VMOUT TP_VM_MEM=${TP_VM_MEM:-$((1536 + 4 * MIB))} TP_VM_SMP=${TP_VM_SMP:-2} TP_VM_DISKS=2 \
	TP_VM_DISK_SIZE=$((2 * MIB + 512))M TP_VM_TIMEOUT=${TP_VM_TIMEOUT:-3600} \
	TP_VM_SCENARIO_TIMEOUT=${TP_VM_TIMEOUT:-3600} \
	BUILD=$BUILD test/vm/run.sh scripts/bench-copy-guest.sh || vmrc=$?
[ -s "$VMOUT/results.txt" ] || { echo "bench-copy-vm: no results from the VM"; exit 1; }
[ "$vmrc" = 0 ] || echo "bench-copy-vm: WARNING: the guest part reported failures; partial results follow"
r() { awk -F= -v k="$1" '$1 == k { print $2 }' "$VMOUT/results.txt"; }
bytes=$(r bytes)
echo
echo "block devices (virtio, QEMU TCG), $((bytes >> 20)) MiB; dd with O_DIRECT, bs=4M"
line() { # MODE NAME REF
	local o d
	o=$(r "$1.$2.ours") d=$(r "$1.$3.dd")
	[ -n "$o" ] && [ -n "$d" ] || return 0
	awk -v m="$1" -v n="$2" -v o="$o" -v d="$d" -v by="$bytes" 'BEGIN {
		s = by / 1048576
		printf "%-8s %-12s ours %7.1f MiB/s (%.3f s)  dd %7.1f MiB/s (%.3f s)  ratio %.2f\n",
			m, n, s / o, o, s / d, d, d / o }'
}
line2() { # MODE NAME KEY: a figure beside the ratios
	local v
	v=$(r "$1.$3")
	[ -n "$v" ] && printf '%-8s %-12s %.3f s\n' "$1" "$2" "$v"
	return 0
}
for m in offline live; do
	line2 $m "fixed cost" fixed.ours
	line2 $m "dd into thin" recv.dd-thin
	line $m send-raw send
	line $m send-stream send
	line $m recv-raw recv
	line $m recv-stream recv
	line $m wipe wipe
done
echo "(host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); guest: TCG, so CPU copies cost far more than on hardware)"
