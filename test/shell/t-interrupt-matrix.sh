# The interruption matrix, generated from the command table: every
# command that declares test pauses (tools/commands.def, its last column)
# is stopped at every pause it declares for an inactive pool, with KILL,
# INT and TERM. After each stop one more change runs (tvcreate, which
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
have tp-thinmap || fail "tp-thinmap not built (make tests)"
DATA_SIZE=128M META_SIZE=16M

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

# ---- the fixture: pool p with volumes a (and its snapshot s), b; a stream ----
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
new_pool src --chunk 64k
ok tvcreate -V 4M -n x src
for i in 0 4 8 12 16 20; do write_chunks src x "$i" 2; done
ok tvsnap --readonly src/x -n xs
ok tpsend -o x.stream src/xs
x_uuid=$(tpstatus --noheadings -o vol_name,vol_content_uuid src | awk '$1 == "xs" { print $2 }')
x_sum=$(tpsend --format raw src/xs | md5sum | cut -d' ' -f1)
ok tpremove -y src
rm -f src-*.img
cp -a "$TPTOOLS_DIR" etc.pristine
for f in p-data.img p-meta.img; do cp --sparse=always "$f" "$f.pristine"; done

restore() {
	rm -rf "$TPTOOLS_DIR"
	cp -a etc.pristine "$TPTOOLS_DIR"
	for f in p-data.img p-meta.img; do cp --sparse=always "$f.pristine" "$f"; done
}

# state: one line per volume: name, content checksum, content uuid (or -)
state() {
	local v u
	tpstatus --noheadings -o vol_name,vol_content_uuid p 2>/dev/null | while read -r v u; do
		[ "$v" = zz ] && continue
		echo "$v $(tpsend --format raw "p/$v" | md5sum | cut -d' ' -f1) ${u:--}"
	done | sort
}

# ---- the scenarios: prepare (on the restored pool), then the command ----
prepare() {
	case $1 in
	tpextend) truncate -s 160M p-data.img ;;
	tprepair) # a stray thin device, as a live receive cut by a crash leaves
		save_area p area.bin; tp-thinmap --create area.bin 9 0 6 >/dev/null; load_area p area.bin ;;
	tprestore) tpdump p >p.xml; rm -f out.meta; truncate -s 16M out.meta ;;
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
	esac
}
command_of() {
	case $1 in
	tvcreate) echo "tvcreate -V 4M -n new p" ;;
	tvsnap) echo "tvsnap --readonly p/a -n snew" ;;
	tvremove) echo "tvremove -y --wipe p/b" ;;
	tvresize) echo "tvresize -y -f -V 1M p/a" ;;
	tvrollback) echo "tvrollback -y --to s p/a" ;;
	tpextend) echo "tpextend p" ;;
	tprecv) echo "tprecv -i x.stream -n r p" ;;
	tprepair) echo "tprepair -y p" ;;
	tpsend) echo "tpsend -o out.stream p/s" ;;
	tprestore) echo "tprestore -i p.xml -o out.meta" ;;
	*) return 1 ;;
	esac
}

# check_state WHAT: every volume as in OLD or NEW; uuids name complete content
check_state() {
	local what=$1 v sum uuid o n
	state >now
	while read -r v sum uuid; do
		o=$(awk -v v="$v" '$1 == v { print $2 }' old)
		n=$(awk -v v="$v" '$1 == v { print $2 }' new)
		[ -n "$o$n" ] || fail "$what: volume $v is in neither the old nor the new state"
		[ "$sum" = "$o" ] || [ "$sum" = "$n" ] ||
			fail "$what: volume $v has content that is neither the old nor the new one"
		[ "$uuid" = - ] && continue
		want=$(awk -v u="$uuid" '$3 == u { print $2 }' old new uuids | head -1)
		# a uuid the command made anew (each run makes its own) only
		# on a volume it makes, with the content it gives that volume
		[ -n "$want" ] || { [ -z "$o" ] && want=$n; }
		[ "$sum" = "$want" ] || fail "$what: volume $v carries content uuid $uuid of other content"
	done <now
}

signals=${TP_MATRIX_SIGNALS:-KILL INT TERM}
want_rc() { case $1 in INT) echo 130 ;; TERM) echo 143 ;; KILL) echo 137 ;; esac; }
echo "tprecv-src $x_sum $x_uuid" >uuids
cases=0
for c in $table; do
	steps=$(pauses_of "$c")
	[ -n "$steps" ] || continue
	cmd=$(command_of "$c") || fail "$c declares test pauses but has no scenario in t-interrupt-matrix"
	# the old state, the check's verdict on it, and the new state
	restore; prepare "$c"
	state >old
	rc0=0; tpcheck p >/dev/null 2>&1 || rc0=$?
	$cmd >out 2>err || { cat err >&2; fail "$cmd (uninterrupted) failed"; }
	state >new
	for step in $steps; do
		[ "${step%=N}" != "$step" ] && step=${step%=N}=1
		for sig in $signals; do
			restore; prepare "$c"
			rm -f pause out.stream
			TP_TEST_PAUSE=$step TP_TEST_PAUSE_FILE=$PWD/pause \
				env --default-signal=INT,TERM,HUP $cmd >out 2>err &
			pid=$!
			wait_until "$pid" test -e pause ||
				{ cat err >&2; fail "$c never reached its declared pause $step"; }
			kill -s "$sig" "$pid"
			rm -f pause
			rc=0; wait "$pid" || rc=$?
			[ $rc = 0 ] || [ $rc = "$(want_rc "$sig")" ] ||
				{ cat err >&2; fail "$c at $step with $sig: exit $rc"; }
			done_right "$c" "$rc"
			ok tvcreate -V 1M -n zz p
			check_state "$c at $step with $sig"
			rc1=0; tpcheck p >/dev/null 2>&1 || rc1=$?
			[ $rc1 = 0 ] || [ $rc1 = "$rc0" ] ||
				fail "$c at $step with $sig: tpcheck exits $rc1 (before: $rc0)"
			cases=$((cases + 1))
		done
	done
done
echo "$cases cases"
[ $cases -ge 40 ] || fail "only $cases cases ran"

# the matrix catches a receive completed without its data
restore; state >old
ok tprecv -i x.stream -n r p
state >new
restore
TP_TEST_FAIL=recv-skip-data tprecv -i x.stream -n r p >out 2>err || { cat err >&2; fail "the broken receive failed"; }
state >now
grep -q "^r .* $x_uuid\$" now || fail "the broken receive made no volume r"
grep -q "^r $x_sum " now && fail "the broken receive wrote its data after all"
( check_state "a receive without its data" ) >check.out 2>&1 &&
	fail "the matrix check passed a receive completed without its data"
grep -q "volume r has content that is neither" check.out || { cat check.out >&2; fail "the check failed for another reason"; }
