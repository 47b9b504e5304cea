# SPDX-License-Identifier: GPL-2.0-or-later
# t-trash.sh - the trash (tvremove(8) "The trash", tptools(7) THE TRASH):
# the retention (tpchange, tpcreate, tptools.conf's create/trash_retention;
# off by default: tvremove frees at once); with it on, tvremove moves a
# volume to the trash: no volume, not sent, no receive's base, its name
# free, its space held (tpstatus's notice, --trash, Prometheus); the undo
# brings it back byte-identical (under its name, or --name when the name
# was taken again; refused above the over-provisioning limit); --purge and
# --now free the space; bad input changes nothing; every step killed at
# each of its pauses and run again finishes (or says the pool's last
# change did it), tpcheck clean; tpmonitor purges the oldest entries of a
# pool at its autoextend threshold and expired ones, logging each.
new_pool p --chunk 64k
ok tvcreate -V 4M -n a p
write_chunks p a 0 10
a_sum=$(tpsend --format raw p/a | md5sum)
ok tpstatus --units b --nosuffix -o pool_data_used --noheadings p
used_before=$(tr -d ' ' <out)

# retention off (the default): tvremove removes at once, as it always did
ok tpchange p
out_lacks "trash retention"
usage_error tpchange --trash-retention 1.5h p
err_has "takes a duration"
usage_error tpchange --trash-retention 11y p
usage_error tpchange --trash-retention 3651d p
err_has "longer than ten years (3650d)"
usage_error tpchange --trash-retention 0 p
err_has "write off to turn it off"
usage_error tpchange --trash-retention 0s p
ok tpchange --trash-retention 12h p
out_has "^Pool p: trash retention 12h"

# tptools.conf's create/trash_retention is a new pool's retention (a bad
# value is refused with the file's line), --trash-retention overrides it
cat >"$TPTOOLS_DIR/tptools.conf" <<'CONF'
create {
	trash_retention = "2d"
}
CONF
DATA_SIZE=64M META_SIZE=8M new_pool c1
ok tpchange c1
out_has "^Pool c1: trash retention 2d "
DATA_SIZE=64M META_SIZE=8M new_pool c2 --trash-retention off
ok tpchange c2
out_lacks "trash retention"
echo 'create { trash_retention = "2x" }' >"$TPTOOLS_DIR/tptools.conf"
image c3-data.img 64M
image c3-meta.img 8M
unchanged 3 tpcreate --data c3-data.img --meta c3-meta.img c3
err_has "create/trash_retention"
rm -f "$TPTOOLS_DIR/tptools.conf"

# into the trash: no volume, name free, data kept
ok tvremove p/a
out_has "^Volume p/a moved to the trash of pool p (kept 12h): 'tvremove --undo p/a' brings it back, 'tvremove --purge p/a' frees its space now\.$"
ok tpstatus p
out_lacks " a "
err_has "pool p: its trash holds 1 volume mapping 640 KiB of its data ('tpstatus --trash p' lists them, 'tvremove --purge p' frees the space)"
ok tpstatus --units b --nosuffix -o pool_data_used --noheadings p
[ "$(tr -d ' ' <out)" = "$used_before" ] || fail "the trash gave space back"
ok tpcheck p
failed tpsend --format raw p/a
err_has "pool p has no volume a: a volume of that name is in its trash ('tvremove --undo p/a' brings it back)"
# nothing activates, renames, snapshots or resizes it by its name
for cmd in "tpactivate p a" "tvrename p/a b" "tvsnap p/a -n s" "tvresize -V 8M p/a"; do
	unchanged 5 $cmd
	err_has "pool p has no volume a"
done
ok tpstatus --format prometheus p
grep -qx 'tptools_pool_trash_volumes{pool="p"} 1' out || { cat out >&2; fail "no trash count"; }
grep -qx 'tptools_pool_trash_bytes{pool="p"} 655360' out || { cat out >&2; fail "no trash bytes"; }
ok tpstatus --trash --units k p
out_has "^Pool  *Volume  *DevId  *Size  *Mapped  *Exclusive  *Age  *Expires"
# its size, the 10 chunks it maps (all its own), its expiry within 12h
awk '$1 == "p" && $2 == "a" && $4 == "4096k" && $5 == "640k" && $6 == "640k" &&
     ($8 == "12h" || $8 == "11h") { found = 1 } END { exit !found }' out ||
	{ cat out >&2; fail "tpstatus --trash: no line for a"; }

