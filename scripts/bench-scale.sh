#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-scale.sh - a pool whose data blocks all have a reference count >= 3,
# and the real offline commands on it: wall time, CPU time (user + system:
# the machine may be shared) and peak RSS of each (/usr/bin/time).
#
#   scripts/bench-scale.sh [DATA_BLOCKS] [DEVICES]   (default 4194304 3)
#
# The pool (build-bench/scale-N-D/: image files data.img, sparse, and
# meta.img, a pool made by tpcreate with 64 KiB chunks) gets DEVICES volumes
# from tvcreate, then generated XML in which each of them maps all
# DATA_BLOCKS data blocks (one range per volume) is restored by tprestore
# into the pool's active metadata area (tpstatus -o pool_meta_offset,...),
# so every data block has the count DEVICES and the data space map's
# ref-count tree holds DATA_BLOCKS entries. That is done once; the
# metadata device is kept as meta.img.orig and the data device's label and
# VG metadata area as data.head.orig, both copied back before each run.
# Then, in this order: tpstatus (the default columns: device details only),
# tpcheck, tvcreate, tvsnap of volume v1, tvremove of v2 (a shared volume:
# every one of its blocks drops from DEVICES to DEVICES-1), tvcreate again,
# tpcheck again. Targets: each at most 64 MiB; tvcreate and tvsnap under 1 s.
# Needs `make` (BUILD=build by default).
set -eu
cd "$(dirname "$0")/.."
n=${1:-4194304}
devs=${2:-3}
BUILD=${BUILD:-build}
bin=$PWD/$BUILD/bin
dir=$PWD/build-bench/scale-$n-$devs
chunk=65536
export TPTOOLS_DIR=$dir/etc
pool=scale
mkdir -p "$dir"
if [ ! -f "$dir/meta.img.orig" ]; then
	echo "building a pool of $devs volumes x $n shared data blocks (once)..."
	rm -rf "$dir/etc" "$dir"/*.img
	mkdir -p "$dir/etc"
	# mapping leaves hold up to 252 entries, ref-count leaves 336
	blocks=$(( n * devs / 180 + n / 250 + 8192 ))
	[ $blocks -le 4161600 ] || { echo "metadata over 16 GiB: fewer blocks" >&2; exit 2; }
	truncate -s $(( (n + 65536) * chunk + 16 * 1048576 )) "$dir/data.img"
	truncate -s $(( 2 * blocks * 4096 + 16 * 1048576 )) "$dir/meta.img"
	"$bin/tpcreate" -q -d "$dir/data.img" -m "$dir/meta.img" -c 64k -Z n \
		--metadata-size $((blocks * 8))s $pool
	for ((d = 1; d <= devs; d++)); do
		"$bin/tvcreate" -q -V $((n * chunk / 512))s -n v$d $pool 2>/dev/null
	done
	read -r off len tid size < <("$bin/tpstatus" --units b --noheadings \
		-o pool_meta_offset,pool_meta_length,pool_transaction_id,pool_size $pool)
	ids=$("$bin/tpstatus" --noheadings -o vol_dev_id $pool | tr -d ' ' | tr '\n' ' ')
	awk -v n="$n" -v nb=$(( ${size%b} / chunk )) -v tid="$tid" -v ids="$ids" 'BEGIN {
		printf "<superblock uuid=\"\" time=\"1\" transaction=\"%d\" flags=\"0\" version=\"2\" data_block_size=\"%d\" nr_data_blocks=\"%d\">\n", tid, 128, nb
		k = split(ids, id, " ")
		for (d = 1; d <= k; d++) {
			printf "  <device dev_id=\"%d\" mapped_blocks=\"%d\" transaction=\"0\" creation_time=\"0\" snap_time=\"1\">\n", id[d], n
			printf "    <range_mapping origin_begin=\"0\" data_begin=\"0\" length=\"%d\" time=\"0\"/>\n", n
			print "  </device>"
		}
		print "</superblock>" }' | "$bin/tprestore" -q --force -i - -o "$dir/meta.img" --offset "$off" --size "$len"
	# the data device's label and VG metadata area lie before its data area
	data_off=$("$bin/tpstatus" --units b --noheadings -o pool_data_offset $pool | tr -d ' b')
	head -c "$data_off" "$dir/data.img" >"$dir/data.head.orig"
	cp --sparse=always "$dir/meta.img" "$dir/meta.img.orig"
fi
cp --sparse=always "$dir/meta.img.orig" "$dir/meta.img"
dd if="$dir/data.head.orig" of="$dir/data.img" conv=notrunc status=none
sync "$dir/meta.img" "$dir/data.img"	# the commits' flushes should not pay for the copy
# SCALE_BUILD_ONLY=1: the pool only, fresh from its copies (bench-status.sh)
[ "${SCALE_BUILD_ONLY:-0}" = 1 ] && exit 0
run() { # label command...
	/usr/bin/time -o "$dir/time.out" -f '%e %U %S %M' "$@" >"$dir/cmd.out" 2>&1 ||
		{ cat "$dir/cmd.out" >&2; echo "$1 failed" >&2; exit 1; }
	read -r s u k kb <"$dir/time.out"
	printf '%-34s %8s %8s %12s\n' "${*#$bin/}" "$s" "$(awk -v u="$u" -v k="$k" 'BEGIN { print u + k }')" "$kb"
}
echo "pool of $devs volumes, each mapping the same $n data blocks ($bin)"
printf '%-34s %8s %8s %12s\n' "" "wall s" "cpu s" "peak RSS KiB"
run "$bin/tpstatus" $pool
run "$bin/tpcheck" $pool
run "$bin/tvcreate" -V 1G -n new $pool
run "$bin/tvsnap" $pool/v1 -n snap
run "$bin/tvremove" -y $pool/v2
run "$bin/tvcreate" -V 1G -n new2 $pool
run "$bin/tpcheck" $pool
