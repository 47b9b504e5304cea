# SPDX-License-Identifier: GPL-2.0-or-later
# tprecv --format raw: a plain image into a new volume of an inactive
# pool (tprecv(8), "Raw images"). tpsend --format raw gives the same bytes
# back (a size that is not a chunk multiple, nor one of 512, too); a chunk
# of zeros is not allocated (the volume's mapped bytes and the pool's used
# data prove it); input shorter than -V reads as zeros; input longer is
# refused before the pool is touched (a file) or dropped (a pipe), and a
# name in use is refused, every image byte-identical; -V defaults to a
# file's or device's size and is needed for a pipe; a run of adjacent
# chunks goes out in one write (strace). Stopped at each step
# (every piece, the steps of the change protocol, the drop) with KILL, INT
# or TERM in turn (all three with TP_SHELL_FULL=1), from a pipe and from a
# file: never a volume, INT and TERM
# leave nothing (one line saying so, exit 130 or 143), KILL an unfinished
# receive that tprecv --abort drops, --resume refuses and tpstatus names;
# tpcheck and thin_check clean after each. A waiting pipe does not make
# tprecv deaf to SIGINT. A broken import (TP_TEST_FAIL=recv-raw-skip-data)
# is caught by the content check.
DATA_SIZE=256M META_SIZE=16M
new_pool p --chunk 64k
C=65536

# put_random FILE CHUNK...: random data over those 64 KiB chunks of FILE
put_random() {
	local f=$1 c
	shift
	for c in "$@"; do
		head -c $C /dev/urandom | dd of="$f" bs=$C seek="$c" conv=notrunc status=none
	done
}
# padded FILE SIZE: FILE's bytes, then zeros up to SIZE (what the volume reads)
padded() { cat "$1"; head -c $(($2 - $(stat -c %s "$1"))) /dev/zero; }
used() { pool_bytes p pool_data_used; }
mapped() { vol_field p "$1" vol_mapped --units b | tr -d b; }
# clean: tpcheck finds nothing, thin_check (0.9.0) accepts the metadata
clean() {
	expect_rc 0 tpcheck p
	if have thin_check; then thin_check_pool p; fi
}

# ---- the bytes come back, zero chunks are not allocated ----
# 1500 KiB (23.4 chunks): chunks 0-2 random, 3-9 zero, 10 one byte, 11-22
# zero, the partial last chunk random
image img1 1500K
put_random img1 0 1 2
printf 'x' | dd of=img1 bs=1 seek=$((10 * C + 777)) conv=notrunc status=none
head -c $((1500 * 1024 - 23 * C)) /dev/urandom |
	dd of=img1 bs=$C seek=23 conv=notrunc status=none
u0=$(used)
cat img1 | tprecv --format raw -V 1500K -n a p >out 2>err || { cat err >&2; fail "import from a pipe"; }
out_has "Volume p/a imported (1.46 MiB, 320 KiB of data), writable."
[ "$(mapped a)" = $((5 * C)) ] || fail "a maps $(mapped a) bytes, not the 5 chunks with data"
[ "$(used)" = $((u0 + 5 * C)) ] || fail "the pool's used data grew by $(($(used) - u0)), not 5 chunks"
[ "$(vol_field p a vol_size --units b)" = "$((1500 * 1024))b" ] || fail "a has the wrong size"
[ "$(vol_field p a vol_read_only)" = no ] || fail "an imported volume is not writable"
[ -z "$(vol_field p a vol_content_uuid)" ] || fail "an imported volume has a content uuid"
ok tpsend --format raw -o a.out p/a
cmp a.out img1 || fail "tpsend --format raw gives other bytes than were imported"
clean

# from a file on standard input, -V from its size: 600001 bytes, rounded
# up to 600064 (whole sectors), the tail zeros
head -c 600001 /dev/urandom >img2
ok tprecv --format raw -n b p <img2
out_has "Volume p/b imported (586 KiB, 640 KiB of data), writable."
[ "$(vol_field p b vol_size --units b)" = 600064b ] || fail "b: -V is not the file's size rounded up"
tpsend --format raw p/b | cmp - <(padded img2 600064) || fail "b reads back other bytes"
# with -i, and read from a file's offset as cat would
ok tprecv --format raw -n b2 -i img2 p
tpsend --format raw p/b2 | cmp - <(padded img2 600064) || fail "b2 (-i) reads back other bytes"
{ dd bs=$C count=1 of=/dev/null status=none; tprecv --format raw -n b3 p >out 2>err; } <img2 ||
	{ cat err >&2; fail "import from an offset"; }
