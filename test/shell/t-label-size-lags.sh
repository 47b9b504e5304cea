# SPDX-License-Identifier: GPL-2.0-or-later
# A tpreduce --size whose label write failed leaves the data device's label
# recording the old, larger size while the newer VG records the smaller
# one: the VG decides. Readers use the pool and report the label as
# lagging; the next writer rewrites it. A device shorter than the VG
# records is still refused as cut short.
DATA_SIZE=64M META_SIZE=16M new_pool P --chunk 64K
ok tvcreate -V 1M -n a P
dd if=P-data.img of=label.old bs=512 skip=1 count=1 status=none
ok tpreduce --size 32M P
size=$(sed -n "s/.*truncate -s \([0-9]*\) .*/\1/p" out | head -1)
[ -n "$size" ] || fail "tpreduce names no size: $(cat out)"
# the label write lost: the old label back, the image cut to the VG's size
dd if=label.old of=P-data.img bs=512 seek=1 count=1 conv=notrunc status=none
truncate -s "$size" P-data.img

sums ./*.img >before
ok tpstatus P
out_has "32 MiB"
expect_rc 1 tpcheck P
out_has "lags behind the VG metadata"
out_lacks "FATAL"
cat out err >all
! grep -q "truncate -s" all || { cat all >&2; fail "tpcheck advises growing a device the VG fits"; }
sums_same before || fail "a reader changed a device"

# truly cut short: shorter than the VG records
truncate -s 30M P-data.img
failed tpstatus P
err_has "cut short"
expect_rc 2 tpcheck P
truncate -s "$size" P-data.img
sums_same before || fail "refusals changed a device"

# the next writer brings the label in step
ok tvcreate -V 1M -n b P
ok tpcheck P
out_has "clean"
ok tpstatus --noheadings -o vol_name P
out_has "a"
out_has "b"
thin_check_pool P
