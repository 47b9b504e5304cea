#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-layers.sh - enforce the layer direction of docs/ARCHITECTURE.md
# "Layers" and "lib/pool's modules":
#
#   tools -> lib/pool -> metadata/thin, metadata/vg, kernel -> metadata/pdata -> lib/dev, lib/base
#
# and inside lib/pool, whose top level is the public face (the headers
# tools include, and pool_init.c):
#
#   monitor -> admin -> core;  check, stream, volume -> core;  core -> host, policy;
#   admin, check, monitor, stream -> data -> core;  check -> crypt -> stream, volume;  unlock -> core
#
# RULES below is the one table of what each layer directory may use besides
# itself; anything under test/ may use anything and is not checked. Two
# rules are not in the table: a lib/pool module may include the public
# face's headers (but call nothing defined there), and a call from outside
# lib/pool into any of its modules counts as a call of lib/pool. A header
# named *_int.h is its directory's own (core_int.h, which alone shows
# struct pool): no other directory includes it.
#
#   scripts/check-layers.sh [-r ROOT] [-b BUILD] [GROUP...]
#
#   includes  every #include "..." / <...> of a layer's .c and .h files that
#             names one of our files: it must be in the same directory or in a
#             directory the rule allows
#   calls     every undefined symbol of a layer's objects (BUILD/DIR/NAME.o for
#             each DIR/NAME.c, the members of its archive) that one of our
#             other directories defines: that directory must be allowed
#   circles   two or more .c files of one directory that use each other's
#             symbols (directly or round a longer circle)
#   modules   lib/pool: no .c file at the top level but the public face's
#             (pool_init.c); every module directory has a rule; the
#             table's graph of modules is acyclic; and the modules' own
#             includes and calls form no circle between modules
#   Default: all four. -r: source tree (default: this repository); -b: build
#   directory relative to ROOT or absolute (default $BUILD, else build).
#
#   LAYERS_STRICT=0   report only: print the findings, exit 0 (default 1)
#   LAYERS_CIRCLES=0  circles are printed as notes only (default 1: they fail)
#   TP_RESULTS=FILE   write "passed failed", one per group, for test/run-all.sh
#
# Exit 0 when clean, 1 when a group failed, 2 on bad usage or missing objects.
# Messages are "file:line: what: rule", one line per finding; a circle is
# "dir: circle between FILES:" followed by its edges, one indented line each.
set -u

LOWER='kernel lease metadata/thin metadata/vg metadata/pdata lib/dev lib/base'
RULES="
lib/base:
lib/dev:          lib/base
metadata/pdata:   lib/base
metadata/thin:    metadata/pdata lib/base
metadata/vg:      lib/base
kernel:           lib/base
lease:            lib/base
lib/pool/policy:  lib/dev lib/base
lib/pool/host:    kernel metadata/vg lib/dev lib/base
lib/pool/core:    lib/pool/host lib/pool/policy $LOWER
lib/pool/owner:   lib/pool/core lib/pool/host $LOWER
lib/pool/lease:   lib/pool/core lib/pool/host $LOWER
lib/pool/removal: lib/pool/core lib/pool/host $LOWER
lib/pool/data:    lib/pool/core lib/pool/host $LOWER
lib/pool/mirror:  lib/pool/core lib/pool/host $LOWER
lib/pool/volume:  lib/pool/removal lib/pool/core lib/pool/host lib/pool/policy $LOWER
lib/pool/stream:  lib/pool/data lib/pool/core lib/pool/host $LOWER
lib/pool/crypt:   lib/pool/stream lib/pool/volume lib/pool/core lib/pool/host $LOWER
lib/pool/unlock:  lib/pool/core lib/pool/host $LOWER
lib/pool/check:   lib/pool/crypt lib/pool/mirror lib/pool/data lib/pool/core lib/pool/host $LOWER
lib/pool/admin:   lib/pool/lease lib/pool/mirror lib/pool/core lib/pool/data lib/pool/host lib/pool/policy $LOWER
lib/pool/monitor: lib/pool/admin lib/pool/mirror lib/pool/data lib/pool/core lib/pool/host lib/pool/policy $LOWER
lib/pool:         lib/pool/monitor lib/pool/admin lib/pool/check lib/pool/crypt lib/pool/unlock lib/pool/stream lib/pool/volume lib/pool/removal lib/pool/lease lib/pool/mirror lib/pool/owner lib/pool/data lib/pool/core lib/pool/host lib/pool/policy $LOWER
tools:            lib/pool lib/base
"
# the public face's one source file
FACE_SOURCES='lib/pool/pool_init.c'

