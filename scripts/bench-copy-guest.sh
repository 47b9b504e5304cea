#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-copy-guest.sh - the guest part of scripts/bench-copy-vm.sh (run by
# test/vm/run.sh): the copies of issue 26 on block devices (virtio disks
# of the real kernel), against dd with O_DIRECT over the same bytes of the
# same devices, in one boot. A pool "cp" on disks[0] (data) and disks[1]
# (metadata), 64 KiB chunks, one read-only volume v of MIB MiB of random
# bytes, every chunk mapped, lying at the start of the data area; the
# source image and the stream on the guest's tmpfs (memory), as dd's.
#
#   send-raw     tpsend --format raw cp/v >/dev/null
#   send-stream  tpsend cp/v >/dev/null
#       vs dd    the data area's first MIB MiB, iflag=direct >/dev/null
#   recv-raw     tprecv --format raw -n w -i src.img cp
#   recv-stream  tprecv -n w -i v.stream cp (v removed: it holds the
#                stream's content uuid; put back after)
#       vs dd    src.img onto the data area after v's chunks (where w's
#                go), oflag=direct, then fdatasync
#   wipe         tvremove -y --wipe cp/v
#       vs dd    zeros over v's bytes of the data area, oflag=direct
# first with the pool inactive (offline), then active (live: the kernel's
# pool; the raw import is offline only). Each the fastest of RUNS after a
# warm-up. Also: "fixed", the time of a send of a volume of one chunk (what
# a command costs before it copies: large under TCG, which translates each
# new process's code), and live "dd-thin", dd into a fresh thin volume of
# the pool (the kernel's own cost of mapping the chunks a receive maps). Results: $TP_OUT/results.txt, "MODE.NAME.ours=S" and
# "MODE.NAME.dd=S" lines (seconds) and bytes=.
. "$TP_SRC/test/vm/lib.sh"
[ -n "${TP_OUT:-}" ] || skip_scenario "needs TP_VM_OUT (results)"
[ -f "$TP_OUT/bench.conf" ] && . "$TP_OUT/bench.conf"
vm_begin -n 2 -e
MIB=${MIB:-256}
RUNS=${RUNS:-3}
RES=$TP_OUT/results.txt
: >"$RES"
bytes=$((MIB << 20))
data=${disks[0]}
meta=${disks[1]}
echo "bytes=$bytes" >>"$RES"

step "source image ($MIB MiB of random bytes) on tmpfs; pool cp on $data, $meta"
must head -c "$bytes" /dev/urandom >src.img
must tpcreate -q --data "$data" --meta "$meta" --chunk 64k --zero n cp
import() { tprecv -q --format raw -n "$1" -i src.img cp >/dev/null; }
must import v
must tvchange -q --readonly y cp/v
off=$(tpstatus --units b --noheadings --nosuffix -o pool_data_offset cp | tr -d ' ')
must tpsend -q -o v.stream cp/v
dd if="$data" bs=4M iflag=skip_bytes,count_bytes,direct skip="$off" count="$bytes" status=none |
	cmp - src.img || die "v is not one run at the data area's start"

# best SETUP CMD: the fastest wall time of RUNS runs of CMD (eval'd),
# SETUP (eval'd, untimed) before each and before the warm-up
best() {
	local setup=$1 cmd=$2 b="" t0 t1 e i
	eval "$setup"
	eval "$cmd" >/dev/null 2>&1 || die "failed: $cmd"
	for ((i = 0; i < RUNS; i++)); do
		eval "$setup"
		t0=$(date +%s%N)
		eval "$cmd" >/dev/null 2>&1 || die "failed: $cmd"
		t1=$(date +%s%N)
		e=$(((t1 - t0) / 1000))
		if [ -z "$b" ] || [ "$e" -lt "$b" ]; then b=$e; fi
	done
	awk -v u="$b" 'BEGIN { printf "%.3f\n", u / 1e6 }'
}
put() { echo "$1=$2" >>"$RES"; echo "$1=$2"; }
noop=":"
gone_w() { tvremove -q -y cp/w >/dev/null 2>&1 || true; }
fresh_v() {
	tvremove -q -y cp/v >/dev/null 2>&1 || true
	if [ "$mode" = live ]; then tpdeactivate cp >/dev/null || die "tpdeactivate"; fi
	import v || die "import v"
	tvchange -q --readonly y cp/v || die "tvchange"
	if [ "$mode" = live ]; then tpactivate cp >/dev/null || die "tpactivate"; fi
}
dd_read="dd if=$data of=/dev/null bs=4M iflag=direct,skip_bytes,count_bytes skip=$off \
	count=$bytes status=none"
dd_write="dd if=src.img of=$data bs=4M oflag=direct,seek_bytes seek=$((off + bytes)) \
	conv=notrunc,fdatasync status=none"
dd_zero="dd if=/dev/zero of=$data bs=4M oflag=direct,seek_bytes seek=$off \
	count=$((bytes >> 22)) conv=notrunc,fdatasync status=none"

# what a command costs before it copies anything (TCG translates each new
# process's code afresh): a send of a volume of one chunk
must tvcreate -q -V 64k -n e cp
must tvchange -q --readonly y cp/e
for mode in offline live; do
	step "$mode"
	if [ "$mode" = live ]; then must tpactivate cp; fi
	put "$mode.fixed.ours" "$(best "$noop" "tpsend --format raw cp/e >/dev/null")"
	put "$mode.send-raw.ours" "$(best "$noop" "tpsend --format raw cp/v >/dev/null")"
	put "$mode.send-stream.ours" "$(best "$noop" "tpsend cp/v >/dev/null")"
	put "$mode.send.dd" "$(best "$noop" "$dd_read")"
	gone_w
	put "$mode.recv.dd" "$(best "$noop" "$dd_write")"
	if [ "$mode" = offline ]; then
		put "$mode.recv-raw.ours" "$(best gone_w "tprecv -q --format raw -n w -i src.img cp")"
	fi
	must tvremove -q -y cp/v
	put "$mode.recv-stream.ours" "$(best gone_w "tprecv -q -n w -i v.stream cp")"
	gone_w
	if [ "$mode" = live ]; then	# the kernel's own cost of mapping fresh chunks
		put "$mode.recv.dd-thin" "$(best "gone_w; tvcreate -q -V ${MIB}M -n w cp" \
			"dd if=src.img of=/dev/mapper/cp-w bs=4M oflag=direct conv=fdatasync status=none")"
		gone_w
	fi
	put "$mode.wipe.ours" "$(best fresh_v "tvremove -q -y --wipe cp/v")"
	put "$mode.wipe.dd" "$(best "$noop" "$dd_zero")"
	fresh_v
	tpstatus cp
done
must tpdeactivate cp
check tpcheck cp
finish
