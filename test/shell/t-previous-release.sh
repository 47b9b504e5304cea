# SPDX-License-Identifier: GPL-2.0-or-later
# A pool made by an earlier build (test/data/release-0123b65: the product
# as it was before issue 40's changes, made by scripts/mk-release-fixture.sh
# with that build alone) opens with this tree's: found through --devices
# (its VG text names the paths it was made at), it gets a volume, a
# snapshot, a rename and a removal, and every volume it had reads back the
# bytes that build read (SUMS), before the changes and after them. tpcheck
# finds it clean, before and after, and thin_check (0.9.0) accepts its
# metadata. The images are the earlier build's, byte for byte, until the
# first change.
fx=$TOP/test/data/release-0123b65
xz -dc "$fx/rel-data.img.xz" >rel-data.img
xz -dc "$fx/rel-meta.img.xz" >rel-meta.img
truncate -s 256M rel-data.img	# xz keeps the holes' length, not the holes
sums rel-data.img rel-meta.img >images.sum

# read_back: every volume of SUMS reads the bytes the earlier build read
read_back() {
	local sum v got
	while read -r sum v; do
		got=$(tpsend --format raw "rel/$v" | sha256sum | cut -d' ' -f1)
		[ "$got" = "$sum" ] || fail "rel/$v reads other bytes than the build of 0123b65 read ($1)"
	done <"$fx/SUMS"
}

# reads first: nothing is written (the devices file aside)
ok tpstatus --devices rel-data.img,rel-meta.img rel
for v in v1 s1 v2 e; do out_has "^ *rel  *$v "; done
ok tpcheck --devices rel-data.img,rel-meta.img rel
out_has "clean"
sums_same images.sum || fail "a read of the earlier build's pool changed its images"
ok tvcreate --devices rel-data.img,rel-meta.img -V 64M -n new rel
read_back "after a tvcreate"

# data into the new volume, and the pool's other changes
seq 7000000 8000000 | head -c 200K >n.raw
ok tprecv --format raw -n n2 -i n.raw rel
tpsend --format raw rel/n2 | cmp - n.raw || fail "a volume imported now reads other bytes"
ok tvsnap -n s2 rel/v1
ok tvrename rel/v2 v2b
[ "$(tpsend --format raw rel/v2b | sha256sum | cut -d' ' -f1)" = "$(awk '$2 == "v2" { print $1 }' "$fx/SUMS")" ] ||
	fail "v2, renamed v2b, reads other bytes"
ok tvrename rel/v2b v2
ok tvremove -y rel/e
grep -v ' e$' "$fx/SUMS" >sums.left
while read -r sum v; do
	[ "$(tpsend --format raw "rel/$v" | sha256sum | cut -d' ' -f1)" = "$sum" ] ||
		fail "rel/$v reads other bytes after the changes"
done <sums.left
[ "$(tpsend --format raw rel/s2 | sha256sum | cut -d' ' -f1)" = "$(awk '$2 == "v1" { print $1 }' "$fx/SUMS")" ] ||
	fail "s2, a snapshot of v1 made now, reads other bytes than v1"
ok tpstatus rel
for v in v1 s1 v2 new n2 s2; do out_has "^ *rel  *$v "; done
out_lacks "^ *rel  *e "
ok tpcheck rel
out_has "clean"
if have thin_check; then thin_check_pool rel; fi
