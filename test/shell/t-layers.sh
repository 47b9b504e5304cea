# SPDX-License-Identifier: GPL-2.0-or-later
# The layer check (scripts/check-layers.sh) on a small tree of its own, one
# function per layer directory using what its rule allows: the clean tree
# passes; an upward #include, an upward call behind an extern declaration
# (no include to give it away), a sideways call, a tool including metadata/,
# a directory with no rule and a circle inside one directory are each found
# with file:line and the rule broken. Inside lib/pool: the core including or
# calling a feature module, a circle between modules (its own and in the
# rule table), a module with no rule and a .c file at lib/pool's top level
# are found too.
have nm || skip "no nm"
have "${CC:-cc}" || skip "no C compiler"
check=$TOP/scripts/check-layers.sh

# src PATH LINE...: write a source file of the tree in ./tree
src() {
	mkdir -p "tree/$(dirname "$1")"
	printf '%s\n' "${@:2}" >"tree/$1"
}
# compile PATH.c...: its object under tree/build, as the Makefile does
compile() {
	local c
	for c in "$@"; do
		mkdir -p "tree/build/$(dirname "$c")"
		(cd tree && "${CC:-cc}" -g -O0 -I. -c -o "build/${c%.c}.o" "$c") || fail "cc $c"
	done
}
# layers RC [GROUP...]: run the check on ./tree, demand exit code RC
layers() {
	local want=$1
	shift
	expect_rc "$want" "$check" -r tree -b build "$@"
}

src lib/base/log.h 'int log_msg(int x);'
src lib/base/log.c '#include "lib/base/log.h"' 'int log_msg(int x) { return x; }'
src lib/dev/probe.h 'int probe(int x);'
src lib/dev/probe.c '#include "lib/base/log.h"' '#include "lib/dev/probe.h"' \
	'int probe(int x) { return log_msg(x); }'
src metadata/pdata/btree.h 'int btree_get(int x);'
src metadata/pdata/btree.c '#include "lib/base/log.h"' '#include "btree.h"' \
	'int btree_get(int x) { return log_msg(x); }'
src metadata/thin/thin.h 'int thin_open(int x);'
src metadata/thin/thin.c '#include "metadata/pdata/btree.h"' '#include "thin.h"' \
	'int thin_open(int x) { return btree_get(x); }'
src metadata/vg/vg.h 'int vg_read(int x);'
src metadata/vg/vg.c '#include "lib/base/log.h"' '#include "vg.h"' \
	'int vg_read(int x) { return log_msg(x); }'
src kernel/dm.h 'int dm_load(int x);'
src kernel/dm_lib.c '#include "lib/base/log.h"' '#include "kernel/dm.h"' \
	'int dm_load(int x) { return log_msg(x); }'
src lib/pool/pool.h '#include "metadata/vg/vg.h"' 'int pool_open(int x);' 'int vol_make(int x);' \
	'int pool_extend(int x);' 'int monitor_pass(int x);' 'void pool_init(void);'
src lib/pool/pool_init.c '#include "lib/pool/pool.h"' 'void pool_init(void) { }'
src lib/pool/core/core.h '#include "lib/pool/pool.h"' 'int core_change(int x);'
src lib/pool/core/pool.c '#include "kernel/dm.h"' '#include "lib/dev/probe.h"' \
	'#include "lib/pool/core/core.h"' '#include "metadata/thin/thin.h"' \
	'int pool_open(int x) { return thin_open(x) + vg_read(x) + dm_load(x) + probe(x); }' \
	'int core_change(int x) { return pool_open(x); }'
src lib/pool/volume/volume.h 'int vol_make(int x);'
src lib/pool/volume/volume.c '#include "lib/pool/core/core.h"' '#include "lib/pool/volume/volume.h"' \
	'int vol_make(int x) { return core_change(x); }'
src lib/pool/admin/admin.c '#include "lib/pool/core/core.h"' 'int pool_extend(int x) { return core_change(x); }'
src lib/pool/monitor/monitor.c '#include "lib/pool/pool.h"' \
	'int monitor_pass(int x) { return pool_extend(x) + pool_open(x); }'
src tools/tpdump.c '#include "lib/base/log.h"' '#include "lib/pool/pool.h"' \
	'int cmd_tpdump(int x);' 'int cmd_tpdump(int x) { return pool_open(x) + vol_make(x) + log_msg(x); }'
