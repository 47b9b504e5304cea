#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Send and receive between two ACTIVE pools on the real kernel (issue 15):
# ext4 on a volume, files written, read-only snapshot s1 sent in full from
# the live pool to a second live pool, more writes, snapshot s2 sent as
# changes; the received s2 mounts with the source's checksums. Live
# tpsend --format raw of s2 equals dd of the activated snapshot and the
# offline export. Into the live receiving pool, a corrupt stream, a
# truncated one, one on a base it lacks, one larger than its free space,
# one that fitted until another volume filled the pool, and a receive
# stopped by SIGTERM all exit non-zero and leave it as it was (volumes,
# thin ids, the kernel's transaction id and data use, no temporary
# device); a SIGKILLed receive's temporary device and thin id are
# reported by the next reader and removed by the next writer. A paused
# live send lets tvcreate run but refuses tvremove of its base and
# thawing its volume. Offline at
# the end: tpcheck and thin_check find the pool clean. The live
# incremental send's rate is printed next to dd's over the same amount of
# data (reported, not asserted).
. "$TP_SRC/test/vm/lib.sh"
vm_begin -n 5 -e -d mnt -d img -o loop -k ext4

ids() { tpstatus --noheadings -o vol_name,vol_dev_id "$1" | awk 'NF == 2' | sort; }
# the receiving pool as the kernel and the VG see it
state() {
	ids bak
	dmsetup status bak-tpool | awk '{ print "tid", $4, "data", $6, "held", $7 }'
	dmsetup ls | awk '/tprecv/ { print "temporary", $1 }'
	dmsetup ls | awk '$1 ~ /^bak-/ { print $1 }' | sort
}
sums() { (cd "$1" && md5sum a b ${3:+c}) | sed "s/^/$2 /"; }

step "two active pools; ext4 with files on snp/www; read-only snapshot s1"
vm_live_pool snp "${disks[0]}" "${disks[1]}" 64M www --chunk 64k
vm_live_pool bak "${disks[2]}" "${disks[3]}" - "" --chunk 64k
must mkfs.ext4 -q -F /dev/mapper/snp-www
must mount /dev/mapper/snp-www mnt
must dd if=/dev/urandom of=mnt/a bs=1M count=6 status=none
must dd if=/dev/urandom of=mnt/b bs=1M count=3 status=none
sync
want1=$(sums mnt s1)
must tvsnap --readonly snp/www -n s1

step "full live send of s1 into the live pool bak"
tpsend snp/s1 | tprecv bak || note_fail "live tpsend | tprecv"
expect_eq "no held metadata snapshot (snp)" "$(dmsetup status snp-tpool | awk '{ print $7 }')" "-"
expect_eq "no temporary device" "$(dmsetup ls | grep -c tprecv)" 0
expect_eq "received s1 is loaded read-only" "$(blockdev --getro /dev/mapper/bak-s1)" 1
must mount -o ro,noload /dev/mapper/bak-s1 img
expect_eq "received s1's files" "$(sums img s1)" "$want1"
must umount img

step "more writes, snapshot s2; live raw export equals dd of the activated snapshot"
must dd if=/dev/urandom of=mnt/a bs=1M count=1 seek=2 conv=notrunc status=none
must dd if=/dev/urandom of=mnt/c bs=1M count=16 status=none
sync
want2=$(sums mnt s2 c)
must tvsnap --readonly snp/www -n s2
must tpsend --format raw -o s2.live.img snp/s2
must tpactivate snp s2
must dd if=/dev/mapper/snp-s2 of=s2.dd.img bs=1M iflag=direct status=none
check cmp s2.live.img s2.dd.img
rm -f s2.dd.img
must tpdeactivate snp s2
not tpsend --format raw -o www.img snp/www	# writable and live: refused

step "incremental live send s1 -> s2 (rate against dd of as many bytes)"
t0=$(now)
must tpsend --from s2 -o /dev/null snp/s2	# nothing to send: the commands' own cost
t1=$(now)
must tpsend --from s1 -o inc.stream snp/s2
t2=$(now)
bytes=$(stat -c %s inc.stream)
count=$(( (bytes + 4194303) / 4194304 ))
must dd if="${disks[0]}" of=/dev/null bs=4M count=$count iflag=direct status=none
t3=$(now)
awk -v b="$bytes" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v t3="$t3" -v c="$count" 'BEGIN {
	e = t1 - t0; s = t2 - t1; d = t3 - t2; if (s <= e) s = e + 0.01; if (d <= 0) d = 0.01
	printf "FIGURE live incremental tpsend: %.1f MiB in %.2f s (%.2f s of it an empty send) = %.1f MiB/s net; dd iflag=direct of %d MiB of the data device: %.2f s = %.1f MiB/s\n", b / 1048576, s, e, b / 1048576 / (s - e), c * 4, d, c * 4 / d }'
