#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Discards on a live pool (issue 25; tptrim on block devices: s-wipe),
# on loop devices over files so that passdown is seen on the data file:
# ext4's fstrim on a volume frees the pool chunks of a removed file (the
# kernel's used count drops by about its size) and the data file's blocks
# are released beneath them (passdown); a discard of a volume whose chunks
# a snapshot shares frees none of them and the snapshot reads the same;
# discards of parts of chunks free nothing and the volume reads the same.
# Then tpmove, which needs the pool inactive and its mappings its own: an
# active pool is refused, and so is an inactive one whose thin metadata
# holds a metadata snapshot (exit 5 each, the devices unchanged), as
# tptrim is; inactive, it moves every chunk off the first device onto the
# second (a snapshot's shared chunks once), and the kernel reads the
# volumes the same from there; a write to an origin whose chunks moved
# still breaks the sharing (the mappings kept their times). Last, a live
# tprecv into a pool with --max-overprovision 1 that would pass it is
# refused (exit 5, the kernel's devices and the volumes unchanged), and
# the same receive fits once room is made.
. "$TP_SRC/test/vm/lib.sh"
vm_begin -e -d mnt -o loop -k ext4
command -v losetup >/dev/null || skip_scenario "no losetup"
command -v fstrim >/dev/null || skip_scenario "no fstrim"
CHUNK=65536

truncate -s 96M d.img
truncate -s 40M d2.img
truncate -s 16M m.img
D=$(losetup -f --show d.img) || fail "losetup"
D2=$(losetup -f --show d2.img) || fail "losetup"
M=$(losetup -f --show m.img) || fail "losetup"
cleanup() { umount mnt 2>/dev/null; tpdeactivate tr >/dev/null 2>&1; losetup -d "$D" "$D2" "$M"; }
trap cleanup EXIT

# the kernel's count of used data chunks
used() { dmsetup status tr-tpool | awk '{ split($6, u, "/"); print u[1] }'; }
# bytes the data file holds
held() { sync; echo $(( $(stat -c '%b * %B' d.img) )); }

step "pool with passdown on a loop device, ext4 on a volume"
must tpcreate --data "$D" --meta "$M" --chunk 64k --zero n --discards passdown tr
must tpextend -q --data "$D2" tr
must tvcreate -V 64M -n fs tr
must tvcreate -V 4M -n v tr
must tvcreate -V 4M -n w tr
must tpactivate tr
tpstatus --noheadings -o pool_discards tr 2>/dev/null | grep -q passdown ||
	echo "(pool_discards: $(tpstatus --noheadings -o pool_discards tr 2>&1))"
# (no lazy init: a kernel thread writing inode tables later would take chunks)
must mkfs.ext4 -q -F -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 /dev/mapper/tr-fs
mkdir -p mnt
must mount /dev/mapper/tr-fs mnt
must dd if=/dev/urandom of=mnt/big bs=1M count=24 conv=fsync status=none
sync
u1=$(used) h1=$(held)
echo "after 24 MiB written: $u1 chunks used, $h1 bytes in d.img"

step "ext4: the file removed, fstrim frees its chunks, passed down to the data file"
must rm mnt/big
sync
[ "$(used)" -ge "$u1" ] || note_fail "the removal alone freed chunks: $(used) < $u1"
must fstrim -v mnt
u2=$(used) h2=$(held)
echo "after fstrim: $u2 chunks used, $h2 bytes in d.img"
[ $((u1 - u2)) -ge $(( (24 << 20) / CHUNK - 16 )) ] ||
	note_fail "fstrim freed $((u1 - u2)) chunks, not about 24 MiB's $(( (24 << 20) / CHUNK ))"
[ $((h1 - h2)) -ge $(( (24 << 20) - (1 << 20) )) ] ||
	note_fail "passdown released $((h1 - h2)) bytes of d.img, not about 24 MiB"
must umount mnt

step "a discard of chunks a snapshot shares frees none, the snapshot reads the same"
must dd if=/dev/urandom of=/dev/mapper/tr-v bs=1M count=4 oflag=direct conv=fsync status=none
must tvsnap --readonly tr/v -n vs
must tpactivate tr vs
sum_vs=$(md5sum </dev/mapper/tr-vs)
u3=$(used)
must blkdiscard /dev/mapper/tr-v
expect_eq "used after the discard of v (all shared with vs)" "$(used)" "$u3"
expect_eq "v reads zeros after its discard" \
	"$(dd if=/dev/mapper/tr-v bs=1M iflag=direct status=none | tr -d '\0' | wc -c)" 0
echo 3 >/proc/sys/vm/drop_caches
expect_eq "vs after the discard of v" "$(md5sum </dev/mapper/tr-vs)" "$sum_vs"

step "discards of parts of chunks free nothing and lose nothing"
must dd if=/dev/urandom of=/dev/mapper/tr-w bs=1M count=4 oflag=direct conv=fsync status=none
sum_w=$(md5sum </dev/mapper/tr-w)
u4=$(used)
# inside chunk 0; across the end of chunk 1 into chunk 2; the last 4 KiB of chunk 5
must blkdiscard -o 4096 -l $((CHUNK - 8192)) /dev/mapper/tr-w
must blkdiscard -o $((CHUNK + 4096)) -l $((CHUNK)) /dev/mapper/tr-w
must blkdiscard -o $((6 * CHUNK - 4096)) -l 4096 /dev/mapper/tr-w
expect_eq "used after partial-chunk discards" "$(used)" "$u4"
echo 3 >/proc/sys/vm/drop_caches
expect_eq "w after partial-chunk discards" "$(md5sum </dev/mapper/tr-w)" "$sum_w"
# a whole chunk inside a larger partial range is freed, the rest kept
must blkdiscard -o $((8 * CHUNK + 512)) -l $((2 * CHUNK)) /dev/mapper/tr-w
expect_eq "used after a discard covering one whole chunk" "$(used)" $((u4 - 1))
sum_w=$(md5sum </dev/mapper/tr-w)
must tvsnap --readonly tr/w -n ws	# w's chunks shared: they move once

