# SPDX-License-Identifier: GPL-2.0-or-later
# Replication of an encrypted volume without keys (tpsend.8, tprecv.8,
# tp-stream.5), of a volume tvcreate --encrypt made: a full stream of an
# encrypted snapshot is version 2, marked encrypted with the volume's LUKS2
# uuid, and received into a pool of a host that holds no key as an
# encrypted volume with the same uuid, whose raw export is byte-identical
# to the sender's and unlocks with the key (cryptsetup); an incremental
# stream between two encrypted snapshots carries only the changed
# ciphertext chunks, and after a key change (tvchange --change-key) only
# the header's chunks, the copy then unlocking with the new key only; a
# receive killed part-way goes on with --resume into
# the same encrypted volume. Refused, exit 5, every image byte for byte: an
# incremental stream onto a plain base, a plain one onto an encrypted base,
# one of another LUKS2 header; a full stream whose first chunk is not the
# header it names; on the sender, a base not encrypted as the volume, and
# an encrypted volume without its header. With recv/require_encrypted = y
# the encrypted stream is received and a plain one refused.
have python3 || skip "python3 not installed"
have cryptsetup || skip "cryptsetup not installed"
have tp-thinmap || fail "tp-thinmap not built (make tests)"
stream_uuid() { dd if="$1" bs=1 skip=32 count=36 status=none; }	# the content uuid (tp-stream(5))
restamp() { python3 "$TOP/test/data/stream/restamp.py" "$@" || fail "restamp.py $*"; }
# luks POOL VOL: the uuid of the volume's LUKS2 header (tpstatus, from the VG)
luks() { vol_field "$1" "$2" vol_luks_uuid; }
DATA_SIZE=256M
new_pool src --chunk 64k
DATA_SIZE=128M
new_pool dst --chunk 64k
head -c 64 /dev/urandom >k
head -c 64 /dev/urandom >wrong

# the encrypted volume, its header made by libcryptsetup (tvcreate --encrypt)
ok tvcreate --encrypt --key-file k --pbkdf pbkdf2 --pbkdf-force-iterations 1000 -V 20M -n e src
U=$(luks src e)
[ -n "$U" ] || fail "src/e is not encrypted"
# ciphertext written as the kernel would (dm-crypt's output: random bytes)
write_chunks src e 300 3
ok tvsnap --readonly src/e -n e1

# full: version 2, encrypted, the uuid; received with no key anywhere
ok tpsend -o full.stream src/e1
[ "$(od -An -tu4 -j8 -N8 full.stream | tr -s ' ')" = " 2 2" ] || fail "not a version 2 encrypted stream"
[ "$(dd if=full.stream bs=1 skip=169 count=36 status=none)" = "$U" ] || fail "the stream does not name the LUKS uuid"
ls "$TPTOOLS_DIR" | grep -qi key && fail "the receiving host has a key"
ok tprecv -i full.stream dst
out_has "Volume dst/e1 received (20 MiB, "
out_has "), read-only, encrypted."
[ "$(luks dst e1)" = "$U" ] || fail "dst/e1's LUKS uuid is '$(luks dst e1)', not the sender's $U"
ok tpsend --format raw -o sent.raw src/e1
ok tpsend --format raw -o got.raw dst/e1
[ "$(vol_field dst e1 vol_encrypted)" = yes ] || fail "tpstatus does not call dst/e1 encrypted"
cmp sent.raw got.raw || fail "the received volume's image differs from the sender's"
cryptsetup isLuks got.raw || fail "the received volume's image is no LUKS image"
cryptsetup open --test-passphrase --key-file k got.raw || fail "the key does not open the received volume"
cryptsetup open --test-passphrase --key-file wrong got.raw 2>/dev/null && fail "a wrong key opens it"
[ "$(cryptsetup luksUUID got.raw)" = "$U" ] || fail "the image's header is not the VG's"

# incremental between two encrypted snapshots: the changed chunks only
write_chunks src e 301 1	# rewritten
write_chunks src e 310 2	# new
ok tvsnap --readonly src/e -n e2
ok tpsend --from e1 -o inc.stream src/e2
out_has "Wrote src/e2 to inc.stream: 20 MiB, 192 KiB of it changed data."
[ "$(od -An -tu4 -j8 -N8 inc.stream | tr -s ' ')" = " 2 3" ] || fail "not a version 2 encrypted incremental stream"

