# SPDX-License-Identifier: GPL-2.0-or-later
# The tree's prose names only what the tree has (test/shell/prose.py):
#   paths  every file path in a comment of a source file or script, in
#          README.md, docs/ and test/'s Markdown and in the man pages
#          exists (a bare pool_change.c or a partial core/pool_change.c:
#          some file ends so); what looks like one of ours and is not
#          (the files of LVM2 and of the kernel that comments cite) is in
#          test/shell/prose-allow.txt with its reason, and an entry no
#          prose needs any more fails too;
#   links  docs/ARCHITECTURE.md names no lib/pool module the Makefile's
#          LAYERS or check-layers.sh's RULES lack, no layer the Makefile
#          lacks, and no link rule ("X links libY", "only X links ...")
#          the Makefile's LDLIBS / AUX_LIBS_* do not make true.
# Each check is then proven once on a scratch copy with a wrong claim
# written in: it must fail, naming the file, line and claim.
have python3 || skip "no python3"
prose=$TOP/test/shell/prose.py
allow=$TOP/test/shell/prose-allow.txt

# the tree as it is
expect_rc 0 python3 "$prose" paths "$TOP" "$allow"
n=$(sed -n 's/^prose: \([0-9]*\) path words.*/\1/p' err)
[ "${n:-0}" -gt 1000 ] || fail "only ${n:-0} path words checked (the scan is broken): $(cat err)"
expect_rc 0 python3 "$prose" links "$TOP"
grep -q "^prose: [0-9]* modules, [0-9]* layers and [1-9][0-9]* link sentences" err ||
	fail "no module, layer or link sentence read from ARCHITECTURE.md: $(cat err)"

# ---- paths: a small tree of its own ----
# src PATH LINE...: a file of ./tree
src() {
	mkdir -p "tree/$(dirname "$1")"
	printf '%s\n' "${@:2}" >"tree/$1"
}
src lib/a/real.c '/* SPDX */' '/* real.c - see lib/a/real.h, lib/a/*.c, lib/a/{real,other}.h,' \
	' * lib/a/NAME.h, the unit lib/a/real, sys/mman.h and <stdio.h> */' \
	'static const char *s = "lib/a/in-a-string.c /* no comment */";' \
	'int f(void) { return s[0]; } // other.h'
src lib/a/real.h '/* SPDX */'
src lib/a/other.h '/* SPDX */'
src scripts/run.sh '#!/bin/sh' '# run.sh - calls lib/a/real.c' 'echo "lib/a/not-a-comment.c" # a/real.c' \
	'cat <<EOF' '# lib/a/in-a-heredoc.c' 'EOF'
src docs/notes.md '`lib/a/real.c` and `scripts/run.sh`; ../outside/NOTES.md is not ours'
src man/x.8 '.TH X 8' 'See \fBlib/a/real.h\fR.'
: >allow
expect_rc 0 python3 "$prose" paths tree allow
# the comment of a .c names a path that is not there
src lib/a/real.c '/* SPDX */' '/* real.c - the protocol (lib/a/gone.c) */'
expect_rc 1 python3 "$prose" paths tree allow
out_has "^lib/a/real.c:2: names lib/a/gone.c, which is not in the tree$"
# a bare name in a script's comment, a header, a document, a man page
src lib/a/real.c '/* SPDX */'
src scripts/run.sh '#!/bin/sh' 'true # see gone_live.c'
src lib/a/real.h '/* SPDX */' '/* the section of' ' * pool_extend_live.c: growing */'
src docs/notes.md 'The `core/gone.c` file.'
src man/x.8 '.TH X 8' '.B tools/gone.h'
expect_rc 1 python3 "$prose" paths tree allow
out_has "^scripts/run.sh:2: names a file gone_live.c, which is not in the tree$"
out_has "^lib/a/real.h:3: names a file pool_extend_live.c, which is not in the tree$"
out_has "^docs/notes.md:1: names a file core/gone.c, which is not in the tree$"
out_has "^man/x.8:2: names tools/gone.h, which is not in the tree$"
# the allow-list: an entry with its reason passes the name; one no prose
# cites any more, one the tree has and one without a reason are findings
printf '%s\n' 'gone_live.c  another project'"'"'s file' 'pool_extend_live.c  the same' \
	'core/gone.c  the same' 'tools/gone.h  the same' >allow
