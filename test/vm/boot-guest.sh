#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# boot-guest.sh - the guest side of the boot test (test/vm/boot.sh). It runs
# in a real Debian 12 system booted with systemd as PID 1 and tptools
# installed from its .deb, as two units boot.sh puts into the root:
#
#   tp-boottest.service           `boot-guest.sh run`, after multi-user.target:
#                                 this boot's phase (below), then reboot,
#                                 ask the host for a reset, or power off
#   tp-boottest-shutdown.service  `boot-guest.sh shutdown`, its ExecStop; it is
#                                 ordered Before=tptools-activate.service, so it
#                                 stops after that unit's `tpdeactivate --all`:
#                                 what the kernel holds then is what shutdown left
#
# The state lives on the root disk (/var/lib/tp-boottest): the boot number,
# the checksums of what was written, what each shutdown saw. Results go to
# the second serial port (/dev/ttyS1, the host's results-N.log) and to the
# journal, one line each, "BT " first:
#   BT BOOT N begin | BT BOOT N end FAILS     this boot's checks
#   BT ok N WHAT | BT FAIL N PHASE: WHAT      one check
#   BT TIME N ...                             boot-to-mount times
#   BT REQ hotplug | BT REQ reset             the host acts (QEMU monitor)
#   BT SHUTDOWN N ok | BT SHUTDOWN N FAIL ... the state after deactivation
#
# Boots (disks by serial under /dev/disk/by-id/virtio-*; boot.sh attaches them):
#   1 setup: md RAID6 on tpr0..tpr4 (mdadm.conf written), pool tpa on it
#     (metadata on tpmeta) with two ext4 volumes, vol1 in /etc/fstab; pool
#     tpb on tphot + tpbmeta, its volume in fstab with nofail; pool tpc
#     (--activate n) on tpcdata + tpcmeta; checksummed data; clean reboot
#   2 every boot check; tphot is absent at boot: asks the host to hot-add it
#     (20 s after boot at the earliest), then tpb must come up through udev
#     and its fstab volume be mounted; clean reboot
#   3 every boot check (tpb now present at boot); pool tpd on tpddata +
#     tpdmeta with its thin superblock zeroed; writes and fsyncs more data,
#     keeps writing, asks the host for a hard reset (system_reset)
#   4 every boot check, and what was fsync'd before the reset reads back;
#     the reset's boot left no shutdown record; tpd failed alone (the boot
#     unit still active, only tpd's udev units failed), then tprepair,
#     tpcheck, tpactivate; power off (the host reads the shutdown record,
#     three pools deactivated, from the serial port)
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
ST=/var/lib/tp-boottest
OUT=/dev/ttyS1
ID=/dev/disk/by-id/virtio-
RAID=/dev/md/tpraid
FAILS=0
BOOT=0
PHASE=boot

say() {
	printf '%s\n' "$*"
	printf '%s\n' "$*" >"$OUT" 2>/dev/null
}
up() { cut -d' ' -f1 /proc/uptime; }
pass() { say "BT ok $BOOT $*"; }
bad() {
	say "BT FAIL $BOOT $PHASE: $*"
	FAILS=$((FAILS + 1))
}
# check WHAT CMD...: CMD succeeds
check() {
	local what=$1
	shift
	if "$@" >/dev/null 2>&1; then pass "$what"; else bad "$what (failed: $*)"; fi
}
# expect WHAT GOT WANT
expect() {
	if [ "$2" = "$3" ]; then pass "$1: $2"; else bad "$1: expected '$3', got '$2'"; fi
}
# wait_for SECONDS CMD...: until CMD succeeds (true) or SECONDS passed
wait_for() {
	local n=$(($1 * 2))
	shift
	while ! "$@" >/dev/null 2>&1; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.5
	done
}
# jlog BOOT UNIT: one unit's messages in the journal of a boot (0 this one,
# -1 the one before)
jlog() { journalctl -b "$1" --no-pager -o cat "_SYSTEMD_UNIT=$2" 2>/dev/null; }
# activated_by BOOT POOL: the package's units whose tpactivate said POOL is
# active, the first one (monotonic time of its message) first
activated_by() {
	local u t
	for u in $(journalctl -b "$1" --no-pager -F _SYSTEMD_UNIT 2>/dev/null |
		grep -E '^tptools-(activate|autoactivate@.*)\.service$'); do
		t=$(journalctl -b "$1" --no-pager -o short-monotonic "_SYSTEMD_UNIT=$u" 2>/dev/null |
			grep -m1 "tpactivate\[[0-9]*\]: Pool $2 active" | tr -d '[]' | awk '{ print $1 }')
		[ -n "$t" ] && echo "$t $u"
	done | sort -n | awk '{ print $2 " (" $1 "s)" }'
}
activation_logged() { [ -n "$(activated_by 0 "$1")" ]; }
tpool_live() { dmsetup info "$1-tpool" >/dev/null 2>&1; }
# the device-mapper devices of tptools pools (uuid TPTOOLS-...)
tp_devices() { dmsetup info -c --noheadings -o name,uuid 2>/dev/null | awk -F: '$2 ~ /^TPTOOLS-/ { print $1 }'; }
mono_s() { # a systemd monotonic timestamp (us) in seconds
	awk -v u="$1" 'BEGIN { printf "%.1f", u / 1000000 }'
}
sums_ok() { # DIR SUMFILE: the files of SUMFILE under DIR read back
	(cd "$1" && sha256sum --quiet -c "$2")
}
write_data() { # DIR NAME MIB SUMFILE: random data, its checksum appended
	head -c $(($3 << 20)) /dev/urandom >"$1/$2" && (cd "$1" && sha256sum "$2") >>"$4"
}