# its name's entries only with POOL/VOLUME; every pool without an argument;
# a table of its own
ok tpstatus --trash --noheadings p/nope
[ ! -s out ] || fail "tpstatus --trash p/nope listed $(cat out)"
ok tpstatus --trash --noheadings
out_has "^p  *a "
usage_error tpstatus --trash -o pool_name p
usage_error tpstatus --trash --nameprefixes p
usage_error tpstatus --trash --format prometheus p
# for scripts: --separator and --nosuffix (no padding, no unit, the time
# without a space), and --json with every size in bytes
ok tpstatus --trash --noheadings --units b --nosuffix --separator , p
grep -Eqx 'p,a,[0-9]+,4194304,655360,655360,[^,]+,(12h|11h),[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z' out ||
	{ cat out >&2; fail "tpstatus --trash --separator , --nosuffix: not one plain line for a"; }
ok tpstatus --trash --json p
python3 -c '
import json, sys, time
d = json.load(open("out"))["trash"]
assert len(d) == 1, d
e = d[0]
assert (e["pool"], e["volume"], e["size"], e["mapped"], e["exclusive"], e["state"]) == \
	("p", "a", 4194304, 655360, 655360, "kept"), e
assert e["expires_at"] - e["trashed_at"] == 12 * 3600, e
assert abs(e["trashed_at"] - time.time()) < 3600, e
' || { cat out >&2; fail "tpstatus --trash --json"; }

# undo: byte-identical
ok tvremove --undo p/a
out_has "^Volume p/a is back from the trash\.$"
[ "$(tpsend --format raw p/a | md5sum)" = "$a_sum" ] || fail "undo changed a's data"
ok tpcheck p

# the name taken again: undo needs --name
ok tvremove p/a
ok tvcreate -V 1M -n a p
unchanged 5 tvremove --undo p/a
err_has "has a volume named a again"
err_has "tvremove --undo --name NEWNAME p/a"
unchanged 5 tvremove --undo --name a p/a
unchanged 5 tvremove --undo p/nope
err_has "has no volume named nope in its trash"
unchanged 3 tvremove --undo --name 'x/y' p/a
unchanged 3 tvremove --name b p/a
unchanged 3 tvremove --undo --purge p/a
unchanged 3 tvremove --undo --now p/a
unchanged 3 tvremove --purge --wipe p/a
unchanged 3 tvremove --undo --name b p/a p/a
ok tvremove --undo --name a2 p/a
out_has "^Volume p/a is back from the trash as p/a2\.$"
[ "$(tpsend --format raw p/a2 | md5sum)" = "$a_sum" ] || fail "undo as a2 changed the data"

# --now: at once; --purge: frees the space
ok tvremove --now p/a
out_has "^Volume p/a removed\.$"
ok tvremove p/a2
failed tvremove --purge p/nope
ok tvremove --purge p/a2
out_has "^Purged 1 trash entry of p/a2\.$"
ok tpstatus --units b --nosuffix -o pool_data_used --noheadings p
[ "$(tr -d ' ' <out)" -lt "$used_before" ] || fail "the purge gave no space back"
ok tpcheck p
ok tpstatus --trash p
out_lacks "a2"

# a trashed volume is never a base: an incremental stream whose base went
# to the trash is refused (nothing changed) until the base comes back
ok tvcreate -V 4M -n x p
write_chunks p x 0 4
ok tvsnap --readonly p/x -n x1
write_chunks p x 8 2
ok tvsnap --readonly p/x -n x2
ok tpsend -o full.stream p/x1
ok tpsend -o inc.stream --from x1 p/x2
DATA_SIZE=128M META_SIZE=16M new_pool r --chunk 64k --trash-retention 1h
ok tprecv -i full.stream -n x1 r
ok tvremove r/x1
unchanged 5 tprecv -i inc.stream -n x2 r
err_has "base"
ok tvremove --undo r/x1
ok tprecv -i inc.stream -n x2 r
[ "$(tpsend --format raw r/x2 | md5sum)" = "$(tpsend --format raw p/x2 | md5sum)" ] ||
	fail "x2 received onto its restored base differs"
ok tpcheck r

# crash cuts: each step killed at each of its pauses, then run again: the
# re-run finishes (or says the pool's last change did it), exits 0, and
# tpcheck is clean; the data comes back byte-identical
ok tvcreate -V 4M -n c p
write_chunks p c 0 10
c_sum=$(tpsend --format raw p/c | md5sum)
for pause in after-vg-commit after-apply; do
	killed_at "$pause" tvremove p/c
	ok tvremove p/c
	grep -q "^Volume p/c \(was already \)\?moved to the trash" out || { cat out err >&2; fail "no trash line"; }
	ok tpcheck p
	killed_at "$pause" tvremove --undo p/c
	ok tvremove --undo p/c
	grep -q "^Volume p/c \(was already \)\?back from the trash" out || { cat out err >&2; fail "no undo line"; }
	[ "$(tpsend --format raw p/c | md5sum)" = "$c_sum" ] || fail "cut at $pause: c's data changed"
	ok tpcheck p
