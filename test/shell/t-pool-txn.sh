# SPDX-License-Identifier: GPL-2.0-or-later
# The transaction-id protocol: a crash between the VG commit and the thin
DATA_SIZE=128M META_SIZE=16M
# commit is detected and completed by the next command; anything else is
# refused with a pointer to tpcheck.
new_pool vault
ok tvcreate -V 1G -n a vault

# creation interrupted after the VG commit
save_area vault before.img
ok tvcreate -V 1G -n b vault
load_area vault before.img
[ "$(thin_devices vault)" = 1 ] || fail "setup: thin metadata should hold one device"
ok tpstatus vault
err_has "interrupted"
out_has " b "
ok tvcreate -V 1G -n c vault
err_has "completed the interrupted creation of volume b"
[ "$(thin_devices vault)" = 3 ] || fail "b was not completed"
ok tpstatus vault
[ ! -s err ] || fail "warnings remain after the repair: $(cat err)"

# snapshot interrupted
save_area vault before.img
ok tvsnap vault/a -n a-snap
load_area vault before.img
ok tvremove vault/c
err_has "completed the interrupted creation of snapshot a-snap"
[ "$(thin_devices vault)" = 3 ] || fail "snapshot not completed / c not removed"
thin_check_pool vault
thin_dump area.img >dump.xml
grep -q 'time="1"' dump.xml || fail "the completed snapshot did not advance the pool time"

# removal interrupted
save_area vault before.img
ok tvremove vault/b
load_area vault before.img
ok tvcreate -V 1G -n d vault
err_has "completed the interrupted removal of thin device"
[ "$(thin_devices vault)" = 3 ] || fail "removal not completed"

# thin metadata two transactions behind (or ahead): refused, nothing changed
save_area vault old.img
ok tvcreate -V 1G -n e vault
ok tvcreate -V 1G -n f vault
load_area vault old.img
unchanged 5 tvcreate -V 1G -n g vault
err_has "transaction id mismatch"
err_has "tpcheck"
unchanged 5 tpstatus vault
