# SPDX-License-Identifier: GPL-2.0-or-later
# tvrollback: a volume's content and size become its snapshot's (the
# snapshot kept), checked by raw exports against images written at the
# mapped offsets; a crash between the VG commit and the thin commit is
# completed from the VG; refusals change nothing; tpcheck and thin_check
# stay clean.
have tp-thinmap || fail "tp-thinmap not built (make tests)"
DATA_SIZE=256M
new_pool rb --chunk 64k
ok tvcreate -V 4M -n a rb
origin() { vol_field rb "$1" vol_origin; }
write() { write_chunks rb "$@"; }
raw_is() {
	tpsend --format raw -o got.raw "rb/$1" >/dev/null || fail "tpsend --format raw rb/$1 failed"
	cmp got.raw "$2" || fail "rb/$1 does not hold $2"
}
truncate -s 4M a.want
write a 0 4
write a 30 2
cp a.want s1.want
ok tvsnap rb/a -n s1
write a 1 2
write a 50 3
ok tvsnap rb/a -n s2
cp a.want s2.want
write a 60 1
raw_is a a.want
raw_is s1 s1.want

# roll back to s1: a's content is s1's, s1 and s2 are kept as they were
old=$(vol_dev_id rb a)
ok tvrollback rb/a --to s1
out_has "Volume rb/a rolled back to snapshot s1."
out_lacks "size changed"
raw_is a s1.want
raw_is s1 s1.want
raw_is s2 s2.want
[ "$(vol_dev_id rb a)" != "$old" ] || fail "a kept its thin device id"
[ "$(origin a)" = s1 ] || fail "a is not recorded as a snapshot of s1"
[ -z "$(origin s1)" ] || fail "s1 did not take a's former origin (none)"
[ "$(origin s2)" = a ] || fail "s2 lost its origin"
[ "$(thin_devices rb)" = 3 ] || fail "the old thin device of a was not deleted"
ok tpcheck rb
thin_check_pool rb
# the rolled-back volume is writable and independent of s1
cp s1.want a.want
write a 2 1
raw_is a a.want
raw_is s1 s1.want

# a deeper snapshot, and its size: a grows, then rolls back to s3 (of s2)
ok tvsnap rb/s2 -n s3
cp s2.want s3.want
ok tvresize -V 8M rb/a
ok tvrollback rb/a --to s3
out_has "Its size changed from 8 MiB to 4 MiB, the snapshot's."
raw_is a s3.want
[ "$(origin a)" = s3 ] || fail "a is not recorded as a snapshot of s3"
[ "$(origin s2)" = s1 ] || fail "s2 did not take a's former origin"
ok tpcheck rb
thin_check_pool rb

# s2 is no longer a snapshot of a (s3 was, through it) but of a's family:
# a crash after the VG commit, before the thin commit: the next change
# completes the rollback from the VG (a snapshot of s2 at a's new id)
save_area rb before.area
ok tvrollback rb/a --to s2
load_area rb before.area
ok tvcreate -V 1M -n z rb
err_has "completed the interrupted removal of thin device"
err_has "completed the interrupted creation of snapshot a"
raw_is a s2.want
raw_is s2 s2.want
ok tpcheck rb
thin_check_pool rb

# refusals: exit codes as documented, nothing changed
unchanged 3 tvrollback rb/a
err_has "--to SNAP is required"
# -t is --test wherever a command has one: not --to (tvrollback has none)
unchanged 3 tvrollback -t s1 rb/a
unchanged 3 tvrollback rb --to s1
unchanged 3 tvrollback rb/a --to a
unchanged 3 tvrollback rb/a --to z
err_has "z is not a snapshot of a's family"
unchanged 3 tvrollback rb/z --to s1
unchanged 5 tvrollback rb/a --to nope
err_has "no volume nope"
unchanged 5 tvrollback rb/nope --to s1
unchanged 5 tvrollback nopool/a --to s1
ok tvsnap rb/a -n s4
ok tvchange --readonly y rb/a
unchanged 5 tvrollback rb/a --to s4
err_has "tvchange --readonly n rb/a"
ok tvchange --readonly n rb/a
ok tvrollback -q rb/a --to s4
[ ! -s out ] || fail "-q printed a summary"
raw_is a s2.want
ok tpcheck rb
thin_check_pool rb
