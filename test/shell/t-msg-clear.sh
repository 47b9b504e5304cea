# SPDX-License-Identifier: GPL-2.0-or-later
# Messages that say what is true (issue 13): each case once got a wrong,
# blurred or contradictory message.

# A volume as large as the data device exceeds the data area by the label
# and VG area: the warning must show two different sizes, not "100 GiB"
# against "100.00 GiB".
DATA_SIZE=100G new_pool big
ok tvcreate -V 100G -n v big
err_has "exceeds the size of pool big"
sum=$(sed -n 's/.*volume sizes (\([^)]*\)).*/\1/p' err)
pool=$(sed -n 's/.*pool big (\([^)]*\)).*/\1/p' err)
[ -n "$sum" ] && [ "$sum" != "$pool" ] || fail "sizes look alike: '$sum' / '$pool'"
[ "$sum" = "107374182400 bytes" ] || fail "sum not exact: $sum"
# formatted the same way when they differ visibly
ok tvcreate -V 1G -n w big
err_has "(101.00 GiB) exceeds the size of pool big (100.00 GiB)"

# 8 EiB does not fit the VG metadata: a size message, not a VG-text path
usage_error tvcreate -V 8192P -n huge big
err_has "too large: a volume must be smaller than 8 EiB"
! grep -q "pool/volumes" err || fail "VG-text path in the message"
ok tvcreate -V 8191P -n huge big
grep -q "smaller than 8 EiB" "$TOP/man/tvcreate.8" || fail "tvcreate(8) states another maximum"
ok tpremove -y big

# A damaged label: said once, then not "no block device carries its label"
new_pool lab
printf 'X' | dd of=lab-data.img bs=1 seek=552 conv=notrunc status=none
failed tpstatus lab
err_has "label in sector 1 is corrupt"
err_has "the label of its data device .* is damaged"
! grep -q "no block device carries its label" err || fail "contradictory message"
ok tprepair lab
ok tpstatus lab

# Recreating a pool name within one second: each pool's backups apart (the
# directory of its uuid), no warning
for i in 1 2 3; do
	ok tpremove -y lab
	ok tpcreate --data lab-data.img --meta lab-meta.img --force -y lab
	[ ! -s err ] || { cat err >&2; fail "tpcreate said something (round $i)"; }
done
[ "$(grep -l '^	name="lab"$' etc/backup/*/00000000000000000001.vg | wc -l)" = 4 ] ||
	fail "old backups lost: $(ls etc/backup)"

# A 0-byte metadata or data file
: >empty.img
image d0.img 1G
failed tpcreate --data d0.img --meta empty.img zero
err_has "metadata device empty.img is empty (0 bytes)"
failed tpcreate --data empty.img --meta lab-meta.img zero
err_has "data device empty.img is empty (0 bytes)"

# A metadata device just too small: the bound is exact, not "4.00 GiB" on
# a 4 GiB device
image huge-data.img 8T
image m4.img 4G
failed tpcreate --data huge-data.img --meta m4.img --chunk 256k m4
err_has "Metadata device too small: 4 GiB cannot hold"
err_has "it must be at least 4099 MiB, or"
# a 1 GiB device is not told it must be "at least 1.00 GiB", and a small
# one is shown at its size, not "100 KiB (1 MiB)"
image m1.img 1G
failed tpcreate --data huge-data.img --meta m1.img --metadata-size 512M m1
err_has "Metadata device too small: 1 GiB cannot hold"
err_has "it must be at least 1025 MiB, or"
! grep -q "at least 1.00 GiB" err || fail "bound printed as 1.00 GiB for a 1 GiB device"
image m100k.img 100K
failed tpcreate --data huge-data.img --meta m100k.img m100k
err_has "Metadata device too small: 100 KiB cannot hold"
! grep -Eq "[0-9] [KMGT]iB \([0-9]+ [KMGT]iB\)" err || fail "a size with a disagreeing pair: $(cat err)"
image d1.img 1048577
image m8.img 8M
failed tpcreate --data d1.img --meta m8.img d1
err_has "holds no whole 64 KiB chunk; the device must be at least 1088 KiB"
