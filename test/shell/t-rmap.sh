# SPDX-License-Identifier: GPL-2.0-or-later
# tprmap: the reverse map of a range of data blocks in thin_rmap's form.
# Every owner of a block is listed (checked against the map the XML dump
# says, blocks shared by snapshots through shared subtrees included);
# --shared-once prints what thin_rmap 1.1.0 prints, byte for byte, and the
# default walk differs from it only by the owners thin_rmap leaves out;
# a pool is read through its name, with --names; -m reads the held
# metadata snapshot; bad regions exit 3, damage and a missing snapshot 5,
# and nothing is written.
have python3 || skip "python3 not installed"
rmap=$TOP/test/data/xml/rmap.py
ref=${TPTOOLS_REF110:-/var/cache/tptools/trixie.bin}
have110=0
[ -x "$ref/thin_rmap" ] && "$ref/thin_rmap" --version 2>/dev/null | grep -q '^1\.' && have110=1

same_as_dump() { # IMG REGION...: tprmap's default walk is the map the dump says
	local img=$1
	shift
	tpdump "$img" >d.xml || fail "tpdump $img failed"
	python3 "$rmap" d.xml "$@" >want || fail "rmap.py failed"
	# shellcheck disable=SC2046
	ok tprmap $(printf -- '--region %s ' "$@") "$img"
	cmp out want || { diff want out | head >&2; fail "tprmap $img $*: not the map the dump says"; }
}

# 1. metadata with snapshots of snapshots, deletes and a held metadata
#    snapshot; leaves shared between devices
ok tp-metagen --out m.img --meta-size 16M --devices 4 --mappings 3000 --snapshots 6 \
	--deletes 1 --metadata-snap --seed 5
same_as_dump m.img 0..100000
same_as_dump m.img 7..300 1000..1100
same_as_dump m.img 2999..3001
sums m.img >sums.before
ok tprmap --region 0..100000 -m m.img
tpdump -m m.img >ms.xml || fail "tpdump -m failed"
python3 "$rmap" ms.xml 0..100000 >want
cmp out want || fail "tprmap -m: not the held snapshot's map"
ok tprmap --region 0..100000 m.img
cmp -s out want && fail "live and snapshot maps are the same: -m proves nothing here"
[ "$(wc -l <out)" -gt 100 ] || fail "too few runs to mean anything"
sums m.img | cmp -s - sums.before || fail "tprmap changed the metadata"

# 2. a snapshot that shares internal nodes and leaves with its origin
#    (thin-provisioning-tools' pack, unpacked by its thin_metadata_unpack):
#    thin_rmap lists the shared blocks for the origin only
if [ "$have110" = 1 ]; then
	"$ref/thin_metadata_unpack" -i "$TOP/test/data/tpt-corpus/tmeta_with_shared_internals_and_leaves.pack" \
		-o s.img >/dev/null 2>&1 || fail "thin_metadata_unpack failed"
	for regions in "0..131072" "5..77" "65000..65400 --region 3..9" "65599..65600"; do
		# shellcheck disable=SC2086
		"$ref/thin_rmap" --region $regions s.img >theirs || fail "thin_rmap $regions failed"
		# shellcheck disable=SC2086
		ok tprmap --shared-once --region $regions s.img
		cmp out theirs || { diff theirs out >&2; fail "--shared-once $regions differs from thin_rmap"; }
	done
	same_as_dump s.img 0..131072
	grep -q "^data 0\\.\\.65600 -> thin(2) 0\\.\\.65600$" out ||
		fail "the blocks device 2 shares with device 1 are not listed for device 2"
	! grep -q 'thin(2) 0\.\.' theirs || fail "thin_rmap now lists shared blocks: revise tprmap(8)"
	# every line thin_rmap prints names blocks tprmap names too
	python3 - theirs out <<'PY' || fail "thin_rmap lists an owner tprmap does not"
