# SPDX-License-Identifier: GPL-2.0-or-later
# t-status-stream.sh - tpstatus writes its tables and its JSON as it reads
# the volumes (tools/tpstatus.c: no row held but for -O), byte for byte
# as libdevmapper's dm_report wrote them when it held them all: on a pool
# of a few thousand volumes built by tp-volgen, whose every field is
# known, each output is compared with the one worked out here (aligned
# columns as wide as their widest text, the separator, NAME='value'
# pairs, JSON's framing and commas, the sort).
N=3000
S=750
new_pool big
ok tp-volgen --prefix v --size 1G --snapshots $S big $N

# the expected outputs, from what tp-volgen made: v0 .. v2249 of 1 GiB,
# v2250 .. v2999 snapshots of v(K mod 2250); nothing mapped
python3 - "$N" "$S" <<'EOF'
import sys
n, s = int(sys.argv[1]), int(sys.argv[2])
vols = []
for i in range(n):
    origin = "" if i < n - s else "v%d" % ((i - (n - s)) % (n - s))
    vols.append(("big", "v%d" % i, "1 GiB", "0 B", "0.00", origin))

def table(heads, widths, right, rows):
    w = [max([wd, len(h)] + [len(r[k]) for r in rows]) if rows else wd
         for k, (h, wd) in enumerate(zip(heads, widths))]
    def cell(t, k, head=False):
        return t.rjust(w[k]) if right[k] and not head else t.ljust(w[k])
    out = [" ".join(cell(h[:w[k]], k, True) for k, h in enumerate(heads))]
    out += [" ".join(cell(t, k) for k, t in enumerate(r)) for r in rows]
    return "".join(l + "\n" for l in out)

heads = ["Pool", "Volume", "Size", "Mapped", "Mapped%", "Origin"]
widths = [4, 6, 4, 6, 7, 6]
right = [0, 0, 1, 1, 0, 0]
open("want.table", "w").write(table(heads, widths, right, vols))
open("want.vol", "w").write(table(heads, widths, right, [vols[2999]]))
# -O -vol_name: names as text, descending
open("want.sorted", "w").write(table(heads[1:2], widths[1:2], right[1:2],
                                     sorted([(v[1],) for v in vols], reverse=True)))
open("want.sep", "w").write("".join("%s:%s:%s\n" % (v[1], v[2], v[5]) for v in vols))
open("want.prefixes", "w").write(
    "".join("TP_VOL_NAME='%s' TP_VOL_ORIGIN='%s'\n" % (v[1], v[5]) for v in vols))
rows = ['{"pool_name":"big"}']
vrows = ['{"vol_name":"%s", "vol_size":"1073741824", "vol_origin":"%s"}' % (v[1], v[5])
         for v in vols]
def block(name, rows, first):
    t = "" if first else "        ,\n"
    t += "        {\n            \"%s\": [\n" % name
    t += ",\n".join(" " * 16 + r for r in rows) + ("\n" if rows else "")
    return t + "            ]\n        }\n"
open("want.json", "w").write("{\n    \"report\": [\n" + block("pool", rows, 1) +
                             block("volume", vrows, 0) + "    ]\n}\n\n")
EOF

# the default tables: the volume table after the pool table and a blank line
ok tpstatus big
sed '1,/^$/d' out >got.table
cmp got.table want.table || { diff want.table got.table | head >&2; fail "tpstatus big: volume table"; }
[ "$(sed -n 3p out)" = "" ] || fail "no blank line between the tables: $(head -4 out)"
ok tpstatus big/v2999
cmp out want.vol || { cat out >&2; fail "tpstatus big/v2999"; }
ok tpstatus --noheadings -o vol_name,vol_size,vol_origin --separator : big
cmp out want.sep || { diff want.sep out | head >&2; fail "--separator"; }
ok tpstatus --nameprefixes -o vol_name,vol_origin big
cmp out want.prefixes || { diff want.prefixes out | head >&2; fail "--nameprefixes"; }
ok tpstatus -o vol_name -O -vol_name big
cmp out want.sorted || { diff want.sorted out | head >&2; fail "-O -vol_name"; }
ok tpstatus --json -o pool_name,vol_name,vol_size,vol_origin big
cmp out want.json || { diff want.json out | head >&2; fail "--json"; }
python3 -c 'import json; json.load(open("out"))' || fail "--json is not JSON"

# a volume table with no row (a POOL/VOLUME that is not there) is not
# written at all, headings included; JSON keeps an empty array
failed tpstatus -o vol_name big/nosuch
[ ! -s out ] || fail "a table of no row: $(cat out)"
err_has "pool big has no volume nosuch"

# the metrics: each volume family's samples in the VG's order, one a
# volume, as the volumes are read (status_prom.c)
ok tpstatus --format prometheus big
python3 - "$N" "$S" <<'PY' || fail "--format prometheus: the volume samples"
import sys
n, s = int(sys.argv[1]), int(sys.argv[2])
lines = open("out").read().split("\n")
for fam, value in (("tptools_volume_size_bytes", "1073741824"),
                   ("tptools_volume_mapped_bytes", "0"),
                   ("tptools_volume_read_only", "0")):
    got = [l for l in lines if l.startswith(fam + "{")]
    want = ['%s{pool="big",volume="v%d"} %s' % (fam, i, value) for i in range(n)]
    assert got == want, (fam, got[:3], len(got))
    first = lines.index(want[0])
    assert lines[first:first + n] == want, fam + ": not on adjacent lines"
PY
ok tpstatus --format prometheus big/v7 big/v2 big/v7
[ "$(grep -c '^tptools_volume_size_bytes{' out)" = 2 ] || fail "two volumes kept: $(cat out)"
out_has '^tptools_pool_volumes{pool="big"} 2$'