expect_rc 0 python3 "$prose" paths tree allow
src lib/a/other.h '/* SPDX */' '/* other.h - beside lib/a/real.h */'
printf '%s\n' 'gone_live.c  another project'"'"'s file' 'pool_extend_live.c  the same' \
	'core/gone.c  the same' 'tools/gone.h  the same' 'lib/a/real.h  ours' 'old.c  cited once' \
	'bare.c' >allow
expect_rc 1 python3 "$prose" paths tree allow
out_has "^allow:5: lib/a/real.h is allowed but is in the tree: drop the entry$"
out_has "^allow:6: old.c is allowed but no prose names it any more: drop the entry$"
out_has "^allow:7: bare.c: the entry gives no reason$"

# ---- paths: the tree itself, the review's findings written back ----
mkdir copy
(cd "$TOP" && tar -c --exclude='./build*' --exclude=./.git .) | tar -x -C copy
sed -i 's|devices file (lib/pool/host/host.h)|devices file (lib/pool/host.h)|' copy/lib/pool/pool.h
sed -i 's|^\(/\* ---- pool_access.c: the growth\)|/* ---- pool_extend_live.c: growing an active pool ---- */\n\1|' copy/lib/pool/core/core.h
cmp -s "$TOP/lib/pool/pool.h" copy/lib/pool/pool.h && fail "the injection into pool.h changed nothing"
cmp -s "$TOP/lib/pool/core/core.h" copy/lib/pool/core/core.h && fail "the injection into core.h changed nothing"
expect_rc 1 python3 "$prose" paths copy "$allow"
out_has "^lib/pool/pool.h:[0-9]*: names lib/pool/host.h, which is not in the tree$"
out_has "^lib/pool/core/core.h:[0-9]*: names a file pool_extend_live.c, which is not in the tree$"
[ "$(wc -l <out)" = 2 ] || fail "more found than was written in: $(cat out)"

