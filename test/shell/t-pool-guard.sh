# SPDX-License-Identifier: GPL-2.0-or-later
# Volume changes refuse a pool whose thin metadata is fatally damaged
# (issue 11): the fast check of tpcheck runs first; exit 5, every image
# byte-identical, the message points at tpcheck and tprepair.
DATA_SIZE=64M META_SIZE=16M
new_pool p
ok tvcreate -V 8M -n v p

# fatal damage in the thin metadata: no volume change, nothing written
ok tvsnap -n s p/v
save_area p area.bin
read -r leaf _ _ < <(tp-damage area.bin find 0 0)
ok tp-damage area.bin zero "$leaf"
load_area p area.bin
expect_rc 2 tpcheck p
unchanged 5 tvcreate -V 8M -n w p
err_has "tprepair p"
unchanged 5 tvsnap -n s2 p/v
err_has "tpcheck p"
unchanged 5 tvremove p/s
err_has "tprepair p"
