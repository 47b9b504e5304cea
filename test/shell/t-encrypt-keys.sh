# SPDX-License-Identifier: GPL-2.0-or-later
# Key changes and crypto-erase of encrypted volumes, offline (tvchange(8)
# "Keys of an encrypted volume", tvremove(8) "Crypto-erase of an encrypted
# volume"). Each key change is checked with cryptsetup on the volume's raw
# export: --add-key (both keys open it), --change-key (the new key, not the
# old), --remove-key (the key gone; the last keyslot refused); the data
# chunks after the header are the same blocks with the same bytes (no data
# rewritten); a snapshot taken before keeps the old keyslots (opens with
# the old key, not the new) and is named; --with-snapshots changes the
# writable ones in one go and names the read-only ones; a key that opens
# no keyslot (of the volume, or of one of its snapshots with
# --with-snapshots), a plain volume, a read-only volume and bad command
# lines are refused with every image byte for byte. Killed (KILL) at each
# test pause of a key change (all before its thin commit): the raw export
# opens with the old key and not the new, the next key change goes
# through, tpcheck finds the pool clean, and no header copy is left in
# TMPDIR. TERM, INT or HUP after the commit: the change is said, then the
# signal's exit status.
# tvremove --wipe of an encrypted volume: the header chunks only it maps
# are random on the data image (none of their old bytes anywhere), the
# ones its snapshot shares are left and the snapshot named and still
# opening; killed at each chunk of the erase, the volume's export is no
# LUKS image once its first chunk went, and tvremove --wipe again
# finishes it.
have cryptsetup || fail "cryptsetup not installed (cryptsetup-bin)"
DATA_SIZE=512M META_SIZE=16M
new_pool p --chunk 64k
C=65536
FAST="--pbkdf pbkdf2 --pbkdf-force-iterations 1000"
mkdir tmp killtmp
export TMPDIR=$PWD/tmp	# the headers' temporary files, checked at the end
printf 'key one\n' >k1
printf 'key two\n' >k2
printf 'key three\n' >k3
printf 'not a key\n' >wrong

export_raw() { ok tpsend --format raw -o "$1.raw" "p/$1"; }
# opens RAW KEY / opens_not RAW KEY
opens() { cryptsetup open --test-passphrase --key-file "$2" "$1.raw" || fail "$2 does not open $1"; }
opens_not() {
	! cryptsetup open --test-passphrase --key-file "$2" "$1.raw" 2>/dev/null ||
		fail "$2 still opens $1"
}
# the bytes after the header: equal to what they were (the data not rewritten)
data_same() {
	cmp -i $((16 << 20)) "$1.raw" "$1.data0" || fail "$1's data after its header changed"
}
# "vblock:dblock" of what VOL maps, as the thin metadata says: after its
# header (after) or in it (in)
mapped_pairs() {
	save_area p area.img
	thin_dump area.img | python3 -c '
import sys, re
dev, where = sys.argv[1], sys.argv[2]; cur = None; out = []
for line in sys.stdin:
    m = re.search(r"<device dev_id=\"(\d+)\"", line)
    if m: cur = m.group(1); continue
    if cur != dev: continue
    m = re.search(r"single_mapping origin_block=\"(\d+)\" data_block=\"(\d+)\"", line)
    if m:
        o, d, n = int(m.group(1)), int(m.group(2)), 1
    else:
        m = re.search(r"range_mapping origin_begin=\"(\d+)\" data_begin=\"(\d+)\" length=\"(\d+)\"", line)
        if not m: continue
        o, d, n = int(m.group(1)), int(m.group(2)), int(m.group(3))
    out += [(o + i, d + i) for i in range(n) if (o + i >= 256) == (where == "after")]
print(" ".join("%d:%d" % x for x in sorted(out)))' "$(vol_dev_id p "$1")" "$2"
}
# the data blocks VOL maps after its header
data_blocks() {
	mapped_pairs "$1" after
}

# ---- a volume with data after its header, and a snapshot before any change ----
ok tvcreate --encrypt --key-file k1 $FAST -V 64M -n e p
write_chunks p e 300 4
export_raw e
cp e.raw e.data0
opens e k1
blocks0=$(data_blocks e)
[ -n "$blocks0" ] || fail "e maps no data after its header"
ok tvsnap p/e -n s0

# ---- --add-key ----
ok tvchange --add-key --key-file k1 --new-key-file k2 $FAST p/e
out_has "Volume p/e: key added in keyslot 1 ("
out_has "chunks of its header written anew)"
out_has "keep their old keyslots: s0 ('tvchange --with-snapshots' changes them too)"
export_raw e
opens e k1
opens e k2
data_same e
[ "$(data_blocks e)" = "$blocks0" ] || fail "e's data chunks moved: $(data_blocks e), was $blocks0"
export_raw s0
opens s0 k1
opens_not s0 k2
cryptsetup luksDump s0.raw | grep -q "^  1: luks2" && fail "the snapshot got keyslot 1"

