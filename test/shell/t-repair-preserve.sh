# SPDX-License-Identifier: GPL-2.0-or-later
# tprepair checks first: on a clean pool it writes nothing and says so
# (exit 0); --force salvages anyway. No damaged copy is ever thrown away:
# before a repair overwrites the spare area (which holds the copy the
# previous repair set aside), the spare is copied to
# backup/POOL-UUID/spare-SEQNO-TIME.img, and the newest 3 such files are kept.
DATA_SIZE=512M META_SIZE=16M new_pool vault
ok tvcreate -V 1G -n www vault
md5sum ./*.img >clean.sum
ok tprepair vault
out_has "vault: clean: nothing to repair, nothing written"
md5sum -c --quiet clean.sum || fail "tprepair wrote a clean pool"
bdir=$(backup_dir vault)
ls "$bdir" >files.before

# damage the active area; repair 1 salvages into the (never used) spare:
# nothing to keep yet
read -r off len < <(meta_area vault)
dd if=/dev/zero of=vault-meta.img bs=4096 seek=$((off / 4096)) count=1 conv=notrunc status=none
dd if=vault-meta.img of=damaged1 bs=4096 skip=$((off / 4096)) count=$((len / 4096)) status=none
expect_rc 2 tpcheck vault
ok tprepair vault
out_lacks "was kept in"
ok tpcheck vault

# repair 2 (forced, on a clean pool) overwrites the spare, which holds
# damaged1: it is kept in a file first
ok tprepair --force vault
out_has "was kept in $bdir/spare-"
kept=$(sed -n 's/.*was kept in \([^ ]*\.img\)$/\1/p' out)
[ -f "$kept" ] || fail "no kept copy '$kept'"
cmp damaged1 "$kept" || fail "the kept copy differs from the damaged area"
ok tpcheck vault

# repair 3 and more: the copy of repair 2's spare is kept too, damaged1's
# file survives until three newer ones exist (a volume created before each
# repair, so that each spare differs: a spare equal to a copy kept
# already is not kept twice)
ok tvcreate -V 1M -n r3 vault
ok tprepair --force vault
out_has "was kept in"
[ -f "$kept" ] || fail "repair 3 deleted the kept copy"
cmp damaged1 "$kept" || fail "repair 3 changed the kept copy"
ok tvcreate -V 1M -n r4 vault
ok tprepair --force vault
ok tvcreate -V 1M -n r5 vault
ok tprepair --force vault
n=$(ls "$bdir" | grep -c '^spare-')
[ "$n" = 3 ] || fail "$n kept copies, not 3"
[ ! -e "$kept" ] || fail "the oldest kept copy was not pruned"
ok tpcheck vault
if have thin_check; then thin_check_pool vault; fi
