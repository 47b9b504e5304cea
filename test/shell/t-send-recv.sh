# SPDX-License-Identifier: GPL-2.0-or-later
# tpsend | tprecv between two pools of image files: a full stream of s1,
# then an incremental one from s1 to s2 (only the changed chunks travel),
# gives received volumes whose raw images equal the sources'; a corrupt
# byte, a truncated stream, trailing data, a missing or changed base, a
# full pool and a taken name each exit 5 and leave the receiving pool's
# images byte for byte as they were; a writable volume is not sent.
have tp-thinmap || fail "tp-thinmap not built (make tests)"
DATA_SIZE=256M
new_pool src --chunk 64k
DATA_SIZE=64M
new_pool dst --chunk 64k
ok tvcreate -V 16M -n www src

# write VOL VBLOCK COUNT: chunks mapped as the kernel would, random data in them
write() { write_chunks src "$@"; }
raw() { tpsend --format raw -o "$2" "$1" >/dev/null || fail "tpsend --format raw $1"; }
write www 0 20
write www 100 5
write www 255 1
ok tvsnap --readonly src/www -n s1

# a writable volume is not sent
unchanged 5 tpsend -o x.stream src/www
err_has "only a read-only volume can be sent"
rm -f x.stream

# full: through a pipe
tpsend src/s1 | tprecv dst >out 2>err || { cat err; fail "full send | recv failed"; }
out_has "Volume dst/s1 received (16 MiB, 1.62 MiB of data), read-only."
raw src/s1 want.img
raw dst/s1 got.img
cmp want.img got.img || fail "the received s1 differs"
ok tvchange dst/s1
out_has "read-only y."
ok tpcheck dst

# incremental: changed chunks, a discard (hole), new chunks
write www 10 3
write www 200 4
save_area src area.img
tp-thinmap area.img "$(vol_dev_id src www)" 0 0 >/dev/null
load_area src area.img
ok tvsnap --readonly src/www -n s2
ok tpsend --from s1 -o inc.stream src/s2
out_has "Wrote src/s2 to inc.stream: 16 MiB, 448 KiB of it changed data."
ok tpsend -o full.stream src/s2
[ "$(stat -c %s inc.stream)" -lt "$(stat -c %s full.stream)" ] || fail "the incremental stream is not smaller"
sums dst-*.img >dst.before
for bad in corrupt truncated trailing; do
	cp inc.stream bad.stream
	case $bad in
	corrupt)	# the byte's complement: a fixed byte equals the random one 1 time in 256
		b=$(od -An -tu1 -j $((256 + 32 + 1000)) -N1 bad.stream)
		printf "\\x$(printf %02x $((b ^ 255)))" |
			dd of=bad.stream bs=1 seek=$((256 + 32 + 1000)) conv=notrunc status=none ;;
	truncated) truncate -s $(($(stat -c %s inc.stream) - 40)) bad.stream ;;
	trailing) echo extra >>bad.stream ;;
	esac
	unchanged 5 tprecv -i bad.stream dst
	err_has "nothing was received"
	tprecv dst <bad.stream >/dev/null 2>&1 && fail "$bad stream through a pipe accepted"
done
sums dst-*.img | cmp -s - dst.before || fail "a bad stream changed dst"
# the base missing (not received), or changed (made writable since)
DATA_SIZE=64M
new_pool other --chunk 64k
unchanged 5 tprecv -i inc.stream other
err_has "no read-only volume with the stream's base"
ok tvchange --readonly n dst/s1
unchanged 5 tprecv -i inc.stream dst
err_has "no read-only volume with the stream's base"
# made read-only again it is a new content: still not the base
ok tvchange --readonly y dst/s1
unchanged 5 tprecv -i inc.stream dst
ok tpremove -y dst
DATA_SIZE=64M
new_pool dst --chunk 64k
ok tprecv -i full.stream -n s1 dst	# s2's content under another name is not s1
unchanged 5 tprecv -i inc.stream dst
unchanged 5 tprecv -i full.stream -n again dst
err_has "already holds this stream's content"
ok tpremove -y dst
DATA_SIZE=64M
new_pool dst --chunk 64k
tpsend src/s1 | tprecv dst >/dev/null || fail "full send again"
ok tprecv -i inc.stream dst
out_has "Volume dst/s2 received as changes to s1"
raw src/s2 want.img
raw dst/s2 got.img
cmp want.img got.img || fail "the received s2 differs"
raw dst/s1 got.img
raw src/s1 want.img
cmp want.img got.img || fail "receiving s2 changed s1"
ok tpcheck dst

# a full pool, a taken name, a pool with other chunks
DATA_SIZE=2M
new_pool tiny --chunk 64k
unchanged 5 tprecv -i full.stream tiny
err_has "free data space"
unchanged 5 tprecv -i full.stream -n s1 dst
DATA_SIZE=64M
new_pool big --chunk 128k
unchanged 5 tprecv -i full.stream big
err_has "chunk size"

# refusals of the command line
unchanged 3 tprecv
unchanged 3 tpsend --from s1 --format raw src/s2
unchanged 3 tpsend --format zip src/s2
# --from POOL/BASE: the same pool is accepted (the same stream as --from
# BASE), another pool refused naming both
ok tpsend --from src/s1 -o inc2.stream src/s2
out_has "Wrote src/s2 to inc2.stream: 16 MiB, 448 KiB of it changed data."
cmp -s inc.stream inc2.stream || fail "--from src/s1 and --from s1 wrote different streams"
unchanged 3 tpsend --from dst/s1 -o x.stream src/s2
err_has "tpsend: error: --from dst/s1: the base must be a volume of pool src, the pool of src/s2"
[ ! -e x.stream ] || fail "a refused tpsend wrote its output"
unchanged 3 tpsend --from src/ src/s2
unchanged 5 tpsend --from nope -o x.stream src/s2
