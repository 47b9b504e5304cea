#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A pool over several data devices on the real kernel (issue 25): a pool
# on an md RAID0 of two disks (128 KiB full stripe) grown offline by an md
# RAID0 of three (192 KiB) with tpextend --data; activated, the data
# device is a linear table over both; fio writes across the boundary and
# verifies; then a third device is added live under fio (the tdata table
# reloaded), fio verifies; tpcheck and thin_check are clean after; then
# tpmove empties the first array and tpreduce --data takes it away (every
# mapping numbered down): with that array stopped the pool is found and
# activated on the others, tdata is linear over two, fio verifies what it
# wrote, tpcheck is clean.
. "$TP_SRC/test/vm/lib.sh"
vm_begin -n 7 -m -e -o raid0 -o loop
command -v fio >/dev/null || skip_scenario "no fio"

status() { tpstatus --noheadings --units b -o "$1" multi | awk 'NF { $1 = $1; print; exit }'; }

step "two md RAID0 arrays, 64 KiB md chunk: 2 and 3 members"
must mdadm --create /dev/md0 --run --quiet --assume-clean --level=0 --raid-devices=2 \
	--chunk=64 --metadata=1.2 "${disks[0]}" "${disks[1]}"
must mdadm --create /dev/md1 --run --quiet --assume-clean --level=0 --raid-devices=3 \
	--chunk=64 --metadata=1.2 "${disks[2]}" "${disks[3]}" "${disks[4]}"
# (the arrays' data starts past the first MiB of each member, which is all
# the guest zeroes between scenarios: a scenario before this one, s-encrypt
# on the later kernel's turn, left a LUKS header there, which tpcreate
# rightly refuses to overwrite)
for md in /dev/md0 /dev/md1; do
	must dd if=/dev/zero of=$md bs=1M count=4 oflag=direct status=none
done
META=${disks[5]}
must tpcreate --data /dev/md0 --meta "$META" --chunk 64k --zero n multi
must tpextend --test --data /dev/md1 multi
must tpextend --data /dev/md1 multi
tpstatus --devices-report multi
size=$(status pool_size)
first=$(tpstatus --noheadings --units b --devices-report multi | awk '$3 == 2 { print $6 }')
off2=$(tpstatus --noheadings --units b --devices-report multi | awk '$3 == 2 { sub(/b$/, "", $5); print $5 }')
expect_eq "the second array's data area on its own full stripe" $((off2 % (192 << 10))) 0
echo "data area $size bytes, the second device from chunk $first"

step "activation: tdata is linear over both arrays"
must tvcreate -V 400M -n v multi
must tpactivate multi
table=$(dmsetup table multi-tdata)
echo "$table"
expect_eq "tdata targets" "$(wc -l <<<"$table")" 2
# fio writes past the first array's range (chunks are handed out in order)
check timeout 600 fio --name=cross --filename=/dev/mapper/multi-v --rw=write --bs=256k \
	--size=$(((first + 64) * 65536)) --direct=1 --ioengine=psync --eta=never \
	--verify=crc32c --do_verify=1 --output=fio1.out
grep -E "err=" fio1.out || true
used=$(status pool_data_used)
[ "${used%b}" -gt $((first * 65536)) ] || note_fail "no chunk on the second array: used $used"

step "live tpextend --data under fio"
fio --name=live --filename=/dev/mapper/multi-v --rw=randwrite --bs=64k --size=64M \
	--offset=300M --direct=1 --ioengine=psync --eta=never --verify=crc32c --do_verify=1 \
	--output=fio2.out &
fpid=$!
sleep 1
must tpextend --data "${disks[6]}" multi
wait $fpid || note_fail "fio under the live tpextend: exit $?"
grep -E "err=" fio2.out || true
expect_eq "tdata targets after the live addition" "$(dmsetup table multi-tdata | wc -l)" 3
tpstatus --devices-report multi

step "deactivated: tpcheck and thin_check clean"
must tpdeactivate multi
check tpcheck multi
read -r off len <<<"$(tpstatus --noheadings --units b -o pool_meta_offset,pool_meta_length multi | awk 'NF == 2 { sub(/b$/, "", $1); sub(/b$/, "", $2); print }')"
dd if="$META" of=area.img bs=1M iflag=skip_bytes,count_bytes skip="$off" count="$len" status=none
loopdev=$(losetup -f --show area.img) || fail "losetup"
check thin_check "$loopdev"
losetup -d "$loopdev"

step "the first array emptied and taken away"
must tpmove --from /dev/md0 multi
must tpreduce --data /dev/md0 multi
must mdadm --stop --quiet /dev/md0
tpstatus --devices-report multi
must tpactivate multi
expect_eq "tdata targets without the first array" "$(dmsetup table multi-tdata | wc -l)" 2
check timeout 600 fio --name=cross --filename=/dev/mapper/multi-v --rw=write --bs=256k \
	--size=$(((first + 64) * 65536)) --direct=1 --ioengine=psync --eta=never \
	--verify=crc32c --verify_only --output=fio3.out
check timeout 600 fio --name=live --filename=/dev/mapper/multi-v --rw=randwrite --bs=64k \
	--size=64M --offset=300M --direct=1 --ioengine=psync --eta=never --verify=crc32c \
	--verify_only --output=fio4.out
grep -E "err=" fio3.out fio4.out || true
must tpdeactivate multi
check tpcheck multi
must mdadm --stop --quiet /dev/md1
finish
