# SPDX-License-Identifier: GPL-2.0-or-later
# One source of truth for the command line: every option a command's
# --help lists is in its man page's OPTIONS, and every option there is in
# --help; -t, -y, -q, -v and -h mean one option in every command;
# tptools(7) lists every command of tools/commands.def; and the
# man pages' EXAMPLES run. All data-driven: --help output, the man
# sources and commands.def are parsed, nothing is listed by hand.
#
# An example that shows an error shows the message the command prints,
# word for word ("..." for what differs from run to run).
# Examples: in the EXAMPLES section, each "$ " line of a .nf block is run
# (continuation lines ending in \e joined), in order, in one directory per
# page, after that page's ".\" setup: CMD" comment lines. A command must
# exit 0, or non-zero where the lines the page shows after it contain
# "error:" (and "echo $?" must print what the page shows). Commands that
# name a /dev/ path (real devices), that the page shows answering a
# question, or that run a program not installed are not run.
python3 - "$TOP" <<'PY'
import os, re, shutil, subprocess, sys, tempfile

top = sys.argv[1]
bad = []
cmds = re.findall(r"^TP_COMMAND\((\w+),", open(f"{top}/tools/commands.def").read(), re.M)

def unroff(s):
    return (s.replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")
             .replace("\\(mu", "x"))

def man_source(name):
    path = f"{top}/man/{name}"
    text = open(path).read()
    m = re.match(r"\.so (?:man\d/)?(\S+)", text)
    return open(f"{top}/man/{m.group(1)}").read() if m else text

def section(text, name):
    m = re.search(r"^\.SH " + name + r"\b.*?$(.*?)(?=^\.SH |\Z)", text, re.M | re.S)
    return m.group(1) if m else ""

def opts_of_help(cmd):
    out = subprocess.run([cmd, "--help"], capture_output=True, text=True).stdout
    longs, shorts = set(), set()
    for line in out.splitlines():
        m = re.match(r"^  (?:-(\w)(?:, |\s))?\s*(?:--([\w-]+))?", line)
        if m and m.group(1):
            shorts.add(m.group(1))
        if m and m.group(2):
            longs.add(m.group(2))
    return longs, shorts

def opts_of_man(text):
    longs, shorts = set(), set()
    lines = section(text, "OPTIONS").splitlines()
    for i, line in enumerate(lines):
        if not line.startswith(".TP") or i + 1 >= len(lines):
            continue
        tag = re.sub(r"\\f[BIRP]", "", unroff(lines[i + 1]))
        longs |= set(re.findall(r"--([A-Za-z0-9][\w-]*)", tag))
        shorts |= set(re.findall(r"(?<![-\w])-([A-Za-z0-9])(?![\w-])", tag))
    return longs, shorts

# A. options: --help <-> man page OPTIONS
for c in cmds:
    hl, hs = opts_of_help(c)
    if not hl:
        bad.append(f"{c}: no options parsed from --help")
        continue
    ml, ms = opts_of_man(man_source(f"{c}.8"))
    for o in sorted(hl - ml):
        bad.append(f"{c}: --{o} is in --help but not in {c}(8) OPTIONS")
    for o in sorted(ml - hl):
        bad.append(f"{c}: --{o} is in {c}(8) OPTIONS but not in --help")
    for o in sorted(hs - ms):
        bad.append(f"{c}: -{o} is in --help but not in {c}(8) OPTIONS")
    for o in sorted(ms - hs):
        bad.append(f"{c}: -{o} is in {c}(8) OPTIONS but not in --help")