tail -c +$((C + 1)) img2 >img2.tail
tpsend --format raw p/b3 | cmp - <(padded img2.tail $(((600001 - C + 511) / 512 * 512))) ||
	fail "b3 does not start at standard input's offset"

# an image of zeros allocates nothing; input shorter than -V reads as zeros
u0=$(used)
head -c 8M /dev/zero | tprecv --format raw -V 8M -n z p >out 2>err || { cat err >&2; fail "zeros"; }
[ "$(mapped z)" = 0 ] && [ "$(used)" = "$u0" ] || fail "an all-zero image allocated chunks"
tpsend --format raw p/z | cmp - <(head -c 8M /dev/zero) || fail "z does not read as zeros"
head -c 100000 /dev/urandom >img3
cat img3 | tprecv --format raw -V 2M -n short p >out 2>err || { cat err >&2; fail "short input"; }
[ "$(mapped short)" = $((2 * C)) ] || fail "short input mapped $(mapped short) bytes"
tpsend --format raw p/short | cmp - <(padded img3 $((2 << 20))) || fail "short: the rest is not zeros"
ok tprecv --format raw -V 1M -n empty p </dev/null
[ "$(mapped empty)" = 0 ] || fail "an empty input allocated chunks"
# a volume larger than the pool is over-provisioning, as with tvcreate
cat img3 | tprecv --format raw -V 1G -n huge p >out 2>err || { cat err >&2; fail "1G volume"; }
err_has "exceeds the size of pool p"
ok tvremove -y p/huge
clean

# one write per run of adjacent new chunks (when strace can trace here)
if have strace && strace -o /dev/null true 2>/dev/null; then
	DATA_SIZE=64M new_pool q --chunk 64k
	image runs.img 768K
	put_random runs.img 0 1 2 3 4 5 10 11
	# (LeakSanitizer does not run under ptrace: a sanitizer build checks leaks elsewhere)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -e trace=pwrite64 \
		-o trace.txt tprecv --format raw -n v -i runs.img q >out 2>err ||
		{ cat err >&2; fail "import under strace"; }
	grep -q " 393216, [0-9]*) = 393216$" trace.txt && grep -q " 131072, [0-9]*) = 131072$" trace.txt ||
		{ grep pwrite trace.txt >&2; fail "the runs of 6 and 2 chunks were not written in one write each"; }
	! grep -q " 65536, [0-9]*) = 65536$" trace.txt || fail "a chunk of a run was written on its own"
	tpsend --format raw q/v | cmp - runs.img || fail "q/v reads back other bytes"
	ok tpremove -y q
fi

# ---- refused: nothing changed ----
unchanged 5 tprecv --format raw -V 1M -n long p <img1
err_has "standard input holds 1.46 MiB, more than the 1 MiB of volume long (-V)"
unchanged 5 tprecv --format raw -V 1M -n long -i img1 p
err_has "img1 holds 1.46 MiB"
cp img1 img1.before
unchanged 5 tprecv --format raw -n a -i img1 p
err_has "already has a volume named a"
cmp img1 img1.before || fail "a refused import changed its input"
unchanged 3 tprecv --format raw -V 1M p <img1
err_has "needs -n NAME"
unchanged 3 tprecv --format raw -n x p < <(cat img1)
err_has "needs -V SIZE when the image comes through a pipe"
unchanged 3 tprecv --format raw -n x p </dev/null
unchanged 3 tprecv -V 1M -n x p <img1
err_has "-V goes with --format raw"
unchanged 3 tprecv --format raw --resume -n x p <img1
unchanged 3 tprecv --format img -n x p <img1
err_has "unknown format 'img'"
unchanged 3 tprecv --abort x --format raw p
unchanged 3 tprecv --format raw -V 0 -n x p <img1
unchanged 3 tprecv --format raw -V 8388608T -n x p <img1
err_has "too large"
unchanged 3 tprecv --format raw -V 1M -n bad/name p <img1
image empty.bin 0
unchanged 3 tprecv --format raw -n x -i empty.bin p
err_has "empty.bin is empty: give -V SIZE"
unchanged 5 tprecv --format raw -n x -i nothere.bin p
err_has "nothere.bin: cannot open"
mkdir adir
unchanged 5 tprecv --format raw -n x -i adir p
err_has "is a directory"

