#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# vm-timeout: 600
# I/O faults under a live pool (issue 12): the pool's devices are dm devices
# made here (linear, reloaded as dm-flakey or dm-error to inject faults):
#  1. write errors on the metadata device during a commit: the kernel fails
#     the commit and switches the pool (read-only or failed, its choice);
#     tpstatus says so and what to do; the documented recovery (fix the
#     device, tpdeactivate, tpcheck, tprepair if damaged, tpactivate) brings
#     back every volume with every fsync'd block;
#  2. write errors on the data device: writes fail, fsync'd data stays;
#  3. read errors on the thin-metadata area during activation: tpactivate
#     refuses, names the problem, leaves no device behind; fixed, it works;
#  4. metadata space exhausted (2 MiB metadata area, snapshots and small
#     random writes): the kernel stops changes (read-only), tpstatus says so
#     and names the way out; tpextend --metadata-size grows the area and the
#     pool works again with its data.
# Data is written and checked with tp-crashwriter (fsync'd rounds of blocks
# whose content is derived from seed, volume, block and round). Knob:
# FAULT_SEED (default: from the clock, printed).
. "$TP_SRC/test/vm/lib.sh"
vm_begin -n 5 -e -k dm-flakey
SEED=${FAULT_SEED:-$(($(date +%s%N) % 1000000007))}
echo "s-faults: seed $SEED (FAULT_SEED=$SEED repeats this run)"
faults=0

# table NAME TABLE: load and switch the table of a device under the pool
table() {
	must dmsetup load "$1" --table "$2"
	must dmsetup suspend --noflush "$1"
	must dmsetup resume "$1"
}
# a dm device over DEV from its second MiB on: the disk itself never shows
# the pool's label at its own sector 1 (it would be a second, wrong copy)
linear() { echo "0 $(($(blockdev --getsz "$2") - 2048)) linear $2 2048"; }	# NAME DEV
# kernel pool mode (rw, ro, out_of_data_space, Fail) and needs_check
kmode() { dmsetup status "$1-tpool" | awk '{ print ($4 == "Fail" ? "Fail" : $8) }'; }
kneeds() { dmsetup status "$1-tpool" | awk '{ print ($4 == "Fail" ? "-" : $11) }'; }
# recover POOL: the documented way back after a fault (devices fixed)
recover() {
	local rc
	check tpdeactivate "$1"
	tpcheck "$1" >check.out 2>&1
	rc=$?
	sed 's/^/  tpcheck: /' check.out
	if [ $rc -ge 1 ]; then	# damage, needs_check or leaks: tprepair
		check tprepair "$1"
		tpcheck "$1" >check.out 2>&1 || { note_fail "tpcheck after tprepair exit $?"; cat check.out; }
	fi
	check tpactivate "$1"
}

D0=${disks[0]} D1=${disks[1]}
step "pool fp on dm devices over $D0 (data) and $D1 (metadata)"
must dmsetup create flt-data --table "$(linear flt-data "$D0")"
must dmsetup create flt-meta --table "$(linear flt-meta "$D1")"
vm_live_pool fp /dev/mapper/flt-data /dev/mapper/flt-meta 16M "v0 v1" --chunk 64K --zero y \
	--force --yes
V=(/dev/mapper/fp-v0 /dev/mapper/fp-v1)
PER=16
must tp-crashwriter write "$SEED" 1 5 $PER - "${V[@]}" >/dev/null
check tp-crashwriter verify "$SEED" 5 5 $PER "${V[@]}"

step "1. metadata device fails writes during a commit"
table flt-meta "0 $(($(blockdev --getsz "$D1") - 2048)) flakey $D1 2048 0 1 1 error_writes"
faults=$((faults + 1))
not tp-crashwriter write "$SEED" 6 6 $PER - "${V[@]}" >/dev/null
mode=$(kmode fp)
echo "kernel: pool mode '$mode', needs_check '$(kneeds fp)'"
case $mode in ro | Fail) ;; *) note_fail "pool mode after a failed commit: '$mode'" ;; esac
tpstatus fp >st.out 2>&1
echo "tpstatus exit $?:"
sed 's/^/  /' st.out
grep -Eqi 'read-only|failed' st.out || note_fail "tpstatus does not say the pool is read-only/failed"
grep -q 'tpcheck' st.out || note_fail "tpstatus does not name the recovery (tpcheck)"
table flt-meta "$(linear flt-meta "$D1")"
recover fp
expect_eq "mode after recovery" "$(kmode fp)" rw
check tp-crashwriter verify "$SEED" 5 6 $PER "${V[@]}"
must tp-crashwriter write "$SEED" 6 6 $PER - "${V[@]}" >/dev/null
check tp-crashwriter verify "$SEED" 6 6 $PER "${V[@]}"

