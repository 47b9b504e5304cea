# SPDX-License-Identifier: GPL-2.0-or-later
# The interruption matrix, generated from the command table: every
# command that declares test pauses (tools/commands.def, its last column)
# is stopped at every pause it declares for an inactive pool, with KILL,
# INT and TERM, in each of its scenarios that reaches the pause (tprecv:
# a stream, a raw image from a file, and a raw image through a pipe that
# is longer than its volume, which the import drops; every declared pause
# must be reached by some scenario). After each stop one more change runs (tvcreate, which
# completes what the transaction-id protocol finds interrupted); then
# every volume's content (raw export checksum) is the one it had before
# the command or the one an uninterrupted run gives it, no volume exists
# that neither state has, every content uuid names the content it had
# when it was complete, and tpcheck finds what it found before. INT and
# TERM end the command with 130 and 143 (a critical section finishes
# first: the "new" state) or at a place it can say it stopped. A step in
# the sources that no command declares, a declared step that is never
# reached, and a declaring command without a scenario here all fail.
# TP_MATRIX_SIGNALS picks the signals (default "KILL INT TERM").
# TP_MATRIX_SAMPLE=N: of each step's cases (one a signal), one in N, from
# an offset that turns with the step and the run's turn (3 by default
# under TP_SANITIZE=1, whose run looks for memory errors: one signal a
# step, another each day; TP_MATRIX_SAMPLE=1 runs every case there too);
# TP_MATRIX_SPLIT=1 (test/run-all.sh sets it for the main build's run
# when it runs both builds' shell tests, with one TP_MATRIX_TURN): the
# main build's run leaves out the cases the sanitizer build's run of the
# same turn takes, so that the two together cut every step with every
# signal each day; TP_MATRIX_TURN=N (by default the day, UTC) replays a
# turn. A sampled or split run says how many cases it left out.
have tp-thinmap || fail "tp-thinmap not built (make tests)"
DATA_SIZE=128M META_SIZE=16M
# encrypted volumes (tvchange's key changes, tvremove --wipe's crypto-erase)
FAST="--pbkdf pbkdf2 --pbkdf-force-iterations 1000"
printf 'key one\n' >k1
printf 'key two\n' >k2

# ---- the table ----
table=$(sed -n 's/^TP_COMMAND(\([a-z]*\),.*/\1/p' "$TOP/tools/commands.def")
pauses_of() { # the offline pauses command $1 declares
	awk -v c="$1" '
		$0 ~ "^TP_COMMAND\\(" c "," { want = 1; next }
		want { gsub(/^[ \t]*"|"\)[ \t]*$/, ""); print; exit }' "$TOP/tools/commands.def" |
		tr ' ' '\n' | grep -v '^live:' | grep . || true
}
all_declared=$(for c in $table; do awk -v c="$c" '
	$0 ~ "^TP_COMMAND\\(" c "," { want = 1; next }
	want { gsub(/^[ \t]*"|"\)[ \t]*$/, ""); print; exit }' "$TOP/tools/commands.def"; done |
	tr ' ' '\n' | sed 's/^live://; s/=N$//' | sort -u)
# every pause of the sources is declared by some command
for s in $(grep -rhoE 'tp_test_pause(_n)?\("[a-z-]+"' "$TOP/lib" "$TOP/kernel" "$TOP/metadata" "$TOP/tools" |
	sed 's/.*("//; s/"$//' | sort -u); do
	grep -qx -- "$s" <<<"$all_declared" || fail "test pause $s is reached in the sources but no command declares it"
done

# ---- the fixture: pool p with volumes a (and its snapshot s), b, e; a stream ----
new_pool p --chunk 64k
ok tvcreate -V 4M -n a p
write_chunks p a 0 6
write_chunks p a 20 3
ok tvsnap --readonly p/a -n s
write_chunks p a 2 2
write_chunks p a 40 4
ok tvcreate -V 4M -n b p
write_chunks p b 0 5
write_chunks p b 30 5
# e: encrypted (tvchange's key changes, tvremove --wipe's crypto-erase)
ok tvcreate --encrypt --key-file k1 $FAST -V 17M -n e p
new_pool src --chunk 64k
ok tvcreate -V 4M -n x src
for i in 0 4 8 12 16 20; do write_chunks src x "$i" 2; done
ok tvsnap --readonly src/x -n xs
ok tpsend -o x.stream src/xs
ok tpsend --format raw -o x.img src/xs
{ cat x.img; echo more; } >long.raw
x_uuid=$(tpstatus --noheadings -o vol_name,vol_content_uuid src | awk '$1 == "xs" { print $2 }')
x_sum=$(tpsend --format raw src/xs | md5sum | cut -d' ' -f1)
ok tpremove -y src
rm -f src-*.img
cp -a "$TPTOOLS_DIR" etc.pristine
for f in p-data.img p-meta.img; do cp --sparse=always "$f" "$f.pristine"; done
# (the data image's pristine copy has an old mtime, which cp -p gives the
# restored one: a data image with that mtime still has the pristine bytes,
# and restore does not copy its 18 MB of data again)
touch -d @86400 p-data.img.pristine

