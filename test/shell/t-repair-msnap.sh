# SPDX-License-Identifier: GPL-2.0-or-later
# A pool whose live thin device trees are all lost while a held metadata
# snapshot's survive (the tpt corpus' corrupted_tmeta_with_metadata_snap,
# in a pool): the salvage finds the snapshot's trees, and tprepair says
# the volumes read what they held when it was taken (exit 4, never 0),
# names them, and reports the volume made since as lost. Trees older than
# the damage found without a snapshot: the chunks in use they no longer
# map are reported lost.
DATA_SIZE=64M META_SIZE=16M
new_pool p --chunk 64k
ok tvcreate -V 16M -n a p
write_chunks p a 0 10
save_area p area.img
tp-thinmap --reserve-snap area.img || fail "tp-thinmap --reserve-snap failed"
load_area p area.img
ok tvcreate -V 16M -n b p
# the live trees (details and top level, of the one transaction since the
# snapshot: older roots left from later writes would be found first) zeroed,
# the snapshot's intact
save_area p area.img
for t in details mapping; do
	root=$(tp-damage area.img root $t) || fail "tp-damage root $t"
	ok tp-damage area.img zero "$root"
done
load_area p area.img
expect_rc 2 tpcheck p
expect_rc 4 tprepair p
err_has "the metadata snapshot's, of transaction"
err_has "a state of another moment"
err_has "\ba\b"
# a kept, as it was when the snapshot was taken; b, made after it, is lost:
# the advice names its removal
expect_rc 2 tpcheck p
out_has "volume b: thin device 1 is missing"
out_has "tvremove p/b"
ok tvremove -y p/b
ok tpcheck p
[ "$(vol_field p a vol_mapped --units b --nosuffix)" = $((10 * 65536)) ] ||
	fail "volume a does not map what it held at the snapshot"

# trees older than the damage without a snapshot: the live transaction's
# roots lost, the scan finds the previous one's (b's 3 chunks written
# last): the chunks the damaged data space map counts in use and the
# salvage maps no more are reported lost
DATA_SIZE=64M META_SIZE=16M
new_pool q --chunk 64k
ok tvcreate -V 16M -n a q
write_chunks q a 0 10
ok tvcreate -V 16M -n b q
write_chunks q a 20 5
write_chunks q b 0 3
save_area q area.img
for t in details mapping; do
	root=$(tp-damage area.img root $t) || fail "tp-damage root $t"
	ok tp-damage area.img zero "$root"
done
load_area q area.img
ok tprepair q
out_has "lost: the mappings of 3 data chunks the damaged metadata counted in use"
out_has "^next: lost blocks read as zeroes"
err_has "counted 18 data blocks in use, the salvage maps 15"