# refused on the receiver: a base that is not encrypted as the stream
DATA_SIZE=128M
new_pool plainbase --chunk 64k
restamp full.stream plain-full.stream version=1 flags=0 luks=
ok tprecv -i plain-full.stream plainbase	# e1's bytes, as a plain volume
[ -z "$(luks plainbase e1)" ] || fail "a plain stream made an encrypted volume"
unchanged 5 tprecv -i inc.stream plainbase
err_has "the stream is encrypted (LUKS2 header $U) but its base e1 is a plain volume; nothing was received"
restamp inc.stream plain-inc.stream version=1 flags=1 luks=
unchanged 5 tprecv -i plain-inc.stream dst
err_has "the stream is not encrypted but its base e1 is (LUKS2 header $U); nothing was received"
other=0d1c2b3a-4958-4677-8695-a4b3c2d1e0f9
restamp inc.stream other-inc.stream luks=$other
unchanged 5 tprecv -i other-inc.stream dst
err_has "the stream is encrypted with LUKS2 header $other, its base e1 with $U: they are not the same volume's"
# a full stream whose header is another uuid's than the stream names
restamp full.stream other-full.stream luks=$other
unchanged 5 tprecv -i other-full.stream -n x plainbase
err_has "marked encrypted with LUKS2 header $other, but its volume begins with a LUKS2 header of another uuid; nothing was received"

# the incremental stream received: only the changed chunks were written
before=$(pool_bytes dst pool_data_used)
ok tprecv -i inc.stream dst
out_has "Volume dst/e2 received as changes to e1 (20 MiB, 192 KiB of data), read-only, encrypted."
[ "$(( $(pool_bytes dst pool_data_used) - before ))" = $((3 * 65536)) ] ||
	fail "the incremental receive allocated $(( $(pool_bytes dst pool_data_used) - before )) bytes, not 3 chunks"
[ "$(luks dst e2)" = "$U" ] || fail "dst/e2's LUKS uuid is not the sender's"
ok tpsend --format raw -o sent.raw src/e2
ok tpsend --format raw -o got.raw dst/e2
cmp sent.raw got.raw || fail "the received e2 differs from the sender's"
cryptsetup open --test-passphrase --key-file k got.raw || fail "the key does not open dst/e2"
ok tpcheck dst

# a key change on the sender rewrites the header's chunks only: they are
# all the next incremental stream carries, and the copy then unlocks with
# the new key, not the old, while the copy of the older snapshot keeps its
# own header (the old key)
head -c 64 /dev/urandom >k2
ok tvchange --change-key --key-file k --new-key-file k2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 src/e
ok tvsnap --readonly src/e -n e3
ok tpsend --from e2 -o keys.stream src/e3
python3 - keys.stream <<'EOF' || fail "the key change's stream carries more than the header's chunks"
import struct, sys
b = open(sys.argv[1], 'rb').read()
pos, data, ends = 256, 0, []
while True:
    kind, _, off, length = struct.unpack_from('<IIQQ', b, pos)
    pos += 32
    if kind == 3:
        break
    if kind == 1:
        data += length
        pos += length
    ends.append(off + length)
# some data, all of it before the ciphertext (LUKS2's data offset, 16 MiB)
sys.exit(0 if data and max(ends) <= 16 << 20 else 1)
EOF
ok tprecv -i keys.stream dst
out_has "Volume dst/e3 received as changes to e2"
ok tpsend --format raw -o sent.raw src/e3
ok tpsend --format raw -o got.raw dst/e3
cmp sent.raw got.raw || fail "the received e3 differs from the sender's"
cryptsetup open --test-passphrase --key-file k2 got.raw || fail "the new key does not open dst/e3"
cryptsetup open --test-passphrase --key-file k got.raw 2>/dev/null && fail "the old key still opens dst/e3"
ok tpsend --format raw -o got.raw dst/e2
cryptsetup open --test-passphrase --key-file k got.raw || fail "dst/e2 lost its own header (the old key)"