restore() {
	rm -rf "$TPTOOLS_DIR"
	cp -a etc.pristine "$TPTOOLS_DIR"
	cp --sparse=always p-meta.img.pristine p-meta.img
	[[ -f p-data.img && ! p-data.img -nt p-data.img.pristine && ! p-data.img -ot p-data.img.pristine ]] ||
		cp -p --sparse=always p-data.img.pristine p-data.img
}

# state: one line per volume: name, content checksum, content uuid (or -)
state() {
	local v u sum
	tpstatus --noheadings -o vol_name,vol_content_uuid p 2>/dev/null | while read -r v u; do
		[ "$v" = zz ] && continue
		sum=$(tpsend --format raw "p/$v" | md5sum)
		echo "$v ${sum%% *} ${u:--}"
	done | sort
}

# settings: the pool's and its volumes' settings (a combined change's
# options are one change: all of them or none)
settings() {
	tpstatus --noheadings -o pool_warn,pool_when_full,pool_activation_skip,pool_meta_legs,pool_lock_type,pool_max_overprovision,pool_metadata_format p 2>/dev/null |
		sed 's#[^ ]*/##g'
	tpstatus --noheadings -o vol_name,vol_activation_skip,vol_read_only p 2>/dev/null | grep -v '^ *zz ' | sort
}

