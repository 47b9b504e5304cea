#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-status.sh - what tpstatus costs (issue 26, tpstatus(8) COST), in
# one run on the pool bench-scale.sh builds (DEVICES volumes each mapping
# the same DATA_BLOCKS data blocks, 64 KiB chunks):
#   - tpstatus, the default columns (device details and space maps only)
#   - tpstatus -o +vol_exclusive,vol_shared (the walk of every mapping tree)
#   - thin_ls 1.1.0 -o DEV,MAPPED_BYTES,EXCLUSIVE_BYTES,SHARED_BYTES on a
#     copy of the same active metadata area (the same report)
#   - tpstatus, the default columns, on an EMPTY pool of the same size and
#     the same number of volumes
# Each the fastest wall time of 5 runs (the machine may be shared; CPU
# time and peak RSS from /usr/bin/time), the page cache warm. Prints the ratios: targets default/empty
# <= 2, thin_ls/with-walk >= 1.
#
#   scripts/bench-status.sh [DATA_BLOCKS] [DEVICES]   (default 4194304 3;
#                                                      100M: 104857600)
#     REF110=dir   the 1.1.0 commands (default: what setup-reference.sh
#                  prints; REF110= leaves thin_ls out)
# Needs `make` (BUILD=build by default).
set -eu
cd "$(dirname "$0")/.."
n=${1:-4194304}
devs=${2:-3}
BUILD=${BUILD:-build}
export BUILD
bin=$PWD/$BUILD/bin
chunk=65536
if [ -z "${REF110+set}" ]; then
	REF110=$(scripts/setup-reference.sh -q) || { echo "no thin-provisioning-tools 1.1.0" >&2; exit 2; }
fi
SCALE_BUILD_ONLY=1 scripts/bench-scale.sh "$n" "$devs"
big=$PWD/build-bench/scale-$n-$devs
empty=$PWD/build-bench/status-empty-$n-$devs
if [ ! -f "$empty/meta.img" ]; then
	echo "building an empty pool of $devs volumes of $n chunks (once)..."
	rm -rf "$empty"
	mkdir -p "$empty/etc"
	truncate -s "$(stat -c %s "$big/data.img")" "$empty/data.img"
	truncate -s "$(stat -c %s "$big/meta.img.orig")" "$empty/meta.img"
	meta_len=$(TPTOOLS_DIR=$big/etc "$bin/tpstatus" --units b --noheadings --nosuffix \
		-o pool_meta_length scale | tr -d ' ')
	TPTOOLS_DIR=$empty/etc "$bin/tpcreate" -q -d "$empty/data.img" -m "$empty/meta.img" \
		-c 64k -Z n --metadata-size $((meta_len / 512))s empty
	for ((d = 1; d <= devs; d++)); do
		TPTOOLS_DIR=$empty/etc "$bin/tvcreate" -q -V $((n * chunk / 512))s -n v$d empty \
			2>/dev/null
	done
fi
# the active area of the big pool, for thin_ls
read -r off len < <(TPTOOLS_DIR=$big/etc "$bin/tpstatus" --units b --noheadings --nosuffix \
	-o pool_meta_offset,pool_meta_length scale)
dd if="$big/meta.img" of="$big/area.img" bs=1M iflag=skip_bytes,count_bytes skip="$off" \
	count="$len" conv=sparse status=none
cat "$big/meta.img" "$big/area.img" "$empty/meta.img" >/dev/null
measure() { # cmd... -> "wall_s cpu_s rss_kb", the fastest of 5 runs (wall to the
	     # microsecond from bash's clock: /usr/bin/time's %e has 10 ms steps)
	local best="" _ s kb u k t0 t1 e
	"$@" >/dev/null 2>&1 || true	# a warm-up run, not counted
	for _ in 1 2 3 4 5; do
		t0=$EPOCHREALTIME
		/usr/bin/time -o "$big/time.out" -f '%e %M %U %S' "$@" >"$big/cmd.out" 2>&1 ||
			{ cat "$big/cmd.out" >&2; echo "$* failed" >&2; exit 1; }
		t1=$EPOCHREALTIME
		read -r e kb u k <"$big/time.out"
		s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
		if [ -z "$best" ] || awk -v a="$s" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
			best="$s $(awk -v u="$u" -v k="$k" 'BEGIN { printf "%.2f", u + k }') $kb"
		fi
	done
	echo "$best"
}
export TPTOOLS_DIR=$big/etc
read -r d_s d_cpu d_kb < <(measure "$bin/tpstatus" scale)
read -r w_s w_cpu w_kb < <(measure "$bin/tpstatus" -o +vol_exclusive,vol_shared scale)
TPTOOLS_DIR=$empty/etc
read -r e_s e_cpu e_kb < <(measure "$bin/tpstatus" empty)
l_s=- l_cpu=- l_kb=-
[ -n "$REF110" ] && read -r l_s l_cpu l_kb < <(measure "$REF110/thin_ls" \
	-o DEV,MAPPED_BYTES,EXCLUSIVE_BYTES,SHARED_BYTES "$big/area.img")
echo "pool of $devs volumes, each mapping the same $n data blocks ($bin)"
printf '%-44s %8s %8s %12s\n' "" "wall s" "cpu s" "peak RSS KiB"
printf '%-44s %8s %8s %12s\n' "tpstatus (default)" "$d_s" "$d_cpu" "$d_kb"
printf '%-44s %8s %8s %12s\n' "tpstatus -o +vol_exclusive,vol_shared" "$w_s" "$w_cpu" "$w_kb"
printf '%-44s %8s %8s %12s\n' "thin_ls 1.1.0 (mapped, exclusive, shared)" "$l_s" "$l_cpu" "$l_kb"
printf '%-44s %8s %8s %12s\n' "tpstatus (default), empty pool" "$e_s" "$e_cpu" "$e_kb"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.2f", a / (b > 0.0001 ? b : 0.0001) }'; }
echo "default / empty pool:            $(ratio "$d_s" "$e_s")x (target <= 2)"
echo "thin_ls 1.1.0 / with the walk:   $(ratio "$l_s" "$w_s")x (target >= 1)"
echo "with the walk / default:         $(ratio "$w_s" "$d_s")x"
