# SPDX-License-Identifier: GPL-2.0-or-later
# A receive cut short at any record never leaves a volume that is not the
# stream's content: tprecv is stopped at TP_RECV_POINTS places spread over
# its data (the recv-record=N test pause), from a file and from a pipe,
# with KILL, INT and TERM. After each cut one more change runs; then no
# volume of the pool differs from its source (raw export), the stream's
# content uuid belongs to no volume, an incremental stream onto the cut
# base is refused, and tprecv --resume finishes the receive with the
# source's content, after which the incremental applies and equals its
# source too. INT and TERM end the command with 130 and 143 and one line
# saying what is kept; --abort drops a cut receive, and its chunks go back.
# A broken completion (TP_TEST_FAIL=recv-skip-data: the receive "finishes"
# without writing its data) is caught by the same content check.
# The places are sampled as the matrices' cells are (t-damage-matrix):
# TP_MATRIX_SAMPLE=N cuts one place in N per mode, from an offset that
# turns with the mode and TP_MATRIX_TURN (default the day, UTC): 2 by
# default under TP_SANITIZE=1, so each mode's other half is cut the next
# day; TP_MATRIX_SPLIT=1 (test/run-all.sh, the main build's run when the
# sanitizer build's runs too, with one turn) cuts the places that run
# leaves, so the two runs together cut every place each day.
# TP_MATRIX_SAMPLE=1 (or TP_SHELL_FULL=1) cuts every place.
have tp-thinmap || fail "tp-thinmap not built (make tests)"
DATA_SIZE=256M
new_pool src --chunk 64k
new_pool dst --chunk 64k
ok tvcreate -V 16M -n www src
# 40 runs of 2 chunks, 4 chunks apart: about 40 records of data and 40 holes
for i in $(seq 0 6 234); do write_chunks src www "$i" 2; done
ok tvsnap --readonly src/www -n s1
for i in 3 50 51 120; do write_chunks src www "$i" 1; done
ok tvsnap --readonly src/www -n s2
ok tpsend -o full.stream src/s1
ok tpsend --from s1 -o inc.stream src/s2
ok tpsend --format raw -o s1.want src/s1
ok tpsend --format raw -o s2.want src/s2
uuid_of() { vol_field "$1" "$2" vol_content_uuid; }
s1_uuid=$(uuid_of src s1)
[ -n "$s1_uuid" ] || fail "no content uuid for src/s1"

# the content check: every volume of dst equals its source's raw image
check_content() {
	local v
	for v in $(tpstatus --noheadings -o vol_name dst); do
		case $v in
		k) tpsend --format raw -o got.raw dst/k >/dev/null 2>&1 || return 1
		   cmp -s got.raw s1.want || { echo "dst/k differs from src/s1"; return 1; } ;;
		k2) tpsend --format raw -o got.raw dst/k2 >/dev/null 2>&1 || return 1
		   cmp -s got.raw s2.want || { echo "dst/k2 differs from src/s2"; return 1; } ;;
		other) ;;
		*) echo "unexpected volume dst/$v"; return 1 ;;
		esac
	done
	return 0
}

# cut MODE SIG N: tprecv from MODE (file|pipe) stopped by SIG at record N
cut() {
	local mode=$1 sig=$2 n=$3 pid rc
	rm -f pause
	if [ "$mode" = file ]; then
		TP_TEST_PAUSE=recv-record=$n TP_TEST_PAUSE_FILE=$PWD/pause \
			env --default-signal=INT,TERM,HUP tprecv -i full.stream -n k dst >out 2>err &
	else
		cat full.stream | TP_TEST_PAUSE=recv-record=$n TP_TEST_PAUSE_FILE=$PWD/pause \
			env --default-signal=INT,TERM,HUP tprecv -n k dst >out 2>err &
	fi
	pid=$!
	cuts=$((cuts + 1))
	wait_until "$pid" test -e pause || { cat err >&2; fail "$mode $sig $n: tprecv never reached record $n"; }
	# the tprecv process itself (in a pipe, $! is the last of the pipe; a
	# script's background jobs ignore SIGINT, env gives it back)
	kill -s "$sig" "$pid"
	rm -f pause
	rc=0; wait "$pid" || rc=$?
	case $sig in
	KILL) [ $rc = 137 ] || fail "$mode KILL $n: exit $rc, not 137" ;;
	INT) [ $rc = 130 ] || { cat err >&2; fail "$mode INT $n: exit $rc, not 130"; } ;;
	TERM) [ $rc = 143 ] || { cat err >&2; fail "$mode TERM $n: exit $rc, not 143"; } ;;
	esac
	if [ "$sig" != KILL ]; then
		[ "$(grep -c 'error:' err)" = 1 ] || { cat err >&2; fail "$mode $sig $n: not one line"; }
		err_has "the receive of k was stopped by a signal at"
		err_has "tprecv --abort k dst"
	fi
}

# after a cut: one more change, no partial volume, the cut is no base
after_cut() {
	local what=$1
	ok tvcreate -V 1M -n other dst
	tpstatus --noheadings -o vol_name dst >vols
	grep -qx k vols && fail "$what: k became a volume before its data was received"
	check_content || fail "$what: a volume differs from its source"
	tpstatus --noheadings -o vol_content_uuid dst | grep -q "$s1_uuid" &&
		fail "$what: the cut receive's content uuid belongs to a volume"
	failed tprecv -i inc.stream -n k2 dst
	err_has "no read-only volume with the stream's base"
	ok tpstatus dst
	grep -q "the receive of k is unfinished" err || fail "$what: tpstatus does not name the cut receive"
	expect_rc 0 tpcheck dst
	# the name is held until the receive ends or is dropped
	failed tvcreate -V 1M -n k dst
	err_has "unfinished receive of k"
	ok tvremove -y dst/other
}

