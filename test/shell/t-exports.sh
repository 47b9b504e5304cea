# SPDX-License-Identifier: GPL-2.0-or-later
# The dead-export check (scripts/check-exports.sh) on a small tree of its
# own: a clean tree passes; a function used in its own file only, one used
# nowhere and one only a test uses are each found with file:line and what
# to do; the allow-list silences one with its reason, and a line whose
# function the product uses again, or no longer defines, is a note that
# does not fail. LAYERS_STRICT=0 reports without failing; TP_RESULTS gets
# "passed failed"; missing objects are exit 2. Then the project's own tree:
# the build under test passes.
have nm || skip "no nm"
have "${CC:-cc}" || skip "no C compiler"
check=$TOP/scripts/check-exports.sh

# src PATH LINE...: write a source file of the tree in ./tree
src() {
	mkdir -p "tree/$(dirname "$1")"
	printf '%s\n' "${@:2}" >"tree/$1"
}
# build: compile every .c of the layers and tools into tree/build, as the
# Makefile does (with -g: the findings' lines come from it)
build() {
	local c
	rm -rf tree/build
	for c in $(cd tree && find lib metadata tools -name '*.c'); do
		mkdir -p "tree/build/$(dirname "$c")"
		(cd tree && "${CC:-cc}" -g -O0 -I. -c -o "build/${c%.c}.o" "$c") || fail "cc $c"
	done
}
# exports RC [ARGS...]: run the check on ./tree, demand exit code RC
exports() {
	local want=$1
	shift
	expect_rc "$want" "$check" -r tree -b build "$@"
}

src lib/base/log.h 'int log_msg(int x);'
src lib/base/log.c '#include "lib/base/log.h"' 'int log_msg(int x) { return x; }'
src metadata/vg/vg.h 'int vg_read(int x);'
src metadata/vg/vg.c '#include "lib/base/log.h"' '#include "metadata/vg/vg.h"' \
	'int vg_read(int x) { return log_msg(x); }'
src tools/main.c '#include "metadata/vg/vg.h"' 'int main(void) { return vg_read(0); }'
src test/unit/test_vg.c '#include "metadata/vg/vg.h"' 'int t(void) { return vg_read(1); }'
build
exports 0
out_has "^exports: ok$"

# ---- a missing object: exit 2, said ----
rm tree/build/metadata/vg/vg.o
exports 2
err_has "objects missing.*metadata/vg/vg.o.*make tests"
build

# ---- a function used in its own file only ----
src metadata/vg/vg.h 'int vg_read(int x);' 'int vg_helper(int x);'
src metadata/vg/vg.c '#include "lib/base/log.h"' '#include "metadata/vg/vg.h"' \
	'int vg_helper(int x) { return x + 1; }' \
	'int vg_read(int x) { return log_msg(vg_helper(x)); }'
build
exports 1
out_has "^metadata/vg/vg.c:3: vg_helper: exported, no other object of the product uses it: used in its own file only: make it static$"
out_has "^exports: 1 function no other object uses$"
! grep -q "vg_read\|log_msg" out || fail "a used function was reported: $(cat out)"

# ---- report only ----
LAYERS_STRICT=0 exports 0
out_has "vg_helper: .*make it static"
out_has "report only: LAYERS_STRICT=0"

# ---- TP_RESULTS ----
TP_RESULTS=$PWD/results exports 1
[ "$(cat results)" = "0 1" ] || fail "TP_RESULTS after a finding: $(cat results)"

# ---- one used nowhere, one used only by a test ----
src lib/base/log.h 'int log_msg(int x);' 'int log_unused(void);' 'int log_probe(int x);'
src lib/base/log.c '#include "lib/base/log.h"' 'int log_msg(int x) { return x; }' \
	'int log_unused(void) { return 0; }' 'int log_probe(int x) { return -x; }'
src test/unit/test_log.c '#include "lib/base/log.h"' 'int t2(void) { return log_probe(2); }'
build
exports 1
out_has "^lib/base/log.c:3: log_unused: exported, no other object of the product uses it: used nowhere: delete it$"
out_has "^lib/base/log.c:4: log_probe: exported, .*used only by tests (test/unit/test_log.c): test through the real API, move it into the test build, or list it in scripts/exports-allow.txt with why$"
out_has "^exports: 3 functions no other object uses$"

# ---- the allow-list: each line silences its function ----
mkdir -p tree/scripts
printf '%s\n' '# deliberate' 'log_probe   the unit tests reach the parser' \
	'vg_helper   kept for now' 'log_unused  kept for now' >tree/scripts/exports-allow.txt
exports 0
out_has "^exports: ok$"
! grep -q "^note:" out || fail "a needed allow-list line was noted: $(cat out)"
TP_RESULTS=$PWD/results exports 0
[ "$(cat results)" = "1 0" ] || fail "TP_RESULTS when clean: $(cat results)"
# -a names another list (here: none of them allowed)
: >other-allow
exports 1 -a "$PWD/other-allow"
out_has "^exports: 3 functions"

# ---- a stale line is a note, not a failure ----
printf '%s\n' 'log_probe   tests' 'vg_helper   kept' 'log_unused  kept' 'vg_read  used now' \
	'gone_fn  deleted long ago' >tree/scripts/exports-allow.txt
exports 0
out_has "^note: scripts/exports-allow.txt:4: vg_read: allowed, but the product uses it now: drop the line$"
out_has "^note: scripts/exports-allow.txt:5: gone_fn: allowed, but no object defines it: drop the line$"
out_has "^exports: ok$"

# ---- the project itself: the build under test has no dead export ----
[ -d "$TOP/$BUILD/lib" ] || skip "no objects in $BUILD (make tests first)"
expect_rc 0 "$check" -b "$TOP/$BUILD"
out_has "^exports: ok$"
