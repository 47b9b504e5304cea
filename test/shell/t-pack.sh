# SPDX-License-Identifier: GPL-2.0-or-later
# tpdump --format pack and tprestore --format pack: thin_metadata_pack's
# file, both ways against thin-provisioning-tools 1.1.0 (those parts need
# scripts/setup-reference.sh; without it the rest runs and the test then
# reports itself skipped). On generated metadata and a pool with
# volumes, snapshots and written data: our pack unpacked by 1.1.0 is the
# bytes 1.1.0's own pack unpacks to (a), 1.1.0's pack unpacked by us is
# the bytes 1.1.0 unpacks (b), ours both ways likewise (c), and every
# block's byte code (decompressed) is 1.1.0's for it, byte for byte.
# thin-provisioning-tools' corpus of damaged metadata packs round trips
# too. Damaged, cut and oversized packs: exit 5 with the byte offset
# named and the target byte for byte unchanged; a pool's device is refused
# as an XML restore refuses it.
ref=${TPTOOLS_REF110:-/var/cache/tptools/trixie.bin}
hasref=1
[ -x "$ref/thin_metadata_pack" ] && [ -x "$ref/thin_metadata_unpack" ] || hasref=0
have python3 || skip "python3 not installed"
corpus=$TOP/test/data/tpt-corpus

# blocks FILE: its size in 4 KiB blocks
blocks() { echo $(($(stat -c %s "$1") / 4096)); }
# 1.1.0's packer leaves out one chunk of blocks (at random) when the
# area's blocks are not a multiple of its chunk size (128 blocks, more for
# areas past 32 MiB a CPU); only then is its own round trip not the source
ref_whole() {
	local n=$1 jobs cs
	jobs=$(nproc)
	[ $((n / 128)) -lt "$jobs" ] && jobs=$((n / 128))
	[ "$jobs" -ge 1 ] || jobs=1
	cs=$((n / (jobs * 64)))
	[ "$cs" -lt 128 ] && cs=128
	[ "$cs" -gt 4096 ] && cs=4096
	[ $((n % cs)) -eq 0 ]
}
# same_code OURS THEIRS: every block THEIRS holds is in OURS with the same
# byte code (the records split by running the code's lengths); with
# "all", OURS holds no other block either
same_code() {
	python3 - "$@" <<'PY' || fail "$1 and $2 code blocks differently"
import struct, sys, zlib
def run(d, o, size):
    at = 0
    while at < size:
        b = d[o]; o += 1; count = 1
        while b >> 4 in (7, 8):
            if b >> 4 == 7:
                count = b & 15
            else:
                count = (b & 15) << 8 | d[o]; o += 1
            b = d[o]; o += 1
        op, nib = b >> 4, b & 15
        if op in (0, 2, 4):
            o += nib; at += 8 * count
        elif op in (1, 3):
            at += 8 * count
        elif op == 5:
            at += 8 * nib
        elif op == 6:
            at += 8 * (nib << 8 | d[o]); o += 1
        elif op == 9:
            o += nib; at += nib
        elif op == 10:
            n = int.from_bytes(d[o:o + nib], 'little'); o += nib + n; at += n
        elif op == 11:
            n = nib << 8 | d[o]; o += 1
            o = run(d, o, 8 * n); o = run(d, o, 8 * n); at += 8 * n
        else:
            sys.exit("bad tag")
    if at != size:
        sys.exit("a block of %d bytes" % at)
    return o
def records(f):
    d = open(f, 'rb').read(); o = 32; recs = {}
    while o < len(d):
        n = struct.unpack('<Q', d[o:o + 8])[0]; raw = zlib.decompress(d[o + 8:o + 8 + n]); o += 8 + n
        r = 0
        while r < len(raw):
            b = struct.unpack('<Q', raw[r:r + 8])[0]; e = run(raw, r + 8, 4096)
            recs[b] = raw[r + 8:e]; r = e
    return recs
ours, theirs = records(sys.argv[1]), records(sys.argv[2])
bad = [b for b in theirs if ours.get(b) != theirs[b]]
if bad:
    sys.exit("blocks coded differently: %s" % bad[:10])
if len(sys.argv) > 3 and set(ours) != set(theirs):
    sys.exit("blocks only in ours: %s" % sorted(set(ours) - set(theirs))[:10])
PY
}

