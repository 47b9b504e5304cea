# SPDX-License-Identifier: GPL-2.0-or-later
# tprepair --list-backups POOL (tprepair(8), "Listing the backups"): one
# line per VG metadata backup, oldest first, with its seqno, transaction
# id, time, volumes, pool uuid, file and the command that made it; from
# this host's files alone (the devices gone, nothing written); a damaged
# file listed as such; unfinished receives and another pool's backups
# said; an earlier pool of the same name listed apart, before the pool
# on the devices, its lines marked; no backups, a bad name or other
# options refused. A listed backup restores with --restorefile (its
# description line is a comment).
DATA_SIZE=256M META_SIZE=16M
new_pool vault --chunk 64k
ok tvcreate -V 4M -n www vault
ok tvsnap --readonly vault/www -n "mon"
ok tvrename vault/mon monday
dir=$(backup_dir vault)
uuid=$(basename "$dir")

# rows: the listing's lines less the heading, in ./rows
list() {
	ok tprepair --list-backups "$@"
	head -1 out | grep -q "^Seqno Transaction Time  *Volumes  Pool-uuid  *File  Description$" ||
		{ cat out >&2; fail "no heading line"; }
	tail -n +2 out >rows
}
list vault
[ "$(wc -l <rows)" = "$(ls "$dir"/*.vg | wc -l)" ] || { cat out >&2; fail "not one line per backup"; }
[ "$(wc -l <rows)" = 4 ] || { cat out >&2; fail "4 commits, not $(wc -l <rows) lines"; }
# oldest first: the seqnos ascend, the files are the backups, in order
awk '{ print $1 }' rows >seqnos
sort -n seqnos | cmp -s - seqnos || fail "the lines are not oldest first"
[ "$(awk '{ print $6 }' rows)" = "$(ls "$dir"/*.vg)" ] || { cat out >&2; fail "the files differ"; }
[ "$(awk '{ print $5 }' rows | sort -u)" = "$uuid" ] || { cat out >&2; fail "not the pool's uuid"; }
[ "$(tail -1 seqnos)" = "$(sed -n 's/^\t*seqno *= *\([0-9]*\)$/\1/p' "$dir/$(ls "$dir" | tail -1)" | head -1)" ] ||
	fail "the newest line's seqno is not the newest backup's"
# what each records: transaction ids 0..3, the volumes, the commands
expect_line() { # N TID VOLUMES DESCRIPTION
	awk -v n="$1" 'NR == n' rows >line
	read -r s t when v u f rest <line
	[ "$t" = "$2" ] && [ "$v" = "$3" ] && [ "$rest" = "$4" ] ||
		{ cat line >&2; fail "line $1: not transaction $2, $3 volumes, '$4'"; }
	[[ $when =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[+-][0-9]{4}$ ]] ||
		fail "line $1: time '$when' is not ISO 8601"
	[ -f "$f" ] || fail "line $1: no file $f"
}
expect_line 1 0 0 "after 'tpcreate --data vault-data.img --meta vault-meta.img --chunk 64k vault'"
expect_line 2 1 1 "after 'tvcreate -V 4M -n www vault'"
expect_line 3 2 2 "after 'tvsnap --readonly vault/www -n mon'"
expect_line 4 2 2 "after 'tvrename vault/mon monday'"
[ "$(tail -1 rows | awk '{ print $2 }')" = "$(pool_bytes vault pool_transaction_id)" ] ||
	fail "the newest backup's transaction id is not the pool's"
ok tpchange --warn 85 vault
ok tprepair --list-backups vault
out_has "after 'tpchange --warn 85 vault'$"
cp out listed.before

