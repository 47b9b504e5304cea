#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel/dm.h on the real dm-thin target, through tp-dmtest: linear areas
# (byte ranges inside two disks) for metadata and data, a thin pool on
# zeroed metadata (the kernel formats it), thin volumes, data written and
# read back, a snapshot taken with its origin suspended, status parsing,
# messages and their kernel errors, removal; then thin_check and
# thin_dump accept the metadata the kernel wrote.
. "$TP_SRC/test/vm/lib.sh"
vm_begin
MDISK=${disks[0]} DDISK=${disks[1]}
POOL=tp-a			# a '-' in the name: dm names double it
PUUID=0f3a6c2e9d1b4c55
MOFF=$((1 << 20)) MLEN=$((8 << 20))	# metadata area: 1 MiB .. 9 MiB of disk 1
DOFF=$((4 << 20)) DLEN=$((64 << 20))	# data area: 4 MiB .. 68 MiB of disk 2
BS=128				# 64 KiB data blocks
VSECT=$((32 << 11))		# 32 MiB thin volumes

name() { tp-dmtest name "$POOL" "$@"; }
uuid() { tp-dmtest uuid "$PUUID" "$@"; }
TMETA=$(name tmeta) TDATA=$(name tdata) TPOOL=$(name tpool)
V0=$(name thin v0) V1=$(name thin v0-snap)
expect_eq "pool dm name" "$TPOOL" "tp--a-tpool"
expect_eq "snapshot dm name" "$V1" "tp--a-v0--snap"

step "kernel support"
out=$(tp-dmtest available)
check test $? = 0
echo "${out:-available}"
tp-dmtest version thin-pool
tp-dmtest version thin
out=$(tp-dmtest version no-such-target)
expect_eq "unknown target" "$out" "err=ENOENT"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups tp-dmtest available 2>&1)
echo "$out"
expect_eq "not root" "$out" "$(printf 'why=%s\nerr=EACCES' \
	"no permission to use device-mapper (/dev/mapper/control): run as root")"

step "metadata and data areas (linear, internal)"
# zero the metadata area's first block: the kernel formats a zeroed superblock
must dd if=/dev/zero of="$MDISK" bs=4096 count=1 seek=$((MOFF / 4096)) oflag=direct status=none
must tp-dmtest linear "$TMETA" "$(uuid tmeta)" "$MDISK" $MOFF $MLEN internal
must tp-dmtest linear "$TDATA" "$(uuid tdata)" "$DDISK" $DOFF $DLEN internal
check test -b "/dev/mapper/$TMETA"
out=$(tp-dmtest info "$TMETA")
expect_eq "tmeta uuid" "$(field uuid "$out")" "TPTOOLS-$PUUID-tmeta"
expect_eq "tmeta size" "$(blockdev --getsize64 "/dev/mapper/$TMETA")" $MLEN
dmsetup table "$TDATA"

step "thin pool"
META_DEV=$(tp-dmtest devno "$TMETA") DATA_DEV=$(tp-dmtest devno "$TDATA")
must tp-dmtest pool "$TPOOL" "$(uuid tpool)" "$META_DEV" "$DATA_DEV" $((DLEN / 512)) $BS 16 \
	skip_block_zeroing error_if_no_space
dmsetup table "$TPOOL"
out=$(tp-dmtest pool-status "$TPOOL")
echo "$out"
expect_eq "fresh transaction_id" "$(field transaction_id "$out")" 0
expect_eq "fresh used_data" "$(field used_data "$out")" 0
expect_eq "total_data" "$(field total_data "$out")" $((DLEN / 512 / BS))
expect_eq "total_meta" "$(field total_meta "$out")" $((MLEN / 4096))
expect_eq "mode" "$(field mode "$out")" rw
expect_eq "error_if_no_space" "$(field error_if_no_space "$out")" 1
expect_eq "needs_check" "$(field needs_check "$out")" 0
expect_eq "status fields" "$(field nfields "$out")" 9

