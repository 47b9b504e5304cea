#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-remove-guest.sh - the guest part of scripts/bench-remove.sh (run by
# test/vm/run.sh): the worst I/O stall of a fio job on one volume of a
# thin pool while another volume of the same pool, with CHUNKS mapped
# 64 KiB chunks, is removed: by tvremove (discards of 16 chunks, then the
# kernel's delete) and by LVM's lvremove (the kernel's delete message in
# one transaction), each pool on disks of its own, in one boot.
#
# The big volume's CHUNKS mappings are put into each pool's thin metadata
# while the pool is inactive (FILL=restore, the default): the metadata is
# dumped, one range of CHUNKS mappings is added to the big volume's device,
# and it is restored by thin_restore (for both, so both trees have the
# same shape): into the tptools pool's metadata area through a loop
# device, into a spare LV that lvconvert --poolmetadata then swaps in as
# the LVM pool's metadata. thin_check and tpcheck check both, and the
# kernel's status of each big volume after activation must show CHUNKS
# chunks mapped. The data chunks are never written (neither removal reads
# or writes them: the pools do not pass discards down). FILL=fio fills by
# one 4 KiB write per chunk through the kernel instead (zeroing off, so
# each write maps a whole chunk), about half an hour at 1M chunks under
# TCG. The measured volume is written first over its whole test range, so
# fio's random writes during the removal are overwrites: what they wait
# for is the pool's metadata lock, not provisioning.
# Results: $TP_OUT/results.txt (key=value lines) and the latency logs.
. "$TP_SRC/test/vm/lib.sh"
[ -n "${TP_OUT:-}" ] || skip_scenario "needs TP_VM_OUT (results)"
[ -f "$TP_OUT/bench.conf" ] && . "$TP_OUT/bench.conf"
CHUNKS=${CHUNKS:-1048576}
if [ "${BACKING:-disk}" = ram ]; then
	# three brd RAM disks of DISK_GIB each (pages are allocated on first
	# write, so only the metadata and the prewritten ranges take memory)
	vm_begin -e -k loop
	vm_modprobe brd rd_nr=3 rd_size=$((${DISK_GIB:-$((CHUNKS * 64 / 1048576 + 4))} * 1048576)) max_part=0 ||
		die "modprobe brd"
	disks=(/dev/ram0 /dev/ram1 /dev/ram2)
else
	vm_begin -n 3 -e -k loop
fi
FIO_MB=${FIO_MB:-256}
command -v fio >/dev/null || die "fio is not installed (scripts/install-deps.sh)"
command -v lvm >/dev/null || die "lvm2 is not installed on the host (scripts/install-deps.sh)"
RES=$TP_OUT/results.txt
: >"$RES"
big_gib=$(((CHUNKS * 64 + 1048575) / 1048576))

# LVM without udev, lvmetad, monitoring or backups (the host's /etc is
# read-only here); only the third disk
mkdir -p lvmconf /run/lock/lvm
cat >lvmconf/lvm.conf <<EOF
devices { obtain_device_list_from_udev = 0 use_devicesfile = 0 filter = [ "a|^${disks[2]}\$|", "r|.*|" ] }
activation { udev_sync = 0 udev_rules = 0 monitoring = 0 }
global { use_lvmpolld = 0 thin_check_executable = "" }
backup { backup = 0 archive = 0 }
EOF
export LVM_SYSTEM_DIR=$PWD/lvmconf

ms() { date +%s%3N; }

