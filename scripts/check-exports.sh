#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-exports.sh - no dead exports in the product: every global function
# that lib/, metadata/, kernel/ and lease/ define is used by another object
# of the product (those directories and tools/), from the objects' symbols
# (nm), unless scripts/exports-allow.txt lists it with the reason it stays.
#
# A function used by no other object is one of:
#   - used in its own file only: make it static (and its prototype goes
#     from the header to the file);
#   - used nowhere: delete it;
#   - used only by tests (test/: the unit runner, the test tools, the fuzz
#     harnesses): test through the real API, or move it into the test
#     build (test/lib/), or, when it is a natural part of its module's
#     interface that the unit tests exercise, list it in the allow-list.
# Each finding says which of these the sources suggest (the test/ files
# that name it, when any). An allow-list entry whose function is used by
# the product again, or no longer defined, is a note: drop the line.
#
#   scripts/check-exports.sh [-r ROOT] [-b BUILD] [-a ALLOW]
#
#   -r  source tree (default: this repository)
#   -b  build directory relative to ROOT or absolute (default $BUILD, else build):
#       its objects of the sources (BUILD/DIR/NAME.o for each DIR/NAME.c)
#   -a  the allow-list (default ROOT/scripts/exports-allow.txt; none: empty):
#       one function a line, then its reason ("name  why"); # comments
#
#   LAYERS_STRICT=0   report only: print the findings, exit 0 (default 1)
#   TP_RESULTS=FILE   write "passed failed" (one check), for test/run-all.sh
#
# Exit 0 when clean, 1 with findings, 2 on bad usage or missing objects.
# A finding is "file:line: FUNCTION: what: what to do", one line each.
set -u

DEFINERS='lib metadata kernel lease'
USERS='lib metadata kernel lease tools'

usage() { echo "usage: $0 [-r ROOT] [-b BUILD] [-a ALLOW]" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
allow=
while getopts r:b:a: opt; do
	case $opt in
	r) root=$(cd "$OPTARG" && pwd) || exit 2 ;;
	b) build=$OPTARG ;;
	a) allow=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 0 ] || usage
strict=${LAYERS_STRICT:-1}
cd "$root" || exit 2
case $build in /*) ;; *) build=$root/$build ;; esac
[ -n "$allow" ] || allow=$root/scripts/exports-allow.txt
case $allow in /*) ;; *) allow=$root/$allow ;; esac

result() { [ -n "${TP_RESULTS:-}" ] && echo "$1 $2" >"$TP_RESULTS"; return 0; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the objects of the product's sources
objs=() missing=()
for d in $USERS; do
	[ -d "$d" ] || continue
	while IFS= read -r c; do
		o=$build/${c%.c}.o
		[ -f "$o" ] && objs+=("$o") || missing+=("$o")
	done < <(find "$d" -name '*.c' | sort)
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "check-exports: ${#missing[@]} objects missing (${missing[0]}, ...); build first (make tests)" >&2
	result 0 1
	exit 2
fi
if [ ${#objs[@]} = 0 ]; then
	echo "exports: ok (no objects)"
	result 1 0
	exit 0
fi

# "object symbol T|U" for every defined function and every use
nm -A -P "${objs[@]}" | awk -v build="$build/" '
{
	obj = $1; sub(":$", "", obj); sub("^" build, "", obj)
	if ($3 == "U") print obj, $2, "U"
	else if ($3 == "T" || $3 == "W") print obj, $2, "T"
}' >"$tmp/syms"

# the allow-list: names, and its lines for the notes
: >"$tmp/allow"
if [ -f "$allow" ]; then
	awk '{ sub("#.*", "") } NF { print $1, FNR }' "$allow" >"$tmp/allow"
fi

# defined in a definer directory, used by no other object
awk -v definers="$DEFINERS" '
BEGIN { n = split(definers, d, " "); for (i = 1; i <= n; i++) isdef[d[i]] = 1 }
FILENAME == ARGV[1] { allowed[$1] = $2; next }
$3 == "T" { top = $1; sub("/.*", "", top); if (top in isdef) def[$2] = $1; defined[$2] = 1; next }
$3 == "U" { users[$2] = users[$2] " " $1 }
END {
	for (s in def) {
		other = 0
		n = split(users[s], u, " ")
		for (i = 1; i <= n; i++) if (u[i] != def[s]) other = 1
		if (!other && !(s in allowed)) print "dead", s, def[s]
		if (other && (s in allowed)) print "used", s, allowed[s]
	}
	for (s in allowed) if (!(s in defined)) print "gone", s, allowed[s]
}' "$tmp/allow" "$tmp/syms" | sort -k2 >"$tmp/found"

# the line of SYMBOL's definition in OBJECT (needs -g), else its source file
def_line() {
	local obj=$1 sym=$2 loc
	loc=$(nm -l "$build/$obj" 2>/dev/null | awk -v s="$sym" '($2 == "T" || $2 == "W") && $3 == s { print $4; exit }')
	loc=${loc#"$root"/}
	[ -n "$loc" ] && echo "$loc" || echo "${obj%.o}.c"
}

rel_allow=${allow#"$root"/}
: >"$tmp/findings"
: >"$tmp/notes"
while read -r kind sym where; do
	case $kind in
	dead)
		src=${where%.o}.c
		tests=$(grep -rlw --include='*.[ch]' -- "$sym" test 2>/dev/null | sort | head -3 | tr '\n' ' ')
		own=$(grep -cw -- "$sym" "$src" 2>/dev/null)
		if [ -n "$tests" ]; then
			what="used only by tests (${tests% }): test through the real API, move it into the test build, or list it in $rel_allow with why"
		elif [ "${own:-0}" -gt 1 ]; then
			what="used in its own file only: make it static"
		else
			what="used nowhere: delete it"
		fi
		echo "$(def_line "$where" "$sym"): $sym: exported, no other object of the product uses it: $what" >>"$tmp/findings" ;;
	used)
		echo "$rel_allow:$where: $sym: allowed, but the product uses it now: drop the line" >>"$tmp/notes" ;;
	gone)
		echo "$rel_allow:$where: $sym: allowed, but no object defines it: drop the line" >>"$tmp/notes" ;;
	esac
done <"$tmp/found"

sed 's/^/note: /' "$tmp/notes"
n=$(wc -l <"$tmp/findings")
if [ "$n" = 0 ]; then
	echo "exports: ok"
	result 1 0
	exit 0
fi
sort "$tmp/findings"
[ "$n" = 1 ] && what="1 function no other object uses" || what="$n functions no other object uses"
if [ "$strict" = 0 ]; then
	echo "exports: $what (report only: LAYERS_STRICT=0)"
	result 1 0
	exit 0
fi
echo "exports: $what"
result 0 1
exit 1
