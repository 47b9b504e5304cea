# SPDX-License-Identifier: GPL-2.0-or-later
# A mirror that checks what it reads (tpcreate(8) MIRRORED METADATA,
# tpcheck(8), tprepair(8), tpstatus(8) pool_meta_health/pool_meta_legs):
# bad blocks on one leg of mirrored thin metadata (its superblock intact,
# so both legs still count as in sync at open) never stop the pool while
# the other leg holds them good:
#  - a read goes to the first leg that validates: every reader and writer
#    works, the volumes read back equal to their sources;
#  - readers write nothing (every image unchanged) and say the bad blocks;
#  - a writer rewrites the bad copies it read when it commits, and says so;
#    a writer that is refused writes nothing;
#  - tpcheck compares both legs (the scrub): bad blocks on EITHER leg are
#    non-fatal damage (exit 1) with a next: line naming tprepair; tpstatus
#    then shows the leg "bad blocks" and the health "damaged", also after
#    more changes, until tprepair rewrites them from the good leg (then
#    tpcheck is clean and the legs are equal again);
#  - damage on the second leg, found and healed, leaves the pool readable
#    from that leg alone when the first is then lost;
#  - a block bad on both legs is the metadata's own damage: FATAL, salvage.

areas_equal() {	# the thin-metadata areas (1 MiB on) of two legs
	cmp -s <(dd if="$1" bs=1M skip=1 status=none) <(dd if="$2" bs=1M skip=1 status=none)
}

image d.img 64M
image ma.img 16M
image mb.img 16M
ok tpcreate --data d.img --meta ma.img,mb.img --chunk 64K mp
head -c 4M /dev/urandom >v.want
ok tprecv --format raw -n v mp <v.want
ok tvsnap mp/v -n s
# the snapshot shares v's chunks; v's later chunks are its own
head -c 2M /dev/urandom >w.want
ok tprecv --format raw -n w mp <w.want
read -r off _ < <(meta_area mp)
[ "$((off % 4096))" = 0 ] || fail "area offset $off"
save_area mp area.img
# blocks of the thin metadata in use: the leaves of v's and w's mapping trees
read -r leaf_v _ < <(tp-damage area.img find "$(vol_dev_id mp v)" 10)
read -r leaf_w _ < <(tp-damage area.img find "$(vol_dev_id mp w)" 10)
[ -n "$leaf_v" ] && [ -n "$leaf_w" ] && [ "$leaf_v" != "$leaf_w" ] || fail "tp-damage find"
for f in d ma mb; do cp --sparse=always $f.img $f.good; done
cp -r "$TPTOOLS_DIR" etc.good
restore() {
	for f in d ma mb; do cp --sparse=always $f.good $f.img; done
	rm -rf "$TPTOOLS_DIR"
	cp -r etc.good "$TPTOOLS_DIR"
}
# garbage over block B of the area on LEG (the superblock is left alone)
garbage() {
	head -c 4096 /dev/urandom | dd of="$1" bs=4096 seek=$((off / 4096 + $2)) conv=notrunc \
		status=none
}
volumes_read() {
	for v in v s w; do
		rm -f "$v.got"
		ok tpsend --format raw -o "$v.got" "mp/$v"
		want=$v.want
		[ "$v" = s ] && want=v.want
		cmp -s "$want" "$v.got" || fail "volume $v reads back different ($*)"
	done
}

