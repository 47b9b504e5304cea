#!/bin/bash
# bench-scale.sh - space maps at scale: offline operations on thin metadata
# whose data blocks all have a reference count >= 3, at engine level
# (test/bin/tp-smbench: open, one operation, commit): wall time, CPU time
# (user + system: the machine may be shared) and peak RSS.
#
#   scripts/bench-scale.sh [DATA_BLOCKS] [DEVICES]   (default 4194304 3)
#
# The metadata is tprestore of generated XML: DEVICES volumes, each mapping
# all DATA_BLOCKS data blocks (one range per volume), so every data block
# has the count DEVICES and the ref-count tree holds DATA_BLOCKS entries.
# It is written once into build-bench/scale-N-D.img and copied before each
# run. Operations: usage of volume 1 (tpstatus), create a volume (tvcreate),
# snapshot volume 1 (tvsnap), remove volume 2, a shared volume (tvremove:
# every one of its blocks drops from DEVICES to DEVICES-1). Targets: each at
# most 64 MiB; create and snap under 1 s.
# SMBENCH=path runs another build's tp-smbench (before/after comparisons).
# Needs `make tests` (BUILD=build by default).
set -eu
cd "$(dirname "$0")/.."
n=${1:-4194304}
devs=${2:-3}
BUILD=${BUILD:-build}
SMBENCH=${SMBENCH:-$BUILD/test/bin/tp-smbench}
dir=build-bench
mkdir -p $dir
img=$dir/scale-$n-$devs.img
if [ ! -f "$img" ]; then
	echo "restoring $devs volumes x $n shared data blocks (once)..."
	# mapping leaves hold up to 252 entries, ref-count leaves 336
	blocks=$(( n * devs / 180 + n / 250 + 8192 ))
	[ $blocks -le 4161600 ] || { echo "metadata over 16 GiB: fewer blocks" >&2; exit 2; }
	truncate -s $((blocks * 4096)) "$img.tmp"
	awk -v n="$n" -v devs="$devs" 'BEGIN {
		printf "<superblock uuid=\"\" time=\"1\" transaction=\"1\" flags=\"0\" version=\"2\" data_block_size=\"128\" nr_data_blocks=\"%d\">\n", n + 65536
		for (d = 1; d <= devs; d++) {
			printf "  <device dev_id=\"%d\" mapped_blocks=\"%d\" transaction=\"0\" creation_time=\"0\" snap_time=\"1\">\n", d, n
			printf "    <range_mapping origin_begin=\"0\" data_begin=\"0\" length=\"%d\" time=\"0\"/>\n", n
			print "  </device>"
		}
		print "</superblock>" }' | $BUILD/bin/tprestore -i - -o "$img.tmp"
	mv "$img.tmp" "$img"
fi
work=$dir/scale-work.img
run() { # label op dev
	/usr/bin/time -o $dir/time.out -f '%e %U %S %M' "$SMBENCH" "$work" "$2" "$3" \
		>$dir/smbench.out 2>&1 || { cat $dir/smbench.out >&2; echo "$1 failed" >&2; exit 1; }
	read -r s u k kb <$dir/time.out
	printf '%-28s %8s %8s %12s\n' "$1" "$s" "$(awk -v u="$u" -v k="$k" 'BEGIN { print u + k }')" "$kb"
}
cp --sparse=always "$img" "$work"
sync "$work"	# the commits' flushes should not pay for the copy
echo "$n data blocks, each referenced by $devs volumes ($SMBENCH)"
printf '%-28s %8s %8s %12s\n' "" "wall s" "cpu s" "peak RSS KiB"
run "usage (tpstatus)" usage 1
run "create (tvcreate)" create 0
run "snapshot (tvsnap)" snap 1
run "remove shared (tvremove)" remove 2
run "create after remove" create 0
rm -f "$work"
