#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""prose.py - what the tree's prose says about the tree, checked (t-prose.sh).

  prose.py paths ROOT ALLOW   every file path named in a comment of a source
                              file (.c .h .def; # comments of .sh .py .awk,
                              Makefiles, .ci/run, completion/tp), in the
                              Markdown documents (README.md, docs/, test/)
                              and in the man pages exists in the tree ROOT
  prose.py links ROOT         docs/ARCHITECTURE.md names no lib/pool module
                              that the Makefile's LAYERS and
                              scripts/check-layers.sh's RULES lack, no layer
                              the Makefile lacks, no Makefile variable it
                              does not set, and no link rule the Makefile
                              does not have: a sentence that says a library
                              is linked ("the library": the one its
                              paragraph named last) into programs (tp, the
                              lease's tp-lease-holder and tp-lease-fence,
                              the unit runner, test/tools/NAME,
                              test/fuzz/NAME) holds for each of them by the
                              link recipes (LDLIBS, FENCE_LIBS, CUNIT_LIBS,
                              AUX_LIBS_NAME), and one
                              that says "only" them names every program
                              that links it

One finding a line, "FILE:LINE: what"; exit 1 when there is one, 0 when
none, 2 on bad usage.

What counts as a path: a word that begins with a directory at the tree's
top (lib/..., tools/..., test/..., docs/...) and names a file or directory
there (or, without .c/.h, a unit of source: lib/base/units); or a word ending in .c .h .sh .def .py .md (a bare `pool_change.c`,
or a partial `core/pool_change.c`) that some file of the tree ends with.
Not a finding: a word with a glob (`lib/pool/*.h`) or braces
(`metadata/thin/{check,repair}.c`) that matches some file; a word with a
placeholder in capitals (`test/shell/t-NAME.sh`, `lib/pool/X/`) that
matches some file with the placeholder as a glob; a test program named by
its binary (`test/tools/tp-lease`: its .c is there); a header the system
has (/usr/include: `sys/mman.h`, `libdevmapper.h`); and the allow-list
(ALLOW: "WORD  reason", one a line; the names of other projects' files).
An entry of the allow-list that no prose cites any more, or that the tree
now has, is a finding too, so the list does not outgrow its use.
"""
import glob
import os
import re
import sys

SKIP_TOP = re.compile(r"^(\.git|build.*)$")
SKIP_UNDER = ("test/fuzz/corpus/", "test/fuzz/crashes/", "test/data/")
FILE_EXT = ("c", "h", "sh", "def", "py", "md")
PLACEHOLDERS = ("NAME", "DIR", "FILE", "PATH", "TAG", "GEOM", "MODE", "BACKING", "X", "N", "I")
SYS_INCLUDE = ("/usr/include", "/usr/include/x86_64-linux-gnu", "/usr/include/" + os.uname().machine + "-linux-gnu")


def tree_files(root):
    files, dirs = set(), set()
    for d, subdirs, names in os.walk(root):
        rel = os.path.relpath(d, root)
        rel = "" if rel == "." else rel + "/"
        if rel == "":
            subdirs[:] = [s for s in subdirs if not SKIP_TOP.match(s)]
        for s in subdirs:
            dirs.add(rel + s)
        for n in names:
            files.add(rel + n)
    return files, dirs


# ---- the prose of each kind of file, as (line number, text) ----

C_TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"?|\'(?:\\.|[^\'\\\n])*\'?|/\*.*?(?:\*/|\Z)|//[^\n]*', re.S)


def c_comments(text):
    """The comments of C source TEXT: (line, text) for each line of one;
    string and character literals are skipped."""
    out = []
    line, pos = 1, 0
    for m in C_TOKENS.finditer(text):
        tok = m.group(0)
        if tok[0] in "\"'":
            continue
        line += text.count("\n", pos, m.start())
        pos = m.start()
        body = tok[2:-2] if tok.startswith("/*") and tok.endswith("*/") else tok[2:]
        for k, part in enumerate(body.split("\n")):
            out.append((line + k, part))
    return out


def hash_comments(text):
    """The # comments of a shell script, awk, Python or Makefile: whole
    lines, and a trailing " # ..." outside quotes. Heredocs are code."""
    out = []
    heredoc = None
    for no, ln in enumerate(text.split("\n"), 1):
        if heredoc is not None:
            if ln.strip() == heredoc:
                heredoc = None
            continue
        s = ln.lstrip()
        if s.startswith("#!") and no == 1:
            continue
        if s.startswith("#"):
            out.append((no, s[1:]))
            continue
        m = re.search(r"<<-?\s*['\"]?([A-Za-z_]+)['\"]?", ln)
        if m:
            heredoc = m.group(1)
        # a trailing comment: " #" outside quotes and ${...}
        q, depth = None, 0
        for k, ch in enumerate(ln):
            if q:
                if ch == q:
                    q = None
            elif ch in "'\"":
                q = ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth = max(0, depth - 1)
            elif ch == "#" and depth == 0 and k > 0 and ln[k - 1] in " \t":
                out.append((no, ln[k + 1:]))
                break
    return out


def groff_text(text):
    out = []
    for no, ln in enumerate(text.split("\n"), 1):
        if ln.startswith('.\\"') or ln.startswith("'\\\""):
            continue
        ln = re.sub(r"\\f[BIRP]|\\f\(..|\\&|\\\(..", "", ln).replace("\\-", "-").replace("\\e", "\\")
        ln = re.sub(r"^\.[A-Za-z]+\s?", "", ln)
        out.append((no, ln))
    return out


def prose_of(root, rel):
    base = os.path.basename(rel)
    ext = base.rsplit(".", 1)[-1] if "." in base else ""
    try:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    if ext in ("c", "h", "def"):
        return c_comments(text)
    if ext in ("sh", "py", "awk") or base == "Makefile" or rel in (".ci/run", "completion/tp"):
        return hash_comments(text)
    if ext == "md" and (rel == "README.md" or rel.startswith("docs/") or rel.startswith("test/")):
        return list(enumerate(text.split("\n"), 1))
    if re.match(r"man/[^/]*\.[578]$", rel):
        return groff_text(text)
    return None


# ---- the words that name files ----

class Tree:
    def __init__(self, root):
        self.root = root
        self.files, self.dirs = tree_files(root)
        # the tree's top directories, and those a path of ours begins with
        # even when the tree (a test's) lacks them
        self.tops = sorted({d for d in self.dirs if "/" not in d and not d.startswith(".")} |
                           {"lib", "tools", "test", "scripts", "docs", "metadata", "kernel"})
        self.rx_top = re.compile(r"(?:(?<=\$TOP/)|(?<=\"\$TOP\"/)|(?<![\w./~$<>@:-]))((?:%s)/[\w.*+{},<>/-]*)"
                                 % "|".join(re.escape(t) for t in self.tops))
        self.suffixes = set()
        for f in self.files:
            parts = f.split("/")
            for k in range(len(parts)):
                self.suffixes.add("/".join(parts[k:]))

    def has(self, p):
        p = p.rstrip("/")
        return p in self.files or p in self.dirs

    def glob(self, pat):
        pat = pat.rstrip("/")
        return bool(glob.glob(os.path.join(self.root, pat)))

    def suffix_glob(self, pat):
        rx = re.compile("(^|/)" + re.escape(pat).replace(r"\*", "[^/]*") + "$")
        return any(rx.search(f) for f in self.files)


def expand_braces(word):
    m = re.search(r"\{([^{}]*)\}", word)
    if not m:
        return [word]
    out = []
    for alt in m.group(1).split(","):
        out += expand_braces(word[:m.start()] + alt + word[m.end():])
    return out


def placeholder_glob(word):
    """WORD with each placeholder in capitals made a glob, or None."""
    parts = re.split(r"([A-Za-z0-9]+)", word)
    hit = False
    for k, p in enumerate(parts):
        if p in PLACEHOLDERS:
            parts[k], hit = "*", True
        elif re.fullmatch(r"[A-Za-z0-9]*", p):
            # NAME inside a word: t-NAME, libtpNAME
            q = re.sub(r"(?<![A-Z])(%s)(?![A-Z])" % "|".join(PLACEHOLDERS[:8]), "*", p)
            if q != p:
                parts[k], hit = q, True
    if "<" in word:
        word = re.sub(r"<[^>]*>", "*", word)
        return word
    return "".join(parts) if hit else None


def system_header(word):
    return word.endswith(".h") and any(os.path.exists(os.path.join(d, word)) for d in SYS_INCLUDE)


RX_NAME = re.compile(r"(?<![\w./~$<>@:-])([\w.*+{},<>/-]*[\w*}>]\.(?:%s))(?![\w/-])" % "|".join(FILE_EXT))


def words(tree, text):
    """The words of TEXT that name a tree path: (word, kind), kind 'top'
    (from the tree's top) or 'name' (a bare or partial file name)."""
    seen = []
    if "/" not in text and "." not in text:
        return seen
    # from the top: lib/..., test/..., with globs, braces, <placeholders>
    for m in tree.rx_top.finditer(text):
        w = m.group(1)
        if "{" in w and "}" not in w:
            w = w[:w.index("{")]
        w = re.sub(r"[.,:;]+$", "", w)
        if "<" in w and ">" not in w:
            w = w[:w.index("<")]
        seen.append((m.start(1), m.end(1), w, "top"))
    # file names ending in one of FILE_EXT, not part of a word above
    for m in RX_NAME.finditer(text):
        if any(s <= m.start(1) < e for s, e, _, _ in seen):
            continue
        w = m.group(1)
        if "<" in w and ">" not in w[w.index("<"):]:
            w = w[w.index("<") + 1:]	# <stdio.h>
        if w.startswith("../") or w.startswith("./"):
            continue
        seen.append((m.start(1), m.end(1), w, "name"))
    return [(w, k) for _, _, w, k in seen]


def resolves(tree, word, kind):
    for w in expand_braces(word):
        if kind == "top":
            if tree.has(w) or ("*" in w and tree.glob(w)):
                continue
            if re.match(r"test/(tools|fuzz)/[\w-]+$", w) and tree.has(w + ".c"):
                continue	# a test program named by its binary
            if re.search(r"/[\w-]+$", w) and (tree.has(w + ".c") or tree.has(w + ".h")):
                continue	# a unit of source named without .c/.h: lib/base/units
            g = placeholder_glob(w)
            if g and tree.glob(g):
                continue
            return False
        else:
            if w in tree.suffixes or ("*" in w and tree.suffix_glob(w)) or system_header(w):
                continue
            g = placeholder_glob(w)
            if g and tree.suffix_glob(g):
                continue
            return False
    return True


def check_paths(root, allow_file):
    tree = Tree(root)
    allow = {}
    with open(allow_file) as f:
        for no, ln in enumerate(f, 1):
            ln = ln.strip()
            if not ln or ln.startswith("#"):
                continue
            parts = ln.split(None, 1)
            allow[parts[0]] = [no, 0, len(parts) < 2]
    bad = []
    nfiles = nwords = 0
    for rel in sorted(tree.files):
        if any(rel.startswith(s) for s in SKIP_UNDER):
            continue
        prose = prose_of(root, rel)
        if not prose:
            continue
        nfiles += 1
        for no, text in prose:
            for w, kind in words(tree, text):
                nwords += 1
                if w in allow:
                    allow[w][1] += 1
                    continue
                if not resolves(tree, w, kind):
                    what = "names" if kind == "top" else "names a file"
                    bad.append(f"{rel}:{no}: {what} {w}, which is not in the tree")
    for w, (no, uses, noreason) in sorted(allow.items(), key=lambda x: x[1][0]):
        if noreason:
            bad.append(f"{allow_file}:{no}: {w}: the entry gives no reason")
        elif uses == 0:
            bad.append(f"{allow_file}:{no}: {w} is allowed but no prose names it any more: drop the entry")
        elif resolves(tree, w, "top" if w.split("/")[0] in tree.tops else "name"):
            bad.append(f"{allow_file}:{no}: {w} is allowed but is in the tree: drop the entry")
    for b in bad:
        print(b)
    print(f"prose: {nwords} path words in the prose of {nfiles} files", file=sys.stderr)
    return 1 if bad else 0


# ---- docs/ARCHITECTURE.md: modules, layers and link rules ----

def make_vars(text):
    """The Makefile's simple assignments, continuation lines joined."""
    text = re.sub(r"\\\n", " ", text)
    out = {}
    for ln in text.split("\n"):
        m = re.match(r"^([A-Za-z0-9_.-]+)\s*(:=|\?=|=|\+=)\s*(.*)$", ln)
        if m:
            v = m.group(3).split("#")[0].strip()
            out[m.group(1)] = (out.get(m.group(1), "") + " " + v).strip() if m.group(2) == "+=" else v
    return out


def libs_of(value, pkgs):
    """Library names (libfoo) of a link line: -lfoo and pkg-config modules."""
    out = set()
    for w in re.split(r"[\s()]+", value):
        if re.fullmatch(r"-l[\w+-]+", w):
            out.add("lib" + w[2:])
        elif w == "$(PKG_LIBS)":
            for p in pkgs:
                out.add(p if p.startswith("lib") else "lib" + p)
    return out


def libs_named(text, pkgs):
    """The libraries TEXT names: libfoo (not our archives, libtp*), and the
    pkg-config modules by their own names (popt: libpopt)."""
    out = {m.group(0) for m in re.finditer(r"(?<![\w/.-])lib[a-z][a-z0-9_]*(?![\w-])", text)
           if not m.group(0).startswith("libtp") and m.group(0) not in ("library", "libraries")}
    for p in pkgs:
        if not p.startswith("lib") and re.search(r"(?<![\w/.-])%s(?![\w-])" % re.escape(p), text):
            out.add("lib" + p)
    return out


def binaries_named(text):
    names = set()
    if re.search(r"(?<![\w/-])`?tp`?(?![\w/-])|\bthe commands\b|\bthe binary\b", text):
        names.add("tp")
    for mm in re.finditer(r"test/(tools|fuzz)/([\w-]+)", text):
        names.add(f"test/{mm.group(1)}/{mm.group(2)}")
    if re.search(r"unit runner|unit-tests", text):
        names.add("unit-tests")
    for mm in re.finditer(r"(?<![\w/-])(tp-lease-(holder|fence))(?![\w/-])", text):
        names.add(mm.group(1))
    return names


def check_links(root):
    bad = []
    doc_rel = "docs/ARCHITECTURE.md"
    doc = open(os.path.join(root, doc_rel)).read()
    mk = open(os.path.join(root, "Makefile")).read()
    layers_sh = open(os.path.join(root, "scripts/check-layers.sh")).read()
    v = make_vars(mk)
    pkgs = v.get("PKGS", "").split()

    # the modules and layers the build and the rules have
    layer_dirs = {e.split(":", 1)[1] for e in v.get("LAYERS", "").split() if ":" in e}
    m = re.search(r'^RULES="\n(.*?)^"', layers_sh, re.S | re.M)
    rule_dirs = set()
    if m:
        for ln in m.group(1).split("\n"):
            if ":" in ln:
                rule_dirs.add(ln.split(":", 1)[0].strip())
    if not layer_dirs or not rule_dirs:
        bad.append(f"Makefile LAYERS ({len(layer_dirs)}) or check-layers.sh RULES ({len(rule_dirs)}) not found: the parse is broken")
    make_mods = {d.split("/")[2] for d in layer_dirs if d.startswith("lib/pool/")}
    rule_mods = {d.split("/")[2] for d in rule_dirs if d.startswith("lib/pool/")}

    def where(pos):
        return doc.count("\n", 0, pos) + 1

    # modules the document names: lib/pool/X/ anywhere, a row of the
    # module table, a word of the module graph
    named = {}
    for mm in re.finditer(r"(?<![\w/])lib/pool/([a-z_]+)(?=/|`|\s|$|[),.;:])(?!\.)", doc):
        if not re.match(r"\.\w", doc[mm.end(1):mm.end(1) + 2]):
            named.setdefault(mm.group(1), where(mm.start()))
    sec = re.search(r"^## lib/pool's modules\n(.*?)^## ", doc, re.S | re.M)
    if not sec:
        bad.append(f"{doc_rel}: no section \"lib/pool's modules\"")
    else:
        body, off = sec.group(1), sec.start(1)
        for mm in re.finditer(r"^\| `([a-z_]+)` \|", body, re.M):
            named.setdefault(mm.group(1), where(off + mm.start()))
        g = re.search(r"```\n(.*?)```", body, re.S)
        if g:
            for mm in re.finditer(r"[a-z_]+", g.group(1)):
                named.setdefault(mm.group(0), where(off + g.start(1) + mm.start()))
    for mod, line in sorted(named.items(), key=lambda x: x[1]):
        if mod not in make_mods:
            bad.append(f"{doc_rel}:{line}: names the module lib/pool/{mod}, which the Makefile's LAYERS lacks")
        if mod not in rule_mods:
            bad.append(f"{doc_rel}:{line}: names the module lib/pool/{mod}, which scripts/check-layers.sh's RULES lacks")

    # the layers of the "Layers" drawing: each directory one of LAYERS (or tools/)
    sec = re.search(r"^## Layers\n.*?```\n(.*?)```", doc, re.S | re.M)
    if not sec:
        bad.append(f"{doc_rel}: no drawing in section \"Layers\"")
    else:
        parent, nlayers = None, 0
        for k, ln in enumerate(sec.group(1).split("\n")):
            mm = re.match(r"^(\s*)([a-z_/]+/)\s", ln + " ")
            if not mm:
                continue
            d = mm.group(2).rstrip("/")
            if mm.group(1) and parent:
                d = parent + "/" + d	# "  thin/" under "metadata/"
            else:
                parent = d
            nlayers += 1
            if d in ("tools", "metadata"):
                continue
            if d not in layer_dirs:
                bad.append(f"{doc_rel}:{where(sec.start(1)) + k}: the layer {d}/ is not in the Makefile's LAYERS")
            if d not in rule_dirs:
                bad.append(f"{doc_rel}:{where(sec.start(1)) + k}: the layer {d}/ has no rule in scripts/check-layers.sh")
        if nlayers < 5:
            bad.append(f"{doc_rel}: only {nlayers} layers found in the \"Layers\" drawing: the parse is broken")

    # the link rules: what each program links, from the Makefile's recipes
    ldlibs = libs_of(v.get("LDLIBS", ""), pkgs)
    aux = {}
    for name, val in v.items():
        mm = re.match(r"AUX_LIBS_(.+)$", name)
        if mm:
            aux[mm.group(1)] = libs_of(val, pkgs)

    def recipe_libs(target, stem=None):
        """The libraries the link recipe of TARGET's rule names."""
        mm = re.search(r"^%s:(?:[^\n]*\\\n)*[^\n]*\n((?:\t[^\n]*\n)+)" % re.escape(target), mk, re.M)
        if not mm:
            bad.append(f"Makefile: no rule for {target}: the parse is broken")
            return set()
        out = set()
        for var in re.findall(r"\$\(([A-Z_]+(?:_\$\*)?)\)", mm.group(1)):
            if var == "LDLIBS":
                out |= ldlibs
            elif var.endswith("_LIBS") and var != "PKG_LIBS":
                out |= libs_of(v.get(var, ""), pkgs) or {"lib" + var[:-5].lower()}
            elif var == "AUX_LIBS_$*" and stem is not None:
                out |= aux.get(stem, set())
        return out

    binaries = {"tp": recipe_libs("$(TP)"), "unit-tests": recipe_libs("$(UNIT)"),
                "tp-lease-holder": recipe_libs("$(HOLDER)"), "tp-lease-fence": recipe_libs("$(FENCER)")}
    for f in sorted(glob.glob(os.path.join(root, "test/tools/*.c"))):
        t = os.path.basename(f)[:-2]
        binaries["test/tools/" + t] = recipe_libs("$(BUILD)/test/bin/%", t)
    for f in sorted(glob.glob(os.path.join(root, "test/fuzz/fuzz_*.c"))):
        t = os.path.basename(f)[:-2]
        binaries["test/fuzz/" + t] = recipe_libs("$(BUILD)/test/bin/fuzz_%", t)
    if not ldlibs or not binaries["tp"]:
        bad.append("Makefile: no LDLIBS or no libraries of tp found: the parse is broken")

    # every Makefile variable the document names is one the Makefile has
    for mm in re.finditer(r"Makefile `([A-Z_][A-Za-z0-9_-]*)`", doc):
        if mm.group(1) not in v:
            bad.append(f"{doc_rel}:{where(mm.start())}: names Makefile `{mm.group(1)}`, which the Makefile does not set")

    # each sentence that says a library is linked: the binaries it names
    # must link it, and "only" those. "the library" is the one the
    # paragraph named last.
    nlinks = 0
    text = re.sub(r"```.*?```", lambda mm: re.sub(r"[^\n]", " ", mm.group(0)), doc, flags=re.S)
    for para in re.finditer(r"(?:[^\n]+\n?)+", text):
        last = set()
        start = para.start()
        for sm in re.finditer(r"(?:[^.;]|\.(?=\S)|\.\s+(?=[a-z]))+[.;]?", para.group(0)):
            sent = re.sub(r"\s+", " ", sm.group(0))
            line = where(start + sm.start() + len(sm.group(0)) - len(sm.group(0).lstrip()))
            libs = libs_named(sent, pkgs)
            if libs:
                last = libs
            elif re.search(r"\bthe library\b", sent, re.I):
                libs = last
            if not libs or not re.search(r"\blink(s|ed)?\b", sent) or re.search(r"sym ?link|hard link", sent):
                continue
            nlinks += 1
            # "only X links ...": the binaries between "only" and "link"
            only = re.search(r"\bonly\b(.*?)\blink(s|ed)?\b", sent, re.I)
            names = binaries_named(only.group(1) if only else sent)
            for lib in sorted(libs):
                for b in sorted(names):
                    if b not in binaries:
                        bad.append(f"{doc_rel}:{line}: says {b} links {lib}: the Makefile builds no {b}")
                    elif lib not in binaries[b]:
                        bad.append(f"{doc_rel}:{line}: says {b} links {lib}: the Makefile does not link it")
                if only and names:
                    others = sorted(b for b, ls in binaries.items() if lib in ls and b not in names)
                    if others:
                        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
                        bad.append(f"{doc_rel}:{line}: says only {', '.join(sorted(names))} link(s) {lib}: "
                                   f"the Makefile links it into {shown} too")
    for b in bad:
        print(b)
    print(f"prose: {len(named)} modules, {nlayers if sec else 0} layers and {nlinks} link sentences "
          f"of {doc_rel} against {len(binaries)} programs", file=sys.stderr)
    return 1 if bad else 0


def main(argv):
    if len(argv) == 4 and argv[1] == "paths":
        return check_paths(argv[2], argv[3])
    if len(argv) == 3 and argv[1] == "links":
        return check_links(argv[2])
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
