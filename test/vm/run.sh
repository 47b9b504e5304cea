#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh - the real-kernel test stage: boot Debian's kernel under QEMU once,
# run every test/vm/s-*.sh scenario in the guest, report PASS/FAIL each.
#
#   test/vm/run.sh [SCENARIO...]     (names like s-dm-thin or paths; default: all)
#
# The guest is a busybox initramfs holding only the kernel's modules; the
# host's / is shared read-only over virtio-9p and the scenarios run
# `chroot /hostroot` under bash, as root, with DM_DISABLE_UDEV=1 (no udev in
# the guest), so they use the freshly built binaries of $BUILD and every
# host tool (mdadm, blkid, thin_check, fio ...) without copying anything.
#
# Any script inside the tree can be run the same way (a path argument, e.g.
# a benchmark's guest part); its name is its file name without .sh.
#
# Scenario contract (test/vm/README.md): a bash script s-<topic>.sh, run
# in its own empty directory under the guest's /tmp with the environment
#   TP_BUILD   absolute path of the build dir (binaries in $TP_BUILD/bin, $TP_BUILD/test/bin)
#   TP_SRC     absolute path of the source tree
#   TP_DISKS   the guest's scratch disks, space separated (/dev/vda ...),
#              TP_DISK_SIZE bytes each, zeroed at their start
#   PATH       $TP_BUILD/bin and $TP_BUILD/test/bin first
#   TP_OUT     (with TP_VM_OUT) a writable dir that is the host's TP_VM_OUT
# exit 0 = pass; 77 = skipped (counted as neither); anything else = fail.
# After each scenario the guest removes leftover dm devices and md arrays
# and zeroes the disks' first MiB, so scenarios do not see each other.
#
# Settings (environment):
#   BUILD          build dir to test (default build)
#   TP_RESULTS     file that gets "passed failed", then the failed
#                  scenarios one a line (test/run-all.sh)
#   TP_KERNEL      which Debian kernel: 6.1 (Debian 12, the default) or 6.12
#                  (Debian 13); scripts/fetch-kernel.sh VERSION unpacks them
#   TP_KERNEL_DIR  an unpacked Debian kernel package (overrides TP_KERNEL;
#                  default /var/cache/tptools/kernel, 6.12: .../kernel-6.12)
#   TP_VM_SMP      vCPUs (default 1: emulation timing is steadier)
#   TP_VM_MEM      guest MiB (default 1536)
#   TP_VM_DISKS    number of scratch disks (default 8), TP_VM_DISK_SIZE (default 128M)
#   TP_VM_DISK_CACHE  QEMU cache mode of the disks (default unsafe; none: the
#                  host page cache is bypassed, so disk reads cost real I/O)
#   TP_VM_ICOUNT   QEMU -icount value (e.g. shift=4,sleep=off): guest time
#                  counts instructions, so timings repeat run to run (the
#                  RTC follows that clock too: -rtc clock=vm)
#   TP_VM_TIMEOUT  seconds for the whole boot (default: the sum of the
#                  scenarios' limits, declared or set, plus 300, at most 3600)
#   TP_VM_SCENARIO_TIMEOUT  seconds for one scenario (default 600; rc 124);
#                  a scenario with a line "# vm-timeout: SECONDS" gets at
#                  least that (the fault scenarios run for minutes)
#   TP_VM_WORK     scratch dir (default $BUILD/vm)
#   TP_VM_KEEP=1   keep the console log and disk images
#   TP_VM_OUT      a host dir shared READ-WRITE with the guest, where scripts
#                  find it as $TP_OUT (results, e.g. benchmark CSV files)
#   TP_VM_SOAK=1   also the scenarios marked "# vm-soak" (long ones: the
#                  two-host failover, fence, pause and serial scenarios), which
#                  the default run leaves out; a scenario named runs anyway
#   FAULT_*        passed to the scenarios' environment as they are (the fault
#                  scenarios' knobs: FAULT_CYCLES, FAULT_SEED)
#   TP_VM_HOSTS=2  two guests, "a" and "b", booted side by side, each with its
#                  own scratch disks (TP_DISKS) and both with the same
#                  TP_VM_SHARED disks (default 2, TP_DISK_SIZE each, virtio
#                  share-rw: one shared LUN seen by two hosts); they run the
#                  two-host scenarios test/vm/s2-*.sh (default), each guest
#                  with TP_HOST=a|b, TP_SHARED (the shared disks' paths) and
#                  TP_SYNC (a directory both see, for `barrier` in lib.sh);
#                  a scenario passes when it passes on both
# Missing qemu or kernel image: prints SKIP, counts 0 passed 0 failed, exit 0.
set -u
cd "$(dirname "$0")/../.."
SRC=$(pwd -P)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$SRC/$BUILD ;; esac
RESULTS=${TP_RESULTS:-}
SMP=${TP_VM_SMP:-1}
MEM=${TP_VM_MEM:-1536}
NDISKS=${TP_VM_DISKS:-8}
DISK_SIZE=${TP_VM_DISK_SIZE:-128M}
SCENARIO_TIMEOUT=${TP_VM_SCENARIO_TIMEOUT:-600}
HOSTS=${TP_VM_HOSTS:-1}
case $HOSTS in 1) HOST_NAMES="-" ;; 2) HOST_NAMES="a b" ;; *) echo "vm: TP_VM_HOSTS is 1 or 2"; exit 1 ;; esac
NSHARED=${TP_VM_SHARED:-2}
[ "$HOSTS" = 2 ] || NSHARED=0
WORK=${TP_VM_WORK:-$BUILD/vm}
[ "$HOSTS" = 2 ] && WORK=${TP_VM_WORK:-$BUILD/vm2}

