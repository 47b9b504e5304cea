#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# mkcorpus.py DIR - the seed streams of fuzz_stream (test/fuzz/corpus/stream),
# small and valid, one of each kind man/tp-stream.5 describes: a plain full
# stream (version 1, a chunk continued by a second record), an encrypted
# full stream (version 2, its first chunk beginning with a LUKS2 header of
# its uuid) and an encrypted incremental one (a hole, a cut last chunk).
import os
import struct
import sys

POLY = 0x82F63B78
TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ POLY if c & 1 else c >> 1
    TABLE.append(c)


def crc32c(data, crc=0xFFFFFFFF):
    for b in data:
        crc = TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


CHUNK = 65536
VOL = '5c8e4a3e-2f59-4d0e-9a0b-6e1f2d3c4b5a'
VOL2 = '6d9f5b4f-3a6a-4e1f-8b1c-7f203e4d5c6b'
BASE = '0d1c2b3a-4958-4677-8695-a4b3c2d1e0f9'
LUKS = 'c1e852d4-1150-49a7-a0f0-add316d873e7'


def header(version, flags, size, name, base='', luks='', vol=VOL):
    b = bytearray(256)
    b[0:8] = b'TPSTREAM'
    struct.pack_into('<IIQQ', b, 8, version, flags, size, CHUNK)
    b[32:68] = vol.encode()
    b[68:68 + len(base)] = base.encode()
    b[104:104 + len(name)] = name.encode()
    b[169:169 + len(luks)] = luks.encode()
    struct.pack_into('<I', b, 252, crc32c(bytes(b[:252])) ^ 0xFFFFFFFF)
    return bytes(b)


def record(kind, off, length, data=b''):
    h = bytearray(32)
    struct.pack_into('<IIQQ', h, 0, kind, 0, off, length)
    crc = crc32c(data, crc32c(bytes(h[:28])))
    struct.pack_into('<I', h, 28, crc ^ 0xFFFFFFFF)
    return bytes(h) + data


def luks_start(n):
    b = bytearray(n)
    b[0:8] = b'LUKS\xba\xbe\x00\x02'
    b[168:168 + len(LUKS)] = LUKS.encode()
    return bytes(b)


def stream(h, recs):
    """H and the records RECS, (type, offset, length[, data]), then END"""
    body = b''.join(record(*r) for r in recs)
    data = sum(r[2] for r in recs if r[0] == 1)
    return h + body + record(3, data, len(recs))


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
text = (b'plain text of a plain volume\n' * 300)[:4096]
seeds = {
    'plain-full': stream(header(1, 0, 8192, 'www'),
                         [(1, 0, 4096, text), (1, 4096, 4096, text)]),
    'encrypted-full': stream(header(2, 2, 2 * CHUNK, 'vault', luks=LUKS, vol=VOL2),
                             [(1, 0, 4096, luks_start(4096)),
                              (1, 4096, CHUNK - 4096, os.urandom(CHUNK - 4096)),
                              (2, CHUNK, CHUNK)]),
    'encrypted-incremental': stream(header(2, 3, 2 * CHUNK + 512, 'vault', BASE, LUKS),
                                    [(2, CHUNK, CHUNK), (1, 2 * CHUNK, 512, os.urandom(512))]),
}
for name, b in seeds.items():
    with open(os.path.join(out, name), 'wb') as f:
        f.write(b)
