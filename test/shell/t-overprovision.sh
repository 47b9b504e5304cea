# SPDX-License-Identifier: GPL-2.0-or-later
# --max-overprovision: a pool's limit on the sum of its volumes' virtual
# sizes (snapshots and unfinished receives included), kept in the VG;
# tvcreate, tvsnap, tvresize, tvrollback and tprecv refuse what would pass
# it, tpreduce a smaller data area under it (exit 5, the figures named,
# every image unchanged); tpstatus shows
# the ratio and the limit; old VGs (none recorded) are unlimited.
DATA_SIZE=128M
# a data area of 127 MiB (1 MiB of label and VG area before it)
new_pool op --chunk 64k --max-overprovision 1
field() { tpstatus --noheadings -o "$1" op | tr -d ' '; }
[ "$(field pool_max_overprovision)" = 1.00 ] || fail "limit: $(field pool_max_overprovision)"
[ "$(field pool_overprovision)" = 0.00 ] || fail "ratio of an empty pool: $(field pool_overprovision)"
grep -q "max_overprovision_percent=100" "$(backup_dir op)"/*.vg || fail "limit not in the VG"
ok tpchange op
out_has "over-provisioning at most 1.00 x its data size"

ok tvcreate -V 100M -n a op
# 100 + 27 = 127 MiB: exactly the data size, allowed
ok tvcreate -V 27M -n b op
[ "$(field pool_overprovision)" = 1.00 ] || fail "ratio at the limit: $(field pool_overprovision)"
unchanged 5 tvcreate -V 1M -n c op
err_has "pool op: refused: the volumes' virtual sizes would add up to 128 MiB (now 127 MiB, requested +1 MiB), above the pool's over-provisioning limit of 127 MiB (1.0 x its data size of 127 MiB)"
err_has "tpextend op"
err_has "tpchange --max-overprovision RATIO op"
# a snapshot counts with its whole virtual size
unchanged 5 tvsnap op/b -n b-snap
err_has "requested +27 MiB"
unchanged 5 tvresize -V +1M op/a
# shrinking is never refused
ok tvresize -V 90M op/a
ok tvcreate -V 10M -n c op
ok tvremove -y op/c
# a receive counts: a raw import of 20 MiB does not fit under 10 MiB free of limit
head -c 20M /dev/urandom >in.raw
unchanged 5 tprecv --format raw -n imp -i in.raw op
ok tpcheck op

# raising the limit lets them through; a ratio with decimals
ok tpchange --max-overprovision 1.5 op
[ "$(field pool_max_overprovision)" = 1.50 ] || fail "limit 1.5: $(field pool_max_overprovision)"
ok tvsnap op/b -n b-snap
ok tprecv --format raw -n imp -i in.raw op
# lowering it under what the pool holds: kept, said, and nothing more added
ok tpchange --max-overprovision 1 op
err_has "already add up to"
unchanged 5 tvcreate -V 1M -n d op
ok tpchange --max-overprovision none op
[ "$(field pool_max_overprovision)" = none ] || fail "none: $(field pool_max_overprovision)"
ok tvcreate -V 1G -n big op
ok tpcheck op

# a rollback to a larger snapshot raises the sum too: a 10M, s 60M (a
# snapshot of a when it was 60M) is 70 MiB; a rolled back to s, 120 MiB
new_pool rb --chunk 64k
ok tvcreate -V 60M -n a rb
ok tvsnap rb/a -n s
ok tvresize -V 10M rb/a
ok tpchange --max-overprovision 0.75 rb
unchanged 5 tvrollback rb/a --to s
err_has "would add up to 120 MiB (now 70 MiB, requested +50 MiB)"
ok tpchange --max-overprovision 1 rb
ok tvrollback rb/a --to s

# bad ratios: usage errors, nothing written
for bad in 0 -1 x 1.234 1. .5 1e3 1000001; do
	unchanged 3 tpchange --max-overprovision "$bad" op
done
image x-data.img 128M
image x-meta.img 16M
unchanged 3 tpcreate --data x-data.img --meta x-meta.img --max-overprovision 0 x

# a pool made without it is unlimited and its VG text has no such key
new_pool plain
grep -q "max_overprovision" "$(backup_dir plain)"/*.vg && fail "the limit written by default"
ok tvcreate -V 10G -n huge plain
[ "$(tpstatus --noheadings -o pool_max_overprovision plain | tr -d ' ')" = none ] ||
	fail "an old pool's limit"

# a stream's receive: refused at its first change, before any data
ok tvsnap -r plain/huge -n huge-ro
ok tpsend -o huge.stream plain/huge-ro
ok tpchange --max-overprovision 1 op
unchanged 5 tprecv -i huge.stream op
err_has "requested +10 GiB"

# tpreduce shrinks the data size: refused (also --test) when the volumes'
# virtual sizes would then be above the limit, naming it and the ways out;
# taken when they fit
DATA_SIZE=128M new_pool rd --chunk 64k --max-overprovision 1
image rd-data2.img 64M
ok tpextend --data rd-data2.img rd
ok tvcreate -V 150M -n a rd
unchanged 5 tpreduce --test --data rd-data2.img rd
err_has "taking rd-data2.img away shrinks its data size to 127 MiB, and the volumes' virtual sizes of 150 MiB would be above its over-provisioning limit of 127 MiB (1.0 x that data size)"
err_has "tpchange --max-overprovision RATIO rd"
err_has "tpextend --data DEV rd"
unchanged 5 tpreduce --data rd-data2.img rd
ok tpchange --max-overprovision 1.25 rd
ok tpreduce --data rd-data2.img rd
[ "$(pool_bytes rd pool_size)" = $((127 << 20)) ] || fail "tpreduce under a raised limit"
ok tpcheck rd
exit 0
