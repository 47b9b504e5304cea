# SPDX-License-Identifier: GPL-2.0-or-later
# tpreduce --size (tpreduce(8), "Shrinking the data area"): on image
# files, a pool whose volumes (one shared by a snapshot) are spread over
# its whole data device is shrunk to half its data size. Refused, every
# image unchanged: a size above the area (exit 3), 0 (3), a size under
# the chunks in use (exit 5, the smallest size that holds them named),
# one the over-provisioning limit does not allow (5), a size that would
# leave the last of two data devices no chunk (3, naming tpmove and
# tpreduce --data). --test counts what would move and writes nothing; a
# use of the smaller area at the warn threshold is warned about. Killed
# with SIGKILL after a step's copies, after a step's commit and after the
# rebuild of the thin metadata, it is resumed by running it again; every
# volume reads the same byte for byte after each kill and at the end,
# tpcheck and thin_check (0.9 and, when set up, 1.1) are clean on the
# shrunk pool, whose thin metadata's data space map has the new number of
# chunks; the snapshot still shares its origin's chunks; the same command
# once more has nothing to do; the freed tail of the image, as the output
# says, can be truncated off and the pool still opens and reads the same.
# On two data devices only the last one's range shrinks (its chunks behind
# the new end moved onto the first), and tpextend takes the tail back
# while it is there.
chunk=65536
DATA_SIZE=32M META_SIZE=16M new_pool p --chunk 64K
# 8 MiB each of a, b, c, then d (6 MiB) and its snapshot: a and c removed,
# the data is spread from the start of the area to its end
for v in a b c; do
	head -c 8M /dev/urandom >$v.raw
	ok tprecv --format raw -n $v p <$v.raw
done
head -c 6M /dev/urandom >d.raw
ok tprecv --format raw -n d p <d.raw
ok tvsnap p/d -n s
ok tvremove -y p/a
ok tvremove -y p/c
ok tvcreate -V 2M -n e p
write_chunks p e 4 8

exports() {
	local v
	for v in b d s e; do
		echo "$v $(tpsend --format raw "p/$v" | md5sum | cut -d' ' -f1)"
	done
}
exports >want
used0=$(pool_bytes p pool_data_used)
check_all() {
	exports >got
	cmp -s want got || { diff want got >&2; fail "$1: a volume reads other bytes"; }
	ok tpcheck p
	thin_check_pool p
	[ "$(pool_bytes p pool_data_used)" = "$used0" ] ||
		fail "$1: the data used went from $used0 to $(pool_bytes p pool_data_used)"
}
check_all "before"
old=$(pool_bytes p pool_size)
[ "$old" = $((496 * chunk)) ] || fail "a data area of $old bytes, not 496 chunks"
# the highest chunk in use lies in the second half
save_area p area.img
thin_dump area.img >dump.xml
top=$(sed -n 's/.*data_begin="\([0-9]*\)".*length="\([0-9]*\)".*/\1 \2/p; s/.*data_block="\([0-9]*\)".*/\1 1/p' dump.xml |
	awk '{ e = $1 + $2; if (e > m) m = e } END { print m }')
[ "$top" -gt 248 ] || fail "the data ends at chunk $top, in the first half"

