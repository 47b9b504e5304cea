#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# md geometries as libblkid and lib/dev see them: minimum_io_size = the md
# chunk, optimal_io_size = the full stripe (chunk x data disks), for RAID6
# (6 disks, 512 KiB chunk: 512 KiB / 2 MiB), RAID5, RAID0 with a stripe
# that is not a power of two, RAID10, and a plain disk (no stripe).
. "$TP_SRC/test/vm/lib.sh"
vm_begin -n 7 -m

# md LEVEL NDISKS CHUNK_K WANT_MIN WANT_OPT [mdadm options...]
md() {
	local level=$1 n=$2 chunk=$3 want_min=$4 want_opt=$5 out
	shift 5
	step "RAID$level, $n members, ${chunk}K chunk"
	must mdadm --create /dev/md0 --run --quiet --assume-clean --level="$level" \
		--raid-devices="$n" --chunk="$chunk" --metadata=1.2 "$@" "${disks[@]:0:n}"
	out=$(blkid -p -i -o export /dev/md0)
	expect_eq "RAID$level blkid MINIMUM_IO_SIZE" "$(sed -n 's/^MINIMUM_IO_SIZE=//p' <<<"$out")" "$want_min"
	expect_eq "RAID$level blkid OPTIMAL_IO_SIZE" "$(sed -n 's/^OPTIMAL_IO_SIZE=//p' <<<"$out")" "$want_opt"
	out=$(tp-dmtest topology /dev/md0) || note_fail "tp-dmtest topology: $out"
	echo "$out"
	expect_eq "RAID$level min_io" "$(field min_io "$out")" "$want_min"
	expect_eq "RAID$level opt_io" "$(field opt_io "$out")" "$want_opt"
	expect_eq "RAID$level align" "$(field align "$out")" 0
	expect_eq "RAID$level source" "$(field source "$out")" blkid
	must mdadm --stop --quiet /dev/md0
	must mdadm --zero-superblock "${disks[@]:0:n}"
}

md 6 6 512 $((512 << 10)) $((2 << 20))
md 5 5 64 $((64 << 10)) $((256 << 10))
vm_modprobe raid0 || note_fail "modprobe raid0"
md 0 3 128 $((128 << 10)) $((384 << 10))
vm_modprobe raid10 || note_fail "modprobe raid10"
md 10 4 512 $((512 << 10)) $((1 << 20)) --layout=n2

step "a plain disk reports no stripe"
out=$(tp-dmtest topology "${disks[6]}") || note_fail "tp-dmtest topology: $out"
echo "$out"
expect_eq "plain opt_io" "$(field opt_io "$out")" 0
finish
