# SPDX-License-Identifier: GPL-2.0-or-later
# The first two devices of a pool (its data device and its first metadata
# leg) damaged together while its other devices (an added data device, the
# mirror's second leg) are whole; what those hold still counts (the damage
# matrix's pair vg.newest@p.d + vg.newest@p.m):
# - the newest VG slot of both put back to an older copy: tpcheck reports
#   that both lack the newest VG metadata the other devices hold (a copy
#   behind is damage, not a clean pool), names tprepair, which rewrites
#   them;
# - both cut short (image files truncated inside their VG areas): tpcheck
#   reads the VG and the thin metadata from the other devices and says
#   which volumes mapped chunks of the data device's part cut off (lost),
#   before the advice to grow it back makes them read as zeros.
DATA_SIZE=32M META_SIZE=16M new_pool p --chunk 64K
ok tvcreate -V 1M -n a p
write_chunks p a 0 4
image p-d1.img 32M
ok tpextend --data p-d1.img p
image p-m1.img 16M
ok tpchange --meta-mirror p-m1.img p
ok tvcreate -V 1M -n b p
ok tpcheck p
mkdir t1
cp --sparse=always p-*.img t1/
ok tvcreate -V 1M -n c p
mkdir now
cp --sparse=always p-*.img now/

# newest: "OFFSET LENGTH" of IMAGE's newest VG slot
newest() { tp-vgtool where "$1" | awk '$1 == "newest" { print $2, $3 }'; }

# the newest slot of both put back to its bytes one commit earlier
for img in p-data.img p-meta.img; do
	read -r off len <<<"$(newest "$img")"
	dd if="t1/$img" of="$img" bs=512 iflag=skip_bytes,count_bytes oflag=seek_bytes \
		skip="$off" count="$len" seek="$off" conv=notrunc status=none
	cmp -s "$img" "now/$img" && fail "$img: the older slot changed no byte"
done
expect_rc 1 tpcheck p
out_has "p-data.img: lacks the newest VG metadata"
out_has "p-meta.img: lacks the newest VG metadata"
out_has "next: run 'tprepair p' to rewrite the damaged VG metadata copies"
ok tprepair p
ok tpcheck p
out_has "p: clean"
ok tpstatus --noheadings -o vol_name p
for v in a b c; do out_has "^ *$v *$"; done

# both cut short inside their VG areas: the data area of the data device
# and the thin-metadata areas of the first leg are gone
cp --sparse=always now/p-*.img .
for img in p-data.img p-meta.img; do
	read -r off len <<<"$(newest "$img")"
	truncate -s $((off + len / 2)) "$img"
done
expect_rc 2 tpcheck p
out_has "p-data.img was cut short at byte [0-9]* (of 33554432): the data chunks from 0 on are gone; lost: volume a map 4 of them"
out_has "next: run 'truncate -s 33554432 .*p-data.img'"
# the advice followed: grown back, then the leg resynced by tprepair
ok truncate -s 33554432 p-data.img
expect_rc 1 tpcheck p
out_has "next: run 'truncate -s 16777216 .*p-meta.img'"
ok truncate -s 16777216 p-meta.img
expect_rc 1 tpcheck p
out_has "next: run 'tprepair p'"
ok tprepair p
ok tpcheck p
out_has "p: clean"