failed_names=()
report() { # passed failed: the counts, then the failed scenarios one a line
	[ -n "$RESULTS" ] && { echo "$1 $2"; printf '%s\n' "${failed_names[@]}"; } >"$RESULTS"
	return 0
}
skip() {
	echo "vm: SKIP: $*"
	report 0 0
	exit 0
}

# ---- what to run: paths relative to the tree ---------------------------
scenarios=()
if [ $# -gt 0 ]; then
	for s in "$@"; do
		case $s in
		*/*) p=$(realpath -e "$s" 2>/dev/null) && p=${p#"$SRC"/} ;;
		*) p=test/vm/${s%.sh}.sh ;;
		esac
		if [ -z "$p" ] || [ ! -f "$SRC/$p" ] || [ "${p#/}" != "$p" ]; then
			echo "vm: no scenario '$s' (a name in test/vm or a script inside $SRC)"
			report 0 1
			exit 1
		fi
		scenarios+=("$p")
	done
else
	glob="test/vm/s-*.sh"
	[ "$HOSTS" = 2 ] && glob="test/vm/s2-*.sh"
	for f in $glob; do
		[ -f "$f" ] || continue
		# "# vm-soak" scenarios (long) run only with TP_VM_SOAK=1 or by name
		grep -q '^# vm-soak' "$f" && [ "${TP_VM_SOAK:-0}" != 1 ] && continue
		scenarios+=("$f")
	done
fi
[ ${#scenarios[@]} -gt 0 ] || skip "no scenarios in test/vm"
name_of() { local n=${1##*/}; echo "${n%.sh}"; }
# the limit a scenario declares ("# vm-timeout: SECONDS"), else 0
declared_limit() { sed -n 's/^# vm-timeout: *\([0-9][0-9]*\).*/\1/p' "$1" | head -1 | grep . || echo 0; }
# the boot's limit, a backstop behind the guest's own limit on each
# scenario (which stops a scenario that hangs): every scenario's limit plus
# 300 s for booting, the clean-up between scenarios and power-off, at most
# an hour (a loaded host runs the twelve scenarios in 15-20 minutes)
TIMEOUT=300
for p in "${scenarios[@]}"; do
	d=$(declared_limit "$p")
	[ "$d" -gt "$SCENARIO_TIMEOUT" ] || d=$SCENARIO_TIMEOUT
	TIMEOUT=$((TIMEOUT + d))
