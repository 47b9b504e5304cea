#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rmap.py - the reverse map a thin_dump XML file says, in thin_rmap's
output form, for t-rmap.sh to hold tprmap against: every mapping of every
device (dev_id ascending, virtual blocks ascending, <ref>s expanded), a
mapping whose data block lies in a region extending the current run when
it continues it (same device, next data and next virtual block), the runs
sorted by data begin, data end, device, virtual begin. Every owner of a
shared block is listed (tprmap's default walk).

    rmap.py FILE.xml BEGIN..END [BEGIN..END...]"""
import sys
import xml.etree.ElementTree as ET


def blocks(elem, defs):
    for m in elem:
        if m.tag == "single_mapping":
            yield int(m.get("origin_block")), int(m.get("data_block"))
        elif m.tag == "range_mapping":
            o, d = int(m.get("origin_begin")), int(m.get("data_begin"))
            for i in range(int(m.get("length"))):
                yield o + i, d + i
        elif m.tag == "ref":
            yield from blocks(defs[m.get("name")], defs)


def main():
    root = ET.parse(sys.argv[1]).getroot()
    regions = [tuple(int(x) for x in r.split("..")) for r in sys.argv[2:]]
    defs = {d.get("name"): d for d in root if d.tag == "def"}
    runs, cur = [], None
    for dev in sorted((d for d in root if d.tag == "device"), key=lambda d: int(d.get("dev_id"))):
        dev_id = int(dev.get("dev_id"))
        for v, d in sorted(blocks(dev, defs)):
            if not any(b <= d < e for b, e in regions):
                continue
            if cur and cur[2] == dev_id and cur[1] == d and cur[3] + cur[1] - cur[0] == v:
                cur[1] += 1
            else:
                if cur:
                    runs.append(tuple(cur))
                cur = [d, d + 1, dev_id, v]
    if cur:
        runs.append(tuple(cur))
    for b, e, dev_id, v in sorted(runs):
        print("data %d..%d -> thin(%d) %d..%d" % (b, e, dev_id, v, v + e - b))


if __name__ == "__main__":
    main()
