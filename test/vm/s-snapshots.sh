#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Snapshots as users use them, on the real kernel (issue 15): ext4 on a
# volume, snapshots s1 and s2 taken live with writes in between; tpdiff on
# the live pool (through a metadata snapshot the kernel holds and gives
# back) finds the changed ranges, none between a volume and itself, and
# its XML equals thin_delta's on the same metadata once offline; a
# read-only snapshot is activated read-only and refuses writes; offline,
# tpsend --format raw of s1 and s2 gives images that mount with the files'
# checksums of their moment, and a full send of s1 then an incremental one
# from s1 to s2 into a second pool give volumes that, activated there,
# mount with the same checksums. tvrollback of the live volume: refused
# while mounted; unmounted but loaded, and not loaded, it takes s1's and
# then s2's content, which mounts with the files' checksums of then.
. "$TP_SRC/test/vm/lib.sh"
vm_begin -n 4 -e -d mnt -d img -o loop -k ext4
DATA=${disks[0]} META=${disks[1]}

ranges() { tpdiff -f json "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["differing_ranges"])'; }

step "pool, volume, ext4, files"
vm_live_pool snp "$DATA" "$META" 64M www --chunk 64k
must mkfs.ext4 -q -F /dev/mapper/snp-www
must mount /dev/mapper/snp-www mnt
must dd if=/dev/urandom of=mnt/a bs=1M count=6 status=none
must dd if=/dev/urandom of=mnt/b bs=1M count=3 status=none
sync
s1_a=$(md5sum <mnt/a) s1_b=$(md5sum <mnt/b)

step "live snapshot s1, more writes, live snapshot s2"
must tvsnap --readonly snp/www -n s1
must dd if=/dev/urandom of=mnt/a bs=1M count=1 seek=2 conv=notrunc status=none
must dd if=/dev/urandom of=mnt/c bs=1M count=2 status=none
sync
s2_a=$(md5sum <mnt/a) s2_b=$(md5sum <mnt/b) s2_c=$(md5sum <mnt/c)
must tvsnap --readonly snp/www -n s2

step "tpdiff on the live pool (metadata snapshot held, then released)"
n=$(ranges snp/s1 snp/s2)
echo "s1 -> s2: $n ranges"
[ "${n:-0}" -gt 0 ] || note_fail "no ranges between s1 and s2"
expect_eq "a volume against itself" "$(ranges snp/s2 snp/s2)" 0
check tpdiff -v snp/s1 snp/s2
dmsetup status snp-tpool | awk '{ print "held metadata snapshot:", $7 }'
expect_eq "metadata snapshot released" "$(dmsetup status snp-tpool | awk '{ print $7 }')" "-"
check tpdiff -f xml -o live.xml snp/s1 snp/s2
grep -q 'nr_data_blocks="0"' live.xml || note_fail "live XML is not from a metadata snapshot"

step "a read-only snapshot is activated read-only and refuses writes"
must tvsnap --readonly snp/www -n ro
must tpactivate snp ro
expect_eq "block device read-only" "$(blockdev --getro /dev/mapper/snp-ro)" 1
not dd if=/dev/zero of=/dev/mapper/snp-ro bs=4k count=1 oflag=direct status=none
dd if=/dev/zero of=/dev/mapper/snp-ro bs=4k count=1 oflag=direct status=none 2>&1 |
	grep -Eq "Read-only|Operation not permitted" || note_fail "the write error is not EROFS/EPERM"
not tvchange --readonly n snp/ro
must tpdeactivate snp ro
must tvchange --readonly n snp/ro

step "live tvrollback: refused while mounted; unmounted (loaded, then not), it mounts as the snapshot"
tvrollback snp/www --to s1 2>rb.err && note_fail "tvrollback of a mounted volume succeeded"
cat rb.err
grep -q "is open" rb.err || note_fail "no 'is open' message"
must umount mnt
id_www=$(tpstatus --noheadings -o vol_name,vol_dev_id snp | awk '$1 == "www" { print $2 }')
must tvrollback snp/www --to s1
[ -b /dev/mapper/snp-www ] || note_fail "www is not loaded again after the rollback"
dmsetup table snp-www
expect_eq "www's table names its new thin device" "$(dmsetup table snp-www | awk '{ print $5 }')" \
	"$(tpstatus --noheadings -o vol_name,vol_dev_id snp | awk '$1 == "www" { print $2 }')"
dmsetup message snp-tpool 0 "create_snap 999 $id_www" 2>/dev/null && note_fail "the old thin device of www still exists"
must mount /dev/mapper/snp-www mnt
expect_eq "rolled back to s1: a" "$(md5sum <mnt/a)" "$s1_a"
expect_eq "rolled back to s1: b" "$(md5sum <mnt/b)" "$s1_b"
check test ! -e mnt/c
must umount mnt
must tpdeactivate snp www
must tvrollback snp/www --to s2
[ -b /dev/mapper/snp-www ] && note_fail "www was loaded by a rollback while inactive"
must tpactivate snp www
must mount /dev/mapper/snp-www mnt
expect_eq "rolled back to s2: a" "$(md5sum <mnt/a)" "$s2_a"
expect_eq "rolled back to s2: b" "$(md5sum <mnt/b)" "$s2_b"
expect_eq "rolled back to s2: c" "$(md5sum <mnt/c)" "$s2_c"

step "offline: tpdiff XML equals thin_delta's, raw images mount with the files"
must umount mnt
must tpdeactivate snp
check tpdiff -f xml -o offline.xml snp/s1 snp/s2
read -r off len <<<"$(tpstatus --noheadings --units b -o pool_meta_offset,pool_meta_length snp | awk 'NF == 2 { sub(/b$/, "", $1); sub(/b$/, "", $2); print }')"
dd if="$META" of=area.img bs=1M iflag=skip_bytes,count_bytes skip="$off" count="$len" status=none
id1=$(tpstatus --noheadings -o vol_name,vol_dev_id snp | awk '$1 == "s1" { print $2 }')
id2=$(tpstatus --noheadings -o vol_name,vol_dev_id snp | awk '$1 == "s2" { print $2 }')
loopdev=$(losetup -f --show area.img) || fail "losetup"	# thin_delta opens with O_DIRECT
must thin_delta --snap1 "$id1" --snap2 "$id2" "$loopdev" >want.xml
losetup -d "$loopdev"
check cmp offline.xml want.xml
for s in s1 s2; do
	must tpsend --format raw -o $s.img snp/$s
	must mount -o ro,noload,loop $s.img img
	if [ $s = s1 ]; then
		expect_eq "s1: a" "$(md5sum <img/a)" "$s1_a"
		expect_eq "s1: b" "$(md5sum <img/b)" "$s1_b"
		check test ! -e img/c
	else
		expect_eq "s2: a" "$(md5sum <img/a)" "$s2_a"
		expect_eq "s2: b" "$(md5sum <img/b)" "$s2_b"
		expect_eq "s2: c" "$(md5sum <img/c)" "$s2_c"
	fi
	must umount img
done

step "send s1 in full and s2 as changes to a second pool; activated, they mount"
must tpcreate --data "${disks[2]}" --meta "${disks[3]}" --chunk 64k bak
tpsend snp/s1 | tprecv bak || note_fail "full send | recv"
must tpsend --from s1 -o inc.stream snp/s2
must tpsend -o full.stream snp/s2
echo "incremental stream $(stat -c %s inc.stream) bytes, full $(stat -c %s full.stream)"
[ "$(stat -c %s inc.stream)" -lt "$(stat -c %s full.stream)" ] || note_fail "incremental not smaller"
must tprecv -i inc.stream bak
must tpactivate bak
for s in s1 s2; do
	expect_eq "received $s is read-only" "$(blockdev --getro /dev/mapper/bak-$s)" 1
	must mount -o ro,noload /dev/mapper/bak-$s img
	if [ $s = s1 ]; then
		expect_eq "received s1: a" "$(md5sum <img/a)" "$s1_a"
		expect_eq "received s1: b" "$(md5sum <img/b)" "$s1_b"
	else
		expect_eq "received s2: a" "$(md5sum <img/a)" "$s2_a"
		expect_eq "received s2: b" "$(md5sum <img/b)" "$s2_b"
		expect_eq "received s2: c" "$(md5sum <img/c)" "$s2_c"
	fi
	must umount img
done
must tpdeactivate bak
must tpremove -y bak
must tpremove -y snp
finish
