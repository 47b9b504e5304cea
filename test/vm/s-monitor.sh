#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tpmonitor and live growth on the real kernel (issue 10): a pool filled by
# fio while tpmonitor runs autoextends from a grown loop device before it
# blocks, fio sees no error and verifies its data; a pool with no room is
# switched to error-when-full and fio gets ENOSPC instead of hanging; a
# metadata area above its threshold is grown; live tpextend after the loop
# device grows (also cut by KILL after its VG commit and by INT after its
# reload, each completed by the next change), live tvresize under fio;
# thin_check clean after each;
# tprename refuses an active pool; what the monitor did is counted in the
# metrics (tpstatus --format prometheus, tpmonitor --textfile); a pool
# stops growing at its --autoextend-max; with no room left it is grown
# onto its --autoextend-device by a live tpextend --data (a device with
# another pool's label and one in use refused first, each said once).
. "$TP_SRC/test/vm/lib.sh"
vm_begin -n 3 -e -o loop
command -v fio >/dev/null || skip_scenario "no fio"

# status POOL FIELDS: tpstatus values in bytes, one line
status() { tpstatus --noheadings --units b -o "$2" "$1" | awk 'NF { $1 = $1; print; exit }'; }
size_of() { status "$1" "$2" | tr -d b; }
mon_start() { local log=$1; shift; tpmonitor --interval 1 "$@" >"$log" 2>&1 & MON=$!; }
# count FILE POOL ACTION: tptools_pool_monitor_actions_total of POOL, ACTION
count() {
	awk -v s="tptools_pool_monitor_actions_total{pool=\"$2\",action=\"$3\"}" \
		'$1 == s { print $2; found = 1 } END { if (!found) print 0 }' "$1"
}
promcheck() { check python3 "$TP_SRC/test/tools/promcheck.py" --strict-families --prefix tptools_ "$1"; }
mon_stop() { kill -TERM "$MON"; check wait "$MON"; }
# check_meta POOL: tpcheck and thin_check of the inactive pool's active area
check_meta() {
	local off len meta loopdev
	check tpcheck "$1"
	read -r off len meta <<<"$(tpstatus --noheadings --units b \
		-o pool_meta_offset,pool_meta_length,pool_meta_dev "$1" | awk 'NF == 3')"
	dd if="$meta" of=area.img bs=1M iflag=skip_bytes,count_bytes skip="$off" count="$len" \
		status=none
	loopdev=$(losetup -f --show area.img) || { note_fail "losetup"; return; }
	check thin_check "$loopdev"
	losetup -d "$loopdev"
	rm -f area.img
}

step "autoextension from a grown loop device while fio fills the pool"
truncate -s 48M data.img
DATA=$(losetup -f --show data.img) || fail "losetup"
must tpcreate --data "$DATA" --meta "${disks[0]}" --chunk 64k --zero n --warn 50 \
	--autoextend-threshold 60 --autoextend-by 50% mon
start_size=$(size_of mon pool_size)
truncate -s 200M data.img
must losetup -c "$DATA"
must tvcreate -V 150M -n v mon
must tpactivate mon
mon_start mon1.log
check timeout 300 fio --name=fill --filename=/dev/mapper/mon-v --rw=write --bs=1M --size=140M \
	--direct=1 --ioengine=psync --eta=never --verify=crc32c --do_verify=1 --output=fio1.out
cat fio1.out | grep -E "err=|WRITE:|READ:" || true
grown=$(size_of mon pool_size)
echo "data area: $start_size -> $grown bytes"
[ "$grown" -gt $((140 << 20)) ] || note_fail "the pool did not grow enough: $grown"
grep -q "autoextended" mon1.log || note_fail "no autoextension logged: $(cat mon1.log)"
grep -q "data is .* full (warn threshold 50%)" mon1.log || note_fail "no warning logged"
[ "$(status mon pool_monitor)" != "-" ] || note_fail "tpstatus shows no monitor action"
uuid=$(status mon pool_uuid)
grep -q "^action " "$TPTOOLS_DIR/run/monitor/$uuid" || note_fail "no monitor state file"
expect_eq "still queueing when full" "$(status mon pool_when_full)" queue
# the monitor would take the room the next step gives tpextend
mon_stop
tpstatus --format prometheus mon >mon.prom || note_fail "tpstatus --format prometheus mon: exit $?"
promcheck mon.prom
[ "$(count mon.prom mon autoextend)" -ge 1 ] || note_fail "no autoextension counted: $(grep actions mon.prom)"
[ "$(count mon.prom mon warning)" -ge 1 ] || note_fail "no warning counted: $(grep actions mon.prom)"
expect_eq "failed autoextensions counted" "$(count mon.prom mon autoextend_failure)" 0