# longer than -V through a pipe: known only at its end; the import is
# dropped again: no volume, no unfinished receive, every chunk back
u0=$(used)
cat img1 | tprecv --format raw -V 1M -n long p >out 2>err && fail "a too long pipe was imported"
[ "$(grep -c 'error:' err)" = 2 ] || { cat err >&2; fail "not two lines for a too long input"; }
err_has "standard input is longer than the 1 MiB of volume long (-V): give a larger -V"
err_has "the raw import of long from standard input stopped at 1 MiB of 1 MiB; nothing was imported"
[ -z "$(vol_field p long vol_name)" ] || fail "a too long input left a volume"
[ "$(used)" = "$u0" ] || fail "a too long input left chunks allocated"
ok tpstatus p
err_lacks "raw import"
failed tprecv --abort long p
err_has "no unfinished receive named long"
tpsend --format raw p/a | cmp - img1 || fail "a dropped import changed another volume"
clean

# ---- stopped at each step ----
# 24 MiB in 6 pieces of 4 MiB: random chunks every third chunk
image big.img 24M
put_random big.img $(seq 0 3 383)
want_used=$(( $(used) ))
# stop SRC SIG STEP [-V SIZE] [FILE]: tprecv --format raw -n k from SRC
# (pipe|file) stopped at STEP by SIG; then the checks
stop() {
	local src=$1 sig=$2 step=$3 vsize=${4:-} f=${5:-big.img} pid rc what="$1 $2 $3"
	rm -f pause
	if [ "$src" = pipe ]; then
		cat "$f" | env --default-signal=INT,TERM,HUP TP_TEST_PAUSE="$step" \
			TP_TEST_PAUSE_FILE="$PWD/pause" tprecv --format raw ${vsize:+-V $vsize} -n k p \
			>out 2>err &
	else
		env --default-signal=INT,TERM,HUP TP_TEST_PAUSE="$step" TP_TEST_PAUSE_FILE="$PWD/pause" \
			tprecv --format raw ${vsize:+-V $vsize} -n k -i "$f" p >out 2>err &
	fi
	pid=$!
	wait_until "$pid" test -e pause || { cat err >&2; fail "$what: never reached $step"; }
	kill -s "$sig" "$pid"
	# (the drop passes the steps of a change again: let it through)
	_w=0
	while kill -0 "$pid" 2>/dev/null; do
		rm -f pause
		if ((_w++ < 20)); then sleep 0.01; else sleep 0.05; fi
	done
	rm -f pause
	rc=0; wait "$pid" || rc=$?
	mv err recv.err
	ok tvcreate -V 1M -n other p	# one more change
	[ -z "$(vol_field p k vol_name)" ] || fail "$what: k became a volume"
	case $sig in
	KILL)
		[ $rc = 137 ] || fail "$what: exit $rc, not 137"
		ok tpstatus p
		err_has "the raw import of k was cut short"
		err_has "drop it with 'tprecv --abort k p'"
		failed tvcreate -V 1M -n k p
		err_has "a raw import cut short: drop it with 'tprecv --abort k p'"
		unchanged 5 tprecv --format raw -V 2M -n k p <img1
		err_has "a raw import cut short"
		failed tprecv --resume -n k -i x.stream p
		err_has "k is a raw import that was cut short"
		clean
		ok tprecv --abort k p
		out_has "Unfinished receive p/k dropped." ;;
	INT | TERM)
		[ $rc = "$([ "$sig" = INT ] && echo 130 || echo 143)" ] ||
			{ cat recv.err >&2; fail "$what: exit $rc"; }
		[ "$(grep -c 'error:' recv.err)" = 1 ] || [ "$step" = recv-raw-drop ] ||
			{ cat recv.err >&2; fail "$what: not one line"; }
		grep -q "the raw import of k from .* at .*; nothing was imported (what it wrote is dropped)" \
			recv.err || { cat recv.err >&2; fail "$what: no line saying nothing was imported"; }
		ok tpstatus p
		err_lacks "raw import" ;;
	esac
	failed tprecv --abort k p
	[ "$(used)" = "$want_used" ] || fail "$what: $(($(used) - want_used)) bytes of data left allocated"
	clean
	ok tvremove -y p/other
	cuts=$((cuts + 1))
}
cuts=0
# a stream's receive, to try --resume on a cut raw import with
ok tvcreate -V 1M -n s0 p
ok tvsnap --readonly p/s0 -n s1
ok tpsend -o x.stream p/s1
ok tvremove -y p/s1 p/s0
want_used=$(used)
# every step from both sources; by default each step with one signal, the
# three taken in turn (t-interrupt-matrix stops every step of a raw import
# with all three), TP_SHELL_FULL=1 with every signal
all_signals=(KILL INT TERM)
turn=0
for src in pipe file; do
	v=; [ $src = pipe ] && v=24M
	for step in recv-raw-piece=1 recv-raw-piece=3 recv-raw-piece=6 after-vg-commit \
		    after-apply recv-begun recv-data-done; do
		sigs=("${all_signals[@]}")
		[ "${TP_SHELL_FULL:-0}" = 1 ] || sigs=("${all_signals[turn % 3]}")
		turn=$((turn + 1))
		for sig in "${sigs[@]}"; do stop $src $sig $step "$v"; done
	done