step "thin volume 0: write and read back"
must tp-dmtest create-thin "$TPOOL" 0
out=$(tp-dmtest create-thin "$TPOOL" 0)
expect_eq "create_thin of a used id" "$out" "err=EEXIST"
must tp-dmtest thin "$V0" "$(uuid thin 0)" "$(tp-dmtest devno "$TPOOL")" 0 $VSECT
check test -b "/dev/mapper/$V0"
must dd if=/dev/urandom of=pattern bs=1M count=8 status=none
must dd if=pattern of="/dev/mapper/$V0" bs=1M oflag=direct status=none
sum0=$(md5sum <pattern | cut -d' ' -f1)
got=$(dd if="/dev/mapper/$V0" bs=1M count=8 iflag=direct status=none | md5sum | cut -d' ' -f1)
expect_eq "read back" "$got" "$sum0"
out=$(tp-dmtest thin-status "$V0")
echo "$out"
expect_eq "mapped sectors" "$(field mapped_sectors "$out")" $((8 << 11))
expect_eq "highest sector" "$(field highest "$out")" $(((8 << 11) - 1))
out=$(tp-dmtest pool-status "$TPOOL")
expect_eq "used_data after 8 MiB" "$(field used_data "$out")" $(((8 << 20) / (BS * 512)))

step "snapshot with the origin suspended"
must tp-dmtest suspend "$V0"
out=$(tp-dmtest info "$V0")
expect_eq "origin suspended" "$(field suspended "$out")" 1
must tp-dmtest create-snap "$TPOOL" 1 0
must tp-dmtest resume "$V0"
must tp-dmtest thin "$V1" "$(uuid thin 1)" "$(tp-dmtest devno "$TPOOL")" 1 $VSECT
must dd if=/dev/zero of="/dev/mapper/$V0" bs=1M count=1 oflag=direct status=none
got=$(dd if="/dev/mapper/$V1" bs=1M count=8 iflag=direct status=none | md5sum | cut -d' ' -f1)
expect_eq "snapshot keeps the old data" "$got" "$sum0"
got=$(dd if="/dev/mapper/$V0" bs=1M count=8 iflag=direct status=none | md5sum | cut -d' ' -f1)
[ "$got" != "$sum0" ] || note_fail "origin did not change"

step "external origin: unprovisioned blocks read from a read-only device"
must dd if=/dev/urandom of=origin bs=1M count=2 status=none
must dd if=origin of="$MDISK" bs=1M seek=16 oflag=direct status=none
must tp-dmtest linear ext "" "$MDISK" $((16 << 20)) $((2 << 20))
must tp-dmtest create-thin "$TPOOL" 2
must tp-dmtest thin ext-thin "" "$(tp-dmtest devno "$TPOOL")" 2 $((2 << 11)) "$(tp-dmtest devno ext)"
dmsetup table ext-thin
got=$(dd if=/dev/mapper/ext-thin bs=1M count=2 iflag=direct status=none | md5sum | cut -d' ' -f1)
expect_eq "reads from the external origin" "$got" "$(md5sum <origin | cut -d' ' -f1)"
must dd if=/dev/zero of=/dev/mapper/ext-thin bs=64k count=1 oflag=direct status=none
got=$(dd if=/dev/mapper/ext bs=64k count=1 iflag=direct status=none | md5sum | cut -d' ' -f1)
expect_eq "the origin is never written" "$got" "$(dd if=origin bs=64k count=1 status=none | md5sum | cut -d' ' -f1)"
out=$(tp-dmtest thin-status ext-thin)
expect_eq "provisioned by the write" "$(field mapped_sectors "$out")" $BS
must tp-dmtest remove ext-thin
must tp-dmtest remove ext
must tp-dmtest delete "$TPOOL" 2

step "our devices, by uuid prefix"
out=$(tp-dmtest list "TPTOOLS-$PUUID-")
echo "$out"
expect_eq "listed devices" "$(wc -l <<<"$out")" 5
expect_eq "other prefix" "$(tp-dmtest list "TPTOOLS-other-")" ""

step "transaction id (compare and swap)"
must tp-dmtest set-tid "$TPOOL" 0 1
out=$(tp-dmtest set-tid "$TPOOL" 0 2)
expect_eq "set_transaction_id with a stale id" "$out" "err=EINVAL"
out=$(tp-dmtest pool-status "$TPOOL")
expect_eq "transaction_id" "$(field transaction_id "$out")" 1