# ---- a wrong key, a plain volume, a read-only volume: nothing changes ----
unchanged 5 tvchange --add-key --key-file wrong --new-key-file k3 $FAST p/e
err_has "volume p/e: the key given opens none of its keyslots; nothing was changed"
unchanged 5 tvchange --change-key --key-file wrong --new-key-file k3 $FAST p/e
unchanged 5 tvchange --remove-key --key-file wrong p/e
ok tvcreate -V 32M -n plain p
unchanged 3 tvchange --add-key --key-file k1 --new-key-file k2 $FAST p/plain
err_has "volume p/plain is not encrypted"
ok tvsnap p/e -n ro
ok tvchange --readonly y p/ro
unchanged 5 tvchange --add-key --key-file k1 --new-key-file k3 $FAST p/ro
err_has "read-only"
# refused before a passphrase is asked (setsid: no terminal to ask on)
unchanged 5 setsid -w tvchange --add-key p/ro </dev/null
err_has "volume p/ro is read-only"
err_lacks "terminal"
unchanged 3 setsid -w tvchange --add-key p/plain </dev/null
err_has "volume p/plain is not encrypted"
err_lacks "terminal"
ok tvremove p/ro
unchanged 5 tvchange --add-key --key-file k1 --new-key-file k3 $FAST p/none
# bad command lines: 3, before any key is read or the pool opened
for bad in \
	"--key-file k1 p/e" \
	"--new-key-file k2 p/e" \
	"--with-snapshots p/e" \
	"$FAST p/e" \
	"--add-key --change-key --key-file k1 --new-key-file k2 p/e" \
	"--remove-key --key-file k1 --new-key-file k2 p/e" \
	"--remove-key --key-file k1 $FAST p/e" \
	"--add-key --key-file - --new-key-file - p/e" \
	"--add-key --key-file k1 --new-key-file k2 --activate n p/e" \
	"--add-key --key-file k1 --key-keyring x --new-key-file k2 p/e" \
	"--add-key --key-file k1 --new-key-file k2 --pbkdf scrypt p/e" \
	"--add-key --key-file missing --new-key-file k2 p/e" \
	"--add-key --key-file k1 --new-key-file missing p/e"; do
	# shellcheck disable=SC2086
	unchanged 3 tvchange $bad
done
# the new key's file named as such (not "the key of the new key of")
: >empty
unchanged 3 tvchange --add-key --key-file k1 --new-key-file empty $FAST p/e
err_has "key file empty is empty: an empty key protects nothing; give the file that holds the new key of volume p/e"
unchanged 3 tvchange --add-key --key-file k1 --new-key-file missing $FAST p/e
err_has "key file missing (the new key of volume p/e): cannot open it"
unchanged 3 tvchange --add-key --key-file missing --new-key-file k2 $FAST p/e
err_has "key file missing (the key of volume p/e): cannot open it"

# ---- --change-key, --remove-key, the last keyslot ----
ok tvchange --change-key --key-file k2 --new-key-file k3 $FAST p/e
out_has "Volume p/e: key in keyslot 1 changed into keyslot"
export_raw e
opens e k1
opens e k3
opens_not e k2
data_same e
ok tvchange --remove-key --key-file k1 p/e
out_has "Volume p/e: key in keyslot 0 removed ("
export_raw e
opens_not e k1
opens e k3
data_same e
[ "$(data_blocks e)" = "$blocks0" ] || fail "e's data chunks moved"
unchanged 5 tvchange --remove-key --key-file k3 p/e
err_has "last keyslot"
err_has "tvremove --wipe p/e"
# the snapshot taken before all of it: still the first key only
export_raw s0
opens s0 k1
opens_not s0 k3
expect_rc 0 tpcheck p

# ---- --with-snapshots: the writable ones, the read-only ones named ----
ok tvcreate --encrypt --key-file k1 $FAST -V 20M -n f p
ok tvsnap p/f -n f1
ok tvsnap p/f1 -n f2
ok tvsnap p/f -n fro
ok tvchange --readonly y p/fro
ok tvchange --change-key --with-snapshots --key-file k1 --new-key-file k2 $FAST p/f
out_has "Volume p/f: key in keyslot 0 changed"
out_has "Volume p/f1: key in keyslot 0 changed"
out_has "Volume p/f2: key in keyslot 0 changed"
out_has "read-only volume with the same volume key keeps its old keyslots: fro"
for v in f f1 f2; do
	export_raw $v
	opens $v k2
	opens_not $v k1
