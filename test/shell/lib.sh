# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh - helpers for shell tests (sourced by test/shell/run.sh into each test).
#
# Each test runs in its own temporary directory (cwd) with TPTOOLS_DIR set
# to ./etc and the freshly built commands first on PATH. A test passes when
# it exits 0.
#
# ok and fail mean the same here and in test/vm/lib.sh: they STOP the test.
# `fail MSG` stops it with a message; `ok CMD` demands that CMD succeeds,
# else it stops. Every helper here that checks something stops on the first
# failure; there is no "count and go on" (the VM scenarios' check, not,
# expect_eq and note_fail do that).

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_rc N CMD...: run CMD, demand exit code N exactly; output goes to
# ./out and ./err (also echoed on failure).
expect_rc() {
	local want=$1 rc
	shift
	"$@" >out 2>err && rc=0 || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "--- stdout of: $*" >&2; cat out >&2
		echo "--- stderr:" >&2; cat err >&2
		fail "'$*' exited $rc, expected $want"
	fi
}
ok() { expect_rc 0 "$@"; }
usage_error() { expect_rc 3 "$@"; }
failed() { expect_rc 5 "$@"; }

# grep helpers on the last command's output
out_has() { grep -q -- "$1" out || { cat out >&2; fail "stdout lacks '$1'"; }; }
err_has() { grep -q -- "$1" err || { cat err >&2; fail "stderr lacks '$1'"; }; }
out_lacks() { ! grep -q -- "$1" out || { cat out >&2; fail "stdout has '$1'"; }; }
err_lacks() { ! grep -q -- "$1" err || { cat err >&2; fail "stderr has '$1'"; }; }

# sums FILE...: print one checksum line per file (for byte-for-byte checks),
# "SUM SIZE FILE". A test compares a device with itself before and after a
# command, not against an adversary: tp-sum (test/tools/tp-sum.c) sums the
# bytes but reads only a sparse image's data, where cksum reads the holes
# too (4 GiB of zeros per pool image of t-pool-create, at every
# `unchanged`); cksum when tp-sum is not built.
sums() { if command -v tp-sum >/dev/null; then tp-sum "$@"; else cksum "$@"; fi; }
# sums_same FILE: the files FILE (a `sums` output) names still have its sums
sums_same() { sums $(awk '{ print $3 }' "$1") | cmp -s - "$1"; }

# image NAME SIZE: a sparse image file
image() { rm -f "$1"; truncate -s "$2" "$1"; }

# geometry override for image files (see tpcreate(8)): md chunk, full stripe
raid_geometry() { export TPTOOLS_TOPOLOGY="min_io=$1,opt_io=$2,align=${3:-0}"; }

# wait_until PID CMD...: until CMD succeeds (true) or PID has ended or 5
# minutes passed (false); a loaded or sanitizer run takes its time. (It
# looks every 10 ms for the first half second, within which most waits for
# a test pause end, then every 100 ms: the interruption tests wait here
# hundreds of times, and a first look after 100 ms cost each wait most of
# that tenth of a second.)
wait_until() {
	local pid=$1 i
	shift
	for ((i = 0; i < 3050; i++)); do
		"$@" && return 0
		kill -0 "$pid" 2>/dev/null || break
		if ((i < 50)); then sleep 0.01; else sleep 0.1; fi
	done
	"$@"
}
# killed_at PAUSE CMD...: CMD run with the test pause PAUSE (name[=n]),
# stdout in out and stderr in err, killed (SIGKILL) once it waits there;
# fails the test if it never got there or did not die of the kill
killed_at() {
	local pause=$1 pid rc=0
	shift
	rm -f pause
	env TP_TEST_PAUSE="$pause" TP_TEST_PAUSE_FILE="$PWD/pause" "$@" >out 2>err &
	pid=$!
	wait_until "$pid" test -e pause || { cat err >&2; fail "'$*' never reached $pause"; }
	kill -KILL "$pid"
	wait "$pid" || rc=$?
	rm -f pause
	[ $rc = 137 ] || { cat err >&2; fail "'$*' at $pause: exit $rc"; }
}
have() { command -v "$1" >/dev/null 2>&1; }
skip() { echo "SKIP: $*"; exit 77; }

# loop_attach VAR FILE: a loop device for FILE, its path in VAR and in
# loops[] (skips the test when none can be attached); loops_detach
# detaches every one listed (for the test's EXIT trap). Call loop_attach
# in the test's own shell, not in $(...), or the trap misses the device.
loops=()
loop_attach() {
	local l
	l=$(losetup -f --show "$2") || skip "cannot attach a loop device"
	loops+=("$l")
	printf -v "$1" '%s' "$l"
}
loops_detach() {
	local l i
	for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null || true; done
	# a detach that finds the device open (another program's label scan of
	# the host's block devices) is done at its last close: wait for it, so
	# the next attach of the same image is no duplicate of a lingering one
	for l in "${loops[@]}"; do
		for ((i = 0; i < 50; i++)); do
			[ -n "$(losetup -n -O BACK-FILE "$l" 2>/dev/null)" ] || break
			sleep 0.1
		done
	done
}

