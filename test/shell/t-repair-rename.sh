# SPDX-License-Identifier: GPL-2.0-or-later
# t-repair-rename.sh - tprepair --restorefile of a backup older than a
# tvrename (tprepair(8) "renamed volumes"): every volume whose name the
# restore changes is named, NOW -> RESTORED; names swapped since (a name
# the newer backup gives another volume's data) are refused without
# --force (exit 5, devices unchanged, the newest backup that agrees
# named), and restored with it as volumes that read something else (4).
new_pool p --chunk 64k
ok tvcreate -V 4M -n a p
ok tvcreate -V 4M -n b p
write_chunks p a 0 2
a_sum=$(tpsend --format raw p/a | md5sum)
old=$(ls "$(backup_dir p)"/*.vg | tail -1)
lose_vg() { for f in p-data.img p-meta.img; do dd if=/dev/zero of=$f bs=1M count=1 conv=notrunc status=none; done; }

# a plain rename: restored under the old name, said, exit 0
ok tvrename p/a c
lose_vg
ok tprepair p --restorefile "$old" --devices p-data.img,p-meta.img
err_has "pool p: volume c (thin device 0) is renamed by the restore: c -> a (c in the newer backup "
err_has "the restore renames 1 volume back to the names of the backup"
err_lacks "error"
ok tpcheck p
[ "$(tpsend --format raw p/a | md5sum)" = "$a_sum" ] || fail "a's data is not under a"

# names swapped since: refused, nothing written
ok tvrename p/a t
ok tvrename p/b a
ok tvrename p/t b
new=$(ls "$(backup_dir p)"/*.vg | tail -1)
lose_vg
sums p-data.img p-meta.img >sums.before
failed tprepair p --restorefile "$old" --devices p-data.img,p-meta.img
err_has "volume b (thin device 0) is renamed by the restore: b -> a"
err_has "volume a (thin device 1) is renamed by the restore: a -> b"
err_has "gives the names a, b to other volumes' data than"
err_has "nothing was written; 'tprepair p --restorefile $new --devices p-data.img,p-meta.img' restores the newest backup that agrees"
sums_same sums.before || fail "a refused restore wrote"
# the advised one keeps the names of now: nothing renamed
ok tprepair p --restorefile "$new" --devices p-data.img,p-meta.img
err_lacks "renamed"
err_lacks "error"
[ "$(tpsend --format raw p/b | md5sum)" = "$a_sum" ] || fail "a's data is not under b"

# --force restores the old names: the swapped names reread, exit 4
lose_vg
expect_rc 4 tprepair p --force --restorefile "$old" --devices p-data.img,p-meta.img
err_has "2 volumes now read something else than before the repair: a, b"
[ "$(tpsend --format raw p/a | md5sum)" = "$a_sum" ] || fail "a's data is not under a"
ok tpcheck p
