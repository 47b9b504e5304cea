# SPDX-License-Identifier: GPL-2.0-or-later
# Device ownership (issue 11): every command that writes a device claims
# it (an exclusive flock on the file or node, O_EXCL on a block device),
# so two commands on the same devices serialise or the second fails with
# exit 5 and a clear message, whatever pool names they use. Nothing here
# depends on which of two racing commands wins.

# bg NAME CMD...: run CMD, leaving NAME.out, NAME.err and NAME.rc
bg() {
	local name=$1 rc
	shift
	"$@" >"$name.out" 2>"$name.err" && rc=0 || rc=$?
	echo "$rc" >"$name.rc"
}

# one_pool: exactly one of ra/rb exists on d.img/m.img and passes tpcheck
one_pool() {
	local n=0 p
	for p in ra rb; do
		if tpstatus "$p" >/dev/null 2>&1; then
			n=$((n + 1))
			ok tpcheck "$p"
			winner=$p
		fi
	done
	[ "$n" = 1 ] || fail "round $1: $n pools exist afterwards"
}

# the loser's message: it names the device or the pool that took it
clear_refusal() {
	grep -qE "belongs to pool r[ab]|in use by another tptools command|carries a tptools label|carries (the|an orphan) label of pool r[ab]|changed while tpcreate waited" "$1" ||
		{ cat "$1" >&2; fail "round $2: unclear refusal"; }
}

image d.img 64M
image m.img 16M
for round in $(seq 1 20); do
	bg a tpcreate -d d.img -m m.img ra &
	bg b tpcreate -d d.img -m m.img rb &
	wait
	rcs="$(cat a.rc) $(cat b.rc)"
	case $rcs in
	"0 5") clear_refusal b.err "$round" ;;
	"5 0") clear_refusal a.err "$round" ;;
	*) cat a.err b.err >&2; fail "round $round: tpcreate exited $rcs" ;;
	esac
	one_pool "$round"
	ok tpremove -y "$winner"
done

# tpcreate racing tpremove on the same devices: either the pool was
# removed and the new one created, or the new one was refused (exit 5);
# on a slow machine tpremove may give up waiting (exit 5, pool intact)
for round in $(seq 1 10); do
	ok tpcreate -d d.img -m m.img ra
	bg a tpremove -y ra &
	bg b tpcreate -d d.img -m m.img rb &
	wait
	case "$(cat a.rc) $(cat b.rc)" in
	"0 0") failed tpstatus ra; ok tpcheck rb; ok tpremove -y rb ;;
	"0 5") clear_refusal b.err "$round"; failed tpstatus ra; failed tpstatus rb ;;
	"5 5")	# tpremove gave up waiting for tpcreate's claim: both refused
		grep -q "in use by another tptools command" a.err ||
			{ cat a.err >&2; fail "round $round: unclear refusal"; }
		ok tpcheck ra; ok tpremove -y ra ;;
	*) cat a.err b.err >&2; fail "round $round: tpremove, tpcreate exited $(cat a.rc b.rc)" ;;
	esac
done

# two configurations (own devices files and pool locks) on one pool's
# devices: their volume changes serialise on the devices' claims
ok tpcreate -d d.img -m m.img shared
for round in $(seq 1 10); do
	TPTOOLS_DIR=$PWD/etc1 bg a tvcreate -V 4M -n "a$round" --devices d.img,m.img shared &
	TPTOOLS_DIR=$PWD/etc2 bg b tvcreate -V 4M -n "b$round" --devices d.img,m.img shared &
	wait
	for s in a b; do
		case $(cat $s.rc) in
		0) echo "$s$round" >>made ;;
		5) grep -q "in use by another tptools command" $s.err ||
			{ cat $s.err >&2; fail "round $round: unclear refusal"; } ;;
		*) cat $s.err >&2; fail "round $round: tvcreate exited $(cat $s.rc)" ;;
		esac
	done
done
ok tpcheck shared
thin_check_pool shared
ok tpstatus --noheadings -o vol_name shared
for v in $(cat made); do grep -qw "$v" out || fail "volume $v was made but is gone"; done
[ "$(grep -c . out)" = "$(grep -c . made)" ] || fail "volumes: $(cat out) but made: $(cat made)"

# another holder of the device's lock: the writer waits briefly, then
# names the device (a reader does not wait)
exec 9<d.img
flock -x 9
unchanged 5 tvcreate -V 4M -n late shared
err_has "d.img is in use by another tptools command"
ok tpstatus shared
exec 9<&-
ok tvcreate -V 4M -n late shared
ok tpremove -y shared
