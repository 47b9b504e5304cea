# SPDX-License-Identifier: GPL-2.0-or-later
# The damage corpus: each kind of damage -> tpcheck's exact exit code
# (0 clean, 1 non-fatal, 2 fatal); every case thin_check 0.9.0 flags,
# tpcheck flags too; the cases thin_check 0.9.0 misses (format doc 10.4)
# tpcheck catches. --fast, --json, -q and bad command lines.
ok tp-metagen --out m.img --meta-size 16M --devices 4 --mappings 3000 --snapshots 3 \
	--seed 1 --data-blocks 100000 --metadata-snap
ok tpcheck --metadata m.img
out_has "clean"
ok tpcheck --fast --metadata m.img
ok tpcheck -q --metadata m.img
[ ! -s out ] || fail "-q printed something"
ok tpcheck --json --metadata m.img
out_has '"result": "clean"'
out_has '"mappings": '
if have python3; then
	python3 -c 'import json, sys; json.load(open("out"))' || fail "--json is not JSON"
fi

# an area inside a bigger file
image big.img 40M
dd if=m.img of=big.img bs=1M seek=3 conv=notrunc status=none
ok tpcheck --metadata big.img --offset 3M --size 16M
out_has "clean"
expect_rc 2 tpcheck --metadata big.img --offset 2M --size 16M

read -r leaf lo hi < <(tp-damage m.img find 1 2000)
read -r inner _ _ < <(tp-damage m.img find 1 2000 1)
[ -n "$leaf" ] && [ -n "$inner" ] || fail "tp-damage find"

# case: expected exit code, damage arguments
cases=(
	"2 zero $leaf"
	"2 csum $leaf"
	"2 flip $leaf 100 3"
	"2 flip $leaf 40 1"
	"2 zero $inner"
	"1 leak meta"
	"1 leak data"
	"2 count data 5 2"
	"2 count data 5 0"
	"2 count data 5 3"
	"2 count meta $leaf 0"
	"2 count meta $leaf 2"
	"2 mapped 2 7"
	"1 index data nr_free 5"
	"1 index meta nr_free 16000"
	"1 index data nfb 16000"
	"1 index meta nfb 4000"
	"2 sb magic"
	"2 sb version"
	"2 sb mbs"
	"2 zero 0"
	"2 truncate 1048576"
)
for c in "${cases[@]}"; do
	set -- $c
	want=$1
	shift
	cp m.img x.img
	ok tp-damage x.img "$@"
	expect_rc "$want" tpcheck --metadata x.img
	if have thin_check && ! thin_check -q x.img >/dev/null 2>&1; then
		[ "$want" != 0 ] || fail "thin_check flags '$*' but tpcheck does not"
	fi
done

# random bit flips in the used blocks (a fixed seed): whatever thin_check
# flags, tpcheck flags; tpcheck never crashes (exit 0, 1 or 2)
if have thin_check; then
	RANDOM=7
	for i in $(seq 40); do
		cp m.img x.img
		ok tp-damage x.img flip $((RANDOM % 400)) $((RANDOM % 4096)) $((RANDOM % 8))
		tpcheck -q --metadata x.img && rc=0 || rc=$?
		[ "$rc" -le 2 ] || fail "tpcheck exited $rc on flip $i"
		if ! thin_check -q x.img >/dev/null 2>&1; then
			[ "$rc" != 0 ] || fail "flip $i: thin_check flags it, tpcheck does not"
		fi
	done
fi

# the lost range is named exactly
cp m.img x.img
ok tp-damage x.img zero "$leaf"
expect_rc 2 tpcheck --metadata x.img
out_has "thin device 1: mapping tree node $leaf: .*blocks $lo..$((hi - 1)) lost"
expect_rc 2 tpcheck --json --metadata x.img
out_has '"result": "fatal"'
if have python3; then
	python3 -c 'import json, sys; d = json.load(open("out")); assert d["fatal"] >= 1' ||
		fail "--json with problems is not JSON"
fi

# a leak is non-fatal and says so
cp m.img x.img
ok tp-damage x.img leak data
expect_rc 1 tpcheck --metadata x.img
out_has "leaked"

# --fast is weaker: a bad leaf below the roots passes, a bad root does not
cp m.img x.img
ok tp-damage x.img zero "$leaf"
ok tpcheck --fast --metadata x.img
cp m.img x.img
ok tp-damage x.img zero "$inner"
expect_rc 2 tpcheck --fast --metadata x.img

# command line
usage_error tpcheck
usage_error tpcheck --metadata m.img extra
usage_error tpcheck --offset 4096 pool
usage_error tpcheck --bogus --metadata m.img
failed tpcheck --metadata nonexistent.img
