# The progress line (tptools(7) PROGRESS): on standard error only, silent
# on a pipe unless asked, JSON lines that parse, a bare --progress that
# does not take the next argument, a bad value refused with the images
# unchanged. Commands with long copies or removals add their own cases.
DATA_SIZE=64M META_SIZE=16M
new_pool p --chunk 64k
ok tvcreate -V 8M -n v p
write_chunks p v 0 30

# json_lines FILE: every line of FILE is a progress object; the last is final
json_lines() {
	python3 - "$1" <<'PY' || fail "progress JSON: $(cat "$1")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines, "no progress lines"
for l in lines:
    o = json.loads(l)
    for k in ("command", "object", "unit", "done", "total", "elapsed_s", "rate", "eta_s", "final"):
        assert k in o, (k, l)
    assert o["total"] is None or o["done"] <= o["total"], l
last = json.loads(lines[-1])
assert last["final"] is True and last["ok"] is True, lines[-1]
assert all(not json.loads(l)["final"] for l in lines[:-1])
PY
}

# A pipe, no --progress: nothing on standard error.
ok tpcheck p
cp out plain.out
[ ! -s err ] || fail "progress on a pipe without --progress: $(cat err)"

# --progress=json: the same standard output, JSON lines on standard error.
ok tpcheck --progress=json p
cmp -s out plain.out || fail "stdout differs with --progress=json"
json_lines err
grep -q '"command":"tpcheck","object":"p","unit":"mappings","done":30,"total":30' err ||
	fail "tpcheck's last progress: $(cat err)"

# A bare --progress before the pool is not its value; a plain last line.
ok tpcheck --progress p
cmp -s out plain.out || fail "stdout differs with --progress"
grep -qx "tpcheck: p: 30 of 30 mappings (100%)" err || fail "--progress line: $(cat err)"
! grep -q $'\r' err || fail "a redrawn line on a pipe"

# --progress=no and -q: nothing.
ok tpcheck --progress=no p
[ ! -s err ] || fail "--progress=no: $(cat err)"

# A bad value: exit 3, the pool untouched.
unchanged 3 tpcheck --progress=sometimes p
err_has "invalid value 'sometimes' for --progress"

# tvremove: chunks given back of what the volume mapped; quiet on a pipe.
ok tvcreate -V 8M -n w p
write_chunks p w 0 20
ok tvremove p/w
[ "$(cat out)" = "Volume p/w removed." ] || fail "tvremove's summary: $(cat out)"
[ ! -s err ] || fail "tvremove: progress on a pipe without --progress: $(cat err)"
ok tvcreate -V 8M -n w p
write_chunks p w 0 20
TP_TEST_REMOVE_STEP=8 ok tvremove --progress=json p/w
json_lines err
grep -q '"command":"tvremove","object":"p/w","unit":"chunks","done":20,"total":20' err ||
	fail "tvremove's last progress: $(cat err)"
unchanged 3 tvremove --progress=sometimes p/v
err_has "invalid value 'sometimes' for --progress"
