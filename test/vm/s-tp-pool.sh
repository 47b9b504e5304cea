#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tptools on the real kernel (issue 6): a pool on a 6-disk md RAID6 with the
# geometry read through libblkid in the guest, activation, a filesystem on a
# volume, live snapshots and changes, deactivation and reactivation, the
# kernel's figures in tpstatus agreeing with the offline ones, thin_check of
# the kernel-written metadata, a transaction-id mismatch, a full pool, and
# the RAID0/RAID5/plain geometries; tpactivate --all/--auto and
# tpdeactivate --all with the activation flags (issue 13); the kernel's
# letters of pool_attr and vol_attr (active, open, out of data space) and
# the live pool in tpstatus --format prometheus and tpmonitor --textfile.
. "$TP_SRC/test/vm/lib.sh"
vm_begin -n 8 -m -e -d mnt -d snap -o loop -k ext4

# status FIELDS: tpstatus values, one line
status() { tpstatus --noheadings --units b -o "$1" vault | awk 'NF { $1 = $1; print; exit }'; }
vstatus() { tpstatus --noheadings --units b -o vol_name,"$1" vault | awk -v v="$2" '$1 == v { print $2 }'; }
# promcheck FILE: the strict parser of the metrics' text format
promcheck() { check python3 "$TP_SRC/test/tools/promcheck.py" --strict-families --prefix tptools_ "$1"; }
# has FILE LINE: FILE holds the sample line LINE
has() { grep -qxF -- "$2" "$1" || note_fail "$1 lacks '$2'"; }
# check_meta: thin_check on the active area (through a loop device: O_DIRECT)
check_meta() {
	local off len loopdev
	read -r off len <<<"$(tpstatus --noheadings --units b -o pool_meta_offset,pool_meta_length vault | awk 'NF == 2')"
	dd if="$META" of=area.img bs=1M iflag=skip_bytes,count_bytes skip="$off" count="$len" status=none
	loopdev=$(losetup -f --show area.img) || { note_fail "losetup"; return; }
	check thin_check "$loopdev"
	losetup -d "$loopdev"
}

step "md RAID6, 6 members, 512 KiB chunk; pool geometry from libblkid"
must mdadm --create /dev/md0 --run --quiet --assume-clean --level=6 --raid-devices=6 \
	--chunk=512 --metadata=1.2 "${disks[@]:0:6}"
META=${disks[6]}
must tpcreate --data /dev/md0 --meta "$META" --chunk auto --explain vault
read -r chunk zero profile off <<<"$(status pool_chunk,pool_zero,pool_profile,pool_data_offset)"
chunk=${chunk%b}
echo "chunk $chunk zero $zero profile $profile data offset $off"
expect_eq "balanced chunk: 64 KiB, dividing the 512 KiB md chunk" "$chunk" $((64 << 10))
expect_eq "profile" "$profile" balanced
expect_eq "zeroing" "$zero" no
expect_eq "data offset is stripe aligned" $((off % (2 << 20))) 0

step "offline volume, then activation"
must tvcreate -V 96M -n www vault
must tpactivate vault
check test -b /dev/mapper/vault-www
expect_eq "active" "$(status pool_active)" yes
must mkfs.ext4 -q -F /dev/mapper/vault-www
must mount /dev/mapper/vault-www mnt
status pool_attr | grep -Eq '^waq--[pni]---$' || note_fail "pool_attr of an active pool: $(status pool_attr)"
expect_eq "vol_attr of a mounted volume" "$(vstatus vol_attr www)" Vwao---
tpstatus --format prometheus vault >live.prom || note_fail "tpstatus --format prometheus: exit $?"
promcheck live.prom
has live.prom 'tptools_pool_up{pool="vault"} 1'
has live.prom 'tptools_pool_active{pool="vault"} 1'
has live.prom 'tptools_pool_mode{pool="vault",mode="read_write"} 1'
has live.prom 'tptools_pool_mode{pool="vault",mode="out_of_data_space"} 0'
has live.prom 'tptools_volume_active{pool="vault",volume="www"} 1'
has live.prom 'tptools_volume_open{pool="vault",volume="www"} 1'
must dd if=/dev/urandom of=mnt/a bs=1M count=8 status=none
must dd if=/dev/urandom of=mnt/b bs=1M count=4 status=none
sum_a=$(md5sum <mnt/a) sum_b=$(md5sum <mnt/b)
sync