# ---- shutdown: the state once tptools-activate.service has stopped ---------
if [ "${1:-}" = shutdown ]; then
	BOOT=$(cat "$ST/boot" 2>/dev/null || echo 0)
	PHASE=shutdown
	rec=$ST/shutdown-$BOOT
	{
		echo "== dmsetup info -c"
		dmsetup info -c 2>&1
		echo "== dmsetup table"
		dmsetup table 2>&1
		echo "== tptools-activate.service"
		systemctl show -p ActiveState -p Result tptools-activate.service
		jlog 0 tptools-activate.service | tail -5
	} >"$rec.log" 2>&1
	why=""
	left=$(tp_devices | paste -sd' ' -)
	[ -z "$left" ] || why="$why; tptools devices left: $left"
	susp=$(dmsetup info -c --noheadings -o name,suspended 2>/dev/null | awk -F: '$2 == "Suspended" { print $1 }' | paste -sd' ' -)
	[ -z "$susp" ] || why="$why; suspended: $susp"
	# the array is free for mdadm to stop once the shutdown goes on
	holders=$(ls "/sys/block/$(basename "$(readlink -f "$RAID")")/holders" 2>/dev/null | paste -sd' ' -)
	[ -z "$holders" ] || why="$why; $RAID still held by: $holders"
	res=$(systemctl show -P Result tptools-activate.service)
	[ "$res" = success ] || why="$why; tptools-activate.service Result=$res"
	# tpa and tpb active (and tpd, repaired in boot 4), tpc (flag n) not
	last=$(jlog 0 tptools-activate.service | grep 'pool(s) deactivated' | tail -1)
	want="$([ -e "$ST/tpd-active" ] && echo 3 || echo 2) pool(s) deactivated, 1 left as they were, 0 failed."
	[ "$last" = "$want" ] || why="$why; tpdeactivate --all said '${last:-nothing}', expected '$want'"
	busy=$(jlog 0 tptools-activate.service | grep -iE 'busy|in use|refus' | head -1)
	[ -z "$busy" ] || why="$why; tpdeactivate: $busy"
	if [ -z "$why" ]; then
		echo ok >"$rec"
		say "BT SHUTDOWN $BOOT ok ($last)"
	else
		echo "FAIL${why}" >"$rec"
		say "BT SHUTDOWN $BOOT FAIL${why}"
		sed 's/^/BT   /' "$rec.log" >"$OUT" 2>/dev/null
	fi
	sync
	exit 0
fi

# ---- one boot ---------------------------------------------------------------
mkdir -p "$ST"
BOOT=$(( $(cat "$ST/boot" 2>/dev/null || echo 0) + 1 ))
echo "$BOOT" >"$ST/boot"
sync
say "BT BOOT $BOOT begin at $(up)s"

