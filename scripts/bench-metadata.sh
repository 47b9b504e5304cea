#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-metadata.sh - thin-metadata size per TiB of provisioned data for
# each candidate chunk (issue 14): what a chunk costs in metadata, and the
# largest pool each chunk serves within the kernel's limit (4161600 blocks
# of 4 KiB, ~15.88 GiB). Deterministic: no timing, image files only.
#
# For each chunk it creates a pool on sparse image files (DATA_GB of data),
# maps every data block to one volume (a thin_dump of the active area with
# one range mapping, thin_restore'd: the b-tree thin_restore builds, leaves
# full as the kernel's sequential provisioning leaves them), and reads the
# metadata in use with tpstatus. Next to it: thin_metadata_size(8)'s figure
# and tpcreate's estimate (64 bytes a chunk + 1 MiB, policy.h).
#
#   scripts/bench-metadata.sh          # table on stdout; bench/metadata.csv
# Settings: BUILD (build), CHUNKS (64k 128k 256k 512k 1m 2560k 6m),
# DATA_GB (64), OUT (bench).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
CHUNKS=${CHUNKS:-64k 128k 256k 512k 1m 2560k 6m}
DATA_GB=${DATA_GB:-64}
OUT=${OUT:-bench}
BIN=$PWD/$BUILD/bin
for t in thin_dump thin_restore thin_metadata_size; do
	command -v $t >/dev/null || { echo "bench-metadata: $t is not installed"; exit 1; }
done
[ -x "$BIN/tp" ] || make -s -j"$(nproc)" BUILD="$BUILD" >/dev/null
export PATH=$BIN:$PATH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TPTOOLS_DIR=$work/etc
mkdir -p "$TPTOOLS_DIR" "$OUT"
OUT=$(realpath "$OUT")
cd "$work"
unset TPTOOLS_TOPOLOGY

bytes() { numfmt --from=iec "$(tr 'kmgt' 'KMGT' <<<"$1")"; }
csv=$OUT/metadata.csv
echo "chunk_bytes,data_bytes,blocks,meta_used_bytes,per_tib_bytes,thin_metadata_size_per_tib_bytes,estimate_per_tib_bytes,max_pool_tib" >"$csv"
printf '| chunk | measured per TiB | thin_metadata_size per TiB | tpcreate estimate per TiB | largest pool within 15.88 GiB (estimate) |\n|---|---|---|---|---|\n'
for c in $CHUNKS; do
	cb=$(bytes "$c")
	rm -f d.img m.img
	truncate -s "${DATA_GB}G" d.img
	truncate -s 2G m.img
	tpcreate -q --data d.img --meta m.img --chunk "$c" --zero n p >/dev/null
	tvcreate -q -V "${DATA_GB}G" -n v p >/dev/null
	read -r off len < <(tpstatus --noheadings --units b -o pool_meta_offset,pool_meta_length p |
		awk 'NF == 2 { sub("b$", "", $1); sub("b$", "", $2); print $1, $2 }')
	read -r blocks < <(tpstatus --noheadings --units b -o pool_size p | awk 'NF { sub("b$", "", $1); print $1 }')
	blocks=$((blocks / cb))
	dd if=m.img of=area.img bs=1M iflag=skip_bytes,count_bytes skip="$off" count="$len" status=none
	thin_dump area.img | awk -v n="$blocks" '
		/<device dev_id="0"/ { print; printf "    <range_mapping origin_begin=\"0\" data_begin=\"0\" length=\"%d\" time=\"0\"/>\n", n; next }
		{ print }' >full.xml
	thin_restore -q -i full.xml -o area.img
	dd if=area.img of=m.img bs=1M oflag=seek_bytes seek="$off" conv=notrunc status=none
	tpcheck -q p >/dev/null
	used=$(tpstatus --noheadings --units b -o pool_meta_used p | awk 'NF { sub("b$", "", $1); print $1 }')
	data=$((blocks * cb))
	per=$(awk -v u="$used" -v d="$data" 'BEGIN { printf "%.0f", u * 1099511627776 / d }')
	# thin_metadata_size takes powers of two only
	tms=$(thin_metadata_size -b "$c" -s 1t -m 1 -u b -n 2>/dev/null) || tms=
	est=$(awk -v c="$cb" 'BEGIN { printf "%.0f", 1099511627776 / c * 64 + 1048576 }')
	max=$(awk -v c="$cb" 'BEGIN { printf "%.1f", (4161600 * 4096 - 1048576) / 64 * c / 1099511627776 }')
	echo "$cb,$data,$blocks,$used,$per,$tms,$est,$max" >>"$csv"
	printf '| %s | %s MiB | %s | %s MiB | %s TiB |\n' "$c" \
		"$(awk -v b="$per" 'BEGIN { printf "%.1f", b / 1048576 }')" \
		"$(awk -v b="$tms" 'BEGIN { if (b == "") print "-"; else printf "%.1f MiB", b / 1048576 }')" \
		"$(awk -v b="$est" 'BEGIN { printf "%.1f", b / 1048576 }')" "$max"
	tpremove -q -y p >/dev/null
done
