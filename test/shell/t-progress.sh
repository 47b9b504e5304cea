# SPDX-License-Identifier: GPL-2.0-or-later
# The progress line (tptools(7) PROGRESS): on standard error only, silent
# on a pipe unless asked, JSON lines that parse, a bare --progress that
# does not take the next argument, a bad value refused with the images
# unchanged. Commands with long copies or removals add their own cases.
DATA_SIZE=64M META_SIZE=16M
new_pool p --chunk 64k
ok tvcreate -V 8M -n v p
write_chunks p v 0 30

# json_lines FILE: every line of FILE is a progress object; each display
# (one object name after another) ends with its final line, ok
json_lines() {
	python3 - "$1" <<'PY' || fail "progress JSON: $(cat "$1")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines, "no progress lines"
objs = [json.loads(l) for l in lines]
for o, l in zip(objs, lines):
    for k in ("command", "object", "unit", "done", "total", "elapsed_s", "rate", "eta_s", "final"):
        assert k in o, (k, l)
    assert o["total"] is None or o["done"] <= o["total"], l
for i, o in enumerate(objs):
    last = i + 1 == len(objs) or objs[i + 1]["object"] != o["object"]
    assert o["final"] is last, lines[i]
    assert not last or o["ok"] is True, lines[i]
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

# tptrim: chunks looked at, of the data area; the same summary with or
# without the line (p has 1008 chunks of 64 KiB)
ok tptrim --test p
cp out trim.out
[ ! -s err ] || fail "tptrim: progress on a pipe without --progress: $(cat err)"
ok tptrim --test --progress=json p
cmp -s out trim.out || fail "tptrim's stdout differs with --progress=json"
json_lines err
grep -q '"command":"tptrim","object":"p","unit":"chunks","done":1008,"total":1008' err ||
	fail "tptrim's last progress: $(cat err)"
ok tptrim --test --progress p
grep -qx "tptrim: p: 1008 of 1008 chunks (100%)" err || fail "tptrim --progress line: $(cat err)"
unchanged 3 tptrim --progress=sometimes p

# ---- copies: tpsend (stream, raw), tprecv (stream, raw) ----
ok tvsnap --readonly p/v -n s
truncate -s 8M v.want	# the rest of v reads as zeros
# the stream, and the image, are the same with and without --progress
tpsend p/s >plain.stream 2>err || fail "tpsend failed: $(cat err)"
[ ! -s err ] || fail "tpsend: progress on a pipe without --progress: $(cat err)"
for pr in --progress --progress=json; do
	tpsend $pr p/s >prog.stream 2>err || fail "tpsend $pr failed: $(cat err)"
	cmp -s plain.stream prog.stream || fail "the stream differs with $pr"
	tpsend $pr --format raw p/s >prog.raw 2>err.raw || fail "tpsend --format raw $pr failed"
	cmp -s prog.raw v.want || fail "the raw image differs with $pr"
done
json_lines err
grep -q '"command":"tpsend","object":"p/s","unit":"bytes","done":8388608,"total":8388608' err ||
	fail "tpsend's last progress: $(cat err)"
json_lines err.raw
ok tpsend --progress -o plain2.stream p/s
cmp -s plain.stream plain2.stream || fail "tpsend -o --progress: another stream"
grep -Eqx "tpsend: p/s: 8 MiB of 8 MiB \(100%\).*" err || fail "tpsend --progress: $(cat err)"

DATA_SIZE=64M META_SIZE=16M new_pool q --chunk 64k
ok tprecv -i plain.stream q
[ ! -s err ] || fail "tprecv: progress on a pipe without --progress: $(cat err)"
ok tvremove -y q/s
ok tprecv --progress=json -i plain.stream q
json_lines err
grep -q '"command":"tprecv","object":"q (check)"' err || fail "tprecv's check: $(cat err)"
grep -q '"command":"tprecv","object":"q","unit":"bytes","done":8388608,"total":8388608' err ||
	fail "tprecv's apply: $(cat err)"
ok tprecv --format raw -n imp -i v.want q
[ ! -s err ] || fail "tprecv --format raw: progress without --progress: $(cat err)"
ok tprecv --progress=json --format raw -n imp2 -i v.want q
json_lines err
grep -q '"command":"tprecv","object":"q","unit":"bytes","done":8388608,"total":8388608' err ||
	fail "tprecv --format raw's progress: $(cat err)"
cmp <(tpsend --format raw q/imp2) v.want || fail "the import with --progress differs"

# ---- metadata: tpdump, tprestore, tprepair ----
tpdump p >plain.xml 2>err || fail "tpdump failed: $(cat err)"
[ ! -s err ] || fail "tpdump: progress on a pipe without --progress: $(cat err)"
tpdump --progress=json p >prog.xml 2>err || fail "tpdump --progress=json failed: $(cat err)"
cmp -s plain.xml prog.xml || fail "the dump differs with --progress=json"
json_lines err
grep -q '"command":"tpdump","object":"p","unit":"mappings","done":60,"total":null' err ||
	fail "tpdump's progress: $(cat err)"
truncate -s 16M restored.bin
ok tprestore --progress=json -i plain.xml -o restored.bin
json_lines err
grep -q '"command":"tprestore","object":"restored.bin","unit":"mappings","done":60,"total":60' err ||
	fail "tprestore's progress: $(cat err)"
ok tpdump restored.bin
cmp -s out plain.xml || fail "the metadata restored with --progress dumps otherwise"
# --format pack counts blocks, not mappings, both ways
ok tpdump --format pack --progress=json -o prog.pack restored.bin
json_lines err
grep -q '"command":"tpdump","object":"restored.bin","unit":"blocks","done":4096,"total":4096' err ||
	fail "tpdump --format pack's progress: $(cat err)"
truncate -s 16M unpacked.bin
ok tprestore --format pack --progress=json -i prog.pack -o unpacked.bin
json_lines err
grep -q '"command":"tprestore","object":"unpacked.bin","unit":"blocks"' err ||
	fail "tprestore --format pack's progress: $(cat err)"
grep -q '"unit":"mappings"' err && fail "tprestore --format pack counts mappings: $(cat err)"
truncate -s 16M repaired.bin
ok tprepair --progress=json --metadata restored.bin -o repaired.bin
json_lines err
grep -q '"command":"tprepair","object":"restored.bin","unit":"mappings","done":60' err ||
	fail "tprepair's progress: $(cat err)"

# ---- on a terminal (tmux): a 4 GiB send shows its line while it runs ----
# 64 chunks of 1 MiB spread over 4 GiB; its stream read by a slow reader
# (about 20 MiB/s) so the send lasts a few seconds on any machine
if have tmux; then
	DATA_SIZE=5G META_SIZE=64M new_pool big --chunk 64k
	truncate -s 4G big.src
	for i in $(seq 0 63); do
		head -c 1048576 /dev/urandom |
			dd of=big.src bs=1M seek=$((i * 64)) conv=notrunc status=none
	done
	ok tprecv --format raw -n vol -i big.src big
	ok tvchange --readonly y big/vol
	cat >slow.py <<'PY'
import sys, time
with open(sys.argv[1], "wb") as out:
    while True:
        b = sys.stdin.buffer.read(1 << 20)
        if not b:
            break
        out.write(b)
        time.sleep(0.05)
PY
	declare -px >env.sh 2>/dev/null
	{
		echo ". $PWD/env.sh 2>/dev/null"
		echo "cd $PWD"
		echo "tpsend big/vol | python3 slow.py big.stream"
		echo 'echo "tpsend-finished rc=${PIPESTATUS[0]}"'
		echo "sleep 60"
	} >pane.sh
	sock=$PWD/tmux.sock
	tmux -S "$sock" new-session -d -x 160 -y 12 "bash $PWD/pane.sh"
	seen=""
	for _ in $(seq 1 600); do	# at most a minute
		tmux -S "$sock" capture-pane -p >pane.txt 2>/dev/null || break
		grep -q "tpsend-finished" pane.txt && break
		if grep -Eq "^tpsend: big/vol: .* of 4 GiB \([0-9]+%\)" pane.txt; then
			seen=$(grep -E "^tpsend: big/vol: " pane.txt)
			break
		fi
		sleep 0.1
	done
	for _ in $(seq 1 600); do
		tmux -S "$sock" capture-pane -p >pane.txt 2>/dev/null || break
		grep -q "tpsend-finished" pane.txt && break
		sleep 0.1
	done
	tmux -S "$sock" kill-server 2>/dev/null || true
	[ -n "$seen" ] || fail "no progress line on the terminal while tpsend ran: $(cat pane.txt)"
	grep -q "tpsend-finished rc=0" pane.txt || fail "tpsend in tmux: $(cat pane.txt)"
	! grep -q "(.*%)" pane.txt || fail "the progress line was not cleared: $(cat pane.txt)"
	tpsend big/vol | cmp -s - big.stream || fail "the stream written under tmux differs"
	rm -f big.src big.stream
fi

# ---- on a terminal (tmux): a removal of 1M mappings shows its line ----
# The volume's 1048576 mappings are restored into the metadata (the data
# device is not written), and tvremove gives them back in its own offline
# steps (65536 mappings each). The first line is drawn at the first step
# after half a second (TP_PROGRESS_DELAY_MS), and a step is a bounded
# amount of work, so it comes within 2 s; so that it does on any machine,
# the removal waits at its second step until that half second has passed
# (quiet test pauses: no warning on the pane), and waits again at its
# third step while the pane is read. At the end the line is cleared.
if have tmux && have thin_restore; then
	DATA_SIZE=68G META_SIZE=160M new_pool rmp --chunk 64k
	ok tvcreate -V 64G -n big rmp
	map_ranges rmp "$(vol_dev_id rmp big):0:0:1048576"
	ok tpcheck rmp
	[ "$(vol_field rmp big vol_mapped --units b)" = "$((1048576 * 65536))b" ] ||
		fail "rmp/big does not map 1M chunks: $(vol_field rmp big vol_mapped --units b)"
	declare -px >env.sh 2>/dev/null
	{
		echo ". $PWD/env.sh 2>/dev/null"
		echo "cd $PWD"
		echo "export TP_TEST_PAUSE=remove-step=1,remove-step=2 TP_TEST_PAUSE_FILE=$PWD/rmpause TP_TEST_PAUSE_QUIET=1"
		echo "tvremove rmp/big"
		echo 'echo "tvremove-finished rc=$?"'
		echo "sleep 60"
	} >pane.sh
	rm -f rmpause
	sock=$PWD/tmux-rm.sock
	tmux -S "$sock" new-session -d -x 160 -y 12 "bash $PWD/pane.sh"
	paused() { tmux -S "$sock" capture-pane -p >pane.txt 2>/dev/null && [ -e rmpause ]; }
	for _ in $(seq 1 600); do paused && break; sleep 0.1; done
	[ -e rmpause ] || fail "tvremove never reached its second step: $(cat pane.txt)"
	sleep 0.6	# past TP_PROGRESS_DELAY_MS: the next step draws the line
	rm -f rmpause
	for _ in $(seq 1 600); do paused && break; sleep 0.1; done
	[ -e rmpause ] || fail "tvremove never reached its third step: $(cat pane.txt)"
	tmux -S "$sock" capture-pane -p >pane.txt
	seen=$(grep -E "^tvremove: rmp/big: [0-9]+ of 1048576 chunks \([0-9]+%\)" pane.txt || true)
	rm -f rmpause
	for _ in $(seq 1 600); do
		tmux -S "$sock" capture-pane -p >pane.txt 2>/dev/null || break
		grep -q "tvremove-finished" pane.txt && break
		sleep 0.1
	done
	tmux -S "$sock" kill-server 2>/dev/null || true
	[ -n "$seen" ] || fail "no progress line on the terminal while tvremove ran: $(cat pane.txt)"
	grep -q "tvremove-finished rc=0" pane.txt || fail "tvremove in tmux: $(cat pane.txt)"
	grep -q "^Volume rmp/big removed.$" pane.txt || fail "tvremove's summary in tmux: $(cat pane.txt)"
	! grep -q "(.*%)" pane.txt || fail "the removal's progress line was not cleared: $(cat pane.txt)"
	ok tpcheck rmp
	[ "$(pool_bytes rmp pool_data_used)" = 0 ] ||
		fail "rmp's data in use after the removal: $(pool_bytes rmp pool_data_used)"
	rm -f rmp-data.img rmp-meta.img
fi

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
# --wipe: the wipe's bytes first, then the removal's chunks
ok tvcreate -V 8M -n w p
write_chunks p w 0 20
ok tvremove --wipe --progress=json p/w
python3 -c '
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
finals = [o["unit"] for o in objs if o["final"]]
assert finals == ["bytes", "chunks"], finals
' err || fail "tvremove --wipe: the wipe's and the removal's JSON: $(cat err)"
grep -q '"command":"tvremove","object":"p/w","unit":"bytes","done":1310720,"total":1310720.*"final":true' err ||
	fail "tvremove --wipe's progress: $(cat err)"
grep -q '"command":"tvremove","object":"p/w","unit":"chunks","done":20,"total":20' err ||
	fail "tvremove --wipe's removal progress: $(cat err)"
ok tvremove -y --wipe p/v
[ ! -s err ] || fail "tvremove --wipe: progress on a pipe without --progress: $(cat err)"