done
export_raw fro
opens fro k1
opens_not fro k2
# a snapshot whose header the key does not open: nothing changes anywhere
ok tvcreate --encrypt --key-file k1 $FAST -V 20M -n g p
ok tvsnap p/g -n g1
ok tvchange --change-key --key-file k1 --new-key-file k2 $FAST p/g
unchanged 5 tvchange --add-key --with-snapshots --key-file k2 --new-key-file k3 $FAST p/g
err_has "volume p/g1: the key given opens none of its keyslots"

# ---- killed at each pause of a key change: the old key or the new one ----
ok tvcreate --encrypt --key-file k1 $FAST -V 20M -n h p
for pause in keys-prepared after-vg-commit head-written after-apply; do
	TMPDIR=$PWD/killtmp killed_at "$pause" tvchange --add-key --key-file k1 \
		--new-key-file k2 $FAST p/h
	# the header copies (keyslots) have no name: nothing left in TMPDIR
	[ -z "$(ls -A killtmp)" ] || fail "killed at $pause: header copies left: $(ls -A killtmp)"
	export_raw h
	# every pause comes before the thin commit: the old header whole
	opens h k1
	opens_not h k2
	# the next command finishes what the cut left, then makes its own change
	ok tvchange --add-key --key-file k1 --new-key-file k2 $FAST p/h
	export_raw h
	opens h k1
	opens h k2
	ok tvchange --remove-key --key-file k2 p/h	# back for the next round
	expect_rc 0 tpcheck p
done

