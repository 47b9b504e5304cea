# SPDX-License-Identifier: GPL-2.0-or-later
# Every command a message suggests exists, with the options it names.
# Data-driven: the suggestions are extracted from the sources (quoted
# 'tp... --opt' / 'tv...' in C string literals, adjacent literals joined,
# and "run tpXXX" / "tpXXX(8)" mentions) and from the man pages (commands
# in example blocks and quoted suggestions); the commands are the rows of
# tools/commands.def, and an option must appear in that command's --help.
cd "$TOP"
python3 - >"$OLDPWD/suggestions" <<'PY'
import glob, re

cmd_re = r"(t[pv][a-z]*)"

def c_strings(text):
    """The C string literals of TEXT, adjacent ones joined, with lines."""
    out, cur, line = [], None, 0
    pos = 0
    lit = re.compile(r'"((?:\\.|[^"\\\n])*)"')
    gap = re.compile(r'\s*')
    while True:
        m = lit.search(text, pos)
        if not m:
            break
        if cur is not None and gap.fullmatch(text, pos, m.start()):
            cur += m.group(1)
        else:
            if cur is not None:
                out.append((line, cur))
            cur, line = m.group(1), text.count("\n", 0, m.start()) + 1
        pos = m.end()
    if cur is not None:
        out.append((line, cur))
    return out

def emit(where, s):
    print(f"{where}\t{s}")

for f in sorted(glob.glob("lib/**/*.c", recursive=True) + glob.glob("tools/*.c") +
                glob.glob("metadata/**/*.c", recursive=True) +
                glob.glob("kernel/**/*.c", recursive=True)):
    text = open(f).read()
    # comments out, so only code strings count
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    for line, s in c_strings(text):
        s = s.replace('\\"', '"')
        for m in re.finditer(r"'" + cmd_re + r"((?: [^']*)?)'", s):
            emit(f"{f}:{line}", m.group(1) + m.group(2))
        for m in re.finditer(r"\b(?:run|with|use) " + cmd_re + r"\b", s):
            emit(f"{f}:{line}", m.group(1))
        for m in re.finditer(r"\b" + cmd_re + r"\(8\)", s):
            emit(f"{f}:{line}", "man8:" + m.group(1))

for f in sorted(glob.glob("man/*.[578]")):
    block = False
    for n, raw in enumerate(open(f), 1):
        s = raw.rstrip("\n").replace("\\-", "-").replace("\\e", "")
        if re.match(r"\.(nf|EX)\b", s):
            block = True
            continue
        if re.match(r"\.(fi|EE)\b", s):
            block = False
            continue
        for m in re.finditer(r"'" + cmd_re + r"((?: [^']*)?)'", s):
            emit(f"{f}:{n}", m.group(1) + m.group(2))
        if block:
            m = re.match(r"\s*(?:[$#] )?" + cmd_re + r"( .*)?$", s)
            if m:
                emit(f"{f}:{n}", m.group(1) + re.split(r"[#|<>;]", m.group(2) or "")[0])
PY
cd "$OLDPWD"
[ "$(grep -c "tprepair" suggestions)" -gt 3 ] || fail "the extraction found too little"
grep -q "tprepair --force" suggestions || fail "the extraction missed 'tprepair --force'"

# the commands: names and aliases of commands.def (and the internal ones)
commands=$(sed -n 's/^TP_COMMAND(\([a-z]*\), "\([a-z]*\)".*/\1 \2/p; s/^TP_INTERNAL("\([a-z-]*\)".*/\1/p' \
	"$TOP/tools/commands.def" | tr ' ' '\n')
[ -n "$commands" ] || fail "no commands read from commands.def"
known() { grep -qx -- "$1" <<<"$commands"; }

bad=0
checked=0
while IFS=$'\t' read -r where text; do
	case $text in
	man8:*)
		name=${text#man8:}
		known "$name" && [ -e "$TOP/man/$name.8" ] ||
			{ echo "$where: $name(8): no such command or man page"; bad=1; }
		continue ;;
	esac
	read -r -a words <<<"$text"
	name=${words[0]}
	opts=("${words[@]:1}")
	if [ "$name" = tp ]; then
		[ ${#opts[@]} -gt 0 ] || continue
		case ${opts[0]} in
		-*) ;;
		[A-Z]*) continue ;;	# 'tp COMMAND --help': a placeholder
		*) name=${opts[0]}; opts=("${opts[@]:1}") ;;
		esac
	fi
	if [ "$name" != tp ] && ! known "$name"; then
		echo "$where: '$text': no command $name"; bad=1; continue
	fi
	if [ "$name" = tp ]; then
		# tp's own options are not in a --help table: they must work
		for o in "${opts[@]}"; do
			case $o in -*) tp "$o" >/dev/null 2>&1 ||
				{ echo "$where: '$text': tp $o fails"; bad=1; } ;; esac
		done
		checked=$((checked + 1))
		continue
	fi
	tp "$name" --help >help.txt 2>&1 || { echo "$where: $name --help failed"; bad=1; }
	for o in "${opts[@]}"; do
		case $o in
		--*) o=${o%%=*}
		     grep -Eq -- "(^|[ ,])$o([ =,]|\$)" help.txt ||
			{ echo "$where: '$text': $name has no option $o"; bad=1; } ;;
		-[a-zA-Z])
		     grep -Eq -- "(^|[ ])$o(,|[ ]|\$)" help.txt ||
			{ echo "$where: '$text': $name has no option $o"; bad=1; } ;;
		esac
	done
	checked=$((checked + 1))
done <suggestions
echo "$checked suggestions checked"
[ "$checked" -gt 20 ] || fail "only $checked suggestions checked"
[ $bad = 0 ] || fail "messages suggest commands or options that do not exist"
