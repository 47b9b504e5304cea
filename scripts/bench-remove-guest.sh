#!/bin/bash
# bench-remove-guest.sh - the guest part of scripts/bench-remove.sh (run by
# test/vm/run.sh): the worst I/O stall of a fio job on one volume of a
# thin pool while another volume of the same pool, with CHUNKS mapped
# 64 KiB chunks, is removed: by tvremove (discards in 1 GiB steps, then the
# kernel's delete) and by LVM's lvremove (the kernel's delete message in
# one transaction), each pool on disks of its own, in one boot.
#
# The big volume is filled with one 4 KiB write per chunk (zeroing off, so
# each write maps a whole chunk without writing it): the kernel's metadata
# is then exactly what 64 GiB of written data would give, at 1/16 of the
# I/O. The measured volume is written first over its whole test range, so
# fio's random writes during the removal are overwrites: what they wait
# for is the pool's metadata lock, not provisioning.
# Results: $TP_OUT/results.txt (key=value lines) and the latency logs.
. "$TP_SRC/test/vm/lib.sh"
[ -n "${TP_OUT:-}" ] || skip_scenario "needs TP_VM_OUT (results)"
[ -f "$TP_OUT/bench.conf" ] && . "$TP_OUT/bench.conf"
vm_begin -n 3 -e
CHUNKS=${CHUNKS:-1048576}
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

# fill DEV: one 4 KiB write at the start of each of CHUNKS chunks
fill() {
	fio --name=fill --filename="$1" --rw=write:60k --bs=4k --direct=1 --ioengine=libaio \
		--iodepth=32 --size=$((CHUNKS * 64))k --io_size=$((CHUNKS * 4))k --output=/dev/null ||
		die "fio fill of $1"
}
# prefill DEV's first FIO_MB MiB (the measured range)
prefill() {
	dd if=/dev/zero of="$1" bs=1M count="$FIO_MB" oflag=direct status=none || die "prefill $1"
}

# measure TAG DEV CMD...: fio random writes on DEV while CMD runs; the
# latency of every I/O that completed from 1 s before CMD to 1 s after it
measure() {
	local tag=$1 dev=$2 start t0 t1 fpid
	shift 2
	start=$(ms)
	fio --name="$tag" --filename="$dev" --rw=randwrite --bs=4k --direct=1 --ioengine=libaio \
		--iodepth=1 --size="${FIO_MB}M" --time_based --runtime=3600 \
		--write_lat_log="$TP_OUT/$tag" --log_avg_msec=0 --output=/dev/null &
	fpid=$!
	sleep 4
	t0=$(ms)
	"$@" || die "$tag: $* failed"
	t1=$(ms)
	sleep 2
	kill -INT "$fpid"
	wait "$fpid" || true
	echo "$tag.seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1000 }')" >>"$RES"
	# fio's log: msec since its start, latency in ns, ... (the guest's awk
	# is mawk: sorted by sort)
	awk -F, -v lo=$((t0 - start - 1000)) -v hi=$((t1 - start + 1000)) \
		'$1 >= lo && $1 <= hi { print $2 + 0 }' "$TP_OUT/${tag}_lat.1.log" | sort -n |
		awk -v tag="$tag" '{ v[++n] = $1 }
		END {
			if (!n) { print tag ".ios=0"; exit }
			p99 = int(n * 0.99); if (p99 < 1) p99 = 1
			p50 = int(n * 0.5); if (p50 < 1) p50 = 1
			printf "%s.ios=%d\n%s.max_ms=%.2f\n%s.p99_ms=%.3f\n%s.p50_ms=%.3f\n",
				tag, n, tag, v[n] / 1e6, tag, v[p99] / 1e6, tag, v[p50] / 1e6
		}' >>"$RES"
	rm -f "$TP_OUT/${tag}_clat.1.log" "$TP_OUT/${tag}_slat.1.log"
}

step "tptools pool rp on ${disks[0]} (data) and ${disks[1]} (metadata)"
must tpcreate --data "${disks[0]}" --meta "${disks[1]}" --chunk 64k --zero n \
	--discards nopassdown rp
must tvcreate -V "${big_gib}G" -n big rp
must tvcreate -V 1G -n other rp
must tpactivate rp
step "LVM thin pool bvg/pool on ${disks[2]}"
must lvm pvcreate -q "${disks[2]}"
must lvm vgcreate -q bvg "${disks[2]}"
must lvm lvcreate -q --type thin-pool -L "$((big_gib + 2))G" -c 64k -Zn --discards nopassdown \
	-n pool bvg
must lvm lvcreate -q -V "${big_gib}G" -T bvg/pool -n big
must lvm lvcreate -q -V 1G -T bvg/pool -n other
lvm lvs -a bvg

step "filling both big volumes with $CHUNKS chunks"
t=$(ms); fill /dev/mapper/rp-big; echo "fill_tp.seconds=$((($(ms) - t) / 1000))" >>"$RES"
t=$(ms); fill /dev/mapper/bvg-big; echo "fill_lvm.seconds=$((($(ms) - t) / 1000))" >>"$RES"
prefill /dev/mapper/rp-other
prefill /dev/mapper/bvg-other
sync
tpstatus rp
lvm lvs bvg
tp_mapped=$(tpstatus --noheadings --units b -o vol_name,vol_mapped rp | awk '$1 == "big" { sub(/b$/, "", $2); print $2 / 65536 }')
echo "tp.mapped_chunks=$tp_mapped" >>"$RES"

step "idle baseline on each (no removal: sleep 10)"
measure idle_tp /dev/mapper/rp-other sleep 10
measure idle_lvm /dev/mapper/bvg-other sleep 10
step "tvremove -y rp/big under fio on rp/other"
measure tvremove /dev/mapper/rp-other tvremove -y rp/big
step "lvremove -y bvg/big under fio on bvg/other"
measure lvremove /dev/mapper/bvg-other lvm lvremove -q -y bvg/big

tpstatus rp
lvm lvs bvg
must tpdeactivate rp
check tpcheck rp
lvm vgchange -q -an bvg
cat "$RES"
finish
