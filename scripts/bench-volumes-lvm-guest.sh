#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-volumes-lvm-guest.sh - the guest part of scripts/bench-volumes-lvm.sh
# (run by test/vm/run.sh): per-volume commands of LVM2 thin LVs and of
# tptools volumes timed on the real kernel, in one boot, at each count of
# COUNTS (thin volumes in the pool, "3 1000" by default), REPS (9) times
# each, LVM's and tptools' repetitions interleaved (a drift of the host's
# load touches both alike).
#
# Devices: three virtio disks of the same kind (sparse files, cache=unsafe):
# the tptools pool bp on the first (data) and second (thin metadata), the
# LVM VG bv on the third (one PV: data, metadata and LVM's spare metadata
# LV). Both pools: 64 KiB chunks, no zeroing, 64 MiB of thin metadata
# (1,000 empty thin devices take a btree root block of 4 KiB each, more
# than either tool's default for a small pool), thin volumes of 64 MiB.
#
# The counted volumes: v0 (the snapshots' origin, active), v1 (renamed
# back and forth; inactive: tvrename refuses an active volume, so LVM's is
# inactive too) and v2 (active) are made by each tool's create command; the
# others (f3, f4, ...) are inactive: LVM's by not being activated,
# tptools' flagged --activate n and unloaded by tpdeactivate after the
# pool's tpactivate (which loads them all the same; only --all and --auto
# pass them by). The run of 2026-12-07 in bench/volumes-lvm.md had them
# all loaded (before that tpdeactivate).
# Growing the pools to a count:
#   tptools: tvcreate --activate n in a loop on the deactivated pool
#     (offline: the thin devices are made in the thin metadata by tptools
#     itself), then tpactivate;
#   LVM (LVM_FILL=restore, the default): the VG deactivated, the thin
#     devices added to the pool's thin metadata (swapped out into an LV by
#     lvconvert --poolmetadata, thin_dump, one <device> element per LV
#     added, thin_restore, thin_check, swapped back), and the LV sections
#     added to the VG text (vgcfgbackup, one copy of v2's section per LV with
#     its own name, id and device_id, vgcfgrestore --force): the same VG
#     metadata and thin metadata as that many lvcreate -V -an would leave
#     (the transaction id unchanged in both, so they still agree);
#     LVM_FILL=loop: lvcreate -An -V in a loop, on the active pool.
# LVM runs with its defaults except: no udev (udev_sync = 0, udev_rules = 0:
# the guest has no udevd; tptools runs with DM_DISABLE_UDEV=1 too), no
# dmeventd monitoring, no lvmpolld, no devices file, a filter to its one
# disk; backups and archives ON (LVM's default; tptools writes its host
# backups too) into the scenario's directory (the host's /etc is read-only
# here); thin_check_executable left at its default (/usr/sbin/thin_check,
# thin-provisioning-tools on the host), which LVM runs when it activates
# the pool: never inside a timed command.
#
# Timed (bash's EPOCHREALTIME around each command, output to a log):
#   create  lvm lvcreate -q -V 64M -T bv/pool -n new   tvcreate -V 64M -n new bp
#   remove  lvm lvremove -q -y bv/new                  tvremove -y bp/new
#   snap    lvm lvcreate -q -s bv/v0 -n snap           tvsnap --activate n -n snap bp/v0
#   rmsnap  lvm lvremove -q -y bv/snap                 tvremove -y bp/snap
#   rename  lvm lvrename -q bv v1 v1x (and back)       tvrename bp/v1 v1x (and back)
#   status  lvm lvs bv                                 tpstatus bp
# (the new volume is activated by both; the snapshot by neither: LVM
# gives thin snapshots the activation skip flag, tvsnap --activate n is
# the same; both origins are active, so both snapshots suspend it).
# Results: $TP_OUT/times.txt, lines "TOOL COUNT OP REP SECONDS", and
# $TP_OUT/info.txt (key=value).
. "$TP_SRC/test/vm/lib.sh"
[ -n "${TP_OUT:-}" ] || skip_scenario "needs TP_VM_OUT (results)"
[ -f "$TP_OUT/bench.conf" ] && . "$TP_OUT/bench.conf"
COUNTS=${COUNTS:-3 1000}
REPS=${REPS:-9}
LVM_FILL=${LVM_FILL:-restore}
PV_MDA=${PV_MDA:-8m}
# (lvcreate -s looks for the snapshot target even for a thin snapshot)
vm_begin -n 3 -e -k dm-snapshot
command -v lvm >/dev/null || die "lvm2 is not installed on the host (apt-get install lvm2)"
command -v thin_dump >/dev/null || die "thin-provisioning-tools is not installed on the host"
TIMES=$TP_OUT/times.txt
INFO=$TP_OUT/info.txt
LOG=$TP_OUT/commands.log
: >"$TIMES"
: >"$INFO"
: >"$LOG"
info() { echo "$1=$2" >>"$INFO"; }