step "2. data device fails writes"
table flt-data "0 $(($(blockdev --getsz "$D0") - 2048)) flakey $D0 2048 0 1 1 error_writes"
faults=$((faults + 1))
not tp-crashwriter write "$SEED" 7 7 $PER - "${V[@]}" >/dev/null
mode=$(kmode fp)
echo "kernel: pool mode '$mode', needs_check '$(kneeds fp)'"
tpstatus fp >st.out 2>&1
echo "tpstatus exit $?:"
sed 's/^/  /' st.out
table flt-data "$(linear flt-data "$D0")"
if [ "$mode" != rw ]; then
	grep -Eqi 'read-only|failed' st.out || note_fail "tpstatus does not say the pool is $mode"
	recover fp
fi
check tp-crashwriter verify "$SEED" 6 7 $PER "${V[@]}"
must tp-crashwriter write "$SEED" 7 8 $PER - "${V[@]}" >/dev/null
check tp-crashwriter verify "$SEED" 8 8 $PER "${V[@]}"

step "3. read errors on the thin-metadata area during activation"
must tpdeactivate fp
read -r off len <<<"$(tpstatus --noheadings --units b -o pool_meta_offset,pool_meta_length fp | awk 'NF == 2')"
sz=$(($(blockdev --getsz "$D1") - 2048))
s0=$((off / 512)) sl=$((len / 512))
table flt-meta "0 $s0 linear $D1 2048
$s0 $sl error
$((s0 + sl)) $((sz - s0 - sl)) linear $D1 $((2048 + s0 + sl))"
faults=$((faults + 1))
tpactivate fp >act.out 2>&1
rc=$?
sed 's/^/  tpactivate: /' act.out
expect_eq "tpactivate on unreadable metadata exit" $rc 5
grep -qi 'error\|cannot' act.out || note_fail "tpactivate does not explain"
dmsetup ls | grep -q '^fp-\(tpool\|v0\|v1\)' && note_fail "a failed activation left devices behind"
table flt-meta "$(linear flt-meta "$D1")"
must tpactivate fp
check tp-crashwriter verify "$SEED" 8 8 $PER "${V[@]}"
must tpdeactivate fp
check tpcheck fp
must tpremove -y fp
must dmsetup remove flt-data flt-meta

step "4. metadata space exhausted (2 MiB area, snapshots, small random writes)"
D2=${disks[2]} D3=${disks[3]} D4=${disks[4]}
s3=$(($(blockdev --getsz "$D3") - 2048)) s4=$(($(blockdev --getsz "$D4") - 2048))
must dmsetup create mx-meta --table "0 32768 linear $D2 2048"
must dmsetup create mx-data --table "0 $s3 linear $D3 2048
$s3 $s4 linear $D4 2048"
vm_live_pool mp /dev/mapper/mx-data /dev/mapper/mx-meta 160M big --chunk 64K --zero n \
	--metadata-size 2M --force --yes
must dd if=/dev/zero of=/dev/mapper/mp-big bs=1M count=160 oflag=direct status=none
full=0 k=0
while [ $k -lt 200 ]; do
	k=$((k + 1))
	if ! tvsnap mp/big -n k$k >snap.out 2>&1; then
		echo "tvsnap k$k refused:"
		sed 's/^/  /' snap.out
		full=1
		break
	fi
	if ! tp-crashwriter write "$SEED" $k $k 24 - /dev/mapper/mp-big >/dev/null 2>w.err; then
		sed 's/^/  /' w.err
		full=1
		break
	fi
	mode=$(kmode mp)
	[ "$mode" = rw ] || { full=1; break; }
done
faults=$((faults + 1))
mode=$(kmode mp)
echo "after $k snapshots: kernel pool mode '$mode', needs_check '$(kneeds mp)'"
tpstatus -o pool_name,pool_mode,pool_meta_percent,pool_needs_check mp
[ $full = 1 ] || note_fail "the metadata did not fill in $k rounds"
[ "$mode" = ro ] || [ "$mode" = Fail ] || note_fail "pool mode with full metadata: '$mode'"
tpstatus mp >st.out 2>&1
echo "tpstatus exit $?:"
sed 's/^/  /' st.out
grep -Eqi 'read-only|failed' st.out || note_fail "tpstatus does not say the pool is read-only"
grep -q 'metadata-size' st.out || note_fail "tpstatus does not name the way out (tpextend --metadata-size)"
check tpdeactivate mp
check tpextend --metadata-size 4M mp
recover mp
expect_eq "mode after growing the metadata" "$(kmode mp)" rw
# rounds before the fill were fsync'd; the last one may have failed
check tp-crashwriter verify "$SEED" $((k - 1)) $k 24 /dev/mapper/mp-big
must tvsnap mp/big -n after
must tp-crashwriter write "$SEED" $k $((k + 1)) 24 - /dev/mapper/mp-big >/dev/null
check tp-crashwriter verify "$SEED" $((k + 1)) $((k + 1)) 24 /dev/mapper/mp-big
must tpdeactivate mp
check tpcheck mp
echo "s-faults: seed $SEED: $faults faults injected"
finish
