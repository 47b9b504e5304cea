#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-throughput-guest.sh - the guest half of scripts/bench-throughput.sh
# (issue 7). Runs inside the test VM (test/vm/run.sh, one vCPU) on brd
# ramdisks and measures, with fio, one target geometry at a time (md RAID6,
# RAID5, a plain ramdisk) in these configurations:
#   raw          the array itself
#   linear       a dm linear mapping of it
#   tp-fresh     tptools pool, --profile throughput (whole stripes): a new volume
#   tp-prov      ... a fully provisioned volume
#   tp-snap      ... a provisioned volume just snapshotted (writes break sharing)
#   lvm-fresh    LVM's defaults (64 KiB chunk, zeroing on, data at 1 MiB): new volume
#   lvm-prov     ... provisioned volume
#   field-fresh  the field report's pool (1 MiB chunk, zeroing on): new volume
#   field-prov   ... provisioned volume
# Each configuration has its own array of the same geometry (raw and linear
# share one), so all of them exist at once and one fio invocation measures a
# workload on every configuration back to back (stonewalled jobs): a run's
# ratios compare figures taken seconds apart, which keeps the host's load
# swings (the emulator shares 2 cores) out of them.
#
# Reads $TP_OUT/bench.conf (from the host half): QUICK, RUNS, RT (seconds
# per job), TARGETS, WORKLOADS, CONFIGS (overrides, for experiments), BUDGET
# (seconds: past it no further run starts, the rest is reported as skipped,
# so a loaded host still gets a table in time). Writes $TP_OUT/runs.csv:
#   target,config,workload,run,mbps      (MB/s = 10^6 bytes/s)
# Only ratios between figures of the same run mean anything (emulation).
. "$TP_SRC/test/vm/lib.sh"
[ -n "${TP_OUT:-}" ] || skip_scenario "needs TP_VM_OUT (results)"
[ -f "$TP_OUT/bench.conf" ] && . "$TP_OUT/bench.conf"
QUICK=${QUICK:-0}
RUNS=${RUNS:-3}
RT=${RT:-1}
RD_MB=${RD_MB:-80}               # each ramdisk
BUDGET=${BUDGET:-0}              # 0: no limit
T_START=$(now)
SKIPPED=0
over_budget() {
	[ "$BUDGET" -gt 0 ] && awk -v a="$T_START" -v b="$(now)" -v l="$BUDGET" 'BEGIN { exit !(b - a > l) }'
}
if [ "$QUICK" = 1 ]; then
	TARGETS=${TARGETS:-r6x7-512k}
else
	TARGETS=${TARGETS:-r6x7-512k r6x6-512k r6x7-64k r5x5-512k plain}
fi
CSV=$TP_OUT/runs.csv
echo "target,config,workload,run,mbps" >"$CSV"
export TPTOOLS_DIR=$PWD/etc
mkdir -p "$TPTOOLS_DIR" /run/mdadm
command -v fio >/dev/null || die "fio is not installed (scripts/install-deps.sh)"

# ---- workloads -------------------------------------------------------
# sw<bs>/rw<bs>: sequential/random O_DIRECT writes (libaio, queue depth 4)
# pr: 16 parallel O_DIRECT readers, queue depth 16 each, 64 KiB reads
# br<bs>: buffered sync reads, page cache dropped first (dd-style)
W_ALL="sw4k sw8k sw16k sw64k sw1m rw4k rw8k rw16k rw64k rw1m"
B_ALL="br512 br64k"

# fio_global WORKLOAD: the [global] section
fio_global() {
	local w=$1 size=$((VOL_MB << 20))
	echo "[global]"
	echo "runtime=$RT"
	echo "thread"          # jobs as threads: a fork under emulation costs ~0.3 s
	case $w in
	sw* | rw*)
		[ "${w:0:1}" = s ] && echo "rw=write" || echo "rw=randwrite"
		printf '%s\n' "bs=${w#??}" direct=1 ioengine=libaio iodepth=4 "size=$size"
		;;
	pr)
		printf '%s\n' rw=read bs=64k direct=1 ioengine=libaio iodepth=16 numjobs=16 \
			"size=$((size / 16))" "offset_increment=$((size / 16))" time_based \
			"runtime=$((RT * 2))"   # 16 threads: steadier over a longer run
		;;
	br*)
		printf '%s\n' rw=read "bs=${w#br}" direct=0 ioengine=sync "size=$size"
		;;
	esac
	echo "group_reporting"
}

