# SPDX-License-Identifier: GPL-2.0-or-later
# tvresize grows and shrinks a volume's virtual size; a shrink over mapped
# data is refused unless --force (asked, -y), which unmaps it, and a crash
# in between is completed by the next command. tvrename renames a volume
# and its snapshots' origin; refusals change nothing.
DATA_SIZE=128M
new_pool rs --chunk 64k
ok tvcreate -V 100M -n a rs
ok tvsnap rs/a -n a-snap
vsize() { vol_field rs "$1" vol_size --units b; }
origin() { vol_field rs "$1" vol_origin; }

# give volume a (thin device 0) chunks 0..99 and 1500..1599 (64 KiB chunks)
map_ranges rs 0:0:0:100 0:1500:100:100
ok tpcheck rs

# grow, absolute and relative
ok tvresize -V 200M rs/a
out_has "resized from 100 MiB to 200 MiB"
[ "$(vsize a)" = "209715200b" ] || fail "size after grow: $(vsize a)"
ok tvresize -V +1G rs/a-snap
[ "$(vsize a-snap)" = "$((1124 * 1048576))b" ] || fail "relative grow: $(vsize a-snap)"
ok tvresize -V -100M rs/a
[ "$(vsize a)" = "104857600b" ] || fail "relative shrink over nothing mapped: $(vsize a)"

# the current size (also after rounding): said so, nothing written
for v in 100M 102400k 104857599b; do
	sums ./*.img >before
	seq=$(ls "$(backup_dir rs)" | wc -l)
	ok tvresize -V "$v" rs/a
	[ "$(cat out)" = "Volume rs/a is already 100 MiB; nothing changed." ] ||
		fail "tvresize -V $v to the current size: $(cat out)"
	sums ./*.img | cmp -s - before || fail "tvresize -V $v to the current size wrote"
	[ "$(ls "$(backup_dir rs)" | wc -l)" = "$seq" ] || fail "tvresize -V $v committed a VG"
done

# refusals: bad sizes, no such volume, mapped data beyond the new end
unchanged 3 tvresize -V 0 rs/a
unchanged 3 tvresize -V -200M rs/a
unchanged 3 tvresize -V x rs/a
unchanged 3 tvresize rs/a
unchanged 3 tvresize -V 10M rs
unchanged 5 tvresize -V 10M rs/nosuch
unchanged 5 tvresize -V 50M rs/a
err_has "6.25 MiB of data is mapped beyond the new end"
unchanged 5 tvresize -V -1M rs/a
err_has "1 MiB of data is mapped beyond"
unchanged 5 tvresize --force -V 50M rs/a </dev/null

# --force -y: unmapped, counted, the pool checks clean, a regrow shows nothing
ok tvresize --force -y -V 50M rs/a
out_has "6.25 MiB of data beyond the new end dropped"
ok tpcheck rs
thin_check_pool rs
ok tvresize -V 100M rs/a
thin_dump area.img | grep -q 'origin_begin="1500"' && fail "unmapped chunks came back"
thin_dump area.img | grep -q 'length="100"' || fail "chunks below the end were lost"

# a crash between the VG commit and the unmapping: completed by the next command
ok tvresize -V 200M rs/a
map_ranges rs 0:1500:200:10
save_area rs before.img
ok tvresize --force -y -V 50M rs/a
load_area rs before.img
ok tpstatus rs
err_has "interrupted"
ok tvresize -V 200M rs/a
err_has "completed the interrupted shrink: 10 chunks"
thin_check_pool rs
thin_dump area.img | grep -q 'origin_begin="1500"' && fail "the interrupted shrink left chunks mapped"
ok tpcheck rs

# a size inside a chunk: what the shrink cuts off in the new last chunk is
# data unless it is zeros (refused without --force, zeroed with it), and a
# grow reads zeros past the old end, also where a snapshot shares the chunk
raw() { tpsend --format raw rs/"$1"; }
ok tvcreate -V 1M -n t rs
truncate -s 1M t.want
write_chunks rs t 15 1	# the last chunk: bytes 960 KiB..1 MiB
unchanged 5 tvresize -V 1000K rs/t
err_has "24 KiB of data is mapped beyond the new end"
head -c 1000K t.want >t.1000
truncate -s 1M t.1000
ok tvresize --force -y -V 1000K rs/t
out_has "24 KiB of data beyond the new end dropped"
ok tvresize -V 1M rs/t
raw t | cmp - t.1000 || fail "the bytes a forced shrink cut off came back with the grow"
# cut-off bytes that are zeros (those of t.1000 now): no --force needed
ok tvresize -V 1000K rs/t
out_lacks "dropped"
ok tvresize -V 1M rs/t
raw t | cmp - t.1000 || fail "a shrink over zeros changed the volume"
# a snapshot shares the chunk: the shrink gives the volume its own copy
# (its head, then zeros), the snapshot keeps every byte
ok tvcreate -V 1M -n u rs
truncate -s 1M u.want
write_chunks rs u 15 1
ok tvsnap rs/u -n u-snap
ok tvresize --force -y -V 1000K rs/u
ok tvresize -V 1M rs/u
head -c 1000K u.want >u.1000
truncate -s 1M u.1000
raw u | cmp - u.1000 || fail "the shrink over a shared chunk: the regrown volume differs"
raw u-snap | cmp - u.want || fail "the shrink over a shared chunk changed the snapshot"
thin_check_pool rs
# left by an earlier tptools (a shrink that kept them, simulated by a
# volume of 1000 KiB whose chunk 15 is written whole): the grow zeroes
# them, in place, or in a copy when a snapshot shares the chunk
ok tvcreate -V 1000K -n old rs
truncate -s 1M old.want
write_chunks rs old 15 1
ok tvsnap rs/old -n old-snap
head -c 1000K old.want >old.1000
truncate -s 1M old.1000
ok tvresize -v -V 1M rs/old
err_has "zeroed the 24 KiB past its old end"
raw old | cmp - old.1000 || fail "the grow showed the bytes past the old end"
raw old-snap | cmp - <(head -c 1000K old.want) || fail "the grow of its origin changed the snapshot"
ok tvresize -V 1M rs/old-snap
raw old-snap | cmp - old.1000 || fail "the snapshot's grow showed the bytes past its old end"
thin_check_pool rs
ok tpcheck rs

# tvrename: the volume and its snapshots' origin follow; refusals
ok tvrename rs/a b
out_has "Volume rs/a renamed to b."
[ "$(vsize b)" = "209715200b" ] || fail "renamed volume lost its size"
[ "$(origin a-snap)" = "b" ] || fail "snapshot origin not renamed: $(origin a-snap)"
unchanged 5 tvrename rs/b a-snap
err_has "already has a volume named a-snap"
unchanged 5 tvrename rs/nosuch c
unchanged 3 tvrename rs/b 'bad/name'
unchanged 3 tvrename rs/b tpool
unchanged 3 tvrename rs/b
ok tpcheck rs