# INT while the headers are prepared: nothing changed, no temporary copy left
sums ./*.img >sums.before
rm -f pause
env TP_TEST_PAUSE=keys-prepared TP_TEST_PAUSE_FILE="$PWD/pause" \
	tvchange --add-key --key-file k1 --new-key-file k2 $FAST p/h >out 2>err &
pid=$!
wait_until "$pid" test -e pause || { cat err >&2; fail "tvchange never reached keys-prepared"; }
kill -INT "$pid"
rm -f pause
rc=0; wait "$pid" || rc=$?
[ $rc = 130 ] || { cat err >&2; fail "INT at keys-prepared: exit $rc, not 130"; }
err_has "stopped by a signal before it began; nothing was changed"
sums ./*.img | cmp -s - sums.before || fail "an interrupted key change changed an image"
[ -z "$(ls tmp)" ] || fail "an interrupted key change left its temporary copies: $(ls tmp)"

# TERM, INT and HUP after the commit: the change is made and said, then
# the signal ends tvchange (tvchange(8) EXIT STATUS: 143, 130, 129)
for sig in TERM:143 INT:130 HUP:129; do
	rm -f pause
	env TP_TEST_PAUSE=after-apply TP_TEST_PAUSE_FILE="$PWD/pause" \
		tvchange --add-key --key-file k1 --new-key-file k2 $FAST p/h >out 2>err &
	pid=$!
	wait_until "$pid" test -e pause || { cat err >&2; fail "tvchange never reached after-apply"; }
	kill -"${sig%:*}" "$pid"
	rm -f pause
	rc=0; wait "$pid" || rc=$?
	[ $rc = "${sig#*:}" ] || { cat err >&2; fail "${sig%:*} at after-apply: exit $rc"; }
	out_has "Volume p/h: key added in keyslot"
	err_has "the key change of volume h was made whole; the signal that came meanwhile ends tvchange now"
	export_raw h
	opens h k2
	[ -z "$(ls -A tmp)" ] || fail "${sig%:*}: header copies left: $(ls -A tmp)"
	ok tvchange --remove-key --key-file k2 p/h
done

# ---- crypto-erase: only the chunks the volume alone maps, the snapshot named ----
ok tvcreate --encrypt --key-file k1 $FAST -V 64M -n x p
ok tvsnap p/x -n xs
ok tvchange --add-key --key-file k1 --new-key-file k2 $FAST p/x
export_raw x
export_raw xs
# x's own header chunks (rewritten by the change) and those it shares with xs
python3 - x.raw xs.raw <<'EOF' >chunks.txt
import sys
a = open(sys.argv[1], "rb").read(16 << 20); b = open(sys.argv[2], "rb").read(16 << 20)
C = 65536
for i in range(256):
    x, s = a[i*C:(i+1)*C], b[i*C:(i+1)*C]
    if x == bytes(C): continue
    print(i, "shared" if x == s else "own")
EOF
grep -q own chunks.txt && grep -q shared chunks.txt || fail "x's header is not part own, part shared: $(cat chunks.txt)"
# count how often each of x's header chunks is on the data image
on_image() {
	python3 - x.raw p-data.img "$(pool_bytes p pool_data_offset)" <<'EOF'
import sys
x = open(sys.argv[1], "rb").read(16 << 20); off = int(sys.argv[3]); C = 65536
want = {}
for i in range(256):
    c = x[i*C:(i+1)*C]
    if c != bytes(C): want[c] = i
seen = {}
with open(sys.argv[2], "rb") as f:
    f.seek(off)
    while True:
        c = f.read(C)
        if len(c) < C: break
        if c in want: seen[want[c]] = seen.get(want[c], 0) + 1
for i in sorted(want.values()): print(i, seen.get(i, 0))
EOF
}
on_image >before.txt
awk '$2 != 1 { exit 1 }' before.txt || fail "x's header chunks are not each once on the image: $(cat before.txt)"
ok tvremove -y --wipe p/x
out_has "Volume p/x crypto-erased: $(grep -c own chunks.txt) chunks of its LUKS2 header (16 MiB) overwritten with random bytes"
out_has "its data chunks were not zeroed"
ns=$(grep -c shared chunks.txt)
if [ "$ns" = 1 ]; then
	out_has "Volume p/x: 1 chunk of its header is shared with xs, which keeps it in its own header; to erase it: 'tvremove --wipe p/xs'."
else
	out_has "Volume p/x: $ns chunks of its header are shared with xs, which keeps them in its own header; to erase it: 'tvremove --wipe p/xs'."
fi
out_has "Volume p/x removed."
on_image >after.txt
while read -r i kind; do
	n=$(awk -v i="$i" '$1 == i { print $2 }' after.txt)
	if [ "$kind" = own ]; then
		[ "$n" = 0 ] || fail "x's own header chunk $i is still on the data image"
	else
		[ "$n" = 1 ] || fail "x's header chunk $i, shared with xs, is gone ($n)"
	fi
done <chunks.txt
cp xs.raw xs.before
export_raw xs
cmp xs.raw xs.before || fail "the erase of x changed its snapshot xs"
opens xs k1
expect_rc 0 tpcheck p
# the snapshot too: then no chunk of the header is anywhere
ok tvremove --wipe p/xs
out_has "Volume p/xs crypto-erased"
out_lacks "shared with"
on_image >after.txt
awk '$2 != 0 { exit 1 }' after.txt || fail "a chunk of x's header survives: $(cat after.txt)"

# ---- a plain volume's --wipe still zeroes ----
ok tvremove --wipe p/plain
out_has "Volume p/plain wiped"

# ---- killed before each chunk of the erase; finished by a rerun; the header nowhere ----
ok tvcreate --encrypt --key-file k1 $FAST -V 64M -n y p
export_raw y
# where y's header lies: "vblock:dblock" for its first 16 MiB
map=$(mapped_pairs y in)
n=$(wc -w <<<"$map")
# (the header maps all its 256 chunks: libcryptsetup fills its keyslot area)
[ "$n" -ge 2 ] || fail "y's header maps $n chunks"
for i in 1 2 $((n / 2)) "$n"; do
	# stopped before its chunk i: i - 1 chunks random, the binary headers last
	TMPDIR=$PWD/killtmp killed_at "erase-chunk=$i" tvremove --wipe p/y
	[ -n "$(vol_field p y vol_name)" ] || fail "killed at chunk $i of the erase, y is gone"
	export_raw y
	cryptsetup isLuks y.raw || fail "killed before chunk $i of $n, y's binary header is gone already"
	[ "$i" != "$n" ] || opens_not y k1	# every keyslot chunk but the first random
done
ok tvremove --wipe p/y
out_has "Volume p/y crypto-erased: $n chunks of its LUKS2 header (16 MiB)"
out_has "Volume p/y removed."
[ -z "$(vol_field p y vol_name)" ] || fail "y is still there"
# what the blocks y's header was in hold now, in y's order: no LUKS header
python3 - p-data.img "$(pool_bytes p pool_data_offset)" "$map" <<'EOF' >gone.raw
import sys
f = open(sys.argv[1], "rb"); off = int(sys.argv[2]); C = 65536
out = bytearray(16 << 20)
for vd in sys.argv[3].split():
    v, d = map(int, vd.split(":"))
    f.seek(off + d * C); out[v*C:(v+1)*C] = f.read(C)
sys.stdout.buffer.write(out)
EOF
! cryptsetup isLuks gone.raw || fail "y's old header blocks still hold a LUKS header"
! cryptsetup luksDump gone.raw >/dev/null 2>&1 || fail "luksDump reads y's old header blocks"
cmp -s -n $((16 << 20)) gone.raw y.raw && fail "y's header blocks were not written"
expect_rc 0 tpcheck p
[ -z "$(ls tmp)" ] || fail "temporary header files were left: $(ls tmp)"