done
# the purge: its first change, its steps, its last change
for pause in after-vg-commit trash-purge-begun remove-step=0 remove-step=2 remove-emptied; do
	ok tvcreate -V 4M -n d p
	write_chunks p d 0 10
	ok tvremove p/d
	killed_at "$pause" env TP_TEST_REMOVE_STEP=4 tvremove --purge p/d
	ok tvremove --purge p/d
	grep -q "^\(Purged 1 trash entry of p/d\|The trash entries of p/d were already purged\)" out ||
		{ cat out err >&2; fail "no purge line"; }
	ok tpcheck p
	ok tpstatus --trash --noheadings p
	out_lacks " d "
	[ "$(tpsend --format raw p/c | md5sum)" = "$c_sum" ] || fail "purge cut at $pause: c's data changed"
done
# a cut purge can no longer come back: any change finishes it first
ok tvcreate -V 4M -n d p
write_chunks p d 0 10
ok tvremove p/d
killed_at remove-step=1 env TP_TEST_REMOVE_STEP=4 tvremove --purge p/d
ok tpstatus --trash --noheadings p
out_has "purging"
failed tvremove --undo p/d
err_has "finishing the interrupted purge of d"
err_has "has no volume named d in its trash"
ok tpstatus --trash --noheadings p
out_lacks " d "
ok tpcheck p
# a cut at the end of a purge (its last change committed) run again
for pause in after-vg-commit after-apply; do
	ok tvcreate -V 4M -n f p
	write_chunks p f 0 10
	ok tvremove p/f
	killed_at remove-emptied env TP_TEST_REMOVE_STEP=4 tvremove --purge p/f
	killed_at "$pause" tvremove --purge p/f
	ok tvremove --purge p/f
	out_has "^The trash entries of p/f were already purged"
	ok tpcheck p
done

# tpmonitor: a pool at its autoextend threshold (which cannot grow: the
# monitor grows active pools only) gets its space back by the purge of
# its trash, the oldest entry first, each purge logged; one below it
# keeps its trash
DATA_SIZE=16M META_SIZE=8M new_pool q --chunk 64k --autoextend-threshold 50 --trash-retention 1d
ok tvcreate -V 8M -n old q
write_chunks q old 0 60
ok tvcreate -V 8M -n young q
write_chunks q young 0 40
ok tvcreate -V 8M -n live q
write_chunks q live 0 40
live_sum=$(tpsend --format raw q/live | md5sum)
ok tvremove q/old
ok tvremove q/young
ok tpstatus --trash q
ok tpmonitor --once
err_has "pool q: purged old (thin device 0, 8 MiB) from the trash: the pool is at its threshold"
err_lacks "purged young"
ok tpstatus --noheadings -o pool_data_percent q
[ "$(tr -d ' %' <out | cut -d. -f1)" -lt 50 ] || fail "still at the threshold: $(cat out)"
ok tpstatus --trash --noheadings q
out_has "^q  *young "
out_lacks " old "
[ "$(tpsend --format raw q/live | md5sum)" = "$live_sum" ] || fail "the purge changed q/live"
ok tpcheck q
# below the threshold, with nothing expired: nothing to do
ok tpmonitor --once
err_lacks "purged"
# an expired entry goes whatever the pool's use
ok tpchange --trash-retention 1s q
sleep 2
ok tpmonitor --once
err_has "pool q: purged young (thin device 1, 8 MiB) from the trash: expired"
ok tpstatus --trash --noheadings q
[ ! -s out ] || fail "the trash is not empty: $(cat out)"
ok tpcheck q

# an undo is a change like any other: refused above the pool's
# over-provisioning limit (a trashed volume does not count while trashed)
DATA_SIZE=64M META_SIZE=8M new_pool o --chunk 64k --max-overprovision 1 --trash-retention 1h
ok tvcreate -V 40M -n a o
ok tvremove o/a
ok tvcreate -V 40M -n b o
unchanged 5 tvremove --undo --name a2 o/a
err_has "over-provisioning limit"
ok tvremove --now o/b
ok tvremove --undo o/a
ok tpcheck o