# what every boot has: the units, the array, the pools, the mounts, the data
boot_checks() {
	local by md st members
	PHASE="boot $BOOT checks"
	expect "tptools-activate.service" "$(systemctl show -P Result tptools-activate.service)/$(systemctl is-active tptools-activate.service)" success/active
	# the array, assembled by udev (mdadm --incremental) from mdadm.conf
	md=/sys/block/$(basename "$(readlink -f "$RAID")")/md
	check "md array $RAID assembled" test -b "$RAID"
	st=$(cat "$md/array_state" 2>/dev/null)
	case $st in
	clean|active|active-idle) pass "md array running ($st)" ;;
	*) bad "md array state: expected clean or active, got '$st'" ;;
	esac
	members=("$md"/rd[0-9]*)
	[ -e "${members[0]}" ] || members=()
	expect "md array degraded/members" "$(cat "$md/degraded" 2>/dev/null)/${#members[@]}" 0/5
	# pool tpa: activated at boot by one of the package's units
	check "pool tpa active" tpool_live tpa
	wait_for 60 activation_logged tpa
	by=$(activated_by 0 tpa | paste -sd, - | sed 's/,/, then /g')
	if [ -n "$by" ]; then pass "pool tpa activated at boot by $by"; else bad "pool tpa: no boot unit says it activated it"; fi
	expect "pool tpa mode" "$(dmsetup status tpa-tpool 2>/dev/null | awk '{ print $8 }')" rw
	dmsetup status tpa-tpool 2>/dev/null | grep -q needs_check && bad "pool tpa: needs_check set"
	# the fstab volume, mounted by systemd
	expect "vol1 mounted at /srv/vol1 from" "$(findmnt -n -o SOURCE /srv/vol1)" /dev/mapper/tpa-vol1
	expect "srv-vol1.mount" "$(systemctl is-active srv-vol1.mount)" active
	expect "fsck of vol1 at boot" "$(systemctl show -P Result systemd-fsck@dev-tpa-vol1.service)" success
	check "vol1 data written before the reboot reads back" sums_ok /srv/vol1 "$ST/sums-vol1"
	# the other volume: active, not in fstab; the test mounts it
	mkdir -p /mnt/vol2
	check "vol2 active (/dev/tpa/vol2)" test -b /dev/tpa/vol2
	if mount /dev/tpa/vol2 /mnt/vol2; then
		check "vol2 data written before the reboot reads back" sums_ok /mnt/vol2 "$ST/sums-vol2"
	else
		bad "mount /dev/tpa/vol2 failed"
	fi
	# the encrypted volume: unlocked at boot from its key file, dm-crypt
	# over its hidden thin device, /dev/tpa/sec the plaintext
	expect "tpa/sec unlocked at boot (target of tpa-sec)" \
		"$(dmsetup table tpa-sec 2>/dev/null | awk '{ print $3; exit }')" crypt
	expect "/dev/tpa/sec" "$(readlink -f /dev/tpa/sec)" "$(readlink -f /dev/mapper/tpa-sec)"
	if [ -e /dev/tpa/sec-luks ]; then bad "the hidden thin device has a link /dev/tpa/sec-luks"; fi
	mkdir -p /mnt/sec
	if mount -o ro /dev/tpa/sec /mnt/sec; then
		check "data of the encrypted volume reads back" sums_ok /mnt/sec "$ST/sums-sec"
		umount /mnt/sec
	else
		bad "mount /dev/tpa/sec failed"
	fi
	# pool tpc: --activate n, its devices present, not activated
	check "pool tpc's devices present" test -b "${ID}tpcdata" -a -b "${ID}tpcmeta"
	if tpool_live tpc; then bad "pool tpc (--activate n) is active"; else pass "pool tpc (--activate n) not active"; fi
	jlog 0 tptools-activate.service | grep -q '^Pool tpc: skipped (activation flag n)' &&
		pass "tpactivate --all passed tpc by (flag n)" || bad "tpactivate --all did not say it passed tpc by"
	# tpmonitor: running, watching the active pool
	expect "tptools-monitor.service" "$(systemctl is-active tptools-monitor.service)" active
	if wait_for 60 sh -c "journalctl -b -o cat _SYSTEMD_UNIT=tptools-monitor.service | grep -q '^pool tpa: monitoring'"; then
		pass "tpmonitor watches tpa"
	else
		bad "tpmonitor did not say it watches tpa within 60 s"
	fi
}