step "live tpextend after the loop device grows, live tvresize under fio"
truncate -s 260M data.img
must losetup -c "$DATA"
must tpextend mon
live=$(size_of mon pool_size)
echo "live tpextend: $grown -> $live bytes"
[ "$live" -gt $((250 << 20)) ] || note_fail "live tpextend: $live"
fio --name=rewrite --filename=/dev/mapper/mon-v --rw=write --bs=1M --size=100M --direct=1 \
	--ioengine=psync --verify=crc32c --do_verify=1 --output=fio2.out &
FIO=$!
must tvresize -V +64M mon/v
check wait "$FIO"
expect_eq "volume size in the kernel" "$(blockdev --getsize64 /dev/mapper/mon-v)" $((214 << 20))
expect_eq "volume size in the VG" \
	"$(tpstatus --noheadings --units b -o vol_name,vol_size mon | awk '$1 == "v" { print $2 }')" \
	"$((214 << 20))b"
check dd if=/dev/mapper/mon-v of=/dev/null bs=1M skip=200 count=14 status=none

step "live tpextend stopped by KILL after its VG commit, and by INT after its reload"
# the kernel's data blocks and the VG's, the transaction ids of both
kstate() { dmsetup status mon-tpool | awk '{ split($6, d, "/"); print d[2], $4 }'; }
vgstate() {
	echo "$(( $(size_of mon pool_size) / 65536 ))" \
		"$(tpstatus --noheadings -o pool_transaction_id mon | awk 'NF { print $1; exit }')"
}
n=0
for cut in after-vg-commit:KILL:137 after-apply:INT:130; do
	IFS=: read -r st sig want <<<"$cut"
	truncate -s $((280 + 20 * n))M data.img
	must losetup -c "$DATA"
	n=$((n + 1))
	rm -f pause
	TP_TEST_PAUSE=$st TP_TEST_PAUSE_FILE=$PWD/pause \
		env --default-signal=INT,TERM,HUP tpextend mon >ext.out 2>ext.err &
	pid=$!
	wait_file pause "$pid" || note_fail "tpextend never reached $st"
	kill "-$sig" "$pid"
	rm -f pause
	rc=0; wait "$pid" || rc=$?
	cat ext.err
	expect_eq "tpextend at $st, $sig: exit" "$rc" "$want"
	# one more change completes what the kill left
	must tvcreate -V 4M -n "probe$n" mon
	read -r kblocks ktid <<<"$(kstate)"
	read -r vblocks vtid <<<"$(vgstate)"
	expect_eq "tpextend at $st, $sig: the kernel's data blocks, the VG's" "$kblocks" "$vblocks"
	expect_eq "tpextend at $st, $sig: transaction ids" "$ktid" "$vtid"
	[ "$vblocks" -gt $(( (260 << 20) / 65536 )) ] || note_fail "tpextend at $st, $sig: not grown ($vblocks)"
	check dd if=/dev/mapper/mon-v of=/dev/null bs=1M skip=200 count=14 status=none
	must tvremove -y "mon/probe$n"
done
must tpdeactivate mon
check_meta mon

step "no room: switched to error-when-full, fio gets ENOSPC, nothing hangs"
truncate -s 40M full.img
FULL=$(losetup -f --show full.img) || fail "losetup"
must tpcreate --data "$FULL" --meta "${disks[1]}" --chunk 64k --zero n \
	--autoextend-threshold 80 full
must tvcreate -V 100M -n v full
must tpactivate full
mkdir -p tf
mon_start mon2.log --textfile tf
timeout 200 fio --name=over --filename=/dev/mapper/full-v --rw=write --bs=1M --size=100M \
	--direct=1 --ioengine=psync --eta=never --output=fio3.out
rc=$?
grep -E "err=|error" fio3.out | head -3
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || note_fail "fio on a full pool: exit $rc (124: it hung)"
grep -q "No space left on device\|err=28" fio3.out || note_fail "fio saw no ENOSPC: $(cat fio3.out)"
grep -q "switched to error-when-full" mon2.log || note_fail "no switch logged: $(cat mon2.log)"
grep -q "no room to grow into" mon2.log || note_fail "no 'no room' warning: $(cat mon2.log)"
expect_eq "when full" "$(status full pool_when_full)" error
dmsetup table full-tpool | grep -q error_if_no_space || note_fail "table without error_if_no_space"
sleep 2	# a look after the switch: the textfile shows it
mon_stop
promcheck tf/tptools.prom
expect_eq "switches to error-when-full counted" "$(count tf/tptools.prom full error_when_full)" 1
[ "$(count tf/tptools.prom full no_room)" -ge 1 ] || note_fail "no 'no room' counted"
grep -qxF 'tptools_pool_error_when_full{pool="full"} 1' tf/tptools.prom ||
	note_fail "the textfile does not show error-when-full"
