#!/bin/bash
# md RAID6 of 6 disks with a 512 KiB chunk: libblkid (blkid -p -i and our
# lib/dev through tp-dmtest topology) reports minimum_io_size = the chunk
# and optimal_io_size = chunk x 4 data disks = 2 MiB.
. "$TP_SRC/test/vm/lib.sh"
set -- $TP_DISKS
[ $# -ge 6 ] || skip_scenario "needs 6 disks, have $#"
members=("$1" "$2" "$3" "$4" "$5" "$6")

step "mdadm RAID6, 6 members, 512K chunk"
must mdadm --create /dev/md0 --run --quiet --assume-clean --level=6 --raid-devices=6 \
	--chunk=512 --metadata=1.2 "${members[@]}"
grep -A1 '^md0' /proc/mdstat

step "blkid -p -i"
out=$(blkid -p -i -o export /dev/md0)
echo "$out"
expect_eq "blkid MINIMUM_IO_SIZE" "$(sed -n 's/^MINIMUM_IO_SIZE=//p' <<<"$out")" 524288
expect_eq "blkid OPTIMAL_IO_SIZE" "$(sed -n 's/^OPTIMAL_IO_SIZE=//p' <<<"$out")" 2097152

step "lib/dev topology"
out=$(tp-dmtest topology /dev/md0) || fail "tp-dmtest topology: $out"
echo "$out"
expect_eq "min_io" "$(field min_io "$out")" 524288
expect_eq "opt_io" "$(field opt_io "$out")" 2097152
expect_eq "align" "$(field align "$out")" 0
expect_eq "source" "$(field source "$out")" blkid

step "a plain disk reports no stripe"
out=$(tp-dmtest topology "$7") || fail "tp-dmtest topology $7: $out"
echo "$out"
expect_eq "plain opt_io" "$(field opt_io "$out")" 0

ok mdadm --stop /dev/md0
finish