step "live snapshot of the mounted origin, then overwrite the origin"
must tvsnap vault/www -n www-snap
must dd if=/dev/zero of=mnt/a bs=1M count=8 conv=notrunc status=none
sync
must tpactivate vault www-snap
must mount -o ro,noload /dev/mapper/vault-www--snap snap
expect_eq "snapshot keeps the old data" "$(md5sum <snap/a)" "$sum_a"
expect_eq "snapshot file b" "$(md5sum <snap/b)" "$sum_b"
not cmp -s mnt/a snap/a
expect_eq "vol_attr of a mounted snapshot" "$(vstatus vol_attr www-snap)" swao---
must umount snap
expect_eq "vol_attr of a loaded snapshot nobody holds" "$(vstatus vol_attr www-snap)" swa----

step "live create and remove"
must tvcreate -V 32M -n tmp vault
check test -b /dev/mapper/vault-tmp
must dd if=/dev/urandom of=/dev/mapper/vault-tmp bs=1M count=2 oflag=direct status=none
must tvremove vault/tmp
check test ! -e /dev/mapper/vault-tmp
not tvremove -y vault/www
expect_eq "volume in use is kept" "$(vstatus vol_size www)" $((96 << 20))b

step "the kernel's figures, then the same offline"
# unmount first: ext4 writes at unmount, and with 64 KiB chunks those
# writes provision chunks of their own
must umount mnt
sync
live_used=$(status pool_data_used)
live_www=$(vstatus vol_mapped www)
live_snap=$(vstatus vol_exclusive www-snap)
echo "live: data $live_used, www mapped $live_www, snap exclusive $live_snap"
# the same figures in the metrics, from tpstatus and from tpmonitor's textfile
mkdir -p tf
check tpmonitor --once --textfile tf
for f in live.prom tf/tptools.prom; do
	[ "$f" = live.prom ] && { tpstatus --format prometheus vault >live.prom || note_fail "exit $?"; }
	promcheck "$f"
	has "$f" "tptools_pool_data_used_bytes{pool=\"vault\"} ${live_used%b}"
	has "$f" "tptools_volume_mapped_bytes{pool=\"vault\",volume=\"www\"} ${live_www%b}"
	has "$f" "tptools_volume_exclusive_bytes{pool=\"vault\",volume=\"www-snap\"} ${live_snap%b}"
	has "$f" 'tptools_pool_active{pool="vault"} 1'
	has "$f" 'tptools_volume_open{pool="vault",volume="www"} 0'
	has "$f" 'tptools_volume_active{pool="vault",volume="www"} 1'
done
[ "$(ls -A tf)" = tptools.prom ] || note_fail "left in the textfile's directory: $(ls -A tf)"
must tpdeactivate vault
check test ! -e /dev/mapper/vault-www
expect_eq "inactive" "$(status pool_active)" no
status pool_attr | grep -Eq '^w-q--[pni]---$' || note_fail "pool_attr inactive: $(status pool_attr)"
expect_eq "vol_attr of an inactive pool's volume" "$(vstatus vol_attr www)" Vw-----
expect_eq "data used offline" "$(status pool_data_used)" "$live_used"
expect_eq "www mapped offline" "$(vstatus vol_mapped www)" "$live_www"
expect_eq "snapshot exclusive offline" "$(vstatus vol_exclusive www-snap)" "$live_snap"
check_meta

step "reactivate: data intact"
must tpactivate vault
must mount /dev/mapper/vault-www mnt
expect_eq "file b after reactivation" "$(md5sum <mnt/b)" "$sum_b"
must umount mnt

step "transaction id mismatch (VG says N, kernel says M)"
tid=$(status pool_transaction_id)
must dmsetup message vault-tpool 0 "set_transaction_id $tid $((tid + 5))"
not tvcreate -V 32M -n x vault
tvcreate -V 32M -n x vault 2>&1 | grep -q "transaction id mismatch" || note_fail "mismatch not explained"
must dmsetup message vault-tpool 0 "set_transaction_id $((tid + 5)) $tid"
must tpdeactivate vault
check_meta
must tpremove -y vault
must mdadm --stop --quiet /dev/md0
must mdadm --zero-superblock "${disks[@]:0:6}"

