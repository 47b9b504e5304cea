# SPDX-License-Identifier: GPL-2.0-or-later
# Read-only volumes: tvsnap --readonly and tvchange --readonly y|n record
# the flag in the VG (one commit, kept across commands and in the
# backup); tvchange prints it; an offline writer of the volume's content
# (a forced shrink over mapped data) refuses a read-only volume and
# changes nothing; writable again, the same shrink works.
have tp-thinmap || fail "tp-thinmap not built (make tests)"
DATA_SIZE=256M
new_pool ro --chunk 64k
ok tvcreate -V 8M -n a ro
save_area ro area.img
tp-thinmap area.img 0 100 10 >/dev/null || fail "tp-thinmap failed"
load_area ro area.img

ok tvsnap --readonly ro/a -n s1
out_has "Snapshot ro/s1 of a created, read-only."
ok tvchange ro/s1
out_has "Volume ro/s1: activate y."
out_has "Volume ro/s1: read-only y."
ok tvchange ro/a
out_has "Volume ro/a: read-only n."
last=$(ls "$(backup_dir ro)"/*.vg | tail -1)
awk '/^\t\ts1 \{/ { on = 1 } on && /read_only=1/ { found = 1 } on && /^\t\t\}/ { on = 0 }
	END { exit !found }' "$last" || fail "the backup lacks s1's read_only=1"

ok tvchange --readonly y ro/a
out_has "Volume ro/a: read-only y."
out_lacks "activate"
ok tvchange -r y ro/a
out_has "Volume ro/a: read-only y."
# writable again: its content uuid (the base incremental streams name)
# goes, with a warning
uuid=$(tpstatus --noheadings -o vol_content_uuid ro/a | tr -d ' ')
[ -n "$uuid" ] || fail "a read-only volume has no content uuid"
ok tvchange --readonly No ro/a
out_has "Volume ro/a: read-only n."
err_has "warning: pool ro: volume a dropped its content uuid $uuid: tprecv no longer accepts incremental streams based on it"
[ -z "$(tpstatus --noheadings -o vol_content_uuid ro/a | tr -d ' ')" ] || fail "content uuid kept"
# a writable volume made writable: nothing to warn about
ok tvchange --readonly n ro/a
[ ! -s err ] || fail "warned on a volume without a content uuid: $(cat err)"
ok tvchange --readonly yes ro/a
out_has "Volume ro/a: read-only y."

# a read-only volume's content is not changed offline
unchanged 5 tvresize -y --force -V 4M ro/a
err_has "volume a is read-only"
err_has "tvchange --readonly n ro/a"
# growing and shrinking over nothing mapped are no content change
ok tvresize -V 16M ro/a
ok tvresize -V 8M ro/a

ok tvchange --readonly n -a n ro/a
out_has "Volume ro/a: activate n."
out_has "Volume ro/a: read-only n."
ok tvresize -y --force -V 4M ro/a
out_has "beyond the new end dropped"
ok tvchange ro/s1
out_has "read-only y."

# refusals
unchanged 3 tvchange --readonly maybe ro/a
err_has "--readonly takes y or yes, n or no"
unchanged 3 tvsnap --readonly=y ro/a -n s2
unchanged 5 tvchange --readonly y ro/nope
unchanged 3 tpchange --readonly y ro
