#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dm-integrity under the legs of mirrored thin metadata on the real kernel
# (issue 38; tpcreate(8) --meta-integrity, tpcheck(8) --scrub, tpstatus(8)
# pool_meta_integrity, pool_meta_mismatches). The legs are dm linear
# devices over their own disks (so one can be swapped for dm-error):
#  - tpactivate makes each leg an integrity target over its area with its
#    own metadata region; the kernel formats the new integrity superblocks
#    and computes every tag (tpstatus: computing, then on);
#  - offline writers (tvcreate, tvsnap, tvremove) keep the tags: after
#    activation the kernel's scrub (tpcheck --scrub) finds no mismatch on
#    either leg (tags tptools wrote match the kernel's own);
#  - a bit flipped in every block of the first MiB of leg A's active area
#    on its disk, then fio writes with verify while tpcheck --scrub has the
#    kernel read both legs: the pool keeps running read-write, the flips
#    are corrected (exit 1, bad reads counted on leg 0: a read of several
#    blocks is one), a second scrub is clean (nothing corrected, nothing
#    different between the legs), tpstatus and the
#    Prometheus output show the mismatches; then the same on leg B; fio
#    verifies;
#  - deactivated, tpcheck is clean and the legs' active areas are equal;
#  - the areas grown offline (tpextend --metadata-size): activated, the
#    kernel formats the integrity metadata anew and computes every tag;
#    the scrub finds nothing, fio's data verifies, a live change works;
#  - leg B becomes dm-error while fio writes: the pool runs on, tpstatus
#    (table, JSON, Prometheus) reports the mirror degraded instead of
#    failing, tpcheck --scrub refuses (exit 5: nothing to compare).
. "$TP_SRC/test/vm/lib.sh"
vm_begin -n 3 -e -k dm-raid -o raid1 -k dm-integrity -o crc32c_generic
command -v fio >/dev/null || skip_scenario "no fio"
command -v python3 >/dev/null || skip_scenario "no python3"

