# SPDX-License-Identifier: GPL-2.0-or-later
# tpdiff POOL/A POOL/B: the ranges where two volumes differ, from their
# mapping trees; subtrees a snapshot still shares are skipped unread; the
# human, JSON and XML (thin_delta's, checked against thin_delta itself)
# outputs say the same; refusals exit 3 or 5 and change nothing.
have tp-thinmap || fail "tp-thinmap not built (make tests)"
DATA_SIZE=512M
new_pool vp --chunk 64k
ok tvcreate -V 1G -n a vp

# volume a: 5000 chunks written (a tree of many leaves), then snapshot s1
save_area vp area.img
tp-thinmap area.img "$(vol_dev_id vp a)" 0 5000 >/dev/null || fail "tp-thinmap failed"
load_area vp area.img
ok tvsnap vp/a -n s1
ok tpdiff vp/s1 vp/a
out_has "0 ranges differ"

# writes after the snapshot, as the kernel makes them: chunks 100..104
# overwritten, 6000..6009 new
save_area vp area.img
tp-thinmap area.img "$(vol_dev_id vp a)" 100 5 >/dev/null || fail "tp-thinmap failed"
tp-thinmap area.img "$(vol_dev_id vp a)" 6000 10 >/dev/null || fail "tp-thinmap failed"
load_area vp area.img
ok tpcheck vp

ok tpdiff vp/s1 vp/a
out_has "2 ranges differ, 960 KiB (chunk 64 KiB)"
grep -Eq "^ +6553600 +327680  differs$" out || { cat out; fail "chunks 100..104 not reported"; }
grep -Eq "^ +393216000 +655360  only in B$" out || { cat out; fail "chunks 6000..6009 not reported"; }
ok tpdiff vp/a vp/s1
grep -Eq "^ +393216000 +655360  only in A$" out || { cat out; fail "reversed: only in A"; }

# JSON: the same ranges, in bytes
ok tpdiff --format json vp/s1 vp/a
python3 - out <<'PY' || fail "JSON output wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["left"] == "vp/s1" and d["right"] == "vp/a", d
assert d["chunk_size"] == 65536 and d["left_size"] == d["right_size"] == 1 << 30, d
assert d["ranges"] == [
    {"offset": 100 * 65536, "length": 5 * 65536, "change": "different"},
    {"offset": 6000 * 65536, "length": 10 * 65536, "change": "right_only"}], d["ranges"]
assert d["differing_ranges"] == 2 and d["differing_bytes"] == 15 * 65536, d
PY
ok tpdiff -f json vp/a vp/a
grep -q '"ranges": \[\]' out || { cat out; fail "a volume against itself"; }

# the shared leaves are not read: far fewer nodes than the tree has
ok tpdiff -v vp/s1 vp/a
read -r nodes shared < <(sed -n 's/^read \([0-9]*\) mapping-tree nodes\?; \([0-9]*\) shared.*/\1 \2/p' out)
[ -n "$nodes" ] || { cat out; fail "no node count with -v"; }
leaves=$(thin_dump area.img | grep -c "range_mapping\|single_mapping")
[ "$shared" -gt 10 ] || fail "only $shared shared subtrees skipped"
[ "$nodes" -lt 20 ] || fail "$nodes nodes read: shared subtrees were descended"

# --format xml is thin_delta's output for the two thin devices, plain and
# --verbose; -o writes a file
have thin_delta || skip "thin_delta not installed (the rest compares with it)"
save_area vp area.img
for v in "" --verbose; do
	# shellcheck disable=SC2086
	thin_delta $v --snap1 "$(vol_dev_id vp s1)" --snap2 "$(vol_dev_id vp a)" area.img >want.xml
	# shellcheck disable=SC2086
	ok tpdiff $v -f xml -o got.xml vp/s1 vp/a
	cmp got.xml want.xml || fail "tpdiff -f xml $v differs from thin_delta"
done
[ -n "$leaves" ]

# refusals: exit 3 for the command line, 5 for what cannot be found
unchanged 3 tpdiff vp/a
unchanged 3 tpdiff vp/a other/b
err_has "different pools"
unchanged 3 tpdiff -f yaml vp/a vp/s1
unchanged 5 tpdiff vp/a vp/nope
err_has "no volume nope"
unchanged 5 tpdiff nopool/a nopool/b
unchanged 3 tpdiff --snap1 0 vp/a vp/s1
unchanged 3 tpdiff --snap1 0 --snap2 1
unchanged 3 tpdiff -m vp/a vp/s1
unchanged 3 tpdiff --snap1 0 --snap2 1 -f json area.img
unchanged 3 tpdiff --snap1 x --snap2 1 area.img
unchanged 5 tpdiff --snap1 0 --snap2 77 area.img
err_has "no thin device 77"
unchanged 5 tpdiff -m --snap1 0 --snap2 1 area.img
err_has "no metadata snapshot is held"
unchanged 5 tpdiff --snap1 0 --snap2 1 --metadata nosuch.img