import re, sys
def blocks(f):
    s = set()
    for l in open(f):
        b, e, d, v, _ = map(int, re.match(r"data (\d+)\.\.(\d+) -> thin\((\d+)\) (\d+)\.\.(\d+)$", l).groups())
        s.update((b + i, d, v + i) for i in range(e - b))
    return s
sys.exit(not blocks(sys.argv[1]) <= blocks(sys.argv[2]))
PY
	# metadata with no shared node: the two walks and thin_rmap agree
	ok tp-metagen --out u.img --meta-size 8M --devices 3 --mappings 2000 --seed 9
	"$ref/thin_rmap" --region 0..100000 u.img >theirs || fail "thin_rmap failed"
	ok tprmap --region 0..100000 u.img
	cmp out theirs || fail "tprmap differs from thin_rmap on metadata without shared nodes"
	"$ref/thin_rmap" --region 0..100000 m.img >theirs || fail "thin_rmap failed"
	ok tprmap --shared-once --region 0..100000 m.img
	cmp out theirs || fail "--shared-once differs from thin_rmap on m.img"
else
	echo "thin-provisioning-tools 1.1.0 not set up: thin_rmap comparison skipped"
fi

# 3. a pool by name: volumes named with --names
new_pool p --chunk 64k
ok tvcreate -V 1G -n a p
ok tvcreate -V 1G -n b p
map_ranges p "$(vol_dev_id p a):10:0:5" "$(vol_dev_id p b):0:5:3"
ok tvsnap p/a -n snap
ok tprmap --region 0..100 p
want="data 0..5 -> thin($(vol_dev_id p a)) 10..15
data 0..5 -> thin($(vol_dev_id p snap)) 10..15
data 5..8 -> thin($(vol_dev_id p b)) 0..3"
[ "$(cat out)" = "$want" ] || { cat out >&2; fail "the pool's reverse map is wrong"; }
ok tprmap --names --region 3..6 p
want="data 3..5 -> thin($(vol_dev_id p a)) 13..15 a
data 3..5 -> thin($(vol_dev_id p snap)) 13..15 snap
data 5..6 -> thin($(vol_dev_id p b)) 0..1 b"
[ "$(cat out)" = "$want" ] || { cat out >&2; fail "--names output is wrong"; }
ok tprmap --region 100..200 p
[ ! -s out ] || fail "unmapped blocks printed"

# 4. refusals: bad regions and options exit 3, no snapshot or damage 5;
#    nothing is written
sums ./*.img >sums.before
usage_error tprmap m.img
err_has "name the data blocks with --region"
for r in 23,7890 23..six found..7890 89..88 89..89 89.. "" 89...99 -1..5 ..5; do
	usage_error tprmap --region "$r" m.img
	err_has "invalid --region"
done
usage_error tprmap --names --region 0..5 m.img
usage_error tprmap --devices a.img,b.img --region 0..5 m.img
usage_error tprmap --offset 1G --region 0..5 m.img
ok tp-metagen --out n.img --meta-size 8M --devices 2 --mappings 100 --seed 1
failed tprmap -m --region 0..5 n.img
err_has "no metadata snapshot is held"
image z.img 8M
failed tprmap --region 0..5 z.img
err_has "no thin metadata"
# a damaged mapping-tree leaf: named, nothing printed, in both walks
read -r leaf _ _ < <(tp-damage n.img find 1 50)
[ -n "$leaf" ] || fail "tp-damage find"
cp n.img bad.img
ok tp-damage bad.img csum "$leaf"
sums bad.img >sums.bad
failed tprmap --region 0..100000 bad.img
err_has "thin device 1: mapping tree node $leaf: unreadable"
[ ! -s out ] || fail "a damaged walk printed a partial map"
failed tprmap --shared-once --region 0..100000 bad.img
sums_same sums.before || fail "tprmap changed an image"
sums_same sums.bad || fail "tprmap changed a damaged image"
