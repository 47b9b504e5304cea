#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-repair.sh - what tprepair and thin_repair of both generations of
# thin-provisioning-tools (0.9.0, Debian 12; 1.1.0, Debian 13, set up by
# scripts/setup-reference.sh) recover from the same damaged metadata, in
# the same run: mappings recovered (against the undamaged original), wall
# time, peak RSS, and whether 0.9.0's thin_check accepts the result.
# A benchmark, not a test.
#
#   scripts/bench-repair.sh [-d DEVICES] [-m MAPPINGS] [-k]
#     -d DEVICES   thin devices before the snapshots (default 10)
#     -m MAPPINGS  mappings per device (default 100000)
#     -k           keep the work directory
#     BUILD=dir    build holding dir/bin/tp and dir/test/bin (default build)
#     REF110=dir   the 1.1.0 commands (default: what setup-reference.sh
#                  prints; REF110= leaves 1.1.0 out)
#
# The metadata: tp-metagen, DEVICES devices, DEVICES/2 snapshots with
# overwrites (so subtrees are shared), seed 1. Damage kinds, each applied to
# a fresh copy:
#   leaves        three mapping-tree leaves zeroed (three devices)
#   internal      one mapping-tree internal node zeroed (the level above a leaf)
#   superblock    the superblock zeroed (a repair must find the roots itself)
#   torn-commit   the superblock of a later transaction over the earlier
#                 metadata: the commit reached the superblock but some of
#                 the blocks it points to were lost
# "recovered" counts mapped blocks in the repaired metadata that the
# original maps identically (same device, virtual block, data block); a
# tool that fails, or writes metadata thin_check rejects, recovers nothing.
set -eu
cd "$(dirname "$0")/.."
top=$PWD
BUILD=${BUILD:-build}
devs=10 maps=100000 keep=0
while getopts "d:m:k" o; do
	case $o in
	d) devs=$OPTARG ;;
	m) maps=$OPTARG ;;
	k) keep=1 ;;
	*) sed -n '2,/^set/p' "$0" | sed 's/^# \{0,1\}//;/^set/d'; exit 3 ;;
	esac
done
tp=$top/$BUILD/bin/tp
bin=$top/$BUILD/test/bin
for t in "$tp" "$bin/tp-metagen" "$bin/tp-damage" "$bin/tp-metacheck"; do
	[ -x "$t" ] || { echo "no $t: run make tests first" >&2; exit 2; }
done
for t in thin_repair thin_check thin_dump /usr/bin/time python3; do
	command -v "$t" >/dev/null || { echo "needs $t" >&2; exit 2; }
done
if [ -z "${REF110+set}" ]; then
	REF110=$(scripts/setup-reference.sh) || { echo "no thin-provisioning-tools 1.1.0" >&2; exit 2; }
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-repair.XXXXXX")
[ "$keep" = 1 ] && echo "work directory: $work" || trap 'rm -rf "$work"' EXIT

meta_mb=$(( devs * maps / 20000 + 64 ))
orig=$work/orig.img
"$bin/tp-metagen" --out "$orig" --meta-size "${meta_mb}M" --devices "$devs" --mappings "$maps" \
	--snapshots $((devs / 2)) --seed 1 >/dev/null
# the "later transaction" for torn-commit: the same metadata changed by
# more mappings, snapshots and deletes, committed
cp --sparse=always "$orig" "$work/later.img"
"$bin/tp-metacheck" --modify 9 "$work/later.img" >/dev/null

