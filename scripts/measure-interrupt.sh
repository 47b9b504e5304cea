#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# measure-interrupt.sh - how long a long copy takes to stop after Ctrl-C.
#
#   BUILD=build scripts/measure-interrupt.sh [SIZE_MIB]   (default 1024)
#
# On image files in a temporary directory: a pool with a volume of SIZE
# MiB of random data and its read-only snapshot; then a send to a file, a
# raw export, a receive of that stream into a second pool, and a
# tvremove --wipe, each started in its own process group, sent SIGINT to
# the whole group (as a terminal's Ctrl-C does) DELAY seconds (0.3) in, and timed
# from the signal to its exit. Prints the exit status, the seconds it took
# to stop and the command's last line for each. Measures only: the shell
# tests prove the outcomes (t-recv-interrupt, t-send-interrupt,
# t-volume-wipe).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
size=${1:-1024}
export PATH=$top/$BUILD/bin:$top/$BUILD/test/bin:$PATH
work=$(mktemp -d "${TMPDIR:-/tmp}/tp-intr.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export TPTOOLS_DIR=$work/etc
mkdir -p etc
truncate -s $((size * 3 + 512))M a-data.img b-data.img
truncate -s 256M a-meta.img b-meta.img
tpcreate --data a-data.img --meta a-meta.img --chunk 64k a >/dev/null
tpcreate --data b-data.img --meta b-meta.img --chunk 64k b >/dev/null
tvcreate -V "${size}M" -n v a >/dev/null 2>&1
# every chunk of v mapped and filled with random data
head -c "$((size * 1024 * 1024))" /dev/urandom >v.raw
chunks=$((size * 16))
off=$(tpstatus --noheadings --units b -o pool_data_offset a | awk 'NF { sub(/b$/, "", $1); print $1; exit }')
read -r moff mlen < <(tpstatus --noheadings --units b -o pool_meta_offset,pool_meta_length a |
	awk 'NF == 2 { sub(/b$/, "", $1); sub(/b$/, "", $2); print; exit }')
dd if=a-meta.img of=area.img bs=1M iflag=skip_bytes,count_bytes skip="$moff" count="$mlen" status=none
id=$(tpstatus --noheadings -o vol_name,vol_dev_id a | awk '$1 == "v" { print $2 }')
tp-thinmap area.img "$id" 0 "$chunks" >map.txt
dd if=area.img of=a-meta.img bs=1M oflag=seek_bytes seek="$moff" conv=notrunc status=none
# the map is 0..N-1 onto consecutive data chunks: one dd lays the data in
first=$(awk 'NR == 1 { print $2 }' map.txt)
dd if=v.raw of=a-data.img bs=64K seek=$((off / 65536 + first)) conv=notrunc status=none
tvsnap --readonly a/v -n s >/dev/null
tpsend -o s.stream a/s >/dev/null

# stop NAME CMD...: CMD in its own process group, SIGINT to the group after 1 s
stop() {
	local name=$1 pid t0 t1 rc
	shift
	setsid env --default-signal=INT,TERM,HUP "$@" >out 2>err &
	pid=$!
	sleep "${DELAY:-0.3}"
	kill -0 "$pid" 2>/dev/null || { echo "$name: ended before the signal"; wait "$pid" || true; return; }
	t0=$(date +%s.%N)
	kill -INT -- "-$pid"
	rc=0; wait "$pid" || rc=$?
	t1=$(date +%s.%N)
	printf '%-18s exit %3s  stopped in %.3f s  %s\n' "$name" "$rc" "$(echo "$t1 - $t0" | bc -l)" \
		"$(tail -1 err | cut -c1-110)"
}
stop "send to a file" tpsend -o cut.stream a/s
stop "raw export" tpsend --format raw -o cut.raw a/s
stop "receive" tprecv -i s.stream -n r b
# the snapshot shares every chunk of v: without it the wipe has all to zero
tvremove -y a/s >/dev/null
stop "wipe" tvremove -y --wipe a/v
