#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Mirrored thin metadata on the real kernel (issue 25; tpcreate(8) --meta
# DEV1,DEV2, tpchange(8) --meta-replace): the legs are dm linear devices
# over their own disks, so one can be swapped for the error target. The
# pool's tmeta is the kernel's raid1 over both legs; fio writes and
# verifies while leg 1 is replaced by dm-error: the pool keeps running,
# the raid1 marks the leg failed, tpstatus says degraded, tpmonitor says
# it once (and once that it is whole after the rebuild); tpchange
# --meta-replace puts the leg on a third disk and the kernel rebuilds it
# (tpstatus: mirrored again, the active areas of both legs byte-identical
# once deactivated); fio verifies everything it wrote; tpcheck is clean.
# Then the new leg's disk is taken away: the pool activates degraded
# (tmeta a raid1 with one leg "- -"), the volume reads back, tpstatus and
# tpcheck say degraded. Last, with leg 1 back, leg 0's label is wiped: the
# pool is found on its data device and leg 1, activates with leg 0 "- -",
# fio verifies; tpchange --meta-replace puts leg 0 on a new device. Then
# leg 1 away while the pool is written offline, then back (stale):
# tpactivate loads tmeta with "rebuild 1", the kernel rebuilds it, and
# once deactivated the legs' areas are equal, tpcheck clean; the same with
# md's sync speed at 1 KiB/s and the pool deactivated mid-rebuild: the
# next open says the leg is stale (tpcheck exits 1), the next activation
# rebuilds it again. Last, tpchange --meta-mirror on an active pool made
# with one metadata device: tmeta goes from linear to the raid1 with the
# new leg rebuilt, fio verifies, the legs are equal once deactivated.
# And tpextend --metadata-size auto on an active mirrored pool whose leg
# devices grew: tmeta's legs and raid1 grow live, the pool's metadata
# space map follows, fio verifies, the legs are equal once deactivated.
. "$TP_SRC/test/vm/lib.sh"
vm_begin -n 4 -e -k dm-raid -o raid1 -k dm-integrity -o crc32c_generic
command -v fio >/dev/null || skip_scenario "no fio"

# fio_job NAME POOL SIZE write|verify OUT: fio's checksummed random writes
# of SIZE on POOL/v (write: written and verified; verify: what an earlier
# job NAME wrote, read back and checked), its report in OUT
fio_job() {
	local how=--do_verify=1
	[ "$4" = verify ] && how=--verify_only
	fio --name="$1" --filename="/dev/mapper/$2-v" --rw=randwrite --bs=64k --size="$3" \
		--direct=1 --ioengine=psync --eta=never --verify=crc32c "$how" --output="$5"
}
health() { tpstatus --noheadings -o pool_meta_health mm | awk 'NF { print $1; exit }'; }
# wait_synced [POOL]: until the raid1 under POOL-tmeta (mm) reports both legs in sync
wait_synced() {
	local i st tmeta=${1:-mm}-tmeta
	for ((i = 0; i < 600; i++)); do
		st=$(dmsetup status "$tmeta")
		# "0 LEN raid raid1 2 AA N/N idle 0 ..."
		set -- $st
		[ "$6" = AA ] && [ "${7%/*}" = "${7#*/}" ] && return 0
		[ $((i % 20)) -eq 19 ] && echo "waiting for the raid1: $st"
		sleep 1
	done
	note_fail "the raid1 never came in sync: $st"
	return 1
}
leg() {	# leg NAME DISK: a dm linear device over the whole DISK
	must dmsetup create "$1" --table "0 $(blockdev --getsz "$2") linear $2 0"
}

step "legs mlegA, mlegB (dm linear over their disks); the pool on both"
leg mlegA "${disks[1]}"
leg mlegB "${disks[2]}"
must tpcreate --data "${disks[0]}" --meta /dev/mapper/mlegA,/dev/mapper/mlegB --chunk 64k \
	--zero n mm
must tvcreate -V 256M -n v mm
expect_eq "health offline" "$(health)" mirrored
must tpactivate mm
dmsetup table mm-tmeta
expect_eq "tmeta target" "$(dmsetup table mm-tmeta | awk '{ print $3, $4 }')" "raid raid1"
wait_synced
dmsetup status mm-tmeta
expect_eq "health live" "$(health)" mirrored