(cd tree && find . -name '*.c') | sed 's,^\./,,' | while read -r c; do compile "$c"; done
cp -a tree clean

# one violation at a time, on a fresh copy of the clean tree
fresh() { rm -rf tree; cp -a clean tree; }

layers 0
out_has "layers: includes: ok"
out_has "layers: calls: ok"
out_has "layers: circles: ok"
out_has "layers: modules: ok"
TP_RESULTS=$PWD/results layers 0
[ "$(cat results)" = "4 0" ] || fail "results: $(cat results), expected '4 0'"

# (a) an upward #include: lib/base using lib/pool
fresh
src lib/base/log.c '#include "lib/base/log.h"' '#include "lib/pool/pool.h"' \
	'int log_msg(int x) { return x; }'
compile lib/base/log.c
layers 1
out_has "^lib/base/log.c:2: includes lib/pool/pool.h: lib/base may include nothing of ours outside itself$"
out_has "layers: includes: 1 violations"
out_has "layers: calls: ok"
TP_RESULTS=$PWD/results layers 1
[ "$(cat results)" = "3 1" ] || fail "results: $(cat results), expected '3 1'"
# report only: the same finding, exit 0, counted as passed
LAYERS_STRICT=0 TP_RESULTS=$PWD/results layers 0
out_has "^lib/base/log.c:2: includes lib/pool/pool.h"
out_has "report only"
[ "$(cat results)" = "4 0" ] || fail "results: $(cat results), expected '4 0'"

# (b) an upward call with no include: only the symbols show it
fresh
src lib/base/log.c '#include "lib/base/log.h"' 'int pool_open(int x);' \
	'int log_msg(int x)' '{' '	return x ? pool_open(x - 1) : 0;' '}'
compile lib/base/log.c
layers 1
out_has "layers: includes: ok"
out_has "^lib/base/log.c:5: calls pool_open() from lib/pool/core/pool.c: lib/base may call nothing of ours outside itself$"
out_has "layers: calls: 1 violations"
layers 0 includes
layers 1 calls

# a sideways call: kernel using metadata/vg
fresh
src kernel/dm_lib.c '#include "lib/base/log.h"' '#include "kernel/dm.h"' 'int vg_read(int x);' \
	'int dm_load(int x) { return log_msg(x) + vg_read(x); }'
compile kernel/dm_lib.c
layers 1
out_has "^kernel/dm_lib.c:4: calls vg_read() from metadata/vg/vg.c: kernel may call only lib/base$"

# (c) a tool including and calling metadata/thin
fresh
src tools/tpdump.c '#include "lib/pool/pool.h"' '#include "metadata/thin/thin.h"' \
	'int cmd_tpdump(int x);' 'int cmd_tpdump(int x) { return pool_open(x) + thin_open(x); }'
compile tools/tpdump.c
layers 1
out_has "^tools/tpdump.c:2: includes metadata/thin/thin.h: tools may include only lib/pool, lib/base$"
out_has "^tools/tpdump.c:4: calls thin_open() from metadata/thin/thin.c: tools may call only lib/pool, lib/base$"
# a header of lib/pool may include metadata/ for the tool (pool.h includes vg.h)
out_lacks "vg.h"

# a source directory that no rule names
fresh
src lib/extra/x.c 'int x(void);' 'int x(void) { return 0; }'
layers 1 includes
out_has "^lib/extra: a source directory with no layer rule"

# a circle between two files of one directory fails; LAYERS_CIRCLES=0 makes it a note
fresh
src metadata/thin/thin.c '#include "metadata/pdata/btree.h"' '#include "thin.h"' \
	'int thin_walk(int x);' 'int thin_open(int x) { return x ? thin_walk(x - 1) : btree_get(x); }'
src metadata/thin/thin_walk.c '#include "thin.h"' 'int thin_walk(int x);' \
	'int thin_walk(int x) { return thin_open(x); }'
compile metadata/thin/thin.c metadata/thin/thin_walk.c
LAYERS_CIRCLES=0 layers 0
out_has "^note: metadata/thin: circle between thin.c, thin_walk.c:$"
out_has "^note:     thin.c -> thin_walk.c (thin_walk)$"
out_has "^note:     thin_walk.c -> thin.c (thin_open)$"
TP_RESULTS=$PWD/results layers 1
out_has "^metadata/thin: circle between thin.c, thin_walk.c:$"
out_has "layers: circles: 1 violations"
[ "$(cat results)" = "3 1" ] || fail "results: $(cat results), expected '3 1'"