# both_ways SRC NAME [raw]: (a), (b), (c) on metadata SRC; without raw
# also the XML dumps of SRC and of our round trip (damaged metadata has none)
both_ways() {
	local src=$1 n=$2 nb
	nb=$(blocks "$src")
	ok tpdump --format pack -o "$n.ours.pack" "$src"
	image "$n.c.bin" "$(stat -c %s "$src")"
	ok tprestore --format pack $rforce -i "$n.ours.pack" -o "$n.c.bin"
	[ $hasref = 1 ] && with_ref "$src" "$n" "$nb"
	# ours loses nothing whatever the size: the source's metadata blocks
	# come back (tpdump of both identical) and so does every byte of an
	# image that holds only metadata blocks and zeros
	[ "${3:-}" = raw ] && return
	ok tpdump -o "$n.src.xml" "$src"
	ok tpdump -o "$n.c.xml" "$n.c.bin"
	cmp "$n.src.xml" "$n.c.xml" || fail "$n: metadata unpacked from our pack dumps differently"
}
with_ref() {
	local src=$1 n=$2 nb=$3
	"$ref/thin_metadata_pack" -i "$src" -o "$n.theirs.pack" || fail "thin_metadata_pack 1.1.0: $n"
	cmp -s -n 32 "$n.ours.pack" "$n.theirs.pack" || fail "$n: pack headers differ"
	"$ref/thin_metadata_unpack" -i "$n.ours.pack" -o "$n.a.bin" || fail "thin_metadata_unpack 1.1.0 of our pack: $n"
	"$ref/thin_metadata_unpack" -i "$n.theirs.pack" -o "$n.ref.bin" || fail "thin_metadata_unpack 1.1.0: $n"
	image "$n.b.bin" "$(stat -c %s "$src")"
	if [ -z "$rforce" ] && ! ref_whole "$nb" &&
		! tprestore --format pack -i "$n.theirs.pack" -o "$n.b.bin" >out 2>err; then
		# 1.1.0 left out a chunk holding blocks in use: refused as
		# incomplete, nothing written; --force restores what it holds
		grep -q "not complete metadata" err || { cat err >&2; fail "$n: 1.1.0's pack refused for another reason"; }
		cmp -s "$n.b.bin" /dev/zero -n "$(stat -c %s "$src")" || fail "$n: a refused restore wrote"
		ok tprestore --format pack --force -i "$n.theirs.pack" -o "$n.b.bin"
		err_has "restoring what it holds anyway"
	else
		ok tprestore --format pack $rforce -i "$n.theirs.pack" -o "$n.b.bin"
	fi
	cmp "$n.b.bin" "$n.ref.bin" || fail "$n: (b) our unpack of 1.1.0's pack differs from 1.1.0's"
	cmp "$n.c.bin" "$n.a.bin" || fail "$n: (c) our unpack of our pack differs from 1.1.0's of it"
	if ref_whole "$nb"; then
		strict=$((strict + 1))
		cmp "$n.a.bin" "$n.ref.bin" || fail "$n: (a) 1.1.0 unpacks our pack other than its own"
		same_code "$n.ours.pack" "$n.theirs.pack" all
	else
		same_code "$n.ours.pack" "$n.theirs.pack"
	fi
	return 0
}