# the end of every boot's checks: the boot as systemd sees it, finished
# with no unit failed (boot 2 gets here after the hot-plug: until tpb's
# disk appears, its fstab line's mount job keeps the boot from finishing),
# and the times
final_checks() {
	local st t_mount t_user failed u
	PHASE="boot $BOOT end"
	st=$(timeout 300 systemctl is-system-running --wait 2>/dev/null)
	failed=$(systemctl list-units --failed --no-legend --plain 2>/dev/null | awk '{ print $1 }')
	if [ "$BOOT" = 4 ]; then
		# the units udev started for tpd's devices fail, and only they
		expect "system state once the boot finished" "$st" degraded
		[ -n "$failed" ] || bad "no unit failed for the damaged pool tpd"
		for u in $failed; do
			case $u in
			tptools-autoactivate@*)
				if jlog 0 "$u" | grep -q 'pool tpd: '; then pass "$u failed (tpd)"
				else bad "$u failed, not for tpd"; fi ;;
			*) bad "unit $u failed" ;;
			esac
		done
	else
		expect "system state once the boot finished" "$st" running
		for u in $failed; do bad "unit $u failed"; done
	fi
	# times: from the kernel's start (monotonic clock) and from systemd's
	t_mount=$(systemctl show -P ActiveEnterTimestampMonotonic srv-vol1.mount)
	t_user=$(systemctl show -P UserspaceTimestampMonotonic)
	say "BT TIME $BOOT vol1 mounted $(mono_s "$t_mount")s after the kernel started, $(mono_s $((t_mount - t_user)))s after systemd started; $(systemd-analyze time 2>&1 | head -1)"
}

# the shutdown before this boot: clean (a record saying ok, the journal's
# deactivation line) or, after the reset, none
previous_shutdown() { # clean|reset
	local prev=$((BOOT - 1)) last
	PHASE="boot $BOOT: shutdown of boot $prev"
	if [ "$1" = reset ]; then
		if [ -e "$ST/shutdown-$prev" ]; then bad "boot $prev was reset, yet it left a shutdown record"; else pass "boot $prev ended by the reset (no shutdown record)"; fi
		return
	fi
	expect "shutdown record of boot $prev" "$(cat "$ST/shutdown-$prev" 2>/dev/null)" ok
	last=$(jlog -1 tptools-activate.service | grep 'pool(s) deactivated' | tail -1)
	expect "boot $prev's journal: tpdeactivate --all" "$last" "2 pool(s) deactivated, 1 left as they were, 0 failed."
}

# pool tpb's volume: in fstab with nofail, mounted once the pool is up
tpb_checks() {
	check "pool tpb active" tpool_live tpb
	if wait_for 60 findmnt /srv/b; then
		pass "tpb's fstab volume mounted at /srv/b"
		check "tpb data reads back" sums_ok /srv/b "$ST/sums-b"
	else
		bad "tpb's fstab volume (nofail) not mounted within 60 s of the pool's activation"
	fi
}

