# SPDX-License-Identifier: GPL-2.0-or-later
# Every manual page renders with man -l at 80 columns without a warning or
# an error (tbl tables that fit, no .so that only resolves once installed)
# and with no line wider than 80 columns, and every command of the table
# has a page.
have man || skip "man (man-db) not installed"
for m in "$TOP"/man/*.[578]; do
	LC_ALL=C MANWIDTH=80 man --warnings -l "$m" >page.txt 2>warn.txt ||
		{ cat warn.txt >&2; fail "man -l $(basename "$m") failed"; }
	[ ! -s warn.txt ] || { cat warn.txt >&2; fail "man -l $(basename "$m") warns"; }
	[ -s page.txt ] || fail "$(basename "$m") renders empty"
done
# and fits in 80 columns (man does not wrap no-fill blocks: examples,
# output, the VG text)
for m in "$TOP"/man/*.[578]; do
	LC_ALL=C MANWIDTH=80 man -l "$m" 2>/dev/null | col -bx >page.txt
	! awk 'length($0) > 80 { print; bad = 1 } END { exit !bad }' page.txt ||
		fail "$(basename "$m"): lines wider than 80 columns at MANWIDTH=80"
done
for c in $(sed -n 's/^TP_COMMAND(\([a-z]*\),.*/\1/p' "$TOP/tools/commands.def"); do
	[ -e "$TOP/man/$c.8" ] || fail "command $c has no man page (man/$c.8)"
done