# loop_images VAR FILE SIZE...: for each triple, a new image FILE of SIZE
# and a loop device for it in VAR (loop_attach: call it in the test's shell;
# the test's EXIT trap detaches them, skips the test without losetup)
loop_images() {
	have losetup || skip "no losetup"
	trap loops_detach EXIT
	while [ $# -ge 3 ]; do
		image "$2" "$3"
		loop_attach "$1" "$2"
		shift 3
	done
}

# loop_pool POOL: pool POOL on two loop devices (their paths in ld and lm)
# over new images ld.img (256M) and lm.img (16M), with a 1G volume v; the
# EXIT trap detaches them (skips the test without losetup)
loop_pool() {
	have losetup || skip "no losetup"
	image ld.img 256M
	image lm.img 16M
	trap loops_detach EXIT
	loop_attach ld ld.img
	loop_attach lm lm.img
	ok tpcreate --data "$ld" --meta "$lm" "$1"
	ok tvcreate -V 1G -n v "$1"
}

# meta_area POOL [--devices D,M]: "offset length" of the active
# thin-metadata area, read from tpstatus --json as external tools would
meta_area() {
	local pool=$1
	shift
	tpstatus "$@" --json "$pool" | python3 -c '
import json, sys
p = json.load(sys.stdin)["report"][0]["pool"][0]
print(p["pool_meta_offset"], p["pool_meta_length"])'
}

# pool_bytes POOL FIELD[,FIELD...]: the pool's values of those tpstatus
# columns in bytes (--units b, the b suffix dropped), on one line
pool_bytes() {
	tpstatus --noheadings --units b -o "$2" "$1" |
		awk 'NF { for (i = 1; i <= NF; i++) sub(/b$/, "", $i); $1 = $1; print; exit }'
}

# backup_dir POOL: the directory of POOL's VG metadata backups,
# <config dir>/backup/<pool uuid> (tp-metadata(5) BACKUPS), by the pool
# uuid the devices file records for it (POOL POOL_UUID ROLE PV_UUID PATH)
backup_dir() {
	local u
	u=$(awk -v p="$1" '$1 == p && length($2) == 36 { print $2; exit }' \
		"$TPTOOLS_DIR/devices" 2>/dev/null)
	[ -n "$u" ] || fail "the devices file records no pool uuid for $1"
	printf '%s\n' "$TPTOOLS_DIR/backup/$u"
}

# meta_dev POOL: the metadata device path
meta_dev() {
	tpstatus --noheadings -o pool_meta_dev "$1" | awk 'NF { print $1; exit }'
}

# thin_check_pool POOL: copy the active thin-metadata area out and run
# thin_check (thin-provisioning-tools 0.9.0) on it.
thin_check_pool() {
	local pool=$1 off len dev
	read -r off len < <(meta_area "$pool")
	dev=$(meta_dev "$pool")
	[ -n "$off" ] && [ -n "$len" ] || fail "no metadata area for $pool"
	dd if="$dev" of=area.img bs=1M iflag=skip_bytes,count_bytes skip="$off" count="$len" \
		status=none
	thin_check area.img >tc.out 2>&1 || { cat tc.out >&2; fail "thin_check failed on $pool"; }
}

# new_pool NAME [tpcreate options...]: images NAME-data.img (4G) and
# NAME-meta.img (64M), and the pool on them.
new_pool() {
	local name=$1
	shift
	image "$name-data.img" "${DATA_SIZE:-4G}"
	image "$name-meta.img" "${META_SIZE:-64M}"
	ok tpcreate --data "$name-data.img" --meta "$name-meta.img" "$@" "$name"
}

# unchanged RC CMD...: CMD must exit RC, print an error, and leave every
# *.img in the current directory byte-for-byte unchanged.
unchanged() {
	local want=$1
	shift
	sums ./*.img >sums.before 2>/dev/null || true
	expect_rc "$want" "$@"
	grep -q "error" err || { cat err >&2; fail "'$*' printed no error message"; }
	sums ./*.img >sums.after 2>/dev/null || true
	cmp -s sums.before sums.after || { diff sums.before sums.after >&2; fail "'$*' changed a device"; }
}

# save_area POOL FILE / load_area POOL FILE: copy the active thin-metadata
# area out of / back into the pool's metadata device (to simulate a crash
# between the VG commit and the thin commit).
save_area() {
	local off len
	read -r off len < <(meta_area "$1")
	dd if="$(meta_dev "$1")" of="$2" bs=1M iflag=skip_bytes,count_bytes skip="$off" \
		count="$len" status=none
}
load_area() {
	local off len
	read -r off len < <(meta_area "$1")
	dd if="$2" of="$(meta_dev "$1")" bs=1M oflag=seek_bytes seek="$off" conv=notrunc \
		status=none
}
# map_ranges POOL DEV:ORIGIN:DATA:LEN...: add range mappings to the thin
# devices of POOL's active area as if the kernel had made them (through
# thin_dump, the XML and thin_restore; the data device is not written)
map_ranges() {
	local pool=$1
	shift
	save_area "$pool" area.img
	thin_dump area.img | awk -v ranges="$*" '
		BEGIN { n = split(ranges, r, " ") }
		{ print }
		/<device dev_id="/ {
			id = $0; sub(/.*dev_id="/, "", id); sub(/".*/, "", id)
			for (i = 1; i <= n; i++) {
				split(r[i], f, ":")
				if (f[1] == id)
					printf "    <range_mapping origin_begin=\"%d\" data_begin=\"%d\" length=\"%d\" time=\"0\"/>\n", f[2], f[3], f[4]
			}
		}' >mapped.xml
	thin_restore -q -i mapped.xml -o area.img || fail "map_ranges: thin_restore refused"
	load_area "$pool" area.img
}
# thin_devices POOL: the number of thin devices in the active area (thin_dump)
thin_devices() {
	thin_check_pool "$1"
	thin_dump area.img | grep -c "<device " || true
}
# vol_field POOL VOL FIELD [tpstatus options...]: the vol_* column FIELD of
# volume VOL of POOL ("" when the pool has no such volume or the value is
# empty); e.g. vol_field vault www vol_size --units b
vol_field() {
	local pool=$1 vol=$2 field=$3
	shift 3
	tpstatus --noheadings "$@" -o "vol_name,$field" "$pool" | awk -v v="$vol" '$1 == v { print $2 }'
}
# vol_dev_id POOL VOL: the volume's thin device id
vol_dev_id() { vol_field "$1" "$2" vol_dev_id; }
# write_chunks POOL VOL VBLOCK COUNT: in a pool of 64 KiB chunks on
# POOL-data.img, map COUNT chunks of VOL from VBLOCK on as the kernel
# would (tp-thinmap) and put random data into them on the data device and
# into VOL.want, the volume's expected image
write_chunks() {
	local pool=$1 vol=$2 vb=$3 n=$4 v d off
	off=$(pool_bytes "$pool" pool_data_offset)
	[ -n "$off" ] || fail "pool $pool: no data offset"
	save_area "$pool" area.img
	tp-thinmap area.img "$(vol_dev_id "$pool" "$vol")" "$vb" "$n" >map.txt ||
		fail "tp-thinmap failed"
	load_area "$pool" area.img
	while read -r v d; do
		head -c 65536 /dev/urandom >chunk.bin
		dd if=chunk.bin of="$pool-data.img" bs=64K seek=$((off / 65536 + d)) \
			conv=notrunc status=none
		dd if=chunk.bin of="$vol.want" bs=64K seek="$v" conv=notrunc status=none
	done <map.txt
}