# ---- the scenarios: prepare COMMAND SCENARIO (on the restored pool), then
# the command ----
prepare() {
	case $1 in
	tpextend) truncate -s 160M p-data.img; rm -f p-data2.img; truncate -s 32M p-data2.img ;;
	tpreduce) rm -f p-data2.img p-data2.away; truncate -s 32M p-data2.img
		tpextend -q --data p-data2.img p || fail "tpreduce: the device to take away not added"
		# --missing: the added device lost (done_right brings it back)
		[ "$2" != tpreduce-missing ] || mv p-data2.img p-data2.away
		# --size: the volumes moved onto the added device, whose range
		# then shrinks to 16 chunks (those behind move back)
		[ "$2" != tpreduce-size ] || tpmove -q --from p-data.img p ||
			fail "tpreduce --size: the chunks not moved onto the added device" ;;
	tprepair) # a stray thin device, as a live receive cut by a crash leaves
		save_area p area.bin; tp-thinmap --create area.bin 9 0 6 >/dev/null; load_area p area.bin ;;
	tprestore) tpdump p >p.xml; rm -f out.meta; truncate -s 16M out.meta ;;
	tpmove) rm -f p-data2.img; truncate -s 32M p-data2.img
		tpextend -q --data p-data2.img p || fail "tpmove: the device to move to not added" ;;
	tptrim) tvremove -y p/b >/dev/null 2>&1 || fail "tvremove p/b before tptrim" ;;
	tpchange) rm -f p-meta2.img; truncate -s 16M p-meta2.img
		# the upgrade of a pool made before format 2
		[ "$2" != tpchange-format ] || tpchange -q --metadata-format 1 p ||
			fail "tpchange-format: the pool not written in format 1" ;;
	tvremove) # the trash's steps: a retention, and b in the trash to undo or purge
		case $2 in tvremove-trash | tvremove-undo | tvremove-purge)
			tpchange -q --trash-retention 1h p || fail "$2: no retention" ;;
		esac
		case $2 in tvremove-undo | tvremove-purge)
			tvremove -q p/b || fail "$2: b not trashed" ;;
		esac ;;
	esac
}
# done_right COMMAND RC: what a command stopped part-way leaves besides the pool
done_right() {
	case $1 in
	tprestore) # no metadata unless it finished: the superblock is zeroed first
		[ "$2" = 0 ] && return 0
		cmp -s -n 4096 out.meta /dev/zero || fail "a cut tprestore left a superblock" ;;
	tpsend) [ "$2" = 0 ] || [ "$2" = 137 ] || [ ! -e out.stream ] ||
		fail "tpsend stopped with exit $2 left a partial out.stream" ;;
	tpreduce) # the lost device back: a device again before the commit,
		# an orphan label after it (which the next change wipes)
		[ ! -e p-data2.away ] || mv p-data2.away p-data2.img ;;
	esac
}
# scenarios_of COMMAND: its scenarios; command_of SCENARIO: its command
# line; feed_of SCENARIO: the file piped into it, if any; rc_of SCENARIO:
# its exit when it runs uninterrupted; reaches SCENARIO STEP: whether it
# comes to that declared pause
scenarios_of() {
	case $1 in
	tprecv) echo "tprecv tprecv-raw tprecv-raw-long" ;;
	tpextend) echo "tpextend tpextend-data" ;;
	tpreduce) echo "tpreduce tpreduce-missing tpreduce-size" ;;
	tvcreate) echo "tvcreate tvcreate-noact" ;;
	tvsnap) echo "tvsnap tvsnap-noact" ;;
	tpchange) echo "tpchange tpchange-mirror tpchange-format" ;;
	tvremove) echo "tvremove tvremove-trash tvremove-undo tvremove-purge tvremove-erase" ;;
	tvchange) echo "tvchange tvchange-keys" ;;
	*) echo "$1" ;;
	esac
}
feed_of() { case $1 in tprecv-raw-long) echo long.raw ;; esac; }
rc_of() { case $1 in tprecv-raw-long) echo 5 ;; *) echo 0 ;; esac; }
reaches() {
	case $1:$2 in
	tprecv:recv-raw-*) return 1 ;;
	tpextend:xdata-labelled) return 1 ;;
	tpreduce:move-* | tpreduce-missing:move-* | tpreduce-size:xdata-dropped) return 1 ;;
	tprecv-raw:recv-record=* | tprecv-raw:recv-raw-drop) return 1 ;;
	tprecv-raw-long:recv-record=* | tprecv-raw-long:recv-data-done) return 1 ;;
	tvremove:trash-purge-begun | tvremove-purge:wipe-zeroing) return 1 ;;
	tvremove:erase-chunk=N | tvremove-purge:erase-chunk=N) return 1 ;;
	tvremove-erase:erase-chunk=N) return 0 ;;
	tvremove-erase:*) return 1 ;;	# the removal after it: the plain scenario's
	tvchange:crypt-header-loaded | tvchange:keys-prepared | tvchange:after-* | tvchange:head-written | tvchange:head-committed) return 1 ;;
	tvchange-keys:settings-*) return 1 ;;
	tpchange:vg-first-slot | tpchange-mirror:vg-first-slot) return 1 ;;
	tvremove-trash:after-* | tvremove-undo:after-*) return 0 ;;
	tvremove-trash:* | tvremove-undo:*) return 1 ;;
	esac
}
command_of() {
	case $1 in
	tvcreate) echo "tvcreate -V 4M -n new p" ;;
	tvcreate-noact) echo "tvcreate --activate n -V 4M -n new p" ;;
	tvsnap) echo "tvsnap --readonly p/a -n snew" ;;
	tvsnap-noact) echo "tvsnap --readonly --activate n p/a -n snew" ;;
	tpchange) echo "tpchange --warn 70 --when-full error --activate n --max-overprovision 9 p" ;;
	tpchange-mirror) echo "tpchange --warn 70 --activate n --meta-mirror p-meta2.img --meta-integrity n p" ;;
	tpchange-format) echo "tpchange --metadata-format 2 p" ;;
	tvchange) echo "tvchange --activate n --readonly y p/b" ;;
	tvchange-keys) echo "tvchange --add-key --key-file k1 --new-key-file k2 $FAST p/e" ;;
	tvremove) echo "env TP_TEST_REMOVE_STEP=3 tvremove -y --wipe p/b" ;; # steps of 3 chunks
	tvremove-trash) echo "tvremove -y p/b" ;;
	tvremove-undo) echo "tvremove --undo p/b" ;;
	tvremove-purge) echo "env TP_TEST_REMOVE_STEP=3 tvremove --purge p/b" ;;
	tvremove-erase) echo "tvremove -y --wipe p/e" ;;
	tvresize) echo "tvresize -y -f -V 1M p/a" ;;
	tvrollback) echo "tvrollback -y --to s p/a" ;;
	tpextend) echo "tpextend p" ;;
	tpextend-data) echo "tpextend --data p-data2.img p" ;;
	tpreduce) echo "tpreduce --data p-data2.img p" ;;
	tpreduce-missing) echo "tpreduce --missing p" ;;
	tpreduce-size) echo "env TP_TEST_MOVE_STEP=3 tpreduce --size 128M p" ;; # steps of 3 mappings
	tprecv) echo "tprecv -i x.stream -n r p" ;;
	tprecv-raw) echo "tprecv --format raw -i x.img -n raw p" ;;
	tprecv-raw-long) echo "tprecv --format raw -V 4M -n raw p" ;;
	tprepair) echo "tprepair -y p" ;;
	tpsend) echo "tpsend -o out.stream p/s" ;;
	tprestore) echo "tprestore -i p.xml -o out.meta" ;;
	tptrim) echo "tptrim --batch 64k p" ;;
	tpmove) echo "env TP_TEST_MOVE_STEP=3 tpmove --from p-data.img p" ;; # steps of 3 mappings
	*) return 1 ;;
	esac
}

