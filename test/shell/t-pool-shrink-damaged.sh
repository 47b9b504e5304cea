# SPDX-License-Identifier: GPL-2.0-or-later
# tpreduce --size on damaged thin metadata (tpreduce(8), "Shrinking the
# data area"): which chunks beyond the new end are in use is decided by
# the mappings. A leaked count there (counted, mapped by no volume: what
# tpcheck calls non-fatal) is no reason to fail: the shrink says the
# rebuild drops it, the pool ends clean and every volume reads the same.
# A count below the mappings (a fatal check, which the fast guard does not
# see) is refused before anything moves, exit 5, naming tprepair, every
# image unchanged, and --test says the same. Repaired, its damaged copy
# that tprepair leaves in the spare area is kept in a file (exactly once)
# through shrinks killed after their rebuild into the spare and run again.
# A held metadata snapshot is refused naming the offline way and the real
# dm name; a label that cannot be written after the commit gets no advice
# to cut the device (run the command again instead).
chunk=65536
DATA_SIZE=32M META_SIZE=16M new_pool p --chunk 64K
# a and b fill chunks 0..255, c lies beyond; a and b removed
for v in a b c; do
	head -c 8M /dev/urandom >$v.raw
	ok tprecv --format raw -n $v p <$v.raw
done
ok tvremove -y p/a
ok tvremove -y p/b
tpsend --format raw p/c | md5sum >want
save_area p good.img

# a leak at the end of the area (beyond the new end)
cp good.img a.img
leaked=$(tp-damage a.img leak data)
[ "$leaked" -ge 256 ] || fail "the leak is at chunk $leaked, below the new end"
load_area p a.img
expect_rc 1 tpcheck p
md5sum ./*.img >sums.before
ok tpreduce --test --size 16M p
err_has "1 chunk beyond the new end is counted in use but mapped by no volume"
md5sum ./*.img >sums.after
cmp -s sums.before sums.after || fail "tpreduce --test changed a device"
ok tpreduce --size 16M p
err_has "the rebuild of the thin metadata drops it"
out_has "data area shrunk from 31 MiB to 16 MiB"
ok tpcheck p
tpsend --format raw p/c | md5sum >got
cmp -s want got || fail "volume c reads other bytes after the shrink"
ok tpreduce --size 16M p
out_has "nothing to do"

# a count below the mappings: refused before anything moves (and --test)
DATA_SIZE=32M META_SIZE=16M new_pool q --chunk 64K
for v in a b c; do
	ok tprecv --format raw -n $v q <$v.raw
done
ok tvremove -y q/a
ok tvremove -y q/b
save_area q b.img
ok tp-damage b.img count data 300 0
load_area q b.img
expect_rc 2 tpcheck q
unchanged 5 tpreduce --test --size 16M q
err_has "its thin metadata is damaged"
err_has "'tprepair q'"
unchanged 5 tpreduce --size 16M q
err_has "nothing was changed"
err_has "'tprepair q'"
grep -q "internal error" err && fail "damaged input reported as a bug"

# tprepair q: the damaged area stays in the spare; shrinks killed after
# their rebuild into the spare, run again and again, keep that copy (the
# rebuild they find there again is kept once; no copy is overwritten)
ok tprepair q
ok tpcheck q
bdir=$(backup_dir q)
for i in 1 2 3 4 5; do
	killed_at xdata-rebuilt tpreduce --size 16M q
done
n=$(ls "$bdir" | grep -c '^spare-')
[ "$n" -le 2 ] || fail "$n copies kept after the killed shrinks, not the damaged one and one rebuild"
found=
for f in "$bdir"/spare-*; do
	cmp -s "$f" b.img && found=$f
done
[ -n "$found" ] || fail "the damaged copy tprepair set aside is lost"
ok tpreduce --size 16M q
err_has "is kept in $bdir/spare-"
out_has "data area shrunk from 31 MiB to 16 MiB"
ok tpcheck q
cmp -s "$found" b.img || fail "the damaged copy changed"
tpsend --format raw q/c | md5sum >got
cmp -s want got || fail "volume c of q reads other bytes after the shrink"

# a held metadata snapshot: refused before the warn-threshold warning,
# naming the real dm name of the pool ('-' doubled) and the offline way,
# which works: tprepair --force drops the snapshot, the volumes keep
# their content, and the shrink goes through
DATA_SIZE=32M META_SIZE=16M new_pool h-s --chunk 64K
ok tprecv --format raw -n c h-s <c.raw
ok tpchange --warn 10 h-s
save_area h-s m.img
tp-thinmap --reserve-snap m.img || fail "tp-thinmap --reserve-snap failed"
load_area h-s m.img
for t in "" --test; do
	unchanged 5 tpreduce $t --size 16M h-s
	err_has "holds a metadata snapshot"
	err_has "'tprepair --force h-s'"
	err_has "'dmsetup message h--s-tpool 0 release_metadata_snap'"
	grep -q "warn threshold" err && fail "the warn-threshold warning came before the refusal"
done
unchanged 5 tptrim h-s
err_has "'dmsetup message h--s-tpool 0 release_metadata_snap'"
ok tprepair --force h-s
out_has "lost: the metadata snapshot"
tpsend --format raw h-s/c | md5sum >got
cmp -s want got || fail "volume c of h-s reads other bytes after tprepair --force"
ok tpreduce --size 16M h-s
err_has "warn threshold of 10%"
tpsend --format raw h-s/c | md5sum >got
cmp -s want got || fail "volume c of h-s reads other bytes after the shrink"
ok tpcheck h-s

# the label of the last device cannot be written after the VG commit
# (TP_TEST_FAIL=shrink-label): committed, exit 0 with a warning; no advice
# to cut the device, but to run the command again, which rewrites it
DATA_SIZE=32M META_SIZE=16M new_pool l --chunk 64K
ok tprecv --format raw -n c l <c.raw
expect_rc 0 env TP_TEST_FAIL=shrink-label tpreduce --size 16M l
err_has "still records the old data range: do not shrink that device yet; run 'tpreduce --size 16384K l' again"
out_has "the label of .*l-data.img lags; run 'tpreduce --size 16384K l' again"
grep -q "truncate" out && fail "the advice to cut the device came with a label that lags"
ok tpreduce --size 16384K l
out_has "nothing to do"
out_has "15 MiB (15728640 bytes) at the end of .*l-data.img"
grep -q ") (" out && fail "double brackets in: $(cat out)"
ok tpcheck l
tpsend --format raw l/c | md5sum >got
cmp -s want got || fail "volume c of l reads other bytes"
