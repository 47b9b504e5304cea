# SPDX-License-Identifier: GPL-2.0-or-later
# The newest VG copy damaged on every device while the thin metadata holds
# its transaction: the open refuses before it writes anything (no older VG
# rewritten over the damaged newest copies), says the thin metadata is
# ahead and names tprepair; the restore from this host's backup it names
# brings the pool back with every volume.
DATA_SIZE=32M META_SIZE=16M new_pool P --chunk 64K
for v in a b c d e f; do
	ok tvcreate -V 1M -n "$v" P
done
ok tvremove P/b
ok tvremove P/d
ok tvcreate -V 1M -n last P
ok tp-vgtool damage P-data.img newest text
ok tp-vgtool damage P-meta.img newest header

# a writer refuses, every byte unchanged
unchanged 5 tvcreate -V 1M -n zz P
err_has "ahead of every valid VG metadata copy"
err_has "tprepair P"
err_lacks "copy was rewritten"
unchanged 5 tvremove P/a
err_has "ahead of every valid VG metadata copy"
# a reader reports it and writes nothing
sums ./*.img >before
expect_rc 5 tpstatus P
sums_same before || fail "tpstatus changed a device"

# tpcheck names the restore from this host's backup, which agrees with
# the thin metadata
expect_rc 2 tpcheck P
cat out err >all
grep -q "tprepair P --restorefile" all || { cat all >&2; fail "tpcheck names no restore"; }
file=$(sed -n "s/.*tprepair P --restorefile \([^ ]*\) .*/\1/p" all | head -1)
[ -n "$file" ] || fail "no backup file named"
ok tprepair P --restorefile "$file" --devices P-data.img,P-meta.img
ok tpcheck P
ok tpstatus --noheadings -o vol_name P
for v in a c e f last; do
	out_has "$v"
done
thin_check_pool P
ok tvcreate -V 1M -n zz P
