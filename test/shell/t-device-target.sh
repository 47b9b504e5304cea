# SPDX-License-Identifier: GPL-2.0-or-later
# Destructive tools check their target (issue 11): tprestore -o and
# tpcreate refuse a pool device (or another program's signature) unless
# aimed inside it (--offset) or --force; tpcheck --metadata on a pool
# device checks that pool's active thin area. Refusals exit 5 and leave
# every image byte-identical.
DATA_SIZE=64M META_SIZE=16M
new_pool p
ok tvcreate -V 8M -n v p
ok tpdump --format xml p
cp out p.xml

# tprestore over a pool device: refused, the pool intact
unchanged 5 tprestore -i p.xml -o p-meta.img
err_has "metadata device of pool p\|meta device of pool p"
unchanged 5 tprestore -i p.xml -o p-data.img
err_has "device of pool p"
# another program's signature
if have mkfs.ext4; then
	image fs.img 16M
	mkfs.ext4 -q fs.img
	unchanged 5 tprestore -i p.xml -o fs.img
	err_has "ext4"
	ok tprestore --force -i p.xml -o fs.img
fi

# tpcreate over a pool's devices: refused naming the pool, even with
# --force while the pool is known here; a configuration that does not
# know the pool is still told whose devices they are
unchanged 5 tpcreate -d p-data.img -m p-meta.img q
err_has "pool p"
unchanged 5 tpcreate --force -d p-data.img -m p-meta.img q
err_has "belongs to pool p"
TPTOOLS_DIR=$PWD/etc2 unchanged 5 tpcreate -d p-data.img -m p-meta.img q
err_has "pool p"
image other.img 16M
unchanged 5 tpcreate -d other.img -m p-meta.img q
err_has "pool p"
ok tpcheck p

# tpcheck --metadata on a pool device: the pool's active area, said so
ok tpcheck --metadata p-meta.img
out_has "clean"
out_has "1 thin device, "
err_has "metadata device of pool p"
ok tpcheck --metadata p-data.img
out_has "clean"
err_has "data device of pool p"
TPTOOLS_DIR=$PWD/etc2 failed tpcheck --metadata p-data.img
err_has "tpcheck p"
out_lacks "FATAL"

# tpdump -o checks its target as tprestore does (tpdump(8) -o): never the
# metadata it dumps (exit 3), a pool's device, another signature or a
# block device unless --force (exit 5), every image unchanged; and a dump
# that fails leaves FILE as it was, no temporary file behind
save_area p area.img
if have mkfs.ext4; then
	image fs2.img 16M
	mkfs.ext4 -q fs2.img
fi
for fmt in xml pack; do
	unchanged 3 tpdump --format $fmt -o area.img area.img
	err_has "it is the metadata being dumped"
	ln -sf area.img link.img
	unchanged 3 tpdump --format $fmt -o link.img area.img
	err_has "it is the metadata being dumped"
	unchanged 5 tpdump --format $fmt -o p-meta.img area.img
	err_has "meta device of pool p"
	unchanged 5 tpdump --format $fmt -o p-data.img area.img
	err_has "data device of pool p"
	if have mkfs.ext4; then
		unchanged 5 tpdump --format $fmt -o fs2.img area.img
		err_has "ext4"
	fi
done
rm -f link.img
if have mkfs.ext4; then
	ok tpdump --force -o fs2.img area.img
	ok tpdump -o area.xml area.img
	cmp fs2.img area.xml || fail "tpdump --force -o over a signed file wrote other than the dump"
fi
image zero.img 4M
printf 'keep\n' >keep.img
unchanged 5 tpdump -o keep.img zero.img
printf tiny >tiny.img
unchanged 5 tpdump --format pack -o keep.img tiny.img
[ "$(cat keep.img)" = keep ] || fail "a failed tpdump changed its -o FILE"
ls keep.img.tmp-* 2>/dev/null && fail "a failed tpdump left its temporary file"
ok tpdump -o keep.img area.img
[ "$(cat keep.img)" != keep ] && tp-sum keep.img >/dev/null && grep -q "<superblock" keep.img ||
	fail "tpdump -o over an old file did not put the dump there"
# a block device: refused unless --force, itself refused even then
if have losetup && l=$(losetup -f --show zero.img 2>/dev/null); then
	trap 'losetup -d "$l"' EXIT
	unchanged 5 tpdump --format pack -o "$l" area.img
	err_has "it is a block device"
	ok tpdump --force --format pack -o "$l" area.img
	unchanged 3 tpdump --force -o "$l" "$l"
	err_has "it is the metadata being dumped"
fi
