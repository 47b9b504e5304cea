#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""normalise.py - print thin_dump XML in one canonical form, so that the
dumps of thin-provisioning-tools 0.9.0, 1.1.0 and tpdump can be compared by
meaning rather than by bytes.

    normalise.py FILE.xml

1.1.0 writes subtrees shared between devices once, as <def name=N> ...
</def>, and refers to them with <ref name=N/> inside each <device>; it
omits flags="0"; it splits a run of mappings where a shared subtree begins.
0.9.0 and tpdump write every device's mappings in full and join runs. The
canonical form: the superblock's attributes (flags defaulting to 0), then
per device (by dev_id) its attributes and its mappings with every ref
expanded and adjacent runs joined (same time, consecutive origin and data
blocks), one line each. Exit 1 with a message on a malformed dump."""
import sys
import xml.etree.ElementTree as ET


def runs(elem, defs, out):
    for m in elem:
        if m.tag == "single_mapping":
            out.append([int(m.get("origin_block")), int(m.get("data_block")), 1,
                        int(m.get("time"))])
        elif m.tag == "range_mapping":
            out.append([int(m.get("origin_begin")), int(m.get("data_begin")),
                        int(m.get("length")), int(m.get("time"))])
        elif m.tag == "ref":
            name = m.get("name")
            if name not in defs:
                raise ValueError("ref to an undefined def %s" % name)
            runs(defs[name], defs, out)
        else:
            raise ValueError("unexpected <%s> in a device" % m.tag)


def joined(mappings):
    mappings.sort()
    out = []
    for o, d, n, t in mappings:
        if out and out[-1][0] + out[-1][2] == o and out[-1][1] + out[-1][2] == d \
                and out[-1][3] == t:
            out[-1][2] += n
        else:
            out.append([o, d, n, t])
    return out


def main():
    root = ET.parse(sys.argv[1]).getroot()
    if root.tag != "superblock":
        raise ValueError("the root is <%s>, not <superblock>" % root.tag)
    sb = dict(root.attrib)
    sb.setdefault("flags", "0")
    print("superblock " + " ".join("%s=%s" % kv for kv in sorted(sb.items())))
    defs = {d.get("name"): d for d in root if d.tag == "def"}
    devices = sorted((d for d in root if d.tag == "device"), key=lambda d: int(d.get("dev_id")))
    for dev in devices:
        print("device " + " ".join("%s=%s" % kv for kv in sorted(dev.attrib.items())))
        maps = []
        runs(dev, defs, maps)
        for o, d, n, t in joined(maps):
            print("  %d %d %d %d" % (o, d, n, t))


if __name__ == "__main__":
    try:
        main()
    except (ValueError, ET.ParseError, TypeError) as e:
        sys.exit("normalise.py: %s: %s" % (sys.argv[1], e))