FILL=${FILL:-restore}
# fill DEV: one 4 KiB write at the start of each of CHUNKS chunks
fill() {
	fio --name=fill --filename="$1" --rw=write:60k --bs=4k --direct=1 --ioengine=libaio \
		--iodepth=32 --size=$((CHUNKS * 64))k --io_size=$((CHUNKS * 4))k --output=/dev/null ||
		die "fio fill of $1"
}
# addmap DEV_ID < XML > XML: a thin_dump/tpdump document with one range of
# CHUNKS mappings (data blocks from 0, time 0) added to device DEV_ID
addmap() {
	awk -v id="$1" -v n="$CHUNKS" '
	/<device / && $0 ~ "dev_id=\"" id "\"" {
		if ($0 !~ /mapped_blocks="0"/) { print "device " id " already maps blocks" > "/dev/stderr"; exit 1 }
		sub(/mapped_blocks="[0-9]*"/, "mapped_blocks=\"" n "\""); print
		printf "    <range_mapping origin_begin=\"0\" data_begin=\"0\" length=\"%d\" time=\"0\"/>\n", n
		found = 1; next }
	{ print }
	END { if (!found) { print "no device " id > "/dev/stderr"; exit 1 } }'
}
# restore_tp: CHUNKS mappings for rp/big, into the inactive pool's
# metadata area (a loop device over it) by thin_dump, the XML and
# thin_restore, as for the LVM pool (the same tool gives both the same
# tree: thin_restore fills its leaves about half, as the kernel's inserts
# do); thin_check, then tpcheck
restore_tp() {
	local off len id loop
	read -r off len <<<"$(tpstatus --units b --noheadings -o pool_meta_offset,pool_meta_length rp)"
	id=$(tpstatus --noheadings -o vol_name,vol_dev_id rp | awk '$1 == "big" { print $2 }')
	loop=$(losetup -f --show -o "${off%b}" --sizelimit "${len%b}" "${disks[1]}") || die "losetup"
	thin_dump "$loop" >tp-before.xml || die "thin_dump of rp's metadata area"
	addmap "$id" <tp-before.xml >tp-fill.xml || die "tp-fill.xml"
	thin_restore -q -i tp-fill.xml -o "$loop" || die "thin_restore into rp's metadata area"
	thin_check "$loop" || die "thin_check of rp's metadata area"
	losetup -d "$loop"
	must tpcheck rp
}
# restore_lvm: CHUNKS mappings for bvg/big: the pool's metadata swapped
# out into bvg/fillmeta, dumped, restored with the range, swapped back in
restore_lvm() {
	local size id
	must lvm vgchange -q -an bvg
	size=$(lvm lvs --noheadings --nosuffix --units b -o lv_metadata_size bvg/pool | tr -d ' ')
	id=$(lvm lvs --noheadings -o thin_id bvg/big | tr -d ' ')
	must lvm lvcreate -q -an -Zn -L "${size}b" -n fillmeta bvg
	must lvm lvconvert -q -y --thinpool bvg/pool --poolmetadata bvg/fillmeta
	must lvm lvchange -q -ay bvg/fillmeta
	thin_dump /dev/mapper/bvg-fillmeta >lvm-before.xml || die "thin_dump of bvg's pool metadata"
	addmap "$id" <lvm-before.xml >lvm-fill.xml || die "lvm-fill.xml"
	thin_restore -q -i lvm-fill.xml -o /dev/mapper/bvg-fillmeta || die "thin_restore"
	thin_check /dev/mapper/bvg-fillmeta || die "thin_check of bvg's restored metadata"
	must lvm lvchange -q -an bvg/fillmeta
	must lvm lvconvert -q -y --thinpool bvg/pool --poolmetadata bvg/fillmeta
	must lvm lvremove -q -y bvg/fillmeta
	must lvm vgchange -q -ay bvg
}
# mapped_chunks DMNAME: the chunks a thin device maps, by the kernel's status
mapped_chunks() {
	dmsetup status "$1" | awk '$3 == "thin" { print $4 / 128 }'
}
# prefill DEV's first FIO_MB MiB (the measured range)
prefill() {
	dd if=/dev/zero of="$1" bs=1M count="$FIO_MB" oflag=direct status=none || die "prefill $1"
}

