#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-copy.sh - how near the device the copies run (issue 26), in one
# run, on image files (page cache warm), a pool of 64 KiB chunks with one
# volume of SIZE whose every chunk is mapped (random bytes):
#   send-raw    tpsend --format raw POOL/v >/dev/null
#      vs  dd   the same bytes out of the data image (bs=4M) >/dev/null
#   send-raw-file  tpsend --format raw -o out.img POOL/v (a new file, no flush)
#      vs  dd   the same bytes into a new out.img (bs=4M, no flush)
#   send-raw-pipe  tpsend --format raw POOL/v | cat >/dev/null
#      vs  dd   the same bytes | cat >/dev/null
#   send-stream tpsend POOL/v >/dev/null (the stream: the same bytes + headers)
#      vs  cat  src.img >/dev/null (the same bytes, a file in the page cache)
#   recv-raw    tprecv --format raw -i src.img (writes + flush of the data image)
#      vs  dd   src.img into the data image where w's chunks go (bs=4M,
#               conv=notrunc,fdatasync)
#   recv-stream tprecv -i v.stream (reads the stream twice: check, then apply)
#      vs  dd   the same as recv-raw
#   wipe        tvremove --wipe POOL/v (zeros over every chunk + flush)
#      vs  dd   if=/dev/zero over the same byte range of the data image,
#               conv=notrunc,fdatasync
# Each the fastest wall time of RUNS (default 3) after a warm-up; the
# volume is set up again (not timed) where a run consumes it. Prints
# MiB/s and ratio = ours/dd throughput (target >= 0.8).
#
#   scripts/bench-copy.sh [SIZE_MIB]   (default 2048)
# Needs `make` (BUILD=build by default). Work files in build-bench/copy.
set -eu -o pipefail
cd "$(dirname "$0")/.."
mib=${1:-2048}
runs=${RUNS:-3}
BUILD=${BUILD:-build}
bin=$PWD/$BUILD/bin
dir=$PWD/build-bench/copy
rm -rf "$dir"
mkdir -p "$dir/etc"
cd "$dir"
export TPTOOLS_DIR=$dir/etc
tp() { "$bin/$@"; }
bytes=$((mib << 20))
truncate -s $((2 * bytes + (256 << 20))) data.img	# v and w
truncate -s 256M meta.img
tp tpcreate -q -d data.img -m meta.img -c 64k -Z n bench
echo "bench-copy: $mib MiB volume, random bytes (making the source image)..."
head -c "$bytes" /dev/urandom >src.img
pool_off() { # the data area's byte offset in data.img
	tp tpstatus --units b --noheadings --nosuffix -o pool_data_offset bench | tr -d ' '
}
import() { tp tprecv -q --format raw -n "$1" -i src.img bench >/dev/null; }
import v
tp tvchange -q --readonly y bench/v
off=$(pool_off)
# where v's chunks are: one run from the start of the data area (a fresh pool)
tp tpsend -o v.stream bench/v 2>/dev/null
cmp <(tp tpsend --format raw bench/v) src.img || { echo "raw export differs" >&2; exit 1; }
cmp <(dd if=data.img bs=4M iflag=skip_bytes,count_bytes skip="$off" count="$bytes" \
	status=none) src.img || { echo "v is not one run at the data area's start" >&2; exit 1; }
cat data.img src.img v.stream >/dev/null

best() { # SETUP CMD: the fastest wall time of $runs runs of CMD (string, eval'd),
	 # SETUP (eval'd, untimed) before each run and the warm-up
	local setup=$1 cmd=$2 b="" t0 t1 e
	eval "$setup"
	eval "$cmd" >/dev/null 2>&1 || { echo "failed: $cmd" >&2; exit 1; }
	for ((i = 0; i < runs; i++)); do
		eval "$setup"
		t0=$EPOCHREALTIME
		eval "$cmd" >/dev/null 2>&1 || { echo "failed: $cmd" >&2; exit 1; }
		t1=$EPOCHREALTIME
		e=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
		if [ -z "$b" ] || awk -v x="$e" -v y="$b" 'BEGIN { exit !(x < y) }'; then b=$e; fi
	done
	echo "$b"
}
report() { # NAME OURS_S REF_S REFNAME
	awk -v n="$1" -v o="$2" -v r="$3" -v rn="$4" -v by="$bytes" 'BEGIN {
		m = by / 1048576
		printf "%-12s ours %7.0f MiB/s (%.3f s)  %-4s %7.0f MiB/s (%.3f s)  ratio %.2f\n",
			n, m / o, o, rn, m / r, r, r / o }'
}
dd_read="dd if=data.img bs=4M iflag=skip_bytes,count_bytes skip=$off count=$bytes status=none"
noop=":"
gone_w() { tp tvremove -q -y bench/w >/dev/null 2>&1 || true; }
fresh_v() { tp tvremove -q -y bench/v >/dev/null 2>&1 || true; import v; }

o=$(best "$noop" "$bin/tpsend --format raw bench/v >/dev/null")
r=$(best "$noop" "$dd_read >/dev/null")
report send-raw "$o" "$r" dd
rm_out="rm -f out.img; sync"	# no write-back of the last run's file in the next
o=$(best "$rm_out" "$bin/tpsend --format raw -o out.img bench/v")
r=$(best "$rm_out" "$dd_read of=out.img")
report send-raw-file "$o" "$r" dd
rm -f out.img
o=$(best "$noop" "$bin/tpsend --format raw bench/v | cat >/dev/null")
r=$(best "$noop" "$dd_read | cat >/dev/null")
report send-raw-pipe "$o" "$r" dd
o=$(best "$noop" "$bin/tpsend bench/v >/dev/null")
r=$(best "$noop" "cat src.img >/dev/null")
report send-stream "$o" "$r" cat
# into the data image where w's chunks go (free while w does not exist)
dd_write="dd if=src.img of=data.img bs=4M oflag=seek_bytes seek=$((off + bytes)) \
	conv=notrunc,fdatasync status=none"
gone_w
r=$(best "$noop" "$dd_write")
o=$(best gone_w "$bin/tprecv -q --format raw -n w -i src.img bench")
report recv-raw "$o" "$r" dd
tp tvremove -q -y bench/v	# it holds the stream's content uuid
o=$(best gone_w "$bin/tprecv -q -n w -i v.stream bench")
report recv-stream "$o" "$r" dd
gone_w
o=$(best fresh_v "$bin/tvremove -q -y --wipe bench/v")
r=$(best "$noop" "dd if=/dev/zero of=data.img bs=4M oflag=seek_bytes seek=$off \
	count=$((bytes >> 22)) conv=notrunc,fdatasync status=none")
report wipe "$o" "$r" dd
echo "(machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' \
	/proc/meminfo); shared with other work: compare ratios, not speeds)"