[ "$(ls -A tf)" = tptools.prom ] || note_fail "left in the textfile's directory: $(ls -A tf)"
# an active pool is not renamed (its dm names carry the name)
not tprename full other 2>rename.err
grep -q "is active" rename.err || note_fail "tprename of an active pool: $(cat rename.err)"
expect_eq "still active" "$(status full pool_active)" yes
# back to queueing, live
must tpchange --when-full queue full
dmsetup table full-tpool | grep -q error_if_no_space && note_fail "still error_if_no_space"
must tpdeactivate full
check_meta full

step "metadata above its threshold: tpmonitor grows the metadata area"
truncate -s 5G meta.img
DATA3=$(losetup -f --show meta.img) || fail "losetup"
must tpcreate --data "$DATA3" --meta "${disks[2]}" --chunk 64k --zero n --metadata-size 2M \
	--autoextend-threshold 50 --autoextend-by 100% md
must tvcreate -V 10G -n v md
# 45000 single-chunk mappings for the volume (no data written: the
# metadata is what fills), through thin_dump/thin_restore of the area
read -r off len meta <<<"$(tpstatus --noheadings --units b \
	-o pool_meta_offset,pool_meta_length,pool_meta_dev md | awk 'NF == 3')"
must dd if="$meta" of=area.img bs=1M iflag=skip_bytes,count_bytes skip="$off" count="$len" \
	status=none
# (tmpfs refuses O_DIRECT: the tools read and write the copy through a loop)
AREA=$(losetup -f --show area.img) || fail "losetup"
thin_dump "$AREA" | awk '
	/<device dev_id="0"/ { print; for (i = 0; i < 45000; i++)
		printf "    <single_mapping origin_block=\"%d\" data_block=\"%d\" time=\"0\"/>\n", 2 * i, i
		next }
	{ print }' >mapped.xml
must thin_restore -q -i mapped.xml -o "$AREA"
losetup -d "$AREA"
must dd if=area.img of="$meta" bs=1M oflag=seek_bytes seek="$off" conv=notrunc status=none
rm -f area.img mapped.xml
must tpactivate md
before=$(size_of md pool_meta_size)
echo "metadata: $(status md pool_meta_percent)% of $before bytes used"
check tpmonitor --once
after=$(size_of md pool_meta_size)
echo "metadata area: $before -> $after bytes"
[ "$after" -ge $((before * 2)) ] || note_fail "metadata not grown: $before -> $after"
status md pool_monitor | grep -q "autoextended" || note_fail "tpstatus shows no monitor action"
must tpdeactivate md
check_meta md
step "--autoextend-max: tpmonitor grows the pool up to it, then says so once and stops"
truncate -s 32M cap.img
truncate -s 16M capm.img
CAP=$(losetup -f --show cap.img) || fail "losetup"
CAPM=$(losetup -f --show capm.img) || fail "losetup"
must tpcreate --data "$CAP" --meta "$CAPM" --chunk 64k --zero n --warn 0 \
	--autoextend-threshold 60 --autoextend-by 50% --autoextend-max 48M cap
truncate -s 200M cap.img
must losetup -c "$CAP"
must tvcreate -V 100M -n v cap
must tpactivate cap
head -c 45M /dev/urandom >cap.bin
# cap_fill MIB: the first MIB MiB of the volume written (from cap.bin); then one pass
cap_fill() {
	check dd if=cap.bin of=/dev/mapper/cap-v bs=1M count="$1" oflag=direct status=none
	check tpmonitor --once >>cap.log 2>&1
}
cap_fill 20	# 20 of 31 MiB (64%): grown by 50%, to 46.5 MiB
expect_eq "first growth" "$(size_of cap pool_size)" $((93 << 19))
cap_fill 30	# 30 of 46.5 MiB (64%): 69.75 MiB cut down to the 48 MiB limit
expect_eq "growth cut to --autoextend-max" "$(size_of cap pool_size)" $((48 << 20))
cap_fill 45	# 45 of 48 MiB (93%): at the limit, not grown, said
cap_fill 45
expect_eq "not grown past --autoextend-max" "$(size_of cap pool_size)" $((48 << 20))
expect_eq "the limit said once" "$(grep -c "reached its autoextend limit of 48 MiB" cap.log)" 1
status cap pool_monitor | grep -q "at autoextend-max 48 MiB" ||
	note_fail "tpstatus shows no autoextend-max action: $(status cap pool_monitor)"
