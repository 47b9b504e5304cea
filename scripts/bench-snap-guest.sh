#!/bin/bash
# bench-snap-guest.sh - the guest half of scripts/bench-snap.sh (issue 14):
# the geometry matrix with after-snapshot workloads in steady state, on the
# real kernel (test/vm/run.sh, one vCPU).
#
# One md RAID6 7x512K array (full stripe 2.5 MiB) on brd ramdisks
# (BACKING=ram) or on the VM's virtio disks (BACKING=disk; the host runs
# QEMU with cache=none, so read-modify-write reads hit the host's disk).
# The array is cut into dm linear slices, each starting on a stripe
# boundary: slice 0 is measured raw, every other one holds one thin pool
# (built with dmsetup, metadata on a ramdisk slice):
#   c64 c128 c256 c512   64 KiB..512 KiB chunks (512 KiB = the md chunk),
#                        zeroing off, data on a stripe boundary; c64 is
#                        what tpcreate's balanced profile picks here
#   c2560                the full stripe, zeroing off (profile throughput)
#   c64z                 64 KiB, zeroing on (profile snapshots)
#   lvm                  LVM 2.03's default here: 512 KiB, zeroing on,
#                        data at 1 MiB (1 MiB off the stripe grid)
#   lvmperf              LVM's "performance" policy: the 2.5 MiB stripe,
#                        zeroing on, data at 1 MiB
# Each pool has a volume "prov" (id 0) written in full at set-up.
# Workloads (ratio to the raw slice in the same fio invocation):
#   f1m f64k fr4k   fresh volume: sequential 1M / 64K, random 4K (qd 4)
#   c4k c64k        right after a snapshot of prov, sequential writes of
#                   4K / 64K with a 2.5 MiB stride (the largest chunk under
#                   test), qd 1: every write lands in a chunk still shared
#   cr4k            the same, random 4K writes aligned to 2.5 MiB, qd 1
#                   (no random map: a few may land in an already broken
#                   chunk)
#   c1m             right after a snapshot, sequential 1M writes (qd 1)
#   pr4k            random 4K (qd 4) to prov: plain provisioned writes only
#                   when no c* workload ran before it in the boot (dm-thin
#                   copies blocks mapped before a snapshot of the volume,
#                   even one since deleted: it judges sharing by time)
# The snapshot is deleted after each run, so every run starts with every
# chunk of prov shared again.
#
# Reads $TP_OUT/bench.conf: RUNS, RT (seconds per job), WORKLOADS, CONFIGS,
# BACKING, VOL_MB, MODE (a label: wallclock or icount). Writes
# $TP_OUT/runs.csv: mode,backing,config,workload,run,mbps.
. "$TP_SRC/test/vm/lib.sh"
[ -n "${TP_OUT:-}" ] || skip_scenario "needs TP_VM_OUT (results)"
[ -f "$TP_OUT/bench.conf" ] && . "$TP_OUT/bench.conf"
RUNS=${RUNS:-2}
RT=${RT:-1}
BACKING=${BACKING:-ram}
MODE=${MODE:-wallclock}
VOL_MB=${VOL_MB:-40}
WORKLOADS=${WORKLOADS:-f1m f64k fr4k c4k c64k cr4k c1m pr4k}
CONFIGS=${CONFIGS:-c64 c128 c256 c512 c2560 c64z lvm lvmperf}
STRIPE_S=5120                       # 2.5 MiB in sectors
CSV=$TP_OUT/runs.csv
echo "mode,backing,config,workload,run,mbps" >"$CSV"
command -v fio >/dev/null || die "fio is not installed (scripts/install-deps.sh)"
mkdir -p /run/mdadm

# slice size: prov + its snapshot's copies + a fresh volume + slack,
# rounded up to whole stripes
SLICE_S=$(((VOL_MB * 3 + 8) * 2048))
SLICE_S=$(((SLICE_S + STRIPE_S - 1) / STRIPE_S * STRIPE_S))
NSLICES=$(($(wc -w <<<"$CONFIGS") + 1))
MEMBER_MB=$((SLICE_S * NSLICES / 2048 / 5 + 8))

step "array: RAID6 7x512K on $BACKING, $NSLICES slices of $((SLICE_S / 2048)) MiB, volumes of $VOL_MB MiB, mode $MODE"
if [ "$BACKING" = ram ]; then
	vm_modprobe brd rd_nr=8 rd_size=$((MEMBER_MB * 1024)) max_part=0 || die "modprobe brd"
	members=(/dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 /dev/ram4 /dev/ram5 /dev/ram6)
	METADEV=/dev/ram7
