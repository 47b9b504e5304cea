# SPDX-License-Identifier: GPL-2.0-or-later
# Volume changes refuse a pool whose thin metadata is fatally damaged in
# what they rely on (issue 11; issue 40 scoped it): the fast check of
# tpcheck runs first, over the pool-wide structures and the mapping-tree
# roots of the volumes the change makes, removes or alters and of a new
# snapshot's origin; exit 5, every image byte-identical, the message
# points at tpcheck and tprepair. Damage below another volume's root does
# not stop a change that neither reads nor writes that tree (tptools(7)),
# and tpactivate still refuses the pool.
DATA_SIZE=64M META_SIZE=16M
new_pool p
ok tvcreate -V 8M -n v p
ok tvcreate -V 8M -n u p

# fatal damage in v's tree (its root is the leaf: a small volume)
ok tvsnap -n s p/v
save_area p area.bin
read -r leaf _ _ < <(tp-damage area.bin find 0 0)
ok tp-damage area.bin zero "$leaf"
load_area p area.bin
expect_rc 2 tpcheck p
# what relies on v's tree is refused, nothing written
unchanged 5 tvsnap -n s2 p/v
err_has "tpcheck p"
unchanged 5 tvremove p/s
err_has "tprepair p"
unchanged 5 tvremove -y p/v
err_has "tprepair p"
unchanged 5 tpactivate p
err_has "tprepair p"
# a change that does not read v's tree goes on, and the damage stays
# reported
ok tvcreate -V 8M -n w p
ok tvsnap -n u1 p/u
ok tvrename p/u1 u2
ok tvrename p/v v2
ok tvrename p/v2 v
expect_rc 2 tpcheck p

# pool-wide damage (the device details tree) refuses every change
rm -f area.bin
save_area p area.bin
ok tp-damage area.bin zero "$(tp-damage area.bin root details)"
load_area p area.bin
unchanged 5 tvcreate -V 8M -n x p
err_has "tpcheck p"
unchanged 5 tvsnap -n u3 p/u
err_has "tpcheck p"