usage() { echo "usage: $0 [-r ROOT] [-b BUILD] [includes|calls|circles|modules]..." >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
while getopts r:b: opt; do
	case $opt in
	r) root=$(cd "$OPTARG" && pwd) || exit 2 ;;
	b) build=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(includes calls circles modules)
for g in "${groups[@]}"; do
	case $g in includes|calls|circles|modules) ;; *) usage ;; esac
done
strict=${LAYERS_STRICT:-1}
circles_fail=${LAYERS_CIRCLES:-1}
cd "$root" || exit 2
case $build in /*) ;; *) build=$root/$build ;; esac

dirs=$(awk -F: 'NF { print $1 }' <<<"$RULES")

# every .c of the layers, and its object
objects() {
	local d c
	for d in $dirs; do
		for c in "$d"/*.c; do
			[ -e "$c" ] && echo "$build/${c%.c}.o"
		done
	done
}

# A source directory next to the layers that the table does not name has no
# rule (and no archive): say so instead of letting it pass unchecked.
unplaced() {
	local d
	for d in lib/*/ lib/pool/*/ metadata/*/; do
		d=${d%/}
		[ -d "$d" ] || continue
		grep -qx "$d" <<<"$dirs" || echo "$d: a source directory with no layer rule (add it to RULES in scripts/check-layers.sh)"
	done
}

