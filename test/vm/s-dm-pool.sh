#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel/dm_pool.c on the real kernel: a pool's device stack as a unit
# (activate/deactivate with clean-up on failure), volumes, live snapshots
# of active and inactive origins, a read-only volume, refusals (pool in
# use, garbage metadata, unknown thin id, read-only pool), reactivation
# from kernel-written metadata, and a pool running out of data space.
. "$TP_SRC/test/vm/lib.sh"
vm_begin
MDISK=${disks[0]} DDISK=${disks[1]} XDISK=${disks[2]}
P=vault PU=2b7c9a4e-1d3f-4a6b-8c5d-0e1f2a3b4c5d
MOFF=$((1 << 20)) MLEN=$((4 << 20))
DOFF=$((2 << 20)) DLEN=$((48 << 20))
BS=128 VS=$((16 << 11))
act() { tp-dmtest activate "$P" "$PU" "$MDISK" $MOFF $MLEN "$DDISK" $DOFF $DLEN $BS 8 "$@"; }
sum() { dd if="$1" bs=1M count=${2:-4} iflag=direct status=none | md5sum | cut -d' ' -f1; }
ours() { tp-dmtest list "TPTOOLS-$1-" | wc -l; }

step "activate a pool stack on zeroed metadata"
must dd if=/dev/zero of="$MDISK" bs=4096 count=1 seek=$((MOFF / 4096)) oflag=direct status=none
expect_eq "inactive" "$(tp-dmtest is-active $P)" 0
must act skip_block_zeroing
expect_eq "active" "$(tp-dmtest is-active $P)" 1
expect_eq "stack devices" "$(ours $PU)" 3
expect_eq "second activation" "$(act 2>/dev/null)" "err=EEXIST"
expect_eq "stack devices after a refused activation" "$(ours $PU)" 3

step "volumes and live snapshots"
must tp-dmtest create-thin $P-tpool 0
must tp-dmtest vol-activate $P $PU www 0 $VS
check test -b /dev/mapper/$P-www
must dd if=/dev/urandom of=pattern bs=1M count=4 status=none
must dd if=pattern of=/dev/mapper/$P-www bs=1M oflag=direct status=none
want=$(md5sum <pattern | cut -d' ' -f1)
must tp-dmtest snapshot $P www 1 0
out=$(tp-dmtest info $P-www)
expect_eq "origin resumed after the snapshot" "$(field suspended "$out")" 0
must tp-dmtest vol-activate $P $PU www-mon 1 $VS ro
expect_eq "activated twice" "$(tp-dmtest vol-activate $P $PU www-mon 1 $VS ro 2>&1)" "err=EEXIST"
expect_eq "snapshot data" "$(sum /dev/mapper/$P-www--mon)" "$want"
out=$(tp-dmtest info $P-www--mon)
expect_eq "read-only volume" "$(field ro "$out")" 1
not dd if=/dev/zero of=/dev/mapper/$P-www--mon bs=4k count=1 oflag=direct status=none
must dd if=/dev/zero of=/dev/mapper/$P-www bs=1M count=1 oflag=direct status=none
expect_eq "snapshot after the origin changed" "$(sum /dev/mapper/$P-www--mon)" "$want"
out=$(tp-dmtest snapshot $P www 1 0)
expect_eq "snapshot onto a used id" "$out" "err=EEXIST"
expect_eq "origin resumed after a failed snapshot" "$(field suspended "$(tp-dmtest info $P-www)")" 0

step "refusals"
expect_eq "volume with an unknown thin id" "$(tp-dmtest vol-activate $P $PU ghost 9 $VS 2>/dev/null)" "err=ENODATA"
check test ! -e /dev/mapper/$P-ghost
expect_eq "pool in use" "$(tp-dmtest deactivate $P 2>/dev/null)" "err=EBUSY"
expect_eq "stack kept" "$(ours $PU)" 5
expect_eq "volume of an inactive pool" "$(tp-dmtest vol-activate nopool $PU v 0 $VS 2>/dev/null)" "err=ENXIO"

