# SPDX-License-Identifier: GPL-2.0-or-later
# A key change leaves no old keyslots in free space (tvchange(8) "Keys of
# an encrypted volume"; trial enc2 HIGH A): the header chunks a
# --change-key frees are overwritten with random bytes after its commit,
# so no LUKS2 header anywhere on the data image opens with the revoked
# key; a snapshot that keeps the old header keeps it whole (it still opens
# with the old key); and after tvremove --wipe of both no LUKS2 header is
# left anywhere on the data image (tvremove(8) "Crypto-erase"). Killed
# between the commit and the overwrite: the new key opens the volume, and
# tptrim on the inactive pool removes the old header from free space, as
# tvchange(8) says. A trash entry that shares the whole header: the erase
# says nothing was erased and names 'tvremove --undo' then '--wipe', which
# work. Every keyslot in use: exit 5, said as such.
have cryptsetup || fail "cryptsetup not installed (cryptsetup-bin)"
DATA_SIZE=128M META_SIZE=16M
new_pool p --chunk 1m
mkdir tmp
export TMPDIR=$PWD/tmp
FAST="--pbkdf pbkdf2 --pbkdf-force-iterations 1000"
printf 'key one\n' >k1
printf 'key two\n' >k2

# every chunk-aligned LUKS2 header on the data image: "offset" lines
headers() {
	python3 -c '
import sys
d = open(sys.argv[1], "rb").read(); c = 1 << 20
print("\n".join(str(o) for o in range(0, len(d), c) if d[o:o + 6] == b"LUKS\xba\xbe"))' p-data.img
}
# how many of them KEY opens (each cut out as a detached header)
opened_by() {
	local n=0 off
	for off in $(headers); do
		dd if=p-data.img of=found.hdr bs=1M iflag=skip_bytes skip="$off" count=16 status=none
		cryptsetup open --test-passphrase --key-file "$1" --header found.hdr found.hdr \
			2>/dev/null && n=$((n + 1))
	done
	echo $n
}

ok tvcreate --encrypt --key-file k1 $FAST -V 32M -n e p
[ "$(opened_by k1)" = 1 ] || fail "k1 does not open e's header on the data image"
ok tvchange --change-key --key-file k1 --new-key-file k2 $FAST p/e
n1=$(opened_by k1)
[ "$n1" = 0 ] || fail "the revoked key k1 still opens $n1 header(s) left on the data image"
[ "$(opened_by k2)" = 1 ] || fail "k2 does not open e's new header"

# a snapshot keeps the old header: those chunks are not touched
ok tvcreate --encrypt --key-file k1 $FAST -V 32M -n f p
ok tvsnap p/f -n fs
ok tvchange --change-key --key-file k1 --new-key-file k2 $FAST p/f
ok tpsend --format raw -o fs.raw p/fs
cryptsetup open --test-passphrase --key-file k1 fs.raw || fail "f's snapshot lost its header"
[ "$(opened_by k1)" = 1 ] || fail "only fs's old header should open with k1"

ok tvremove --wipe -y p/fs
ok tvremove --wipe -y p/f
ok tvremove --wipe -y p/e
h=$(headers)
[ -z "$h" ] || fail "LUKS2 headers left on the data image after the wipes at: $h"

# a trash entry that shares the whole header: nothing erased is said as
# such, and the advice names the commands that work (tvremove(8))
ok tpchange --trash-retention 12h p
ok tvcreate --encrypt --key-file k1 $FAST -V 32M -n t p
ok tvsnap p/t -n ts
ok tvremove p/ts
ok tvremove --wipe -y p/t
out_has "Volume p/t: nothing of its LUKS2 header (16 MiB) was erased: no chunk of it was the volume's alone"
out_lacks "crypto-erased"
out_has "shared with trash entry ts, which keeps them in its own header; to erase it: 'tvremove --undo p/ts' then 'tvremove --wipe p/ts'."
ok tvremove --undo p/ts
ok tvremove --wipe -y p/ts
out_has "Volume p/ts crypto-erased: 16 chunks"
[ -z "$(headers)" ] || fail "LUKS2 headers left after following the advice at: $(headers)"
ok tpchange --trash-retention off p

# every keyslot in use: the pool's state, not the command line (exit 5),
# said as such, nothing changed (trial enc2 MEDIUM F)
ok tvcreate --encrypt --key-file k1 $FAST -V 32M -n full p
for i in $(seq 2 32); do
	printf 'key %s\n' "$i" >kk
	ok tvchange --add-key --key-file k1 --new-key-file kk $FAST p/full
done
printf 'key 33\n' >kk
unchanged 5 tvchange --add-key --key-file k1 --new-key-file kk $FAST p/full
err_has "volume p/full: every keyslot is in use (32): remove one first (tvchange --remove-key); nothing was changed"
ok tvremove --wipe -y p/full

# killed after the commit, before the overwrite: the documented way out
ok tvcreate --encrypt --key-file k1 $FAST -V 32M -n g p
killed_at head-committed tvchange --change-key --key-file k1 --new-key-file k2 $FAST p/g
ok tpsend --format raw -o g.raw p/g
cryptsetup open --test-passphrase --key-file k2 g.raw || fail "g does not open with k2"
ok tptrim p
[ "$(opened_by k1)" = 0 ] || fail "tptrim left the old header of g in free space"
[ -z "$(ls -A tmp)" ] || fail "header copies left in TMPDIR: $(ls -A tmp)"
