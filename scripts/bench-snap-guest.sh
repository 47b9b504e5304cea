#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-snap-guest.sh - the guest half of scripts/bench-snap.sh (issue 14):
# the geometry matrix with after-snapshot workloads in steady state, on the
# real kernel (test/vm/run.sh, one vCPU).
#
# GEOM picks the array (level x members, md chunk):
#   r6x7-512k r6x6-512k r6x12-64k   md RAID6
#   r5x5-512k                       md RAID5
#   disk                            one member, no md, no stripe
# on brd ramdisks (BACKING=ram) or on the VM's virtio disks (BACKING=disk;
# the host runs QEMU with cache=none, so read-modify-write reads hit the
# host's disk). The array is cut into dm linear slices, each starting on a
# stripe boundary: slice 0 is measured raw, every other one holds one thin
# pool built with dmsetup (metadata on a ramdisk slice). The pools, derived
# from the geometry here (written to $TP_OUT/configs.csv):
#   balanced throughput snapshots
#              what tpcreate's profiles pick for this array: chunk, zeroing
#              and data offset from the real policy code (tp-probe plan on
#              /dev/md0, the same tp_policy_plan() tpcreate calls)
#   c64 c128 c256   64-256 KiB, zeroing off, data on a stripe boundary,
#              where the chunk keeps the invariant (divides the md chunk,
#              or a multiple of it that divides or is a multiple of the
#              full stripe) and no profile pool has it already
#   cMD cSTRIPE    the md chunk and the full stripe, zeroing off (likewise)
#   lvm        LVM 2.03's defaults (thin_pool_chunk_size_policy generic):
#              chunk max(64 KiB, minimum_io_size), zeroing on, data where
#              lvcreate puts it (see pe_start/lvm_offset below)
#   lvmperf    thin_pool_chunk_size_policy = "performance": chunk
#              max(512 KiB, optimal_io_size), zeroing on, same offset
# Each pool has a volume "prov" (id 0) written in full at set-up.
# Workloads (ratio to the raw slice in the same fio invocation):
#   pr4k       random 4K (qd 4) to prov: plain provisioned writes. It always
#              runs first in the boot: dm-thin judges a mapping shared by
#              its time against the volume's last snapshot, so once any c*
#              workload has snapshotted prov its blocks are copied on their
#              first write even after the snapshot is deleted
#   f1m f64k fr4k   fresh volume: sequential 1M / 64K, random 4K (qd 4)
#   c4k c64k   right after a snapshot of prov, sequential writes of 4K /
#              64K with a stride of the largest chunk under test, qd 1:
#              every write lands in a chunk still shared
#   cr4k       the same, random 4K writes aligned to that stride, qd 1 (no
#              random map: a few may land in an already broken chunk)
#   c1m        right after a snapshot, sequential 1M writes (qd 1)
# A short read job before and after the measured ones: under -icount the
# last job of a fio run measured 4-5% slower than the same job one place
# earlier, deterministically (the order rotates from run to run).
# The raw slice is measured at both ends of every fio run, first and last
# of the measured jobs ("raw@first", "raw@last" in runs.csv); "raw", the
# denominator of every ratio, is the first. Rotated with the pools, raw
# moved up to 10-80% from run to run while the pools' own rates moved
# 0.3-0.7% (median): a job's rate depends on the job before it. In the
# first place raw always follows the same short read and, with md's
# stripe cache emptied before every fio run (drop_stripe_cache), repeats
# to 1% under -icount except in the shortest jobs; raw@last shows what the
# place costs (reported by scripts/bench-snap-matrix.sh).
# Every job is bound by its amount of I/O, not by time, so under -icount a
# run repeats the same work, and waits SETTLE seconds (2; not counted in its
# rate) before it starts, so the work the previous job left behind (dm-thin
# commits its metadata once a second, md flushes its stripe cache) is done
# before it and not charged to it; under -icount with sleep=off idle guest
# time costs no host time. The snapshot is deleted after each run, so
# every run starts with every chunk of prov shared again.
#
# Each run rotates the order of the pools in the fio run by one place
# (ROTATE=1) so that no pool always follows the same one; ROTATE=0 keeps the
# order, so that runs are exact repeats (the spread of the method itself).
# PRETOUCH=1 (the default) writes the slices in use once before the pools
# are made: on brd the first write to a page allocates it, so without it
# run 1 of a workload that writes pages no earlier run touched is slower
# than run 2 (f1m 16-19%), and fresh volumes, which get chunks past the
# last ones allocated, pay it in every run.
# Reads $TP_OUT/bench.conf: GEOM, RUNS, SETTLE, ROTATE, PRETOUCH, WORKLOADS,
# CONFIGS (a subset of the names above), BACKING, VOL_MB, MODE (a label: wallclock or icount).
# Writes $TP_OUT/runs.csv (mode,backing,config,workload,run,mbps) and
# $TP_OUT/configs.csv (config,chunk_k,zero,offset_k,what).
. "$TP_SRC/test/vm/lib.sh"
[ -n "${TP_OUT:-}" ] || skip_scenario "needs TP_VM_OUT (results)"
[ -f "$TP_OUT/bench.conf" ] && . "$TP_OUT/bench.conf"
GEOM=${GEOM:-r6x7-512k}
RUNS=${RUNS:-2}
BACKING=${BACKING:-ram}
MODE=${MODE:-wallclock}
VOL_MB=${VOL_MB:-40}
SETTLE=${SETTLE:-2}
ROTATE=${ROTATE:-1}
PRETOUCH=${PRETOUCH:-1}
WORKLOADS=${WORKLOADS:-pr4k f1m f64k fr4k c4k c64k cr4k c1m}
CSV=$TP_OUT/runs.csv
CFGCSV=$TP_OUT/configs.csv
echo "mode,backing,config,workload,run,mbps" >"$CSV"
echo "config,chunk_k,zero,offset_k,what" >"$CFGCSV"
command -v fio >/dev/null || die "fio is not installed (scripts/install-deps.sh)"
command -v tp-probe >/dev/null || die "tp-probe is not built (make tests)"
mkdir -p /run/mdadm

