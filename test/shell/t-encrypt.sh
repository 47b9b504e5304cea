# SPDX-License-Identifier: GPL-2.0-or-later
# Encrypted volumes offline (tvcreate(8) "Encrypted volumes", tptools(7)
# ENCRYPTION): tvcreate --encrypt --key-file k -V 64M makes a volume whose
# raw export (tpsend --format raw) is a LUKS2 image that cryptsetup
# accepts (isLuks, luksDump with the uuid the VG records), that opens with
# k and refuses another key; the volume maps the 16 MiB of its header and
# nothing after it (the header and zeros); --allow-discards is the
# header's persistent flag; the key comes from a file, standard input,
# the kernel keyring (when keyctl is installed; test_crypt covers it
# always) or the terminal (script(1): asked twice, echo off, two that
# differ refused); a snapshot has the same luks uuid and the same header
# bytes. The reports: vol_encrypted, vol_luks_uuid, vol_unlocked, the
# attr letter, JSON and Prometheus. tpcheck reports a header overwritten,
# another volume's header (another uuid) and a LUKS1 header on the data
# image, naming each volume sharing it and no tprepair; --fast skips it.
# Bad input (a missing, empty or too big key file, no such keyring key,
# too small a volume, encryption options without --encrypt, both key
# options, a bad PBKDF option) exits 3 with every image byte for byte. A
# live pool's refusal needs a kernel (not here). Stopped in the import,
# never a volume: INT drops everything, KILL leaves an unfinished receive
# that tprecv --abort drops; no temporary header file is left.
have cryptsetup || fail "cryptsetup not installed (cryptsetup-bin)"
DATA_SIZE=512M META_SIZE=16M
new_pool p --chunk 64k
C=65536
FAST="--pbkdf pbkdf2 --pbkdf-force-iterations 1000"
mkdir tmp killtmp
export TMPDIR=$PWD/tmp	# the headers' temporary files, checked at the end
printf 'the key of e\n' >k
printf 'not the key\n' >wrong

# export VOL: its raw image in VOL.raw
export_raw() { ok tpsend --format raw -o "$1.raw" "p/$1"; }
luks_uuid() { cryptsetup luksDump "$1" | awk '$1 == "UUID:" { print $2 }'; }

# ---- a new encrypted volume ----
ok tvcreate --encrypt --key-file k $FAST -V 64M -n e p
out_has "Volume p/e created (64 MiB)."
out_has "Unwritten ranges of p/e read as random bytes once it is unlocked, not as zeros."
cp out create.out
export_raw e
[ "$(stat -c %s e.raw)" = $((64 << 20)) ] || fail "e's export is not 64 MiB"
cryptsetup isLuks --type luks2 e.raw || fail "e's export is no LUKS2 image"
u=$(luks_uuid e.raw)
[ -n "$u" ] || fail "luksDump shows no uuid"
grep -q "LUKS2 uuid $u" create.out || fail "tvcreate did not name the uuid $u"
cryptsetup luksDump e.raw >dump || fail "luksDump failed"
grep -q "cipher: aes-xts-plain64" dump || fail "not libcryptsetup's default cipher"
grep -q "offset: 16777216 \[bytes\]" dump || fail "the data does not begin at 16 MiB"
grep -q "PBKDF:      pbkdf2" dump || fail "--pbkdf pbkdf2 not taken"
grep -q "Iterations: 1000" dump || fail "--pbkdf-force-iterations not taken"
grep -q "sector: 4096" dump || fail "not 4096-byte sectors for a 64 MiB volume"
grep -q "^Flags:[[:space:]]*(no flags)" dump || fail "flags without --allow-discards: $(grep Flags dump)"
cryptsetup open --test-passphrase --key-file k e.raw || fail "k does not open e"
expect_rc 2 cryptsetup open --test-passphrase --key-file wrong e.raw
# the header, then nothing: the volume maps the header's 16 MiB only
cmp -n $((48 << 20)) -i $((16 << 20)) e.raw /dev/zero ||
	fail "e maps something after its header"
