# SPDX-License-Identifier: GPL-2.0-or-later
# thin-provisioning-tools' public corpus of damaged and unusual thin
# metadata (test/data/tpt-corpus, see ORIGIN.md), unpacked by its own
# thin_metadata_unpack 1.1.0: the packs are the ones ORIGIN.md's sha256
# sums name; tpcheck agrees with thin_check 1.1.0 on every pack; tpdump
# prints what thin_dump 0.9.0 prints wherever 0.9.0 can dump it; tprepair
# keeps every volume and mapping thin_repair 1.1.0 keeps (and exits 4
# where what both salvage is the metadata snapshot's state); tprmap
# --shared-once prints what thin_rmap 1.1.0 prints; -m reads the metadata
# snapshot that survives in corrupted_tmeta_with_metadata_snap.
corpus=$TOP/test/data/tpt-corpus
ref=${TPTOOLS_REF110:-/var/cache/tptools/trixie.bin}
have sha256sum || skip "sha256sum not installed"

# the packs are the ones ORIGIN.md names, every one of them
sed -n 's/^    \([0-9a-f]\{64\}  [a-z_]*\.pack\)$/\1/p' "$corpus/ORIGIN.md" >sums
[ "$(wc -l <sums)" = 10 ] || fail "ORIGIN.md does not list ten sha256 sums"
(cd "$corpus" && sha256sum --quiet -c) <sums || fail "a pack differs from ORIGIN.md's sum"
[ "$(ls "$corpus"/*.pack | wc -l)" = 10 ] || fail "a pack ORIGIN.md does not list"

[ -x "$ref/thin_metadata_unpack" ] ||
	skip "thin-provisioning-tools 1.1.0 not set up (scripts/setup-reference.sh)"
"$ref/thin_check" --version | grep -q '^1\.' || skip "$ref/thin_check is not 1.x"
have python3 || skip "python3 not installed"
dump09=
/usr/sbin/thin_dump --version 2>/dev/null | grep -q '^0\.9\.' && dump09=/usr/sbin/thin_dump
[ -n "$dump09" ] || echo "thin_dump 0.9.0 not installed: the dump comparison is skipped"
keeps=$TOP/test/data/xml/keeps.py
norm=$TOP/test/data/xml/normalise.py

dumped=0 repaired=0 mapped=0
while read -r _ f; do
	b=${f%.pack}
	"$ref/thin_metadata_unpack" -i "$corpus/$f" -o "$b.img" >/dev/null 2>&1 ||
		fail "$f: thin_metadata_unpack failed"
	sums "$b.img" >sums.before

	# tpcheck and thin_check 1.1.0: both pass or both find damage
	"$ref/thin_check" "$b.img" >/dev/null 2>&1 && theirs=0 || theirs=1
	tpcheck --metadata "$b.img" >out 2>err && rc=0 || rc=$?
	case $rc in 0) ours=0 ;; 1 | 2) ours=1 ;; *) fail "$b: tpcheck exit $rc" ;; esac
	[ "$ours" = "$theirs" ] || { cat err >&2; fail "$b: tpcheck says $rc, thin_check 1.1.0 ${theirs/1/damaged}"; }

	# tpdump and thin_dump 0.9.0, byte for byte where 0.9.0 dumps it
	if [ -n "$dump09" ] && "$dump09" "$b.img" >theirs.xml 2>/dev/null; then
		ok tpdump "$b.img"
		cmp out theirs.xml || fail "$b: tpdump differs from thin_dump 0.9.0"
		dumped=$((dumped + 1))
	fi

	# tprepair keeps every volume and mapping thin_repair 1.1.0 keeps
	image theirs.img 64M
	if "$ref/thin_repair" -i "$b.img" -o theirs.img >/dev/null 2>&1; then
		"$ref/thin_dump" theirs.img >theirs.xml || fail "$b: thin_dump of thin_repair's output"
		image ours.img 64M
		if [ "$b" = corrupted_tmeta_with_metadata_snap ]; then
			# deliberately stricter than thin_repair (which exits 0): every
			# live tree is gone and what both salvage is the metadata
			# snapshot's (transaction 1, where thin device 1 still exists
			# and the live metadata's device 2 does not yet): a state of
			# another moment is never reported as a plain success
			expect_rc 4 tprepair --metadata "$b.img" -o ours.img
			err_has "salvaged from the metadata snapshot of $b.img, of transaction 1 "
		else
			ok tprepair --metadata "$b.img" -o ours.img
		fi
		ok tpcheck --metadata ours.img
		ok tpdump ours.img
		cp out ours.xml
		python3 "$keeps" ours.xml theirs.xml || fail "$b: tprepair keeps less than thin_repair 1.1.0"
		python3 "$norm" ours.xml >/dev/null || fail "$b: tprepair's output dumps malformed"
		repaired=$((repaired + 1))
	fi

	# tprmap --shared-once and thin_rmap 1.1.0
	if "$ref/thin_rmap" --region 0..1000000 "$b.img" >theirs.rmap 2>/dev/null; then
		ok tprmap --shared-once --region 0..1000000 "$b.img"
		cmp out theirs.rmap || fail "$b: tprmap --shared-once differs from thin_rmap 1.1.0"
		mapped=$((mapped + 1))
	else
		failed tprmap --shared-once --region 0..1000000 "$b.img"
	fi
	sums_same sums.before || fail "$b: a command changed the unpacked metadata"