# ---- geometry ----------------------------------------------------------------
case $GEOM in
r6x7-512k) LEVEL=6 NDEV=7 MDCHUNK_K=512 ;;
r6x6-512k) LEVEL=6 NDEV=6 MDCHUNK_K=512 ;;
r6x12-64k) LEVEL=6 NDEV=12 MDCHUNK_K=64 ;;
r5x5-512k) LEVEL=5 NDEV=5 MDCHUNK_K=512 ;;
disk) LEVEL=0 NDEV=1 MDCHUNK_K=0 ;;
*) die "unknown GEOM '$GEOM' (r6x7-512k r6x6-512k r6x12-64k r5x5-512k disk)" ;;
esac
if [ "$LEVEL" = 0 ]; then
	NDATA=1 MD_S=0 STRIPE_S=0 GRID_S=2048     # slices on 1 MiB boundaries
else
	NDATA=$((NDEV - (LEVEL == 6 ? 2 : 1)))
	MD_S=$((MDCHUNK_K * 2)) STRIPE_S=$((MDCHUNK_K * 2 * NDATA)) GRID_S=$STRIPE_S
fi

# pr4k must see a volume never snapshotted in this boot (see above)
case " $WORKLOADS " in *" pr4k "*) WORKLOADS="pr4k $(tr ' ' '\n' <<<"$WORKLOADS" | grep -vx pr4k | tr '\n' ' ')" ;; esac

# slice: prov + its snapshot's copies + a fresh volume + 16 MiB for the data
# offsets (LVM's is up to ~11 MiB), rounded up to whole grid units
SLICE_S=$(((VOL_MB * 3 + 16) * 2048))
SLICE_S=$(((SLICE_S + GRID_S - 1) / GRID_S * GRID_S))
MAXCFG=10
MEMBER_MB=$((SLICE_S * (MAXCFG + 1) / 2048 / NDATA + 8))

step "array: $GEOM on $BACKING (level ${LEVEL/#0/none}, $NDEV member(s), md chunk ${MDCHUNK_K}K, stripe $((STRIPE_S / 2))K), slices of $((SLICE_S / 2048)) MiB, volumes of $VOL_MB MiB, mode $MODE"
if [ "$BACKING" = ram ]; then
	vm_modprobe brd rd_nr=$((NDEV + 1)) rd_size=$((MEMBER_MB * 1024)) max_part=0 || die "modprobe brd"
	members=()
	for ((i = 0; i < NDEV; i++)); do members+=("/dev/ram$i"); done
	METADEV=/dev/ram$NDEV
