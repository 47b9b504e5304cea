#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-volumes-lvm.sh - issue 40: where LVM2 stands. The per-volume
# commands of LVM2 thin LVs (lvcreate -V, lvremove, lvcreate -s, lvrename,
# lvs) and of tptools (tvcreate, tvremove, tvsnap, tvrename, tpstatus) timed
# on the real kernel (QEMU, TCG), in one boot, on virtio disks of the same
# kind, at each count of COUNTS thin volumes in the pool; prints the median
# of REPS runs of each, and each one's ratio to the first count. The guest
# part is scripts/bench-volumes-lvm-guest.sh (how the pools are grown to a
# count, what LVM's configuration is). Needs lvm2 and
# thin-provisioning-tools on the host (the guest runs the host's root).
# Not part of make check.
#
#   scripts/bench-volumes-lvm.sh                 # COUNTS="3 1000", REPS=9
#   COUNTS="3 100" REPS=3 scripts/bench-volumes-lvm.sh   # a quick look
#
# Settings: COUNTS ("3 1000"), REPS (9), LVM_FILL (restore: vgcfgrestore
# of a generated VG text and thin_restore of the thin devices; loop:
# lvcreate -An in a loop), PV_MDA (8m: pvcreate --metadatasize; "" for
# LVM's default), BUILD (build), TP_VM_MEM (1536), TP_VM_TIMEOUT (3600 s),
# TP_KERNEL (6.1), TP_VM_ICOUNT (QEMU -icount, e.g. shift=4,sleep=off:
# the guest's clock counts the instructions it executes, so other work on
# the host does not lengthen the times; a wall-clock run on a loaded
# 2-core host had one command's 9 runs spread over 3x; waits on the host's
# I/O then cost no guest time). Output: $BUILD/bench-volumes-lvm
# (times.txt, info.txt, commands.log, table.txt).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
COUNTS=${COUNTS:-3 1000}
REPS=${REPS:-9}
TIMEOUT=${TP_VM_TIMEOUT:-3600}
command -v lvm >/dev/null || { echo "bench-volumes-lvm: lvm2 is not installed (apt-get install lvm2)"; exit 1; }
command -v thin_restore >/dev/null ||
	{ echo "bench-volumes-lvm: thin-provisioning-tools is not installed"; exit 1; }
make -s -j2 BUILD="$BUILD" tests >/dev/null
VMOUT=$BUILD/bench-volumes-lvm
rm -rf "$VMOUT"
mkdir -p "$VMOUT"
cat >"$VMOUT/bench.conf" <<EOF
COUNTS="$COUNTS"
REPS=$REPS
LVM_FILL=${LVM_FILL:-restore}
PV_MDA=${PV_MDA-8m}
EOF
echo "bench-volumes-lvm: COUNTS='$COUNTS' REPS=$REPS LVM_FILL=${LVM_FILL:-restore} PV_MDA='${PV_MDA-8m}' host load: $(cut -d' ' -f1-3 /proc/loadavg)"
vmrc=0
TP_VM_OUT="$VMOUT" TP_VM_TIMEOUT="$TIMEOUT" TP_VM_SCENARIO_TIMEOUT="$TIMEOUT" BUILD="$BUILD" \
	TP_VM_DISKS=3 TP_VM_DISK_SIZE=1G TP_VM_MEM="${TP_VM_MEM:-1536}" \
	test/vm/run.sh scripts/bench-volumes-lvm-guest.sh || vmrc=$?
[ -s "$VMOUT/times.txt" ] || { echo "bench-volumes-lvm: no results from the VM"; exit 1; }
[ "$vmrc" = 0 ] || echo "bench-volumes-lvm: WARNING: the guest part failed; partial results follow"

# the table: medians per tool, count and operation; ratios to the first count
first=${COUNTS%% *}
{
	echo "host: $(uname -n), $(nproc) CPU(s): $(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -1); $(date -u '+%Y-%m-%d %H:%M UTC'); load $(cut -d' ' -f1-3 /proc/loadavg)"
	if [ -n "${TP_VM_ICOUNT:-}" ]; then
		echo "clock: QEMU -icount $TP_VM_ICOUNT (guest seconds count instructions executed, not the host's wall time)"
	else
		echo "clock: the host's wall time (TCG; the host's load shows)"
	fi
	sed 's/^/guest: /' "$VMOUT/info.txt"
	echo
	awk -v first="$first" '
	function median(k,   n, i, j, t, a) {
		n = split(v[k], a, " ")
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ k = $1 " " $2 " " $3; v[k] = v[k] " " $5; if (!($2 in seen)) { seen[$2] = 1; cs[++nc] = $2 }; reps[k]++ }
	END {
		split("create remove snap rmsnap rename status", ops, " ")
		name["create"] = "lvcreate -V | tvcreate"; name["remove"] = "lvremove | tvremove"
		name["snap"] = "lvcreate -s | tvsnap"; name["rmsnap"] = "lvremove snap | tvremove snap"
		name["rename"] = "lvrename | tvrename"; name["status"] = "lvs | tpstatus"
		printf "%6s  %-30s %9s %9s %9s %9s %7s %5s\n", "count", "operation", "LVM s", "tptools s", "LVM x" first, "tp x" first, "tp/LVM", "reps"
		for (c = 1; c <= nc; c++) for (o = 1; o <= 6; o++) {
			op = ops[o]; l = "lvm " cs[c] " " op; t = "tp " cs[c] " " op
			if (!(l in v) || !(t in v)) continue
			ml = median(l); mt = median(t)
			bl = median("lvm " first " " op); bt = median("tp " first " " op)
			printf "%6d  %-30s %9.3f %9.3f %9.2f %9.2f %7.2f %5d\n", cs[c], name[op], ml, mt,
				(bl > 0 ? ml / bl : 0), (bt > 0 ? mt / bt : 0), (ml > 0 ? mt / ml : 0), (reps[l] < reps[t] ? reps[l] : reps[t])
		}
	}' "$VMOUT/times.txt"
} | tee "$VMOUT/table.txt"
[ "$vmrc" = 0 ]
