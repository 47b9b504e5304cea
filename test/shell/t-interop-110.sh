# SPDX-License-Identifier: GPL-2.0-or-later
# Interop with the current generation, thin-provisioning-tools 1.1.0 (Debian
# 13, set up beside 0.9.0 by scripts/setup-reference.sh): what our engine,
# tpcreate/tvsnap and tprestore write passes its thin_check and dumps to the
# same content; what its thin_restore writes (from our XML and from its own
# <def>/<ref> dumps with shared subtrees) opens clean in tpcheck and dumps
# like the source; tprestore reads its <def>/<ref> dumps; the kernel's
# images read the same in both.
ref=${TPTOOLS_REF110:-/var/cache/tptools/trixie.bin}
[ -x "$ref/thin_check" ] || skip "thin-provisioning-tools 1.1.0 not set up (scripts/setup-reference.sh)"
"$ref/thin_check" --version | grep -q '^1\.' || skip "$ref/thin_check is not 1.x"
have python3 || skip "python3 not installed"
norm=$TOP/test/data/xml/normalise.py

check110() { # FILE: 1.1.0's thin_check must pass it
	"$ref/thin_check" "$1" >tc.log 2>&1 || { cat tc.log >&2; fail "thin_check 1.1.0 failed on $1"; }
}
same_content() { # A.xml B.xml WHAT
	python3 "$norm" "$1" >a.norm || fail "cannot normalise $1"
	python3 "$norm" "$2" >b.norm || fail "cannot normalise $2"
	diff a.norm b.norm >&2 || fail "$3: the dumps differ in content"
}

defs=0
# 1. our engine's metadata: snapshots of snapshots, shared subtrees, deletes,
#    a held metadata snapshot
n=0
for spec in \
	"--devices 1 --mappings 0" \
	"--devices 3 --mappings 2000 --snapshots 6 --deletes 1 --block-size 256" \
	"--devices 8 --mappings 3000 --snapshots 12 --deletes 4 --transaction-id 77" \
	"--devices 12 --mappings 400 --snapshots 20 --deletes 6 --metadata-snap" \
	"--devices 2 --mappings 60000 --snapshots 2"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	tp-metagen --out m$n.img --meta-size 32M --seed $n $spec >/dev/null ||
		fail "tp-metagen $spec failed"
	check110 m$n.img
	ok tpdump -o ours$n.xml m$n.img
	"$ref/thin_dump" m$n.img >theirs$n.xml || fail "thin_dump 1.1.0 failed: $spec"
	same_content ours$n.xml theirs$n.xml "$spec"
	# 1.1.0 restores its own dump (shared subtrees as <def>/<ref>) and ours;
	# we read both as the source
	for x in theirs ours; do
		image r.img 32M
		"$ref/thin_restore" -i $x$n.xml -o r.img >/dev/null || fail "thin_restore 1.1.0 of $x$n.xml"
		ok tpcheck --metadata r.img
		ok tp-metacheck r.img
		ok tpdump r.img
		cmp out ours$n.xml || fail "metadata thin_restore 1.1.0 wrote from $x$n.xml dumps differently"
	done
	# tprestore reads its dump (shared runs as <def>/<ref>) as the source
	image t.img 32M
	ok tprestore -i theirs$n.xml -o t.img
	ok tpcheck --metadata t.img
	ok tpdump t.img
	cmp out ours$n.xml || fail "tprestore of 1.1.0's dump differs from the source: $spec"
	grep -q '<def' theirs$n.xml && defs=$((defs + 1))
done
[ "$defs" -gt 0 ] || fail "no workload made thin_dump 1.1.0 write a <def>"

# 2. tprestore's output passes 1.1.0's thin_check and dumps the same there
image t.img 32M
ok tprestore -i ours3.xml -o t.img
check110 t.img
"$ref/thin_dump" t.img >t110.xml
same_content ours3.xml t110.xml "tprestore output read by 1.1.0"

# 3. a pool made by the commands: the active area passes 1.1.0's thin_check
new_pool p --chunk 128K
ok tvcreate -V 1G -n a p
ok tvsnap p/a -n s1
ok tvcreate -V 2G -n b p
ok tvsnap p/s1 -n s2
ok tvremove p/b
save_area p area.img
check110 area.img
ok tpdump area.img
cp out pool.xml
"$ref/thin_dump" area.img >pool110.xml
same_content pool.xml pool110.xml "pool p"

# 4. the kernel's images read alike by 1.1.0, 0.9.0 and tpdump
for f in "$TOP"/test/data/kernel-6.1/*_meta.img.xz; do
	xz -dc "$f" >k.img
	check110 k.img
	ok tpdump k.img
	cp out k.xml
	"$ref/thin_dump" k.img >k110.xml
	same_content k.xml k110.xml "$(basename "$f")"
	image t.img 16M
	ok tprestore -i k110.xml -o t.img
	ok tpdump t.img
	cmp out k.xml || fail "tprestore of 1.1.0's dump of $(basename "$f") differs"
done
