# SPDX-License-Identifier: GPL-2.0-or-later
# tpdiff --snap1 --snap2 prints exactly what thin_delta 0.9.0 prints (plain,
# --verbose, -m), for metadata our engine wrote (tp-metagen: snapshots of
# snapshots sharing subtrees, overwrites, deletes, unmaps, a held metadata
# snapshot, trees several levels deep) and for metadata the kernel wrote
# (test/data/kernel-6.1), over every pair of devices; errors exit 5 where
# thin_delta fails.
have thin_delta || skip "thin-provisioning-tools not installed"
have tp-metagen || fail "tp-metagen not built (make tests)"

# compare FILE ID1 ID2 [OPTION...]: both tools, the same output
compare() {
	local f=$1 a=$2 b=$3 rc
	shift 3
	thin_delta "$@" --snap1 "$a" --snap2 "$b" "$f" >want.xml 2>/dev/null && rc=0 || rc=$?
	if [ "$rc" = 0 ]; then
		ok tpdiff "$@" --snap1 "$a" --snap2 "$b" --metadata "$f"
		cmp -s out want.xml || { diff want.xml out | head >&2; fail "$f $* $a $b differs"; }
	else
		failed tpdiff "$@" --snap1 "$a" --snap2 "$b" "$f"
	fi
	pairs=$((pairs + 1))
}
devs() { thin_dump "$1" | sed -n 's/.*<device dev_id="\([0-9]*\)".*/\1/p'; }

pairs=0
n=0
for spec in \
	"--devices 3 --mappings 500 --snapshots 6 --deletes 1 --metadata-snap" \
	"--devices 4 --mappings 3000 --snapshots 8 --deletes 2 --unmaps 500 --block-size 256" \
	"--devices 2 --mappings 40000 --snapshots 3 --writes-after-snap 800"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	tp-metagen --out m$n.img --meta-size 32M --seed $n $spec >/dev/null ||
		fail "tp-metagen $spec failed"
	ids=$(devs m$n.img)
	for a in $ids; do
		for b in $ids; do
			compare m$n.img "$a" "$b"
			compare m$n.img "$a" "$b" --verbose
		done
	done
	if grep -q -- --metadata-snap <<<"$spec"; then
		for a in $ids; do
			compare m$n.img "$a" 0 -m
			compare m$n.img 0 "$a" -m --verbose
		done
	fi
	compare m$n.img 0 99
done

for img in "$TOP"/test/data/kernel-6.1/*_meta.img.xz; do
	xz -dc "$img" >k.img
	ids=$(devs k.img)
	for a in $ids 12; do
		for b in $ids; do
			compare k.img "$a" "$b"
			compare k.img "$b" "$a" --verbose
		done
	done
done
[ "$pairs" -gt 150 ] || fail "only $pairs comparisons made"
