#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# vm-timeout: 900
# Power cuts on the live path (issue 12), inside one boot: the pool's
# metadata and data devices are two linear slices of one dm-log-writes device,
# so every write the kernel and tptools make reaches the log in the order it
# became stable, with flush/FUA and our own marks in between. While
# tp-crashwriter writes fsync'd, verifiable blocks to three thin volumes and
# live tvcreate/tvsnap/tvremove run, the log records all; then the disk is
# rebuilt at FAULT_CYCLES chosen points (flushes, FUA writes, marks and
# arbitrary entries: each a state a power cut could leave; marks c-NAME after
# a command created NAME, b-NAME/r-NAME before/after one removed it) and each state
# must recover: tpcheck clean or repaired by tprepair, tpactivate works, the
# VG and the kernel agree on the transaction id, every round fsync'd before
# the cut reads back exactly, the newest snapshot holds only valid blocks, no
# volume whose command had finished is lost and none removed comes back, and
# after deactivation tpcheck is clean (no orphan, nothing left half done).
#
# Knobs (environment, passed by run.sh): FAULT_CYCLES (default 12),
# FAULT_SEED (default: from the clock, printed), FAULT_ROUNDS (writer rounds,
# default 24).
. "$TP_SRC/test/vm/lib.sh"
vm_begin -n 4 -k dm-log-writes -e
BASE=${disks[0]} LOG=${disks[1]} REPLAY=${disks[2]} SCRATCH=${disks[3]}

CYCLES=${FAULT_CYCLES:-12}
SEED=${FAULT_SEED:-$(($(date +%s%N) % 1000000007))}
ROUNDS=${FAULT_ROUNDS:-24}
PER=6			# blocks per volume and round
RANDOM=$SEED
echo "s-powercut: seed $SEED (FAULT_SEED=$SEED draws the same blocks and cut points), $CYCLES cycles, $ROUNDS rounds"

# layout of the base device, in sectors: 1 MiB gap (no label at the disk's
# own sector 1), 8 MiB metadata device, 64 MiB data device
HDR=2048 META=16384 DATA=131072
MIB=$(((HDR + META + DATA) / 2048))
slices() { # DEV: the pool's two devices on DEV
	must dmsetup create cut-meta --table "0 $META linear $1 $HDR"
	must dmsetup create cut-data --table "0 $DATA linear $1 $((HDR + META))"
}
mark() { dmsetup message cut-log 0 mark "$1" || note_fail "mark $1"; }

step "pool on dm-log-writes (metadata and data devices sliced from one logged device)"
must dd if=/dev/zero of="$BASE" bs=1M count=$MIB oflag=direct status=none
must dd if=/dev/zero of="$REPLAY" bs=1M count=$MIB oflag=direct status=none
must dmsetup create cut-log --table "0 $(blockdev --getsz "$BASE") log-writes $BASE $LOG"
mark start
must dmsetup create cut-meta --table "0 $META linear /dev/mapper/cut-log $HDR"
must dmsetup create cut-data --table "0 $DATA linear /dev/mapper/cut-log $((HDR + META))"
vm_live_pool pc /dev/mapper/cut-data /dev/mapper/cut-meta 4M "v0 v1 v2" --chunk 64K --zero y \
	--yes
vols=(/dev/mapper/pc-v0 /dev/mapper/pc-v1 /dev/mapper/pc-v2)
mark ready

step "writer ($ROUNDS rounds x $PER blocks x 3 volumes, fsync'd, marked) and live changes"
printf '#!/bin/sh\nexec dmsetup message cut-log 0 mark "r$1"\n' >markr
chmod +x markr
tp-crashwriter write "$SEED" 1 "$ROUNDS" $PER ./markr \
	"${vols[@]}" >writer.out 2>&1 &
wpid=$!
ops=0
i=0
while kill -0 $wpid 2>/dev/null; do
	i=$((i + 1))
	tvcreate -V 1M -n t$i pc >/dev/null && mark c-t$i || note_fail "live tvcreate t$i"
	tvsnap pc/v0 -n s$i >/dev/null && mark c-s$i || note_fail "live tvsnap s$i"
	ops=$((ops + 2))
	if [ $i -gt 2 ]; then
		j=$((i - 2))
		mark b-t$j
		tvremove -y pc/t$j >/dev/null && mark r-t$j || note_fail "live tvremove t$j"
		mark b-s$j
		tvremove -y pc/s$j >/dev/null && mark r-s$j || note_fail "live tvremove s$j"
		ops=$((ops + 2))
	fi
