# SPDX-License-Identifier: GPL-2.0-or-later
# Metadata written by our engine (tp-metagen workloads: many devices,
# snapshots of snapshots sharing subtrees, overwrites that break sharing,
# deletes, a held metadata snapshot, and one case over a million mappings)
# passes thin_check 0.9.0, and tpdump prints exactly what thin_dump prints,
# live and through the metadata snapshot, in both formats.
have thin_check || skip "thin-provisioning-tools not installed"
have tp-metagen || fail "tp-metagen not built (make tests)"
n=0
for spec in \
	"--devices 1 --mappings 0" \
	"--devices 3 --mappings 500 --snapshots 6 --deletes 1 --block-size 256" \
	"--devices 8 --mappings 3000 --snapshots 12 --deletes 4 --transaction-id 77" \
	"--devices 40 --mappings 100 --snapshots 30 --deletes 10 --metadata-snap" \
	"--devices 2 --mappings 550000 --snapshots 2"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	tp-metagen --out m$n.img --meta-size 96M --seed $n $spec >/dev/null ||
		fail "tp-metagen $spec failed"
	thin_check m$n.img >check.log 2>&1 || { cat check.log >&2; fail "thin_check failed: $spec"; }
	thin_dump m$n.img >want.xml
	ok tpdump -o got.xml m$n.img
	cmp got.xml want.xml || fail "tpdump differs from thin_dump: $spec"
	thin_dump -f human_readable m$n.img >want.txt
	ok tpdump -f human m$n.img
	cmp out want.txt || fail "tpdump --format human differs from thin_dump: $spec"
	if grep -q -- --metadata-snap <<<"$spec"; then
		thin_dump -m m$n.img >want.xml
		ok tpdump -m m$n.img
		cmp out want.xml || fail "tpdump -m differs from thin_dump -m: $spec"
		grep -q "<device" out || fail "the metadata snapshot holds no device"
	fi
done
# the big case really is over a million mappings
blocks=$(awk -F'"' '/<device/ { s += $4 } END { print s }' got.xml)
[ "$blocks" -ge 1000000 ] || fail "the big workload maps only $blocks blocks"