mkdir -p lvmconf/backup lvmconf/archive /run/lock/lvm /run/lvm
cat >lvmconf/lvm.conf <<EOF
devices { obtain_device_list_from_udev = 0 use_devicesfile = 0 filter = [ "a|^${disks[2]}\$|", "r|.*|" ] }
activation { udev_sync = 0 udev_rules = 0 monitoring = 0 }
global { use_lvmpolld = 0 }
backup { backup = 1 backup_dir = "$PWD/lvmconf/backup" archive = 1 archive_dir = "$PWD/lvmconf/archive" }
EOF
export LVM_SYSTEM_DIR=$PWD/lvmconf LVM_SUPPRESS_FD_WARNINGS=1

info kernel "$(uname -r)"
info lvm_version "$(lvm version | sed -n 's/^ *LVM version: *//p')"
info thin_check "$(thin_check -V 2>&1 | head -1)"
info tptools "$(tpstatus --version 2>&1 | head -1)"
info cpu "$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -1)"
info mem_mib "$(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo)"

# timed TOOL COUNT OP REP CMD...: run CMD (output to the log), its seconds
# to $TIMES; a failure stops the run
timed() {
	local tool=$1 count=$2 op=$3 rep=$4 t0 t1
	shift 4
	echo "## $tool $count $op $rep: $*" >>"$LOG"
	t0=$EPOCHREALTIME
	"$@" >>"$LOG" 2>&1 || die "$tool at $count: $* failed (exit $?; $LOG)"
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" -v p="$tool $count $op $rep" 'BEGIN { printf "%s %.4f\n", p, b - a }' >>"$TIMES"
}
q() { "$@" >>"$LOG" 2>&1 || die "exit $?: $* ($LOG)"; }

step "tptools pool bp on ${disks[0]} (data), ${disks[1]} (metadata)"
must tpcreate --data "${disks[0]}" --meta "${disks[1]}" --chunk 64k --zero n --metadata-size 64m bp
for v in v0 v1 v2; do must tvcreate -q -V 64M -n "$v" bp; done
must tpactivate bp
step "LVM VG bv on ${disks[2]} (pvcreate --metadatasize $PV_MDA), thin pool bv/pool"
must lvm pvcreate -q ${PV_MDA:+--metadatasize "$PV_MDA"} "${disks[2]}"
must lvm vgcreate -q bv "${disks[2]}"
must lvm lvcreate -q --type thin-pool -L 512M --poolmetadatasize 64M -c 64k -Zn -n pool bv
for v in v0 v1 v2; do must lvm lvcreate -q -V 64M -T bv/pool -n "$v"; done
# v1 (the renamed one) inactive in both: tvrename refuses an active volume
must tpdeactivate bp v1
must lvm lvchange -q -an bv/v1
lvm pvs -o pv_name,pv_mda_size,pv_mda_free,vg_mda_size,vg_mda_free
lvm lvs -a bv
info lvm_pv_mda_size "$(lvm pvs --noheadings --units b --nosuffix -o pv_mda_size "${disks[2]}" | tr -d ' ')"
tpstatus bp

