# SPDX-License-Identifier: GPL-2.0-or-later
# Backups as deltas (tp-metadata(5) BACKUPS): a commit writes SEQNO.vgd, a
# delta of the newest whole text, instead of its whole text (a pool of
# many volumes; TP_TEST_BACKUP_DELTA_MIN=0 makes this small pool one), a
# whole text after at most 25 deltas. tprepair --list-backups lists both
# kinds, --restorefile takes a delta and gives the pool back; a delta whose
# base is damaged, cut, another pool's or missing is listed as damaged and
# refused by --restorefile naming both files, nothing written. Pruning
# never leaves a delta without its base.
export TP_TEST_BACKUP_DELTA_MIN=0
DATA_SIZE=64M META_SIZE=16M new_pool p --chunk 64k
ok tvcreate -q -V 4M -n a p
write_chunks p a 0 4
ok tvcreate -q -V 4M -n b p
dir=$(backup_dir p)
whole() { ls "$dir" | grep '\.vg$'; }
deltas() { ls "$dir" | grep '\.vgd$'; }
[ "$(whole | wc -l)" = 1 ] || { ls -l "$dir" >&2; fail "not one whole text"; }
[ "$(deltas | wc -l)" -ge 2 ] || { ls -l "$dir" >&2; fail "the later commits wrote no deltas"; }
base=$dir/$(whole)
newest=$dir/$(deltas | tail -1)
[ "$(stat -c %s "$newest")" -lt 1024 ] || fail "a delta of $(stat -c %s "$newest") bytes"
head -1 "$newest" | grep -q '^# tptools VG metadata backup delta' || fail "no comment line"
grep -aq "^	uuid = \"$(basename "$dir")\"$" "$newest" || fail "the delta does not record the uuid"

# listed, both kinds, one line each
ok tprepair --list-backups p
[ "$(grep -c "$dir/" out)" = "$(ls "$dir" | grep -c '\.vgd\?$')" ] || { cat out >&2; fail "not one line per backup"; }
out_has "$newest"
out_has "$base"
grep "$newest" out | grep -q "damaged" && fail "the delta is listed as damaged"
grep "$newest" out | grep -q "; a delta of backup $((10#$(basename "$base" .vg)))" ||
	{ cat out >&2; fail "the delta's line does not name its base"; }
grep "$base" out | grep -q "a delta of" && fail "the whole backup is listed as a delta"

# the base damaged, cut, another pool's, missing: the delta is damaged,
# and refused, naming both files, nothing written
cp "$base" base.saved
image q-data.img 64M
image q-meta.img 16M
mkdir other
TPTOOLS_DIR=$PWD/other ok tpcreate -q --data q-data.img --meta q-meta.img --chunk 64k p
other=$(ls other/backup/*/*.vg | head -1)
bname=$(basename "$base")
for damage in byte cut other missing; do
	cp base.saved "$base"
	case $damage in
	byte) printf 'X' | dd of="$base" bs=1 seek=200 conv=notrunc status=none ;;
	cut) truncate -s 300 "$base" ;;
	other) cp "$other" "$base" ;;
	missing) rm "$base" ;;
	esac
	ok tprepair --list-backups p
	grep "$newest" out | grep -q "damaged: .*$bname" || { cat out >&2; fail "$damage: not listed as damaged"; }
	unchanged 5 tprepair -y p --restorefile "$newest"
	err_has "$newest"
	err_has "$bname"
done
cp base.saved "$base"

# a restore from a delta gives the pool back (its VG copies and devices
# file lost)
ok tpstatus p
cp out status.before
for f in p-data.img p-meta.img; do
	dd if=/dev/zero of=$f bs=1M count=1 conv=notrunc status=none
done
rm -f "$TPTOOLS_DIR/devices"
ok tprepair -y p --restorefile "$newest" --devices p-data.img,p-meta.img
ok tpstatus p
out_has " a "
out_has " b "
ok tpcheck p

# a whole text after at most 25 deltas; pruning keeps every delta's base
for i in $(seq 1 30); do ok tvcreate -q -V 4M -n v$i p; done
[ "$(whole | wc -l)" -ge 2 ] || { ls "$dir" >&2; fail "no second whole text after 30 commits"; }
run=$(ls "$dir" | grep '\.vgd\?$' | awk '/\.vgd$/ { n++; if (n > m) m = n; next } { n = 0 } END { print m + 0 }')
[ "$run" -le 25 ] || fail "$run deltas in a row"
printf 'backup {\n\tkeep = 3\n}\n' >"$TPTOOLS_DIR/tptools.conf"
ok tvcreate -q -V 4M -n k1 p
for f in $(deltas); do
	b=$(sed -n '/^base {$/,/^}$/ s/^	seqno = \([0-9]*\)$/\1/p' "$dir/$f")
	[ -e "$dir/$(printf '%020d' "$b").vg" ] || { ls "$dir" >&2; fail "$f kept without its base $b"; }
done
[ "$(ls "$dir" | grep -c '\.vgd\?$')" -le 4 ] || { ls "$dir" >&2; fail "keep 3 kept more than 3 and a base"; }
ok tprepair -y p --restorefile "$dir/$(ls "$dir" | grep '\.vgd\?$' | tail -1)"
ok tpstatus p
out_has k1

# a stray SEQNO.vg beside the pool's SEQNO.vgd (empty, or another pool's
# text) does not hide the delta: --list-backups lists it and tpcheck's
# advice names it (a hostile trial found both blind to it)
last=$(deltas | tail -1)
seq=${last%.vgd}
[ -n "$seq" ] || fail "no delta to shadow"
: >"$dir/$seq.vg"
ok tprepair --list-backups p
out_has "$seq.vgd"
sed '0,/^\tuuid="/ s/^\tuuid="[0-9a-f-]*"/\tuuid="00000000-0000-4000-8000-000000000000"/' \
	"$dir/$(whole | head -1)" >"$dir/$seq.vg"
grep -q '^	uuid="00000000-0000-4000-8000-000000000000"' "$dir/$seq.vg" || fail "no foreign text made"
ok tprepair --list-backups p
out_has "$seq.vgd"
rm -f "$dir/$seq.vg"
