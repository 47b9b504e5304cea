# SPDX-License-Identifier: GPL-2.0-or-later
# The monitoring policy a pool keeps in its VG: set by tpcreate, shown and
# changed by tpchange, reported by tpstatus; bad values refused with every
# device unchanged; tvcreate and tvsnap warn above the warn threshold.
DATA_SIZE=128M
new_pool mp --chunk 64k --warn 85 --autoextend-threshold 70 --autoextend-by 25%
field() { tpstatus --noheadings -o "$1" mp | tr -d ' '; }
[ "$(field pool_warn)" = 85 ] || fail "warn after tpcreate: $(field pool_warn)"
[ "$(field pool_autoextend_threshold)" = 70 ] || fail "threshold: $(field pool_autoextend_threshold)"
[ "$(field pool_autoextend_by)" = "25%" ] || fail "by: $(field pool_autoextend_by)"
[ "$(field pool_monitor)" = "-" ] || fail "a monitor action before any monitor ran"
ok tpchange mp
out_has "warn at 85%, autoextend at 70% by 25%"
grep -q "autoextend_threshold=70" "$(backup_dir mp)"/*.vg || fail "policy not in the VG"

# changes: one setting leaves the others; a size replaces the percentage
ok tpchange --autoextend-by 2G mp
out_has "warn at 85%, autoextend at 70% by 2 GiB"
ok tpchange --warn 0 --autoextend-threshold off mp
out_has "warn never, autoextend off (by 2 GiB when on)"
ok tpchange --warn 80% --autoextend-threshold 100 --autoextend-by 10% mp
out_has "warn at 80%, autoextend off (by 10% when on)"
# the cap: kept in the VG's monitor section, shown, removed with none
ok tpchange --autoextend-max 3G mp
out_has "warn at 80%, autoextend off (by 10% up to 3 GiB when on)"
grep -q "autoextend_max=3221225472" "$(backup_dir mp)"/*.vg || fail "cap not in the VG"
[ "$(field pool_autoextend_max)" = 3GiB ] || fail "pool_autoextend_max: $(field pool_autoextend_max)"
ok tpchange --autoextend-max none mp
out_lacks "up to"
[ "$(field pool_autoextend_max)" = none ] || fail "pool_autoextend_max none: $(field pool_autoextend_max)"
# the autoextend device: an absolute path kept in the VG, shown, removed
# with none; a relative one resolved; a device of the pool refused
image spare.img 64M
ok tpchange --autoextend-device spare.img mp
out_has "then onto $PWD/spare.img"
grep -q "autoextend_device=\"$PWD/spare.img\"" "$(backup_dir mp)"/*.vg ||
	fail "the autoextend device is not in the VG"
[ "$(field pool_autoextend_device)" = "$PWD/spare.img" ] ||
	fail "pool_autoextend_device: $(field pool_autoextend_device)"
ok tpchange --autoextend-max 3G mp
out_has "up to 3 GiB, then onto $PWD/spare.img"
ok tpchange --autoextend-device none --autoextend-max none mp
out_lacks "onto"
[ "$(field pool_autoextend_device)" = none ] ||
	fail "pool_autoextend_device after none: $(field pool_autoextend_device)"
unchanged 3 tpchange --autoextend-device mp-data.img mp
err_has "one of its devices already"
unchanged 3 tpchange --autoextend-device nothere.img mp
unchanged 3 tpchange --autoextend-device "" mp
# what tpextend --data would refuse: missing (also as an absolute path), no
# block device or image file (exit 3); another pool's device, a file
# system (refused, 5); tpcreate the same, and its own devices (3)
unchanged 3 tpchange --autoextend-device "$PWD/nothere.img" mp
err_has "takes an existing block device or image file"
mkdir adir
unchanged 3 tpchange --autoextend-device adir mp
err_has "this is a directory"
unchanged 3 tpchange --autoextend-device /dev/zero mp
err_has "this is a character device"
DATA_SIZE=64M META_SIZE=16M new_pool other
unchanged 5 tpchange --autoextend-device other-data.img mp
err_has "other-data.img belongs to pool other (its data device 1: its VG names it)"
image fs.img 16M
mkfs.ext4 -q -F fs.img || fail "mkfs.ext4 fs.img"
unchanged 5 tpchange --autoextend-device fs.img mp
err_has "carries ext4 filesystem"
err_has "wipefs -a"
image y-data.img 128M
image y-meta.img 16M
unchanged 5 tpcreate --data y-data.img --meta y-meta.img --autoextend-device other-meta.img y
err_has "other-meta.img belongs to pool other (its metadata device: its VG names it)"
unchanged 3 tpcreate --data y-data.img --meta y-meta.img --autoextend-device y-meta.img y
err_has "is one of the pool's own devices"
unchanged 3 tpcreate --data y-data.img --meta y-meta.img --autoextend-device adir y
ok tpcreate --data y-data.img --meta y-meta.img --autoextend-device spare.img y
ok tpchange y
out_has "then onto $PWD/spare.img"
# the device the VG names already is not looked at again: once added (as
# tpmonitor does), it is the pool's, and other settings still change
ok tpextend --data spare.img y
ok tpchange --warn 75 y
out_has "warn at 75%"

# refusals: usage errors, nothing written
for bad in "--warn 101" "--warn -1" "--warn x" "--autoextend-threshold 49" \
	   "--autoextend-threshold 101" "--autoextend-threshold on" "--autoextend-by 0%" \
	   "--autoextend-by 1001%" "--autoextend-by 0" "--autoextend-by 5%%" "--autoextend-by x" \
	   "--autoextend-max 0" "--autoextend-max x" "--autoextend-max -1G"; do
	# shellcheck disable=SC2086
	unchanged 3 tpchange $bad mp
done
unchanged 3 tvchange --warn 50 mp/x
image x-data.img 128M
image x-meta.img 16M
unchanged 3 tpcreate --data x-data.img --meta x-meta.img --autoextend-threshold 20 x
grep -l '^	name="x"$' "$TPTOOLS_DIR"/backup/*/*.vg && fail "a refused tpcreate left a backup"