# configurations measured by a workload (raw first)
configs_for() { # WORKLOAD FULL
	local c
	[ -n "${CONFIGS:-}" ] && { echo "$CONFIGS"; return; }
	case $1 in
	sw* | rw*) c="raw linear tp-fresh tp-prov tp-snap lvm-fresh field-fresh" ;;
	pr) c="raw linear tp-fresh tp-prov lvm-fresh lvm-prov field-fresh field-prov" ;;
	br*) c="raw linear tp-prov lvm-prov field-prov" ;;
	esac
	[ "$2" = 1 ] || c=$(tr ' ' '\n' <<<"$c" | grep -vx 'linear\|tp-snap' | tr '\n' ' ')
	echo $c
}

# ---- one run: make the per-run devices, one fio, remove them -----------
NVOL=0
run_once() { # TARGET WORKLOAD RUN CONFIGS...
	local t=$1 w=$2 r=$3 c dev line name v order i t0 t1 t2
	shift 3
	NVOL=$((NVOL + 1))
	# the order turns with the run, so no configuration always goes first
	order=()
	for ((i = 0; i < $#; i++)); do
		order+=("${@:$(((i + r - 1) % $# + 1)):1}")
	done
	t0=$(now)
	{
		fio_global "$w"
		# a short read of the raw device first: the first job of an
		# invocation is not a measured one
		printf '[warmup]\nfilename=%s\nrw=read\ndirect=1\nnumjobs=1\nruntime=300ms\ntime_based\nstonewall\nnew_group\n' "$RAW"
		for c in "${order[@]}"; do
			case $c in
			raw) dev=$RAW ;;
			linear) dev=/dev/mapper/blin ;;
			tp-fresh)
				must tvcreate -q -V ${VOL_MB}M -n f$NVOL tp >/dev/null
				dev=/dev/mapper/tp-f$NVOL
				;;
			tp-prov) dev=/dev/mapper/tp-prov ;;
			tp-snap)
				must tvsnap -q tp/sv -n s$NVOL >/dev/null
				dev=/dev/mapper/tp-sv
				;;
			lvm-fresh)
				must dmsetup message bpool 0 "create_thin $NVOL"
				must dmsetup create bthin$NVOL --table "0 $((VOL_MB * 2048)) thin /dev/mapper/bpool $NVOL"
				dev=/dev/mapper/bthin$NVOL
				;;
			lvm-prov) dev=/dev/mapper/bthin0 ;;
			field-fresh)
				must tvcreate -q -V ${VOL_MB}M -n f$NVOL fld >/dev/null
				dev=/dev/mapper/fld-f$NVOL
				;;
			field-prov) dev=/dev/mapper/fld-prov ;;
			esac
			printf '[%s]\nfilename=%s\nstonewall\nnew_group\n' "$c" "$dev"
		done
	} >job.fio
	sync
	echo 3 >/proc/sys/vm/drop_caches
	t1=$(now)
	fio --minimal job.fio >fio.out 2>fio.err || note_fail "$t $w run $r: fio failed: $(head -3 fio.err)"
	t2=$(now)
	line="  $t $w run $r (MB/s):"
	while IFS=';' read -r -a f; do
		[ "${#f[@]}" -gt 48 ] || continue
		name=${f[2]}
		[ "$name" = warmup ] && continue
		v=$(awk -v a="${f[6]}" -v b="${f[47]}" 'BEGIN { printf "%.1f", (a + b) * 1.024 / 1000 }')
		echo "$t,$name,$w,$r,$v" >>"$CSV"
		line="$line $name $v"
	done <fio.out
	echo "$line"
	for c in "$@"; do
		case $c in
		tp-fresh) check tvremove -q tp/f$NVOL >/dev/null ;;
		tp-snap) check tvremove -q tp/s$NVOL >/dev/null ;;
		lvm-fresh)
			check dmsetup remove bthin$NVOL
			check dmsetup message bpool 0 "delete $NVOL"
			;;
		field-fresh) check tvremove -q fld/f$NVOL >/dev/null ;;
		esac
	done
	awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$(now)" \
		'BEGIN { printf "    (set-up %.1fs, fio %.1fs, clean-up %.1fs)\n", b - a, c - b, d - c }'
}

