# SPDX-License-Identifier: GPL-2.0-or-later
# Interop of the thin metadata engine with thin-provisioning-tools 0.9:
# what we write passes thin_check; what thin_restore and the kernel wrote
# opens with every reference count right and survives our changes; the
# builder's output passes thin_check and dumps like its source.
have thin_check && have thin_dump && have thin_restore || skip "thin-provisioning-tools not installed"

# generated workloads: snapshots of snapshots, shared subtrees, deletes
for args in "--devices 1 --mappings 0" \
	    "--devices 3 --mappings 20000 --snapshots 6 --deletes 2 --seed 3" \
	    "--devices 12 --mappings 3000 --snapshots 25 --deletes 8 --seed 7 --metadata-snap" \
	    "--devices 2 --mappings 150000 --snapshots 2 --seed 11 --block-size 1024" \
	    "--devices 4 --mappings 30000 --snapshots 3 --unmaps 90000 --seed 13"; do
	ok tp-metagen --out m.img --meta-size 48M $args
	ok thin_check m.img
	ok tp-metacheck m.img
	case $args in *--metadata-snap*) ok tp-metacheck --snap m.img ;; esac
done

# metadata thin_restore wrote: opens, counts right, same content
ok tp-metagen --out g.img --meta-size 16M --devices 4 --mappings 5000 --snapshots 3 --seed 5
thin_dump g.img >g.xml
image r.img 16M
ok thin_restore -i g.xml -o r.img
ok tp-metacheck g.img
cp out g.count
ok tp-metacheck r.img
cmp out g.count || fail "thin_restore output walks differently"
ok tp-metacheck --modify 5 r.img
ok thin_check r.img

# kernel-written metadata: opens, changes, still passes thin_check
for f in "$TOP"/test/data/kernel-6.1/*_meta.img.xz; do
	xz -dc "$f" >k.img
	ok tp-metacheck k.img
	ok tp-metacheck --modify 3 k.img
	ok thin_check k.img
done

# the builder: rebuilt metadata passes thin_check and dumps the same
image b.img 16M
ok tp-metacheck --rebuild b.img g.img
ok thin_check b.img
thin_dump g.img >a.xml
thin_dump b.img >b.xml
cmp a.xml b.xml || fail "rebuilt metadata dumps differently"

# tp-metagen is deterministic for a seed (benchmarks rely on it)
ok tp-metagen --out s1.img --meta-size 8M --devices 3 --mappings 2000 --snapshots 2 --seed 42
ok tp-metagen --out s2.img --meta-size 8M --devices 3 --mappings 2000 --snapshots 2 --seed 42
cmp s1.img s2.img || fail "same seed, different metadata"
expect_rc 1 tp-metagen --devices 3