done
[ "$TIMEOUT" -le 3600 ] || TIMEOUT=3600
TIMEOUT=${TP_VM_TIMEOUT:-$TIMEOUT}

# ---- prerequisites -----------------------------------------------------
. test/vm/kernel.sh
if ! vm_kernel_find && [ "$VM_KERNEL_BAD" = 1 ]; then
	echo "vm: TP_KERNEL=$TP_KERNEL: say 6.1 or 6.12"
	report 0 1
	exit 1
fi
QEMU=$(command -v qemu-system-x86_64) || skip "qemu-system-x86_64 is not installed (scripts/install-deps.sh)"
[ -n "$KVER" ] && [ -f "$KIMG" ] ||
	skip "no kernel image in $KDIR (scripts/fetch-kernel.sh ${TP_KERNEL:-6.1} unpacks Debian's)"
BUSYBOX=$(command -v busybox) || skip "busybox is not installed (busybox-static)"
for t in cpio depmod modprobe xz; do
	command -v $t >/dev/null || skip "$t is not installed"
done
[ -x "$BUILD/test/bin/tp-dmtest" ] || { echo "vm: $BUILD/test/bin/tp-dmtest is missing: build with 'make tests' first"; report 0 ${#scenarios[@]}; exit 1; }
if [ "$(id -u)" != 0 ]; then
	# the 9p share exports the host's / as this user: the guest's root
	# could not read root-owned files
	echo "vm: note: not root; files only root can read are invisible in the guest"
fi

t_start=$(date +%s.%N)
mkdir -p "$WORK"
ROOT=$WORK/initramfs
rm -rf "$ROOT"
mkdir -p "$ROOT"/{bin,dev,proc,sys,run,tmp,etc,hostroot}

# ---- initramfs: busybox + the kernel modules, nothing else ------------
cp "$BUSYBOX" "$ROOT/bin/busybox"
for a in sh mount umount mkdir insmod chroot poweroff cat cut sync sleep echo ls; do
	ln -s busybox "$ROOT/bin/$a"
done
# Loaded at boot: virtio disks, 9p, dm thin, md raid. Only copied (loaded
# by scenarios with modprobe): the rest. Compressed modules (6.12: .ko.xz)
# are unpacked (kernel.sh).
BOOT_MODULES="virtio_pci virtio_blk 9pnet_virtio 9p dm-mod dm-thin-pool md-mod raid456"
MORE_MODULES="brd loop raid0 raid1 raid10 linear ext4 xfs dm-delay dm-flakey dm-log-writes dm-snapshot
	dm-multipath dm-round-robin dm-raid dm-integrity crc32c_generic dm-crypt xts"
# shellcheck disable=SC2086 # lists of module names
vm_copy_modules "$ROOT" $BOOT_MODULES $MORE_MODULES || skip "depmod failed on $KBASE"
# shellcheck disable=SC2086
vm_modfiles $BOOT_MODULES | sed -E 's/\.ko\.(xz|zst)$/.ko/' >"$ROOT/etc/modules.boot"
cp test/vm/init.sh "$ROOT/init"
chmod 755 "$ROOT/init"
INITRD=$WORK/initramfs.cpio
(cd "$ROOT" && find . | cpio -o -H newc --quiet) >"$INITRD"

# ---- kernel: the uncompressed vmlinux through PVH (no in-guest
# decompression under emulation), cached per kernel version --------------
BOOT=$(vm_vmlinux "$WORK")

# ---- disks: each host's scratch disks, then the shared ones ------------
letters=abcdefghijklmnopqrstuvwxyz
# host_drives H: DRIVES (QEMU options) and DISKS (guest paths, as the
# guest will probably name them) of host H
host_drives() {
	local h=$1 i f tag=${1#-}
	DRIVES=() DISKS=""
	for ((i = 0; i < NDISKS; i++)); do
		f=$WORK/${tag:+$tag-}disk$i.img
		rm -f "$f"
		truncate -s "$DISK_SIZE" "$f"
		DRIVES+=(-drive "file=$f,if=virtio,format=raw,cache=${TP_VM_DISK_CACHE:-unsafe}")
		DISKS="$DISKS,/dev/vd${letters:i:1}"
	done
	# shared: the same file in both QEMUs, through the host's page cache
	# (one cache for both, so what one guest writes with O_DIRECT or a
	# flush the other reads), image locking off
	for ((i = 0; i < NSHARED; i++)); do
		f=$WORK/shared$i.img
		DRIVES+=(-drive "file=$f,if=none,id=shared$i,format=raw,cache=writeback,file.locking=off"
			 -device "virtio-blk-pci,drive=shared$i,share-rw=on,serial=tpshared$i")
	done
	DISKS=${DISKS#,}
}
for ((i = 0; i < NSHARED; i++)); do
	rm -f "$WORK/shared$i.img"
	truncate -s "$DISK_SIZE" "$WORK/shared$i.img"
done
if [ "$HOSTS" = 2 ]; then
	rm -rf "$WORK/sync"
	mkdir -p "$WORK/sync"
fi

# ---- boot ----------------------------------------------------------------
t_boot=$(date +%s.%N)
shared_note=""
[ "$HOSTS" = 2 ] && shared_note=" each; 2 hosts sharing $NSHARED more"
echo "vm: kernel $KVER (${BOOT##*/} from $KDIR), ${#scenarios[@]} scenario(s), $SMP vCPU, ${MEM} MiB, $NDISKS disks of $DISK_SIZE$shared_note"
scen_list=$(IFS=,; echo "${scenarios[*]}")
OUT_SHARE=()
ICOUNT=()
[ -n "${TP_VM_ICOUNT:-}" ] && ICOUNT=(-icount "$TP_VM_ICOUNT" -rtc clock=vm)
if [ -n "${TP_VM_OUT:-}" ]; then
	mkdir -p "$TP_VM_OUT" || { echo "vm: cannot make TP_VM_OUT=$TP_VM_OUT"; report 0 1; exit 1; }
	OUT_SHARE=(-virtfs "local,path=$(realpath "$TP_VM_OUT"),mount_tag=out,security_model=none")
fi
SYNC_SHARE=()
[ "$HOSTS" = 2 ] &&
	SYNC_SHARE=(-virtfs "local,path=$(realpath "$WORK/sync"),mount_tag=sync,security_model=none")
qpids=() LOGS=() qtags=()
# boot_host H SCENARIOS [BOOT]: start host H's QEMU (BOOT 2: again, after the
# guest asked for it, its console log appended to), its pid in qpids[]
boot_host() {
	local h=$1 scens=$2 boot=${3:-1} tag disk_bytes LOG ENVFILE APPEND
	tag=${h#-}
	host_drives "$h"
	disk_bytes=$(stat -c %s "$WORK/${tag:+$tag-}disk0.img" 2>/dev/null || echo 0)
	# one log per kernel (run-all.sh boots two in turn) and host
	LOG=$WORK/console-$KVER${tag:+-$tag}.log
	# empty now, not when QEMU's redirection runs: the tail below must not
	# show the last boot's log first
	[ "$boot" = 1 ] && { : >"$LOG"; LOGS+=("$LOG"); }
	# knobs for the scenarios: a file the guest reads through the shared root
	ENVFILE=$(cd "$WORK" && pwd -P)/guest${tag:+-$tag}.env
	{
		env | grep -E '^FAULT_[A-Z0-9_]*=[A-Za-z0-9_.,-]*$' | sed 's/^/export /'
		# (guest.sh finds the shared disks by their serial numbers)
		[ -n "$tag" ] && echo "export TP_HOST=$tag"
		# TP_BOOT=2 for the scenario the host crashed in only (guest.sh)
		[ "$boot" = 2 ] && echo "export TP_BOOT_AGAIN=${scens%%,*}"
	} >"$ENVFILE"
	# two hosts: a monitor on FIFOs, for a guest's request to be paused
	MONITOR=()
	if [ "$HOSTS" = 2 ]; then
		[ -p "$WORK/mon-$tag.in" ] || mkfifo "$WORK/mon-$tag.in" "$WORK/mon-$tag.out"
		MONITOR=(-monitor "pipe:$WORK/mon-$tag")
	fi
	APPEND="console=ttyS0 panic=-1 loglevel=3 mitigations=off rdinit=/init"
	APPEND="$APPEND -- $SRC $BUILD $DISKS $disk_bytes $scens $SCENARIO_TIMEOUT $ENVFILE"
	timeout "$TIMEOUT" "$QEMU" -nodefaults -machine pc -accel tcg -cpu max -smp "$SMP" -m "$MEM" \
		-display none -serial stdio -no-reboot -kernel "$BOOT" -initrd "$INITRD" \
		-append "$APPEND" "${DRIVES[@]}" \
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
		"${OUT_SHARE[@]}" "${SYNC_SHARE[@]}" "${ICOUNT[@]}" "${MONITOR[@]}" \
		</dev/null >>"$LOG" 2>&1 &
	qpids+=($!)
	qtags+=("$tag")
	# show scenario output as it comes (the console log is the record)
	tail -n "$([ "$boot" = 1 ] && echo +1 || echo 0)" -f "$LOG" --pid=$! 2>/dev/null |
		sed -u -e 's/\r$//' -e '/^\[ *[0-9.]*\]/d' ${tag:+-e "s/^/[$tag] /"} &
}
for h in $HOST_NAMES; do
	boot_host "$h" "$scen_list"
done
# Two hosts: a guest that crashes itself for a scenario (sysrq, so QEMU
# exits: -no-reboot) first leaves $TP_SYNC/boot-again.HOST naming the
# scenario's path; its QEMU is then started again with that scenario alone
# and TP_BOOT=2 (the scenario's second half: the host after its crash).
# A guest that asks to be paused (stop, as a hypervisor pauses a machine)
# writes "stop SECONDS" or "sigstop SECONDS" to $TP_SYNC/pause.HOST: its
# QEMU gets the monitor's stop and cont (the guest's clocks stand still
# meanwhile), or SIGSTOP and SIGCONT (its clocks jump on), SECONDS apart or
# sooner, when the other guest leaves $TP_SYNC/unpause.HOST; then
# $TP_SYNC/resumed.HOST says that it runs again.
# pause_host TAG PID HOW SECONDS (in the background)
pause_host() {
	local tag=$1 pid=$2 how=$3 secs=$4
	# PID is the timeout(1) that runs the host's QEMU: stop its child
	local of=""
	[ "$how" = sigstop ] && pid=$(ps -o pid= --ppid "$pid" | head -1 | tr -d ' ') &&
		of=" of pid $pid"
	echo "vm: host $tag paused ($how$of) for $secs s at most"
	if [ "$how" = sigstop ]; then
		kill -STOP "$pid"
	else
		timeout 5 sh -c 'echo stop >"$1"' - "$WORK/mon-$tag.in"
	fi
	# SECONDS at most; the other guest may end the pause sooner
	for ((t = 0; t < secs; t++)); do
		[ -e "$WORK/sync/unpause.$tag" ] && break
		sleep 1
	done
	rm -f "$WORK/sync/unpause.$tag"
	if [ "$how" = sigstop ]; then
		kill -CONT "$pid"
	else
		timeout 5 sh -c 'echo cont >"$1"' - "$WORK/mon-$tag.in"
	fi
	: >"$WORK/sync/resumed.$tag"
	echo "vm: host $tag resumed"
}
qrc=0
while :; do
	alive=0
	for i in "${!qpids[@]}"; do
		q=${qpids[$i]}
		[ -n "$q" ] || continue
		if kill -0 "$q" 2>/dev/null; then
			alive=1
			req=$WORK/sync/pause.${qtags[$i]}
			if [ "$HOSTS" = 2 ] && [ -s "$req" ]; then
				read -r how secs <"$req"
				rm -f "$req" "$WORK/sync/resumed.${qtags[$i]}"
				case $how:$secs in
				stop:[0-9]* | sigstop:[0-9]*) pause_host "${qtags[$i]}" "$q" "$how" "$secs" & ;;
				*) echo "vm: host ${qtags[$i]}: a pause request '$how $secs' (want stop|sigstop SECONDS)" ;;
				esac
			fi
			continue
		fi
		wait "$q" || { r=$?; [ "$qrc" = 124 ] || qrc=$r; }
		qpids[$i]=""
		again=$WORK/sync/boot-again.${qtags[$i]}
		if [ "$HOSTS" = 2 ] && [ -s "$again" ]; then
			scen=$(cat "$again")
			rm -f "$again"
			# that scenario and the ones after it (the other host runs them too)
			rest=$(tr ',' '\n' <<<"$scen_list" | sed -n "\|^$scen\$|,\$p" | paste -sd, -)
			echo "vm: host ${qtags[$i]} crashed on request; booting it again for ${scen##*/}"
			boot_host "${qtags[$i]}" "${rest:-$scen}" 2
			alive=1
		fi
	done
	[ "$alive" = 1 ] || break
	sleep 1
done
wait 2>/dev/null
t_end=$(date +%s.%N)

# ---- results -------------------------------------------------------------
passed=0
failed=0
early="the VM stopped early"
[ "$qrc" = 124 ] && early="the VM ran past TP_VM_TIMEOUT=${TIMEOUT}s and was stopped"
echo
# result_of S LOG: "RC SECS" of scenario S in LOG, or nothing
result_of() {
	# (anywhere in a line: a scenario's last output may lack its newline)
	tr -d '\r' <"$2" | grep -o "VMTEST-SCENARIO $1 .*" | tail -1 | cut -d' ' -f3,4
}
for p in "${scenarios[@]}"; do
	s=$(name_of "$p")
	rc=0 secs=0 where=""
	for LOG in "${LOGS[@]}"; do
		[ "$HOSTS" = 2 ] && { where=${LOG%.log}; where=" on host ${where##*-}"; }
		r=$(result_of "$s" "$LOG")
		if [ -z "$r" ]; then
			rc=none
			break
		fi
		set -- $r
		secs=$2
		[ "$1" = 0 ] && continue
		rc=$1
		[ "$1" = 77 ] || break
	done
	if [ "$rc" = none ]; then
		printf 'vm: %-28s FAIL (no result%s: %s)\n' "$s" "$where" "$early"
		failed=$((failed + 1)); failed_names+=("$s on $KVER (no result$where: $early)")
	elif [ "$rc" = 0 ]; then
		printf 'vm: %-28s PASS  %6ss\n' "$s" "$secs"
		passed=$((passed + 1))
	elif [ "$rc" = 77 ]; then
		printf 'vm: %-28s SKIP  %6ss\n' "$s" "$secs"
	else
		printf 'vm: %-28s FAIL  %6ss (rc %s%s)\n' "$s" "$secs" "$rc" "$where"
		# its first FAIL lines, for the summary at the end of run-all.sh
		why=$(tr -d '\r' <"$LOG" | sed -n "/^=== \[[0-9.]*s\] $s\$/,/VMTEST-SCENARIO $s /p" |
			grep -E '^FAIL' | head -2 | cut -c1-160 | paste -sd ';' -)
		failed=$((failed + 1)); failed_names+=("$s on $KVER (rc $rc after ${secs}s$where)${why:+: $why}")
	fi
done
awk -v a="$t_start" -v b="$t_boot" -v c="$t_end" 'BEGIN {
	printf "vm: total VM time %.1fs (boot to power-off), setup %.1fs\n", c - b, b - a }'
echo "vm: $passed passed, $failed failed (console log$([ "$HOSTS" = 2 ] && echo s): ${LOGS[*]})"
report "$passed" "$failed"
if [ "${TP_VM_KEEP:-0}" != 1 ]; then
	rm -f "$WORK"/disk*.img "$WORK"/[ab]-disk*.img "$WORK"/shared*.img "$WORK"/mon-*.in "$WORK"/mon-*.out
	rm -rf "$ROOT"
fi
[ "$failed" = 0 ]