# new_content SCENARIO VOLUME: VOLUME's content, which differs from both
# states' checksums, is a new state all the same: a key change writes new
# keyslots with new random salts each run, so its new header is known by
# what it does (both the old key and the new one open it), not its bytes
new_content() {
	case $1:$2 in
	tvchange-keys:e)
		tpsend --format raw -o e.check p/e >/dev/null 2>&1 &&
			cryptsetup open --test-passphrase --key-file k1 e.check &&
			cryptsetup open --test-passphrase --key-file k2 e.check ;;
	*) return 1 ;;
	esac
}
# check_state WHAT: every volume as in OLD or NEW; uuids name complete content
check_state() {
	local what=$1 v sum uuid o n f
	# (the old and new states read once: each volume's checksum in both,
	# its uuid in the new one, and the first checksum each uuid has in
	# old, new and uuids)
	local -A osum=() nsum=() nuuid=() usum=()
	for f in old new uuids; do
		while read -r v sum uuid; do
			[[ -n $v && -n $uuid ]] || continue
			case $f in old) osum[$v]=$sum ;; new) nsum[$v]=$sum nuuid[$v]=$uuid ;; esac
			[[ -n ${usum[$uuid]+set} ]] || usum[$uuid]=$sum
		done <"$f"
	done
	state >now
	while read -r v sum uuid; do
		o=${osum[$v]:-}
		n=${nsum[$v]:-}
		[ -n "$o$n" ] || fail "$what: volume $v is in neither the old nor the new state"
		[ "$sum" = "$o" ] || [ "$sum" = "$n" ] || new_content "$scen" "$v" ||
			fail "$what: volume $v has content that is neither the old nor the new one"
		[ "$uuid" = - ] && continue
		want=${usum[$uuid]:-}
		# a uuid the command made anew (each run makes its own) only
		# on a volume it makes, or one whose content it keeps and to
		# which it gives a uuid (tvchange --readonly y), with the
		# content the new state has
		if [ -z "$want" ] && { [ -z "$o" ] || { [ "$o" = "$n" ] &&
			[ "${nuuid[$v]:-}" != - ]; }; }; then
			want=$n
		fi
		[ "$sum" = "$want" ] || fail "$what: volume $v carries content uuid $uuid of other content"
	done <now
	settings >now.set
	cmp -s now.set old.set || cmp -s now.set new.set || {
		diff old.set now.set >&2 || true; diff new.set now.set >&2 || true
		fail "$what: the settings are neither the old nor the new ones"
	}
}