phase_setup() {
	local r
	PHASE="boot 1 setup"
	check "tptools-activate.service enabled" systemctl is-enabled tptools-activate.service
	check "tptools-monitor.service enabled" systemctl is-enabled tptools-monitor.service
	expect "tptools-activate.service ran" "$(systemctl is-active tptools-activate.service)" active
	for r in tpr0 tpr1 tpr2 tpr3 tpr4 tpmeta tphot tpbmeta tpcdata tpcmeta; do
		[ -b "$ID$r" ] || { bad "disk $r missing"; return 1; }
	done
	mdadm --create "$RAID" --run --assume-clean --level=6 --raid-devices=5 --chunk=64 \
		--metadata=1.2 --homehost=tpboot --name=tpraid "${ID}"tpr{0,1,2,3,4} ||
		{ bad "mdadm --create failed"; return 1; }
	printf 'HOMEHOST <system>\nMAILADDR root\n%s\n' "$(mdadm --detail --brief "$RAID")" \
		>/etc/mdadm/mdadm.conf
	cat /etc/mdadm/mdadm.conf
	tpcreate --data "$RAID" --meta "${ID}tpmeta" --chunk auto --explain tpa ||
		{ bad "tpcreate tpa failed"; return 1; }
	# and an encrypted volume whose key file is in the key directory, so
	# the boot unit unlocks it (a cheap PBKDF: argon2's default would take
	# minutes under emulation)
	mkdir -p /etc/tptools/keys/tpa && printf 'boot test passphrase' >/etc/tptools/keys/tpa/sec &&
		chmod 600 /etc/tptools/keys/tpa/sec || { bad "key file failed"; return 1; }
	tvcreate -V 96M -n vol1 tpa && tvcreate -V 64M -n vol2 tpa &&
		tvcreate --encrypt --key-file /etc/tptools/keys/tpa/sec --pbkdf pbkdf2 \
			--pbkdf-force-iterations 1000 -V 48M -n sec tpa && tpactivate tpa ||
		{ bad "tvcreate/tpactivate tpa failed"; return 1; }
	udevadm settle
	mkfs.ext4 -q /dev/tpa/vol1 && mkfs.ext4 -q /dev/tpa/vol2 && mkfs.ext4 -q /dev/tpa/sec ||
		{ bad "mkfs on tpa failed"; return 1; }
	# pool tpb, whose data disk appears late in boot 2
	tpcreate --data "${ID}tphot" --meta "${ID}tpbmeta" tpb && tvcreate -V 48M -n vol tpb &&
		tpactivate tpb || { bad "pool tpb failed"; return 1; }
	udevadm settle
	mkfs.ext4 -q /dev/tpb/vol || { bad "mkfs on tpb failed"; return 1; }
	# pool tpc: never activated at boot
	tpcreate --activate n --data "${ID}tpcdata" --meta "${ID}tpcmeta" tpc &&
		tvcreate -V 16M -n vol tpc || { bad "pool tpc failed"; return 1; }
	# fstab: see BOOT in tptools(7)
	mkdir -p /srv/vol1 /srv/b /mnt/vol2
	cat >>/etc/fstab <<-'EOT'
	/dev/tpa/vol1 /srv/vol1 ext4 defaults,x-systemd.device-timeout=5min 0 2
	/dev/tpb/vol /srv/b ext4 nofail,x-systemd.device-timeout=5min 0 2
	EOT
	systemctl daemon-reload
	mount /srv/vol1 && mount /srv/b && mount /dev/tpa/vol2 /mnt/vol2 ||
		{ bad "mounting the volumes failed"; return 1; }
	: >"$ST/sums-vol1"; : >"$ST/sums-vol2"; : >"$ST/sums-b"
	write_data /srv/vol1 a 8 "$ST/sums-vol1" && write_data /srv/vol1 b 1 "$ST/sums-vol1" &&
		write_data /mnt/vol2 c 8 "$ST/sums-vol2" && write_data /srv/b d 4 "$ST/sums-b" ||
		{ bad "writing data failed"; return 1; }
	: >"$ST/sums-sec"
	mkdir -p /mnt/sec
	mount /dev/tpa/sec /mnt/sec && write_data /mnt/sec e 4 "$ST/sums-sec" && umount /mnt/sec ||
		{ bad "writing data to the encrypted volume failed"; return 1; }
	sync
	pass "md array, pools tpa tpb tpc, volumes, fstab and data set up"
	tpstatus
	# /mnt/vol2 stays mounted: shutdown must unmount it before tpdeactivate
}

phase_hotplug() {
	local t_req t_dev t_boot by
	PHASE="boot 2 hot-plug"
	# at boot: tphot absent, so tpb was left for later
	if [ -e "${ID}tphot" ]; then bad "tphot is present at boot (the host should attach it later)"; return; fi
	if tpool_live tpb; then bad "pool tpb active without its data disk"; fi
	journalctl -b -o cat | grep -q '^Pool tpb: not all of its devices are present' &&
		pass "boot left tpb (data disk absent)" || bad "no unit said tpb's devices were not all present"
	# 20 s after boot at the earliest, and after the boot unit has finished
	while [ "$(cut -d. -f1 /proc/uptime)" -lt 20 ]; do sleep 1; done
	t_boot=$(systemctl show -P ExecMainExitTimestampMonotonic tptools-activate.service)
	t_req=$(up)
	say "BT REQ hotplug"
	if ! wait_for 300 test -b "${ID}tphot"; then
		bad "the hot-added disk tphot did not appear within 300 s"
		return
	fi
	t_dev=$(up)
	pass "tphot appeared at ${t_dev}s (asked at ${t_req}s)"
	awk -v a="$t_boot" -v b="$t_dev" 'BEGIN { exit !(a / 1000000 < b) }' &&
		pass "tptools-activate.service had finished ($(mono_s "$t_boot")s) before" ||
		bad "tptools-activate.service finished at $(mono_s "$t_boot")s, after the disk appeared"
	if ! wait_for 300 tpool_live tpb; then
		bad "pool tpb not activated within 300 s of its data disk's appearance"
		return
	fi
	pass "pool tpb active at $(up)s"
	# (its message reaches the journal a moment after the device appears)
	wait_for 60 activation_logged tpb
	by=$(activated_by 0 tpb | head -1)
	case $by in
	tptools-autoactivate@*) pass "pool tpb activated by $by (udev)" ;;
	*) bad "pool tpb activated by '${by:-nothing}', expected tptools-autoactivate@MAJ:MIN.service" ;;
	esac
	tpb_checks
}

