#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Two hosts, one shared pair of disks (TP_VM_HOSTS=2): ownership by system
# id (tptools(7) SHARED STORAGE) between two real kernels. Host a makes a
# pool on the shared disks and activates it; host b, which has never seen
# it (no devices file), finds it by scanning, lists it as foreign and every
# attempt to activate or change it is refused with exit 5 and the shared
# disks byte-for-byte unchanged; a hands it over (deactivate, tpchange
# --systemid b); b then activates it and reads a's data; a now finds it
# foreign. Then b is "gone" (its kernel keeps the pool active, as after a
# crash nobody cleaned up) and a takes the pool over with --foreign --force,
# finding b's last change. (b's kernel still holds the pool then: a system id
# cannot fence a host that is not really gone; that needs the leases of
# issue 24.)
# vm-timeout: 600
. "$TP_SRC/test/vm/lib.sh"
vm_begin -e
[ -n "${TP_HOST:-}" ] || skip_scenario "a two-host scenario (TP_VM_HOSTS=2)"
read -r DATA META <<<"$TP_SHARED"
printf 'global {\n\tsystem_id = "host%s"\n}\n' "$TP_HOST" >"$TPTOOLS_DIR/tptools.conf"
shared_sum() { drop_caches; cat "$DATA" "$META" | cksum; }
vol_sum() { dd if="/dev/mapper/$1" bs=1M count=8 iflag=direct status=none | md5sum | cut -d' ' -f1; }

if [ "$TP_HOST" = a ]; then
	step "a: pool sp on the shared disks, a volume with data"
	must tpcreate --data "$DATA" --meta "$META" --chunk 64k sp
	must tvcreate -V 16M -n v sp
	must tpactivate sp
	dd if=/dev/urandom of=data.bin bs=1M count=8 status=none
	must dd if=data.bin of=/dev/mapper/sp-v bs=1M oflag=direct status=none
	md5sum <data.bin | cut -d' ' -f1 >"$TP_SYNC/data.sum"
	tpstatus -o pool_name,pool_system_id sp >st.out
	grep -q "sp *hosta" st.out || note_fail "a: owner not recorded: $(cat st.out)"
fi
barrier created

if [ "$TP_HOST" = b ]; then
	step "b: the pool is foreign"
	before=$(shared_sum)
	tpstatus -o pool_name,pool_system_id,pool_attr sp >st.out 2>st.err ||
		note_fail "b: tpstatus of a foreign pool failed: $(cat st.err)"
	grep -q "sp *hosta .*f$" st.out || note_fail "b: not listed as foreign: $(cat st.out)"
	for cmd in "tpactivate sp" "tvcreate -V 4M -n w sp" "tpchange --systemid hostb sp" \
		   "tvremove -y sp/v" "tpcheck sp" "tprepair sp"; do
		rc=0
		# shellcheck disable=SC2086
		$cmd >c.out 2>c.err || rc=$?
		expect_eq "b: exit of '$cmd'" "$rc" 5
		grep -q 'belongs to the host whose system id is "hosta"' c.err ||
			note_fail "b: '$cmd' did not name the owner: $(cat c.err)"
	done
	tpactivate --all >all.out 2>&1 || note_fail "b: tpactivate --all failed: $(cat all.out)"
	grep -q "Pool sp: skipped (another host owns it" all.out ||
		note_fail "b: --all did not pass sp by: $(cat all.out)"
	expect_eq "b: shared disks after the refusals" "$(shared_sum)" "$before"
	dmsetup ls | grep -q "sp" && note_fail "b: a refused pool left kernel devices: $(dmsetup ls)"
fi
barrier refused

if [ "$TP_HOST" = a ]; then
	step "a: hand over to b"
	must tpdeactivate sp
	must tpchange --systemid hostb sp
	rc=0
	tpactivate sp >c.out 2>c.err || rc=$?
	expect_eq "a: activating a pool handed over" "$rc" 5
fi
barrier handed

if [ "$TP_HOST" = b ]; then
	step "b: now b's"
	drop_caches
	must tpactivate sp
	expect_eq "b: a's data" "$(vol_sum sp-v)" "$(cat "$TP_SYNC/data.sum")"
	must tvcreate -V 4M -n w sp
	must tpactivate sp
	tpstatus -o pool_name,pool_system_id sp >st.out
	grep -q "sp *hostb" st.out || note_fail "b: owner after the hand-over: $(cat st.out)"
	# b "crashes": its kernel keeps the pool; nobody deactivates it
fi
barrier b-gone

if [ "$TP_HOST" = a ]; then
	step "a: b is gone; a takes the pool over"
	drop_caches
	rc=0
	tpactivate sp >c.out 2>c.err || rc=$?
	expect_eq "a: activating b's pool" "$rc" 5
	must tpchange --systemid hosta --foreign --force -y sp
	must tpactivate sp
	expect_eq "a: the data after the take-over" "$(vol_sum sp-v)" "$(cat "$TP_SYNC/data.sum")"
	tpstatus -o vol_name sp >vols.out
	grep -qE "^ *w *$" vols.out || note_fail "a: b's volume w is not there: $(cat vols.out)"
	must tpdeactivate sp
	must tpcheck sp
fi
barrier taken
# b's kernel still holds the pool: it goes with the guest
finish