step "snapshot of an inactive origin, deactivate"
must tp-dmtest vol-deactivate $P www-mon
must tp-dmtest vol-deactivate $P www
# answers, not errors: nothing on stderr
expect_eq "deactivated twice" "$(tp-dmtest vol-deactivate $P www 2>&1)" "err=ENXIO"
must tp-dmtest snapshot $P - 2 0
must tp-dmtest set-tid $P-tpool 0 3
must tp-dmtest deactivate $P
expect_eq "after deactivate" "$(ours $PU)" 0
must tp-dmtest deactivate $P	# nothing left: still fine

step "the kernel-written metadata"
must tp-dmtest linear chk "" "$MDISK" $MOFF $MLEN
check thin_check /dev/mapper/chk
expect_eq "thin devices" "$(thin_dump /dev/mapper/chk | grep -c '<device ')" 3
must tp-dmtest remove chk

step "reactivate from existing metadata"
must act skip_block_zeroing
out=$(tp-dmtest pool-status $P-tpool)
expect_eq "transaction id kept" "$(field transaction_id "$out")" 3
must tp-dmtest vol-activate $P $PU www-mon 1 $VS
expect_eq "snapshot data after reactivation" "$(sum /dev/mapper/$P-www--mon)" "$want"
must tp-dmtest vol-activate $P $PU www-tue 2 $VS
got=$(dd if=/dev/mapper/$P-www--tue bs=1M skip=1 count=3 iflag=direct status=none | md5sum | cut -d' ' -f1)
expect_eq "inactive-origin snapshot" "$got" "$(dd if=pattern bs=1M skip=1 count=3 status=none | md5sum | cut -d' ' -f1)"
must tp-dmtest vol-deactivate $P www-mon
must tp-dmtest vol-deactivate $P www-tue
must tp-dmtest deactivate $P

step "half-made stack is cleaned up"
must tp-dmtest linear $P-tmeta "TPTOOLS-$PU-tmeta" "$MDISK" $MOFF $MLEN internal
expect_eq "tmeta alone: pool not active" "$(tp-dmtest is-active $P)" 0
expect_eq "activation over a leftover piece" "$(act 2>/dev/null)" "err=EEXIST"
must tp-dmtest deactivate $P
expect_eq "leftover removed" "$(ours $PU)" 0

step "garbage metadata is refused, nothing left behind"
must dd if=/dev/urandom of="$XDISK" bs=1M count=4 oflag=direct status=none
out=$(tp-dmtest activate bad "$PU" "$XDISK" 0 $MLEN "$DDISK" $DOFF $DLEN $BS 8 2>&1)
echo "$out"
[[ $out == *err=* ]] || note_fail "activation on garbage metadata succeeded"
expect_eq "after a refused activation" "$(ours $PU)" 0

step "read-only pool: messages refused"
must act read_only
out=$(tp-dmtest pool-status $P-tpool)
expect_eq "read-only mode" "$(field mode "$out")" ro
out=$(tp-dmtest create-thin $P-tpool 7 2>/dev/null)
[[ $out == err=EOPNOTSUPP || $out == err=EINVAL ]] || note_fail "create_thin on a read-only pool: $out"
must tp-dmtest deactivate $P

step "out of data space with error_if_no_space"
# a fresh pool with 16 data blocks (1 MiB): writing 2 MiB must fail
must dd if=/dev/zero of="$XDISK" bs=4096 count=1 oflag=direct status=none
must tp-dmtest activate small "$PU" "$XDISK" 0 $MLEN "$DDISK" 0 $((16 * BS * 512)) $BS 0 \
	error_if_no_space
must tp-dmtest create-thin small-tpool 0
must tp-dmtest vol-activate small "$PU" v 0 $VS
not dd if=/dev/zero of=/dev/mapper/small-v bs=1M count=2 oflag=direct status=none
out=$(tp-dmtest pool-status small-tpool)
echo "$out"
expect_eq "mode when full" "$(field mode "$out")" out_of_data_space
expect_eq "used when full" "$(field used_data "$out")" 16
must tp-dmtest vol-deactivate small v
must tp-dmtest deactivate small
finish