fill() { # DEV: provision the measured region
	dd if=/dev/zero of="$1" bs=1M count="$VOL_MB" oflag=direct status=none || note_fail "filling $1"
}

# ---- arrays: four of the same geometry (raw+linear, tptools, LVM, field)
ramdisks_loaded=0
load_ramdisks() {
	[ $ramdisks_loaded = 1 ] && return
	vm_modprobe brd rd_nr=31 rd_size=$((RD_MB * 1024)) max_part=0 || die "modprobe brd"
	step "touching the ramdisks once (brd allocates on first write)"
	local i
	for ((i = 0; i < 31; i++)); do
		dd if=/dev/zero of=/dev/ram$i bs=1M count="$RD_MB" oflag=direct status=none
	done
	ramdisks_loaded=1
}
ARRAYS=()
make_array() { # K LEVEL MEMBERS CHUNK_K: array K on ram[7K...]; prints its device
	local k=$1 lvl=$2 n=$3 chunk=$4 i disks=()
	if [ "$lvl" = plain ]; then
		echo /dev/ram$((7 * k))
		return
	fi
	for ((i = 0; i < n; i++)); do disks+=(/dev/ram$((7 * k + i))); done
	mdadm --create /dev/md$k --run --quiet --assume-clean --level="$lvl" \
		--raid-devices="$n" --chunk="$chunk" --metadata=1.2 "${disks[@]}" >&2 || return 1
	echo /dev/md$k
}
make_target() { # NAME: sets RAW TPA LVA FLA (arrays), MT ML MF (metadata), VOL_MB
	local lvl n chunk k
	case $1 in
	plain) lvl=plain n=1 chunk=0 ;;
	r6x* | r5x*)
		lvl=${1:1:1}
		n=${1#r?x}
		n=${n%%-*}
		chunk=${1##*-}
		chunk=${chunk%k}
		;;
	*) die "unknown target $1" ;;
	esac
	ARRAYS=()
	local a
	for k in 0 1 2 3; do
		a=$(make_array $k "$lvl" "$n" "$chunk") || die "mdadm on array $k"
		ARRAYS+=("$a")
	done
	RAW=${ARRAYS[0]} TPA=${ARRAYS[1]} LVA=${ARRAYS[2]} FLA=${ARRAYS[3]}
	MT=/dev/ram28 ML=/dev/ram29 MF=/dev/ram30
	local mb=$(($(blockdev --getsize64 "$RAW") >> 20))
	# the tptools array holds prov + sv + sv's broken sharing + a fresh volume
	VOL_MB=$(((mb - 16) / 4))
	[ "$VOL_MB" -gt 64 ] && VOL_MB=64
	echo "  $1: 4 arrays of $mb MiB ($lvl, $n members, ${chunk}K chunk); measured region ${VOL_MB} MiB"
}
drop_target() {
	local a
	for a in "${ARRAYS[@]}"; do
		case $a in /dev/md*) must mdadm --stop --quiet "$a" ;; esac
	done
	for ((i = 0; i < 28; i++)); do mdadm --zero-superblock /dev/ram$i 2>/dev/null; done
	return 0
}