[ "$(vol_field p e vol_mapped --units b)" = "$((16 << 20))b" ] ||
	fail "e maps $(vol_field p e vol_mapped --units b), not its 16 MiB header"
[ "$(vol_field p e vol_read_only)" = no ] || fail "e is not writable"

# ---- a snapshot shares the header and the uuid ----
ok tvsnap p/e -n s
export_raw s
cmp -n $((16 << 20)) e.raw s.raw || fail "the snapshot's header bytes differ from e's"
[ "$(luks_uuid s.raw)" = "$u" ] || fail "the snapshot has another luks uuid"
cryptsetup open --test-passphrase --key-file k s.raw || fail "k does not open the snapshot"

# ---- discards, standard input, the keyring, argon2 ----
ok tvcreate --encrypt --allow-discards --key-file - $FAST -V 20M -n d p <k
export_raw d
cryptsetup luksDump d.raw | grep -q "^Flags:[[:space:]]*allow-discards" ||
	fail "--allow-discards is not the header's persistent flag"
cryptsetup open --test-passphrase --key-file k d.raw || fail "the key from stdin does not open d"
# not a multiple of 4 KiB: 512-byte sectors
ok tvcreate --encrypt --key-file k $FAST -V 20483K -n odd p
export_raw odd
cryptsetup luksDump odd.raw | grep -q "sector: 512 " || fail "odd: not 512-byte sectors"
if have keyctl; then
	id=$(keyctl padd user tptools-test:t-encrypt @s <k)
	ok tvcreate --encrypt --key-keyring tptools-test:t-encrypt $FAST -V 20M -n r p
	keyctl unlink "$id" @s >/dev/null
	export_raw r
	cryptsetup open --test-passphrase --key-file k r.raw || fail "the keyring's key does not open r"
