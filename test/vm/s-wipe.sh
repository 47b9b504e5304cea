#!/bin/bash
# tvremove --wipe on the real kernel (issue 14): with zeroing off a new
# volume reads what a removed one left in chunks it has only partly
# written (shown first, as the control); after tvremove --wipe the data
# device holds zeros there and a new volume reads zeros where the wiped
# one had data. An active pool is refused.
. "$TP_SRC/test/vm/lib.sh"
set -- $TP_DISKS
[ $# -ge 2 ] || skip_scenario "needs 2 disks, have $#"
export TPTOOLS_DIR=$PWD/etc
mkdir -p "$TPTOOLS_DIR"
DATA=$1 META=$2
CHUNK=65536 NCHUNKS=128 SIZE=$((128 * 65536))

# fill VOL's first 4 KiB of every chunk with byte OCTAL (direct I/O)
write_heads() {
	local i
	head -c 4096 /dev/zero | tr '\0' "\\$2" >head.bin
	for i in $(seq 0 $((NCHUNKS - 1))); do
		dd if=head.bin of="/dev/mapper/wp-$1" bs=4096 seek=$((i * 16)) oflag=direct \
			conv=notrunc status=none || return 1
	done
}
# nonzero bytes of volume VOL (direct reads)
nonzero() { dd if="/dev/mapper/wp-$1" bs=1M iflag=direct status=none | tr -d '\0' | wc -c; }

step "pool with zeroing off; volume a fully written"
must tpcreate --data "$DATA" --meta "$META" --chunk 64k --zero n wp
must tvcreate -V 8M -n a wp
must tpactivate wp
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
[ "$n" -gt $((NCHUNKS * 4096)) ] || fail "no stale data visible: the control shows nothing ($n)"

step "--wipe is refused while the pool is active"
not tvremove --wipe wp/b
ok tpstatus --noheadings -o vol_name wp
tpstatus --noheadings -o vol_name wp | grep -qw b || fail "b was removed by a refused --wipe"
must tpdeactivate wp

step "tvremove --wipe: b's chunks read zero, a new volume reads zeros"
# b's data chunks, from its mappings: which chunks the kernel gave b
# differs between kernels (6.1 reuses a's, 6.12 may take others)
id=$(tpstatus --noheadings -o vol_dev_id wp/b | awk 'NF { print $1; exit }')
tpdump wp | awk -v id="$id" '
	/<device / { on = ($0 ~ "dev_id=\"" id "\"") }
	on && /single_mapping/ { match($0, /data_block="[0-9]+"/)
		print substr($0, RSTART + 12, RLENGTH - 13) }
	on && /range_mapping/ { match($0, /data_begin="[0-9]+"/)
		b = substr($0, RSTART + 12, RLENGTH - 13)
		match($0, /length="[0-9]+"/); n = substr($0, RSTART + 8, RLENGTH - 9) + 0
		for (i = 0; i < n; i++) print b + i }' >b-chunks
expect_eq "b's mapped chunks" "$(wc -l <b-chunks)" "$NCHUNKS"
off=$(tpstatus --noheadings --units b -o pool_data_offset wp | awk 'NF { print $1; exit }')
off=${off%b}
must tvremove --wipe wp/b
z=0
while read -r c; do
	n=$(dd if="$DATA" bs=$CHUNK skip=$((off / CHUNK + c)) count=1 iflag=direct status=none |
		tr -d '\0' | wc -c)
	z=$((z + n))
done <b-chunks
expect_eq "nonzero bytes left in b's chunks" "$z" 0
must tvcreate -V 8M -n c wp
must tpactivate wp
must write_heads c 357
expect_eq "c reads only what it wrote" "$(nonzero c)" $((NCHUNKS * 4096))
must tpdeactivate wp
ok tpcheck wp
must tpremove -y wp
finish