fio_job() {	# NAME SIZE write|verify OUT
	local how=--do_verify=1
	[ "$3" = verify ] && how=--verify_only
	fio --name="$1" --filename=/dev/mapper/mi-v --rw=randwrite --bs=64k --size="$2" \
		--direct=1 --ioengine=psync --eta=never --verify=crc32c "$how" --output="$4"
}
leg() {	# NAME DISK: a dm linear device over the whole DISK
	must dmsetup create "$1" --table "0 $(blockdev --getsz "$2") linear $2 0"
}
field() { tpstatus --noheadings -o "$1" mi | awk 'NF { print $1; exit }'; }
# integrity_ready: until both legs' tags are computed (status "M P -" or recalc = P)
integrity_ready() {
	local i l st
	for ((i = 0; i < 600; i++)); do
		st=ok
		for l in 0 1; do
			set -- $(dmsetup status "mi-tmeta-leg$l")
			# "0 LEN integrity MISMATCHES PROVIDED RECALC"
			[ "$6" = - ] || [ "$6" = "$5" ] || st=busy
		done
		[ $st = ok ] && return 0
		sleep 1
	done
	note_fail "the legs' tags were never computed: $(dmsetup status mi-tmeta-leg0)"
	return 1
}
wait_synced() {
	local i st
	for ((i = 0; i < 600; i++)); do
		set -- $(dmsetup status mi-tmeta)
		[ "$6" = AA ] && [ "${7%/*}" = "${7#*/}" ] && [ "$8" = idle ] && return 0
		sleep 1
	done
	note_fail "the raid1 never came in sync: $(dmsetup status mi-tmeta)"
	return 1
}
# flip DISK OFFSET NBLOCKS: one bit flipped in each 4 KiB block from OFFSET
flip() {
	must python3 - "$1" "$2" "$3" <<'EOF'
import mmap, os, sys
path, off, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fd = os.open(path, os.O_RDWR | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
for i in range(n):
    os.preadv(fd, [buf], off + i * 4096)
    buf[100 + i % 3000] ^= 1 << (i % 8)
    os.pwritev(fd, [buf], off + i * 4096)
os.close(fd)
EOF
}
# scrub: tpcheck --scrub mi; RC, C0 and C1 its exit status and the bad
# reads corrected on each leg (no process substitution: the guest has no
# /dev/fd)
scrub() {
	rc=0
	tpcheck --scrub --json mi >scrub.json 2>scrub.err || rc=$?
	cat scrub.json scrub.err
	python3 -c 'import json; s = json.load(open("scrub.json")).get("scrub", {}); print(*s.get("rewritten", ["-", "-"]))' >scrub.txt
	read -r c0 c1 <scrub.txt
}

step "the pool on legs mlegA, mlegB with integrity (the default); offline changes first"
leg mlegA "${disks[1]}"
leg mlegB "${disks[2]}"
must tpcreate --data "${disks[0]}" --meta /dev/mapper/mlegA,/dev/mapper/mlegB --chunk 64k \
	--zero n --metadata-size 16M mi
expect_eq "integrity offline" "$(field pool_meta_integrity)" on
must tvcreate -V 256M -n v mi
must tvcreate -V 64M -n w mi
must tvsnap mi/w -n w1

step "activated: integrity targets under the raid1, the kernel computes the tags"
must tpactivate mi
dmsetup table | grep mi-tmeta | sort
expect_eq "leg 0 target" "$(dmsetup table mi-tmeta-leg0 | awk '{ print $3 }')" integrity
expect_eq "leg 1 target" "$(dmsetup table mi-tmeta-leg1 | awk '{ print $3 }')" integrity
expect_eq "tmeta target" "$(dmsetup table mi-tmeta | awk '{ print $3, $4 }')" "raid raid1"
wait_synced
integrity_ready
dmsetup status | grep mi-tmeta | sort
expect_eq "integrity live" "$(field pool_meta_integrity)" on
scrub
expect_eq "first scrub: exit, corrected on leg 0, leg 1" "$rc $c0 $c1" "0 0 0"

step "deactivated: offline writers keep the tags; activated again, the scrub finds none bad"
must tpdeactivate mi
must tvcreate -V 64M -n x mi
must tvsnap mi/x -n x1
must tvsnap mi/v -n v1
must tvremove -y mi/w1
must tvrename mi/x1 x2
must tpactivate mi
wait_synced
integrity_ready
dmsetup status | grep mi-tmeta | sort
scrub
expect_eq "scrub after offline changes: exit, corrected on leg 0, leg 1" "$rc $c0 $c1" "0 0 0"
expect_eq "mismatches after offline changes" "$(field pool_meta_mismatches)" 0

# flips_under_fio LEG DISK OFFSET N: with the pool idle long enough for
# dm-integrity's bitmap to be clean (a block written in the last second is
# not checked), a bit flipped in N blocks of LEG's area on DISK; then fio
# writes and verifies while tpcheck --scrub has the kernel read both legs:
# the flips are corrected from the other leg (a flipped block that fio's
# metadata writes reached first is simply rewritten), the pool stays
# read-write, nothing differs; a second scrub is clean
flips_under_fio() {
	local l=$1 other=$((1 - $1)) want=$4 job=fio-$1
	sleep 3
	flip "$2" "$3" "$4"
	fio_job "$job" 64M write "$job.out" &
	fpid=$!
	sleep 1
	scrub
	echo "scrub: rc $rc, corrected $c0 on leg 0, $c1 on leg 1"
	expect_eq "scrub after the flips on leg $l: exit" "$rc" 1
	eval "mine=\$c$l theirs=\$c$other"
	[ "${mine:-0}" -ge 1 ] && [ "${mine:-0}" -le "$want" ] ||
		note_fail "the scrub corrected $mine bad reads on leg $l, not 1..$want"
	expect_eq "nothing corrected on leg $other" "$theirs" 0
	expect_eq "pool still read-write" "$(field pool_mode)" rw
	expect_eq "health" "$(field pool_meta_health)" mirrored
	[ "$(field pool_meta_mismatches)" -ge "$mine" ] ||
		note_fail "tpstatus: $(field pool_meta_mismatches) mismatches, the scrub said $mine"
	must tpstatus --format prometheus mi >prom.out
	grep "integrity_mismatches{pool=\"mi\",leg=\"$l\"}" prom.out ||
		note_fail "no Prometheus mismatches of leg $l"
	wait $fpid || note_fail "fio while leg $l was corrected: exit $?"
	grep -E "err=" "$job.out" || true
	scrub
	expect_eq "a second scrub: exit, corrected" "$rc $c0 $c1" "0 0 0"
	expect_eq "nothing differs between the legs after the correction" \
		"$(python3 -c 'import json; print(json.load(open("scrub.json"))["scrub"]["different"])')" 0
}

read -r off len <<<"$(tpstatus --noheadings --units b -o pool_meta_offset,pool_meta_length mi | awk 'NF == 2 { sub(/b$/, "", $1); sub(/b$/, "", $2); print }')"
step "a bit flipped in 256 blocks of leg A's active area; fio and the scrub"
flips_under_fio 0 "${disks[1]}" "$off" 256
step "the same on leg B, 64 blocks further on"
flips_under_fio 1 "${disks[2]}" $((off + 64 * 4096)) 64
check fio_job fio-1 64M verify fio2.out
expect_eq "pool read-write after both" "$(field pool_mode)" rw

step "deactivated: clean, the legs equal"
must tpdeactivate mi
check tpcheck mi
areas_equal /dev/mapper/mlegA /dev/mapper/mlegB "$off" "$len" "after the corrections"

step "grown offline (tpextend --metadata-size): the kernel formats the integrity metadata anew"
must tpextend --metadata-size 32M mi
expect_eq "area grown" "$(tpstatus --noheadings --units b -o pool_meta_length mi | awk 'NF { sub(/b$/, "", $1); print $1; exit }')" 33554432
must tpactivate mi
wait_synced
integrity_ready
dmsetup status | grep mi-tmeta | sort
scrub
expect_eq "scrub after the growth: exit, corrected on leg 0, leg 1" "$rc $c0 $c1" "0 0 0"
expect_eq "mismatches after the growth" "$(field pool_meta_mismatches)" 0
check fio_job fio-1 64M verify fio5.out
must tvcreate -V 64M -n grown mi
must tpdeactivate mi
check tpcheck mi
read -r off len <<<"$(tpstatus --noheadings --units b -o pool_meta_offset,pool_meta_length mi | awk 'NF == 2 { sub(/b$/, "", $1); sub(/b$/, "", $2); print }')"
areas_equal /dev/mapper/mlegA /dev/mapper/mlegB "$off" "$len" "after the growth"

step "leg B becomes dm-error under fio: the pool runs on, the reports say degraded"
must tpactivate mi
wait_synced
fio_job two 32M write fio3.out &
fpid=$!
sleep 2
must dmsetup load mlegB --table "0 $(blockdev --getsz "${disks[2]}") error"
must dmsetup suspend mlegB
must dmsetup resume mlegB
wait $fpid || note_fail "fio with a failed metadata leg: exit $?"
sync
must dmsetup message mi-tpool 0 reserve_metadata_snap
must dmsetup message mi-tpool 0 release_metadata_snap
dmsetup status mi-tmeta
check tpstatus mi
check tpstatus --json mi
check tpstatus --format prometheus mi
expect_eq "health with leg B failed" "$(field pool_meta_health)" degraded
tpcheck --scrub mi
rc=$?
expect_eq "tpcheck --scrub with a failed leg" "$rc" 5
check fio_job two 32M verify fio4.out
must tpdeactivate mi
dmsetup remove mlegB || true
dmsetup remove mlegA || true
finish