# tvremove --wipe or --now of a name only the trash holds never takes the
# entry for its own finished work: --wipe is refused, saying the data was
# NOT wiped and what wipes it; --now purges the entry (and run again, says
# the purge is done); a name in no volume, removal or entry has no volume
DATA_SIZE=64M META_SIZE=8M new_pool w --chunk 64k --trash-retention 1h
ok tvcreate -V 4M -n secret w
write_chunks w secret 0 4
secret_sum=$(tpsend --format raw w/secret | md5sum)
ok tvremove w/secret
unchanged 5 tvremove --wipe w/secret
err_has "volume w/secret was not wiped: there is no volume secret, only an entry of that name in the trash of pool w"
err_has "'tvremove --undo w/secret' then 'tvremove --wipe w/secret'"
out_lacks "nothing to wipe"
ok tvcreate -V 4M -n other w	# another change between
unchanged 5 tvremove --wipe w/secret
err_has "only an entry of that name in the trash"
ok tvremove --undo w/secret
[ "$(tpsend --format raw w/secret | md5sum)" = "$secret_sum" ] || fail "the refused wipe changed w/secret"
ok tvremove w/secret
ok tvremove --now w/secret
out_has "^Purged 1 trash entry of w/secret\.$"
out_lacks "already moved"
ok tpstatus --trash --noheadings w
[ ! -s out ] || fail "--now left the entry: $(cat out)"
ok tvremove --now w/secret
out_has "already purged"
failed tvremove --now w/nosuch
ok tpcheck w

# an entry whose thin device is gone (a VG backup restored with --force
# after its purge) never comes back as a volume without a device: the undo
# is refused, nothing changed, naming the purge that drops it
DATA_SIZE=64M META_SIZE=8M new_pool gone --chunk 64k --trash-retention 1h
ok tvcreate -V 4M -n x gone
write_chunks gone x 0 4
ok tvremove gone/x
cp "$(ls -t "$(backup_dir gone)"/*.vg | head -1)" old.vg
ok tvremove --purge gone/x
for f in gone-data.img gone-meta.img; do dd if=/dev/zero of=$f bs=1M count=1 conv=notrunc status=none; done
ok tprepair gone --restorefile old.vg --force --devices gone-data.img,gone-meta.img
unchanged 5 tvremove --undo gone/x
err_has "the trash entry x cannot come back: its thin device 0 is missing from the thin metadata, its data is gone; 'tvremove --purge gone/x' drops the entry"
ok tvremove --purge gone/x
ok tpcheck gone

# at the threshold, tpmonitor skips an entry that maps nothing of its own
# (all its chunks a snapshot's too): its purge would free nothing
DATA_SIZE=16M META_SIZE=8M new_pool z --chunk 64k --autoextend-threshold 50 --trash-retention 1d
ok tvcreate -V 12M -n base z
write_chunks z base 0 150
ok tvsnap z/base -n keep
ok tvremove -y z/base
ok tpmonitor --once
err_lacks "purged base"
ok tpstatus --trash --noheadings z
out_has "^z  *base "
ok tpcheck z

# an empty --name is a usage error naming --name (not a POOL/VOLUME it built)
usage_error tvremove --undo --name '' z/base
err_has "\-\-name takes a volume name (not empty"
err_lacks "'x/'"

# a purge whose last VG copies were lost after its thin device was deleted:
# tprepair puts the VG back (the entry marked purging, its device gone);
# tpcheck then calls it non-fatal and names the command that ends it, which
# does (no loop of FATAL and 'tprepair')
DATA_SIZE=64M META_SIZE=8M new_pool pg --chunk 64k --trash-retention 1h
ok tvcreate -V 4M -n keep pg
write_chunks pg keep 0 5
keep_sum=$(tpsend --format raw pg/keep | md5sum)
ok tvcreate -V 4M -n x pg
write_chunks pg x 0 20
ok tvremove pg/x
ok tvremove --purge pg/x
ok tp-vgtool damage pg-data.img newest text
ok tp-vgtool damage pg-meta.img newest text
expect_rc 2 tpcheck pg
ok tprepair pg
expect_rc 1 tpcheck pg
out_has "trash entry x: its purge was interrupted after its thin device"
out_has "^next: run 'tvremove --purge pg/x' to finish the interrupted purge"
out_lacks "FATAL"
# (tprepair finds nothing to salvage in that: it writes nothing)
sha256sum pg-data.img pg-meta.img >pg.sums
ok tprepair pg
sha256sum -c --quiet pg.sums || fail "tprepair rewrote a pool whose only finding is a cut purge"
ok tvremove --purge pg/x
ok tpcheck pg
ok tpstatus --trash --noheadings pg
out_lacks "x"
[ "$(tpsend --format raw pg/keep | md5sum)" = "$keep_sum" ] || { echo "FAIL: pg/keep changed" >&2; exit 1; }

# tpremove's question counts the volumes in the trash too (their data goes
# with the pool); answered no, the pool stays
DATA_SIZE=64M META_SIZE=8M new_pool rq --chunk 64k --trash-retention 1h
ok tvcreate -V 1M -n a rq
ok tvremove rq/a
printf 'n\n' | script -qec "tpremove rq" /dev/null >rq.out 2>&1 || true
grep -q "Remove pool rq with its 0 volume(s) and the 1 in its trash?" rq.out ||
	{ cat rq.out >&2; fail "tpremove's question does not count the trash"; }
ok tpstatus --trash --noheadings rq
out_has "^rq  *a "