else
	set -- $TP_DISKS
	[ $# -ge 8 ] || skip_scenario "needs 8 disks"
	[ "$TP_DISK_SIZE" -ge $((MEMBER_MB << 20)) ] || die "disks of $TP_DISK_SIZE bytes, need $MEMBER_MB MiB"
	members=("$1" "$2" "$3" "$4" "$5" "$6" "$7")
	vm_modprobe brd rd_nr=1 rd_size=$((NSLICES * 16 * 1024)) max_part=0 || die "modprobe brd"
	METADEV=/dev/ram0
fi
must mdadm --create /dev/md0 --run --quiet --assume-clean --level=6 --raid-devices=7 \
	--chunk=512 --size=$((MEMBER_MB - 4))M --metadata=1.2 "${members[@]}"
[ $(($(blockdev --getsz /dev/md0) / SLICE_S)) -ge "$NSLICES" ] || die "array too small"

# ---- pools ---------------------------------------------------------------
# pool CONFIG K: slice K of the array; sets nothing, creates <cfg>-pool and
# <cfg>-0 (prov), written in full
pool() {
	local c=$1 k=$2 chunk zero off size
	case $c in
	c64) chunk=128 zero=0 off=$STRIPE_S ;;
	c128) chunk=256 zero=0 off=$STRIPE_S ;;
	c256) chunk=512 zero=0 off=$STRIPE_S ;;
	c512) chunk=1024 zero=0 off=$STRIPE_S ;;
	c2560) chunk=5120 zero=0 off=$STRIPE_S ;;
	c64z) chunk=128 zero=1 off=$STRIPE_S ;;
	lvm) chunk=1024 zero=1 off=2048 ;;
	lvmperf) chunk=5120 zero=1 off=2048 ;;
	*) die "unknown configuration $c" ;;
	esac
	size=$(((SLICE_S - off) / chunk * chunk))
	must dmsetup create "$c-meta" --table "0 32768 linear $METADEV $((k * 32768))"
	must dd if=/dev/zero of="/dev/mapper/$c-meta" bs=1M count=1 oflag=direct status=none
	must dmsetup create "$c-data" --table "0 $size linear /dev/md0 $((k * SLICE_S + off))"
	if [ "$zero" = 1 ]; then
		must dmsetup create "$c-pool" --table "0 $size thin-pool /dev/mapper/$c-meta /dev/mapper/$c-data $chunk 0"
	else
		must dmsetup create "$c-pool" --table "0 $size thin-pool /dev/mapper/$c-meta /dev/mapper/$c-data $chunk 0 1 skip_block_zeroing"
	fi
	must dmsetup message "$c-pool" 0 "create_thin 0"
	must dmsetup create "$c-0" --table "0 $((VOL_MB * 2048)) thin /dev/mapper/$c-pool 0"
	must dd if=/dev/zero of="/dev/mapper/$c-0" bs=1M count="$VOL_MB" oflag=direct status=none
	echo "  $c: chunk $((chunk / 2))K, zeroing $zero, data at $((off / 2))K of a stripe-aligned slice"
}
k=1
for c in $CONFIGS; do
	pool "$c" $k
	k=$((k + 1))
done
must dmsetup create raw --table "0 $((VOL_MB * 2048)) linear /dev/md0 0"

# ---- one run ---------------------------------------------------------------
job() { # WORKLOAD: the fio [global] section
	local size=$((VOL_MB << 20))
	printf '[global]\nthread\ndirect=1\nioengine=libaio\nsize=%s\nruntime=%s\n' "$size" "$RT"
	case $1 in
	f1m) printf 'rw=write\nbs=1m\niodepth=4\n' ;;
	f64k) printf 'rw=write\nbs=64k\niodepth=4\n' ;;
	fr4k | pr4k) printf 'rw=randwrite\nbs=4k\niodepth=4\n' ;;
	c4k) printf 'rw=write:2556k\nbs=4k\niodepth=1\n' ;;
	c64k) printf 'rw=write:2496k\nbs=64k\niodepth=1\n' ;;
	cr4k) printf 'rw=randwrite\nbs=4k\nblockalign=2560k\nnorandommap=1\niodepth=1\nnumber_ios=%s\n' \
		$((VOL_MB * 2 / 5)) ;;
	c1m) printf 'rw=write\nbs=1m\niodepth=1\n' ;;
	esac
}
N=0
run_once() { # WORKLOAD RUN
	local w=$1 r=$2 c dev order=() i line name v cfgs
	read -r -a cfgs <<<"raw $CONFIGS"
	for ((i = 0; i < ${#cfgs[@]}; i++)); do
		order+=("${cfgs[$(((i + r - 1) % ${#cfgs[@]}))]}")
	done
	N=$((N + 1))
	{
		job "$w"
		printf '[warmup]\nfilename=/dev/mapper/raw\nrw=read\nnumber_ios=64\nstonewall\nnew_group\n'
		for c in "${order[@]}"; do
			dev=/dev/mapper/$c-0
			case $c:$w in
			raw:*) dev=/dev/mapper/raw ;;
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
	} >job.fio
	sync
	echo 3 >/proc/sys/vm/drop_caches
	fio --minimal job.fio >fio.out 2>fio.err || fail "$w run $r: fio failed: $(head -3 fio.err)"
	line="  $w run $r (MB/s):"
	while IFS=';' read -r -a f; do
		[ "${#f[@]}" -gt 48 ] || continue
		name=${f[2]}
		[ "$name" = warmup ] && continue
		v=$(awk -v a="${f[6]}" -v b="${f[47]}" 'BEGIN { printf "%.2f", (a + b) * 1.024 / 1000 }')
		echo "$MODE,$BACKING,$name,$w,$r,$v" >>"$CSV"
		line="$line $name $v"
	done <fio.out
	echo "$line"
	for c in $CONFIGS; do
		case $w in
		f*)
			ok dmsetup remove "$c-$N"
			ok dmsetup message "$c-pool" 0 "delete $N"
			;;
		c*) ok dmsetup message "$c-pool" 0 "delete $N" ;;
		esac
	done
}

for w in $WORKLOADS; do
	for ((r = 1; r <= RUNS; r++)); do
		run_once "$w" "$r"
	done
done

step "metadata used per pool (blocks of 4 KiB: used/total)"
for c in $CONFIGS; do
	echo "  $c: $(dmsetup status "$c-pool" | awk '{ print $5 }')"
done
for c in $CONFIGS; do
	ok dmsetup remove "$c-0"
	ok dmsetup remove "$c-pool"
	ok dmsetup remove "$c-data"
	ok dmsetup remove "$c-meta"
done
ok dmsetup remove raw
ok mdadm --stop --quiet /dev/md0
step "done"
finish