must tprecv -i inc.stream bak
expect_eq "received s2 is loaded read-only" "$(blockdev --getro /dev/mapper/bak-s2)" 1
must mount -o ro,noload /dev/mapper/bak-s2 img
expect_eq "received s2's files" "$(sums img s2 c)" "$want2"
must umount img

step "a live send holds its volumes, not the pool: writers go on, removing them is refused"
rm -f pause
TP_TEST_PAUSE=send-data TP_TEST_PAUSE_FILE=$PWD/pause tpsend --from s1 -o held.stream snp/s2 &
pid=$!
wait_file pause "$pid" || note_fail "tpsend never reached send-data"
timeout 60 tvcreate -V 4M -n during snp || note_fail "tvcreate during a send"
tvremove -y snp/s1 2>rm.err; expect_eq "tvremove of the base being sent: exit" "$?" 5
cat rm.err
grep -q "being read by tpsend" rm.err || note_fail "no 'being read by tpsend' message"
tvchange --readonly n snp/s2 2>thaw.err; expect_eq "thawing the volume being sent: exit" "$?" 5
cat thaw.err
grep -q "being read by tpsend" thaw.err || note_fail "no 'being read by tpsend' message"
rm -f pause
wait "$pid" || note_fail "the held send failed"
check cmp held.stream inc.stream
must tvremove -y snp/during

step "into the live pool: corrupt, truncated, wrong base, too large: exit 5, bak as it was"
must dd if=/dev/urandom of=mnt/b bs=64K count=2 conv=notrunc status=none
sync
want3=$(sums mnt s3 c)
must tvsnap --readonly snp/www -n s3
must tvsnap --readonly snp/www -n s4
must tpsend --from s2 -o small.stream snp/s3
must tpsend --from s4 -o nobase.stream snp/s3
before=$(state)
echo "$before"
cp small.stream bad.stream
pos=$(( $(stat -c %s bad.stream) / 2 ))
byte=$(od -An -tu1 -j "$pos" -N1 bad.stream | tr -d ' ')
printf "$(printf '\\%03o' $(( 255 - byte )))" | dd of=bad.stream bs=1 seek="$pos" conv=notrunc status=none
tprecv -i bad.stream bak; expect_eq "corrupt stream: exit" "$?" 5
head -c $(( $(stat -c %s small.stream) - 100 )) small.stream >short.stream
tprecv -i short.stream bak; expect_eq "truncated stream: exit" "$?" 5
tprecv -i nobase.stream bak; expect_eq "stream on a base bak lacks: exit" "$?" 5
expect_eq "bak unchanged" "$(state)" "$before"
truncate -s 8M tiny.img
tiny=$(losetup -f --show tiny.img) || fail "losetup"
vm_live_pool tiny "$tiny" "${disks[4]}" - "" --chunk 64k
tiny_before=$(dmsetup status tiny-tpool)
tpsend snp/s1 | tprecv tiny 2>full.err
rc=${PIPESTATUS[1]}
cat full.err
expect_eq "a stream larger than the live pool's free space: exit" "$rc" 5
grep -q "free data space" full.err || note_fail "no free-space message"
expect_eq "tiny unchanged" "$(dmsetup status tiny-tpool)" "$tiny_before"
expect_eq "no temporary device" "$(dmsetup ls | grep -c tprecv)" 0

step "the live pool fills while a receive that fitted is under way: exit 5, no volume"
must tvcreate -V 4M -n little snp
must dd if=/dev/urandom of=/dev/mapper/snp-little bs=1M count=2 oflag=direct status=none
must tvsnap --readonly snp/little -n l1
must tpsend -o l1.stream snp/l1
must tpchange --when-full error tiny
must tvcreate -V 16M -n filler tiny
rm -f pause
TP_TEST_PAUSE=recv-thin-made TP_TEST_PAUSE_FILE=$PWD/pause tprecv -i l1.stream tiny 2>fill.err &
pid=$!
wait_file pause "$pid" || note_fail "tprecv never reached recv-thin-made"
dd if=/dev/urandom of=/dev/mapper/tiny-filler bs=64K oflag=direct status=none 2>/dev/null
dmsetup status tiny-tpool
rm -f pause
wait "$pid"; rc=$?
cat fill.err
expect_eq "filled meanwhile: exit" "$rc" 5
grep -q "free data space" fill.err || note_fail "no free-space message"
grep -q "the receive of l1 stopped at" fill.err || note_fail "no line saying the receive is kept"
expect_eq "tiny's volumes" "$(ids tiny | awk '{ print $1 }')" "filler"
expect_eq "no temporary device" "$(dmsetup ls | grep -c tprecv)" 0
must tpdeactivate tiny
must tpremove -y tiny
losetup -d "$tiny"

