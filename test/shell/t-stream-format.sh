# SPDX-License-Identifier: GPL-2.0-or-later
# The send stream's format across versions (man/tp-stream.5): streams of
# version 1 that an older tptools wrote (test/data/stream, ORIGIN.md) are
# received as before, full and incremental, into volumes that export the
# images they were made of; a plain volume's stream is still version 1,
# byte for byte what the older tpsend wrote. Headers whose checksum is
# right but whose fields break a rule of version 2 are refused, exit 5,
# every image byte for byte: the encrypted flag in a version 1 header, a
# version 2 stream that is not encrypted, an unknown version, a byte
# outside the fields not zero, a LUKS uuid that is no uuid, an encrypted
# stream whose volume begins with no LUKS2 header. The receive policy
# (recv/require_encrypted, --require-encrypted) refuses a plain stream and
# a raw import, exit 5, nothing changed; n in the file or on the command
# line lets them in.
have python3 || skip "python3 not installed"
data=$TOP/test/data/stream
restamp() { python3 "$data/restamp.py" "$@" || fail "restamp.py $*"; }
DATA_SIZE=64M
new_pool dst --chunk 64k

for s in full inc; do gunzip -c "$data/v1-$s.stream.gz" >"v1-$s.stream"; done
sed -n 's/^    \([0-9a-f]\{64\}  v1-[a-z]*\.stream\)$/\1/p' "$data/ORIGIN.md" >sums.want
[ "$(wc -l <sums.want)" = 2 ] || fail "ORIGIN.md does not list the two streams' sums"
sha256sum --quiet -c sums.want || fail "a stream of test/data/stream differs from ORIGIN.md's sum"
image_sum() {	# image_sum NAME: the md5 ORIGIN.md lists for volume NAME's image
	sed -n "s/^    \([0-9a-f]\{32\}\)  $1 .*/\1/p" "$data/ORIGIN.md"
}

# version 1, written by the older tpsend: received, full then incremental
ok tprecv -i v1-full.stream dst
out_has "Volume dst/s1 received (1 MiB, 192 KiB of data), read-only."
out_lacks encrypted
ok tprecv -i v1-inc.stream dst
out_has "Volume dst/s2 received as changes to s1 (1 MiB, 192 KiB of data), read-only."
for v in s1 s2; do
	ok tpsend --format raw -o "$v.img.raw" "dst/$v"
	[ "$(md5sum <"$v.img.raw" | cut -d' ' -f1)" = "$(image_sum "$v")" ] ||
		fail "the received $v differs from the image it was sent from"
done
ok tpcheck dst
tp-vgtool text dst-meta.img | grep -q luks_uuid && fail "a version 1 stream made an encrypted volume"
# a plain volume's stream is still version 1, the same bytes as before
ok tpsend -o again.stream dst/s1
cmp again.stream v1-full.stream || fail "a plain volume's full stream is not what the older tpsend wrote"
ok tpsend --from s1 -o again.stream dst/s2
[ "$(od -An -tu4 -j8 -N4 again.stream | tr -d ' ')" = 1 ] || fail "an incremental plain stream is not version 1"

# headers whose checksum is right and whose fields are not
luks=c1e852d4-1150-49a7-a0f0-add316d873e7
ok tpremove -y dst
DATA_SIZE=64M
new_pool dst --chunk 64k
refused() {	# refused WHY RESTAMP-ARGS...: the stream so stamped is refused for WHY
	local why=$1
	shift
	restamp v1-full.stream bad.stream "$@"
	unchanged 5 tprecv -i bad.stream dst
	err_has "$why"
	err_has "nothing was received"
	tprecv dst <bad.stream >/dev/null 2>&1 && fail "$* through a pipe accepted"
	return 0
}
refused "damaged header (unknown flags)" flags=2 luks=$luks
refused "damaged header (a version its flags do not need)" version=2
refused "stream version 3 is not known to this tprecv (it reads 1 to 2)" version=3
refused "damaged header (bytes outside its fields not zero)" byte=230:1
refused "damaged header (bytes outside its fields not zero)" byte=180:65
refused "damaged header (bad LUKS uuid)" version=2 flags=2 luks=not-a-uuid
refused "marked encrypted with LUKS2 header $luks, but its volume begins with none: the volume's first chunk is unmapped" \
	version=2 flags=2 luks=$luks
# (the same stream whose first chunk is mapped: no LUKS header in it)
ok tprecv -i v1-full.stream -n plain dst
ok tvchange --readonly n dst/plain
write_chunks dst plain 0 1
ok tvsnap --readonly dst/plain -n first
ok tpsend -o first.stream dst/first
restamp first.stream bad.stream version=2 flags=2 luks=$luks
unchanged 5 tprecv -i bad.stream -n other dst
err_has "but its volume begins with no LUKS header; nothing was received"
# the restamp itself is sound: the same stream stamped as it was is received
restamp first.stream good.stream version=1 flags=0 luks=
cmp -s good.stream first.stream || fail "restamp.py changed what it was not asked to"

# the receive policy refuses a plain volume's stream and a raw import
DATA_SIZE=64M
new_pool rx --chunk 64k
cat >"$TPTOOLS_DIR/tptools.conf" <<'EOF'
recv {
	require_encrypted = "y"
}
EOF
ok tpconfig
unchanged 5 tprecv -i first.stream -n other rx
err_has "the stream is of a plain volume, not an encrypted one, and recv/require_encrypted ($TPTOOLS_DIR/tptools.conf:2) requires encrypted volumes; nothing was received (give --require-encrypted n"
head -c 65536 /dev/urandom >disk.raw
unchanged 5 tprecv --format raw -n disk -i disk.raw rx
err_has "a raw import makes a plain volume, and recv/require_encrypted ($TPTOOLS_DIR/tptools.conf:2) requires encrypted ones; nothing was imported"
unchanged 5 tprecv --require-encrypted y -i first.stream -n other rx
err_has "and --require-encrypted y requires"
# n on the command line wins over the file
ok tprecv --require-encrypted n -i first.stream -n other rx
out_has "Volume rx/other received"
ok tprecv --require-encrypted no --format raw -n disk -i disk.raw rx
# and the file's n (the default) lets both in
cat >"$TPTOOLS_DIR/tptools.conf" <<'EOF'
recv {
	require_encrypted = "n"
}
EOF
ok tpremove -y rx
DATA_SIZE=64M
new_pool rx --chunk 64k
ok tprecv -i first.stream rx
ok tprecv --format raw -n disk -i disk.raw rx
unchanged 3 tprecv --require-encrypted maybe -i first.stream -n x rx
unchanged 3 tprecv --abort x --require-encrypted y rx
printf 'recv {\n\trequire_encrypted = 1\n}\n' >"$TPTOOLS_DIR/tptools.conf"
unchanged 3 tprecv -i first.stream -n x rx
err_has "recv/require_encrypted"
rm "$TPTOOLS_DIR/tptools.conf"
ok tpcheck rx
