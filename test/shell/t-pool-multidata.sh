# SPDX-License-Identifier: GPL-2.0-or-later
# A pool over several data devices (tpextend(8), "Several data devices"):
# a pool on one data image grows by a second and a third with tpextend
# --data; volumes written before and after read back the same (read from
# the images through the thin mappings and the ranges tpstatus
# --devices-report gives, so the concatenation is checked from outside);
# tpcheck and thin_check are clean; --test prints every decision and
# writes nothing; every bad input leaves every image unchanged; a pool
# whose middle data device is moved away refuses to open and to activate
# with exit 5, naming the missing device, and tpactivate --all passes it
# by; tpcheck finds a damaged VG copy on an added device; tprename and
# tpremove go over every device; tpreduce takes the last data device away
# while none of its chunks is in use; on loop devices the pool is
# found by its labels, all of its data devices, after the devices file is
# deleted.

# vol_image POOL VOL SIZE OUT: VOL's bytes (SIZE of them) read from the
# data devices: each mapping of its thin device (thin_dump) located by the
# device report's ranges (64 KiB chunks)
vol_image() {
	local pool=$1 vol=$2 size=$3 out=$4 id
	id=$(vol_dev_id "$pool" "$vol")
	thin_check_pool "$pool"
	tpstatus --noheadings --units b --devices-report "$pool" | awk '$2 == "data" {
		sub(/b$/, "", $5); print $6, $7, $5, $10 }' >ranges.txt
	rm -f "$out"
	truncate -s "$size" "$out"
	thin_dump area.img | awk -v id="$id" '
		/<device dev_id="/ { d = $0; sub(/.*dev_id="/, "", d); sub(/".*/, "", d); on = d == id }
		on && /single_mapping/ { o = $0; sub(/.*origin_block="/, "", o); sub(/".*/, "", o)
			b = $0; sub(/.*data_block="/, "", b); sub(/".*/, "", b); print o, b, 1 }
		on && /range_mapping/ { o = $0; sub(/.*origin_begin="/, "", o); sub(/".*/, "", o)
			b = $0; sub(/.*data_begin="/, "", b); sub(/".*/, "", b)
			n = $0; sub(/.*length="/, "", n); sub(/".*/, "", n); print o, b, n }' |
	while read -r o b n; do
		for ((k = 0; k < n; k++)); do
			local c=$((b + k)) first chunks off path found=
			while read -r first chunks off path; do
				if [ "$c" -ge "$first" ] && [ "$c" -lt $((first + chunks)) ]; then
					dd if="$path" of="$out" bs=64K count=1 conv=notrunc status=none \
						iflag=skip_bytes skip=$((off + (c - first) * 65536)) \
						seek=$((o + k))
					found=1
					break
				fi
			done <ranges.txt
			[ -n "$found" ] || fail "chunk $c lies on no data device"
		done
	done
}

