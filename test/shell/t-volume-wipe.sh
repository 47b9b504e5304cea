# SPDX-License-Identifier: GPL-2.0-or-later
# tvremove --wipe: the chunks only the removed volume maps read zero on the
# data device afterwards; chunks another volume maps (through a shared
# snapshot tree, or a mapping of its own) and unmapped chunks keep their
# bytes; the metadata stays consistent. Refusals change nothing.
DATA_SIZE=64M
new_pool w --chunk 64k --zero n
for v in a b c d; do ok tvcreate -V 16M -n $v w; done	# thin devices 0..3

# a: chunks 0..9 and 20..24; b: 30..32; c: 40..49; d: 40..44 (shared with c)
map_ranges w 0:0:0:10 0:10:20:5 1:0:30:3 2:0:40:10 3:0:40:5
ok tpcheck w
# s shares a's whole mapping tree: the space map counts those chunks once
ok tvsnap w/a -n s

# every chunk 0..59 of the data area holds 0xab bytes
ok tpstatus --noheadings --units b -o pool_data_offset w
base=$(tr -d ' \n' <out)
chunk=65536
head -c $chunk /dev/zero | tr '\0' '\253' >pattern
for i in $(seq 0 59); do
	dd if=pattern of=w-data.img bs=$chunk seek=$(( (base + i * chunk) / chunk )) \
		conv=notrunc status=none
done
# nonzero BYTES of chunk N
nonzero() {
	dd if=w-data.img bs=$chunk skip=$(( (base + $1 * chunk) / chunk )) count=1 status=none |
		tr -d '\0' | wc -c
}
# expect zero|kept FIRST LAST
expect_chunks() {
	local i n
	for i in $(seq "$2" "$3"); do
		n=$(nonzero "$i")
		case $1 in
		zero) [ "$n" = 0 ] || fail "chunk $i not wiped ($n nonzero bytes)";;
		kept) [ "$n" = $chunk ] || fail "chunk $i lost its data ($n nonzero bytes)";;
		esac
	done
}
[ $((base % chunk)) = 0 ] || fail "data offset $base is not chunk aligned (test assumption)"

# refusals change nothing: no such volume, bad option
unchanged 5 tvremove --wipe w/nothing
err_has "no volume nothing"
unchanged 3 tvremove --wipe=yes w/b

# s maps only chunks it shares with a (count 1 in the space map, two volumes
# in the trees): nothing wiped
ok tvremove --wipe w/s
out_has "Volume w/s wiped: 0 B"
out_has "960 KiB shared with other volumes left to them"
expect_chunks kept 0 59

# c shares 40..44 with d: only 45..49 are wiped
ok tvremove --wipe w/c
out_has "Volume w/c wiped: 320 KiB .*1 extent,"
out_has "320 KiB shared"
expect_chunks kept 40 44
expect_chunks zero 45 49

# a signal during the zeroing stops it: b stays, nothing else changed
rm -f pause
TP_TEST_PAUSE=wipe-zeroing TP_TEST_PAUSE_FILE=$PWD/pause tvremove --wipe w/b >out 2>err &
pid=$!
wait_until $pid test -e pause || { kill $pid; fail "tvremove --wipe never reached its zeroing"; }
kill -INT $pid
rm -f pause
rc=0; wait $pid || rc=$?
[ $rc = 130 ] || { cat out err >&2; fail "interrupted --wipe exited $rc, not 130"; }
err_has "interrupted after zeroing 0 B of 192 KiB; the volume was not removed"
out_lacks "removed"
expect_chunks kept 30 32
ok tpcheck w
ok tpstatus --noheadings -o vol_name w
grep -qw b out || fail "b was removed by an interrupted --wipe"

# a alone now: 0..9 and 20..24 wiped, the unmapped 10..19 and b's 30..32 kept
ok tvremove --wipe w/a
out_has "Volume w/a wiped: 960 KiB .*2 extents"
out_has "Volume w/a removed."
expect_chunks zero 0 9
expect_chunks kept 10 19
expect_chunks zero 20 24
expect_chunks kept 25 44
ok tpcheck w
ok tpstatus --noheadings -o vol_name w
[ "$(awk 'NF { printf "%s ", $1 }' out)" = "b d " ] || fail "volumes left: $(cat out)"

# the chunks are free again: a new volume gets them (thin_dump of the area)
save_area w area.img
thin_dump area.img | grep -q 'data_begin="0"' && fail "a wiped chunk is still mapped"
true