have=3
# tp_grow N: f$have .. f$((N-1)) by tvcreate --activate n on the inactive pool
tp_grow() {
	local i t0
	must tpdeactivate bp
	t0=$EPOCHREALTIME
	for ((i = have; i < $1; i++)); do
		tvcreate -q --activate n -V 64M -n "f$i" bp >>"$LOG" 2>&1 || die "tvcreate f$i (exit $?)"
	done
	info "tp_fill_$1_seconds" "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
	# tpactivate POOL activates volumes flagged activate n too (only --all
	# and --auto pass them by): the new ones and v1 unloaded again, so that
	# as in LVM's VG only v0 and v2 are in the kernel
	must tpactivate bp
	must tpdeactivate bp v1 $(seq -f 'f%.0f' "$have" $(($1 - 1)))
	[ "$(dmsetup ls | grep -c '^bp-[vf][0-9]')" = 2 ] ||
		die "bp has $(dmsetup ls | grep -c '^bp-[vf][0-9]') volumes in the kernel, want 2 (v0, v2)"
	[ "$(tpstatus --noheadings -o vol_name bp | wc -l)" = "$1" ] || die "bp has $(tpstatus --noheadings -o vol_name bp | wc -l) volumes, want $1"
}
# lvm_grow_loop N: lvcreate -An in a loop
lvm_grow_loop() {
	local i
	for ((i = have; i < $1; i++)); do
		lvm lvcreate -q -An -V 64M -T bv/pool -n "f$i" >>"$LOG" 2>&1 || die "lvcreate f$i (exit $?)"
	done
}
# lvm_grow_restore N: thin devices into the pool's thin metadata, LV
# sections into the VG text (see the head)
lvm_grow_restore() {
	local n=$1 size first tx
	q lvm vgchange -an bv
	size=$(lvm lvs --noheadings --nosuffix --units b -o lv_metadata_size bv/pool | tr -d ' ')
	q lvm lvcreate -q -an -Zn -L "${size}b" -n fillmeta bv
	q lvm lvconvert -q -y --thinpool bv/pool --poolmetadata bv/fillmeta
	q lvm lvchange -q -ay bv/fillmeta
	thin_dump /dev/mapper/bv-fillmeta >thin-before.xml || die "thin_dump"
	first=$(awk -F'"' '/<device / { for (i = 1; i < NF; i++) if ($i ~ /dev_id=$/) if ($(i + 1) + 0 > m) m = $(i + 1) + 0 } END { print m + 1 }' thin-before.xml)
	tx=$(sed -n 's/.*<superblock.* transaction="\([0-9]*\)".*/\1/p' thin-before.xml)
	# LV f$i gets device id first + (i - have)
	awk -v from="$have" -v to="$n" -v first="$first" '
		/<\/superblock>/ { for (i = from; i < to; i++)
			printf "  <device dev_id=\"%d\" mapped_blocks=\"0\" transaction=\"0\" creation_time=\"0\" snap_time=\"0\">\n  </device>\n", first + i - from }
		{ print }' thin-before.xml >thin-after.xml
	thin_restore -q -i thin-after.xml -o /dev/mapper/bv-fillmeta || die "thin_restore"
	thin_check -q /dev/mapper/bv-fillmeta || die "thin_check of the restored metadata"
	q lvm lvchange -q -an bv/fillmeta
	q lvm lvconvert -q -y --thinpool bv/pool --poolmetadata bv/fillmeta
	q lvm lvremove -q -y bv/fillmeta
	q lvm vgcfgbackup -q -f vg-before.txt bv
	grep -q "transaction_id = $tx\$" vg-before.txt || die "the VG's transaction id is not the thin metadata's ($tx)"
	# v2's section (two tabs deep, inside logical_volumes) copied per LV
	awk -v from="$have" -v to="$n" -v first="$first" '
		/^\tlogical_volumes \{$/ { inlv = 1 }
		inlv && /^\t\tv2 \{$/ { grab = 1 }
		grab { tpl[++nt] = $0; if ($0 ~ /^\t\t\}$/) grab = 0 }
		inlv && /^\t\}$/ {
			for (i = from; i < to; i++) {
				for (j = 1; j <= nt; j++) {
					l = tpl[j]
					if (j == 1) l = sprintf("\t\tf%d {", i)
					else if (l ~ /^\t\t\tid = /) l = sprintf("\t\t\tid = \"FiLL00-0000-0000-0000-0000-0000-%06d\"", i)
					else if (l ~ /^\t\t\t\tdevice_id = /) l = sprintf("\t\t\t\tdevice_id = %d", first + i - from)
					print l
				}
				print ""
			}
			inlv = 0
		}
		{ print }' vg-before.txt >vg-after.txt
	[ "$(grep -c 'type = "thin"$' vg-after.txt)" = "$n" ] || die "vg-after.txt: $(grep -c 'type = "thin"$' vg-after.txt) thin LVs, want $n"
	yes | lvm vgcfgrestore -q --force -f vg-after.txt bv >>"$LOG" 2>&1 || die "vgcfgrestore"
	q lvm lvchange -q -ay bv/v0 bv/v2
	[ "$(dmsetup ls | grep -c '^bv-[vf][0-9]')" = 2 ] ||
		die "bv has $(dmsetup ls | grep -c '^bv-[vf][0-9]') LVs in the kernel, want 2 (v0, v2)"
}
lvm_grow() {
	local t0=$EPOCHREALTIME
	"lvm_grow_$LVM_FILL" "$1"
	info "lvm_fill_$1_seconds" "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
	local got
	got=$(lvm lvs --noheadings -o lv_name,segtype bv | awk '$2 == "thin"' | wc -l)
	[ "$got" = "$1" ] || die "bv has $got thin LVs, want $1"
	# the pool's own count of its thin LVs
	got=$(lvm lvs --noheadings -o thin_count bv/pool | tr -d ' ')
	[ "$got" = "$1" ] || die "bv/pool counts $got thin LVs, want $1"
}