signals=${TP_MATRIX_SIGNALS:-KILL INT TERM}
# the sample (see the header): each step's cases, one in SAMPLE (the
# sanitizer build: SAN_SAMPLE), or split: all but the sanitizer's
matrix_sample 3
[ "$SAMPLE" = 1 ] || echo "sampled: one case in $SAMPLE of each step's signals, turn $((TURN % SAMPLE)) of $SAMPLE (TP_MATRIX_TURN=$TURN replays it; TP_MATRIX_SAMPLE=1 runs every case)"
[ "$SPLIT" = 0 ] || echo "split: the cases the sanitizer build's run takes at turn $TURN (one in $SAN_SAMPLE of each step's, turn $((TURN % SAN_SAMPLE)) of $SAN_SAMPLE) are left to it (TP_MATRIX_SPLIT=0 runs every case here)"
# take K: whether this run takes case K (a count over every step's signals)
take() {
	if [[ $SPLIT = 1 ]]; then (($1 % SAN_SAMPLE != 0)); else (($1 % SAMPLE == 0)); fi
}
want_rc() { case $1 in INT) echo 130 ;; TERM) echo 143 ;; KILL) echo 137 ;; esac; }
# run SCENARIO [ENV...]: its command in the background (fed its file
# through a pipe: $! is then the command, the pipe's last), output in
# ./out and ./err
run() {
	local scen=$1 cmd feed
	shift
	cmd=$(command_of "$scen")
	feed=$(feed_of "$scen")
	if [ -n "$feed" ]; then
		cat "$feed" | env "$@" $cmd >out 2>err &
	else
		env "$@" $cmd >out 2>err &
	fi
}
echo "tprecv-src $x_sum $x_uuid" >uuids
cases=0 left=0 nstep=0
for c in $table; do
	steps=$(pauses_of "$c")
	[ -n "$steps" ] || continue
	reached=
	for scen in $(scenarios_of "$c"); do
		command_of "$scen" >/dev/null ||
			fail "$c declares test pauses but has no scenario in t-interrupt-matrix"
		# the old state, the check's verdict on it, and the new state
		restore; prepare "$c" "$scen"
		state >old; settings >old.set
		rc0=0; tpcheck p >/dev/null 2>&1 || rc0=$?
		run "$scen"
		rc=0; wait $! || rc=$?
		[ $rc = "$(rc_of "$scen")" ] ||
			{ cat err >&2; fail "$scen (uninterrupted) exited $rc, not $(rc_of "$scen")"; }
		state >new; settings >new.set
		case $scen in tpchange | tpchange-mirror | tpchange-format | tvchange)
			cmp -s old.set new.set && fail "$scen changed no setting" ;;
		esac
		for step in $steps; do
			reaches "$scen" "$step" || continue
			reached="$reached $step"
			[ "${step%=N}" != "$step" ] && step=${step%=N}=1
			nstep=$((nstep + 1)) k=0
			for sig in $signals; do
				k=$((k + 1))
				take $((nstep + k + TURN)) || { left=$((left + 1)); continue; }
				restore; prepare "$c" "$scen"
				rm -f pause out.stream
				run "$scen" --default-signal=INT,TERM,HUP TP_TEST_PAUSE="$step" \
					TP_TEST_PAUSE_FILE="$PWD/pause"
				pid=$!
				wait_until "$pid" test -e pause ||
					{ cat err >&2; fail "$scen never reached its declared pause $step"; }
				kill -s "$sig" "$pid"
				# (a command that goes on to the same step again, as
				# a raw import's drop does, is let through)
				_w=0
				while kill -0 "$pid" 2>/dev/null; do
					rm -f pause
					if ((_w++ < 20)); then sleep 0.01; else sleep 0.05; fi
				done
				rm -f pause
				rc=0; wait "$pid" || rc=$?
				[ $rc = "$(rc_of "$scen")" ] || [ $rc = "$(want_rc "$sig")" ] ||
					{ cat err >&2; fail "$scen at $step with $sig: exit $rc"; }
				done_right "$c" "$rc"
				ok tvcreate -V 1M -n zz p
				check_state "$scen at $step with $sig"
				rc1=0; tpcheck p >/dev/null 2>&1 || rc1=$?
				[ $rc1 = 0 ] || [ $rc1 = "$rc0" ] ||
					fail "$scen at $step with $sig: tpcheck exits $rc1 (before: $rc0)"
				cases=$((cases + 1))
			done
		done
	done
	for step in $steps; do
		tr ' ' '\n' <<<"$reached" | grep -qx -- "$step" ||
			fail "$c declares the pause $step, which none of its scenarios reaches"
	done
done
echo "$cases cases"
[ $left = 0 ] || echo "NOTE: left out: $left of $((cases + left)) cases at turn $TURN ($([ "$SPLIT" = 1 ] &&
	echo "the sanitizer build's run of this turn takes them" ||
	echo "the other turns take them: $SAMPLE runs on $SAMPLE days in a row run every case"); TP_MATRIX_TURN=$TURN replays this turn, TP_MATRIX_SAMPLE=1 TP_MATRIX_SPLIT=0 runs every case)"
if [ "$SPLIT" = 1 ]; then min=$((40 * (SAN_SAMPLE - 1) / SAN_SAMPLE)); else min=$((40 / SAMPLE)); fi
[ $cases -ge $min ] || fail "only $cases cases ran"

# the matrix catches a receive completed without its data
restore; state >old; settings >old.set
ok tprecv -i x.stream -n r p
state >new; settings >new.set
restore
TP_TEST_FAIL=recv-skip-data tprecv -i x.stream -n r p >out 2>err || { cat err >&2; fail "the broken receive failed"; }
state >now
grep -q "^r .* $x_uuid\$" now || fail "the broken receive made no volume r"
grep -q "^r $x_sum " now && fail "the broken receive wrote its data after all"
( check_state "a receive without its data" ) >check.out 2>&1 &&
	fail "the matrix check passed a receive completed without its data"
grep -q "volume r has content that is neither" check.out || { cat check.out >&2; fail "the check failed for another reason"; }
