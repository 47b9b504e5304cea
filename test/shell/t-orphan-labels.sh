# SPDX-License-Identifier: GPL-2.0-or-later
# Orphan labels (tptools(7) ORPHAN LABELS): a device whose label carries a
# pool's uuid while the pool's VG does not name it.
# - A tpreduce --data killed after its VG commit, and a tpextend --data
#   killed before its VG commit, each leave one: the pool reads the same;
#   tpcheck reports it (exit 1) with a next: line naming tprepair, tpstatus
#   warns and fills pool_orphans, --devices-report lists it (state
#   orphan); tpcreate without --force refuses it as an orphan of the pool,
#   naming 'tpremove --label', never 'tpremove POOL' (the healthy pool's
#   removal), byte for byte; tpextend --data of another pool says the
#   same; the pool's next change wipes it (label, VG area, devices-file
#   entry) and says so in one line; tpremove --label wipes one (after its
#   question), tpcreate --force takes one (its old entry gone).
# - A member (data device 2 of a pool) is refused by tpcreate --force and
#   by tpremove --label --force, naming tpreduce --data and tpremove,
#   byte for byte.
# - A label of a pool that is gone (nothing else of it known) is wiped by
#   tpremove --label; one whose pool is known but incomplete, and a
#   damaged label, only with --force; a device without a label: exit 5.
# - A device whose own VG copy names it and is newer than the pool's
#   (the pool's devices restored from older images) is no orphan:
#   tpcheck says so (fatal), writers refuse byte for byte, nothing wipes
#   it.
# - --devices naming data device 2 is refused naming its place, never
#   claiming a tpreduce took it away.
place() { od -An -tu4 -j $((512 + 124)) -N4 "$1" | tr -d ' '; }
label_wiped() { cmp -s -n 512 <(dd if="$1" bs=512 skip=1 count=1 status=none) /dev/zero; }

image d.img 64M
image m.img 16M
image x.img 32M
image y.img 32M
image n.img 16M
ok tpcreate --data d.img --meta m.img --chunk 64K mv
head -c 8M /dev/urandom >v.want
ok tprecv --format raw -n v mv <v.want
ok tpextend --data x.img mv

# a member: refused by tpcreate even with --force, and by tpremove --label
# even with --force, naming what frees it and never a wipe of the pool
unchanged 5 tpcreate --force -y --data x.img --meta n.img other
err_has "x.img belongs to pool mv (its data device 2: its VG names it)"
err_has "'tpreduce --data x.img mv'"
err_has "only if pool mv and its volumes are no longer needed, remove it with 'tpremove mv'"
unchanged 5 tpremove --label --force -y x.img
err_has "x.img belongs to pool mv (its data device 2"
unchanged 5 tpremove --label -y n.img
err_has "n.img carries no tptools label"

# --devices naming data device 2: refused naming its place, and no claim
# of a tpreduce that never ran
unchanged 5 tvcreate --devices x.img,m.img -V 1M -n w mv
err_has "is its data device 2, not its first"
err_lacks "tpreduce"

# 1. a tpreduce --data killed after its VG commit
ok tpmove --from x.img mv
killed_at xdata-dropped tpreduce --data x.img mv
[ "$(place x.img)" = 1 ] || fail "the kill left no label on x.img"
grep -q x.img etc/devices || fail "the kill dropped the devices-file entry already"
rm -f v.got
ok tpsend --format raw -o v.got mv/v
cmp v.want v.got || fail "volume v reads other bytes after the cut"
expect_rc 1 tpcheck mv
out_has "$PWD/x.img: orphan label (data device): the pool's VG does not name it; it was taken away"
out_has "next: run 'tprepair mv' to wipe the orphan label of $PWD/x.img (or 'tpremove --label $PWD/x.img')"
ok tpstatus mv
err_has "$PWD/x.img carries an orphan label of the pool"
err_has "'tpremove --label $PWD/x.img'"
ok tpstatus --noheadings -o pool_orphans mv
[ "$(awk 'NF { print $1 }' out)" = "$PWD/x.img" ] || fail "pool_orphans: $(cat out)"
ok tpstatus --noheadings --devices-report mv
grep -q "^mv  *-  *- .* orphan  *$PWD/x.img$" out || fail "no orphan row: $(cat out)"
[ "$(grep -c ' data ' out)" = 1 ] || fail "the orphan counted as a data device: $(cat out)"
# tpcreate: an orphan of pool mv, not a member; nothing written
unchanged 5 tpcreate -y --data x.img --meta n.img other
err_has "x.img carries an orphan label of pool mv"
err_has "not a device of it"
err_has "'tpremove --label x.img' wipes the label, or add --force"
err_lacks "'tpremove mv'"
err_lacks "belongs to pool mv"
# tpextend --data of another pool: the same words
ok tpcreate --data y.img --meta n.img --chunk 64K other
image z.img 16M
unchanged 5 tpextend --data x.img other
err_has "x.img carries an orphan label of pool mv"
err_has "'tpremove --label $PWD/x.img'"
err_lacks "'tpremove mv'"
# the pool's next change finishes the cut: label and VG area wiped, the
# devices-file entry dropped, one line
ok tvcreate -V 1M -n w mv
err_has "pool mv: wiped the orphan label on $PWD/x.img (a data device the pool let go"
[ "$(grep -c 'wiped the orphan label' err)" = 1 ] || fail "not one line: $(cat err)"
label_wiped x.img || fail "the next writer left the label of x.img"
! grep -q x.img etc/devices || fail "the devices file still lists x.img"
ok tpcheck mv
out_has clean
ok tpstatus --noheadings -o pool_orphans mv
[ "$(awk 'NF { print $1 }' out)" = "-" ] || fail "pool_orphans after the wipe: $(cat out)"

