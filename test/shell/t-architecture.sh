# SPDX-License-Identifier: GPL-2.0-or-later
# docs/ARCHITECTURE.md is kept true with the code: its list of the calls
# of pool_is_live() outside lib/pool/core is exactly the code's (file and
# function), every lib/pool module is in its table, the core's size is
# what it says (to 2%), and nothing in the tree cites a design document
# the tree does not contain. (The paths it names, its modules and its
# link rules: t-prose.sh.)
w=$PWD	# the lists go to the test's own directory, never into the tree
cd "$TOP"
doc=docs/ARCHITECTURE.md
[ -f "$doc" ] || fail "no $doc"

# the calls of pool_is_live() outside the core: "file function", from the sources
for f in $(grep -l 'pool_is_live(' lib/pool/*/*.c | grep -v '^lib/pool/core/'); do
	awk -v F="$f" '/^[a-z].*\(/ { fn = $0 }
		/pool_is_live\(/ { sub(/\(.*/, "", fn); n = split(fn, a, " "); sub(/^\*/, "", a[n]); print F, a[n] }' "$f"
done | sort -u >"$w"/code.list
[ -s "$w"/code.list ] || fail "found no call of pool_is_live outside the core (the scan is broken)"
sed -n '/<!-- live-uses: begin -->/,/<!-- live-uses: end -->/p' "$doc" |
	awk -F'|' 'NF > 3 && $2 ~ /lib\/pool/ { gsub(/ /, "", $2); gsub(/ /, "", $3); print $2, $3 }' |
	sort -u >"$w"/doc.list
[ -s "$w"/doc.list ] || fail "$doc has no live-uses table"
diff -u "$w"/doc.list "$w"/code.list >"$w"/live.diff ||
	fail "pool_is_live() outside the core differs from $doc's list (+ code, - doc): $(cat "$w"/live.diff)"
# inside the core, be->live outside the two backends: the second table
for f in $(grep -l 'be->live' lib/pool/core/*.c | grep -v '/pool_live.c$\|/pool_offline.c$'); do
	awk -v F="$f" '/^[a-z].*\(/ { fn = $0 }
		/be->live/ { sub(/\(.*/, "", fn); n = split(fn, a, " "); sub(/^\*/, "", a[n]); print F, a[n] }' "$f"
done | sort -u >"$w"/core-code.list
sed -n '/<!-- core-live-uses: begin -->/,/<!-- core-live-uses: end -->/p' "$doc" |
	awk -F'|' 'NF > 3 && $2 ~ /lib\/pool/ { gsub(/ /, "", $2); gsub(/ /, "", $3); print $2, $3 }' |
	sort -u >"$w"/core-doc.list
[ -s "$w"/core-doc.list ] || fail "$doc has no core-live-uses table"
diff -u "$w"/core-doc.list "$w"/core-code.list >"$w"/core.diff ||
	fail "be->live in the core differs from $doc's list (+ code, - doc): $(cat "$w"/core.diff)"
# and the backend's kind is read nowhere outside the core
bad=$(grep -n 'be->live' lib/pool/*/*.c | grep -v '^lib/pool/core/' || true)
[ -z "$bad" ] || fail "the backend's kind read outside the core: $bad"

# the core's size as the document states it ("The core is N lines of C in
# M files"), within 2% of the tree's
read -r said files < <(tr '\n' ' ' <"$doc" | sed -n 's/.*The core is \([0-9,]*\) lines of C in \([0-9]*\) files.*/\1 \2/p' | tr -d ,; echo)
[ -n "$said" ] || fail "$doc does not state the core's size (\"The core is N lines of C in M files\")"
lines=$(cat lib/pool/core/*.c | wc -l)
nfiles=$(ls lib/pool/core/*.c | wc -l)
[ $((lines * 100)) -ge $((said * 98)) ] && [ $((lines * 100)) -le $((said * 102)) ] ||
	fail "$doc says the core is $said lines of C; it is $lines"
[ "$files" = "$nfiles" ] || fail "$doc says the core has $files .c files; it has $nfiles"

# every module directory has its row
for d in lib/pool/*/; do
	m=$(basename "$d")
	grep -q "^| \`$m\` |" "$doc" || fail "$doc: no row for the module $m"
done

# (every path the document names exists, its modules and link rules are
# the build's: t-prose.sh, for the whole tree's prose)

# nothing cites a design document outside the tree
bad=$(git grep -n 'DESIGN\.md' -- . ':!test/shell/t-architecture.sh' || true)
[ -z "$bad" ] || fail "cites DESIGN.md, which is not in the tree: $bad"
exit 0