# one repetition of each tool's six commands at COUNT
lvm_rep() {
	local c=$1 r=$2 a=v1 b=v1x
	[ $((r % 2)) = 0 ] && a=v1x b=v1
	timed lvm "$c" create "$r" lvm lvcreate -q -V 64M -T bv/pool -n new
	timed lvm "$c" remove "$r" lvm lvremove -q -y bv/new
	timed lvm "$c" snap "$r" lvm lvcreate -q -s bv/v0 -n snap
	timed lvm "$c" rmsnap "$r" lvm lvremove -q -y bv/snap
	timed lvm "$c" rename "$r" lvm lvrename -q bv "$a" "$b"
	timed lvm "$c" status "$r" lvm lvs bv
}
tp_rep() {
	local c=$1 r=$2 a=v1 b=v1x
	[ $((r % 2)) = 0 ] && a=v1x b=v1
	timed tp "$c" create "$r" tvcreate -V 64M -n new bp
	timed tp "$c" remove "$r" tvremove -y bp/new
	timed tp "$c" snap "$r" tvsnap --activate n -n snap bp/v0
	timed tp "$c" rmsnap "$r" tvremove -y bp/snap
	timed tp "$c" rename "$r" tvrename bp/"$a" "$b"
	timed tp "$c" status "$r" tpstatus bp
}

for c in $COUNTS; do
	if [ "$c" -gt "$have" ]; then
		step "growing both to $c thin volumes (LVM: $LVM_FILL)"
		tp_grow "$c"
		lvm_grow "$c"
		have=$c
	fi
	step "count $c: $REPS repetitions"
	info "lvm_vg_text_bytes_$c" "$(lvm vgcfgbackup -q -f "vg-$c.txt" bv >/dev/null 2>&1; stat -c %s "vg-$c.txt")"
	info "lvm_vg_mda_free_$c" "$(lvm vgs --noheadings --units b --nosuffix -o vg_mda_free bv | tr -d ' ')"
	for ((r = 1; r <= REPS; r++)); do
		# the order of the two tools alternates
		if [ $((r % 2)) = 1 ]; then lvm_rep "$c" "$r"; tp_rep "$c" "$r"
		else tp_rep "$c" "$r"; lvm_rep "$c" "$r"; fi
	done
	# after an odd number of renames v1 is v1x: put it back
	[ $((REPS % 2)) = 1 ] && { q lvm lvrename -q bv v1x v1; q tvrename bp/v1x v1; }
	awk -v c="$c" '$2 == c { print }' "$TIMES" | sort -k1,1 -k3,3 -k5,5n |
		awk '{ k = $1 " " $3; v[k] = v[k] " " $5 } END { for (k in v) print "  " k ":" v[k] }' | sort
done

tpstatus bp | tail -3
lvm lvs bv | tail -3
must tpdeactivate bp
check tpcheck bp
q lvm vgchange -an bv
info finished 1
finish