# matrix_sample N: a sampled test's sample (t-interrupt-matrix,
# t-recv-interrupt): SAN_SAMPLE=N; SAMPLE, one case in N under the
# sanitizer build, else every case (TP_MATRIX_SAMPLE sets it,
# TP_SHELL_FULL=1 takes every case); SPLIT, 1 for a main-build run that
# takes every case with TP_MATRIX_SPLIT=1 (it leaves the sanitizer run's
# cases to it); TURN, TP_MATRIX_TURN or the day (UTC)
matrix_sample() {
	SAN_SAMPLE=$1
	SAMPLE=${TP_MATRIX_SAMPLE:-1}
	[[ -n ${TP_MATRIX_SAMPLE:-} ]] || [[ ${TP_SANITIZE:-0} != 1 ]] ||
		[[ ${TP_SHELL_FULL:-0} = 1 ]] || SAMPLE=$SAN_SAMPLE
	SPLIT=${TP_MATRIX_SPLIT:-0}
	[[ $SPLIT != 2 ]] || SPLIT=1	# (the two-day split is the damage matrix's)
	[[ $SAMPLE = 1 ]] && [[ ${TP_SHELL_FULL:-0} != 1 ]] && [[ ${TP_SANITIZE:-0} != 1 ]] ||
		SPLIT=0
	TURN=${TP_MATRIX_TURN:-$(($(date -u +%s) / 86400))}
	[[ $TURN =~ ^[0-9]+$ ]] || fail "TP_MATRIX_TURN=$TURN: not a number"
	[[ $SAMPLE =~ ^[1-9][0-9]*$ ]] || fail "TP_MATRIX_SAMPLE=$SAMPLE: not a number above 0"
}
