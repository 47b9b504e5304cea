#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# restamp.py IN OUT [version=N] [flags=N] [luks=TEXT] [byte=OFF:VAL]...
# A send stream (man/tp-stream.5) with header fields set and the header's
# CRC-32C taken again, so that a test reaches the receiver's checks behind
# the checksum: version (bytes 8..11), flags (12..15), the LUKS uuid field
# (169..204, TEXT padded with zeros), any header byte. The records are
# copied as they are.
import struct
import sys

POLY = 0x82F63B78
TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ POLY if c & 1 else c >> 1
    TABLE.append(c)


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


src, dst = sys.argv[1:3]
b = bytearray(open(src, 'rb').read())
for arg in sys.argv[3:]:
    key, val = arg.split('=', 1)
    if key == 'version':
        struct.pack_into('<I', b, 8, int(val))
    elif key == 'flags':
        struct.pack_into('<I', b, 12, int(val))
    elif key == 'luks':
        b[169:205] = val.encode().ljust(36, b'\0')[:36]
    elif key == 'byte':
        off, v = val.split(':')
        b[int(off)] = int(v)
    else:
        sys.exit(f"restamp.py: unknown field {key}")
struct.pack_into('<I', b, 252, crc32c(bytes(b[:252])))
open(dst, 'wb').write(b)