# refused on the sender: a plain base for an encrypted volume, and the reverse
ok tvcreate -V 20M -n p src
write_chunks src p 0 2
ok tvsnap --readonly src/p -n p1
unchanged 5 tpsend --from p1 -o x.stream src/e2
err_has "pool src: e2 is encrypted with LUKS2 header $U, its base p1 plain: an incremental stream goes between snapshots of one encrypted volume, or of plain volumes; nothing was sent"
[ ! -e x.stream ] || fail "a refused tpsend wrote its output"
unchanged 5 tpsend --from e1 -o x.stream src/p1
err_has "pool src: p1 is plain, its base e1 with header $U"
[ ! -e x.stream ] || fail "a refused tpsend wrote its output"
# an encrypted volume whose header chunk was overwritten is not sent
write_chunks src e 0 1
ok tvsnap --readonly src/e -n broken
unchanged 5 tpsend -o x.stream src/broken
err_has "volume broken is encrypted with LUKS2 header $U, but it begins with no LUKS header: not sent"
err_has "('tpcheck src' reports the volume)"
expect_rc 1 tpcheck src	# as the message says
grep -q broken out err || fail "tpcheck src does not name the volume tpsend refused"

# a receive cut short goes on encrypted (the unfinished receive keeps the uuid)
DATA_SIZE=128M
new_pool cut --chunk 64k
rm -f pause
TP_TEST_PAUSE=recv-record=1 TP_TEST_PAUSE_FILE=$PWD/pause tprecv -i full.stream cut >out 2>err &
pid=$!
wait_until "$pid" test -e pause || { cat err >&2; fail "the receive never began"; }
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
[ -z "$(vol_field cut e1 vol_name)" ] || fail "a cut receive is a volume"
# the same stream relabelled plain: refused, naming what differs (the
# content uuids and sizes are the same)
unchanged 5 tprecv --resume -i plain-full.stream cut
err_has "is of another stream (uuid $(stream_uuid full.stream), 20971520 bytes, encrypted, LUKS uuid $U), not this one (uuid $(stream_uuid full.stream), 20971520 bytes, plain); nothing was received"
ok tprecv --resume -i full.stream cut
out_has "read-only, encrypted; resumed at"
[ "$(luks cut e1)" = "$U" ] || fail "the resumed receive lost the LUKS uuid"
ok tpsend --format raw -o got.raw cut/e1
ok tpsend --format raw -o sent.raw src/e1
cmp sent.raw got.raw || fail "the resumed receive differs from the sender's"
# stopped by TERM right after the receive began, or once its data is
# durable: the last line says which (tprecv(8) EXIT STATUS)
DATA_SIZE=128M
new_pool sig --chunk 64k
term_at() {
	rm -f pause
	TP_TEST_PAUSE=$1 TP_TEST_PAUSE_FILE=$PWD/pause tprecv -i full.stream -n "$2" sig >out 2>err &
	pid=$!
	wait_until "$pid" test -e pause || { cat err >&2; fail "tprecv never reached $1"; }
	kill -TERM "$pid"
	rm -f pause
	rc=0; wait "$pid" || rc=$?
	[ $rc = 143 ] || { cat err >&2; fail "TERM at $1: exit $rc, not 143"; }
}
term_at recv-begun tb
err_has "the receive of tb was stopped by a signal at"
[ -z "$(vol_field sig tb vol_name)" ] || fail "a receive stopped at its start is a volume"
ok tprecv --abort tb sig
term_at recv-data-done td
err_has "pool sig: volume td was received whole; the signal that came meanwhile ends tprecv now"
[ "$(vol_field sig td vol_name)" = td ] || fail "the volume received whole is not there"
ok tpsend --format raw -o td.raw sig/td
cmp sent.raw td.raw || fail "td differs from the sender's"

# the receive policy: an encrypted stream is received, a plain one refused
printf 'recv {\n\trequire_encrypted = "y"\n}\n' >"$TPTOOLS_DIR/tptools.conf"
DATA_SIZE=128M
new_pool strict --chunk 64k
ok tprecv -i full.stream strict
out_has "read-only, encrypted."
ok tprecv -i inc.stream strict
unchanged 5 tprecv -i plain-full.stream -n p strict
err_has "requires encrypted volumes; nothing was received"
rm "$TPTOOLS_DIR/tptools.conf"
ok tpcheck strict
