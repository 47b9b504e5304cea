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
