# SPDX-License-Identifier: GPL-2.0-or-later
# t-change-noop.sh - tpchange and tvchange given only what the pool or the
# volume has already (tpchange(8) "All options or none"): nothing written
# (devices byte-identical, no new VG backup), a line saying nothing
# changed, exit 0; one option that does change something still commits.
# On a pool with an interrupted change (a removal under way, a transaction
# cut between its commits) the open finishes it first, said before the
# line, which then says the options changed nothing. Without options
# they only show, with a reader's open: a stale VG copy is said (with the
# command that mends it), not rewritten; given options that change
# nothing, the line says the open rewrote it, not that it finished an
# interrupted change.
new_pool p --chunk 64k
ok tvcreate -V 4M -n v p
ok tpchange --warn 80 --autoextend-threshold 70 --autoextend-by 10 --autoextend-max 2G \
	--max-overprovision 5 --when-full error p
ok tvchange --readonly y --activate n p/v

# nothing_written CMD...: CMD exits 0, says nothing changed, writes nothing
nothing_written() {
	local n
	sums p-data.img p-meta.img >sums.before
	n=$(ls "$(backup_dir p)" | wc -l)
	ok "$@"
	sums_same sums.before || fail "'$*' wrote to the pool's devices"
	[ "$(ls "$(backup_dir p)" | wc -l)" = "$n" ] || fail "'$*' wrote a VG backup"
	grep -q ": nothing changed (every setting given is so already)\.$" out ||
		{ cat out err >&2; fail "'$*' does not say nothing changed"; }
}
nothing_written tpchange --warn 80 p
out_has "warn at 80%"
nothing_written tpchange --autoextend-threshold 70 --autoextend-by 10 --autoextend-max 2G p
nothing_written tpchange --max-overprovision 5 p
nothing_written tpchange --when-full error p
nothing_written tpchange --activate y p
nothing_written tpchange --systemid "" p
nothing_written tpchange --lock-type none p
nothing_written tpchange --warn 80 --when-full error --activate y p
nothing_written tvchange --readonly y p/v
out_has "Volume p/v: read-only y."
nothing_written tvchange --activate n --readonly y p/v

# without options: the settings, no "nothing changed" line
ok tpchange p
out_lacks "nothing changed"
ok tvchange p/v
out_lacks "nothing changed"

# one option that changes something: one commit, one backup, no such line
n=$(ls "$(backup_dir p)" | wc -l)
ok tpchange --warn 80 --when-full queue p
out_lacks "nothing changed"
out_has "when full queue"
[ "$(ls "$(backup_dir p)" | wc -l)" = $((n + 1)) ] || fail "the change wrote no backup"
ok tvchange --readonly n --activate n p/v
out_has "read-only n"
ok tpcheck p

# an interrupted removal, then a no-op: the finishing line first, then
# "nothing changed by the options given"; the pool was written (a backup)
ok tvcreate -V 4M -n r p
write_chunks p r 0 10
killed_at remove-step=1 env TP_TEST_REMOVE_STEP=4 tvremove -y p/r
n=$(ls "$(backup_dir p)" | wc -l)
ok tpchange --warn 80 p
err_has "finishing the interrupted removal of r"
out_has "^Pool p: nothing changed by the options given (every setting given is so already); the open finished the interrupted change said above\.$"
[ "$(ls "$(backup_dir p)" | wc -l)" -gt "$n" ] || fail "the finished removal wrote no backup"
# a transaction cut between its commits, then a no-op tvchange
ok tvcreate -V 4M -n c p
killed_at after-vg-commit tvremove -y p/c
ok tvchange --readonly n p/v
err_has "transaction [0-9]* had been interrupted; it is now complete"
out_has "^Volume p/v: nothing changed by the options given (every setting given is so already); the open finished the interrupted change said above\.$"
ok tpcheck p
# the pool clean again: a no-op writes nothing and says it plainly
nothing_written tpchange --warn 80 p
nothing_written tvchange --readonly n p/v

# one device's VG copy stale (its image put back from before a change)
cp --sparse=always p-data.img stale.img
ok tpchange --warn 85 p
cp --sparse=always stale.img p-data.img
# shown_only CMD...: CMD exits 0, writes no device byte and no backup, and
# says the stale copy with the command that mends it
shown_only() {
	sums p-data.img p-meta.img "$(backup_dir p)"/* >sums.before
	ok "$@"
	sums_same sums.before || fail "'$*' (no option) wrote to the devices or the backups"
	[ "$(sums "$(backup_dir p)"/* | wc -l)" = "$(($(wc -l <sums.before) - 2))" ] ||
		fail "'$*' (no option) wrote a VG backup"
	err_has "pool p: one VG metadata copy is stale or damaged; the next change to the pool, or 'tprepair p', rewrites it"
	err_lacks "was rewritten"
	out_lacks "nothing changed"
}
shown_only tpchange p
out_has "warn at 85%"
shown_only tvchange p/v
out_has "Volume p/v: read-only n."
# an option that changes nothing: the open rewrites the stale copy, and
# the line says so (no interrupted change was finished)
n=$(ls "$(backup_dir p)" | wc -l)
ok tpchange --warn 85 p
err_has "a stale or damaged VG metadata copy was rewritten"
out_has "^Pool p: nothing changed by the options given (every setting given is so already); the open rewrote the stale or damaged VG metadata copy said above\.$"
out_lacks "interrupted"
[ "$(ls "$(backup_dir p)" | wc -l)" = $((n + 1)) ] || fail "the rewrite wrote no backup"
ok tp-vgtool slots p-data.img p-meta.img
out_has "needs_repair=0"
cp --sparse=always stale.img p-data.img
ok tvchange --readonly n p/v
out_has "^Volume p/v: nothing changed by the options given (every setting given is so already); the open rewrote the stale or damaged VG metadata copy said above\.$"
ok tpcheck p
nothing_written tpchange --warn 85 p
