# SPDX-License-Identifier: GPL-2.0-or-later
# tpstatus's pool_attr and vol_attr (tpstatus(8) FIELDS): every letter of
# every position that an inactive pool can show, on image files; the
# kernel's letters (active, open, read-only, failed) are checked by
# test/unit/test_status.c and test/vm/s-tp-pool.sh. Also pool_activation_skip,
# -S on the letters, and the JSON keys (appended after the older ones).
DATA_SIZE=64M META_SIZE=16M
attr() { tpstatus --noheadings -o pool_attr "$1" | tr -d ' '; }
vattr() { vol_field "$1" "$2" vol_attr; }
expect_attr() { [ "$2" = "$3" ] || fail "$1: attr '$2', want '$3'"; }

new_pool p
ok tvcreate -V 16M -n v p
ok tvsnap p/v -n s
ok tvsnap --readonly p/v -n ro
expect_attr "a new pool" "$(attr p)" "w-q--n---"
expect_attr "a volume" "$(vattr p v)" "Vw-----"
expect_attr "a snapshot" "$(vattr p s)" "sw-----"
expect_attr "a read-only snapshot" "$(vattr p ro)" "sr-----"
# a snapshot whose origin is removed is a volume of its own
ok tvsnap p/s -n s2
ok tvremove -y p/s
expect_attr "origin removed" "$(vattr p s2)" "Vw-----"

# position 3: when full
ok tpchange --when-full error p
expect_attr "error when full" "$(attr p)" "w-e--n---"
ok tpchange --when-full queue p
# positions 7 and 6 of a volume: activation skip
ok tpchange --activate n p
expect_attr "pool skipped by --all" "$(attr p)" "w-q--nk--"
[ "$(tpstatus --noheadings -o pool_activation_skip p | tr -d ' ')" = yes ] ||
	fail "pool_activation_skip: $(tpstatus --noheadings -o pool_activation_skip p)"
ok tpchange --activate y p
[ "$(tpstatus --noheadings -o pool_activation_skip p | tr -d ' ')" = no ] ||
	fail "pool_activation_skip after --activate y"
ok tvchange --activate n p/v
expect_attr "volume skipped by --all" "$(vattr p v)" "Vw---k-"
ok tvchange --activate y p/v

# positions 4 and 6: zeroing and discards, as tpcreate set them
new_pool z --zero y --discards passdown
expect_attr "zeroing, passdown" "$(attr z)" "w-qz-p---"
new_pool i --discards ignore
expect_attr "discards ignored" "$(attr i)" "w-q--i---"
new_pool n --discards nopassdown
expect_attr "nopassdown" "$(attr n)" "w-q--n---"

# position 1 D and volume health D: every chunk of the data area in use
chunks=$(( $(pool_bytes p pool_size) / 65536 ))
save_area p empty.area
map_ranges p "$(vol_dev_id p v):0:0:$chunks"
[ "$(tpstatus --noheadings -o pool_data_percent p | tr -d ' ')" = 100.00 ] ||
	fail "the pool is not full: $(tpstatus --noheadings -o pool_data_percent p)"
expect_attr "no free chunk" "$(attr p)" "D-q--n---"
expect_attr "a volume of a full pool" "$(vattr p v)" "Vw--D--"
expect_attr "a read-only snapshot of a full pool" "$(vattr p ro)" "sr--D--"
# one chunk free: w again
load_area p empty.area
map_ranges p "$(vol_dev_id p v):0:0:$((chunks - 1))"
expect_attr "one chunk short of full" "$(attr p)" "w-q--n---"
expect_attr "its volume" "$(vattr p v)" "Vw-----"
load_area p empty.area

# position 5 c and volume health C: the needs_check flag
save_area p area.bin
ok tp-damage area.bin sb needs_check
load_area p area.bin
expect_attr "needs_check" "$(attr p)" "w-q-cn---"
expect_attr "a volume of a needs_check pool" "$(vattr p v)" "Vw--C--"
ok tprepair p
expect_attr "repaired" "$(attr p)" "w-q--n---"

# position 8 u: an unfinished receive (tprecv stopped by SIGINT at its
# second record, the test pause of t-recv-interrupt.sh)
ok tvcreate -V 16M -n src z
for c in 0 6 12 18 24; do write_chunks z src "$c" 2; done
ok tvsnap --readonly z/src -n snap
ok tpsend -o s.stream z/snap
rm -f pause
TP_TEST_PAUSE=recv-record=2 TP_TEST_PAUSE_FILE=$PWD/pause \
	env --default-signal=INT tprecv -i s.stream -n k i >recv.out 2>&1 &
pid=$!
wait_until "$pid" test -e pause || { cat recv.out >&2; fail "tprecv never reached record 2"; }
kill -INT "$pid"
rm -f pause
rc=0; wait "$pid" || rc=$?
[ $rc = 130 ] || { cat recv.out >&2; fail "tprecv: exit $rc, not 130"; }
expect_attr "an unfinished receive" "$(attr i)" "w-q--i-u-"
ok tprecv --abort k i
expect_attr "the receive dropped" "$(attr i)" "w-q--i---"

# -S on the letters (a string: regular expressions)
ok tpstatus --noheadings -S 'vol_attr=~^s' -o vol_name p
[ "$(tr -d ' ' <out)" = ro ] || fail "-S vol_attr=~^s: $(cat out)"
ok tpstatus --noheadings -S 'pool_attr=~"^.....p"' -o pool_name
[ "$(tr -d ' ' <out)" = z ] || fail "-S on pool_attr: $(cat out)"
# -o help lists the fields
ok tpstatus -o help
for f in pool_attr pool_activation_skip vol_attr; do grep -q "$f" err || fail "-o help lacks $f"; done

# JSON: the letters as strings, the new keys after every older one
ok tpstatus --json p
python3 - out <<'PY' || fail "JSON keys"
import json, sys
r = json.load(open(sys.argv[1]))["report"]
pool, vols = r[0]["pool"][0], r[1]["volume"]
keys = list(pool)
assert pool["pool_attr"] == "w-q--n---", pool["pool_attr"]
assert keys[-5:] == ["pool_activation_skip", "pool_attr", "pool_system_id", "pool_lock_type",
                     "pool_lease_owner"], keys[-6:]
assert keys.index("pool_monitor") == len(keys) - 6, keys
assert pool["pool_system_id"] == "-", pool["pool_system_id"]
assert pool["pool_lock_type"] == "none" and pool["pool_lease_owner"] == "-", pool
v = {x["vol_name"]: x for x in vols}
assert v["ro"]["vol_attr"] == "sr-----", v["ro"]
assert list(v["v"])[-1] == "vol_attr" and list(v["v"])[-2] == "vol_created", list(v["v"])
PY