else
	# shellcheck disable=SC2086 # one word per disk
	set -- $TP_DISKS
	[ $# -ge "$NDEV" ] || skip_scenario "needs $NDEV disks"
	[ "$TP_DISK_SIZE" -ge $((MEMBER_MB << 20)) ] || die "disks of $TP_DISK_SIZE bytes, need $MEMBER_MB MiB"
	members=("${@:1:NDEV}")
	vm_modprobe brd rd_nr=1 rd_size=$(((MAXCFG + 1) * 16 * 1024)) max_part=0 || die "modprobe brd"
	METADEV=/dev/ram0
fi
# metadata volumes: 16 MiB slices of one ramdisk; the other ramdisks are
# members and far larger
if [ "$LEVEL" = 0 ]; then
	ARRAY=${members[0]}
else
	ARRAY=/dev/md0
	must mdadm --create /dev/md0 --run --quiet --assume-clean --level="$LEVEL" \
		--raid-devices="$NDEV" --chunk="$MDCHUNK_K" --size=$((MEMBER_MB - 4))M \
		--metadata=1.2 "${members[@]}"
fi
echo "  topology of $ARRAY: $(tp-probe topology "$ARRAY" | tr '\n' ' ')"

# ---- configurations ------------------------------------------------------------
# CFG_<name>="chunk_sectors zero offset_sectors"; CFGS the order
CFGS=()
declare -A CFG WHAT
add() { # NAME CHUNK_S ZERO OFF_S WHAT: skip a duplicate of a pool already listed
	local n
	for n in "${CFGS[@]}"; do
		[ "${CFG[$n]}" = "$2 $3 $(($4 % (GRID_S))) " ] && { echo "  $1 = $n"; return 0; }
	done
	CFGS+=("$1")
	CFG[$1]="$2 $3 $(($4 % GRID_S)) "
	WHAT[$1]=$5
	OFF[$1]=$4
}
declare -A OFF
fits() { # CHUNK_S: the invariant of lib/pool/policy.h
	local c=$1
	[ "$MD_S" = 0 ] && return 0
	[ $((MD_S % c)) = 0 ] && return 0
	[ $((c % MD_S)) = 0 ] || return 1
	[ $((STRIPE_S % c)) = 0 ] || [ $((c % STRIPE_S)) = 0 ]
}
for p in balanced throughput snapshots; do
	tp-probe plan "$ARRAY" "$METADEV" profile=$p >plan.out 2>plan.err ||
		die "tp-probe plan $p: $(cat plan.err)"
	chunk=$(sed -n 's/^chunk=//p' plan.out)
	zero=$(sed -n 's/^zero=//p' plan.out)
	off=$(sed -n 's/^data_offset=//p' plan.out)
	add "$p" $((chunk / 512)) "$zero" $((off / 512)) "tpcreate --profile $p"
done
grid_off=$(((2048 + GRID_S - 1) / GRID_S * GRID_S))   # on the grid, >= 1 MiB
for k in 64 128 256; do
	fits $((k * 2)) && add c$k $((k * 2)) 0 "$grid_off" "${k}K, zeroing off"
done
[ "$MD_S" != 0 ] && add "c$MDCHUNK_K" "$MD_S" 0 "$grid_off" "md chunk, zeroing off"
[ "$STRIPE_S" != 0 ] && add c$((STRIPE_S / 2)) "$STRIPE_S" 0 "$grid_off" "full stripe, zeroing off"

# LVM 2.03 (lvmteam/lvm2; see README "Geometry policy" for the sources):
# pe_start: 1 MiB, moved to minimum_io_size then optimal_io_size when 1 MiB
# is not a multiple of them (lib/metadata/metadata.c set_pe_align); lvcreate
# then places the pool metadata spare (one 4 MiB extent for a small pool)
# and _tmeta (likewise) before _tdata (tools/lvcreate.c, the metadata area
# at the front of the allocation in lib/metadata/lv_manip.c
# _alloc_parallel_area)
topo_min=$(tp-probe topology "$ARRAY" | sed -n 's/^min_io=//p')
topo_opt=$(tp-probe topology "$ARRAY" | sed -n 's/^opt_io=//p')
pe_align=2048
for h in $((topo_min / 512)) $((topo_opt / 512)); do
	[ "$h" -gt 0 ] && [ $((pe_align % h)) != 0 ] && pe_align=$h
done
pe_start=$(((2048 + pe_align - 1) / pe_align * pe_align))
lvm_off=$((pe_start + 2 * 8192))
# chunk: generic = max(64 KiB, minimum_io_size hint when within 64 KiB..1 GiB),
# performance = max(512 KiB, optimal_io_size hint) (lib/metadata/pool_manip.c
# recalculate_pool_chunk_size_with_dev_hints); zeroing on (DEFAULT_THIN_POOL_ZERO)
lvm_chunk=128 lvmperf_chunk=1024
[ $((topo_min / 512)) -gt "$lvm_chunk" ] && lvm_chunk=$((topo_min / 512))
[ $((topo_opt / 512)) -gt "$lvmperf_chunk" ] && lvmperf_chunk=$((topo_opt / 512))
CFGS+=(lvm lvmperf)
OFF[lvm]=$lvm_off OFF[lvmperf]=$lvm_off
CFG[lvm]="$lvm_chunk 1 $lvm_off" CFG[lvmperf]="$lvmperf_chunk 1 $lvm_off"
WHAT[lvm]="LVM default (chunk policy generic)"
WHAT[lvmperf]="LVM chunk policy performance"

if [ -n "${CONFIGS:-}" ]; then
	keep=()
	for c in "${CFGS[@]}"; do
		case " $CONFIGS " in *" $c "*) keep+=("$c") ;; esac
	done
	CFGS=("${keep[@]}")
