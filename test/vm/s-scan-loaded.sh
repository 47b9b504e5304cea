#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Commands on an active pool with many volumes loaded (issue 40): the label
# scan every open makes (the duplicate check, lib/pool/host/pool_find.c)
# passes tptools' own loaded dm devices by their device numbers, from
# device-mapper's one list, without reading them (lib/dev/scan.h: the
# debug line "block device scan: S devices, P passed by unread, R read, K
# kept"), so what it reads does not grow with the volumes loaded; the
# list gives the uuids itself and sysfs which devices are suspended (no
# DM_DEV_STATUS per device); and copies of the pool's devices are still
# found on other dm devices and disks (a writer refused, naming both).
. "$TP_SRC/test/vm/lib.sh"
vm_begin -n 4 -e
D=${disks[0]} M=${disks[1]} CD=${disks[2]} CM=${disks[3]}
EXTRA=60	# volumes loaded beyond the first three

# scan_line CMD...: the debug line of CMD's first scan; CMD's output in
# cmd.out, cmd.err, its exit status in cmd.rc
scan_line() {
	TPTOOLS_DEBUG=dev,kernel "$@" >cmd.out 2>cmd.err
	echo $? >cmd.rc
	grep -m1 'block device scan:' cmd.err
}
# num WHAT LINE: the number before WHAT in the scan line
num() { sed -n "s/.* \([0-9][0-9]*\) $1.*/\1/p" <<<"$2"; }
dm_infos() { grep -c 'dm info' cmd.err; }

step "pool bp, three volumes loaded"
vm_live_pool bp "$D" "$M" 16M "v0 v1 v2" --metadata-size 16m
base=$(scan_line tpstatus bp)
expect_eq "tpstatus: exit status" "$(cat cmd.rc)" 0
echo "3 loaded: $base"
read0=$(num read "$base")
[ -n "$read0" ] || fail "no scan line in the debug log of tpstatus"
# tpool, tmeta, tdata and three volumes: all passed by unread
[ "$(num 'passed by' "$base")" -ge 6 ] || note_fail "3 loaded: $base"

step "$EXTRA volumes more, all loaded"
must tpdeactivate -q bp
must tp-volgen --size 16M --prefix f bp "$EXTRA"
must tpactivate -q bp
loaded=$(dmsetup ls | grep -c '^bp-')
expect_eq "bp's dm devices" "$loaded" $((EXTRA + 6))
for cmd in "tpstatus bp" "tvcreate -q -V 16M -n new bp" "tvsnap -q --activate n -n snap bp/v0" \
	"tvrename -q bp/snap snap2" "tvremove -q -y bp/snap2" "tvremove -q -y bp/new"; do
	# shellcheck disable=SC2086 # the command's words
	line=$(scan_line $cmd)
	expect_eq "$cmd: exit status" "$(cat cmd.rc)" 0
	echo "$((EXTRA + 3)) loaded, $cmd: $line; $(dm_infos) dm info"
	# every loaded device of ours passed by, none of them read: the scan
	# reads what it read with three volumes (the disks, nothing of ours)
	[ "$(num 'passed by' "$line")" -ge "$loaded" ] || note_fail "$cmd: $line"
	expect_eq "$cmd: devices the scan read" "$(num read "$line")" "$read0"
	# the list carried the uuids and sysfs whether a device is suspended
	# (left so by a killed command): no status ioctl per device, but
	# tpstatus's one per volume (is it open?)
	not grep -q 'gave no uuids' cmd.err
	per=0
	[ "${cmd%% *}" = tpstatus ] && per=1
	[ "$(dm_infos)" -lt $((per * loaded + 20)) ] ||
		note_fail "$cmd: $(dm_infos) dm info calls for $loaded devices"
done

step "copies of the pool's devices on other disks, one under a dm map"
must dd if="$D" of="$CD" bs=1M count=4 status=none
must dd if="$M" of="$CM" bs=1M count=4 status=none
must dmsetup create clonemeta --table "0 $(blockdev --getsz "$CM") linear $CM 0"
dmsetup mknodes clonemeta
cm=/dev/dm-$(dmsetup info -c --noheadings -o minor clonemeta | tr -d ' ')
line=$(scan_line tvcreate -q -V 16M -n dup bp)
echo "copies: $line"
expect_eq "tvcreate over copies: exit status" "$(cat cmd.rc)" 5
grep -q 'duplicate devices' cmd.err || note_fail "no duplicate found: $(cat cmd.err | grep -v '\[' | head -3)"
grep -q "$D and $CD" cmd.err || note_fail "the data device's copy $CD not named"
grep -q "$M and $cm" cmd.err || note_fail "the metadata device's copy under the dm map ($cm) not named"
# the dm map (not ours) was read as well
expect_eq "devices read with the dm map" "$(num read "$line")" $((read0 + 1))
# a reader reads, and warns
check tpstatus bp
must dmsetup remove clonemeta
must dd if=/dev/zero of="$CD" bs=1M count=4 status=none
must dd if=/dev/zero of="$CM" bs=1M count=4 status=none
check tvcreate -q -V 16M -n dup bp
check tvremove -q -y bp/dup

must tpdeactivate -q bp
check tpcheck -q bp
finish