# objects missing: a usage error, not a pass
fresh
rm tree/build/metadata/vg/vg.o
layers 2 calls
err_has "objects missing"

# (d) the core including a feature module's header, and calling it
fresh
src lib/pool/core/pool.c '#include "kernel/dm.h"' '#include "lib/dev/probe.h"' \
	'#include "lib/pool/core/core.h"' '#include "lib/pool/volume/volume.h"' \
	'#include "metadata/thin/thin.h"' \
	'int pool_open(int x) { return thin_open(x) + vg_read(x) + dm_load(x) + probe(x); }' \
	'int core_change(int x) { return x ? vol_make(x - 1) : pool_open(x); }'
compile lib/pool/core/pool.c
layers 1
out_has "^lib/pool/core/pool.c:4: includes lib/pool/volume/volume.h: lib/pool/core may include only lib/pool/host, lib/pool/policy, kernel"
out_has "^lib/pool/core/pool.c:7: calls vol_make() from lib/pool/volume/volume.c: lib/pool/core may call only lib/pool/host"
out_has "^lib/pool: circle between modules lib/pool/core, lib/pool/volume:$"
out_has "^    lib/pool/core -> lib/pool/volume (vol_make())$"
out_has "^    lib/pool/volume -> lib/pool/core (core_change())$"
out_has "layers: modules: 1 violations"

# (e) a circle of modules by calls alone: admin calling the monitor above it
fresh
src lib/pool/admin/admin.c '#include "lib/pool/core/core.h"' 'int monitor_pass(int x);' \
	'int pool_extend(int x) { return x ? monitor_pass(x - 1) : core_change(x); }'
compile lib/pool/admin/admin.c
layers 1 calls modules
out_has "^lib/pool/admin/admin.c:3: calls monitor_pass() from lib/pool/monitor/monitor.c: lib/pool/admin may call only lib/pool/lease, lib/pool/mirror, lib/pool/core"
out_has "^lib/pool: circle between modules lib/pool/admin, lib/pool/monitor:$"
# a module calling the public face's source is a call upward too
fresh
src lib/pool/volume/volume.c '#include "lib/pool/core/core.h"' \
	'int vol_make(int x) { pool_init(); return core_change(x); }'
compile lib/pool/volume/volume.c
layers 1 calls
out_has "calls pool_init() from lib/pool/pool_init.c: lib/pool/volume may call only"

# (f) a .c file at lib/pool's top level, and a module with no rule
fresh
src lib/pool/extra.c 'int extra(void);' 'int extra(void) { return 0; }'
src lib/pool/cache/cache.c 'int cache(void);' 'int cache(void) { return 0; }'
compile lib/pool/extra.c lib/pool/cache/cache.c
layers 1 modules
out_has "^lib/pool/extra.c: a source file at lib/pool's top level"
out_has "^lib/pool/cache: a lib/pool module with no rule"

# (g) a circle in the rule table itself (the core allowed to use volume)
fresh
sed 's|^lib/pool/core:    lib/pool/host|lib/pool/core:    lib/pool/volume lib/pool/host|' "$check" >tree/check.sh
expect_rc 1 bash tree/check.sh -r tree -b build modules
out_has "^scripts/check-layers.sh: RULES: circle between modules lib/pool/core, lib/pool/volume\(, lib/pool/removal\)\?:$"

# (h) a tool including a module's header: only the public face is for tools
fresh
src tools/tpdump.c '#include "lib/pool/pool.h"' '#include "lib/pool/core/core.h"' \
	'int cmd_tpdump(int x);' 'int cmd_tpdump(int x) { return pool_open(x) + core_change(x); }'
compile tools/tpdump.c
layers 1
out_has "^tools/tpdump.c:2: includes lib/pool/core/core.h: tools may include only lib/pool, lib/base$"

# (i) a module including another module's internal header (core_int.h
# alone shows struct pool)
fresh
src lib/pool/core/core_int.h '#include "lib/pool/core/core.h"' 'struct pool { int x; };'
src lib/pool/volume/volume.c '#include "lib/pool/core/core_int.h"' '#include "lib/pool/volume/volume.h"' \
	'int vol_make(int x) { return core_change(x); }'
compile lib/pool/volume/volume.c
layers 1 includes
out_has "^lib/pool/volume/volume.c:1: includes lib/pool/core/core_int.h: the internal header of lib/pool/core, for its own files only$"
