# SPDX-License-Identifier: GPL-2.0-or-later
# Structure-aware repair: a tree of >= 10,000 mappings; destroy a chosen
# leaf, then a chosen internal node; tpcheck names exactly the lost key
# range; tprepair restores everything else (mapping for mapping), the
# result passes tpcheck and thin_check, and the input stays byte-identical
# whether the repair succeeds or fails.

# expand DUMP: one "dev vblock dblock time" line per mapped block
expand() {
	awk -F'"' '
		/<device / { for (i = 1; i < NF; i++) if ($i ~ / dev_id=$/) dev = $(i + 1) }
		/<single_mapping/ { print dev, $2, $4, $6 }
		/<range_mapping/ { for (k = 0; k < $6; k++) print dev, $2 + k, $4 + k, $8 }
	' "$1"
}

ok tp-metagen --out m.img --meta-size 16M --devices 3 --mappings 6000 --snapshots 2 \
	--seed 21 --data-blocks 200000
ok tpdump -o orig.xml m.img
expand orig.xml >orig.map
[ "$(wc -l <orig.map)" -ge 10000 ] || fail "fewer than 10,000 mappings"

for level in 0 1; do
	read -r node lo hi < <(tp-damage m.img find 0 3000 $level)
	[ -n "$node" ] || fail "no node at level $level"
	cp m.img x.img
	ok tp-damage x.img zero "$node"
	expect_rc 2 tpcheck --metadata x.img
	if [ "$hi" = 18446744073709551615 ]; then
		out_has "thin device 0: mapping tree node $node: .*blocks $lo..end lost"
	else
		out_has "thin device 0: mapping tree node $node: .*blocks $lo..$((hi - 1)) lost"
	fi
	sums x.img >before.sum
	image out.img 16M
	ok tprepair --metadata x.img -o out.img
	out_has "lost: thin device 0 blocks $lo"
	cp out repair.out
	sums_same before.sum || fail "tprepair changed its input"
	ok tpcheck --metadata out.img
	if have thin_check; then ok thin_check out.img; fi
	ok tpdump -o rep.xml out.img
	expand rep.xml >rep.map
	# exactly the lost range of device 0 is missing (devices sharing the
	# leaf with 0 lose the same range: compare with the snapshot trees)
	awk -v lo="$lo" -v hi="$hi" '!($1 == 0 && $2 >= lo && ($2 < hi || hi == "18446744073709551615"))' \
		orig.map >want.map
	lostdevs=$(grep -o 'lost: thin device [0-9]*' repair.out | awk '{print $4}' | sort -u | tr '\n' ' ')
	[ "$lostdevs" = "0 " ] || fail "unexpected devices lost: $lostdevs"
	diff want.map rep.map >/dev/null || fail "repair lost more or less than blocks $lo..$hi of device 0"
done

# a failing repair (nothing salvageable) zeroes the output, input untouched
image empty.img 1M
sums empty.img >before.sum
image out.img 16M
ok tpdump -o /dev/null m.img
failed tprepair --metadata empty.img -o out.img --data-block-size 128
sums_same before.sum || fail "a failed tprepair changed its input"
[ -z "$(head -c 4096 out.img | tr -d '\0')" ] || fail "failed repair left a superblock"

# superblock lost: roots found by scanning; the data block size must be given
cp m.img x.img
ok tp-damage x.img zero 0
sums x.img >before.sum
image out.img 16M
usage_error tprepair --metadata x.img -o out.img
ok tprepair --metadata x.img -o out.img --data-block-size 128 --nr-data-blocks 200000 \
	--transaction-id 1
sums_same before.sum || fail "tprepair changed its input"
ok tpdump -o rep.xml out.img
expand rep.xml >rep.map
diff orig.map rep.map >/dev/null || fail "scan repair differs from the original"
ok tpcheck --metadata out.img

# the details tree lost too: made up from the mapping tree, every mapping kept
cp m.img x.img
ok tp-damage x.img zero "$(tp-damage m.img root details)"
ok tp-damage x.img zero 0
image out.img 16M
ok tprepair --metadata x.img -o out.img --data-block-size 128 --nr-data-blocks 200000
ok tpdump -o rep.xml out.img
expand rep.xml >rep.map
diff orig.map rep.map >/dev/null || fail "repair without details lost mappings"
ok tpcheck --metadata out.img
if have thin_check; then ok thin_check out.img; fi

usage_error tprepair --metadata m.img
usage_error tprepair --metadata m.img -o m.img
usage_error tprepair -o x pool