step "fio writes; leg B becomes dm-error under it"
fio_job one mm 64M write fio1.out &
fpid=$!
sleep 2
must dmsetup load mlegB --table "0 $(blockdev --getsz "${disks[2]}") error"
must dmsetup suspend mlegB
must dmsetup resume mlegB
wait $fpid || note_fail "fio with a failed metadata leg: exit $?"
grep -E "err=" fio1.out || true
# a commit reaches the legs: the failed one is marked
sync
must dmsetup message mm-tpool 0 reserve_metadata_snap
must dmsetup message mm-tpool 0 release_metadata_snap
dmsetup status mm-tmeta
dmsetup status mm-tpool
expect_eq "pool still read-write" "$(tpstatus --noheadings -o pool_mode mm | awk 'NF { print $1; exit }')" rw
expect_eq "health with leg B failed" "$(health)" degraded
tpstatus -o pool_name,pool_meta_health,pool_meta_legs mm
# tpmonitor says it once: one pass, then another that says nothing new
tpmonitor --once >mon1.log 2>&1
tpmonitor --once >mon2.log 2>&1
cat mon1.log mon2.log
expect_eq "tpmonitor's degraded warnings, two passes" \
	"$(cat mon1.log mon2.log | grep -c 'metadata mirror is degraded')" 1

step "tpchange --meta-replace onto a third disk (mlegC): the kernel rebuilds it"
leg mlegC "${disks[3]}"
must tpchange --meta-replace /dev/mapper/mlegC mm
dmsetup table mm-tmeta
dmsetup status mm-tmeta
dmsetup table | grep mm-tmeta
wait_synced
expect_eq "health after the rebuild" "$(health)" mirrored
tpmonitor --once >mon3.log 2>&1
cat mon3.log
grep -q "metadata mirror is mirrored again" mon3.log ||
	note_fail "tpmonitor did not say that the mirror is whole again"
check fio_job one mm 64M verify fio2.out
grep -E "err=" fio2.out || true
must tpdeactivate mm
check tpcheck mm
read -r off len <<<"$(tpstatus --noheadings --units b -o pool_meta_offset,pool_meta_length mm | awk 'NF == 2 { sub(/b$/, "", $1); sub(/b$/, "", $2); print }')"
areas_equal /dev/mapper/mlegA /dev/mapper/mlegC "$off" "$len" "after the rebuild"