# --- leg 0 (the one read first) with two bad blocks in use
garbage ma.img "$leaf_v"
garbage ma.img "$leaf_w"
sums ./*.img >sums.before
volumes_read "leg 0 damaged"
err_has "leg 0 (.*ma.img): 1 block bad there"
ok tpstatus mp
ok tpdiff mp/s mp/v
ok tpdump mp
sums_same sums.before || fail "a reader wrote to a device"
expect_rc 1 tpcheck mp
out_has "metadata mirror leg 0 (.*ma.img): 2 of [0-9]* blocks in use bad there"
out_has "next: run 'tprepair mp' to rewrite the metadata mirror's bad copies from the good leg"
sums_same sums.before || fail "tpcheck wrote to a device"
ok tpstatus --noheadings -o pool_meta_health,pool_meta_legs mp
out_has "damaged .*ma.img(bad blocks),.*mb.img(in sync)"
# a writer that is refused writes nothing
unchanged 3 tvcreate -V 1M -n "bad/name" mp
unchanged 5 tvcreate -V 1M -n w mp
# tprepair rewrites them from leg 1: clean, legs equal, nothing lost
ok tprepair mp
out_has "rewrote 2 bad blocks of metadata mirror leg 0 (.*ma.img) from leg 1"
areas_equal ma.img mb.img || fail "the legs differ after tprepair"
ok tpcheck mp
ok tpstatus --noheadings -o pool_meta_health,pool_meta_legs mp
out_has "mirrored .*ma.img(in sync),.*mb.img(in sync)"
volumes_read "after tprepair"

# --- a writer reading a bad block rewrites it when it commits
restore
garbage ma.img "$leaf_w"
ok tvsnap mp/w -n w2
err_has "leg 0 (.*ma.img): 1 bad block rewritten from leg 1"
ok tpcheck mp
volumes_read "after the writer healed leg 0"

# --- leg 1 (never read while leg 0 is good): only the scrub sees it
restore
garbage mb.img "$leaf_v"
garbage mb.img "$leaf_w"
ok tpstatus --noheadings -o pool_meta_health mp
out_has mirrored	# not seen yet: no read touched leg 1
expect_rc 1 tpcheck mp
out_has "metadata mirror leg 1 (.*mb.img): 2 of [0-9]* blocks in use bad there"
out_has "next: run 'tprepair mp'"
ok tvcreate -V 1M -n more mp
ok tpstatus --noheadings -o pool_meta_health,pool_meta_legs mp
out_has "damaged .*ma.img(in sync),.*mb.img(bad blocks)"	# still, after a change
ok tpstatus --format prometheus mp
out_has 'tptools_pool_metadata_leg_bad_blocks{pool="mp",leg="1"} 2'
ok tprepair mp
out_has "rewrote 2 bad blocks of metadata mirror leg 1 (.*mb.img) from leg 0"
ok tpcheck mp
# the first leg lost: the healed second carries the pool alone
mv ma.img ma.away
volumes_read "leg 0 lost after leg 1 was healed"
mv ma.away ma.img

# --- the same block bad on both legs: the metadata's own damage (FATAL),
# salvaged from what remains; every volume reads back or is reported lost
restore
garbage ma.img "$leaf_w"
garbage mb.img "$leaf_w"
expect_rc 2 tpcheck mp
out_has "next: run 'tprepair mp' to salvage"

# --- reports survive a dead copy (TP_TEST_EIO: the test build's I/O errors
# on a byte range of a file): a whole leg, a leg's active area, a VG copy
# of the data device or of a leg returning EIO; tpstatus (table, JSON,
# Prometheus) and tpcheck report, degraded, instead of failing, and write
# nothing
restore
sums ./*.img >sums.before
for eio in "$PWD/ma.img" "$PWD/mb.img" "$PWD/ma.img@$off" "$PWD/mb.img@$off" \
	   "$PWD/d.img@4096+8192" "$PWD/ma.img@4096+8192"; do
	export TP_TEST_EIO=$eio
	ok tpstatus mp
	ok tpstatus --json mp
	ok tpstatus --format prometheus mp
	ok tpstatus --noheadings -o pool_meta_health mp
	case $eio in
	*@4096+8192) out_has "mirrored" ;;	# a VG copy: the other copies serve
	*) out_has "degraded" ;;
	esac
	expect_rc 1 tpcheck mp
	volumes_read "EIO on $eio"
	unset TP_TEST_EIO
	sums_same sums.before || fail "a reader wrote with EIO on $eio"
done
# --- one block in use that leg 0 cannot read (its device fails reads and
# writes there): read from leg 1, the leg stays in use for every other
# block (as md's raid1 keeps it); readers write nothing and say it; tpcheck
# says it unreadable (exit 1) and names --meta-replace; tprepair, whose
# rewrite the device refuses, fails naming --meta-replace and changes
# nothing; a writer whose rewrite fails commits on leg 1 alone and says
# that leg 0 is out; a resync onto that device then fails, naming
# --meta-replace, and --meta-replace puts the pool right
restore
export TP_TEST_EIO=$PWD/ma.img@$((off + leaf_v * 4096))+4096
sums ./*.img >sums.before
volumes_read "leg 0 fails a read of one block"
ok tpsend --format raw -o v.got mp/v
err_has "leg 0 (.*ma.img): 1 block bad there (unreadable there; the first at byte $((off + leaf_v * 4096)))"
expect_rc 1 tpcheck mp
out_has "leg 0 (.*ma.img): 1 of [0-9]* blocks in use bad there (1 unreadable; first: block $leaf_v)"
out_has "next: run 'tpchange --meta-replace DEV mp'"
ok tpstatus --noheadings -o pool_meta_health,pool_meta_legs mp
out_has "damaged .*ma.img(bad blocks),.*mb.img(in sync)"
sums_same sums.before || fail "a reader wrote with an unreadable block"
unchanged 5 tprepair mp
err_has "leg 0 (.*ma.img) failed while its bad blocks were rewritten"
err_has "tpchange --meta-replace DEV mp"
ok tvsnap mp/v -n s2
err_has "leg 0 (.*ma.img): 1 block bad there, and the leg failed (Input/output error): it is out of the mirror; put it on another device with 'tpchange --meta-replace DEV mp'"
unchanged 5 tprepair mp
err_has "cannot copy its thin metadata onto .*ma.img: Input/output error; the pool was not changed (that leg stays stale): put the leg on another device with 'tpchange --meta-replace DEV mp'"
image mc.img 16M
ok tpchange --meta-replace mc.img mp
unset TP_TEST_EIO
ok tpcheck mp
volumes_read "after the failing leg was replaced"
rm mc.img
restore
# each leg's label error is said once per command, not once per lookup
TP_TEST_EIO=$PWD/mb.img expect_rc 1 tpcheck mp
[ "$(grep -c 'mb.img: cannot read sector 1' err)" = 1 ] || { cat err >&2; fail "the label's error not said once"; }

# --- the integrity layout (tpcreate(8) --meta-integrity, tpchange(8)
# --meta-mirror): on by default for a mirror, its regions in the VG; n
# leaves it out; y without a mirror is a usage error that writes nothing;
# a mirror added later has it when both devices have room, else not, said;
# offline writers leave a new (zeroed) integrity superblock zeroed and zero
# one formatted another way (the kernel formats it anew)
ok tpstatus --noheadings -o pool_meta_integrity mp
out_has "^ *on"
grep -q 'integrity_offset' "$(backup_dir mp)"/*.vg || fail "no integrity regions in the VG"
image n-d.img 64M
image n-ma.img 16M
image n-mb.img 16M
ok tpcreate --data n-d.img --meta n-ma.img,n-mb.img --meta-integrity n np
ok tpstatus --noheadings -o pool_meta_integrity np
out_has "^ *none"
image o-d.img 64M
image o-m.img 16M
unchanged 3 tpcreate --data o-d.img --meta o-m.img --meta-integrity y op
err_has "goes with mirrored thin metadata"
ok tpcreate --data o-d.img --meta o-m.img --metadata-size 4M op
image o-m2.img 16M
ok tpchange --meta-mirror o-m2.img op
ok tpstatus --noheadings -o pool_meta_integrity,pool_meta_health op
out_has "on *mirrored"
usage_error tpchange --meta-integrity n op
ok tpcheck op
image q-d.img 64M
image q-m.img 16M
image q-m2.img 16M
ok tpcreate --data q-d.img --meta q-m.img qp
ok tpchange --meta-mirror q-m2.img qp
err_has "no room for dm-integrity's metadata"
ok tpstatus --noheadings -o pool_meta_integrity qp
out_has "none"
# the integrity superblocks: new ones stay zeros through a writer; one
# formatted another way (512-byte blocks) is zeroed by the next writer
bdir=$(backup_dir mp)
imeta=$(sed -n 's/^[[:space:]]*integrity_offset=\([0-9]*\)$/\1/p' "$bdir/$(ls "$bdir" | grep '\.vg$' | tail -1)" | head -1)
[ -n "$imeta" ] || fail "no integrity_offset"
restore
ok tvcreate -V 1M -n i1 mp
[ "$(dd if=ma.img bs=4096 skip=$((imeta / 4096)) count=1 status=none | tr -d '\0' | wc -c)" = 0 ] ||
	fail "a new integrity superblock was written"
printf 'integrt\0\003\000\004\000\001\000\000\000' | dd of=ma.img bs=1 seek="$imeta" conv=notrunc status=none
ok tvcreate -V 1M -n i2 mp
[ "$(dd if=ma.img bs=4096 skip=$((imeta / 4096)) count=1 status=none | tr -d '\0' | wc -c)" = 0 ] ||
	fail "an integrity superblock of another format was not zeroed"
ok tpcheck mp

# --- the same-place copy of another pool's leg: its thin superblock is
# valid, but not this pool's (another chunk size): the leg is stale, never
# read (every volume reads back), tpcheck says so (exit 1), a writer
# refused before its change writes nothing and says the leg stale, so does
# a no-op tpchange or tvchange, the next writer that commits resyncs it
# from the good leg
restore
image x-d.img 64M
image x-ma.img 16M
image x-mb.img 16M
ok tpcreate --data x-d.img --meta x-ma.img,x-mb.img --chunk 128K xp
ok tvcreate -V 8M -n xv xp
read -r xoff xlen < <(meta_area xp)
[ "$xoff" = "$off" ] || fail "the other pool's area is elsewhere ($xoff, not $off)"
dd if=x-mb.img of=mb.img bs=4096 skip=$((off / 4096)) seek=$((off / 4096)) \
	count=$((xlen / 4096)) conv=notrunc status=none
sums ./ma.img ./mb.img ./d.img >sums.before
volumes_read "leg 1 holds another pool's thin metadata"
expect_rc 1 tpcheck mp
out_has "leg 1 (.*mb.img) is stale (it holds thin metadata of another pool)"
sums_same sums.before || fail "a reader wrote to a device"
# a writer refused (the name is taken) resyncs nothing: it writes nothing
unchanged 5 tvcreate -V 1M -n w mp
err_lacks "resynced"
err_has "leg 1 (.*mb.img) is stale; this command changed nothing, so it left the leg as it was"
# so do a tpchange and a tvchange given what the pool has already (they
# commit nothing, tpchange(8)): no resync, the stale leg said once
for cmd in "tpchange --activate y mp" "tvchange --activate y mp/v"; do
	ok $cmd
	out_has ": nothing changed (every setting given is so already)\.$"
	err_lacks "resynced"
	[ "$(grep -c "leg 1 (.*mb.img) is stale; this command changed nothing" err)" = 1 ] ||
		{ cat err >&2; fail "'$cmd' did not say the stale leg once"; }
	sums_same sums.before || fail "'$cmd' wrote to a device"
done
ok tvcreate -V 1M -n after mp
err_has "leg 1 (.*mb.img) was stale (it holds thin metadata of another pool): resynced"
ok tpcheck mp
volumes_read "after the resync"

# leg 0 missed the last commit's writes behind a current superblock (its
# changed blocks hold what they held before: each still validates): the
# legs differ in blocks that validate on both. Leg 1's thin metadata is
# consistent alone, leg 0's is not: tpcheck says reads mix them (fatal),
# and tprepair takes leg 1's copies, not the first leg's, so both volumes
# read as they were written (never a volume turned to zeros, exit 0)
image lm-d.img 64M
image lm-a.img 16M
image lm-b.img 16M
ok tpcreate -q --data lm-d.img --meta lm-a.img,lm-b.img lm
head -c 4M /dev/urandom >lm-v.raw
ok tprecv -q --format raw -n v -i lm-v.raw lm
cp --sparse=always lm-a.img lm-a.old
head -c 2M /dev/urandom >lm-w.raw
ok tprecv -q --format raw -n w -i lm-w.raw lm
read -r loff _ < <(meta_area lm)
n=0
for b in $(cmp -l lm-a.old lm-a.img | awk -v o="$loff" '$1 > o + 4096 { print int(($1 - 1) / 4096) }' | uniq); do
	dd if=lm-a.old of=lm-a.img bs=4096 skip="$b" seek="$b" count=1 conv=notrunc status=none
	n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "the last commit changed no block behind the superblock"
sums ./lm-*.img >lm.sums
expect_rc 2 tpcheck lm
out_has "leg 1's thin metadata is consistent alone, leg 0's is not (reads mix the two: do not use the pool)"
out_has "next: run 'tprepair lm' to rewrite the metadata mirror's bad copies from the good leg"
sums_same lm.sums || fail "tpcheck wrote to a device"
# after that verdict a writer refuses the pool (its change would be made
# on the mixed legs); tprepair comes first
unchanged 5 tvcreate -V 1M -n x lm
err_has "its last check found that its metadata mirror's legs differ in .* blocks that validate on both and that reads mix them; nothing was changed: run 'tprepair lm' first"
ok tprepair lm
out_has "leg 0's thin metadata as it was is kept in .*/spare-"
out_has "leg 1's thin metadata was consistent alone, leg 0's was not: leg 1's active area was copied over leg 0's"
out_lacks "lost"
ok tpcheck lm
ok tvcreate -V 1M -n x lm
ok tpsend --format raw -o lm-v.out lm/v
cmp lm-v.out lm-v.raw || fail "volume v does not read as written after the repair"
ok tpsend --format raw -o lm-w.out lm/w
cmp lm-w.out lm-w.raw || fail "volume w does not read as written after the repair"