expect_eq "still queueing (below the critical 95%)" "$(status cap pool_when_full)" queue
check cmp -n $((45 << 20)) cap.bin /dev/mapper/cap-v
must tpdeactivate cap
check_meta cap

step "--autoextend-device: refused while another pool's or in use, then added live, said once"
for f in ad adm sp ot otm hd; do truncate -s 32M $f.img; done
truncate -s 64M sp.img
AD=$(losetup -f --show ad.img) && ADM=$(losetup -f --show adm.img) &&
	SP=$(losetup -f --show sp.img) && OT=$(losetup -f --show ot.img) &&
	OTM=$(losetup -f --show otm.img) && HD=$(losetup -f --show hd.img) || fail "losetup"
# named while blank (another pool's device is refused at once, exit 5),
# then taken by pool other: the monitor finds it so at its first need
must tpcreate --data "$AD" --meta "$ADM" --chunk 64k --zero n --warn 0 \
	--autoextend-threshold 60 --autoextend-by 50% --autoextend-device "$OT" ad
must tpcreate -q --data "$OT" --meta "$OTM" other
r=0; tpchange --autoextend-device "$OTM" ad >/dev/null 2>&1 || r=$?
expect_eq "tpchange to another pool's device" "$r" 5
must tvcreate -V 100M -n v ad
must tpactivate ad
head -c 40M /dev/urandom >ad.bin
# ad_pass: one look; its exit is logged (5: an action, the addition, failed)
ad_pass() { local rc=0; tpmonitor --once >>ad.log 2>&1 || rc=$?; echo "rc=$rc" >>ad.log; }
check dd if=ad.bin of=/dev/mapper/ad-v bs=1M count=24 oflag=direct status=none
size0=$(size_of ad pool_size)
ad_pass	# 24 of 31 MiB: no room; the named device carries pool other's label
ad_pass
ad_pass
cat ad.log
expect_eq "not grown onto another pool's device" "$(size_of ad pool_size)" "$size0"
grep -q "belongs to pool other (its data device 1" ad.log || note_fail "no refusal naming pool other"
expect_eq "the failed addition said once" "$(grep -c "could not add its autoextend device" ad.log)" 1
expect_eq "then no room, said once" "$(grep -c "no room to grow into" ad.log)" 1
expect_eq "passes that failed (exit 5)" "$(grep -c '^rc=5' ad.log)" 1
check tpstatus --noheadings -o pool_name other
# a device in use (held open exclusively, as a mount holds it)
rm -f held
tp-hold "$HD" held &
hold=$!
wait_file held "$hold" || note_fail "tp-hold did not hold $HD"
must tpchange -q --autoextend-device "$HD" ad
: >ad.log
ad_pass
ad_pass
cat ad.log
expect_eq "not grown onto a held device" "$(size_of ad pool_size)" "$size0"
expect_eq "the held device refused once" "$(grep -c "could not add its autoextend device $HD" ad.log)" 1
expect_eq "passes that failed (exit 5)" "$(grep -c '^rc=5' ad.log)" 1
rm -f held
wait "$hold"
check cmp -n 1048576 /dev/zero "$HD"
# a free device: added by a live tpextend --data while the volume is in use
must tpchange -q --autoextend-device "$SP" ad
: >ad.log
ad_pass
ad_pass
cat ad.log
grown=$(size_of ad pool_size)
echo "data area: $size0 -> $grown bytes"
[ "$grown" -gt $((size0 + (60 << 20))) ] || note_fail "the pool did not grow by the device: $grown"
expect_eq "the addition said once" "$(grep -c "added its autoextend device $SP as data device 2" ad.log)" 1
expect_eq "passes that failed" "$(grep -c '^rc=[^0]' ad.log)" 0
tpstatus --noheadings --devices-report ad | grep -q " $SP$" || note_fail "$SP is not a data device of ad"
status ad pool_monitor | grep -q "autoextended onto $SP" ||
	note_fail "tpstatus shows no autoextend-device action: $(status ad pool_monitor)"
# the pool takes writes beyond its old size, and reads back
check dd if=ad.bin of=/dev/mapper/ad-v bs=1M count=40 oflag=direct conv=fsync status=none
check cmp -n $((40 << 20)) ad.bin /dev/mapper/ad-v
must tpdeactivate ad
check_meta ad
must tpremove -y other
losetup -d "$AD" "$ADM" "$SP" "$OT" "$OTM" "$HD"
losetup -d "$DATA" "$FULL" "$DATA3" "$CAP" "$CAPM" 2>/dev/null
finish