done
wait $wpid || { cat writer.out; fail "the writer failed without any fault"; }
echo "writer: $(tail -1 writer.out); $ops live changes"
mark end
must tpdeactivate pc >/dev/null
must dmsetup remove cut-meta
must dmsetup remove cut-data
must dmsetup remove cut-log
blockdev --flushbufs "$LOG"
must tp-logreplay "$LOG" list >log.lst
read -r _ nr _ unit <log.lst
ready=$(awk '$3 == "ready" { print $1 }' log.lst)
grep -q ' end$' log.lst || fail "the log is incomplete (log device full?)"
echo "log: $nr entries of $unit-byte units, $(grep -c ' F' log.lst) flushes, \
$(grep -c 'U' log.lst) FUA, $(grep -c ' M' log.lst) marks; cuts after entry $ready"

# the cut points, all different: half at flush/FUA/mark entries, half
# anywhere; in log order
# (files, not <(...): the guest has no /dev/fd)
awk -v r="$ready" 'NR > 1 && $1 > r { print $1 }' log.lst >sync.lst
mapfile -t sync_pts <sync.lst
[ ${#sync_pts[@]} -gt 0 ] && [ "$nr" -gt $((ready + 1)) ] || fail "nothing logged after the pool was ready"
declare -A picked=()
for ((c = 0; ${#picked[@]} < CYCLES && c < 20 * CYCLES; c++)); do
	if ((c % 2 == 0)); then
		picked[${sync_pts[RANDOM % ${#sync_pts[@]}]}]=1
	else
		picked[$((ready + 1 + (RANDOM * 32768 + RANDOM) % (nr - ready - 1)))]=1
	fi
done
printf '%s\n' "${!picked[@]}" | sort -n >points.lst
mapfile -t points <points.lst

# names of marks at or before entry $1 matching $2 (awk regex)
marks_upto() { awk -v p="$1" -v re="$2" 'NR > 1 && $1 <= p && $2 ~ /M/ && $3 ~ re { print $3 }' log.lst; }

cycle_fail=0 repaired=0 interrupted=0 cyc=0 prev=-1
check_cut() { # POINT
	local p=$1 synced vols_now v rc rc0 vtid vtid_after snaps=() f0=$VM_FAILS t=()
	t+=($(now))
	synced=$(marks_upto "$p" '^r[0-9]+$' | tail -1)
	synced=${synced#r}
	synced=${synced:-0}
	tpcheck pc >check.out 2>&1
	rc0=$?
	rc=$rc0
	# leaked blocks are what the kernel leaves when a commit catches a
	# chunk allocated but not yet mapped; tprepair is the documented cure
	if [ $rc -ge 2 ] || grep -q 'leaked' check.out; then
		echo "cut $p: tpcheck exit $rc; tprepair"
		sed 's/^/  /' check.out
		repaired=$((repaired + 1))
		check tprepair pc
		tpcheck pc >check.out 2>&1
		rc=$?
		[ $rc -le 1 ] || { note_fail "cut $p: tpcheck exit $rc after tprepair"; sed 's/^/  /' check.out; }
	fi
	grep -qi interrupted check.out && interrupted=$((interrupted + 1))
	t+=($(now))
	# what the VG says; activation completes an interrupted change to it
	tpstatus --noheadings -o pool_transaction_id,vol_name pc >st.out || note_fail "cut $p: tpstatus"
	vtid=$(awk 'NF { print $1; exit }' st.out)
	vols_now=" $(awk 'NF && n++ { printf "%s ", $1 }' st.out)"
	if ! tpactivate pc $vols_now >act.out 2>&1; then
		note_fail "cut $p: tpactivate failed"
		sed 's/^/  /' check.out act.out
		return
	fi
	t+=($(now))
	# activation may add a transaction of its own: it finishes a removal
	# the cut left under way (tvremove(8)); the kernel and the VG agree
	# after it, and neither went back
	vtid_after=$(tpstatus --noheadings -o pool_transaction_id pc | awk 'NF { print $1; exit }')
	expect_eq "cut $p: kernel transaction id = VG's" \
		"$(dmsetup status pc-tpool | awk '{ print $4 }')" "$vtid_after"
	[ "${vtid_after:-0}" -ge "${vtid:-0}" ] ||
		note_fail "cut $p: the VG's transaction id went back from $vtid to $vtid_after"
	# created before the cut and not being removed: must be there
	for v in $(marks_upto "$p" '^c-' | sed 's/^c-//'); do
		[ -n "$(marks_upto "$p" "^b-$v\$")" ] && continue
		case $vols_now in *" $v "*) ;; *) note_fail "cut $p: volume $v (created before the cut) lost" ;; esac
	done
	for v in $vols_now; do
		[ -n "$(marks_upto "$p" "^r-$v\$")" ] && note_fail "cut $p: volume $v (removed before the cut) is back"
		[ -b "/dev/mapper/pc-$v" ] || note_fail "cut $p: volume $v has no device"
		case $v in s*) snaps=("0:/dev/mapper/pc-$v") ;; esac	# the newest
	done
	tp-crashwriter verify "$SEED" "$synced" "$ROUNDS" $PER "${vols[@]}" >verify.out ||
		note_fail "cut $p: data of rounds fsync'd up to $synced"
	if [ ${#snaps[@]} -gt 0 ]; then
		tp-crashwriter verify "$SEED" 0 "$ROUNDS" $PER "${snaps[@]}" >>verify.out ||
			note_fail "cut $p: snapshot contents"
	fi
	[ $VM_FAILS -gt $f0 ] && sed 's/^/  /' verify.out
	t+=($(now))
	tpdeactivate pc >/dev/null || note_fail "cut $p: tpdeactivate"
	tpcheck pc >check.out 2>&1
	rc=$?
	[ $rc = 0 ] || { note_fail "cut $p: tpcheck exit $rc after recovery"; sed 's/^/  /' check.out; }
	t+=($(now))
	echo "cut $p: tpcheck exit $rc0 at first, tid $vtid, fsync'd round $synced verified," \
		"$(echo $vols_now | wc -w) volumes, clean after$([ $VM_FAILS -gt $f0 ] && echo ' -- FAILED')" \
		"($(awk -v a="${t[0]}" -v b="${t[1]}" -v c="${t[2]}" -v d="${t[3]}" -v e="${t[4]}" \
		'BEGIN { printf "check %.1fs, activate %.1fs, verify %.1fs, deactivate+check %.1fs", b - a, c - b, d - c, e - d }'))"
	[ $VM_FAILS -gt $f0 ] && cycle_fail=$((cycle_fail + 1))
}

# each state is checked on a throw-away copy: a dm snapshot of the replayed
# disk (writes go to the scratch disk), or a full copy without dm-snapshot
snap=1
vm_modprobe dm-snapshot 2>/dev/null || snap=0
step "cuts at ${#points[@]} points (seed $SEED)"
for p in "${points[@]}"; do
	must tp-logreplay "$LOG" replay "$REPLAY" $((prev + 1)) "$p"
	prev=$p
	if [ $snap = 1 ]; then
		must dmsetup create cut-snap --table "0 $(blockdev --getsz "$REPLAY") snapshot $REPLAY $SCRATCH N 8"
		slices /dev/mapper/cut-snap
	else
		must dd if="$REPLAY" of="$SCRATCH" bs=1M count=$MIB oflag=direct status=none
		slices "$SCRATCH"
	fi
	cyc=$((cyc + 1))
	check_cut "$p"
	dmsetup remove cut-meta && dmsetup remove cut-data || fail "cannot remove the slices"
	[ $snap = 0 ] || dmsetup remove cut-snap || fail "cannot remove the snapshot"
done
[ $cyc -ge "$CYCLES" ] || note_fail "only $cyc of $CYCLES cycles: the log has too few entries"
echo "s-powercut: seed $SEED: $cyc cycles run, $cycle_fail failed, $repaired repaired," \
	"$interrupted interrupted transactions completed; $ops live changes, $ROUNDS writer rounds"
finish