check_includes() {
	local d f srcs=()
	for d in $dirs; do
		for f in "$d"/*.[ch]; do
			[ -e "$f" ] && srcs+=("$f")
		done
	done
	unplaced
	# shellcheck disable=SC2086
	find $dirs test -maxdepth 2 -type f >"$tmp/files" 2>/dev/null
	awk -v rules="$RULES" '
	function norm(p,   n, i, parts, out, k) {
		n = split(p, parts, "/"); k = 0
		for (i = 1; i <= n; i++) {
			if (parts[i] == "" || parts[i] == ".") continue
			if (parts[i] == "..") { if (k > 0) k--; continue }
			out[++k] = parts[i]
		}
		p = ""
		for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") out[i]
		return p
	}
	function dirof(p) { sub("^\\./", "", p); if (sub("/[^/]*$", "", p)) return p; return "." }
	BEGIN {
		n = split(rules, line, "\n")
		for (i = 1; i <= n; i++) {
			if (split(line[i], f, ":") < 2) continue
			layer[f[1]] = 1; m = split(f[2], a, " ")
			allowed_text[f[1]] = m ? a[1] : ""
			for (j = 1; j <= m; j++) {
				allow[f[1], a[j]] = 1
				if (j > 1) allowed_text[f[1]] = allowed_text[f[1]] ", " a[j]
			}
		}
	}
	NR == FNR { exists[$0] = 1; next }
	/^[ \t]*#[ \t]*include[ \t]*["<]/ {
		inc = $0
		sub("^[ \t]*#[ \t]*include[ \t]*", "", inc)
		quoted = substr(inc, 1, 1) == "\""
		inc = substr(inc, 2); sub("[\">].*$", "", inc)
		from = dirof(FILENAME)
		target = ""
		if (quoted && (norm(from "/" inc) in exists)) target = norm(from "/" inc)
		else if (norm(inc) in exists) target = norm(inc)
		if (target == "") next
		to = dirof(target)
		if (to != from && target ~ /_int\.h$/) {
			printf "%s:%d: includes %s: the internal header of %s, for its own files only\n", FILENAME, FNR, target, to
			next
		}
		if (to == from || allow[from, to]) next
		# a lib/pool module may include the public face headers
		if (to == "lib/pool" && index(from, "lib/pool/") == 1 && target ~ /\.h$/) next
		rule = allowed_text[from] == "" ? from " may include nothing of ours outside itself" \
		                                : from " may include only " allowed_text[from]
		what = (to in layer) ? "includes " target : "includes " target " (outside the layers)"
		printf "%s:%d: %s: %s\n", FILENAME, FNR, what, rule
	}
	' "$tmp/files" "${srcs[@]}"
}

# nm over all layer objects: "dir object symbol U|D", object relative to the build
symbols() {
	local objs o missing=()
	mapfile -t objs < <(objects)
	for o in "${objs[@]}"; do
		[ -f "$o" ] || missing+=("$o")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "check-layers: ${#missing[@]} objects missing (${missing[0]}, ...); build first (make tests)" >&2
		return 2
	fi
	[ ${#objs[@]} -gt 0 ] || return 0
	nm -A -P "${objs[@]}" | awk -v build="$build/" '
	{
		obj = $1; sub(":$", "", obj); sub("^" build, "", obj)
		dir = obj; sub("/[^/]*$", "", dir)
		if ($3 == "U") print dir, obj, $2, "U"
		else if ($3 ~ /^[A-TV-Z]$/) print dir, obj, $2, "D"
	}'
}

# the line of the first use of SYMBOL in OBJECT (needs -g), else the source file
use_line() {
	local obj=$1 sym=$2 src=${1%.o}.c loc
	loc=$(nm -l "$build/$obj" 2>/dev/null | awk -v s="$sym" '$1 == "U" && $2 == s { print $3; exit }')
	loc=${loc#"$root"/}
	[ -n "$loc" ] && echo "$loc" || echo "$src"
}

check_calls() {
	local syms=$1
	awk -v rules="$RULES" '
	BEGIN {
		n = split(rules, line, "\n")
		for (i = 1; i <= n; i++) {
			if (split(line[i], f, ":") < 2) continue
			m = split(f[2], a, " ")
			allowed_text[f[1]] = m ? a[1] : ""
			for (j = 1; j <= m; j++) {
				allow[f[1], a[j]] = 1
				if (j > 1) allowed_text[f[1]] = allowed_text[f[1]] ", " a[j]
			}
		}
	}
	$4 == "D" { defdir[$3] = $1; defobj[$3] = $2; next }
	{ use[++nu] = $0 }
	END {
		for (i = 1; i <= nu; i++) {
			split(use[i], u, " ")
			if (!(u[3] in defdir)) continue
			to = defdir[u[3]]
			# from outside lib/pool, any of its modules is lib/pool
			if (index(to, "lib/pool/") == 1 && u[1] != "lib/pool" && index(u[1], "lib/pool/") != 1)
				to = "lib/pool"
			if (to == u[1] || allow[u[1], to]) continue
			rule = allowed_text[u[1]] == "" ? u[1] " may call nothing of ours outside itself" \
			                                : u[1] " may call only " allowed_text[u[1]]
			src = defobj[u[3]]; sub("\\.o$", ".c", src)
			print u[2], u[3], "calls " u[3] "() from " src ": " rule
		}
	}' "$syms" |
	while read -r obj sym msg; do
		echo "$(use_line "$obj" "$sym"): $msg"
	done | sort -t: -k1,1 -k2,2n
}

# circles: lines "HEAD<TAB>FROM<TAB>TO<TAB>WHY" on stdin, one per edge of a
# graph named HEAD; every strongly connected set of two or more nodes is
# printed as "HEAD NODES:" and its edges, one indented line each ("FROM
# -> TO (WHY)"; no parenthesis for an empty WHY).
circles() {
	awk -F'\t' '
	{
		h = $1
		if (!(h in hseen)) { hseen[h] = 1; hlist[++nh] = h }
		if (!((h, $2, $3) in edge)) edge[h, $2, $3] = $4
		for (x = 2; x <= 3; x++) if (!((h, $x) in seen)) { seen[h, $x] = 1; node[h, ++cnt[h]] = $x }
	}
	END {
		for (q = 1; q <= nh; q++) {
			h = hlist[q]; n = cnt[h]
			delete r
			for (i = 1; i <= n; i++) for (j = 1; j <= n; j++) r[i, j] = ((h, node[h, i], node[h, j]) in edge)
			for (m = 1; m <= n; m++) for (i = 1; i <= n; i++) if (r[i, m])
				for (j = 1; j <= n; j++) if (r[m, j]) r[i, j] = 1
			delete done
			for (i = 1; i <= n; i++) {
				if (done[i] || !r[i, i]) continue
				members = ""; edges = ""
				for (j = 1; j <= n; j++) if (r[i, j] && r[j, i]) {
					done[j] = 1
					members = members (members == "" ? "" : ", ") node[h, j]
					for (m = 1; m <= n; m++) if (r[i, m] && r[m, i] && ((h, node[h, j], node[h, m]) in edge)) {
						why = edge[h, node[h, j], node[h, m]]
						edges = edges "\n    " node[h, j] " -> " node[h, m] (why == "" ? "" : " (" why ")")
					}
				}
				printf "%s %s:%s\n", h, members, edges
			}
		}
	}'
}

check_circles() {
	local syms=$1
	awk '
	$4 == "D" { defobj[$3] = $2; next }
	{ use[++nu] = $0 }
	function base(p) { sub("^.*/", "", p); sub("\\.o$", ".c", p); return p }
	END {
		for (i = 1; i <= nu; i++) {
			split(use[i], u, " ")
			if (!(u[3] in defobj)) continue
			to = defobj[u[3]]; d = to; sub("/[^/]*$", "", d)
			if (d != u[1] || to == u[2]) continue
			printf "%s: circle between\t%s\t%s\t%s\n", d, base(u[2]), base(to), u[3]
		}
	}' "$syms" | circles
}