# A2. a short option that means one thing means it in every command that
# has it (-t is --test, as in lvm(8); tvrollback's -t once meant --to)
same = {"t": "test", "y": "yes", "q": "quiet", "v": "verbose", "h": "help"}
for c in cmds:
    out = subprocess.run([c, "--help"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.match(r"^  -(\w), --([\w-]+)", line)
        if m and m.group(1) in same and m.group(2) != same[m.group(1)]:
            bad.append(f"{c}: -{m.group(1)} is --{m.group(2)}, not --{same[m.group(1)]}")

# B. tptools(7) lists every command
listed = section(open(f"{top}/man/tptools.7").read(), "COMMANDS")
for c in cmds:
    if not re.search(r"^\.BR? " + c + r"\b", listed, re.M):
        bad.append(f"tptools(7) COMMANDS does not list {c}")

# C. examples
def incomplete(cmd):
    """Does CMD go on on the next line (a trailing backslash, an open quote)?"""
    if cmd.endswith("\\"):
        return True
    r = subprocess.run(["bash", "-n", "-c", cmd], capture_output=True, text=True)
    return "unexpected end of file" in r.stderr or "unexpected EOF" in r.stderr

def examples(text):
    """[(command, shown output)] of the "$ " lines of the EXAMPLES blocks."""
    ex, block, cur = [], False, None
    for raw in section(text, "EXAMPLES").splitlines():
        if re.match(r"\.(nf|EX)\b", raw):
            block = True
            continue
        if re.match(r"\.(fi|EE)\b", raw):
            block, cur = False, None
            continue
        if not block or raw.startswith('.\\"'):
            continue
        line = unroff(raw)
        if cur is not None and not cur[1] and incomplete(cur[0]):
            cur[0] += "\n" + line
        elif line.startswith("$ "):
            cur = [line[2:], ""]
            ex.append(cur)
        elif cur is not None:
            cur[1] += line + "\n"
    return ex

def runnable(cmd, shown):
    if "/dev/" in cmd or "[y/n]:" in shown:
        return False
    for word in re.findall(r"(?:^|[|;]\s*|\$\()\s*(?:\w+=\S+\s+)*([\w.-]+)", cmd):
        if word not in ("set", "echo", "cd") and not shutil.which(word):
            return False
    return True

env = dict(os.environ)
ran = 0
for page in sorted(os.listdir(f"{top}/man")):
    text = man_source(page)
    ex = examples(text)
    if not ex:
        continue
    setup = [unroff(s) for s in re.findall(r'^\.\\" setup: (.*)$', section(text, "EXAMPLES"), re.M)]
    d = tempfile.mkdtemp(prefix=f"ex-{page}.", dir=".")
    os.makedirs(f"{d}/etc")
    env["TPTOOLS_DIR"] = os.path.abspath(f"{d}/etc")
    script = "set -e\n" + "\n".join(setup) + "\n"
    r = subprocess.run(["bash", "-c", script], cwd=d, env=env, capture_output=True, text=True)
    if r.returncode:
        bad.append(f"{page}: example setup failed: {r.stderr.strip()}")
        continue
    # one shell per page, so that "set --" and variables carry on
    state, last_rc = "", 0
    for cmd, shown in ex:
        if not runnable(cmd, shown):
            continue
        if cmd.strip() == "echo $?":
            if shown.strip() != str(last_rc):
                bad.append(f"{page}: the page shows exit status {shown.strip()}, "
                           f"the command before exited {last_rc}")
            continue
        want_fail = "error:" in shown
        ran += 1
        r = subprocess.run(["bash", "-c", state + cmd],
                           cwd=d, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        last_rc = r.returncode
        if cmd.startswith("set -- "):
            state += cmd + "\n"
        if cmd.rstrip().endswith("echo $?"):
            got = (r.stdout.strip().splitlines() or [""])[-1]
            if got != shown.strip().splitlines()[-1]:
                bad.append(f"{page}: example '{cmd}' printed {got}, the page shows "
                           f"{shown.strip().splitlines()[-1]}")
        elif (r.returncode != 0) != want_fail:
            bad.append(f"{page}: example '{cmd}' exited {r.returncode}"
                       f"{' (the page shows an error)' if want_fail else ''}: {r.stderr.strip()[:300]}")
        elif want_fail:
            # the error shown is the one printed, word for word ("..." stands
            # for what differs from run to run, e.g. a uuid)
            lines = shown.splitlines()
            first = next(i for i, l in enumerate(lines) if "error:" in l)
            printed = {l.strip() for l in r.stdout.splitlines()}
            want = " ".join(" ".join(l for l in lines[first:] if l.strip() not in printed).split())
            pat = ".*?".join(re.escape(p) for p in want.split("..."))
            got = " ".join(r.stderr.split())
            if not re.search(pat, got):
                bad.append(f"{page}: example '{cmd}' printed {got[:300]!r}, "
                           f"the page shows {want[:300]!r}")
print(f"{ran} examples run")
if ran < 20:
    bad.append(f"only {ran} examples ran: is the EXAMPLES parser broken?")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