step "metadata snapshot"
must tp-dmtest reserve-snap "$TPOOL"
out=$(tp-dmtest pool-status "$TPOOL")
echo "$out"
[ "$(field held_root "$out")" != "-0" ] || note_fail "no held root after reserve_metadata_snap"
not tp-dmtest reserve-snap "$TPOOL"
must tp-dmtest release-snap "$TPOOL"
out=$(tp-dmtest pool-status "$TPOOL")
expect_eq "held root after release" "$(field held_root "$out")" "-0"
out=$(tp-dmtest release-snap "$TPOOL")
expect_eq "release without a snapshot" "$out" "err=EINVAL"
out=$(tp-dmtest message "$TPOOL" "no_such_message 1")
expect_eq "unknown message" "$out" "err=EINVAL"

step "delete"
out=$(tp-dmtest delete "$TPOOL" 1)
expect_eq "delete of an active thin" "$out" "err=EBUSY"
must tp-dmtest remove "$V1"
must tp-dmtest delete "$TPOOL" 1
check test ! -e "/dev/mapper/$V1"
out=$(tp-dmtest remove "$V1")
expect_eq "remove of a removed device" "$out" "err=ENXIO"

step "grow the data area: reload tdata and the pool while suspended"
must tp-dmtest suspend "$V0"
must tp-dmtest suspend "$TPOOL"
must tp-dmtest reload-linear "$TDATA" "$DDISK" $DOFF $((DLEN * 3 / 2))
must tp-dmtest suspend "$TDATA"
must tp-dmtest resume "$TDATA"
must tp-dmtest reload-pool "$TPOOL" "$META_DEV" "$DATA_DEV" $((DLEN * 3 / 1024)) $BS 16 \
	skip_block_zeroing error_if_no_space
out=$(tp-dmtest info "$TPOOL")
expect_eq "inactive table loaded" "$(field inactive "$out")" 1
must tp-dmtest resume "$TPOOL"
must tp-dmtest resume "$V0"
out=$(tp-dmtest pool-status "$TPOOL")
expect_eq "grown total_data" "$(field total_data "$out")" $((DLEN * 3 / 1024 / BS))
expect_eq "transaction_id after reload" "$(field transaction_id "$out")" 1

step "remove everything"
got=$(dd if="/dev/mapper/$V0" bs=1M skip=1 count=7 iflag=direct status=none | md5sum | cut -d' ' -f1)
want=$(dd if=pattern bs=1M skip=1 count=7 status=none | md5sum | cut -d' ' -f1)
expect_eq "origin beyond the overwritten MiB" "$got" "$want"
must tp-dmtest remove "$V0"
must tp-dmtest remove "$TPOOL"
must tp-dmtest remove "$TDATA"
must tp-dmtest remove "$TMETA"
expect_eq "left over" "$(tp-dmtest list "TPTOOLS-$PUUID-")" ""

step "thin_check and thin_dump on the kernel-written metadata"
# through a linear device over the area (thin_check uses O_DIRECT, which
# the guest's tmpfs refuses)
must tp-dmtest linear "$TMETA" "$(uuid tmeta)" "$MDISK" $MOFF $MLEN internal
check thin_check "/dev/mapper/$TMETA"
thin_dump "/dev/mapper/$TMETA" >dump.xml || note_fail "thin_dump"
head -2 dump.xml
grep -q 'transaction="1"' dump.xml || note_fail "thin_dump: transaction 1 not found"
grep -q 'data_block_size="128"' dump.xml || note_fail "thin_dump: block size"
grep -q "nr_data_blocks=\"$((DLEN * 3 / 1024 / BS))\"" dump.xml || note_fail "thin_dump: grown size"
expect_eq "devices in the dump" "$(grep -c '<device ' dump.xml)" 1
must tp-dmtest remove "$TMETA"

step "without DM_DISABLE_UDEV and no udev running, nodes still appear"
( unset DM_DISABLE_UDEV
  VM_FAILS=0
  must tp-dmtest linear "$TMETA" "$(uuid tmeta)" "$MDISK" $MOFF $MLEN
  check test -b "/dev/mapper/$TMETA"
  must tp-dmtest remove "$TMETA"
  check test ! -e "/dev/mapper/$TMETA"
  exit $VM_FAILS ) || note_fail "udev-less node handling"
finish