# lib/pool's modules: what lies at its top level, whether the table's
# graph of modules has a circle, and whether the modules' own includes and
# calls (SYMS) make one.
check_modules() {
	local syms=$1 f d
	for f in lib/pool/*.c; do
		[ -e "$f" ] || continue
		grep -qxF "$f" <<<"$FACE_SOURCES" ||
			echo "$f: a source file at lib/pool's top level, beside the public face ($FACE_SOURCES): move it into the module it belongs to"
	done
	for d in lib/pool/*/; do
		d=${d%/}
		[ -d "$d" ] || continue
		grep -qx "$d" <<<"$dirs" || echo "$d: a lib/pool module with no rule (add it to RULES in scripts/check-layers.sh)"
	done
	{
		# the table's edges between lib/pool directories
		awk -v rules="$RULES" 'BEGIN {
			n = split(rules, line, "\n")
			for (i = 1; i <= n; i++) {
				if (split(line[i], f, ":") < 2 || f[1] !~ /^lib\/pool/) continue
				m = split(f[2], a, " ")
				for (j = 1; j <= m; j++) if (a[j] ~ /^lib\/pool/) print "rule", f[1], a[j], "-"
			}
		}'
		# the objects' calls between lib/pool directories
		awk '$4 == "D" { defdir[$3] = $1; next } { use[++nu] = $0 }
		END {
			for (i = 1; i <= nu; i++) {
				split(use[i], u, " ")
				if (!(u[3] in defdir)) continue
				to = defdir[u[3]]
				if (to != u[1] && u[1] ~ /^lib\/pool/ && to ~ /^lib\/pool/)
					print "use", u[1], to, u[3] "()"
			}
		}' "$syms"
		# the includes between lib/pool modules (the face's headers are
		# everyone's types: no edge)
		grep -H '^[ 	]*#[ 	]*include[ 	]*"lib/pool/[^/"]*/' lib/pool/*/*.[ch] 2>/dev/null |
			sed 's|^\(lib/pool/[^/]*\)/[^:]*:[^"]*"\(lib/pool/[^/]*\)/\([^"]*\)".*|\1 \2 \3|' |
			awk '$1 != $2 { print "use", $1, $2, $3 }'
	} | awk '{ printf "%s\t%s\t%s\t%s\n", $1 == "rule" ? "scripts/check-layers.sh: RULES: circle between modules" : "lib/pool: circle between modules", $2, $3, $4 == "-" ? "" : $4 }' | circles
}

passed=0 failed=0 rc=0
report() { # group findings-file fails(0/1)
	local group=$1 file=$2 counts=$3 n
	n=$(grep -c '^[^ ]' "$file")
	if [ "$n" = 0 ]; then
		echo "layers: $group: ok"
		[ "$counts" = 1 ] && passed=$((passed + 1))
		return
	fi
	if [ "$counts" = 0 ]; then
		sed 's/^/note: /' "$file"
		echo "layers: $group: $n found (notes only: LAYERS_CIRCLES=0)"
	elif [ "$strict" = 0 ]; then
		cat "$file"
		echo "layers: $group: $n violations (report only: LAYERS_STRICT=0)"
		passed=$((passed + 1))
	else
		cat "$file"
		echo "layers: $group: $n violations"
		failed=$((failed + 1)); rc=1
	fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for g in "${groups[@]}"; do
	case $g in
	calls|circles|modules)
		if [ ! -e "$tmp/syms" ]; then
			symbols >"$tmp/syms" || { rc=2; failed=$((failed + 1)); break; }
		fi ;;
	esac
	case $g in
	includes) check_includes >"$tmp/$g"; report "$g" "$tmp/$g" 1 ;;
	calls) check_calls "$tmp/syms" >"$tmp/$g"; report "$g" "$tmp/$g" 1 ;;
	circles) check_circles "$tmp/syms" >"$tmp/$g"; report "$g" "$tmp/$g" "$circles_fail" ;;
	modules) check_modules "$tmp/syms" >"$tmp/$g"; report "$g" "$tmp/$g" 1 ;;
	esac
done
[ -n "${TP_RESULTS:-}" ] && echo "$passed $failed" >"$TP_RESULTS"
exit $rc