fi
# the terminal (script(1) gives it one): asked twice with echo off
# (the answers never appear in what the terminal shows); two that differ
# are refused with exit 3
# on_tty NAME ANSWER1 ANSWER2: tvcreate --encrypt -n NAME on a terminal,
# the answers typed once each prompt shows (ANSWER2 -: none); its exit
# code in tty.rc
on_tty() {
	local pid
	rm -f tty.in tty.out tty.rc
	mkfifo tty.in
	( rc=0
	  script -qefc "tvcreate --encrypt $FAST -V 20M -n $1 p" /dev/null <tty.in >tty.out 2>&1 ||
		rc=$?
	  echo $rc >tty.rc ) &
	pid=$!
	exec 7>tty.in
	wait_until "$pid" grep -q "New passphrase for volume p/$1: " tty.out ||
		{ cat tty.out >&2; fail "no prompt for $1"; }
	printf '%s\n' "$2" >&7
	if [ "$3" != - ]; then	# -: no second answer
		wait_until "$pid" grep -q "The same passphrase again: " tty.out ||
			{ cat tty.out >&2; fail "no second prompt for $1"; }
		printf '%s\n' "$3" >&7
	fi
	wait_until "$pid" test -s tty.rc
	exec 7>&-
	wait "$pid"
	if grep -q -- "$2" tty.out || grep -q -- "$3" tty.out; then
		cat tty.out >&2; fail "a passphrase was echoed"
	fi
}
if have script; then
	on_tty t "pass phrase" "pass phrase"
	[ "$(cat tty.rc)" = 0 ] || { cat tty.out >&2; fail "tvcreate on a terminal failed"; }
	grep -q "Volume p/t created" tty.out || fail "no volume t"
	export_raw t
	printf 'pass phrase' >tk
	cryptsetup open --test-passphrase --key-file tk t.raw || fail "the passphrase does not open t"
	sums ./*.img >before
	on_tty t2 "pass phrase" "pass frase"
	[ "$(cat tty.rc)" = 3 ] || { cat tty.out >&2; fail "two passphrases that differ: exit $(cat tty.rc)"; }
	grep -q "the two passphrases for volume p/t2 differ" tty.out || fail "no message for the mismatch"
	sums_same before || fail "a refused passphrase changed a device"
	# ^C at the prompt (the terminal's SIGINT, echo off): the command ends
	# 130, echo put back first, nothing written
	on_tty t3 "$(printf '\003')" -
	[ "$(cat tty.rc)" = 130 ] || { cat tty.out >&2; fail "^C at the prompt: exit $(cat tty.rc)"; }
	sums_same before || fail "^C at the prompt changed a device"
fi
ok tvcreate --encrypt --key-file k --pbkdf argon2id --pbkdf-memory 32 \
	--pbkdf-force-iterations 4 -V 20M -n a2 p
export_raw a2
cryptsetup luksDump a2.raw | grep -q "PBKDF:      argon2id" || fail "--pbkdf argon2id not taken"
cryptsetup open --test-passphrase --key-file k a2.raw || fail "k does not open a2"
expect_rc 0 tpcheck p

# ---- reports: fields, attr, JSON, Prometheus ----
ok tvcreate -V 20M -n plain p
[ "$(vol_field p e vol_encrypted)" = yes ] || fail "vol_encrypted of e"
[ "$(vol_field p s vol_encrypted)" = yes ] || fail "vol_encrypted of the snapshot"
[ "$(vol_field p plain vol_encrypted)" = no ] || fail "vol_encrypted of a plain volume"
[ "$(vol_field p e vol_luks_uuid)" = "$u" ] || fail "vol_luks_uuid is not luksDump's $u"
[ "$(vol_field p s vol_luks_uuid)" = "$u" ] || fail "the snapshot's vol_luks_uuid"
[ -z "$(vol_field p plain vol_luks_uuid)" ] || fail "a plain volume has a luks uuid"
[ "$(vol_field p e vol_unlocked)" = no ] || fail "vol_unlocked offline"
[ "$(vol_field p e vol_attr)" = Vw----e ] || fail "vol_attr of e: $(vol_field p e vol_attr)"
[ "$(vol_field p s vol_attr)" = sw----e ] || fail "vol_attr of s: $(vol_field p s vol_attr)"
[ "$(vol_field p plain vol_attr)" = Vw----- ] || fail "vol_attr of plain: $(vol_field p plain vol_attr)"
ok tvcreate --encrypt --activate n --key-file k $FAST -V 20M -n skip p
[ "$(vol_field p skip vol_attr)" = Vw---ke ] || fail "--activate n with --encrypt: $(vol_field p skip vol_attr)"
ok tpstatus --json p
cat >vols_check.py <<'PY'
import json, sys
vols = {v["vol_name"]: v for t in json.load(sys.stdin)["report"] if "volume" in t for v in t["volume"]}
assert vols["e"]["vol_encrypted"] == "yes" and vols["e"]["vol_luks_uuid"] == sys.argv[1], vols["e"]
assert vols["e"]["vol_unlocked"] == "no" and vols["e"]["vol_attr"] == "Vw----e", vols["e"]
assert vols["plain"]["vol_encrypted"] == "no" and vols["plain"]["vol_luks_uuid"] == "", vols["plain"]
PY
python3 vols_check.py "$u" <out || fail "JSON of the encrypted volumes"
ok tpstatus --format prometheus p
grep -qx 'tptools_volume_encrypted{pool="p",volume="e"} 1' out || fail "prometheus: e not encrypted"
grep -qx 'tptools_volume_encrypted{pool="p",volume="plain"} 0' out || fail "prometheus: plain encrypted"
if have promtool; then promtool check metrics <out >lint 2>&1 || { cat lint >&2; fail "promtool"; }; fi

# ---- tpcheck: a header unreadable, not LUKS2, or another uuid ----
off=$(pool_bytes p pool_data_offset)
save_area p area.img
# data chunk N of volume VOL's virtual chunk 0, from thin_dump
chunk0() {
	thin_dump area.img | awk -v id="$(vol_dev_id p "$1")" '
		/<device dev_id="/ { on = index($0, "dev_id=\"" id "\"") > 0 }
		on && /origin_begin="0"/ { sub(/.*data_begin="/, ""); sub(/".*/, ""); print; exit }
		on && /origin_block="0"/ { sub(/.*data_block="/, ""); sub(/".*/, ""); print; exit }'
}
e0=$(chunk0 e)
[ -n "$e0" ] || fail "no data chunk found for e's first chunk"
put_chunk0() { dd if="$1" of=p-data.img bs=$C seek=$((off / C + e0)) count=1 conv=notrunc status=none; }
dd if=p-data.img of=good0 bs=$C skip=$((off / C + e0)) count=1 status=none
cmp -n $C good0 e.raw || fail "chunk $e0 is not e's first chunk"
# (e and s share the chunk: both are reported)
head -c $C /dev/urandom >junk
put_chunk0 junk
expect_rc 1 tpcheck p
out_has "encrypted volume p/e: it begins with no LUKS header"
out_has "encrypted volume p/s: it begins with no LUKS header"
out_lacks "p/d:"
out_has "next: tprepair cannot mend an encrypted volume's header"
out_lacks "run 'tprepair"
# both named; no rollback advised (s shares the damaged chunk), no
# luksHeaderBackup (no offline command restores one)
out_has "p/e has no snapshot with a sound copy of its header"
out_has "p/s has no snapshot with a sound copy of its header"
out_lacks "tvrollback"
out_lacks "luksHeader"
# a header that cannot be read: its size is not changed
unchanged 5 tvresize -V 80M p/e
err_has "its size is not changed while its LUKS2 header cannot be read"
# another encrypted volume's header (d's): a uuid that is not e's
dd if=d.raw of=other0 bs=$C count=1 status=none
put_chunk0 other0
expect_rc 1 tpcheck p
out_has "encrypted volume p/e: its LUKS2 header has uuid $(luks_uuid d.raw), not the $u the pool recorded"
# a LUKS1 header
image l1.img 4M
cryptsetup luksFormat -q --type luks1 --pbkdf-force-iterations 1000 --key-file k l1.img ||
	fail "cannot make a LUKS1 image"