# refusals, every image unchanged
unchanged 3 tpreduce --size 64M p
err_has "would grow it"
err_has "tpextend p"
unchanged 3 tpreduce --size 0 p
unchanged 3 tpreduce --size x p
unchanged 3 tpreduce --size 16M --data p-data.img p
unchanged 3 tpreduce --progress p
unchanged 5 tpreduce --size 8M p
err_has "are in use, more than the 128 of a data area of 8 MiB"
used=$((used0 / chunk))
err_has "The smallest data size that holds them is $used chunks, .* ('--size $((used * 64))K')"
# that size is taken (tested, nothing written)
md5sum ./*.img >sums.before
ok tpreduce --test --size $((used * 64))K p
md5sum ./*.img >sums.after
cmp -s sums.before sums.after || fail "tpreduce --test changed a device"
ok tpchange --max-overprovision 1 p
unchanged 5 tpreduce --size 16M p
err_has "over-provisioning limit"
unchanged 5 tpreduce --test --size 16M p
ok tpchange --max-overprovision 2 p

# --test: what would move, nothing written
ok tpchange --warn 80 p
md5sum ./*.img >sums.before
ok tpreduce --test --size 16M p
out_has "would shrink from 31 MiB to 16 MiB (496 chunks to 256, $used in use)"
out_has "would move to the [0-9]* free below it: they fit"
out_has "nothing was written"
err_has "would be [0-9]*% in use .* at or above its warn threshold of 80%"
md5sum ./*.img >sums.after
cmp -s sums.before sums.after || fail "tpreduce --test changed a device"

# killed after copies, after a step, after the rebuild: resumed each time
for pause in move-copied=1 move-step=2 move-copied=3 xdata-rebuilt; do
	killed_at "$pause" env TP_TEST_MOVE_STEP=16 tpreduce --size 16M p
	check_all "killed at $pause"
	[ "$(pool_bytes p pool_size)" = "$old" ] || fail "killed at $pause: the data size changed"
done
TP_TEST_MOVE_STEP=16 ok tpreduce --size 16M p
# (killed after the rebuild, every chunk had moved already)
out_has "data area shrunk from 31 MiB to 16 MiB (256 chunks); no chunk had to move"
# the tail: 1 MiB of label and VG area, then 256 chunks
out_has "15 MiB (15728640 bytes) at the end of .*p-data.img, from byte 17825792 on, are now no longer used by the pool: the device can be shrunk to 17825792 bytes .*; while it is there, 'tpextend p' or the monitor's autoextend takes it back"
check_all "shrunk"
[ "$(pool_bytes p pool_size)" = $((256 * chunk)) ] ||
	fail "data size $(pool_bytes p pool_size) after the shrink"
save_area p area.img
thin_dump area.img >dump.xml
grep -q 'nr_data_blocks="256"' dump.xml || fail "the data space map was not shrunk: $(head -1 dump.xml)"
top=$(sed -n 's/.*data_begin="\([0-9]*\)".*length="\([0-9]*\)".*/\1 \2/p; s/.*data_block="\([0-9]*\)".*/\1 1/p' dump.xml |
	awk '{ e = $1 + $2; if (e > m) m = e } END { print m }')
[ "$top" -le 256 ] || fail "a mapping at chunk $top, beyond the new end"
ref=${TPTOOLS_REF110:-/var/cache/tptools/trixie.bin}
if [ -x "$ref/thin_check" ] && "$ref/thin_check" --version | grep -q '^1\.'; then
	"$ref/thin_check" area.img >tc.log 2>&1 || { cat tc.log >&2; fail "thin_check 1.1.0 failed"; }
else
	echo "thin-provisioning-tools 1.1.0 not set up: its thin_check skipped"
fi
# once more: nothing to do
ok tpreduce --size 16M p
out_has "its data area is 16 MiB (256 chunks) already; nothing to do"
# the freed tail cut off the image
truncate -s 17825792 p-data.img
check_all "the image truncated"
ok tvcreate -V 1M -n one-more p
ok tpcheck p

# two data devices: only the last one's range shrinks
image x1.img 16M
image xm.img 16M
image x2.img 16M
ok tpcreate --data x1.img --meta xm.img --chunk 64K x
ok tpextend --data x2.img x
head -c 12M /dev/urandom >v1.raw
ok tprecv --format raw -n v1 -i v1.raw x
head -c 8M /dev/urandom >v2.raw
ok tprecv --format raw -n v2 -i v2.raw x
ok tvremove -y x/v1
# v2 on chunks 192..319, the second device's range from 240 on
unchanged 3 tpreduce --size 8M x
err_has "would leave its last data device (.*x2.img, from chunk 240 on) no chunk"
err_has "the smallest size --size can give is 15.06 MiB (15424 KiB) ('--size 15424K')"
err_has "tpmove --from .*x2.img x"
err_has "tpreduce --data .*x2.img x"
unchanged 3 tpreduce --size 18M --progress=sometimes x
ok tpreduce --size 18M --progress=json x
err_has '"command":"tpreduce","object":"x","unit":"chunks","done":32,"total":32,.*"final":true,"ok":true'
out_has "data area shrunk from 30 MiB to 18 MiB (288 chunks); 32 chunks (2 MiB) moved below the new end in 1 step."
tpsend --format raw x/v2 | cmp -s - v2.raw || fail "volume x/v2 reads other bytes"
ok tpcheck x
thin_check_pool x
ok tpstatus --noheadings --devices-report --units b x
grep -q ' data 2 .* 240 *48 ' out || fail "the second data device's range is not 48 chunks from 240: $(cat out)"
# the tail still there: tpextend takes it back, as any growth
ok tpextend x
ok tpstatus --noheadings --devices-report --units b x
grep -q ' data 2 .* 240 *240 ' out || fail "tpextend did not take the tail back: $(cat out)"
tpsend --format raw x/v2 | cmp -s - v2.raw || fail "volume x/v2 reads other bytes after tpextend"
ok tpcheck x
thin_check_pool x