# 2. a tpextend --data killed before its VG commit: an orphan being added
killed_at xdata-labelled tpextend --data x.img mv
grep -q x.img etc/devices || fail "the killed tpextend did not record x.img"
expect_rc 1 tpcheck mv
out_has "x.img: orphan label (data device): the pool's VG does not name it; it was being added"
unchanged 5 tpcreate -y --data x.img --meta z.img third
err_has "x.img carries an orphan label of pool mv (a data device being added"
# tpremove --label: asks (refused without a terminal), then wipes it
unchanged 5 tpremove --label x.img </dev/null
err_has "refusing to ask a question without a terminal"
ok tpremove --label -y x.img
out_has "Label of pool mv wiped on x.img."
label_wiped x.img || fail "tpremove --label left the label of x.img"
! grep -q x.img etc/devices || fail "the devices file still lists x.img"
ok tpcheck mv
out_has clean

# tpcreate --force takes an orphan (with a warning), its old entry gone
killed_at xdata-labelled tpextend --data x.img mv
old=$(tp-vgtool label x.img | sed -n 's/^pv_uuid=//p')
ok tpcreate --force -y --data x.img --meta z.img third
err_has "x.img carries an orphan label of pool mv .*; taking it anyway (--force)"
! grep -q "$old" etc/devices || fail "the orphan's devices-file entry stayed"
ok tpcheck mv
out_has clean
ok tpremove -y third

# 3. the label of a pool that is gone: nothing else of it is known here
image g.img 16M
image gm.img 16M
ok tpcreate --data g.img --meta gm.img --chunk 64K gone
rm gm.img
sed -i '/^gone /d' etc/devices
unchanged 5 tpcreate -y --data g.img --meta z.img fourth
err_has "g.img carries the label of pool gone, of which no other device is found"
err_has "'tpremove --label g.img'"
ok tpremove --label -y g.img
label_wiped g.img || fail "tpremove --label left the label of g.img"
# one whose pool is known but incomplete: --force only
image h.img 16M
image hm.img 16M
ok tpcreate --data h.img --meta hm.img --chunk 64K half
mv h.img h.away
unchanged 5 tpremove --label -y hm.img
err_has "whether it is a device of the pool cannot be told"
err_has "'tpremove --label --force $PWD/hm.img'\|'tpremove --label --force hm.img'"
ok tpremove --label --force -y hm.img
label_wiped hm.img || fail "tpremove --label --force left the label of hm.img"
mv h.away h.img
# a damaged label (checksum broken): --force only
printf '\xff' | dd of=h.img bs=1 seek=$((512 + 100)) conv=notrunc status=none
unchanged 5 tpremove --label -y h.img
err_has "carries a damaged tptools label"
ok tpremove --label --force -y h.img
label_wiped h.img || fail "tpremove --label --force left the damaged label"
sed -i '/^half /d' etc/devices

# 4. a device whose own VG copy names it and is newer than the pool's:
# the pool's devices restored from images older than the tpextend that
# added it. No orphan: reported fatal, writers refuse, nothing wipes it.
image a.img 64M
image am.img 16M
image ax.img 32M
ok tpcreate --data a.img --meta am.img --chunk 64K ap
cp --sparse=always a.img a.old
cp --sparse=always am.img am.old
ok tpextend --data ax.img ap
cp --sparse=always a.old a.img
cp --sparse=always am.old am.img
expect_rc 2 tpcheck ap
out_has "ax.img holds VG metadata seqno .* of the pool, which names it"
unchanged 5 tvcreate -V 1M -n w ap
err_has "holds the pool's VG metadata seqno"
unchanged 5 tprepair ap
unchanged 5 tpremove --label --force -y ax.img
err_has "no orphan, but the devices pool ap was found on are behind its state"
[ "$(place ax.img)" = 1 ] || fail "the newer device lost its label"
