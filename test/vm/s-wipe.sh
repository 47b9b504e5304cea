#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tvremove --wipe on the real kernel (issue 14): with zeroing off a new
# volume reads what a removed one left in chunks it has only partly
# written (shown first, as the control); after tvremove --wipe the data
# device holds zeros there and a new volume reads zeros where the wiped
# one had data. Then the same on an active pool, through the kernel: a
# volume with no snapshot history (zeroed in place through its thin
# device), one whose chunks predate a snapshot (zeroed on the data device,
# the kernel would copy them), a volume in use refused; and the cost of a
# live wipe next to dd of zeros to the same volume (printed, not asserted).
# Last, tptrim on block devices (loop devices over files): BLKDISCARD
# releases a removed volume's chunks, the kept volume reads back the same.
. "$TP_SRC/test/vm/lib.sh"
vm_begin -n 2 -e -o loop
DATA=${disks[0]} META=${disks[1]}
CHUNK=65536 NCHUNKS=128 SIZE=$((128 * 65536))

# fill VOL's first 4 KiB of each of its first NCHUNKS chunks with byte
# OCTAL, flushed (one process: a dd per chunk is slow under emulation)
write_heads() {
	perl -MIO::Handle -e 'my ($dev, $byte, $n, $chunk) = @ARGV;
		open(my $f, "+<", $dev) or die "$dev: $!";
		my $b = chr(oct($byte)) x 4096;
		for my $i (0 .. $n - 1) {
			sysseek($f, $i * $chunk, 0) or die "seek: $!";
			syswrite($f, $b) == 4096 or die "write: $!";
		}
		$f->sync or die "fsync: $!"; close($f) or die' \
		"/dev/mapper/wp-$1" "$2" "$NCHUNKS" "$CHUNK"
}
# nonzero bytes of each chunk of volume VOL, one a line (caches dropped)
chunk_nonzero() {
	echo 3 >/proc/sys/vm/drop_caches
	perl -e 'my ($dev, $chunk) = @ARGV; open(my $f, "<", $dev) or die "$dev: $!";
		my $b; while (sysread($f, $b, $chunk)) { print(($b =~ tr/\0//c), "\n") }' \
		"/dev/mapper/wp-$1" "$CHUNK"
}
# nonzero bytes of volume VOL (direct reads)
nonzero() { dd if="/dev/mapper/wp-$1" bs=1M iflag=direct status=none | tr -d '\0' | wc -c; }

# the data chunks volume VOL maps, one a line (pool inactive): which
# chunks the kernel gave a volume differs between kernels (6.1 reuses
# freed ones, 6.12 may take others), so they are read from its mappings
dev_chunks() {
	local id
	id=$(tpstatus --noheadings -o vol_dev_id "wp/$1" | awk 'NF { print $1; exit }')
	tpdump wp | awk -v id="$id" '
		/<device / { on = ($0 ~ "dev_id=\"" id "\"") }
		on && /single_mapping/ { match($0, /data_block="[0-9]+"/)
			print substr($0, RSTART + 12, RLENGTH - 13) }
		on && /range_mapping/ { match($0, /data_begin="[0-9]+"/)
			b = substr($0, RSTART + 12, RLENGTH - 13)
			match($0, /length="[0-9]+"/); n = substr($0, RSTART + 8, RLENGTH - 9) + 0
			for (i = 0; i < n; i++) print b + i }'
}
# nonzero bytes on the data device in the chunks listed in FILE (pool
# inactive; caches dropped: the kernel wrote the device beneath them)
chunk_bytes() {
	local off
	off=$(tpstatus --noheadings --units b -o pool_data_offset wp | awk 'NF { print $1; exit }')
	echo 3 >/proc/sys/vm/drop_caches
	perl -e 'my ($dev, $off, $chunk, $list) = @ARGV; my ($z, $b) = (0, "");
		open(my $f, "<", $dev) or die "$dev: $!"; open(my $l, "<", $list) or die;
		while (my $c = <$l>) {
			sysseek($f, $off + $c * $chunk, 0) or die "seek: $!";
			sysread($f, $b, $chunk) == $chunk or die "read: $!";
			$z += ($b =~ tr/\0//c);
		}
		print "$z\n"' "$DATA" "${off%b}" "$CHUNK" "$1"
}
# fill volume VOL with byte OCTAL, flushed
fill() {
	head -c "$SIZE" /dev/zero | tr '\0' "\\$2" >fill.bin
	must dd if=fill.bin of="/dev/mapper/wp-$1" bs=1M oflag=direct conv=fsync status=none
}

step "pool with zeroing off; volume a fully written"
vm_live_pool wp "$DATA" "$META" 8M a --chunk 64k --zero n
head -c "$SIZE" /dev/zero | tr '\0' '\253' >full.bin
must dd if=full.bin of=/dev/mapper/wp-a bs=1M oflag=direct status=none
expect_eq "a fully written" "$(nonzero a)" "$SIZE"
must tpdeactivate wp

step "control: removed without --wipe, a new volume reads a's stale bytes"
must tvremove wp/a
must tvcreate -V 8M -n b wp
must tpactivate wp
must write_heads b 315
n=$(nonzero b)
echo "b: $n nonzero bytes, $((NCHUNKS * 4096)) written by b"
[ "$n" -gt $((NCHUNKS * 4096)) ] || note_fail "no stale data visible: the control shows nothing ($n)"

must tpdeactivate wp

step "tvremove --wipe: b's chunks read zero, a new volume reads zeros"
dev_chunks b >b-chunks
expect_eq "b's mapped chunks" "$(wc -l <b-chunks)" "$NCHUNKS"
must tvremove --wipe wp/b
expect_eq "nonzero bytes left in b's chunks" "$(chunk_bytes b-chunks)" 0
must tvcreate -V 8M -n c wp
must tpactivate wp
must write_heads c 357
expect_eq "c reads only what it wrote" "$(nonzero c)" $((NCHUNKS * 4096))

step "live: f written (no snapshot history), g written then snapshotted"
must tvcreate -V 8M -n f wp
must tvcreate -V 8M -n g wp
fill f 252
fill g 246
must tvsnap wp/g -n g1
must tvremove wp/g1
expect_eq "f fully written" "$(nonzero f)" "$SIZE"
must tpdeactivate wp
dev_chunks f >f-chunks
dev_chunks g >g-chunks
expect_eq "f's mapped chunks" "$(wc -l <f-chunks)" "$NCHUNKS"
expect_eq "g's mapped chunks" "$(wc -l <g-chunks)" "$NCHUNKS"
expect_eq "f's chunks hold its data" "$(chunk_bytes f-chunks)" "$SIZE"
must tpactivate wp

step "live: a volume in use is refused, exit 5, and left intact"
rm -f held
tp-hold /dev/mapper/wp-f held &
hold=$!
wait_file held "$hold" || note_fail "tp-hold did not hold wp-f"
rc=0; tvremove --wipe wp/f >out 2>err || rc=$?
cat out err
expect_eq "tvremove --wipe of a held volume" "$rc" 5
grep -q "volume f is in use" err || note_fail "no 'in use' message"
rm -f held
wait $hold
tpstatus --noheadings -o vol_name wp | grep -qw f || note_fail "a refused --wipe removed f"
expect_eq "f intact after the refusal" "$(nonzero f)" "$SIZE"

step "live: tvremove --wipe f zeroes through the kernel, in place"
must tvremove --wipe wp/f >out
cat out
grep -q "Volume wp/f wiped live: 8 MiB" out || note_fail "f: no live wipe line"
grep -q "data device" out && note_fail "f: chunks zeroed on the data device (none predate a snapshot)"
grep -q "Volume wp/f removed" out || note_fail "f not removed"

step "live: g not loaded, its chunks predate a snapshot: zeroed on the data device"
must tpdeactivate wp g
must tvremove --wipe wp/g >out
cat out
grep -q "Volume wp/g wiped live: 8 MiB.*8 MiB of them on the data device" out ||
	note_fail "g: not wiped on the data device"
[ -e /dev/mapper/wp-g ] && note_fail "g's device is still loaded after its removal"
must tpdeactivate wp
expect_eq "nonzero bytes left in f's chunks" "$(chunk_bytes f-chunks)" 0
expect_eq "nonzero bytes left in g's chunks" "$(chunk_bytes g-chunks)" 0
must tpactivate wp

step "live: an interrupt during the zeroing leaves the volume, put back as it was"
must tvcreate -V 1M -n k wp
must dd if=full.bin of=/dev/mapper/wp-k bs=1M count=1 oflag=direct conv=fsync status=none
must tpdeactivate wp k
rm -f pause
TP_TEST_PAUSE=wipe-zeroing TP_TEST_PAUSE_FILE=$PWD/pause tvremove --wipe wp/k >out 2>err &
pid=$!
wait_file pause "$pid" || note_fail "tvremove --wipe of k never reached its zeroing"
kill -INT $pid
rm -f pause
rc=0; wait $pid || rc=$?
cat out err
expect_eq "interrupted live --wipe" "$rc" 130
grep -q "interrupted after zeroing 0 B of 1 MiB; the volume was not removed" err ||
	note_fail "no interruption message"
tpstatus --noheadings -o vol_name wp | grep -qw k || note_fail "an interrupted --wipe removed k"
[ -e /dev/mapper/wp-k ] && note_fail "k was left loaded: it was not before the wipe"
must tpactivate wp k
expect_eq "k intact after the interruption" "$(nonzero k)" $((1024 * 1024))
must tvremove --wipe wp/k

step "live: a read-only volume, loaded read-only, is loaded writable for its wipe"
must tvcreate -V 1M -n r wp
must dd if=full.bin of=/dev/mapper/wp-r bs=1M count=1 oflag=direct conv=fsync status=none
must tpdeactivate wp
must tvchange --readonly y wp/r
dev_chunks r >r-chunks
expect_eq "r's chunks hold its data" "$(chunk_bytes r-chunks)" $((1024 * 1024))
must tpactivate wp
not dd if=/dev/zero of=/dev/mapper/wp-r bs=4096 count=1 oflag=direct status=none
must tvremove --wipe wp/r >out
cat out
grep -q "Volume wp/r wiped live: 1 MiB" out || note_fail "r: no live wipe line"
must tpdeactivate wp
expect_eq "nonzero bytes left in r's chunks" "$(chunk_bytes r-chunks)" 0
must tpactivate wp

step "live: a new volume reads zeros where f and g had data"
must tvcreate -V 16M -n h wp
NCHUNKS=256 must write_heads h 357
chunk_nonzero h >h-bytes
must tpdeactivate wp
dev_chunks h >h-chunks
expect_eq "h's mapped chunks" "$(wc -l <h-chunks)" 256
# per chunk of h: its data chunk, its nonzero bytes; those that were f's or g's
cat f-chunks g-chunks >fg-chunks
paste h-chunks h-bytes | awk 'NR == FNR { old[$1] = 1; next }
	($1 in old) { n++; if ($2 != 4096) bad++ }
	END { printf "%d %d\n", n, bad }' fg-chunks - >h-check
read -r reused bad <h-check
echo "h: $reused of its 256 chunks were f's or g's; $bad of them read more than h wrote"
[ "$reused" -gt 0 ] || note_fail "h took none of f's or g's chunks: nothing shown"
expect_eq "h's chunks from f and g holding more than h wrote" "$bad" 0
must tpactivate wp

step "live wipe cost: tvremove --wipe vs dd of zeros to the same 48 MiB volume (twice)"
for i in 1 2; do
	must tvcreate -V 48M -n m$i wp
	must dd if=/dev/zero of=/dev/mapper/wp-m$i bs=4M count=12 oflag=direct conv=fsync \
		status=none
	must dd if=/dev/zero of=/dev/mapper/wp-m$i bs=4M count=12 oflag=direct conv=fsync \
		2>dd.err
	must tvremove --wipe wp/m$i >out
	cat out
	echo "WIPE-COST $i: 48 MiB: dd zeros $(sed -n 's/.*, \([0-9.]* [MG]B\/s\)$/\1/p' dd.err)," \
		"tvremove --wipe live $(sed -n 's/.* \([0-9]* MB\/s\)).*/\1/p' out)"
done
must tpdeactivate wp
check tpcheck wp
must tpremove -y wp

step "tptrim: BLKDISCARD of the free chunks of a pool on loop devices"
command -v losetup >/dev/null || skip_scenario "no losetup"
truncate -s 64M trim-data.img
truncate -s 16M trim-meta.img
TD=$(losetup -f --show trim-data.img) || fail "losetup"
TM=$(losetup -f --show trim-meta.img) || fail "losetup"
must tpcreate --data "$TD" --meta "$TM" --chunk 64k --zero n tt
must tvcreate -V 16M -n keep tt
must tvcreate -V 16M -n gone tt
must tpactivate tt
head -c 16M /dev/urandom >keep.bin
must dd if=keep.bin of=/dev/mapper/tt-keep bs=1M oflag=direct conv=fsync status=none
must dd if=/dev/urandom of=/dev/mapper/tt-gone bs=1M count=16 oflag=direct conv=fsync \
	status=none
must tpdeactivate tt
must tvremove -y tt/gone
# a live pool is refused
must tpactivate tt
expect_eq "tptrim of an active pool: exit" "$(tptrim tt >/dev/null 2>&1; echo $?)" 5
must tpdeactivate tt
sync
before=$(( $(stat -c '%b * %B' trim-data.img) ))
must tptrim tt >trim.out
cat trim.out
grep -q "holes punched" trim.out && note_fail "tptrim took the loop device for an image file"
sync
after=$(( $(stat -c '%b * %B' trim-data.img) ))
echo "trim-data.img: $before -> $after bytes allocated"
[ $((before - after)) -ge $(( (16 << 20) - (64 << 10) )) ] ||
	note_fail "BLKDISCARD released $((before - after)) bytes, not gone's 16 MiB"
must tpactivate tt
check cmp keep.bin /dev/mapper/tt-keep
must tpdeactivate tt
check tpcheck tt
must tpremove -y tt
losetup -d "$TD" "$TM"
finish
