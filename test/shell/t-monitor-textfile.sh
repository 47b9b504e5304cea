# SPDX-License-Identifier: GPL-2.0-or-later
# tpmonitor --textfile DIR (tpmonitor(8), Metrics for Prometheus): DIR must
# be a directory (exit 3); every look replaces DIR/tptools.prom with what
# tpstatus --format prometheus prints, through DIR/.tptools.prom.tmp:
# readers that read it hundreds of times while it is replaced again and
# again (by --once in a loop, then by the daemon every second) always get
# the whole file, which passes the strict parser; inotify sees the target
# only ever renamed into place, never written; no temporary file is left,
# none ends in .prom, a stale one is replaced. The daemon's file follows
# the pools; a pool that cannot be read is in it with tptools_pool_up 0 and
# said once; a file that cannot be replaced is said once and the old one
# kept (--once: exit 5).
DATA_SIZE=128M META_SIZE=16M
umask 022
# what runs in the background goes with the test, also when it fails
watch_pid= r1= r2= mon=
cleanup() {
	touch stop
	for p in $watch_pid $r1 $r2 $mon; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
check() { python3 "$TOP/test/tools/promcheck.py" --strict-families --prefix tptools_ "$@"; }
new_pool a
new_pool b
# enough volumes for a file of tens of KiB: a torn read would show
for i in $(seq 1 100); do tvcreate -q -V 4M -n "v$i" a || fail "tvcreate v$i"; done
write_chunks a v1 0 2
mkdir tf

# DIR: a directory, or a usage error naming it
usage_error tpmonitor --once --textfile nosuch
err_has "textfile nosuch: No such file or directory"
usage_error tpmonitor --once --textfile a-data.img
err_has "textfile a-data.img: not a directory"
usage_error tpmonitor --once --textfile
[ -z "$(ls -A tf)" ] || fail "a refused tpmonitor wrote into tf"

# one look: the file is tpstatus's metrics, and nothing else is left
touch tf/.tptools.prom.tmp	# as a crash would leave it
ok tpmonitor --once --textfile tf
ok tpstatus --format prometheus
cp out want.prom
check want.prom || fail "tpstatus's metrics do not parse"
cmp -s tf/tptools.prom want.prom || { diff want.prom tf/tptools.prom >&2; fail "the textfile differs from tpstatus --format prometheus"; }
[ "$(ls -A tf)" = tptools.prom ] || fail "left in tf: $(ls -A tf)"
[ "$(stat -c %a tf/tptools.prom)" = 644 ] || fail "mode $(stat -c %a tf/tptools.prom), not 644"
[ "$(wc -c <want.prom)" -gt 30000 ] || fail "the file is too small to show a torn read"

# replaced again and again while readers read it
if have inotifywait; then
	inotifywait -m -e create,modify,close_write,moved_to,moved_from,delete \
		--format '%e %f' tf >events 2>events.err &
	watch_pid=$!
	wait_until $watch_pid grep -qs "Watches established" events.err ||
		fail "inotifywait did not start: $(cat events.err)"
fi
mkdir reads
reader() {
	local i=0
	while [ ! -e stop ]; do
		i=$((i + 1))
		cat tf/tptools.prom >"reads/$1.$i" || echo "read $1.$i failed" >>read.errors
	done
}
reader 1 & r1=$!
reader 2 & r2=$!
for i in $(seq 1 25); do
	tpmonitor --once -q --textfile tf || fail "tpmonitor --once, run $i"
done
# the daemon: a look every second; it follows a new volume
tpmonitor --interval 1 --poll --textfile tf >mon.out 2>&1 &
mon=$!
wait_until $mon grep -qs started mon.out || fail "tpmonitor did not start: $(cat mon.out)"
grep -q "metrics to $PWD/tf/tptools.prom" mon.out || fail "the start does not name the file: $(cat mon.out)"
sleep 3
touch stop
wait $r1 $r2
[ ! -e read.errors ] || fail "$(cat read.errors)"
nreads=$(ls reads | wc -l)
[ "$nreads" -ge 100 ] || fail "only $nreads reads"
want=$(md5sum <want.prom)
torn=0
for f in reads/*; do
	[ "$(md5sum <"$f")" = "$want" ] && continue
	torn=$((torn + 1))
	check "$f" || true
	echo "$f: $(wc -c <"$f") bytes of $(wc -c <want.prom)" >&2
done
[ $torn = 0 ] || fail "$torn of $nreads reads were not the whole file"
echo "$nreads reads, all whole"
if [ -n "$watch_pid" ]; then
	sleep 0.5
	kill "$watch_pid"
	wait "$watch_pid" || true
	renames=$(grep -c '^MOVED_TO tptools.prom$' events || true)
	[ "$renames" -ge 26 ] || { cat events >&2; fail "only $renames replaces seen"; }
	grep -E ' tptools\.prom$' events | grep -v '^MOVED_TO ' &&
		fail "tptools.prom was written in place, not renamed into place"
	awk '{ print $2 }' events | sort -u >names
	[ "$(cat names)" = "$(printf '%s\n' .tptools.prom.tmp tptools.prom)" ] ||
		fail "files made in tf: $(cat names)"
	grep -q '^CLOSE_WRITE,CLOSE .tptools.prom.tmp$' events || fail "no temporary file written"
	echo "$renames replaces, each a rename"
fi

ok tvcreate -V 4M -n late a
wait_until $mon grep -qs 'volume="late"' tf/tptools.prom || fail "the daemon's file lacks a new volume"
check tf/tptools.prom || fail "the daemon's file after a change"

# a pool that cannot be read: in the file with up 0, said once; and back
mv b-data.img b-data.away
wait_until $mon grep -qs 'tptools_pool_up{pool="b"} 0' tf/tptools.prom || fail "b is not down in the file"
check tf/tptools.prom || fail "the file with a pool down"
grep -q 'tptools_pool_up{pool="a"} 1' tf/tptools.prom || fail "a is not up with b down"
sleep 2.5	# two more looks
[ "$(grep -c 'pool b: cannot be read' mon.out)" = 1 ] || { cat mon.out >&2; fail "b's failure not said exactly once"; }
mv b-data.away b-data.img
wait_until $mon grep -qs 'tptools_pool_up{pool="b"} 1' tf/tptools.prom || fail "b is not back"
grep -q "pool b: can be read again" mon.out || fail "b's return not said: $(cat mon.out)"

# a file that cannot be replaced (a directory in its place): said once,
# the monitor goes on, and says when it can write again
until mkdir tf/tptools.prom 2>/dev/null; do rm -f tf/tptools.prom; done	# (the daemon renames meanwhile)
wait_until $mon grep -qs "cannot rename .*tf/.tptools.prom.tmp" mon.out || fail "no failed replace said"
sleep 2.5	# two more looks
[ "$(grep -c "cannot rename .*tf/.tptools.prom.tmp" mon.out)" = 1 ] ||
	{ cat mon.out >&2; fail "the failed replace not said exactly once"; }
rmdir tf/tptools.prom
wait_until $mon test -f tf/tptools.prom || fail "the file is not written again"
wait_until $mon grep -qs "tf/tptools.prom is written again" mon.out || fail "not said: written again"
check tf/tptools.prom || fail "the file written again"
kill -TERM $mon
wait $mon || fail "tpmonitor did not stop cleanly: $(cat mon.out)"
[ "$(ls -A tf)" = tptools.prom ] || fail "left in tf after the daemon: $(ls -A tf)"

# --once: a replace that fails is exit 5 and leaves no temporary file; a
# failure before the rename keeps the old file
mv tf/tptools.prom before.prom
mkdir tf/tptools.prom
failed tpmonitor --once --textfile tf
err_has "cannot rename .*tptools.prom.tmp"
[ "$(ls -A tf)" = tptools.prom ] || fail "a failed rename left: $(ls -A tf)"
rmdir tf/tptools.prom
mv before.prom tf/tptools.prom
cp tf/tptools.prom before.prom
mkdir tf/.tptools.prom.tmp	# cannot be removed as a stale file: the replace fails
failed tpmonitor --once --textfile tf
err_has "tptools.prom.tmp"
cmp -s tf/tptools.prom before.prom || fail "a failed replace changed the file"
rmdir tf/.tptools.prom.tmp
ok tpmonitor --once --textfile tf
[ "$(ls -A tf)" = tptools.prom ] || fail "left in tf: $(ls -A tf)"
