# SPDX-License-Identifier: GPL-2.0-or-later
# t-remove-steps.sh - tvremove in bounded steps (tvremove(8) "Removal in
# steps"): a removal killed between its steps stays under way (no volume,
# its name taken, tpstatus warns), tpcheck is clean, the snapshot sharing
# its chunks keeps its data, and the next tvremove of the name or the
# next change of the pool finishes it; --progress=json reports chunks.
new_pool p --chunk 64k
ok tvcreate -V 4M -n a p
write_chunks p a 0 10
write_chunks p a 30 10
ok tvsnap p/a -n s
write_chunks p a 50 6
ok tvcreate -V 4M -n b p
write_chunks p b 0 8
s_sum=$(tpsend --format raw p/s | md5sum)
b_sum=$(tpsend --format raw p/b | md5sum)

# killed at its third step (steps of 4 mappings): under way
killed_at remove-step=2 env TP_TEST_REMOVE_STEP=4 tvremove -y p/a
ok tpstatus p
err_has "the removal of a is under way"
out_lacks " a "
ok tpcheck p
ok tvcreate -V 1M -n a p
err_has "finishing the interrupted removal of a"
ok tpstatus p
err_lacks "under way"
ok tpcheck p
[ "$(tpsend --format raw p/s | md5sum)" = "$s_sum" ] || fail "the snapshot's data changed"
[ "$(tpsend --format raw p/b | md5sum)" = "$b_sum" ] || fail "volume b's data changed"

# killed again, then finished by tvremove of the same name, with progress
ok tvcreate -V 4M -n c p
write_chunks p c 0 12
killed_at remove-step=1 env TP_TEST_REMOVE_STEP=4 tvremove p/c
ok tvremove p/c
out_has "Volume p/c removed."
ok tpcheck p
ok tvcreate -V 4M -n c p
write_chunks p c 0 12
TP_TEST_REMOVE_STEP=4 ok tvremove --progress=json p/c
grep '"final":true' err | grep -q '"done":12,"total":12' || { cat err >&2; fail "no final progress line of 12 chunks"; }
grep '^{' err | python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' ||
	fail "the progress lines do not parse"
ok tpcheck p
[ "$(tpsend --format raw p/b | md5sum)" = "$b_sum" ] || fail "volume b's data changed"

# on a terminal (script(1) gives it one) the line is drawn once the removal
# has run half a second: here it waits at its fourth step for a second
ok tvcreate -V 4M -n t p
write_chunks p t 0 20
script -qec "env TP_TEST_REMOVE_STEP=2 TP_TEST_PAUSE=remove-step=3 TP_TEST_PAUSE_FILE=$PWD/pause tvremove p/t" tty.log >/dev/null &
pid=$!
wait_until "$pid" test -e pause || { cat tty.log >&2; fail "tvremove never reached remove-step=3"; }
sleep 1
rm -f pause
wait "$pid" || { cat tty.log >&2; fail "tvremove on a terminal failed"; }
grep -q "tvremove: p/t: [0-9]* of 20 chunks" tty.log || { cat -v tty.log >&2; fail "no progress line on the terminal"; }
grep -q "Volume p/t removed." tty.log || fail "no summary on the terminal"
