#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""keeps.py - does one thin_dump XML keep everything another keeps?

    keeps.py OURS.xml THEIRS.xml

Every thin device of THEIRS must be in OURS, and every block THEIRS maps
(virtual block -> data block and time, <ref>s expanded) must be mapped the
same in OURS. OURS may keep more. Exit 0, or 1 naming the first device or
block THEIRS keeps and OURS does not."""
import sys
import xml.etree.ElementTree as ET


def mappings(path):
    root = ET.parse(path).getroot()
    defs = {d.get("name"): d for d in root if d.tag == "def"}

    def walk(elem, out):
        for m in elem:
            if m.tag == "single_mapping":
                out[int(m.get("origin_block"))] = (int(m.get("data_block")), m.get("time"))
            elif m.tag == "range_mapping":
                o, d = int(m.get("origin_begin")), int(m.get("data_begin"))
                for i in range(int(m.get("length"))):
                    out[o + i] = (d + i, m.get("time"))
            elif m.tag == "ref":
                walk(defs[m.get("name")], out)
    devs = {}
    for dev in root:
        if dev.tag == "device":
            walk(dev, devs.setdefault(int(dev.get("dev_id")), {}))
    return devs


def main():
    ours, theirs = mappings(sys.argv[1]), mappings(sys.argv[2])
    for dev, maps in sorted(theirs.items()):
        if dev not in ours:
            sys.exit("thin device %d is lost" % dev)
        for v, dt in sorted(maps.items()):
            if ours[dev].get(v) != dt:
                sys.exit("thin device %d: block %d -> %s lost (%s)" % (dev, v, dt, ours[dev].get(v)))


if __name__ == "__main__":
    main()