# mapping set of an image: one line "dev vblock dblock" per mapped block is
# too big; a per-run canonical form (normalise.py) compared run by run is
# what counts. count_same ORIG.norm NEW.norm -> blocks mapped alike
thin_dump "$orig" >"$work/orig.xml"
python3 test/data/xml/normalise.py "$work/orig.xml" >"$work/orig.norm"
total=$(awk 'NF == 4 { s += $3 } END { print s + 0 }' "$work/orig.norm")
# what a user gives a repair when the superblock is lost (every tool asks)
sbattr() { sed -n "1s/.* $1=\"\([0-9]*\)\".*/\1/p" "$work/orig.xml"; }
bs=$(sbattr data_block_size) nr=$(sbattr nr_data_blocks) tid=$(sbattr transaction)
count_same() {
	python3 - "$1" "$2" <<'EOF'
import sys
def load(p):
    devs, cur = {}, None
    for line in open(p):
        f = line.split()
        if f[0] == "device":
            cur = devs.setdefault(dict(kv.split("=", 1) for kv in f[1:])["dev_id"], [])
        elif len(f) == 4 and cur is not None:
            cur.append(tuple(map(int, f)))
    return devs
import bisect
a, b = load(sys.argv[1]), load(sys.argv[2])
same = 0
for dev, runs in b.items():
    ref = sorted(a.get(dev, []))
    starts = [r[0] for r in ref]
    for o, d, n, t in runs:
        # blocks of [o, o+n) that the original maps to d + (vb - o)
        i = max(bisect.bisect_right(starts, o) - 1, 0)
        while i < len(ref) and ref[i][0] < o + n:
            ro, rd, rn, rt = ref[i]
            lo, hi = max(o, ro), min(o + n, ro + rn)
            if lo < hi and rd - ro == d - o:
                same += hi - lo
            i += 1
print(same)
EOF
}

damage() { # KIND IMAGE
	local kind=$1 img=$2 dev b lo hi
	case $kind in
	leaves)
		for dev in 0 1 2; do
			read -r b lo hi < <("$bin/tp-damage" "$img" find $dev $((maps / 2)) 0)
			"$bin/tp-damage" "$img" zero "$b"
		done ;;
	internal)
		read -r b lo hi < <("$bin/tp-damage" "$img" find 0 $((maps / 2)) 1)
		"$bin/tp-damage" "$img" zero "$b" ;;
	superblock)
		"$bin/tp-damage" "$img" zero 0 ;;
	torn-commit)
		dd if="$work/later.img" of="$img" bs=4096 count=1 conv=notrunc status=none ;;
	esac
}

# run_repair TOOL IN OUT -> "seconds rss_kib rc"
run_repair() {
	local tool=$1 in=$2 out=$3 rc=0
	rm -f "$out"
	truncate -s "${meta_mb}M" "$out"
	case $tool in
	tprepair) set -- "$tp" repair --metadata "$in" -o "$out" ;;
	0.9.0) set -- thin_repair -i "$in" -o "$out" ;;
	1.1.0) set -- "$REF110/thin_repair" -i "$in" -o "$out" ;;
	esac
	# a lost superblock: the user tells every tool what it held
	[ "$kind" = superblock ] &&
		set -- "$@" --data-block-size "$bs" --nr-data-blocks "$nr" --transaction-id "$tid"
	/usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/repair.log" 2>&1 || rc=$?
	echo "$(cat "$work/time" | tail -1) $rc"
}

tools=(0.9.0)
[ -n "$REF110" ] && tools+=(1.1.0)
tools+=(tprepair)
echo "metadata: $devs devices + $((devs / 2)) snapshots, $total mapped blocks, ${meta_mb} MiB"
printf '%-12s %-9s %10s %8s %7s %8s  %s\n' damage tool recovered "%" "s" "MiB" "result"
for kind in leaves internal superblock torn-commit; do
	cp --sparse=always "$orig" "$work/in.img"
	damage "$kind" "$work/in.img"
	sum_before=$(md5sum <"$work/in.img")
	for tool in "${tools[@]}"; do
		read -r secs rss rc < <(run_repair "$tool" "$work/in.img" "$work/out.img")
		[ "$(md5sum <"$work/in.img")" = "$sum_before" ] || echo "WARNING: $tool wrote its input" >&2
		got=0 result="exit $rc"
		if [ "$rc" = 0 ]; then
			if thin_check "$work/out.img" >/dev/null 2>&1 && thin_dump "$work/out.img" >"$work/out.xml"; then
				python3 test/data/xml/normalise.py "$work/out.xml" >"$work/out.norm"
				got=$(count_same "$work/orig.norm" "$work/out.norm")
				result=ok
			else
				result="output fails thin_check"
			fi
		fi
		printf '%-12s %-9s %10s %8s %7s %8s  %s\n' "$kind" "$tool" "$got" \
			"$(awk -v a="$got" -v b="$total" 'BEGIN { printf "%.2f", b ? 100 * a / b : 0 }')" \
			"$secs" "$((rss / 1024))" "$result"
	done
done
echo "recovered: mapped blocks the repaired metadata maps exactly as the original did"
