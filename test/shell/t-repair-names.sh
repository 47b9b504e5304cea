# SPDX-License-Identifier: GPL-2.0-or-later
# tprepair names the volumes that lost blocks (the VG maps thin device ids
# to names): a pool whose volume v0 has a damaged mapping leaf.
new_pool r --chunk 64k
for v in v0 v1 v2; do ok tvcreate -V 1G -n $v r; done
read -r off len < <(meta_area r)
size=$(tpstatus --noheadings --units b -o pool_size r | tr -dc 0-9)
ok tp-metagen --out gen.img --meta-size "$len" --devices 3 --mappings 6000 \
	--block-size 128 --data-blocks $((size / 65536)) --transaction-id 3 --seed 5
read -r node lo hi < <(tp-damage gen.img find 0 3000 0)
[ -n "$node" ] || fail "no leaf of device 0"
ok tp-damage gen.img zero "$node"
load_area r gen.img
expect_rc 2 tpcheck r
ok tprepair r
out_has "^lost: volume v0 (thin device 0) blocks $lo"
out_lacks "lost: thin device 0"
ok tpcheck r
