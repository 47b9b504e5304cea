# SPDX-License-Identifier: GPL-2.0-or-later
# One command, one change (tpchange(8) "All options or none", tvchange(8),
# tvcreate(8), tvsnap(8)): the options of one command are checked first
# and applied in one VG commit, or none of them is.
# - Refusals: for every option that can fail after another was applied,
#   the table below makes it fail (a device too small, no room, no sanlock
#   daemon, a bad value, a fault at the commit or at a preparatory write)
#   behind other options: the exit status is the one listed, the error
#   message says nothing was changed and it is true: every image of the
#   pool, the devices file and the VG backups are byte for byte as before,
#   the VG seqno did not move and tpstatus shows the old settings.
# - Successes: all options applied, in exactly one VG seqno step (both
#   devices' VG areas and one backup more).
# (Interruptions at each step: t-interrupt-matrix.)

# pool_seqno POOL-IMG: the newest VG seqno on that device
seqno_of() { tp-vgtool slots "$1" | sed -n 's/.*newest=\([0-9]*\).*/\1/p'; }
# host_files: the host's files a change may write (no lock files)
host_files() { find "$TPTOOLS_DIR" -type f ! -path '*/lock/*' | sort; }
# settings POOL: what tpstatus shows of the settings the options change
settings() {
	tpstatus --noheadings -o pool_warn,pool_when_full,pool_activation_skip,pool_max_overprovision,pool_meta_legs,pool_lock_type,pool_system_id,pool_autoextend_threshold "$1"
	tpstatus --noheadings -o vol_name,vol_activation_skip,vol_read_only "$1"
}
# fresh KIND: pool p (KIND full: a 64 MiB metadata device its areas fill;
# roomy: 2 MiB areas, room for a lease area) with volume v, a new image
# m2.img (room for a mirror leg) and small.img (too small for one)
fresh() {
	rm -rf ./*.img "$TPTOOLS_DIR"
	mkdir -p "$TPTOOLS_DIR"
	if [ "$1" = roomy ]; then
		new_pool p --chunk 64k --metadata-size 2M
	else
		new_pool p --chunk 64k
	fi
	ok tvcreate -V 64M -n v p
	image m2.img 70M
	image small.img 1M
}

# ---- refusals: KIND|ENV|RC|COMMAND|what the error names ----
# (the option that fails comes after others that would apply)
refusals=$(cat <<'EOF'
full||5|tpchange -y --warn 90 --meta-mirror small.img p|smaller than the layout
full||5|tpchange --warn 60 --lock-type sanlock p|has no 2 MiB free
full||5|tpchange --warn 60 --activate n --when-full error --max-overprovision 3 --lock-type sanlock p|has no 2 MiB free
roomy||5|tpchange --warn 60 --activate n --max-overprovision 3 --lock-type sanlock p|sanlock daemon does not answer
roomy|TP_TEST_LEASE_UNFORMATTED=1|5|tpchange --warn 60 --lock-type sanlock --meta-mirror small.img p|smaller than the layout
full||5|tpchange --warn 60 --activate n --meta-mirror missing.img p|missing.img
full||3|tpchange --warn 60 --when-full error --meta-replace m2.img p|no mirror
full||3|tpchange --warn 60 --activate n --systemid bad/id p|--systemid
full||3|tpchange --activate n --when-full error --warn 60 --autoextend-device p-meta.img p|one of its devices
full|TP_TEST_FAIL=settings-commit|5|tpchange --warn 60 --activate n --when-full error --max-overprovision 3 --autoextend-threshold 90 p|nothing was changed
roomy|TP_TEST_LEASE_UNFORMATTED=1 TP_TEST_FAIL=lease-format|5|tpchange --warn 60 --activate n --lock-type sanlock p|cannot write its lease area
roomy|TP_TEST_LEASE_UNFORMATTED=1 TP_TEST_FAIL=settings-commit|5|tpchange --warn 60 --activate n --lock-type sanlock p|nothing was changed
full|TP_TEST_FAIL=settings-commit|5|tvchange --activate n --readonly y p/v|nothing was changed
full||5|tvchange --readonly y --activate n p/nosuch|has no volume nosuch
full||3|tpchange --warn 60 --meta-mirror m2.img --autoextend-device m2.img p|is the device --meta-mirror names
full||3|tpchange --warn 60 --autoextend-device m2.img --meta-mirror m2.img p|is the device --meta-mirror names
EOF
)
n=0
while IFS='|' read -r kind envs rc cmd says; do
	[ -n "$kind" ] || continue
	fresh "$kind"
	settings p >settings.before
	seq0=$(seqno_of p-meta.img)
	sums p-data.img p-meta.img small.img $(host_files) >sums.before
	# shellcheck disable=SC2086
	expect_rc "$rc" env $envs $cmd
	grep -q "error" err || { cat err >&2; fail "'$cmd' printed no error"; }
	[ -z "$says" ] || err_has "$says"
	if [ "$rc" = 5 ]; then
		grep -q "nothing was changed\|nothing is changed\|not changed" err ||
			{ cat err >&2; fail "'$cmd': exit 5 without saying that nothing was changed"; }
	fi
	sums p-data.img p-meta.img small.img $(host_files) >sums.after
	cmp -s sums.before sums.after ||
		{ diff sums.before sums.after >&2 || true; fail "'$envs $cmd' changed a device or a host file"; }
	[ "$(seqno_of p-meta.img)" = "$seq0" ] || fail "'$cmd' moved the VG seqno"
	settings p >settings.after
	cmp -s settings.before settings.after ||
		{ diff settings.before settings.after >&2 || true; fail "'$cmd' changed a setting"; }
	n=$((n + 1))
done <<<"$refusals"
[ $n -ge 14 ] || fail "only $n refusals ran"

# a mirror leg prepared, then a fault at the commit (or at the lease area
# formatted after the leg): the new leg holds a copy but no reader sees
# it: the pool's devices, host files, seqno and settings as before
for envs in "TP_TEST_FAIL=settings-commit" \
	"TP_TEST_LEASE_UNFORMATTED=1 TP_TEST_FAIL=lease-format"; do
	fresh roomy
	settings p >settings.before
	seq0=$(seqno_of p-meta.img)
	sums p-data.img p-meta.img $(host_files) >sums.before
	lock=
	[ "${envs#*lease}" = "$envs" ] || lock="--lock-type sanlock"
	# shellcheck disable=SC2086
	failed env $envs tpchange --warn 60 --activate n $lock --meta-mirror m2.img --meta-integrity n p
	err_has "nothing was changed"
	sums p-data.img p-meta.img $(host_files) >sums.after
	cmp -s sums.before sums.after ||
		{ diff sums.before sums.after >&2 || true; fail "a mirror cut at its commit ($envs) changed the pool"; }
	[ "$(seqno_of p-meta.img)" = "$seq0" ] || fail "a mirror cut at its commit moved the seqno"
	settings p >settings.after
	cmp -s settings.before settings.after || { diff settings.before settings.after >&2 || true; fail "settings changed"; }
	# the leg is an orphan of the pool: the next --meta-mirror takes it
	ok tpchange --meta-mirror m2.img --meta-integrity n p
done

# exclusive options: exit 3, nothing written
fresh full
unchanged 3 tpchange --warn 60 --meta-mirror m2.img --meta-replace small.img p
err_has "exclude each other"
unchanged 3 tpchange --warn 60 --systemid "" --lock-type none p
err_has "exclude each other"

# ---- successes: all options, one seqno step ----
# one_step CMD...: CMD succeeds, the VG seqno on both devices and the
# backups grow by exactly one
one_step() {
	local s0 b0
	s0=$(seqno_of p-meta.img)
	b0=$(ls "$(backup_dir p)" | wc -l)
	ok "$@"
	[ "$(seqno_of p-meta.img)" = $((s0 + 1)) ] ||
		fail "'$*': seqno $s0 -> $(seqno_of p-meta.img), not one step"
	[ "$(seqno_of p-data.img)" = $((s0 + 1)) ] || fail "'$*': the data device's VG copy is not one step on"
	[ "$(ls "$(backup_dir p)" | wc -l)" = $((b0 + 1)) ] || fail "'$*': not one backup more"
}
fresh full
one_step tpchange --warn 70 --when-full error --activate n --max-overprovision 3 --autoextend-threshold 85 p
[ "$(pool_bytes p pool_warn)" = 70 ] || fail "warn not applied"
settings p >s
grep -q "70 *error *yes *3.00" s || { cat s >&2; fail "the settings are not all applied"; }
grep -q " 85" s || { cat s >&2; fail "the autoextend threshold is not applied"; }
one_step tpchange --warn 75 --activate y --meta-mirror m2.img --meta-integrity n p
settings p >s
grep -q "^ *75 *error *no .*m2.img(in sync)" s || { cat s >&2; fail "mirror and settings not applied together"; }
one_step tvchange --activate n --readonly y p/v
[ "$(vol_field p v vol_activation_skip)" = yes ] && [ "$(vol_field p v vol_read_only)" = yes ] ||
	fail "tvchange: not both applied"
one_step tvcreate --activate n -V 8M -n w p
[ "$(vol_field p w vol_activation_skip)" = yes ] || fail "tvcreate --activate n: flag not set"
one_step tvsnap --readonly --activate n p/w -n ws
[ "$(vol_field p ws vol_activation_skip)" = yes ] && [ "$(vol_field p ws vol_read_only)" = yes ] ||
	fail "tvsnap: flags not set"
out_has "created, read-only, activate n."
one_step tvsnap -a y p/w -n ws2
[ "$(vol_field p ws2 vol_activation_skip)" = no ] || fail "tvsnap -a y: flag not y"
usage_error tvsnap -a maybe p/w -n ws3
# a shared pool with other settings, one step (its lease area left
# unwritten: no sanlock daemon here)
fresh roomy
TP_TEST_LEASE_UNFORMATTED=1 one_step tpchange --warn 65 --activate n --lock-type sanlock p
settings p >s
grep -q "^ *65 .* yes .* sanlock" s || { cat s >&2; fail "lock and settings not applied together"; }

# a mirror's second metadata device is the pool's own: never added as
# data, never its autoextend device; the autoextend device is never made
# a metadata leg (one device, one role)
fresh full
ok tpchange -y -q --meta-mirror m2.img p
for cmd in "tpextend --data m2.img p" "tpchange --autoextend-device m2.img p"; do
	# shellcheck disable=SC2086
	unchanged 3 $cmd
	err_has "m2.img is one of its devices already"
	err_lacks "tpremove --label"
done
fresh full
image m3.img 70M
ok tpchange -q --autoextend-device m3.img p
# shellcheck disable=SC2086
unchanged 3 tpchange -y --meta-mirror m3.img p
err_has "m3.img is its --autoextend-device"
err_lacks "cannot take"