# the devices gone: the same list, and nothing written
sums ./*.img >sums.before
mkdir gone
mv vault-data.img vault-meta.img gone/
ok tprepair --list-backups vault
cmp -s out listed.before || { diff listed.before out >&2; fail "the list differs without the devices"; }
mv gone/* .
sums ./*.img >sums.after
cmp -s sums.before sums.after || fail "--list-backups changed a device"
[ "$(ls "$dir"/*.vg | wc -l)" = "$(($(wc -l <listed.before) - 1))" ] || fail "it wrote a backup"

# refused: no backups, a bad name, other options
unchanged 5 tprepair --list-backups nosuch
err_has "pool nosuch has no VG metadata backups in $TPTOOLS_DIR/backup: "
err_has "check the name"
unchanged 3 tprepair --list-backups 'a/b'
err_has "invalid pool name 'a/b'"
unchanged 3 tprepair --list-backups --devices vault-data.img,vault-meta.img vault
err_has "takes no other option"
unchanged 3 tprepair --list-backups --force vault
unchanged 3 tprepair --list-backups --metadata vault-meta.img -o x.img
unchanged 3 tprepair --list-backups
unchanged 3 tprepair --list-backups vault other

# damaged files, a backup from before descriptions, another pool's
newest=$(ls "$dir"/*.vg | tail -1)
echo "not VG metadata {" >"$dir/00000000000000000090.vg"
cp "$newest" "$dir/00000000000000000091.vg"
sed -i '1d; s/^\(\t*seqno *= *\)[0-9]*$/\191/' "$dir/00000000000000000091.vg"
head -c 0 /dev/null >"$dir/00000000000000000092.vg"
list vault
awk '$1 == 90 && $2 == "-" && $4 == "-"' rows | grep -q "$dir/00000000000000000090.vg  damaged: syntax error" ||
	{ cat out >&2; fail "a damaged backup is not listed as such"; }
awk '$1 == 92' rows | grep -q "damaged: an empty file$" || { cat out >&2; fail "an empty backup is not damaged"; }
grep -q "^ *91 .*/00000000000000000091.vg  -$" rows ||
	{ cat out >&2; fail "a backup without a description does not say '-'"; }
# another pool's (its uuid) among them; the newest readable one decides
cp "$newest" "$dir/00000000000000000093.vg"
sed -i '1d; s/^\(\t*seqno *= *\)[0-9]*$/\193/; s/^\(\tuuid *= *"\)[0-9a-f]\{8\}/\1deadbeef/' \
	"$dir/00000000000000000093.vg"
cp "$newest" "$dir/00000000000000000094.vg"
sed -i 's/^\(\t*seqno *= *\)[0-9]*$/\194/' "$dir/00000000000000000094.vg"
list vault
grep -q "^ *93 .* deadbeef-[-0-9a-f]* .*; of another pool named vault; it lies in the directory of pool uuid $uuid" rows ||
	{ cat out >&2; fail "another pool's backup is not said"; }
# apart from the pool's own: listed first, not in its sequence
[ "$(head -1 rows | awk '{ print $1 }')" = 93 ] || { cat out >&2; fail "another pool's backup mixed in"; }
err_has "the pool vault on its devices is uuid $uuid (from the label of "
grep "^ *9[14] " rows | grep -q "another pool" && { cat out >&2; fail "the pool's own backups called another pool's"; }
rm -f "$dir"/000000000000000000{90,91,92,93,94}.vg