# boot 3: pool tpd, created and its thin metadata's superblock zeroed (what
# a lost metadata device looks like): from boot 4 on it cannot be activated
damage_tpd() {
	local off
	PHASE="boot 3 before the reset"
	if ! tpcreate --data "${ID}tpddata" --meta "${ID}tpdmeta" tpd || ! tvcreate -V 8M -n vol tpd; then
		bad "pool tpd could not be made"
		return
	fi
	off=$(tpstatus --units b --noheadings -o pool_meta_offset tpd | head -1 | tr -d ' ')
	case $off in
	[0-9]*) dd if=/dev/zero of="${ID}tpdmeta" bs=4096 seek=$((off / 4096)) count=1 oflag=direct status=none &&
		pass "pool tpd made, its thin superblock (at byte $off) zeroed" ||
		bad "zeroing tpd's thin superblock failed" ;;
	*) bad "tpstatus gave no metadata offset for tpd: '$off'" ;;
	esac
}

# boot 4: tpd fails to activate; the others come up all the same (and the
# boot unit stays active, so its ExecStop deactivates them at shutdown)
tpd_checks() {
	PHASE="boot 4: the damaged pool"
	if tpool_live tpd; then bad "the damaged pool tpd is active"; else pass "the damaged pool tpd is not active"; fi
	jlog 0 tptools-activate.service | grep -q 'pool tpd: cannot open its thin metadata' &&
		pass "tpactivate --all names tpd's damage" || bad "tpactivate --all did not name tpd's damage"
	expect "tpactivate --all at boot" "$(jlog 0 tptools-activate.service | grep 'pool(s) activated' | tail -1)" \
		"2 pool(s) activated, 1 left as they were, 1 failed."
	# deactivation of all (shutdown's) leaves the damaged, inactive pool
	# as it is: no failure (the pool cannot be opened, and the kernel
	# holds nothing of it)
	expect "tpdeactivate --auto of the damaged, inactive tpd" \
		"$(tpdeactivate --auto tpd 2>/dev/null | tail -1; echo "rc=${PIPESTATUS[0]}")" \
		"$(printf '0 pool(s) deactivated, 1 left as they were, 0 failed.\nrc=0')"
	# what tpcheck would tell a person to do; then it is a pool like the
	# others, active at shutdown
	check "tprepair tpd" tprepair -y tpd
	check "tpcheck tpd after the repair" tpcheck tpd
	if tpactivate tpd && tpool_live tpd; then
		: >"$ST/tpd-active"
		sync
		pass "tpd repaired and activated"
	else
		bad "tpactivate tpd after the repair failed"
	fi
}

# boot 3: data fsync'd before the reset (its checksum on the root, synced)
write_fsynced() {
	PHASE="boot 3 before the reset"
	rm -f /srv/vol1/fsynced /srv/vol1/unsynced
	if dd if=/dev/urandom of=/srv/vol1/fsynced bs=1M count=4 conv=fsync status=none &&
		(cd /srv/vol1 && sha256sum fsynced) >"$ST/sums-reset" && sync; then
		pass "4 MiB written to vol1 and fsync'd"
	else
		bad "writing the fsync'd file failed"
	fi
}

PHASE="boot $BOOT"
case $BOOT in
1) phase_setup || say "BT setup failed" ;;
2) phase_hotplug; boot_checks; previous_shutdown clean; final_checks ;;
3) boot_checks; previous_shutdown clean; PHASE="boot 3 checks"; tpb_checks; final_checks
   damage_tpd; write_fsynced ;;
4) boot_checks; previous_shutdown reset; PHASE="boot 4 checks"; tpb_checks; tpd_checks
   PHASE="boot 4 after the reset"
   check "what was fsync'd before the reset reads back" sums_ok /srv/vol1 "$ST/sums-reset"
   final_checks ;;
*) bad "unexpected boot number $BOOT" ;;
esac
say "BT BOOT $BOOT end $FAILS"
sync
case $BOOT in
1) if [ "$FAILS" = 0 ]; then systemctl --no-block reboot; else systemctl --no-block poweroff; fi ;;
2) systemctl --no-block reboot ;;
3)	# writes in flight when the reset comes; then the host's system_reset
	(while :; do dd if=/dev/urandom of=/srv/vol1/unsynced bs=64k count=64 status=none; done) &
	sleep 2
	say "BT REQ reset"
	sleep 600
	say "BT FAIL 3 reset: no reset came within 600 s"
	systemctl --no-block poweroff ;;
*) systemctl --no-block poweroff ;;
esac
exit 0
