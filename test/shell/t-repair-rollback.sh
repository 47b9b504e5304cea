# SPDX-License-Identifier: GPL-2.0-or-later
# Devices rolled back to an older state (images copied back, as a storage
# snapshot would), then both VG metadata areas lost: the backups under
# $TPTOOLS_DIR hold newer commits too. tpcheck names the backup whose
# transaction id is the thin superblock's (not the newest), tprepair
# refuses one that does not match, naming the one that does, and every
# refusal leaves the devices byte-for-byte unchanged (cmp with copies).
# Following tpcheck's `next:` line alone brings the rolled-back state back:
# the same volumes, the same thin metadata, the same content (raw exports),
# also with both labels lost.
# With no matching backup left, tpcheck says so and what to do.
have tp-thinmap || fail "tp-thinmap not built (make tests)"
DATA_SIZE=256M META_SIZE=16M new_pool vault --chunk 64k
ok tvcreate -V 8M -n a vault
truncate -s 8M a.want
write_chunks vault a 0 4
ok tvsnap vault/a -n a1
write_chunks vault a 10 3
ok tpcheck vault
# the state the devices will be rolled back to
for v in a a1; do ok tpsend --format raw -o "$v.old" "vault/$v"; done
cmp -s a.old a.want || fail "the raw export of vault/a differs from what was written"
ok tpdump -o old.xml vault
read -r spare len < <(pool_bytes vault pool_spare_offset,pool_meta_length)
[ -n "$len" ] || fail "no spare area"
cp --sparse=always vault-data.img data.old
cp --sparse=always vault-meta.img meta.old

# later changes, each with its VG backup: a new volume, a snapshot, a removal
ok tvcreate -V 4M -n b vault
write_chunks vault b 0 2
ok tvsnap vault/a -n a2
ok tvremove -y vault/a1
newest=$(ls "$(backup_dir vault)"/*.vg | tail -1)

# the rollback, then both VG areas lost (bytes 4096..1 MiB of each device)
cp --sparse=always data.old vault-data.img
cp --sparse=always meta.old vault-meta.img
for dev in data meta; do
	dd if=/dev/zero of=vault-$dev.img bs=4096 seek=1 count=255 conv=notrunc status=none
done
cp --sparse=always vault-data.img data.lost
cp --sparse=always vault-meta.img meta.lost
same() {	# same WHAT: both devices as they were after the loss
	cmp -s vault-data.img data.lost || fail "$* changed vault-data.img"
	cmp -s vault-meta.img meta.lost || fail "$* changed vault-meta.img"
}

expect_rc 2 tpcheck vault
out_has "^next: restore with 'tprepair vault --restorefile"
# the command named (in quotes; the words after it may name the newest as
# the one that does not agree)
named() { sed -n "s/^[^']*'\(tprepair [^']*\)'.*/\1/p" "$1"; }
named out | grep -q "$newest" && fail "tpcheck named the newest backup, which does not match"
out_has "the newest backup whose transaction id, [0-9]*, is the thin metadata's"
cp out check.out
same "tpcheck"

# refusals, nothing written: the newest backup, and no backup at all
expect_rc 5 tprepair vault --restorefile "$newest" --devices vault-data.img,vault-meta.img
err_has "does not match the devices"
err_has "nothing was written"
err_has "restore with 'tprepair vault --restorefile"
err_has "the input is unchanged"
same "tprepair --restorefile NEWEST"
expect_rc 5 tprepair vault --devices vault-data.img,vault-meta.img
err_has "no VG metadata copy is left on its devices; restore with 'tprepair vault --restorefile"
err_has "the newest backup whose transaction id"
named err | grep -q "$newest" && fail "tprepair named the newest backup, which does not match"
same "tprepair without a backup"

# the next: line(s), run as printed
grep "^next:" check.out >next.txt
[ -s next.txt ] || fail "tpcheck printed no next: line"
while read -r line; do
	cmd=$(printf '%s\n' "$line" | sed -n "s/^next: [^']*'\([^']*\)'.*/\1/p")
	[ -n "$cmd" ] || fail "no command in '$line'"
	echo "running: $cmd"
	# shellcheck disable=SC2086
	ok $cmd
	out_has "VG metadata restored from"
done <next.txt

# the rolled-back state, whole
ok tpcheck vault
out_has "vault: clean"
ok tpdump vault
cmp -s out old.xml || { diff old.xml out >&2; fail "the thin metadata is not the rolled-back one"; }
ok tpstatus --noheadings -o vol_name vault
[ "$(awk 'NF { print $1 }' out | sort | tr '\n' ' ')" = "a a1 " ] ||
	{ cat out >&2; fail "the volumes are not the rolled-back ones"; }
for v in a a1; do
	ok tpsend --format raw -o "$v.got" "vault/$v"
	cmp -s "$v.got" "$v.old" || fail "vault/$v's content is not the rolled-back one"
done
# no backup was overwritten by the restore's own commits
grep -q 'a2 {' "$newest" || fail "the restore overwrote the newest backup"

# the same with both labels lost too: the metadata device is found through
# the devices file, and its thin superblock still picks the backup
cp --sparse=always data.lost vault-data.img
cp --sparse=always meta.lost vault-meta.img
for dev in data meta; do
	dd if=/dev/zero of=vault-$dev.img bs=512 seek=1 count=1 conv=notrunc status=none
done
expect_rc 2 tpcheck vault
out_has "vault-meta.img: no valid tptools label"
cmd=$(sed -n "s/^next: [^']*'\([^']*\)'.*/\1/p" out)
[ -n "$cmd" ] || fail "tpcheck named no command"
case $cmd in *"$newest"*) fail "tpcheck named the newest backup, which does not match" ;; esac
# shellcheck disable=SC2086
ok $cmd
out_has "rewrote the label of .*vault-meta.img"
ok tpcheck vault
out_has "vault: clean"
for v in a a1; do
	ok tpsend --format raw -o "$v.got" "vault/$v"
	cmp -s "$v.got" "$v.old" || fail "vault/$v's content is not the rolled-back one"