step "tpmove refuses an active pool (exit 5)"
rc=0; tpmove --from "$D2" tr >out 2>err || rc=$?
cat err
expect_eq "tpmove of an active pool: exit" "$rc" 5
grep -q "tpmove" err || note_fail "no message naming tpmove"

step "tpmove and tptrim refuse a metadata snapshot left in the thin metadata"
must dmsetup message tr-tpool 0 reserve_metadata_snap
held_root=$(dmsetup status tr-tpool | awk '{ print $7 }')
echo "held metadata snapshot: $held_root"
[ "$held_root" != - ] || note_fail "no metadata snapshot was held"
# the kernel's devices removed behind tptools' back (tpdeactivate would
# release the snapshot first): the pool's superblock keeps it
for t in thin thin-pool linear; do
	for n in $(dmsetup ls | awk '$1 ~ /^tr-/ { print $1 }'); do
		[ "$(dmsetup table "$n" | awk 'NR == 1 { print $3 }')" = "$t" ] || continue
		must dmsetup remove "$n"
	done
done
dmsetup ls | grep '^tr-' && note_fail "kernel devices of tr are left"
sums() { md5sum d.img d2.img m.img; }
sync
sums >sums.before
rc=0; tpmove --from "$D2" tr >out 2>err || rc=$?
cat err
expect_eq "tpmove with a metadata snapshot: exit" "$rc" 5
grep -q "metadata snapshot" err || note_fail "tpmove does not name the metadata snapshot"
rc=0; tptrim tr >out 2>err || rc=$?
expect_eq "tptrim with a metadata snapshot: exit" "$rc" 5
sync
sums | cmp -s - sums.before || note_fail "a refused tpmove or tptrim changed a device"
must tpactivate tr
dmsetup message tr-tpool 0 release_metadata_snap 2>/dev/null || true
must tpdeactivate tr

step "tpmove: every chunk off the first device onto the second; the kernel reads them there"
must tpmove --from "$D" tr >out
cat out
grep -q "holds no mapped chunk now" out || note_fail "tpmove did not empty the first device"
read -r nchunks nmaps <<<"$(sed -n 's/.*moved \([0-9]*\) chunks ([^,]*, \([0-9]*\) mappings).*/\1 \2/p' out)"
[ "${nmaps:-0}" -gt "${nchunks:-0}" ] || note_fail "no shared chunk moved ($nchunks chunks, $nmaps mappings)"
check tpcheck tr
must tpactivate tr
must tpactivate tr vs
echo 3 >/proc/sys/vm/drop_caches
expect_eq "vs after tpmove" "$(md5sum </dev/mapper/tr-vs)" "$sum_vs"
expect_eq "w after tpmove" "$(md5sum </dev/mapper/tr-w)" "$sum_w"
# the moved mappings kept their times: a write to w breaks the sharing
must tpactivate tr ws
must dd if=/dev/urandom of=/dev/mapper/tr-w bs=1M count=1 oflag=direct conv=fsync status=none
echo 3 >/proc/sys/vm/drop_caches
expect_eq "ws after a write to w" "$(md5sum </dev/mapper/tr-ws)" "$sum_w"
[ "$(md5sum </dev/mapper/tr-w)" != "$sum_w" ] || note_fail "the write to w did not land"
check fsck.ext4 -n -f /dev/mapper/tr-fs
must tpdeactivate tr
must tpremove -y tr

step "--max-overprovision 1: a live tprecv that would pass it is refused, exit 5"
truncate -s 40M src.img srcm.img op.img opm.img
S=$(losetup -f --show src.img) && SM=$(losetup -f --show srcm.img) &&
	O=$(losetup -f --show op.img) && OM=$(losetup -f --show opm.img) || fail "losetup"
must tpcreate -q --data "$S" --meta "$SM" --chunk 64k src
must tvcreate -q -V 20M -n x src
must tpactivate -q src
must dd if=/dev/urandom of=/dev/mapper/src-x bs=1M count=20 oflag=direct conv=fsync status=none
sum_x=$(md5sum </dev/mapper/src-x)
must tpdeactivate -q src
must tvchange -q --readonly y src/x
must tpsend -o x.stream src/x
must tpcreate -q --data "$O" --meta "$OM" --chunk 64k --max-overprovision 1 op
must tvcreate -q -V 24M -n b op	# of about 39 MiB: the 20 MiB of x would pass it
must tpactivate op
dmsetup ls | sort >dm.before
rc=0; tprecv -i x.stream -n r op >out 2>err || rc=$?
cat err
expect_eq "live tprecv past --max-overprovision: exit" "$rc" 5
grep -q "over-provision" err || note_fail "the refusal does not name the limit"
dmsetup ls | sort | cmp -s - dm.before || note_fail "the refused receive changed the kernel's devices"
expect_eq "volumes after the refusal" "$(tpstatus --noheadings -o vol_name op | tr -d ' ' | sort | tr '\n' ' ')" "b "
# room made: the same receive fits and reads back
must tvremove -y op/b
must tprecv -i x.stream -n r op
must tpactivate op r
echo 3 >/proc/sys/vm/drop_caches
expect_eq "r as received" "$(md5sum </dev/mapper/op-r)" "$sum_x"
must tpdeactivate op
check tpcheck op
must tpremove -y op
must tpremove -y src
losetup -d "$S" "$SM" "$O" "$OM"
finish