done <sums
[ "$dumped" -ge 9 ] || fail "only $dumped packs dumped by thin_dump 0.9.0"
[ "$repaired" = 10 ] || fail "thin_repair 1.1.0 repaired $repaired packs, not 10"
[ "$mapped" -ge 9 ] || fail "thin_rmap 1.1.0 mapped only $mapped packs"

# -m: everything but the metadata snapshot's trees is damaged; the snapshot
# reads as thin_dump 1.1.0 reads it (and as 0.9.0 prints it)
b=corrupted_tmeta_with_metadata_snap
expect_rc 2 tpcheck --metadata $b.img
failed tpdump $b.img
ok tpdump -m $b.img
cp out ours.xml
out_has '<device dev_id="1" mapped_blocks="0"'
"$ref/thin_dump" -m $b.img >theirs.xml || fail "thin_dump 1.1.0 -m failed"
python3 "$norm" ours.xml >a.norm && python3 "$norm" theirs.xml >b.norm || fail "normalise"
cmp a.norm b.norm || fail "tpdump -m differs from thin_dump 1.1.0 -m"
if [ -n "$dump09" ]; then
	"$dump09" -m $b.img >theirs.xml || fail "thin_dump 0.9.0 -m failed"
	cmp ours.xml theirs.xml || fail "tpdump -m differs from thin_dump 0.9.0 -m"
fi
ok tprmap -m --region 0..1000 $b.img
failed tprmap --region 0..1000 $b.img

# and on the pack whose live metadata and snapshot are both whole, -m reads
# the snapshot: tpdump -m as thin_dump -m, tprmap -m as the snapshot's dump
b=tmeta_with_metadata_snap
ok tpdump -m $b.img
cp out ours.xml
"$ref/thin_dump" -m $b.img >theirs.xml || fail "thin_dump 1.1.0 -m failed"
python3 "$norm" ours.xml >a.norm && python3 "$norm" theirs.xml >b.norm || fail "normalise"
cmp a.norm b.norm || fail "$b: tpdump -m differs from thin_dump 1.1.0 -m"
python3 "$TOP/test/data/xml/rmap.py" ours.xml 0..1000000 >want
ok tprmap -m --region 0..1000000 $b.img
cmp out want || fail "$b: tprmap -m is not the snapshot's map"
[ "$(wc -l <out)" -gt 1000 ] || fail "$b: the snapshot maps too little to prove anything"