# ---- pools -------------------------------------------------------------
tp_pool() { # NAME DATA META ARGS...
	local n=$1 d=$2 m=$3
	shift 3
	must dd if=/dev/zero of="$m" bs=1M count=1 oflag=direct status=none
	must tpcreate --data "$d" --meta "$m" "$@" --force --yes "$n" >/dev/null
	tpstatus --noheadings --units k -o pool_chunk,pool_zero,pool_data_offset "$n" |
		awk -v n="$n" 'NF { o = $3; if (o ~ /^[0-9]+$/) o = o / 1024 "K"
			print "  pool " n ": chunk " $1 ", zeroing " $2 ", data offset " o; exit }'
	must tpactivate -q "$n" >/dev/null
	must tvcreate -q -V ${VOL_MB}M -n prov "$n" >/dev/null
	fill /dev/mapper/$n-prov
}
# LVM's defaults, built with dmsetup because tpcreate always starts the data
# stripe-aligned: 64 KiB chunk, zeroing on, data at 1 MiB (lvcreate's
# default data alignment); a thin volume "bthin0", provisioned
lvm_pool() {
	local size=$(($(blockdev --getsz "$LVA") - 2048))
	size=$((size / 128 * 128))
	must dd if=/dev/zero of="$ML" bs=1M count=1 oflag=direct status=none
	must dmsetup create bdata --table "0 $size linear $LVA 2048"
	must dmsetup create bpool --table "0 $size thin-pool $ML /dev/mapper/bdata 128 0 0"
	must dmsetup message bpool 0 "create_thin 0"
	must dmsetup create bthin0 --table "0 $((VOL_MB * 2048)) thin /dev/mapper/bpool 0"
	fill /dev/mapper/bthin0
	echo "  pool lvm: chunk 64K, zeroing yes, data offset 1024K (dmsetup)"
}
pools_remove() {
	local p
	for p in tp fld; do
		must tpdeactivate -q $p >/dev/null
		must tpremove -q -y $p >/dev/null
	done
	must dmsetup remove bthin0
	must dmsetup remove bpool
	must dmsetup remove bdata
}

run_target() { # NAME FULL(0/1)
	local t=$1 full=$2 W w r
	if over_budget; then
		echo "  SKIPPED (time budget ${BUDGET}s): target $t"
		echo "$t,all,all" >>"$TP_OUT/skipped.csv"
		SKIPPED=$((SKIPPED + 1))
		return
	fi
	step "target $t"
	make_target "$t"
	if [ -n "${WORKLOADS:-}" ]; then
		W=$WORKLOADS
	elif [ "$QUICK" = 1 ]; then
		W="sw1m rw4k pr br512"
	elif [ "$full" = 1 ]; then
		W="$W_ALL pr $B_ALL"
	else
		W="sw1m rw4k pr"
	fi
	must dmsetup create blin --table "0 $(blockdev --getsz "$RAW") linear $RAW 0"
	# whole-stripe chunks: the default before issue 14, the tables in README
	# were measured with it (scripts/bench-snap.sh measures the profiles)
	tp_pool tp "$TPA" "$MT" --chunk auto --zero auto --profile throughput
	must tvcreate -q -V ${VOL_MB}M -n sv tp >/dev/null
	fill /dev/mapper/tp-sv
	lvm_pool
	tp_pool fld "$FLA" "$MF" --chunk 1m --zero y
	for w in $W; do
		for ((r = 1; r <= RUNS; r++)); do
			if over_budget; then
				echo "  SKIPPED (time budget ${BUDGET}s): $t $w run $r"
				echo "$t,$w,$r" >>"$TP_OUT/skipped.csv"
				SKIPPED=$((SKIPPED + 1))
				continue
			fi
			# shellcheck disable=SC2046 # a list of words
			run_once "$t" "$w" "$r" $(configs_for "$w" "$full")
		done
	done
	must dmsetup remove blin
	pools_remove
	drop_target
}

step "benchmark: QUICK=$QUICK RUNS=$RUNS RT=${RT}s BUDGET=${BUDGET}s targets: $TARGETS; $(nproc) vCPU"
rm -f "$TP_OUT/skipped.csv"
load_ramdisks
for t in $TARGETS; do
	case $t in
	r6x7-512k | r6x6-512k) run_target "$t" 1 ;;
	*) run_target "$t" 0 ;;
	esac
done
step "done"
[ "$SKIPPED" = 0 ] || echo "$SKIPPED run(s) skipped: past the time budget of ${BUDGET}s"
finish