# ---- links: ARCHITECTURE.md against the Makefile and check-layers.sh ----
# relinks: a fresh copy of the three files and the test tools' names
relinks() {
	rm -rf l
	mkdir -p l/docs l/scripts l/test/tools
	cp "$TOP/docs/ARCHITECTURE.md" l/docs/
	cp "$TOP/Makefile" l/
	cp "$TOP/scripts/check-layers.sh" l/scripts/
	cp "$TOP"/test/tools/*.c l/test/tools/
}
relinks
expect_rc 0 python3 "$prose" links l
# the review's finding: "only tp-lease links" the library LDLIBS links into every program
python3 - l/docs/ARCHITECTURE.md <<'PY'
import re, sys
f = sys.argv[1]
s = open(f).read()
new, n = re.subn(r"The library is linked\s+into `tp`, the lease holder `tp-lease-holder` and every test program of the\s+build\s+\(Makefile `LDLIBS`\)",
                 "Only `test/tools/tp-lease` links the library today (Makefile `AUX_LIBS_tp-lease`)", s)
if n != 1:
    sys.exit("the lease sentence was not found")
open(f, "w").write(new)
PY
expect_rc 1 python3 "$prose" links l
out_has "^docs/ARCHITECTURE.md:[0-9]*: says only test/tools/tp-lease link(s) libsanlock_client: the Makefile links it into "
out_has "^docs/ARCHITECTURE.md:[0-9]*: names Makefile \`AUX_LIBS_tp-lease\`, which the Makefile does not set$"
# the document's sentence is right, the Makefile no longer links the library
relinks
sed -i 's/^LDLIBS  := $(PKG_LIBS) -lsanlock_client -lm$/LDLIBS  := $(PKG_LIBS) -lm/' l/Makefile
cmp -s "$TOP/Makefile" l/Makefile && fail "the injection into the Makefile changed nothing"
expect_rc 1 python3 "$prose" links l
out_has "^docs/ARCHITECTURE.md:[0-9]*: says tp links libsanlock_client: the Makefile does not link it$"
# the lease's programs: the kill path said to link sanlock's library
# (its recipe links FENCE_LIBS, without it), then the holder said not to
# be the only one
relinks
printf '\nThe kill path `tp-lease-fence` links libsanlock_client.\n' >>l/docs/ARCHITECTURE.md
expect_rc 1 python3 "$prose" links l
out_has "^docs/ARCHITECTURE.md:[0-9]*: says tp-lease-fence links libsanlock_client: the Makefile does not link it$"
relinks
printf '\nOnly `tp-lease-holder` links libsanlock_client.\n' >>l/docs/ARCHITECTURE.md
expect_rc 1 python3 "$prose" links l
out_has "^docs/ARCHITECTURE.md:[0-9]*: says only tp-lease-holder link(s) libsanlock_client: the Makefile links it into "
# a library said to be linked into a program that does not link it
relinks
printf '\nThe unit runner alone links libcunit; `tp` links libcunit too.\n' >>l/docs/ARCHITECTURE.md
expect_rc 1 python3 "$prose" links l
out_has "^docs/ARCHITECTURE.md:[0-9]*: says tp links libcunit: the Makefile does not link it$"
# a test tool's own library (AUX_LIBS_<tool>): said and not set, then set
relinks
printf '\nOnly `test/tools/tp-lease` links libfoo (Makefile `AUX_LIBS_tp-lease`).\n' >>l/docs/ARCHITECTURE.md
expect_rc 1 python3 "$prose" links l
out_has "^docs/ARCHITECTURE.md:[0-9]*: says test/tools/tp-lease links libfoo: the Makefile does not link it$"
out_has "^docs/ARCHITECTURE.md:[0-9]*: names Makefile \`AUX_LIBS_tp-lease\`, which the Makefile does not set$"
sed -i 's/^FUZZ_EXTRA_config :=/AUX_LIBS_tp-lease := -lfoo\n&/' l/Makefile
expect_rc 0 python3 "$prose" links l
# a module the document has and the rules and the build do not
relinks
sed -i 's/^| `policy` |/| `cache` | a cache |\n&/' l/docs/ARCHITECTURE.md
expect_rc 1 python3 "$prose" links l
out_has "^docs/ARCHITECTURE.md:[0-9]*: names the module lib/pool/cache, which the Makefile's LAYERS lacks$"
out_has "^docs/ARCHITECTURE.md:[0-9]*: names the module lib/pool/cache, which scripts/check-layers.sh's RULES lacks$"
# a module the rules lost (the document still names it)
relinks
sed -i '/^lib\/pool\/policy:/d' l/scripts/check-layers.sh
cmp -s "$TOP/scripts/check-layers.sh" l/scripts/check-layers.sh && fail "the injection into check-layers.sh changed nothing"
expect_rc 1 python3 "$prose" links l
out_has "^docs/ARCHITECTURE.md:[0-9]*: names the module lib/pool/policy, which scripts/check-layers.sh's RULES lacks$"
# a module and a layer the build lost
relinks
sed -i 's| policy:lib/pool/policy||; s| lease:lease||' l/Makefile
cmp -s "$TOP/Makefile" l/Makefile && fail "the injection into the Makefile changed nothing"
expect_rc 1 python3 "$prose" links l
out_has "^docs/ARCHITECTURE.md:[0-9]*: names the module lib/pool/policy, which the Makefile's LAYERS lacks$"
out_has "^docs/ARCHITECTURE.md:[0-9]*: the layer lease/ is not in the Makefile's LAYERS$"
exit 0