done

# no matching backup left: tpcheck says so and what to do; the refusal
# changes nothing
cp --sparse=always data.lost vault-data.img
cp --sparse=always meta.lost vault-meta.img
for f in "$(dirname "$newest")"/*.vg; do
	grep -q "transaction_id=$(sed -n 's/.*transaction="\([0-9]*\)".*/\1/p' old.xml | head -1)$" \
		"$f" && rm "$f"
done
expect_rc 2 tpcheck --devices vault-data.img,vault-meta.img vault
out_has "^next: no VG metadata backup of the pool on the devices (uuid .*) in .* agrees with the thin metadata on the metadata device"
out_has "restore the newest anyway with 'tprepair vault --restorefile .* --force'"
same "tpcheck without a match"
cp out nomatch.out
expect_rc 5 tprepair vault --restorefile "$newest" --devices vault-data.img,vault-meta.img
err_has "does not match the devices"
same "tprepair --restorefile with no match"
# as offered: forced, the newest is restored and the thin metadata salvaged
cmd=$(sed -n "s/^next: .*'\(tprepair [^']*--force\)'.*/\1/p" nomatch.out)
[ -n "$cmd" ] || fail "tpcheck offered no forced restore"
# a failure of the commit that ends it (a test fault): labels and VG were
# never written, and the message says what was: the spare area alone
# shellcheck disable=SC2086
expect_rc 5 env TP_TEST_FAIL=repair-commit $cmd
err_has "the pool is unchanged but for its spare thin-metadata area"
err_lacks "the input is unchanged"
cmp -s vault-data.img data.lost || fail "the failed repair changed vault-data.img"
cmp -s -n "$spare" vault-meta.img meta.lost || fail "the failed repair wrote before the spare"
cmp -s -i $((spare + len)) vault-meta.img meta.lost || fail "the failed repair wrote past the spare"
cmp -s -i "$spare" -n "$len" vault-meta.img meta.lost && fail "the spare area was not written"
expect_rc 2 tpcheck --devices vault-data.img,vault-meta.img vault
out_has "no VG metadata backup of the pool on the devices .* agrees with the thin metadata"
# shellcheck disable=SC2086
ok $cmd
out_has "VG metadata restored from"
out_has "repaired into the spare area"
err_has "restoring it anyway (--force)"
err_has "volume b (thin device .*) was lost"
# the thin device of a1, which the newest backup does not list, is kept
out_lacks "deleted"
err_has "thin devices that the restored backup lists as no volume are kept"
expect_rc 2 tpcheck vault
out_has "thin device $(sed -n 's/.*<device dev_id="\([0-9]*\)".*/\1/p' old.xml | sed -n 2p) belongs to no volume"
