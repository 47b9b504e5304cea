# SPDX-License-Identifier: GPL-2.0-or-later
# The licence (README "Licence"): the tree is GPL-2.0-or-later. LICENSE
# holds the GNU GPL version 2, and every source and script file (.c, .h,
# .def, .sh, .py, .awk, .gp, the Makefile, .ci/run, the bash completion)
# says so on one of its first two lines with an SPDX-License-Identifier.
# (The package's debian/copyright: t-install.sh.)
cd "$TOP"
[ -f LICENSE ] || fail "no LICENSE file"
grep -q "GNU GENERAL PUBLIC LICENSE" LICENSE && grep -q "Version 2, June 1991" LICENSE ||
	fail "LICENSE is not the GNU GPL version 2"
tag="SPDX-License-Identifier: GPL-2.0-or-later"
if [ -d .git ] || [ -f .git ]; then
	files=$(git ls-files)
else
	files=$(find . -type f -not -path './build*' -not -path './.git/*' | sed 's|^\./||')
fi
n=0 missing=()
while read -r f; do
	case $f in
	test/fuzz/corpus/*) continue ;;
	*.c | *.h | *.def | *.sh | *.py | *.awk | *.gp | Makefile | .ci/run | completion/tp) ;;
	*) continue ;;
	esac
	[ -f "$f" ] || continue
	n=$((n + 1))
	head -2 "$f" | grep -q "$tag" || missing+=("$f")
done <<<"$files"
[ "$n" -gt 400 ] || fail "only $n source files found"
[ ${#missing[@]} = 0 ] || fail "${#missing[@]} files lack '$tag' on their first two lines: ${missing[*]:0:10}"
grep -q "GPL-2.0-or-later" README.md || fail "the README names no licence"