# a backup renamed (or copied) under another seqno's name: listed with the
# seqno its text records, the line saying the name disagrees; tpcheck
# names no such file, and --restorefile refuses it as the line says
# (with --force it restores what its text records)
newest=$(ls "$dir"/*.vg | tail -1)
oldseq=$(basename "$newest" .vg | sed 's/^0*//')
cp "$newest" "$dir/00000000000000000095.vg"
list vault
grep -q "^ *$oldseq .*/00000000000000000095.vg  .*; its file name says seqno 95: renamed or copied, suspect ('tprepair --restorefile' refuses it without --force)$" rows ||
	{ cat out >&2; fail "a renamed backup is listed by its name's seqno, or not said"; }
grep -q "^ *95 " rows && { cat out >&2; fail "the file name's seqno is listed"; }
cp --sparse=always vault-data.img data.keep
cp --sparse=always vault-meta.img meta.keep
dd if=/dev/zero of=vault-data.img bs=512 seek=1 count=1 conv=notrunc status=none
dd if=/dev/zero of=vault-meta.img bs=512 seek=1 count=1 conv=notrunc status=none
expect_rc 2 tpcheck vault
out_lacks "00000000000000000095.vg"
unchanged 5 tprepair vault --restorefile "$dir/00000000000000000095.vg" --devices vault-data.img,vault-meta.img
err_has "the backup .*00000000000000000095.vg is named for seqno 95 but its text records seqno $oldseq (renamed or copied: not the commit its name says); nothing was written"
ok tprepair vault --force --restorefile "$dir/00000000000000000095.vg" --devices vault-data.img,vault-meta.img
err_has "named for seqno 95 but its text records seqno $oldseq (renamed or copied); restoring what its text records anyway (--force)"
ok tpcheck vault
rm -f "$dir/00000000000000000095.vg" data.keep meta.keep

# an unfinished receive is said
head -c 8M /dev/urandom >img
rm -f pause
env TP_TEST_PAUSE=recv-raw-piece=1 TP_TEST_PAUSE_FILE="$PWD/pause" \
	tprecv --format raw -n k -i img vault >recv.out 2>recv.err &
pid=$!
wait_until "$pid" test -e pause || { cat recv.err >&2; fail "the import never paused"; }
kill -KILL "$pid"
wait "$pid" || true
rm -f pause
list vault
tail -1 rows | grep -q "after 'tprecv --format raw -n k -i img vault'; 1 unfinished receive$" ||
	{ cat out >&2; fail "the unfinished receive is not said"; }
ok tprecv --abort k vault

# a listed backup restores: both labels lost, --restorefile the newest line's file
list vault
file=$(tail -1 rows | awk '{ print $6 }')
dd if=/dev/zero of=vault-data.img bs=512 seek=1 count=1 conv=notrunc status=none
dd if=/dev/zero of=vault-meta.img bs=512 seek=1 count=1 conv=notrunc status=none
ok tprepair vault --restorefile "$file" --devices vault-data.img,vault-meta.img
err_lacks "error"	# a successful restore prints no error line
expect_rc 0 tpcheck vault
[ "$(vol_field vault www vol_name)" = www ] || fail "the restored pool lacks www"

# an earlier pool of the same name: listed apart, first, each line marked;
# the new pool's own backups are the last lines
ok tpremove -y vault
new_pool vault --chunk 64k
list vault
new=$(basename "$(backup_dir vault)")
[ "$new" != "$uuid" ] || fail "the new pool has the old one's uuid"
[ "$(grep -c " $new " rows)" = 1 ] || { cat out >&2; fail "the new pool's backups are not its one"; }
tail -1 rows | grep -q " $new .*after 'tpcreate .*vault'$" || { cat out >&2; fail "the new pool's backup is not last"; }
[ "$(grep -c " $uuid .*; of another pool named vault$" rows)" = 8 ] ||
	{ cat out >&2; fail "the earlier pool's backups are not all listed as another pool's"; }
grep " $new " rows | grep -q "another pool" && { cat out >&2; fail "the pool's own backup called another pool's"; }
err_has "the pool vault on its devices is uuid $new"

# a restore whose --devices are relative paths records them absolute (the
# devices file and the VG's paths): the pool is found from any directory
new_pool rel --chunk 64k
for f in rel-data.img rel-meta.img; do dd if=/dev/zero of=$f bs=1M count=1 conv=notrunc status=none; done
ok tprepair rel --restorefile "$(ls "$(backup_dir rel)"/*.vg | head -1)" --devices rel-data.img,rel-meta.img
err_lacks "error"	# a successful restore prints no error line
grep '^rel ' etc/devices | awk '{ print $NF }' | grep -qv '^/' && fail "the devices file records a relative path: $(grep '^rel ' etc/devices)"
tp-vgtool text rel-meta.img | grep 'path=' | grep -qv 'path="/' && fail "the VG records a relative path"
here=$PWD
(cd / && tpstatus rel >"$here/out" 2>"$here/err") || { cat err >&2; fail "the pool is not found from another directory"; }
# a backup of a pool that is on this host, on its own devices, is never
# restored onto other devices, not even with --force, and no advice
# names that (two pools of one identity)
new_pool one --chunk 64k
new_pool two --chunk 64k
ok tvcreate -V 4M -n v two
for f in one-data.img one-meta.img; do dd if=/dev/zero of=$f bs=1M count=1 conv=notrunc status=none; done
twos=$(ls "$(backup_dir two)"/*.vg | tail -1)
unchanged 5 tprepair two --force --restorefile "$twos" --devices one-data.img,one-meta.img
err_has "would make two pools of one identity; nothing was written, even with --force"
unchanged 5 tprepair one --force --restorefile "$twos" --devices one-data.img,one-meta.img
err_has "which is on this host"
err_lacks "under its own name"
ok tpcheck two

# a backup a newer tptools wrote (format 3) is listed as such, not as
# damage (tprepair(8))
twodir=$(backup_dir two)
sed 's/format_version *= *2/format_version=3/' "$twos" >"$twodir/00000000000000000099.vg"
grep -q 'format_version=3' "$twodir/00000000000000000099.vg" || fail "no format 3 backup made"
list two
grep -q "00000000000000000099.vg  newer format: pool/format_version: 3 is newer" rows ||
	{ cat out >&2; fail "a newer-format backup is not listed as one"; }
true
