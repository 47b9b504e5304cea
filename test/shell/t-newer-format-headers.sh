# SPDX-License-Identifier: GPL-2.0-or-later
# The VG area's own version fields (tp-metadata(5): a slot header's
# "version 1", a change record's "record format version, 1") are what a
# newer tptools raises when it writes a slot or a record this one cannot
# read. Such a slot or record is a newer tptools' write, as a text of a
# higher format_version is (tp-metadata(5) "Format versions"): every
# command must refuse the pool (exit 5, every image as it was), never
# take it for damage, fall back to the copy before it and, at its next
# commit, write over it. (A hostile trial of issue 40 found both taken
# for damage: a tvcreate after a tvrename whose record, or slot, says
# version 2 undoes the rename.)
have tp-vgtool || fail "tp-vgtool not built (make tests)"
have python3 || skip "no python3"
# setver IMAGE WHAT VERSION: the version field of the newest slot's header
# (WHAT=slot) or of its newest change record (WHAT=record), its checksum
# made right again
setver() {
	local img=$1 what=$2 ver=$3 off
	off=$(tp-vgtool where "$img" | awk '$1 == "newest" { print $2 }')
	python3 - "$img" "$off" "$what" "$ver" <<'PY'
import struct, sys
img, off, what, ver = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
tab = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    tab.append(c)
def crc(b, c=0xFFFFFFFF):
    for x in b:
        c = tab[(c ^ x) & 0xFF] ^ (c >> 8)
    return c
with open(img, "r+b") as f:
    f.seek(off)
    h = bytearray(f.read(512))
    if what == "slot":
        struct.pack_into("<I", h, 12, ver)
        struct.pack_into("<I", h, 0, crc(h[4:512]) ^ 0x41444D56)
        f.seek(off)
        f.write(h)
        sys.exit(0)
    r = off + 512 + (struct.unpack_from("<Q", h, 48)[0] + 511) // 512 * 512
    last = None
    while True:
        f.seek(r)
        rh = bytearray(f.read(96))
        if rh[4:12] != b"TPVGREC\x01":
            break
        last = r, rh
        r += (96 + struct.unpack_from("<I", rh, 60)[0] + 511) // 512 * 512
    if last is None:
        sys.exit("no record after the newest slot's checkpoint")
    r, rh = last
    struct.pack_into("<I", rh, 12, ver)
    struct.pack_into("<I", rh, 0, crc(rh[4:96]) ^ 0x43455256)
    f.seek(r)
    f.write(rh)
PY
}
for what in record slot; do
	rm -f ./*.img
	rm -rf "${TPTOOLS_DIR:?}"/*
	new_pool n
	ok tvcreate -V 16M -n v n
	ok tvcreate -V 16M -n w n
	ok tvrename n/v v2
	tp-vgtool where n-meta.img | grep -q '^record ' || fail "no change record after the rename"
	setver n-data.img "$what" 2
	setver n-meta.img "$what" 2
	unchanged 5 tvcreate -V 16M -n x n
	err_lacks "falling back"
	err_lacks "damaged; using the seqno before it"
done