# a pool created without the options has the defaults, and its VG text no
# monitor section (older tptools read it unchanged)
new_pool plain
ok tpchange plain
out_has "warn at 80%, autoextend off (by 20% when on)"
grep -q "monitor {" "$(backup_dir plain)"/*.vg && fail "default policy written to the VG"

# tvcreate and tvsnap: no warning below the threshold ...
ok tvcreate -V 100M -n a mp
grep -q "full" err && fail "a warning below the threshold: $(cat err)"
# ... and one above: 1800 of the 2032 chunks mapped (88%)
map_ranges mp 0:0:0:1800
ok tvcreate -V 10M -n b mp
err_has "pool mp: data is 88% full (112.50 MiB of 127 MiB), at or above its warn threshold of 80%"
err_has "tpextend mp"
ok tvsnap mp/a -n a-snap
err_has "pool mp: data is 88% full"
# warn 0: never
ok tpchange --warn 0 mp
ok tvsnap mp/a -n a-snap2
grep -q "full" err && fail "warned with --warn 0: $(cat err)"
ok tpcheck mp

# the monitor's last action comes from its state file (not the VG)
uuid=$(tpstatus --noheadings -o pool_uuid mp | tr -d ' ')
mkdir -p "$TPTOOLS_DIR/run/monitor"
printf 'pool mp\ndata_warned 85\nmeta_warned 0\nerror_set 0\ntime 1700000000\naction data 88%% full\n' \
	>"$TPTOOLS_DIR/run/monitor/$uuid"
ok tpstatus --noheadings -o pool_monitor mp
out_has "2023-11-14 22:13:20 data 88% full"
echo "time x" >"$TPTOOLS_DIR/run/monitor/$uuid"
ok tpstatus --noheadings -o pool_monitor mp
[ "$(tr -d ' ' <out)" = "-" ] || fail "a damaged state file shown: $(cat out)"

# what a full pool does: tpchange --when-full (offline: the VG only)
ok tpchange --when-full error mp
out_has "when full error"
[ "$(field pool_when_full)" = error ] || fail "when_full after tpchange: $(field pool_when_full)"
ok tpchange --when-full queue mp
[ "$(field pool_when_full)" = queue ] || fail "when_full back: $(field pool_when_full)"
unchanged 3 tpchange --when-full never mp

# tpmonitor: one instance; --once with no active pool (no device-mapper
# here) looks at nothing and succeeds; bad options are usage errors
ok tpmonitor --once
usage_error tpmonitor --interval 0
usage_error tpmonitor --once --daemon
usage_error tpmonitor mp
# SIGTERM, SIGINT and SIGHUP each stop it, exit 0 (lib/base/critical.h
# catches them for it: tp_signals_catch)
for sig in TERM INT HUP; do
	rm -f mon.out	# so that the wait is for this one's start
	tpmonitor --interval 1 >mon.out 2>&1 &
	mon=$!
	wait_until $mon grep -qs started mon.out || fail "tpmonitor did not start: $(cat mon.out)"
	if [ $sig = TERM ]; then
		failed tpmonitor --once
		err_has "another tpmonitor is running"
	fi
	kill -$sig $mon
	wait $mon || fail "tpmonitor did not stop cleanly on SIG$sig: $(cat mon.out)"
	grep -q "stopped" mon.out || fail "SIG$sig: no 'stopped' message: $(cat mon.out)"
done
