# SPDX-License-Identifier: GPL-2.0-or-later
# The replication recipe of tptools(7) REPLICATION, as it is written there:
# a full send, then rounds of snapshot, incremental send through a pipe and
# removal of the old base on the sender; one round is cut (KILL in the
# middle of the receive) and the same pipe run again with --resume
# finishes it. After every round the replica reads as its source did
# (raw exports compared) and tpcheck is clean on both pools.
have tp-thinmap || fail "tp-thinmap not built (make tests)"
DATA_SIZE=256M
new_pool vault --chunk 64k
new_pool backup --chunk 64k
ok tvcreate -V 16M -n www vault
for i in $(seq 0 40 200); do write_chunks vault www "$i" 3; done

same() {	# same SENT RECEIVED: their raw exports are equal
	ok tpsend --format raw -o sent.raw "vault/$1"
	ok tpsend --format raw -o got.raw "backup/$2"
	cmp -s sent.raw got.raw || fail "round $round: backup/$2 differs from vault/$1"
	ok tpcheck vault
	ok tpcheck backup
}

# the first copy: full
round=1
ok tvsnap --readonly -n www-r1 vault/www
tpsend vault/www-r1 | tprecv backup >out 2>err || { cat err >&2; fail "full send"; }
same www-r1 www-r1
# rounds: snapshot, incremental, the old base goes on the sender
for round in 2 3 4; do
	prev=www-r$((round - 1)) now=www-r$round
	for i in $(seq "$round" 80 240); do write_chunks vault www "$i" 2; done
	ok tvsnap --readonly -n "$now" vault/www
	if [ "$round" = 3 ]; then
		# cut: the receive killed after its first record
		rm -f pause
		tpsend --from "$prev" "vault/$now" |
			TP_TEST_PAUSE=recv-record=1 TP_TEST_PAUSE_FILE=$PWD/pause tprecv backup \
			>out 2>err &
		pid=$!
		wait_until "$pid" test -e pause || { cat err >&2; fail "the receive never began"; }
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null || true
		tpstatus --noheadings -o vol_name backup | grep -qx "$now" &&
			fail "a cut receive is a volume"
		# the same pipe again, with --resume
		tpsend --from "$prev" "vault/$now" | tprecv --resume backup >out 2>err ||
			{ cat err >&2; fail "round $round: --resume failed"; }
	else
		tpsend --from "$prev" "vault/$now" | tprecv backup >out 2>err ||
			{ cat err >&2; fail "round $round: incremental send"; }
	fi
	same "$now" "$now"
	ok tvremove -y "vault/$prev"
	# the receiver keeps what it wants; the newest is the next base
	[ "$round" -lt 3 ] || ok tvremove -y "backup/www-r$((round - 2))"
done