# the same with snapshots and more volumes after the moment leg 0 was
# left at (a walk of the mixed legs reaches only some of the blocks that
# differ): the consistent leg's whole active area is the truth
image ls-d.img 128M
image ls-a.img 16M
image ls-b.img 16M
ok tpcreate -q --data ls-d.img --meta ls-a.img,ls-b.img ls
for i in 1 2 3 4; do head -c $((i * 512))K /dev/urandom >ls-v$i.raw; done
ok tprecv -q --format raw -n v1 -i ls-v1.raw ls
ok tprecv -q --format raw -n v2 -i ls-v2.raw ls
ok tvsnap -q -n s1 ls/v1
ok tprecv -q --format raw -n v3 -i ls-v3.raw ls
cp --sparse=always ls-a.img ls-a.old
ok tprecv -q --format raw -n v4 -i ls-v4.raw ls
ok tvsnap -q -n s2 ls/v2
read -r loff _ < <(meta_area ls)
for b in $(cmp -l ls-a.old ls-a.img | awk -v o="$loff" '$1 > o + 4096 { print int(($1 - 1) / 4096) }' | uniq); do
	dd if=ls-a.old of=ls-a.img bs=4096 skip="$b" seek="$b" count=1 conv=notrunc status=none
done
expect_rc 2 tpcheck ls
ok tprepair ls
out_lacks "lost"
ok tpcheck ls
for i in 1 2 3 4; do
	ok tpsend --format raw -o ls-v$i.out ls/v$i
	cmp ls-v$i.out ls-v$i.raw || fail "volume v$i does not read as written after the repair"
done