rforce=	# --force for packs of damaged metadata (blocks left out)
strict=0	# areas where (a) holds for 1.1.0 itself, and so was checked
# 1. generated metadata: an area of one chunk of blocks,
# several chunks, more than 1024 metadata blocks (several zlib streams),
# an area of an odd size (1.1.0 drops a chunk of it; we do not)
n=0
for spec in "512K --devices 2 --mappings 200 --snapshots 2" \
	"4M --devices 3 --mappings 3000 --snapshots 6 --deletes 1" \
	"16M --devices 2 --mappings 60000 --snapshots 2 --metadata-snap" \
	"2084K --devices 2 --mappings 1000 --snapshots 3"; do
	n=$((n + 1))
	# shellcheck disable=SC2086 # the spec's words are the arguments
	set -- $spec
	size=$1
	shift
	tp-metagen --out m$n.img --meta-size "$size" --seed $n "$@" >/dev/null ||
		fail "tp-metagen $spec failed"
	both_ways m$n.img gen$n
	cmp m$n.img gen$n.c.bin || fail "gen$n: our round trip is not the source"
done
ref_whole "$(blocks m4.img)" && fail "m4.img should be an odd size for 1.1.0"

# 2. a pool with volumes, snapshots and data written as the kernel would:
# the pack of its active area (by pool name) and of the bare area agree
DATA_SIZE=256M META_SIZE=8M new_pool p --chunk 64k
ok tvcreate -V 4M -n v p
write_chunks p v 0 20
ok tvsnap -n s1 p/v
write_chunks p v 5 10
ok tvcreate -V 8M -n w p
write_chunks p w 3 40
ok tvsnap -n s2 p/s1
save_area p pool.area
both_ways pool.area pool
ok tpdump --format pack -o byname.pack p
cmp byname.pack pool.ours.pack || fail "the pack of pool p differs from that of its area"
read -r off len < <(meta_area p)
ok tpdump --format pack --offset "$off" --size "$len" -o area.pack p-meta.img
cmp area.pack pool.ours.pack || fail "the pack of --offset/--size differs from that of the area"
# back into the pool's active area (--force: it is the pool's), whole
sums p-meta.img >meta.sum
ok tprestore --format pack --force --offset "$off" --size "$len" -i pool.ours.pack -o p-meta.img
sums_same meta.sum || fail "restoring the pool's own pack into its area changed it"
ok tpcheck p