# bak's volumes and devices, without the transaction id (a cut receive's
# first change and its --abort each move it)
no_tid() { state | sed 's/^tid [0-9]* //'; }
before=$(no_tid)

step "a live receive stopped by SIGTERM: exit 143, one line, no volume; --abort drops it"
rm -f pause
TP_TEST_PAUSE=recv-record=1 TP_TEST_PAUSE_FILE=$PWD/pause \
	env --default-signal=INT,TERM,HUP tprecv -i small.stream bak 2>term.err &
pid=$!
wait_file pause "$pid" || note_fail "tprecv never reached its first record"
dmsetup ls | grep tprecv || note_fail "no temporary device while receiving"
kill -TERM "$pid"
rm -f pause
wait "$pid"; rc=$?
cat term.err
expect_eq "SIGTERM: exit" "$rc" 143
expect_eq "one error line" "$(grep -c 'error:' term.err)" 1
grep -q "was stopped by a signal" term.err || note_fail "no line saying what is kept"
expect_eq "no temporary device after SIGTERM" "$(dmsetup ls | grep -c tprecv)" 0
ids bak | grep -q '^s3 ' && note_fail "a stopped receive became a volume"
tpstatus bak >/dev/null 2>reader.err
grep -q "the receive of s3 is unfinished" reader.err || note_fail "tpstatus does not name the cut receive"
must tprecv --abort s3 bak
expect_eq "bak as before, the receive dropped" "$(no_tid)" "$before"

step "a SIGKILLed live receive: the next writer removes its device, --resume finishes it"
rm -f pause
TP_TEST_PAUSE=recv-record=1 TP_TEST_PAUSE_FILE=$PWD/pause tprecv -i small.stream bak &
pid=$!
wait_file pause "$pid" || note_fail "tprecv never reached its first record"
kill -KILL "$pid"
wait "$pid"
rm -f pause
dmsetup ls | grep tprecv || note_fail "no temporary device left by the killed tprecv"
tpstatus bak >/dev/null 2>reader.err
cat reader.err
grep -q "interrupted tprecv" reader.err || note_fail "tpstatus does not report the leftover"
must tvcreate -V 4M -n other bak 2>writer.err
cat writer.err
grep -q "removed bak-tprecv:.*, left by an interrupted tprecv" writer.err ||
	note_fail "the next writer did not remove the temporary device"
grep -q "and its thin device" writer.err && note_fail "the next writer deleted the unfinished receive"
ids bak | grep -q '^s3 ' && note_fail "a killed receive became a volume"
must tvremove -y bak/other
must tprecv --resume -i small.stream bak
must mount -o ro,noload /dev/mapper/bak-s3 img
expect_eq "received s3's files" "$(sums img s3 c)" "$want3"
must umount img
before_cut=$(no_tid)

step "a power cut during a live receive: tpcheck is clean, the receive unfinished; --abort"
rm -f pause
TP_TEST_PAUSE=recv-thin-made TP_TEST_PAUSE_FILE=$PWD/pause tprecv -i l1.stream -n cut bak &
pid=$!
wait_file pause "$pid" || note_fail "tprecv never reached recv-thin-made"
kill -KILL "$pid"
wait "$pid"
rm -f pause
# the reboot loses the temporary device; the kernel committed the thin device
temp=$(dmsetup ls | awk '/tprecv/ { print $1 }')
[ -n "$temp" ] || note_fail "no temporary device left by the killed tprecv"
must dmsetup remove "$temp"
must tpdeactivate bak
rc=0; tpcheck bak >check.out 2>&1 || rc=$?
cat check.out
expect_eq "tpcheck after the cut receive: exit" "$rc" 0
tpstatus bak >/dev/null 2>reader.err
grep -q "the receive of cut is unfinished" reader.err || note_fail "tpstatus does not name the cut receive"
must tprecv --abort cut bak
must tpactivate bak
expect_eq "bak as before the cut receive" "$(no_tid)" "$before_cut"

step "offline: raw export equals the live one; bak passes tpcheck and thin_check"
must umount mnt
must tpdeactivate snp
must tpsend --format raw -o s2.off.img snp/s2
check cmp s2.live.img s2.off.img
must tpdeactivate bak
check tpcheck bak
read -r off len <<<"$(tpstatus --noheadings --units b -o pool_meta_offset,pool_meta_length bak | awk 'NF == 2 { sub(/b$/, "", $1); sub(/b$/, "", $2); print }')"
dd if="${disks[3]}" of=area.img bs=1M iflag=skip_bytes,count_bytes skip="$off" count="$len" status=none
loopdev=$(losetup -f --show area.img) || fail "losetup"
check thin_check "$loopdev"
losetup -d "$loopdev"
must tpremove -y bak
must tpremove -y snp
finish