# stats TAG LO HI: the latency of every I/O of fio job TAG that completed
# from LO to HI (Unix ms) into $RES. The guest's awk is mawk: sorted by
# sort, and the latency (ns) is passed on as fio wrote it, since mawk prints
# a number above 2^31 (2.1 s) as 5.35423e+09, which sort -n takes for 5:
# the runs before this fix lost every stall longer than 2.1 s that way
stats() {
	awk -F, -v lo="$2" -v hi="$3" '$1 >= lo && $1 <= hi { sub(/^ +/, "", $2); print $2 }' \
		"$TP_OUT/${1}_lat.1.log" | sort -n |
		awk -v tag="$1" '{ v[++n] = $1 }
		END {
			if (!n) { print tag ".ios=0"; exit }
			p99 = int(n * 0.99); if (p99 < 1) p99 = 1
			p50 = int(n * 0.5); if (p50 < 1) p50 = 1
			printf "%s.ios=%d\n%s.max_ms=%.2f\n%s.p99_ms=%.3f\n%s.p50_ms=%.3f\n",
				tag, n, tag, v[n] / 1e6, tag, v[p99] / 1e6, tag, v[p50] / 1e6
		}' >>"$RES"
	rm -f "$TP_OUT/${1}_clat.1.log" "$TP_OUT/${1}_slat.1.log"
}
# job TAG DEV: fio random writes on DEV until killed, logging each I/O's
# completion time in Unix ms (fio's own zero is its start, seconds after
# the shell's under TCG) and its latency
job() {
	fio --name="$1" --filename="$2" --rw=randwrite --bs=4k --direct=1 --ioengine=libaio \
		--iodepth=1 --size="${FIO_MB}M" --time_based --runtime=7200 \
		--write_lat_log="$TP_OUT/$1" --log_avg_msec=0 --log_unix_epoch=1 --eta=never \
		--output=/dev/null &
}
# writes DEV: the writes completed on DEV so far (its block statistics)
writes() {
	# (/dev/mapper's nodes are made by dmsetup, not links: by number)
	awk '{ print $5 }' "/sys/dev/block/$((0x$(stat -Lc %t "$1"))):$((0x$(stat -Lc %T "$1")))/stat"
}
# running DEV: wait until 2000 more writes completed on DEV (a fio job on it
# is running), at most 300 s
running() {
	local w0 i
	w0=$(writes "$1")
	for ((i = 0; i < 600; i++)); do
		[ $(($(writes "$1") - w0)) -ge 2000 ] && return 0
		sleep 0.5
	done
	die "no fio job writing to $1 after 300 s"
}
# measure TAG DEV CTL CMD...: fio random writes on DEV while CMD runs; the
# latency of every I/O that completed from 1 s before CMD to 1 s after it.
# CTL ("-": none) is the other pool's measured volume: a second job there
# over the same window (TAG_ctl) is the control, a pool CMD does not touch,
# so what it sees is the emulator's and the host's noise at that time
measure() {
	local tag=$1 dev=$2 ctl=$3 t0 t1 fpid cpid= wpid=
	shift 3
	job "$tag" "$dev"
	fpid=$!
	if [ "$ctl" != - ]; then
		job "${tag}_ctl" "$ctl"
		cpid=$!
	fi
	if [ -n "${WATCH:-}" ]; then
		( while sleep "$WATCH"; do echo "watch: $(date +%T.%N) $(cat /proc/loadavg)"; top -bn1 | sed -n 7,12p; done ) &
		wpid=$!
	fi
	# each job must be writing before the window opens: under -icount with
	# sleep=off the guest's clock leaps ahead while it waits on the host
	# (fio's start reads its binary and libraries through 9p), so a fixed
	# sleep could end before fio's first write (seen at 1M chunks: no I/O
	# in a 20 s idle window)
	running "$dev"
	[ "$ctl" = - ] || running "$ctl"
	sleep 2
	t0=$(ms)
	"$@" || die "$tag: $* failed"
	t1=$(ms)
	sleep 2
	kill -INT "$fpid" $cpid
	[ -z "${wpid:-}" ] || kill "$wpid"
	wait "$fpid" || true
	[ -z "$cpid" ] || wait "$cpid" || true
	echo "$tag.seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1000 }')" >>"$RES"
	echo "$tag.window_ms=$((t0 - 1000))-$((t1 + 1000))" >>"$RES"
	stats "$tag" $((t0 - 1000)) $((t1 + 1000))
	[ -z "$cpid" ] || stats "${tag}_ctl" $((t0 - 1000)) $((t1 + 1000))
}

step "tptools pool rp on ${disks[0]} (data) and ${disks[1]} (metadata)"
must tpcreate --data "${disks[0]}" --meta "${disks[1]}" --chunk 64k --zero n \
	--discards nopassdown rp
must tvcreate -V "${big_gib}G" -n big rp
must tvcreate -V 1G -n other rp
[ "$FILL" = restore ] && restore_tp
must tpactivate rp
step "LVM thin pool bvg/pool on ${disks[2]}"
must lvm pvcreate -q "${disks[2]}"
must lvm vgcreate -q bvg "${disks[2]}"
must lvm lvcreate -q --type thin-pool -L "$((big_gib + 2))G" -c 64k -Zn --discards nopassdown \
	-n pool bvg
must lvm lvcreate -q -V "${big_gib}G" -T bvg/pool -n big
must lvm lvcreate -q -V 1G -T bvg/pool -n other
lvm lvs -a bvg

if [ "$FILL" = restore ]; then
	step "bvg/big: $CHUNKS mappings restored into the pool's metadata"
	t=$(ms); restore_lvm; echo "fill_lvm.seconds=$((($(ms) - t) / 1000))" >>"$RES"
else
	step "filling both big volumes with $CHUNKS chunks by fio"
	t=$(ms); fill /dev/mapper/rp-big; echo "fill_tp.seconds=$((($(ms) - t) / 1000))" >>"$RES"
	t=$(ms); fill /dev/mapper/bvg-big; echo "fill_lvm.seconds=$((($(ms) - t) / 1000))" >>"$RES"