dd if=l1.img of=luks1 bs=$C count=1 status=none
put_chunk0 luks1
expect_rc 1 tpcheck p
out_has "encrypted volume p/e: it begins with a LUKS1 header, not the LUKS2 header"
tpcheck --fast p >out 2>err; [ $? = 0 ] || { cat err >&2; fail "tpcheck --fast reads headers"; }
put_chunk0 good0
expect_rc 0 tpcheck p
# once e's header is rewritten (a key added), s keeps the old one: e's
# damage is met by a rollback to s, which the next: line names and which works
printf 'second key\n' >k2
ok tvchange --add-key --key-file k --new-key-file k2 $FAST p/e
save_area p area.img
e1=$(chunk0 e)
[ -n "$e1" ] && [ "$e1" != "$e0" ] || fail "tvchange --add-key did not give e a header chunk of its own"
dd if=junk of=p-data.img bs=$C seek=$((off / C + e1)) count=1 conv=notrunc status=none
expect_rc 1 tpcheck p
out_has "encrypted volume p/e: it begins with no LUKS header"
out_lacks "encrypted volume p/s:"
out_has "roll p/e back to s, whose header is sound ('tvrollback --to s p/e')"
ok tvrollback --to s p/e
expect_rc 0 tpcheck p
rm -f ./*.raw

# ---- bad input: exit 3, every image byte for byte ----
: >empty
head -c 8193 /dev/zero | tr '\0' k >big
for bad in \
	"--encrypt --key-file missing $FAST -V 64M -n x p" \
	"--encrypt --key-file empty $FAST -V 64M -n x p" \
	"--encrypt --key-file big $FAST -V 64M -n x p" \
	"--encrypt --key-file . $FAST -V 64M -n x p" \
	"--encrypt --key-keyring tptools-test:none-such $FAST -V 64M -n x p" \
	"--encrypt --key-file k --key-keyring d $FAST -V 64M -n x p" \
	"--encrypt --key-file k --key-file wrong $FAST -V 64M -n x p" \
	"--encrypt --key-file=k --key-file=k $FAST -V 64M -n x p" \
	"--encrypt --key-keyring a --key-keyring b $FAST -V 64M -n x p" \
	"--encrypt --key-file k $FAST -V 16M -n x p" \
	"--encrypt --key-file k $FAST -V 16387K -n x p" \
	"--allow-discards -V 64M -n x p" \
	"--key-file k -V 64M -n x p" \
	"--pbkdf pbkdf2 -V 64M -n x p" \
	"--encrypt --key-file k --pbkdf scrypt -V 64M -n x p" \
	"--encrypt --key-file k --pbkdf pbkdf2 --pbkdf-memory 64 -V 64M -n x p" \
	"--encrypt --key-file k --pbkdf pbkdf2 --pbkdf-force-iterations 10 -V 64M -n x p" \
	"--encrypt --key-file k --iter-time 0 -V 64M -n x p" \
	"--encrypt --key-file k --iter-time 100 --pbkdf-force-iterations 2000 -V 64M -n x p"; do
		# shellcheck disable=SC2086
	unchanged 3 tvcreate $bad
done
unchanged 3 tvcreate --encrypt --key-file empty $FAST -V 64M -n x p
err_has "key file empty is empty"
unchanged 3 tvcreate --encrypt --key-file k $FAST -V 16M -n x p
err_has "give -V 16388K or more"
unchanged 3 tvcreate --encrypt --key-file k --key-file wrong $FAST -V 64M -n x p
err_has "key-file is given twice"
unchanged 3 tvchange --add-key --key-file k --new-key-file k2 --new-key-file k $FAST p/e
err_has "new-key-file is given twice"
unchanged 3 tvcreate --allow-discards -V 64M -n x p
err_has "add --encrypt"
unchanged 3 tvcreate --pbkdf-memory 64 -V 64M -n x p
err_has "pbkdf-memory applies to an encrypted volume only: add --encrypt"
# no terminal to ask on (setsid: no controlling terminal)
unchanged 3 setsid -w tvcreate --encrypt $FAST -V 64M -n x p </dev/null
err_has "no terminal to ask for the passphrase of volume p/x"
# no such pool: refused before a passphrase is asked for
expect_rc 5 setsid -w tvcreate --encrypt $FAST -V 64M -n x nosuch </dev/null
err_lacks "passphrase"
# the name taken: 5, nothing written
unchanged 5 tvcreate --encrypt --key-file k $FAST -V 64M -n e p

# ---- no room for the header's 16 MiB, or above the over-provisioning
# limit: refused before a key is asked for, exit 5, nothing changed ----
DATA_SIZE=24M new_pool q --chunk 64k
ok tvcreate --encrypt --key-file k $FAST -V 20M -n a q
unchanged 5 tvcreate --encrypt --key-file k $FAST -V 20M -n b q
err_has "LUKS2 header of encrypted volume b takes 16 MiB"
err_has "run tvcreate again; nothing was changed"
err_lacks "import"
unchanged 5 setsid -w tvcreate --encrypt $FAST -V 20M -n b q </dev/null
err_lacks "passphrase"
ok tvremove -y q/a
ok tpchange --max-overprovision 1.0 q
unchanged 5 tvcreate --encrypt --key-file k $FAST -V 1G -n b q
err_has "over-provisioning limit"
[ -z "$(ls -A tmp)" ] || fail "a refused tvcreate left $(ls -A tmp)"

# ---- tvresize keeps the header and whole encryption sectors: a size
# below the header and one sector, or not a multiple of the volume's own
# sector size (its header's), exits 3 naming the nearest valid sizes ----
unchanged 3 tvresize -V 16M p/e
err_has "give -V 16388K or more"
unchanged 3 tvresize -V 20483K p/e
err_has "4096-byte sectors"
err_has "give -V 20480K or -V 20484K"
unchanged 3 tvresize -V +1K p/e
err_has "give -V 65536K or -V 65540K"
unchanged 3 tvresize -V 16M p/odd
err_has "512-byte sectors"
err_has "give -V 16777728b or more"
ok tvresize -V 16385K p/odd
ok tvresize -V 20484K p/e
ok tvresize -V 64M p/e
ok tvresize -V 20481K p/odd
ok tvresize -V 20483K p/odd

# ---- a signal while the header is made waits for it, then stops the
# command before the import: no volume, no temporary file ----
sums ./*.img >before
tvcreate --encrypt --key-file k --pbkdf pbkdf2 --iter-time 2000 -V 64M -n x p >out 2>err &
pid=$!
# the header's file is open in TMPDIR, and has no name there
holds_tmp() { ls -l "/proc/$1/fd" 2>/dev/null | grep -q -- "-> $2/"; }
wait_until "$pid" holds_tmp "$pid" "$PWD/tmp" || { cat err >&2; fail "no temporary header file seen"; }
[ -z "$(ls -A tmp)" ] || fail "the header's temporary file has a name: $(ls -A tmp)"
kill -INT "$pid"
rc=0; wait "$pid" || rc=$?
[ $rc = 130 ] || { cat err >&2; fail "INT while the header is made: exit $rc, not 130"; }
err_has "stopped by a signal before the import; nothing was written"
[ -z "$(ls tmp)" ] || fail "INT while the header is made left $(ls tmp)"
sums_same before || fail "INT while the header is made changed a device"

# ---- stopped in the import: never a volume ----
sums ./*.img >before
env TP_TEST_PAUSE=recv-data-done TP_TEST_PAUSE_FILE="$PWD/pause" \
	tvcreate --encrypt --key-file k $FAST -V 64M -n x p >out 2>err &
pid=$!
wait_until "$pid" test -e pause || { cat err >&2; fail "tvcreate never reached recv-data-done"; }
kill -INT "$pid"
rm -f pause
rc=0; wait "$pid" || rc=$?
[ $rc = 130 ] || { cat err >&2; fail "INT in the import: exit $rc, not 130"; }
err_has "stopped by a signal while it wrote the volume's LUKS2 header; nothing was changed"
[ -z "$(vol_field p x vol_name)" ] || fail "an interrupted tvcreate --encrypt left volume x"
# SIGKILL leaves no copy of the header (keyslots included) in its TMPDIR:
# killed while the import has it, and tpcheck killed while it holds one
for at in recv-begun recv-data-done; do
	TMPDIR=$PWD/killtmp killed_at $at tvcreate --encrypt --key-file k $FAST -V 64M -n x p
	[ -z "$(ls -A killtmp)" ] || fail "tvcreate killed at $at left $(ls -A killtmp) in its TMPDIR"
	[ -z "$(vol_field p x vol_name)" ] || fail "a killed tvcreate --encrypt left volume x"
	if [ $at = recv-data-done ]; then	# its 16 MiB, said alike in every format
		for f in "" "--json" "--format prometheus" "-o vol_name"; do
			# shellcheck disable=SC2086
			ok tpstatus $f p
			err_has "the raw import of x was cut short (16 MiB of data"
		done
	fi
	ok tprecv --abort x p
done
TMPDIR=$PWD/killtmp killed_at crypt-header-loaded tpcheck p
[ -z "$(ls -A killtmp)" ] || fail "tpcheck killed with a header copy left $(ls -A killtmp)"
expect_rc 0 tpcheck p

# ---- tpcheck where TMPDIR cannot hold a header copy: tpcheck could not
# check (5), naming TMPDIR; no volume is said damaged, no rollback advised ----
: >afile
for t in "$PWD/none" "$PWD/afile"; do
	sums ./*.img >before
	TMPDIR=$t expect_rc 5 tpcheck p
	err_has "could not be checked"
	err_has "TMPDIR, now $t"
	out_lacks "cannot be unlocked"
	out_lacks "tvrollback"
	out_lacks "non-fatal"
	TMPDIR=$t expect_rc 5 tpcheck --json p
	grep -q '"result": "error"' out || { cat out >&2; fail "tpcheck --json: no error result"; }
	out_lacks "cannot be unlocked"
	sums_same before || fail "tpcheck with TMPDIR $t changed a device"
done
ok tvcreate --encrypt --key-file k $FAST -V 64M -n x p
[ -z "$(ls tmp)" ] || fail "temporary header files were left: $(ls tmp)"
