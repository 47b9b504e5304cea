#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""promcheck.py - a strict checker of the Prometheus text exposition format
0.0.4 (the format node_exporter's textfile collector and a /metrics page
use), for the tests of `tpstatus --format prometheus` and `tpmonitor
--textfile`. Python's standard library only.

    promcheck.py [--strict-families] [--prefix P] FILE...   (- for stdin)

Exit 0 when every FILE is valid, 1 with one line per finding
("FILE:LINE: what") otherwise, 2 for a bad command line.

What the format says, and this checks:
- the text is UTF-8, lines end with \\n, the last one too;
- a line is empty, a comment (# ...), "# HELP name text" or "# TYPE name
  type", or a sample: name, optional {labels}, value, optional timestamp,
  tokens apart by blanks or tabs;
- metric names match [a-zA-Z_:][a-zA-Z0-9_:]*, label names
  [a-zA-Z_][a-zA-Z0-9_]* and do not start with __ (reserved), no label
  twice in one sample;
- label values are in double quotes with \\\\, \\" and \\n the only
  escapes; HELP text has \\\\ and \\n the only escapes;
- the value is a float (decimal, or NaN, +Inf, -Inf), the timestamp an
  integer of milliseconds;
- TYPE is counter, gauge, histogram, summary or untyped, given at most
  once per name and before the first sample of its family; HELP at most
  once per name;
- all lines of one family (its HELP, TYPE and samples; for histograms and
  summaries the _bucket, _sum and _count series too) are one group;
- no series (name and label set) twice; a histogram's _bucket carries
  le, a summary's quantile series quantile; counters are not negative.

--strict-families adds this project's rules: every family has HELP and
TYPE before its samples, counters end in _total and nothing else does;
--prefix P: every metric name starts with P.
"""
import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]Inf|NaN")
TIMESTAMP = re.compile(r"-?[0-9]+")
TYPES = ("counter", "gauge", "histogram", "summary", "untyped")
BLANK = " \t"


class Bad(Exception):
    pass


def skip_blank(s, i):
    while i < len(s) and s[i] in BLANK:
        i += 1
    return i


def label_value(s, i):
    """The quoted value at s[i] (a '"'): (value, index after the closing quote)."""
    if i >= len(s) or s[i] != '"':
        raise Bad("a label value must be in double quotes")
    out, i = [], i + 1
    while True:
        if i >= len(s):
            raise Bad("a label value has no closing double quote")
        c = s[i]
        if c == '"':
            return "".join(out), i + 1
        if c == "\\":
            if i + 1 >= len(s):
                raise Bad("a label value ends inside an escape")
            e = s[i + 1]
            if e not in '\\"n':
                raise Bad(f"label value escape \\{e} is not one of \\\\, \\\" and \\n")
            out.append("\n" if e == "n" else e)
            i += 2
            continue
        out.append(c)
        i += 1


def parse_sample(s):
    """(name, labels dict, value text) of a sample line."""
    i = skip_blank(s, 0)
    m = NAME.match(s, i)
    if not m:
        raise Bad("a sample line does not start with a metric name")
    name, i = m.group(0), m.end()
    labels = {}
    j = skip_blank(s, i)
    if j < len(s) and s[j] == "{":
        i = j
        i = skip_blank(s, i + 1)
        while i < len(s) and s[i] != "}":
            m = LABEL.match(s, i)
            if not m:
                raise Bad(f"bad label name at column {i + 1}")
            key = m.group(0)
            if key.startswith("__"):
                raise Bad(f"label name {key} is reserved (starts with __)")
            if key in labels:
                raise Bad(f"label {key} given twice")
            i = skip_blank(s, m.end())
            if i >= len(s) or s[i] != "=":
                raise Bad(f"label {key} has no '='")
            i = skip_blank(s, i + 1)
            labels[key], i = label_value(s, i)
            i = skip_blank(s, i)
            if i < len(s) and s[i] == ",":
                i = skip_blank(s, i + 1)
            elif i < len(s) and s[i] != "}":
                raise Bad(f"expected ',' or '}}' after label {key}")
        if i >= len(s):
            raise Bad("the label set has no closing '}'")
        i += 1
    elif i >= len(s):
        raise Bad(f"sample {name} has no value")
    elif s[i] not in BLANK:
        # without labels a blank must part the name from the value
        raise Bad("no blank between the metric and its value")
    rest = s[i:].split()
    if not rest or len(rest) > 2:
        raise Bad("a sample is a metric, a value and at most a timestamp")
    if not FLOAT.fullmatch(rest[0]):
        raise Bad(f"value {rest[0]!r} is not a float")
    if len(rest) == 2 and not TIMESTAMP.fullmatch(rest[1]):
        raise Bad(f"timestamp {rest[1]!r} is not an integer")
    return name, labels, rest[0]


def help_text(t):
    i = 0
    while True:
        i = t.find("\\", i)
        if i < 0:
            return
        if i + 1 >= len(t) or t[i + 1] not in "\\n":
            raise Bad("HELP text escapes only \\\\ and \\n")
        i += 2


def family_of(name, types):
    """The family a sample named NAME belongs to: its own, or the histogram's
    or summary's whose _bucket, _sum or _count it is."""
    for suffix in ("_bucket", "_sum", "_count"):
        if name.endswith(suffix):
            base = name[: -len(suffix)]
            if types.get(base) in ("histogram", "summary") and \
                    not (suffix == "_bucket" and types[base] == "summary"):
                return base
    return name


def check(text, strict, prefix):
    """Findings as (line number, message)."""
    bad = []
    if text and not text.endswith("\n"):
        bad.append((text.count("\n") + 1, "the last line does not end with a newline"))
    types, helps = {}, {}
    seen_series = set()
    done = set()          # families whose group has ended
    current = None        # the family of the last line
    sampled = set()       # families with samples so far

    def enter(fam, n):
        """A line of family FAM: its group must not have ended before."""
        nonlocal current
        if fam == current:
            return
        if fam in done:
            bad.append((n, f"the lines of family {fam} are not one group"))
        if current is not None:
            done.add(current)
        current = fam

    lines = text.split("\n")
    if text.endswith("\n"):
        lines = lines[:-1]
    for n, line in enumerate(lines, 1):
        try:
            if not line.strip(BLANK):
                continue
            if line.lstrip(BLANK).startswith("#"):
                words = line.lstrip(BLANK)[1:].lstrip(BLANK)
                parts = re.split(r"[ \t]+", words, maxsplit=2)
                if parts[0] not in ("HELP", "TYPE"):
                    continue  # a comment
                if len(parts) < 2 or not NAME.fullmatch(parts[1]):
                    raise Bad(f"# {parts[0]} without a valid metric name")
                kw, name = parts[0], parts[1]
                if prefix and not name.startswith(prefix):
                    raise Bad(f"metric {name} does not start with {prefix}")
                if kw == "HELP":
                    if name in helps:
                        raise Bad(f"a second HELP for {name}")
                    text_ = parts[2] if len(parts) > 2 else ""
                    help_text(text_)
                    helps[name] = text_
                    if name in sampled:
                        raise Bad(f"HELP for {name} after its samples")
                else:
                    if len(parts) < 3 or parts[2].strip(BLANK) not in TYPES:
                        raise Bad(f"TYPE of {name} is not one of {', '.join(TYPES)}")
                    if name in types:
                        raise Bad(f"a second TYPE for {name}")
                    if name in sampled:
                        raise Bad(f"TYPE for {name} after its samples")
                    types[name] = parts[2].strip(BLANK)
                    if strict:
                        is_counter = types[name] == "counter"
                        if is_counter != name.endswith("_total"):
                            raise Bad(f"{name}: counters end in _total, and nothing else")
                enter(name, n)
                continue
            name, labels, value = parse_sample(line)
            if prefix and not name.startswith(prefix):
                raise Bad(f"metric {name} does not start with {prefix}")
            fam = family_of(name, types)
            enter(fam, n)
            first = fam not in sampled
            sampled.add(fam)
            if strict and first and (fam not in types or fam not in helps):
                raise Bad(f"sample of {name} without HELP and TYPE before it")
            t = types.get(fam, "untyped")
            if t == "histogram" and name == fam + "_bucket" and "le" not in labels:
                raise Bad(f"histogram bucket {name} without an le label")
            if t == "summary" and name == fam and "quantile" not in labels:
                raise Bad(f"summary {name} without a quantile label")
            if t == "counter" and float(value) < 0:
                raise Bad(f"counter {name} is negative ({value})")
            key = (name, tuple(sorted(labels.items())))
            if key in seen_series:
                raise Bad(f"series {name}{dict(sorted(labels.items()))} given twice")
            seen_series.add(key)
        except Bad as e:
            bad.append((n, str(e)))
    return bad


def main(argv):
    strict, prefix, files = False, "", []
    args = iter(argv)
    for a in args:
        if a == "--strict-families":
            strict = True
        elif a == "--prefix":
            prefix = next(args, None)
            if prefix is None:
                print("promcheck: --prefix needs a value", file=sys.stderr)
                return 2
        elif a.startswith("--"):
            print(f"promcheck: unknown option {a}", file=sys.stderr)
            return 2
        else:
            files.append(a)
    if not files:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    failed = False
    for f in files:
        try:
            raw = sys.stdin.buffer.read() if f == "-" else open(f, "rb").read()
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            print(f"{f}: not UTF-8 ({e})", file=sys.stderr)
            failed = True
            continue
        except OSError as e:
            print(f"{f}: {e.strerror}", file=sys.stderr)
            failed = True
            continue
        for n, msg in check(text, strict, prefix):
            print(f"{f}:{n}: {msg}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