# 3. thin-provisioning-tools' corpus (damaged metadata among it: a pack is
# of blocks, whatever they mean)
for f in "$corpus"/*.pack; do
	c=$(basename "$f" .pack)
	nb=$(od -An -t u8 -j 24 -N 8 "$f" | tr -d ' ')
	image "$c.ours.bin" $((nb * 4096))
	rforce=
	case $c in
	corrupted_tmeta_with_metadata_snap | tmeta_device_id_reuse_with_corrupted_thins | \
		tmeta_with_corrupted_metadata_snap)
		# damaged blocks in use, so left out by the packer: refused as
		# incomplete, nothing written, unless --force
		failed tprestore --format pack -i "$f" -o "$c.ours.bin"
		err_has "not complete metadata"
		err_has "add --force"
		cmp -s "$c.ours.bin" /dev/zero -n $((nb * 4096)) || fail "$c: a refused restore wrote"
		rforce=--force ;;
	esac
	ok tprestore --format pack $rforce -i "$f" -o "$c.ours.bin"
	if [ $hasref = 1 ]; then
		"$ref/thin_metadata_unpack" -i "$f" -o "$c.ref.bin" || fail "thin_metadata_unpack 1.1.0: $c"
		cmp "$c.ours.bin" "$c.ref.bin" || fail "$c: our unpack differs from 1.1.0's"
	fi
	both_ways "$c.ours.bin" "corpus-$c" raw
	cmp "$c.ours.bin" "corpus-$c.c.bin" || fail "$c: our pack of it does not round trip"
done
rforce=

# (a) on the three generated areas of whole chunks, the pool's, the corpus
[ $hasref = 0 ] || [ "$strict" -ge 13 ] || fail "(a) was checked on $strict areas only"

# 4. standard input; a target larger than the pack's area: the rest zeroed
image stdin.bin 512K
ok tprestore --format pack -i - -o stdin.bin <gen1.ours.pack
cmp stdin.bin gen1.c.bin || fail "a pack from standard input restores differently"
image big.img 1M
head -c 1048576 /dev/urandom >big.img
ok tprestore --format pack -i gen1.ours.pack -o big.img
cmp -n 524288 big.img gen1.c.bin || fail "restore into a larger file: the pack's area differs"
[ "$(tail -c 524288 big.img | tr -d '\0' | wc -c)" -eq 0 ] ||
	fail "restore into a larger file left old bytes past the pack's area"
# a sparse image stays sparse: the gaps are punched out, not written
image sparse.img 1G
ok tprestore --format pack -i gen3.ours.pack -o sparse.img
[ "$(($(stat -c %b sparse.img) * $(stat -c %B sparse.img)))" -lt $((32 << 20)) ] ||
	fail "restoring a pack allocated the whole sparse target ($(du -h sparse.img))"
cmp -n $((16 << 20)) sparse.img gen3.c.bin || fail "restore into a sparse file: the pack's area differs"
# a block device: its gaps zeroed too (BLKZEROOUT)
if have losetup && head -c 1048576 /dev/urandom >loop.bin && lo=$(losetup -f --show loop.bin 2>/dev/null); then
	ok tprestore --format pack -i gen1.ours.pack -o "$lo"
	losetup -d "$lo"
	cmp -n 524288 loop.bin gen1.c.bin || fail "restore onto a block device: the pack's area differs"
	[ "$(tail -c 524288 loop.bin | tr -d '\0' | wc -c)" -eq 0 ] ||
		fail "restore onto a block device left old bytes past the pack's area"
fi

# 5. damaged and cut packs, a target too small: exit 5, the error names
# the pack and what is wrong, the target byte for byte unchanged (in a
# directory of its own: unchanged sums every image here)
mkdir dmg || fail "cannot make dmg"
cd dmg || fail "no directory dmg"
cp ../m2.img target.img
cp ../gen2.ours.pack ../gen1.src.xml .
cp ../m2.img m2.bin
good=gen2.ours.pack
len=$(stat -c %s $good)
for cut in 0 20 31 36 45 $((len / 2)) $((len - 1)); do
	head -c $cut $good >cut.pack
	unchanged 5 tprestore --format pack -i cut.pack -o target.img
	err_has "cut.pack"
done
for at in 0 8 16 24 33 60 $((len / 3)) $((len - 10)); do
	cp $good bad.pack
	printf '\x5a' | dd of=bad.pack bs=1 seek=$at conv=notrunc status=none
	cmp -s bad.pack $good && printf '\xa5' | dd of=bad.pack bs=1 seek=$at conv=notrunc status=none
	unchanged 5 tprestore --format pack -i bad.pack -o target.img
	err_has "bad.pack"
done
# cut at a chunk boundary (a well-formed pack of fewer blocks; the header
# alone at byte 32), ours and 1.1.0's of a multi-chunk area: the blocks
# the metadata's space map marks in use are missing, refused
cp ../m3.img t3.img
chunk_ends() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read(); o = 32
while o < len(d):
    print(o); o += 8 + struct.unpack('<Q', d[o:o + 8])[0]
PY
}
for pk in ../gen3.ours.pack ../gen3.theirs.pack; do
	[ -f "$pk" ] || continue
	ends=$(chunk_ends "$pk")
	[ "$(echo "$ends" | wc -l)" -ge 3 ] || fail "$pk: fewer than 2 chunks to cut between"
	for cut in $ends; do
		head -c "$cut" "$pk" >cut.pack
		unchanged 5 tprestore --format pack -i cut.pack -o t3.img
		err_has "cut.pack: not complete metadata"
		err_has "add --force"
	done
done
# no block 0: not metadata; --force restores the rest anyway
cp ../m2.img nosb.bin
dd if=/dev/zero of=nosb.bin bs=4096 count=1 conv=notrunc status=none
ok tpdump --format pack -o nosb.pack nosb.bin
unchanged 5 tprestore --format pack -i nosb.pack -o target.img
err_has "block 0 is not packed"
cp target.img forced.bin
ok tprestore --format pack --force -i nosb.pack -o forced.bin
cmp forced.bin nosb.bin || fail "--force restored other than the pack's blocks"
cp $good trail.pack
printf 'xyz' >>trail.pack
unchanged 5 tprestore --format pack -i trail.pack -o target.img
err_has "trail.pack: not a usable thin_metadata_pack file: at byte"
image small.img 1M
unchanged 5 tprestore --format pack -i $good -o small.img
err_has "the target holds only 256"
unchanged 5 tprestore --format pack -i m2.bin -o target.img
err_has "no pack magic number"
unchanged 5 tprestore --format pack -i gen1.src.xml -o target.img
err_has "it looks like XML (thin_dump's): drop --format pack"
unchanged 5 tprestore -i $good -o target.img
err_has "this is a thin_metadata_pack file: add --format pack"
# a header counting 2^62 blocks is damaged (not a pack for a larger target)
{ head -c 24 $good; printf '\0\0\0\0\0\0\0\100'; tail -c +33 $good; } >huge.pack
unchanged 5 tprestore --format pack -i huge.pack -o target.img
err_has "the header is damaged"
err_lacks "the target holds only"
# an input that is no file is checked as it is read: no magic number at
# once, and a pack followed by endless bytes is cut off at what a pack
# of its header's blocks can be
unchanged 5 tprestore --format pack -i /dev/zero -o target.img
err_has "/dev/zero: not a usable thin_metadata_pack file: at byte 0: no pack magic number"
unchanged 5 tprestore --format pack -i - -o target.img < <(cat $good /dev/zero 2>/dev/null)
err_has "more than any pack of 1024 blocks can be"
unchanged 5 tprestore --format pack -i missing.pack -o target.img
unchanged 3 tprestore --format tar -i $good -o target.img
# killed while it writes: the superblock is zeroed first, so the target
# holds no metadata until the restore is done (tprestore(8) EXIT STATUS)
cmp -s -n 4096 target.img /dev/zero && fail "target.img has no superblock to begin with"
killed_at restore-write=3 tprestore --format pack -i $good -o target.img
cmp -s -n 4096 target.img /dev/zero || fail "a killed tprestore --format pack left a superblock"
expect_rc 5 tpdump target.img
cd .. || fail "cd .."

# 6. the restore rules of the XML path: a pool's device is refused
# without --force, an unknown format is a usage error
unchanged 5 tprestore --format pack -i gen2.ours.pack -o p-meta.img
err_has "p-meta.img"
usage_error tpdump --format pack --dev-id 1 -o x.pack m1.img
usage_error tpdump --format pack --metadata-snap -o x.pack m1.img
usage_error tpdump --format zip m1.img
# --size 0 is no "to the end" (that is leaving --size out): a usage error
# for every command that takes an area
unchanged 3 tprestore --format pack --size 0 -i gen1.ours.pack -o m1.img
err_has "leave --size out"
unchanged 3 tprestore --size 0 -i gen1.src.xml -o m1.img
usage_error tpdump --size 0 -o sz.xml m1.img
err_has "leave --size out"
[ -e sz.xml ] && fail "tpdump --size 0 created its output"
usage_error tpcheck --metadata m1.img --size 0
err_has "leave --size out"
usage_error tprmap --region 0..10 --size 0 m1.img
err_has "leave --size out"
ok tpdump --format pack m1.img
cmp out gen1.ours.pack || fail "tpdump --format pack on standard output differs from -o"
# but not onto a terminal
if have script; then
	script -qec "tpdump --format pack m1.img" /dev/null >tty.out 2>&1 && fail "tpdump wrote a pack to a terminal"
	grep -q "give -o FILE" tty.out || { cat tty.out >&2; fail "no advice for a pack on a terminal"; }
fi
[ $hasref = 1 ] || skip "our own pack checks passed; thin_metadata_pack 1.1.0 is not set up for the interop ones (scripts/setup-reference.sh)"
exit 0