# finish: --resume from the same stream (from a file or a pipe), then the
# incremental onto it; both equal their sources; then both go again
finish() {
	local mode=$1 what=$2
	if [ "$mode" = file ]; then
		ok tprecv --resume -i full.stream dst
	else
		cat full.stream | tprecv --resume dst >out 2>err || { cat err >&2; fail "$what: resume failed"; }
	fi
	out_has "Volume dst/k received"
	ok tprecv -i inc.stream -n k2 dst
	check_content || fail "$what: resumed volumes differ from their sources"
	expect_rc 0 tpcheck dst
	ok tvremove -y dst/k2
	ok tvremove -y dst/k
}

# 10 places per mode by default (every place by KILL, every fourth by INT
# or TERM too); TP_SHELL_FULL=1: 20. t-interrupt-matrix stops tprecv at
# each of its steps with every signal either way.
if [ "${TP_SHELL_FULL:-0}" = 1 ]; then points=${TP_RECV_POINTS:-20}; else points=${TP_RECV_POINTS:-10}; fi
# the places a receive can stop at: records that end on a chunk boundary
records=$(python3 - full.stream <<'PY'
import struct, sys
f = open(sys.argv[1], 'rb'); h = f.read(256)
size, chunk = struct.unpack_from('<QQ', h, 16)
n = 0
while True:
    t, off, ln = struct.unpack('<I4xQQ8x', f.read(32))
    if t == 3:
        break
    if t == 1:
        f.seek(ln, 1)
    n += (off + ln) % chunk == 0 or off + ln == size
print(n)
PY
)
[ "$records" -ge "$points" ] || fail "the stream has only $records places to stop at"
step=$(( records / points ))
# the sample (see the header): which places this run cuts
matrix_sample 2
cuts=0 taken=0 left=0 m=0
n=0
for mode in file pipe; do
	m=$((m + 1))
	for ((i = 1; i <= points; i++)); do
		if [ "$SPLIT" = 1 ]; then k=$(( (i + m + TURN) % SAN_SAMPLE != 0 )); else k=$(( (i + m + TURN) % SAMPLE == 0 )); fi
		[ $k = 1 ] || { left=$((left + 1)); continue; }
		taken=$((taken + 1))
		n=$(( (i - 1) * step + 1 ))
		case $(( i % 8 )) in 1) sig=INT ;; 5) sig=TERM ;; *) sig=KILL ;; esac
		# every point is cut by KILL once per mode, every fourth by INT or TERM too
		cut "$mode" KILL "$n"
		after_cut "$mode KILL $n"
		finish "$mode" "$mode KILL $n"
		if [ "$sig" != KILL ]; then
			cut "$mode" "$sig" "$n"
			after_cut "$mode $sig $n"
			finish "$mode" "$mode $sig $n"
		fi
	done
done

[ $((taken + left)) = $((2 * points)) ] && [ $taken -gt 0 ] && [ $cuts -ge $taken ] || fail "only $cuts cuts"
echo "$cuts cuts over $records places"
[ $left = 0 ] || echo "NOTE: left out: $left of $((2 * points)) places at turn $TURN ($([ "$SPLIT" = 1 ] &&
	echo "the sanitizer build's run of this turn cuts them" ||
	echo "the other turns cut them: $SAMPLE runs on $SAMPLE days in a row cut every place"); TP_MATRIX_TURN=$TURN replays this turn, TP_MATRIX_SAMPLE=1 TP_MATRIX_SPLIT=0 cuts every place)"

# a cut receive dropped: its chunks go back, the name is free again
used0=$(tpstatus --noheadings --units b -o pool_data_used dst | tr -d ' b')
cut file KILL 30
usage_error tprecv --abort k --resume dst
ok tprecv --abort k dst
out_has "Unfinished receive dst/k dropped."
failed tprecv --abort k dst
err_has "no unfinished receive named k"
[ "$(tpstatus --noheadings --units b -o pool_data_used dst | tr -d ' b')" = "$used0" ] ||
	fail "--abort did not give the cut receive's chunks back"
failed tprecv --resume -i full.stream dst
err_has "no unfinished receive of this stream"
expect_rc 0 tpcheck dst

# the check catches a receive completed without its data
TP_TEST_FAIL=recv-skip-data tprecv -i full.stream -n k dst >out 2>err ||
	{ cat err >&2; fail "the broken receive did not claim success"; }
check_content && fail "a receive completed without its data passed the content check"
ok tvremove -y dst/k

# a receive that takes the pool past its warn threshold says so
ok tpchange --warn 1 dst
ok tprecv -i full.stream -n k dst
err_has "at or above its warn threshold of 1%"
ok tvremove -y dst/k
# and one that cannot fit is refused before it writes
DATA_SIZE=4M new_pool tiny --chunk 64k
unchanged 5 tprecv -i full.stream -n k tiny
err_has "receiving k needs"
# a name whose device-mapper name would pass 127 bytes is refused first
long="a$(printf -- '-%.0s' $(seq 63))"
unchanged 3 tprecv -i full.stream -n "$long" dst
err_has "127"