fi
[ "${#CFGS[@]}" -le "$MAXCFG" ] || die "${#CFGS[@]} configurations, at most $MAXCFG"
STRIDE_S=0
for c in "${CFGS[@]}"; do
	read -r chunk zero _ <<<"${CFG[$c]}"
	[ "$chunk" -gt "$STRIDE_S" ] && STRIDE_S=$chunk
	echo "$c,$((chunk / 2)),$zero,$((OFF[$c] / 2)),${WHAT[$c]}" >>"$CFGCSV"
done
NSLICES=$((${#CFGS[@]} + 1))
[ $(($(blockdev --getsz "$ARRAY") / SLICE_S)) -ge "$NSLICES" ] || die "array too small"
if [ "$PRETOUCH" = 1 ]; then
	step "pre-writing the $NSLICES slices in use and their metadata (brd allocates a page on its first write)"
	must dd if=/dev/zero of="$ARRAY" bs=1M count=$((NSLICES * SLICE_S / 2048)) oflag=direct status=none
	must dd if=/dev/zero of="$METADEV" bs=1M count=$((NSLICES * 16)) oflag=direct status=none
fi

# ---- pools -------------------------------------------------------------------
# pool CONFIG K: slice K of the array; creates <cfg>-pool and <cfg>-0
# (prov), written in full
pool() {
	local c=$1 k=$2 chunk zero off size
	read -r chunk zero _ <<<"${CFG[$c]}"
	off=${OFF[$c]}
	size=$(((SLICE_S - off) / chunk * chunk))
	must dmsetup create "$c-meta" --table "0 32768 linear $METADEV $((k * 32768))"
	must dd if=/dev/zero of="/dev/mapper/$c-meta" bs=1M count=1 oflag=direct status=none
	must dmsetup create "$c-data" --table "0 $size linear $ARRAY $((k * SLICE_S + off))"
	if [ "$zero" = 1 ]; then
		must dmsetup create "$c-pool" --table "0 $size thin-pool /dev/mapper/$c-meta /dev/mapper/$c-data $chunk 0"
	else
		must dmsetup create "$c-pool" --table "0 $size thin-pool /dev/mapper/$c-meta /dev/mapper/$c-data $chunk 0 1 skip_block_zeroing"
	fi
	must dmsetup message "$c-pool" 0 "create_thin 0"
	must dmsetup create "$c-0" --table "0 $((VOL_MB * 2048)) thin /dev/mapper/$c-pool 0"
	must dd if=/dev/zero of="/dev/mapper/$c-0" bs=1M count="$VOL_MB" oflag=direct status=none
	echo "  $c: chunk $((chunk / 2))K, zeroing $zero, data at $((off / 2))K of a slice on the grid (${WHAT[$c]})"
}
k=1
for c in "${CFGS[@]}"; do
	pool "$c" $k
	k=$((k + 1))
done
must dmsetup create raw --table "0 $((VOL_MB * 2048)) linear $ARRAY 0"
echo "  stride of the after-snapshot workloads: $((STRIDE_S / 2))K"

# ---- one run -----------------------------------------------------------------
# WORKLOAD: the fio [global] section; every job is bound by its I/O. The c*
# jobs make one pass (number_ios): fio would wrap around and rewrite the
# chunks it has already unshared until it had written size bytes.
job() {
	local size=$((VOL_MB << 20)) st=$((STRIDE_S / 2))
	printf '[global]\nthread\ndirect=1\nioengine=libaio\nsize=%s\nrandrepeat=1\nstartdelay=%s\n' \
		"$size" "$SETTLE"
	case $1 in
	f1m) printf 'rw=write\nbs=1m\niodepth=4\n' ;;
	f64k) printf 'rw=write\nbs=64k\niodepth=4\n' ;;
	fr4k | pr4k) printf 'rw=randwrite\nbs=4k\niodepth=4\nio_size=%s\n' $((size / 2)) ;;
	c4k) printf 'rw=write:%sk\nbs=4k\niodepth=1\nnumber_ios=%s\n' $((st - 4)) $((VOL_MB * 1024 / st)) ;;
	c64k) printf 'rw=write:%sk\nbs=64k\niodepth=1\nnumber_ios=%s\n' $((st - 64)) $((VOL_MB * 1024 / st)) ;;
	cr4k) printf 'rw=randwrite\nbs=4k\nblockalign=%sk\nnorandommap=1\niodepth=1\nnumber_ios=%s\n' \
		"$st" $((VOL_MB * 1024 / st)) ;;
	c1m) printf 'rw=write\nbs=1m\niodepth=1\n' ;;
	esac
}
# drop_stripe_cache: empty md's stripe cache (shrink it to its least and
# back): a run would otherwise find the stripes that the run before it
# left cached (raw@last of run 1 made raw@first of run 2 of c64k on RAID6
# 7x512K 34% faster), and a partial-stripe write to a cached stripe skips
# the reads of its read-modify-write
drop_stripe_cache() {
	local f=/sys/block/md0/md/stripe_cache_size n
	[ "$LEVEL" != 0 ] && [ -w "$f" ] || return 0
	n=$(cat "$f")
	echo 17 >"$f" && echo "$n" >"$f" || note_fail "cannot cycle $f"
}
N=0
run_once() { # WORKLOAD RUN
	local w=$1 r=$2 c dev order=() i line name v
	for ((i = 0; i < ${#CFGS[@]}; i++)); do
		order+=("${CFGS[$(((i + (ROTATE ? r - 1 : 0)) % ${#CFGS[@]}))]}")
	done
	order=(raw@first "${order[@]}" raw@last)
	N=$((N + 1))
	{
		job "$w"
		printf '[warmup]\nfilename=/dev/mapper/raw\nrw=read\nnumber_ios=64\nstonewall\nnew_group\n'
		for c in "${order[@]}"; do
			dev=/dev/mapper/$c-0
			case $c:$w in
			raw@*) dev=/dev/mapper/raw ;;
			*:f*)
				must dmsetup message "$c-pool" 0 "create_thin $N"
				must dmsetup create "$c-$N" --table "0 $((VOL_MB * 2048)) thin /dev/mapper/$c-pool $N"
				dev=/dev/mapper/$c-$N
				;;
			*:c*)
				must dmsetup suspend "$c-0"
				must dmsetup message "$c-pool" 0 "create_snap $N 0"
				must dmsetup resume "$c-0"
				;;
			esac
			printf '[%s]\nfilename=%s\nstonewall\nnew_group\n' "$c" "$dev"
		done
		printf '[tail]\nfilename=/dev/mapper/raw\nrw=read\nnumber_ios=64\nstonewall\nnew_group\n'
	} >job.fio
	sync
	echo 3 >/proc/sys/vm/drop_caches
	drop_stripe_cache
	fio --minimal job.fio >fio.out 2>fio.err || note_fail "$w run $r: fio failed: $(head -3 fio.err)"
	line="  $w run $r (MB/s):"
	while IFS=';' read -r -a f; do
		[ "${#f[@]}" -gt 48 ] || continue
		name=${f[2]}
		case $name in warmup | tail) continue ;; esac
		v=$(awk -v a="${f[6]}" -v b="${f[47]}" 'BEGIN { printf "%.2f", (a + b) * 1.024 / 1000 }')
		echo "$MODE,$BACKING,$name,$w,$r,$v" >>"$CSV"
		line="$line $name $v"
		[ "$name" = raw@first ] && echo "$MODE,$BACKING,raw,$w,$r,$v" >>"$CSV"
	done <fio.out
	echo "$line"
	for c in "${CFGS[@]}"; do
		case $w in
		f*)
			check dmsetup remove "$c-$N"
			check dmsetup message "$c-pool" 0 "delete $N"
			;;
		c*) check dmsetup message "$c-pool" 0 "delete $N" ;;
		esac
	done
}

for w in $WORKLOADS; do
	for ((r = 1; r <= RUNS; r++)); do
		run_once "$w" "$r"
	done
done

step "metadata used per pool (blocks of 4 KiB: used/total)"
for c in "${CFGS[@]}"; do
	echo "  $c: $(dmsetup status "$c-pool" | awk '{ print $5 }')"
done
for c in "${CFGS[@]}"; do
	check dmsetup remove "$c-0"
	check dmsetup remove "$c-pool"
	check dmsetup remove "$c-data"
	check dmsetup remove "$c-meta"
done
check dmsetup remove raw
[ "$LEVEL" = 0 ] || check mdadm --stop --quiet /dev/md0
step "done"
finish
