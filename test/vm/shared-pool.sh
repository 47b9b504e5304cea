# SPDX-License-Identifier: GPL-2.0-or-later
# shared-pool.sh - sourced by the shared-pool scenarios (s2-failover, s2-pause,
# s2-fence, s2-serial): this host's tptools.conf (host id: a 1, b 2;
# sanlock's io_timeout 2 s) and its sanlock daemon without the watchdog
# (-w 0: the guests have no watchdog device; tptools(7) SHARED STORAGE
# says what that gives up), stopped when the scenario ends.
read -r META DATA _ <<<"$TP_SHARED"
[ -n "$DATA" ] || skip_scenario "needs two shared disks"
command -v sanlock >/dev/null || skip_scenario "sanlock is not installed"
id=1 other_id=2
[ "$TP_HOST" = b ] && id=2 other_id=1
IOT=2
printf 'global {\n\thost_id = %s\n\tsanlock_io_timeout = %s\n}\n' "$id" "$IOT" \
	>"$TPTOOLS_DIR/tptools.conf"
mkdir -p /run/sanlock
sanlock daemon -w 0 -U root -G root -l 0 -L -1 -S -1 -e "host$TP_HOST" || fail "sanlock daemon"
trap 'sanlock client shutdown -f 1 >/dev/null 2>&1' EXIT
for ((i = 0; i < 50; i++)); do
	sanlock client status >/dev/null 2>&1 && break
	sleep 0.2
done
VOL=/dev/mapper/pool-v
# owner: the host id holding the pool's lease, as tpstatus shows it
owner() { tpstatus --noheadings -o pool_lease_owner pool | tr -d ' '; }
# put KEY VALUE / get KEY: a value for the other host, through TP_SYNC
put() { echo "$2" >"$TP_SYNC/$TP_SCENARIO.$1.$TP_HOST"; }
get() { cat "$TP_SYNC/$TP_SCENARIO.$1.$(vm_other_host)"; }
# holder_pid: this host's lease holder of the pool (empty when none runs)
holder_pid() {
	local f
	f=$(ls "$TPTOOLS_DIR"/run/lease/*.pid 2>/dev/null | head -1)
	[ -n "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && cat "$f"
}
# take_over MAX WHAT: tpactivate the pool until the lease of host 1 lets it
# go, each refusal naming host 1, at most MAX tries 2 s apart; says how long
# after WHAT it took; REFUSED holds the refusals
take_over() {
	local t0
	t0=$(now) refused=0
	until tpactivate pool >act.out 2>&1; do
		grep -q "is held by host 1" act.out || fail "b's tpactivate: $(cat act.out)"
		refused=$((refused + 1))
		[ "$refused" -lt "$1" ] || fail "b never took the pool over"
		sleep 2
	done
	step "b activated the pool $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }') s after $2 ($refused refusals first)"
}