image d1.img 40M
image m.img 16M
image d2.img 24M
image d3.img 33M
ok tpcreate --data d1.img --meta m.img --chunk 64K p
head -c 30M /dev/urandom >a.want
ok tprecv --format raw -n a p <a.want
# a pool on one device: its VG has no added devices, and --test writes nothing
unchanged_ok() {
	md5sum ./*.img >sums.before
	ok "$@"
	md5sum ./*.img >sums.after
	cmp -s sums.before sums.after || fail "'$*' changed a device"
}
unchanged_ok tpextend --test --data d2.img p
out_has "data device 2"
out_has "range:       chunks 624..991"
out_has "metadata:"
out_has "nothing was written"
unchanged_ok tpextend --test --explain --data d2.img p

ok tpextend --data d2.img p
out_has "data device 2, 368 chunks"
ok tpextend --data d3.img p
ok tpstatus --noheadings -o pool_devices p
out_has "d1.img,.*d2.img,.*d3.img"
ok tpstatus --noheadings --devices-report p
[ "$(grep -c ' data ' out)" = 3 ] || fail "three data devices expected: $(cat out)"
# the area of all three, less the chunks of a
size=$(pool_bytes p pool_size)
[ "$size" = $(((624 + 368 + 512) * 65536)) ] || fail "data area $size"

# b fills the rest of d1 and runs over d2 into d3
head -c 40M /dev/urandom >b.want
ok tprecv --format raw -n b p <b.want
ok tpcheck p
thin_check_pool p
vol_image p a 30M a.got
cmp a.got a.want || fail "volume a (written before the growth) reads back other bytes"
vol_image p b 40M b.got
cmp b.got b.want || fail "volume b (over three devices) reads back other bytes"
# b's chunks lie on all three devices
awk '{ print $1 }' ranges.txt | tr '\n' ' ' | grep -q "^0 624 992 " || fail "ranges: $(cat ranges.txt)"
# the raw export reads across the devices too
ok tpsend --format raw -o b.raw p/b
cmp b.raw b.want || fail "tpsend --format raw of b (over three devices) differs"
# tptrim finds each free chunk's device (here the free chunks are the end
# of the third one): the discard lands there, a hole in d3.img at the
# offset --test named, and every volume reads as before
head -c 8M /dev/urandom >t.want
ok tprecv --format raw -n t2 p <t.want
ok tptrim --test p
out_has "of $PWD/d3.img"
read -r off len < <(sed -n 's/.*: \([0-9]*\) bytes at byte \([0-9]*\) of .*d3.img$/\2 \1/p' out | tail -1)
[ -n "$off" ] || fail "tptrim --test named no range of d3.img: $(cat out)"
dd if=/dev/urandom of=d3.img bs=64k seek=$((off / 65536)) count=$((len / 65536)) conv=notrunc status=none
ok tptrim p
python3 - d3.img "$off" "$len" <<'PY' || fail "tptrim left data in d3.img at $off (+$len)"
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
off, ln = int(sys.argv[2]), int(sys.argv[3])
try:
    nxt = os.lseek(fd, off, os.SEEK_DATA)
except OSError:
    nxt = os.fstat(fd).st_size
sys.exit(0 if nxt >= off + ln else 1)
PY
ok tpsend --format raw -o a.raw p/a
cmp a.raw a.want || fail "volume a changed by tptrim"
ok tpsend --format raw -o b.raw p/b
cmp b.raw b.want || fail "volume b changed by tptrim"
ok tpsend --format raw -o t2.raw p/t2
cmp t2.raw t.want || fail "volume t2 changed by tptrim"
ok tpcheck p
ok tvremove -y p/t2

# bad input: nothing changes
unchanged 3 tpextend --data d2.img p
err_has "one of its devices already"
unchanged 3 tpextend --test p
unchanged 3 tpextend --data d2.img --metadata-size 20 p
image tiny.img 1M
unchanged 5 tpextend --data tiny.img p
err_has "no whole chunk"
image q1.img 40M
image qm.img 16M
ok tpcreate --data q1.img --meta qm.img q
unchanged 5 tpextend --data qm.img p
err_has "qm.img belongs to pool q (its metadata device: its VG names it)"
err_has "'tpremove q'"
ok tpremove -y q
raid_geometry 32768 98304
image odd.img 40M
unchanged 5 tpextend --data odd.img p
err_has "add --force"
ok tpextend --test --force --data odd.img p
out_has "does not divide"
unset TPTOOLS_TOPOLOGY
unchanged 5 tpextend --data nosuch.img p

# the middle device moved away: refused, naming it by its place (the
# second: 2, as tpextend and --devices-report number it, tptools(7)),
# which --devices-report lists as missing where it was last seen
mv d2.img d2.away
unchanged 5 tpstatus p
err_has "data device 2 (device uuid"
err_has "d2.img"
unchanged 5 tpactivate p
err_has "data device 2 (device uuid"
ok tpstatus --noheadings --devices-report p
grep -q "^p  *data 2 .* missing  *$PWD/d2.img$" out || fail "d2 not listed missing: $(cat out)"
grep -q "^p  *data 3 .* ok  *$PWD/d3.img$" out || fail "d3 not listed: $(cat out)"
expect_rc 2 tpcheck p
out_has "next: attach the missing data device 2 (device uuid .*), then check again"
unchanged 5 tprepair p
err_has "its data device 2 (device uuid .*) is missing; tprepair writes no pool"
err_has "attach the missing data device 2 (device uuid .*), then check again"
unchanged 5 tvcreate -V 1G -n c p
# activation of all pools passes it by, saying why
ok tpactivate --auto p
out_has "not all of its devices are present"
mv d2.away d2.img
ok tpcheck p

# tpcheck looks at every device's label and VG copies: a damaged slot on
# the third device is a finding, which the next change puts right
printf 'garbage' | dd of=d3.img bs=1 seek=4100 conv=notrunc status=none
printf 'garbage' | dd of=d3.img bs=1 seek=$((4096 + 522240 + 4)) conv=notrunc status=none
expect_rc 1 tpcheck p
grep -q "d3.img: lacks the newest VG metadata" out err || fail "no finding for d3's VG copy: $(cat out err)"
ok tvcreate -V 4M -n c p
ok tpcheck p

# tpreduce: only while none of its chunks is in use (a middle one:
# t-pool-move; the first: t-pool-reduce-first); b has chunks on d2 and d3
unchanged 5 tpreduce --data d1.img p
err_has "in use"
unchanged 5 tpreduce --data d2.img p
err_has "in use"
unchanged 5 tpreduce --data d3.img p
err_has "in use"
unchanged 3 tpreduce p
image d4.img 20M
ok tpextend --data d4.img p
unchanged_ok tpreduce --test --data d4.img p
out_has "can be taken away"
ok tpreduce --data d4.img p
ok tpstatus --noheadings --devices-report p
[ "$(grep -c ' data ' out)" = 3 ] || fail "d4 still listed: $(cat out)"
grep -q d4.img etc/devices && fail "the devices file still lists d4: $(cat etc/devices)"
cmp -s -n 512 <(dd if=d4.img bs=512 skip=1 count=1 status=none) /dev/zero ||
	fail "tpreduce left the label of d4"
ok tpcheck p
thin_check_pool p
vol_image p b 40M b.got
cmp b.got b.want || fail "volume b after tpreduce"
# a pool whose last added device went reads its VG as before the addition
ok tpextend --data d4.img p

# rename and remove go over every device
ok tprename p r
ok tpstatus --noheadings --devices-report r
[ "$(grep -c '^r ' out)" = 5 ] || fail "renamed pool's devices: $(cat out)"
vol_image r b 40M b.got
cmp b.got b.want || fail "volume b after the rename"
ok tpremove -y r
for f in d1.img d2.img d3.img d4.img m.img; do
	cmp -s -n 512 <(dd if=$f bs=512 skip=1 count=1 status=none) /dev/zero ||
		fail "tpremove left the label of $f"
done

# pool_data_offset is the first device's; chunk n of another device lies
# at its DataStart + (n - FirstChunk) x chunk (tpstatus(8)): three devices
# whose data areas start at different offsets (their own stripes), a
# chunk on each written where the page says, read back through a volume
image off1.img 32M
image off2.img 32M
image off3.img 32M
image offm.img 16M
ok tpcreate --data off1.img --meta offm.img --chunk 64k offs
TPTOOLS_TOPOLOGY=min_io=65536,opt_io=196608,align=0 ok tpextend --data off2.img offs
TPTOOLS_TOPOLOGY=min_io=65536,opt_io=3145728,align=0 ok tpextend --data off3.img offs
ok tpstatus --noheadings --devices-report --units b offs
awk '$2 == "data" { sub(/b$/, "", $5); print $3, $5, $6, $7, $10 }' out >ranges
[ "$(wc -l <ranges)" = 3 ] || fail "three data devices expected: $(cat out)"
[ "$(awk '{ print $2 }' ranges | sort -u | wc -l)" = 3 ] ||
	fail "the test wants three different data offsets: $(cat ranges)"
[ "$(pool_bytes offs pool_data_offset)" = "$(awk '$1 == 1 { print $2 }' ranges)" ] ||
	fail "pool_data_offset $(pool_bytes offs pool_data_offset) is not the first device's: $(cat ranges)"
ok tpstatus -o help
cat out err | grep -q "pool_data_offset .*first data device" ||
	fail "tpstatus -o help: pool_data_offset is not said to be the first device's"
ok tvcreate -V 192K -n v offs
spec=
: >v.want
while read -r place start first count path; do
	n=$((first + count / 2))	# a chunk inside the device's range
	head -c 65536 /dev/urandom >piece
	dd if=piece of="$path" bs=65536 seek=$(((start + (n - first) * 65536) / 65536)) \
		conv=notrunc status=none
	cat piece >>v.want
	spec="$spec 0:$((place - 1)):$n:1"
done <ranges
# every start above is a multiple of 64 KiB, so seek= in chunks is exact
awk '{ if ($2 % 65536) exit 1 }' ranges || fail "a data offset not a multiple of 64 KiB"
# shellcheck disable=SC2086
map_ranges offs $spec
tpsend --format raw offs/v | cmp - v.want ||
	fail "chunk n of a device does not lie at its DataStart + (n - FirstChunk) x chunk"
ok tpcheck offs

# the most data devices: the ninth refused, the advice naming the one
# device that can grow (the last) and the way to make room
DATA_SIZE=16M META_SIZE=16M new_pool eight --chunk 64k
for i in 2 3 4 5 6 7 8; do
	image "eight-d$i.img" 16M
	ok tpextend --data "eight-d$i.img" eight
done
image eight-d9.img 16M
unchanged 5 tpextend --data eight-d9.img eight
err_has "pool eight has 8 data devices, the most a pool can have. Only its last data device ($PWD/eight-d8.img) can grow"
err_has "run 'tpextend eight'"
err_has "tpmove --from DEV eight"
err_lacks "grow one of them"
ok tpremove -y eight

# loop devices: found by their labels after the devices file is lost
loop_images l1 ld1.img 40M l2 ld2.img 24M lm lm.img 16M
ok tpcreate --data "$l1" --meta "$lm" --chunk 64K lp
ok tpextend --data "$l2" lp
head -c 50M /dev/urandom >c.want
ok tprecv --format raw -n c lp <c.want
rm etc/devices
ok tpstatus --devices-report lp
out_has "$l2"
grep -q " $l2$" etc/devices || fail "the added device was not recorded again: $(cat etc/devices)"
ok tpcheck lp
vol_image lp c 50M c.got
cmp c.got c.want || fail "volume c reads back other bytes after the scan"
ok tpremove -y lp
