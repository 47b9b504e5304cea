# SPDX-License-Identifier: GPL-2.0-or-later
# SIGINT, SIGTERM or SIGHUP during a send or a raw export stops it at the
# next write: exit 128 + the signal, one line saying what is left, no
# partial output file (a stream cut on a pipe is refused by tprecv as
# truncated), the pool unchanged (images compared).
have tp-thinmap || fail "tp-thinmap not built (make tests)"
DATA_SIZE=256M new_pool src --chunk 64k
ok tvcreate -V 16M -n www src
for i in $(seq 0 8 200); do write_chunks src www "$i" 3; done
ok tvsnap --readonly src/www -n s1
sums ./*.img >sums.before

# stop ARGS...: run tpsend ARGS paused at its 10th write, send SIG, expect RC
stop() {
	local sig=$1 rc=$2 pid got
	shift 2
	rm -f pause
	TP_TEST_PAUSE=send-write=10 TP_TEST_PAUSE_FILE=$PWD/pause \
		env --default-signal=INT,TERM,HUP tpsend "$@" >out 2>err &
	pid=$!
	wait_until "$pid" test -e pause || { cat err >&2; fail "tpsend $* never paused"; }
	kill -s "$sig" "$pid"
	rm -f pause
	got=0; wait "$pid" || got=$?
	[ "$got" = "$rc" ] || { cat err >&2; fail "tpsend $* with $sig: exit $got, not $rc"; }
	[ "$(grep -c 'error:' err)" = 1 ] || { cat err >&2; fail "tpsend $*: not one line"; }
	sums ./*.img >sums.after
	cmp -s sums.before sums.after || fail "tpsend $* with $sig changed an image"
}
stop INT 130 -o s1.stream src/s1
err_has "stopped by a signal; the partial s1.stream is removed"
[ ! -e s1.stream ] || fail "a partial stream file was left"
stop TERM 143 --format raw -o s1.raw src/s1
err_has "the partial s1.raw is removed"
[ ! -e s1.raw ] || fail "a partial raw image was left"
stop HUP 129 src/s1
err_has "standard output ends early"
# the cut stream on standard output is refused whole
cp out cut.stream
DATA_SIZE=256M new_pool dst --chunk 64k
sums ./*.img >sums.before
unchanged 5 tprecv -i cut.stream dst
err_has "truncated"
# and without a signal the same sends finish
ok tpsend -o s1.stream src/s1
ok tprecv -i s1.stream dst