fi
prefill /dev/mapper/rp-other
prefill /dev/mapper/bvg-other
sync
tpstatus rp
lvm lvs bvg
free -m
tp_mapped=$(tpstatus --noheadings --units b -o vol_name,vol_mapped rp | awk '$1 == "big" { sub(/b$/, "", $2); print $2 / 65536 }')
echo "tp.mapped_chunks=$tp_mapped" >>"$RES"
# what the kernel maps, for both (the same count, or the run means nothing)
k_tp=$(mapped_chunks rp-big)
k_lvm=$(mapped_chunks bvg-big)
echo "kernel.tp_mapped_chunks=$k_tp" >>"$RES"
echo "kernel.lvm_mapped_chunks=$k_lvm" >>"$RES"
dmsetup status | grep -E ' thin-pool ' >>"$TP_OUT/pools.status"
[ "$k_tp" = "$CHUNKS" ] && [ "$k_lvm" = "$CHUNKS" ] ||
	die "the kernel maps $k_tp chunks of rp/big and $k_lvm of bvg/big, want $CHUNKS each"

# RUNS pairs: in each an idle row (sleep 20, both jobs: the emulator's own
# noise at the time of that pair), then tvremove and lvremove of the
# big volumes, in turns (odd runs tvremove first, even runs lvremove
# first, so that a drift of the host's load does not always favour one);
# from the second run on both big volumes are made and restored again
RUNS=${RUNS:-1}
[ "$RUNS" = 1 ] || [ "$FILL" = restore ] || die "RUNS > 1 needs FILL=restore"
echo "runs=$RUNS" >>"$RES"
tv_run() {
	step "run $1: tvremove -y rp/big under fio on rp/other"
	# the debug log has each step's time (stderr is no terminal: no progress)
	measure "tvremove_$1" /dev/mapper/rp-other /dev/mapper/bvg-other env TPTOOLS_DEBUG=pool tvremove -y rp/big \
		2>"$TP_OUT/tvremove_$1.debug"
}
lvm_run() {
	step "run $1: lvremove -y bvg/big under fio on bvg/other"
	measure "lvremove_$1" /dev/mapper/bvg-other /dev/mapper/rp-other lvm lvremove -q -y bvg/big
}
for run in $(seq 1 "$RUNS"); do
	if [ "$run" -gt 1 ]; then
		step "run $run: both big volumes again, $CHUNKS mappings restored"
		must tpdeactivate rp
		must tvcreate -V "${big_gib}G" -n big rp
		restore_tp
		must tpactivate rp
		must lvm lvcreate -q -V "${big_gib}G" -T bvg/pool -n big
		restore_lvm
		sync
		[ "$(mapped_chunks rp-big)" = "$CHUNKS" ] && [ "$(mapped_chunks bvg-big)" = "$CHUNKS" ] ||
			die "run $run: the kernel maps $(mapped_chunks rp-big) chunks of rp/big and $(mapped_chunks bvg-big) of bvg/big"
	fi
	step "run $run: idle baseline, both jobs (no removal: sleep 20)"
	measure "idle_$run" /dev/mapper/rp-other /dev/mapper/bvg-other sleep 20
	if [ $((run % 2)) = 1 ]; then
		tv_run "$run"
		lvm_run "$run"
	else
		lvm_run "$run"
		tv_run "$run"
	fi
done

# VARIANTS="STEP:FLUSH ...": more tvremove runs of the same volume, with
# the live step and flush cadence a test build takes from
# TP_TEST_REMOVE_STEP and TP_TEST_REMOVE_FLUSH (a fresh rp/big each time)
for v in ${VARIANTS:-}; do
	st=${v%%:*}
	fl=${v##*:}
	step "tvremove with steps of $st chunks, a flush every $fl steps"
	must tpdeactivate rp
	must tvcreate -V "${big_gib}G" -n big rp
	restore_tp
	must tpactivate rp
	[ "$(mapped_chunks rp-big)" = "$CHUNKS" ] || die "rp/big: $(mapped_chunks rp-big) chunks mapped"
	measure "tv_${st}_$fl" /dev/mapper/rp-other /dev/mapper/bvg-other env TPTOOLS_DEBUG=pool TP_TEST_REMOVE_STEP="$st" \
		TP_TEST_REMOVE_FLUSH="$fl" tvremove -y rp/big 2>"$TP_OUT/tv_${st}_$fl.debug"
done

tpstatus rp
lvm lvs bvg
must tpdeactivate rp
check tpcheck rp
lvm vgchange -q -an bvg
cat "$RES"
finish