done
# the drop of a too long pipe
for sig in KILL INT TERM; do stop pipe $sig recv-raw-drop 1M img1; done
want_cuts=$([ "${TP_SHELL_FULL:-0}" = 1 ] && echo 45 || echo 17)
[ $cuts -ge "$want_cuts" ] || fail "only $cuts cuts"
# every piece is reached
TP_TEST_PAUSE=recv-raw-piece=7 TP_TEST_PAUSE_FILE=$PWD/pause tprecv --format raw -n k p <big.img \
	>out 2>err || { cat err >&2; fail "import of big.img"; }
err_lacks "test pause"
tpsend --format raw p/k | cmp - big.img || fail "big.img reads back other bytes"
[ "$(mapped k)" = $((128 * C)) ] || fail "k maps $(mapped k) bytes, not 128 chunks"
ok tvremove -y p/k

# a stalled pipe: SIGINT is heeded while tprecv waits for input (the
# sender gives 5 MiB and holds the pipe open until the reader goes, or
# a minute passes)
python3 -c '
import select, sys
sys.stdout.buffer.write(open("big.img", "rb").read(5 << 20))
sys.stdout.flush()
p = select.poll()
p.register(1, 0)
p.poll(60000)' | env --default-signal=INT TP_TEST_PAUSE=recv-raw-piece=1 \
	TP_TEST_PAUSE_FILE="$PWD/pause" tprecv --format raw -V 24M -n k p >out 2>err &
pid=$!
wait_until "$pid" test -e pause || { cat err >&2; fail "the waiting import never read 4 MiB"; }
rm -f pause
sleep 1	# now it waits for the rest of the second piece
t0=$(date +%s)
kill -INT "$pid"
rc=0; wait "$pid" || rc=$?
[ $rc = 130 ] || { cat err >&2; fail "a waiting import stopped with $rc, not 130"; }
[ $(($(date +%s) - t0)) -lt 10 ] || fail "SIGINT took more than 10 s to stop a waiting import"
err_has "was stopped by a signal at 4 MiB of 24 MiB; nothing was imported"
[ "$(used)" = "$want_used" ] || fail "a stopped waiting import left data"

# the content check catches an import completed without its data
TP_TEST_FAIL=recv-raw-skip-data tprecv --format raw -n k p <img1 >out 2>err ||
	{ cat err >&2; fail "the broken import did not claim success"; }
tpsend --format raw p/k | cmp -s - img1 && fail "an import without its data passed the content check"
ok tvremove -y p/k

# a block device as input: -V defaults to its size
if have losetup && [ "$(id -u)" = 0 ]; then
	trap loops_detach EXIT
	image dev.bin 3M
	put_random dev.bin 5 40
	if l=$(losetup -f --show dev.bin 2>/dev/null); then
		loops+=("$l")
		ok tprecv --format raw -n blk -i "$l" p
		out_has "Volume p/blk imported (3 MiB, 128 KiB of data), writable."
		tpsend --format raw p/blk | cmp - dev.bin || fail "blk reads back other bytes"
		loops_detach
	fi
fi
clean
