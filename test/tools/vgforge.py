#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""vgforge.py IMAGE OFFSET slot|record FIELD=VALUE...

Forge a VG metadata slot header (slot) or the newest change record after
its checkpoint (record) of the slot at byte OFFSET of IMAGE (tp-vgtool
where), its header checksum made right again, so that what the readers
meet is a well-formed header saying FIELD=VALUE (metadata/vg/mda.c's
layouts). Fields: version (slot or record), seqno and text_crc (record).
For the shell tests of copies that check out yet lie."""
import struct
import sys

TAB = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    TAB.append(c)


def crc(b, c=0xFFFFFFFF):
    for x in b:
        c = TAB[(c ^ x) & 0xFF] ^ (c >> 8)
    return c


SLOT = {"version": (12, "<I")}
RECORD = {"version": (12, "<I"), "seqno": (40, "<Q"), "text_crc": (72, "<I")}


def main():
    if len(sys.argv) < 5 or sys.argv[3] not in ("slot", "record"):
        sys.exit(__doc__)
    img, off, what = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(img, "r+b") as f:
        f.seek(off)
        h = bytearray(f.read(512))
        if what == "slot":
            at, head, size, salt = off, h, 512, 0x41444D56
        else:
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
                sys.exit("no record after the slot's checkpoint")
            (at, head), size, salt = last, 96, 0x43455256
        fields = SLOT if what == "slot" else RECORD
        for arg in sys.argv[4:]:
            name, val = arg.split("=", 1)
            place, fmt = fields[name]
            struct.pack_into(fmt, head, place, int(val, 0))
        struct.pack_into("<I", head, 0, crc(head[4:size]) ^ salt)
        f.seek(at)
        f.write(head)


main()
