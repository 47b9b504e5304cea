# SPDX-License-Identifier: GPL-2.0-or-later
# docs/promises.md lists every promise of the man pages with the tests that
# keep it: each promise phrase of a page ("unchanged", "whole or not at
# all", "nothing was changed", "left as it was", "byte for byte") is
# covered by exactly one row whose promise is a unique part of that page,
# and every test a row names exists.
python3 - "$TOP" <<'PY' || fail "docs/promises.md does not match the man pages"
import glob, os, re, sys
top = sys.argv[1]
KW = re.compile(r"unchanged|whole or not at all|nothing (?:was |is )?changed|left as it was"
                r"|untouched|byte[- ]for[- ]byte|byte-identical", re.I)
def flat(path):
    out = []
    for l in open(path, encoding='utf-8'):
        l = l.rstrip('\n')
        if l.startswith('.\\"'):
            continue
        if l.startswith('.'):
            m = re.match(r'^\.(?:B|I|BR|RB|BI|IB|IR|RI|SM|SB)\s+(.*)$', l)
            if not m:
                continue
            l = m.group(1).replace('"', '')
        for a, b in (('\\-', '-'), ('\\(em', '-'), ('\\c', ''), ('\\fB', ''), ('\\fR', ''),
                     ('\\fI', ''), ('\\&', '')):
            l = l.replace(a, b)
        out.append(l)
    return re.sub(r'\s+', ' ', ' '.join(out))
rows = {}
bad = 0
for line in open(os.path.join(top, 'docs/promises.md'), encoding='utf-8'):
    cells = [c.strip() for c in line.strip().strip('|').split('|')]
    if len(cells) != 3 or not re.match(r'^[a-z-]+\.[578]$', cells[0]):
        continue
    page, phrase, tests = cells
    rows.setdefault(page, []).append(phrase)
    names = re.findall(r'\b([ts]-[a-z0-9-]+)', tests.split('(')[0] if tests.startswith('-') else tests)
    if not names and not tests.startswith('-'):
        print(f"{page}: '{phrase}': no test named"); bad += 1
    for n in names:
        d = 'test/vm' if n.startswith('s-') else 'test/shell'
        if not os.path.exists(os.path.join(top, d, n + '.sh')):
            print(f"{page}: '{phrase}': no test {d}/{n}.sh"); bad += 1
for path in sorted(glob.glob(os.path.join(top, 'man/*.[578]'))):
    page = os.path.basename(path)
    text = flat(path)
    want = {m.start() for m in KW.finditer(text)}
    got = set()
    for phrase in rows.get(page, []):
        n = text.count(phrase)
        k = KW.search(phrase)
        if n != 1 or not k:
            print(f"{page}: promise '{phrase}' found {n} times (must be once, with its promise word)")
            bad += 1
            continue
        got.add(text.index(phrase) + k.start())
    for pos in sorted(want - got):
        print(f"{page}: a promise without a row in docs/promises.md: ...{text[max(0, pos - 60):pos + 30]}...")
        bad += 1
print(f"{sum(len(v) for v in rows.values())} promises checked")
sys.exit(1 if bad else 0)
PY