step "a full pool with --when-full error"
must dd if=/dev/zero of="${disks[0]}" bs=1M count=4 status=none
must tpcreate --data "${disks[0]}" --meta "$META" --when-full error --force --yes full
must tvcreate -V 512M -n big full
must tpactivate full
not dd if=/dev/zero of=/dev/mapper/full-big bs=1M count=200 oflag=direct status=none
expect_eq "mode" "$(tpstatus --noheadings -o pool_mode full | awk 'NF{print $1; exit}')" out_of_data_space
tpstatus --noheadings -o pool_attr full | grep -Eq '^Dae--[pni]---$' ||
	note_fail "pool_attr out of data space: $(tpstatus --noheadings -o pool_attr full)"
expect_eq "vol_attr in a pool out of data space" \
	"$(tpstatus --noheadings -o vol_name,vol_attr full | awk '$1 == "big" { print $2 }')" Vwa-D--
tpstatus --format prometheus full >full.prom || note_fail "tpstatus --format prometheus full: exit $?"
promcheck full.prom
has full.prom 'tptools_pool_mode{pool="full",mode="out_of_data_space"} 1'
has full.prom 'tptools_pool_mode{pool="full",mode="read_write"} 0'
has full.prom 'tptools_pool_error_when_full{pool="full"} 1'
must tpdeactivate full
must tpremove -y full

step "RAID5 and RAID0 geometries, and a plain disk"
must mdadm --create /dev/md0 --run --quiet --assume-clean --level=5 --raid-devices=5 \
	--chunk=64 --metadata=1.2 "${disks[@]:0:5}"
must tpcreate --data /dev/md0 --meta "$META" --profile throughput --force --yes r5
c=$(tpstatus --noheadings --units b -o pool_chunk r5 | awk 'NF{print $1; exit}')
expect_eq "RAID5 throughput chunk is a whole stripe" $(( ${c%b} % (256 << 10) )) 0
must tpremove -y r5
must mdadm --stop --quiet /dev/md0
must mdadm --zero-superblock "${disks[@]:0:5}"
vm_modprobe raid0 || note_fail "modprobe raid0"
must mdadm --create /dev/md0 --run --quiet --level=0 --raid-devices=3 --chunk=128 \
	--metadata=1.2 "${disks[@]:0:3}"
must tpcreate --data /dev/md0 --meta "$META" --force --yes r0
c=$(tpstatus --noheadings --units b -o pool_chunk r0 | awk 'NF{print $1; exit}')
expect_eq "RAID0 balanced chunk divides the 128K md chunk" $(( (128 << 10) % ${c%b} )) 0
must tpremove -y r0
must mdadm --stop --quiet /dev/md0
must mdadm --zero-superblock "${disks[@]:0:3}"
must tpcreate --data "${disks[0]}" --meta "$META" --force --yes plain
c=$(tpstatus --noheadings --units b -o pool_chunk plain | awk 'NF{print $1; exit}')
expect_eq "plain disk chunk (balanced: 64 KiB)" "$c" $((64 << 10))b
must tpremove -y plain

step "tpactivate --all / --auto, tpdeactivate --all, the activation flags"
for d in "${disks[@]:0:4}"; do
	must dd if=/dev/zero of="$d" bs=1M count=4 status=none
done
must tpcreate --data "${disks[0]}" --meta "${disks[1]}" --yes a1
must tpcreate --data "${disks[2]}" --meta "${disks[3]}" --yes --activate n a2
must tvcreate -V 32M -n up a1
must tvcreate -V 32M -n down --activate n a1
must tvcreate -V 32M -n v a2
must tpactivate --all
check test -b /dev/mapper/a1-up
check test ! -e /dev/mapper/a1-down
check test ! -e /dev/mapper/a2-v
check test ! -e /dev/mapper/a2-tpool
must tpactivate a1 down		# named: whatever its flag
check test -b /dev/mapper/a1-down
must tpchange --activate y a2
must tpactivate --auto "${disks[3]}"	# the udev unit's call for a2's metadata device
check test -b /dev/mapper/a2-v
must tpdeactivate --all
for d in a1-up a1-down a1-tpool a2-v a2-tpool; do
	check test ! -e "/dev/mapper/$d"
done
must tpremove -y a1
must tpremove -y a2
finish
