# SPDX-License-Identifier: GPL-2.0-or-later
# The chunk mover (tpmove(8)) and tpreduce of a middle data device
# (tpreduce(8)): on image files, a pool over two data images whose second
# holds chunks of volumes, one of them shared by a snapshot, is refused
# while the first has no room (exit 5, every image unchanged), and for an
# unknown device, the metadata device, or a pool with one data device
# (exit 3, unchanged); with a third image the second is emptied, killed
# with SIGKILL at each of its steps (after the copies, after the commit)
# and resumed each time, stopped by SIGINT between two steps (exit 130,
# resumed); every volume's raw export reads the same after each stop and
# at the end, tpcheck and thin_check are clean, the snapshot still shares
# its origin's chunks (the data used does not grow), and tpreduce then
# takes the middle image away: the third's range moves down, its label
# takes the new place, and the volumes still read the same.
have tp-thinmap || fail "tp-thinmap not built (make tests)"

image d1.img 16M
image m.img 16M
image d2.img 16M
image d3.img 24M
ok tpcreate --data d1.img --meta m.img --chunk 64K p
unchanged 3 tpmove --from d1.img p
err_has "one data device"
head -c 14M /dev/urandom >a.raw
ok tprecv --format raw -n a p <a.raw
ok tpextend --data d2.img p
head -c 10M /dev/urandom >b.raw
ok tprecv --format raw -n b p <b.raw
ok tvsnap p/b -n s
head -c 3M /dev/urandom >c.raw
ok tprecv --format raw -n c p <c.raw

# the raw export of every volume
exports() {
	local v
	for v in a b s c; do
		echo "$v $(tpsend --format raw "p/$v" | md5sum | cut -d' ' -f1)"
	done
}
exports >want
check_all() {
	exports >got
	cmp -s want got || { diff want got >&2; fail "$1: a volume reads other bytes"; }
	ok tpcheck p
	thin_check_pool p
}
check_all "before"
used0=$(pool_bytes p pool_data_used)

# refusals, every image unchanged
unchanged 5 tpmove --from d2.img p
err_has "have only 0 free"
err_has "tpextend --data DEV p"
unchanged 5 tpmove --test --from d2.img p
unchanged 3 tpmove --from nothere.img p
err_has "not one of its data devices"
unchanged 3 tpmove --from m.img p
unchanged 3 tpmove p
unchanged 5 tpreduce --data d2.img p
err_has "tpmove --from d2.img p"
unchanged 5 tpreduce --data d1.img p
err_has "tpmove --from d1.img p"

ok tpextend --data d3.img p
md5sum ./*.img >sums.before
ok tpmove --test --from d2.img p
out_has "192 chunks in use (12 MiB, 336 mappings)"
out_has "nothing was moved"
md5sum ./*.img >sums.after
cmp -s sums.before sums.after || fail "tpmove --test changed a device"

# killed at each step, resumed by the next run (steps of 24 mappings)
stops=0
for round in 1 2 3 4 5 6 7 8 9 10; do
	for pause in move-copied=1 move-step=1 move-copied=2; do
		rm -f pause
		env TP_TEST_MOVE_STEP=24 TP_TEST_PAUSE="$pause" TP_TEST_PAUSE_FILE="$PWD/pause" \
			tpmove --from d2.img p >out 2>err &
		pid=$!
		wait_until "$pid" test -e pause || break 2	# finished before the pause
		kill -KILL "$pid"
		rc=0; wait "$pid" || rc=$?
		[ $rc = 137 ] || { cat err >&2; fail "tpmove at $pause: exit $rc"; }
		stops=$((stops + 1))
		check_all "killed at $pause (round $round)"
	done
done
[ $stops -ge 6 ] || fail "only $stops stops before the move finished"
# SIGINT waits for the step, then stops before the next one
rm -f pause
env TP_TEST_MOVE_STEP=24 TP_TEST_PAUSE=move-copied=1 TP_TEST_PAUSE_FILE="$PWD/pause" \
	tpmove --from d2.img p >out 2>err &
pid=$!
if wait_until "$pid" test -e pause; then
	kill -INT "$pid"
	rm -f pause
	rc=0; wait "$pid" || rc=$?
	[ $rc = 130 ] || [ $rc = 0 ] || { cat err >&2; fail "tpmove with SIGINT: exit $rc"; }
	[ $rc = 0 ] || err_has "stopped by a signal"
	check_all "stopped by SIGINT"
else
	wait "$pid" || fail "tpmove failed"
fi
TP_TEST_MOVE_STEP=24 ok tpmove --progress --from d2.img p
out_has "holds no mapped chunk now"
check_all "moved"
[ "$(pool_bytes p pool_data_used)" = "$used0" ] ||
	fail "the data used grew from $used0 to $(pool_bytes p pool_data_used): sharing was lost"
ok tpmove --from d2.img p
out_has "moved 0 chunks"

# the middle device taken away: d3's range moves down
place() { od -An -tu4 -j $((512 + 124)) -N4 "$1" | tr -d ' '; }
[ "$(place d3.img)" = 2 ] || fail "d3's label gives place $(place d3.img), not 2"
ok tpreduce --test --data d2.img p
out_has "none in use"
ok tpreduce --data d2.img p
ok tpstatus --noheadings --devices-report p
[ "$(grep -c ' data ' out)" = 2 ] || fail "two data devices expected: $(cat out)"
grep -q ' data 2 .* 240 .*d3.img$' out || fail "d3 is not data device 2 from chunk 240: $(cat out)"
cmp -s -n 512 <(dd if=d2.img bs=512 skip=1 count=1 status=none) /dev/zero ||
	fail "tpreduce left the label of d2"
[ "$(place d3.img)" = 1 ] || fail "d3's label gives place $(place d3.img) after tpreduce, not 1"
check_all "after tpreduce"
ok tvcreate -V 1M -n one-more p
ok tpcheck p

# one of everything: the messages count it in the singular ("in 1 step",
# never "1 steps")
image o1.img 16M
image o2.img 16M
image om.img 16M
ok tpcreate --data o1.img --meta om.img --chunk 64K one
ok tpextend --data o2.img one
ok tvcreate -V 64K -n v one
first=$(tpstatus --noheadings --devices-report --units b one | awk '$2 == "data" && $3 == 2 { print $6 }')
[ -n "$first" ] || fail "no range for the second device of pool one"
map_ranges one "0:0:$first:1"	# volume v's one chunk, on the second device
unchanged 5 tpreduce --data o2.img one
err_has "1 of the [0-9]* chunks of o2.img is in use; it can be taken away only when it holds none: move it"
ok tpmove --test --from o2.img one
out_has "1 chunk in use (64 KiB, 1 mapping); [0-9]* chunks free on the other devices (.*): it can move"
ok tpmove --from o2.img one
out_has "moved 1 chunk (64 KiB, 1 mapping) off o2.img in 1 step;"
ok tpcheck one
out_has "one: transaction [0-9]*, 1 thin device, 1 mapping; metadata"
ok tpreduce --data o2.img one