step "leg C's disk taken away (its virtio device unbound): activation works degraded"
must dmsetup remove mlegC
vdev=$(basename "$(readlink -f "/sys/block/${disks[3]#/dev/}/device")")
# the disk comes back when the scenario ends (early too): the scenarios
# after this one use it (it stays away here, so leg C stays missing)
rebind() { echo "$vdev" >/sys/bus/virtio/drivers/virtio_blk/bind 2>/dev/null; }
trap rebind EXIT
must sh -c "echo $vdev >/sys/bus/virtio/drivers/virtio_blk/unbind"
[ ! -e "${disks[3]}" ] || note_fail "${disks[3]} still there after the unbind"
must tpactivate mm
dmsetup table mm-tmeta
expect_eq "degraded table" "$(dmsetup table mm-tmeta | awk '{ print $(NF-1), $NF }')" "- -"
expect_eq "health, leg missing" "$(health)" degraded
check fio_job one mm 64M verify fio3.out
must tpdeactivate mm
tpcheck mm
rc=$?
expect_eq "tpcheck of a degraded mirror" "$rc" 1

step "leg 1 back on mlegB; then leg 0's label wiped: the pool activates on leg 1 alone"
must dmsetup load mlegB --table "0 $(blockdev --getsz "${disks[2]}") linear ${disks[2]} 0"
must dmsetup suspend mlegB
must dmsetup resume mlegB
must dd if=/dev/zero of=/dev/mapper/mlegB bs=1M count=1 oflag=direct status=none
must tpchange --meta-replace /dev/mapper/mlegB mm
expect_eq "health, leg 1 on mlegB" "$(health)" mirrored
# the kernel writes the new leg's raid metadata at the first activation
# (offline the replace leaves it zeroed): only then can the set run on it alone
must tpactivate mm
wait_synced
must tpdeactivate mm
must dd if=/dev/zero of=/dev/mapper/mlegA bs=1M count=1 oflag=direct status=none
expect_eq "health, leg 0 lost" "$(health)" degraded
tpcheck mm >check0.out
rc=$?
cat check0.out
expect_eq "tpcheck without leg 0" "$rc" 1
grep -q "leg 0 .* is missing" check0.out || note_fail "tpcheck does not name leg 0 missing"
must tpactivate mm
dmsetup table mm-tmeta
expect_eq "table, leg 0 out" "$(dmsetup table mm-tmeta | awk '{ print $(NF-3), $(NF-2) }')" "- -"
expect_eq "health live, leg 0 lost" "$(health)" degraded
check fio_job one mm 64M verify fio4.out
must tpdeactivate mm

step "tpchange --meta-replace puts leg 0 on mlegA again: mirrored, clean, fio verifies"
must tpchange --meta-replace /dev/mapper/mlegA mm
expect_eq "health after leg 0's replace" "$(health)" mirrored
check tpcheck mm
must tpactivate mm
wait_synced
expect_eq "health live after leg 0's replace" "$(health)" mirrored
check fio_job one mm 64M verify fio5.out
must tpdeactivate mm

# legs_equal WHAT [POOL]: the legs' active thin-metadata areas (mlegA,
# mlegB) are byte-identical (the pool, POOL or mm, inactive)
legs_equal() {
	local off len
	read -r off len <<<"$(tpstatus --noheadings --units b -o pool_meta_offset,pool_meta_length "${2:-mm}" | awk 'NF == 2 { sub(/b$/, "", $1); sub(/b$/, "", $2); print }')"
	areas_equal /dev/mapper/mlegA /dev/mapper/mlegB "$off" "$len" "$1"
}
# stale_b: leg B's active thin superblock overwritten (the raid metadata
# says both legs in sync: loaded as it is, the kernel would read either)
stale_b() {
	local off
	off=$(tpstatus --noheadings --units b -o pool_meta_offset mm | awk 'NF { sub(/b$/, "", $1); print $1; exit }')
	must dd if=/dev/urandom of=/dev/mapper/mlegB bs=4096 seek=$((off / 4096)) count=1 \
		oflag=direct status=none
}
# raid_sb LEG: its dm-raid superblock's magic, events and recovery offset
read -r mda_off mda_size <<<"$(dd if=/dev/mapper/mlegA bs=1M count=1 status=none |
	grep -a -A8 -m1 $'^\t\tmeta {' | awk -F= '/mda_offset/ { o = $2 } /mda_size/ { print o, $2; exit }')"
raid_off=$((mda_off + mda_size))
raid_sb() {
	dd if="/dev/mapper/$1" bs=4096 iflag=skip_bytes skip="$raid_off" count=1 status=none |
		od -A d -t x8 -N 48 | head -3
}

step "leg B's thin superblock overwritten: stale; tpactivate has the kernel rebuild it"
stale_b
tpcheck mm >check1.out
rc=$?
cat check1.out
expect_eq "tpcheck of a stale leg" "$rc" 1
grep -q "leg 1 .* is stale" check1.out || note_fail "tpcheck does not say leg 1 is stale"
must tpactivate mm 2>act1.err
cat act1.err
grep -q "leg 1 .* the kernel rebuilds it from leg 0" act1.err ||
	note_fail "tpactivate does not say that the kernel rebuilds leg 1"
dmsetup table mm-tmeta
dmsetup table mm-tmeta | grep -q "rebuild 1" || note_fail "tmeta not loaded with rebuild 1"
wait_synced
expect_eq "health after the kernel's rebuild" "$(health)" mirrored
must tpdeactivate mm
raid_sb mlegA
raid_sb mlegB
check tpcheck mm
legs_equal "after the kernel's rebuild at activation"

step "a kernel rebuild cut short (md at 1 KiB/s, deactivated mid-rebuild): stale next time, rebuilt again"
stale_b
smin=$(cat /proc/sys/dev/raid/speed_limit_min)
smax=$(cat /proc/sys/dev/raid/speed_limit_max)
echo 1 >/proc/sys/dev/raid/speed_limit_min
echo 1 >/proc/sys/dev/raid/speed_limit_max
must tpactivate mm
sleep 2
dmsetup status mm-tmeta
must tpdeactivate mm
echo "$smin" >/proc/sys/dev/raid/speed_limit_min
echo "$smax" >/proc/sys/dev/raid/speed_limit_max
raid_sb mlegA
raid_sb mlegB
tpcheck mm >check2.out
rc=$?
cat check2.out
expect_eq "tpcheck after a rebuild cut short" "$rc" 1
grep -q "leg 1 .* is stale" check2.out || note_fail "tpcheck takes a leg whose rebuild was cut short for in sync"
must tpactivate mm
dmsetup table mm-tmeta | grep -q "rebuild 1" || note_fail "tmeta not loaded with rebuild 1 again"
wait_synced
must tpdeactivate mm
check tpcheck mm
legs_equal "after the rebuild done again"

step "tpchange --meta-mirror on an active pool: tmeta reloaded from linear to raid1, the kernel syncs the new leg"
must tpremove -y mm
must tpcreate --data "${disks[0]}" --meta /dev/mapper/mlegA --chunk 64k --zero n mn
must tvcreate -V 256M -n v mn
must tpactivate mn
check fio_job two mn 32M write fio7.out
expect_eq "tmeta before" "$(dmsetup table mn-tmeta | awk '{ print $3 }')" linear
must tpchange --meta-mirror /dev/mapper/mlegB mn
dmsetup table mn-tmeta
dmsetup status mn-tmeta
expect_eq "tmeta after" "$(dmsetup table mn-tmeta | awk '{ print $3, $4 }')" "raid raid1"
wait_synced mn
expect_eq "health after the live mirror" \
	"$(tpstatus --noheadings -o pool_meta_health mn | awk 'NF { print $1; exit }')" mirrored
check fio_job two mn 32M verify fio8.out
must tvcreate -V 64M -n v2 mn
must tpdeactivate mn
check tpcheck mn
legs_equal "after the live --meta-mirror" mn
must tpactivate mn
dmsetup table mn-tmeta
wait_synced mn
check fio_job two mn 32M verify fio9.out
must tpdeactivate mn
check tpcheck mn

step "tpextend --metadata-size on an active mirrored pool: the legs and the raid1 grow live"
must tpremove -y mn
for l in mlegA mlegB; do	# 64 MiB legs, grown under the active pool later
	must dmsetup load $l --table "0 131072 linear ${disks[$([ $l = mlegA ] && echo 1 || echo 2)]} 0"
	must dmsetup suspend $l
	must dmsetup resume $l
done
must tpcreate --data "${disks[0]}" --meta /dev/mapper/mlegA,/dev/mapper/mlegB --chunk 64k \
	--zero n mg
must tvcreate -V 256M -n v mg
must tpactivate mg
wait_synced mg
check fio_job three mg 32M write fio10.out
len0=$(dmsetup table mg-tmeta | awk '{ print $2 }')
for l in mlegA mlegB; do
	d=${disks[$([ $l = mlegA ] && echo 1 || echo 2)]}
	must dmsetup load $l --table "0 $(blockdev --getsz "$d") linear $d 0"
	must dmsetup suspend $l
	must dmsetup resume $l
done
must tpextend --metadata-size auto mg
dmsetup table mg-tmeta
dmsetup status mg-tmeta
dmsetup status mg-tpool
len1=$(dmsetup table mg-tmeta | awk '{ print $2 }')
[ "$len1" -gt "$len0" ] || note_fail "tmeta did not grow live ($len0 -> $len1 sectors)"
expect_eq "tmeta after the growth" "$(dmsetup table mg-tmeta | awk '{ print $3, $4 }')" "raid raid1"
tpool_meta=$(dmsetup status mg-tpool | awk '{ split($5, a, "/"); print a[2] }')
expect_eq "the pool's metadata blocks after the growth" "$tpool_meta" $((len1 / 8))
wait_synced mg
check fio_job three mg 32M verify fio11.out
must tvcreate -V 64M -n v2 mg
must tpdeactivate mg
check tpcheck mg
legs_equal "after the live growth" mg
must tpactivate mg
wait_synced mg
must tpdeactivate mg
check tpcheck mg
dmsetup remove mlegB || true
dmsetup remove mlegA || true
finish
