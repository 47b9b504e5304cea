# SPDX-License-Identifier: GPL-2.0-or-later
# tpstatus --format prometheus (tpstatus(8), PROMETHEUS METRICS): the text
# exposition format passes a strict parser (test/tools/promcheck.py, which
# is shown to reject broken text first) and promtool's lint; every family
# the page lists is printed and no other; the figures are tpstatus's; a
# pool that cannot be read gives tptools_pool_up 0 and exit 5 without
# breaking the rest; POOL/VOLUME arguments; options that do not go with the
# format are usage errors; the monitor's counts come from its state file.
# Then docs/prometheus-alerts.yml: the same as the block of
# docs/prometheus.md, valid (promtool check rules), and firing on this
# output as its rules say (promtool test rules).
DATA_SIZE=128M META_SIZE=16M
check() { python3 "$TOP/test/tools/promcheck.py" --strict-families --prefix tptools_ "$@"; }
metric() { # metric FILE SERIES: the value of the series (exact name and labels)
	awk -v s="$2" '$1 == s { print $2; found = 1 } END { exit !found }' "$1" ||
		{ cat "$1" >&2; fail "no series $2"; }
}

# the checker rejects what the format does not allow (and accepts it fixed)
reject() {
	printf '%b' "$1" >bad.prom
	if check bad.prom 2>why; then fail "promcheck accepted: $1"; fi
	grep -q "$2" why || { cat why >&2; fail "promcheck: '$1': not '$2'"; }
}
H='# HELP tptools_x x\n# TYPE tptools_x gauge\n'
cat >good.prom <<'EOF'
# HELP tptools_x x, with \\ and \n
# TYPE tptools_x gauge
tptools_x{pool="a\\b\"c\nd",volume="v",} 1
tptools_x{pool="b"} +Inf 1700000000000
# a comment
tptools_x 1.5e3

# HELP tptools_y_total y
# TYPE tptools_y_total counter
tptools_y_total 0
EOF
check good.prom || fail "promcheck rejects valid text: $(cat good.prom)"
reject "${H}tptools_x{pool=\"a\"} 1" "does not end with a newline"
reject "${H}tptools_x{pool=\"a} 1\n" "no closing double quote"
reject "${H}tptools_x{pool=\"a\\\\tb\"} 1\n" "escape"
reject "${H}tptools_x{pool=a} 1\n" "double quotes"
reject "${H}tptools_x{pool=\"a\",pool=\"b\"} 1\n" "given twice"
reject "${H}tptools_x{__pool=\"a\"} 1\n" "reserved"
reject "${H}tptools_x{1pool=\"a\"} 1\n" "bad label name"
reject "${H}tptools-x 1\n" "no blank"
reject "${H}tptools_x one\n" "not a float"
reject "${H}tptools_x 1 2.5\n" "timestamp"
reject "${H}tptools_x{pool=\"a\"} 1\ntptools_x{pool=\"a\"} 2\n" "given twice"
reject "tptools_x 1\n" "without HELP and TYPE"
reject "${H}# TYPE tptools_x gauge\ntptools_x 1\n" "second TYPE"
reject "${H}# HELP tptools_x y\ntptools_x 1\n" "second HELP"
reject "tptools_x 1\n${H}" "after its samples"
reject "# TYPE tptools_x gage\n" "TYPE of tptools_x"
reject "# HELP tptools_x a\\\\tb\n" "HELP text"
reject "${H}tptools_x{pool=\"a\"} 1\n# HELP tptools_y y\n# TYPE tptools_y gauge\ntptools_y 1\ntptools_x{pool=\"b\"} 1\n" \
	"not one group"
reject "# HELP tptools_x_total x\n# TYPE tptools_x_total counter\ntptools_x_total -1\n" "negative"
reject "# HELP tptools_x x\n# TYPE tptools_x counter\ntptools_x 1\n" "_total"
reject "# HELP other x\n# TYPE other gauge\nother 1\n" "does not start with tptools_"

# pools: a with volumes (data mapped), b empty, gone (its data device lost),
# m with mirrored thin metadata (its scrub record says 3 bad blocks on leg 1)
new_pool a
new_pool b
new_pool gone
image m-data.img 64M
image m-meta0.img 16M
image m-meta1.img 16M
ok tpcreate --data m-data.img --meta m-meta0.img,m-meta1.img m
muuid=$(tpstatus --noheadings -o pool_uuid m | tr -d ' ')
mkdir -p "$TPTOOLS_DIR/scrub"
printf 'time 1700000100\nblocks 20\nbad0 0\nbad1 3\nmismatched 1\n' >"$TPTOOLS_DIR/scrub/$muuid"
ok tvcreate -V 16M -n v a
write_chunks a v 0 3
ok tvsnap a/v -n s
write_chunks a v 5 1
ok tvsnap --readonly a/v -n ro
ok tpchange --when-full error b
rm gone-data.img
uuid=$(tpstatus --noheadings -o pool_uuid a | tr -d ' ')
mkdir -p "$TPTOOLS_DIR/run/monitor"
printf 'pool a\ntime 1700000000\naction autoextended: data 1 GiB -> 2 GiB\ncount_warnings 4\ncount_no_room 1\ncount_autoextends 3\ncount_autoextend_failures 2\ncount_error_switches 1\n' \
	>"$TPTOOLS_DIR/run/monitor/$uuid"

failed tpstatus --format prometheus
cp out all.prom
err_has "pool gone"
check all.prom || fail "tpstatus --format prometheus: not the text format"
metric all.prom 'tptools_pool_up{pool="a"}' | grep -qx 1 || fail "a is not up"
metric all.prom 'tptools_pool_up{pool="b"}' | grep -qx 1 || fail "b is not up"
metric all.prom 'tptools_pool_up{pool="gone"}' | grep -qx 0 || fail "gone is up"
[ "$(grep -c 'pool="gone"' all.prom)" = 1 ] || fail "an unreadable pool has more than its up: $(grep gone all.prom)"

# the families: those the page lists, each with HELP and TYPE, gauges but one
# (the families only an active pool has are left out here: the VM's s-meta-integrity)
sed -n '/^\.SH PROMETHEUS METRICS/,/^\.SH /p' "$TOP/man/tpstatus.8" |
	grep -o 'tptools_[a-z_]*' | grep -vx 'tptools_pool_metadata_leg_integrity_mismatches' |
	sort -u >page.families
sed -n 's/^# TYPE \([a-z_]*\) .*/\1/p' all.prom | sort >out.families
diff page.families out.families || fail "the families printed differ from tpstatus(8)'s list"
[ "$(wc -l <out.families)" -ge 20 ] || fail "too few families: $(cat out.families)"
[ "$(grep -c '^# TYPE .* counter$' all.prom)" = 1 ] &&
	grep -q '^# TYPE tptools_pool_monitor_actions_total counter$' all.prom ||
	fail "the counter is not the one counter"

# the figures are tpstatus's own, in bytes
read -r size used msize mused chunk virt tid nvol <<<"$(pool_bytes a pool_size,pool_data_used,pool_meta_size,pool_meta_used,pool_chunk,pool_virtual,pool_transaction_id,pool_volumes)"
for pair in "data_size_bytes $size" "data_used_bytes $used" "metadata_size_bytes $msize" \
	    "metadata_used_bytes $mused" "chunk_size_bytes $chunk" "virtual_size_bytes $virt" \
	    "transaction_id $tid" "volumes $nvol"; do
	set -- $pair
	[ "$(metric all.prom "tptools_pool_$1{pool=\"a\"}")" = "$2" ] ||
		fail "tptools_pool_$1 of a: $(metric all.prom "tptools_pool_$1{pool=\"a\"}"), tpstatus says $2"
done
[ "$used" = $((4 * 65536)) ] || fail "pool a maps $used bytes, not 4 chunks"
for v in v s ro; do
	for f in size mapped exclusive; do
		want=$(vol_field a "$v" "vol_$f" --units b)
		[ "$(metric all.prom "tptools_volume_${f}_bytes{pool=\"a\",volume=\"$v\"}")" = "${want%b}" ] ||
			fail "tptools_volume_${f}_bytes of a/$v differs from vol_$f ($want)"
	done
	metric all.prom "tptools_volume_active{pool=\"a\",volume=\"$v\"}" | grep -qx 0 || fail "$v active"
	metric all.prom "tptools_volume_open{pool=\"a\",volume=\"$v\"}" | grep -qx 0 || fail "$v open"
done
metric all.prom 'tptools_volume_read_only{pool="a",volume="ro"}' | grep -qx 1 || fail "ro is not read-only"
metric all.prom 'tptools_volume_read_only{pool="a",volume="v"}' | grep -qx 0 || fail "v is read-only"
metric all.prom "tptools_pool_info{pool=\"a\",uuid=\"$uuid\",profile=\"balanced\",system_id=\"\"}" | grep -qx 1 ||
	fail "no info series of a"
# inactive: not active, no mode; settings from the VG
metric all.prom 'tptools_pool_active{pool="a"}' | grep -qx 0 || fail "a active"
for m in read_write read_only out_of_data_space failed; do
	metric all.prom "tptools_pool_mode{pool=\"a\",mode=\"$m\"}" | grep -qx 0 ||
		fail "inactive pool a in mode $m"
done
metric all.prom 'tptools_pool_error_when_full{pool="b"}' | grep -qx 1 || fail "b's when-full"
metric all.prom 'tptools_pool_error_when_full{pool="a"}' | grep -qx 0 || fail "a's when-full"
metric all.prom 'tptools_pool_needs_check{pool="a"}' | grep -qx 0 || fail "a needs_check"
metric all.prom 'tptools_pool_unfinished_receives{pool="a"}' | grep -qx 0 || fail "a's receives"
metric all.prom 'tptools_pool_activation_skip{pool="a"}' | grep -qx 0 || fail "a skipped"
# the monitor's counts and last action, from its state file (none for b: 0)
for pair in "warning 4" "no_room 1" "autoextend 3" "autoextend_failure 2" "error_when_full 1"; do
	set -- $pair
	metric all.prom "tptools_pool_monitor_actions_total{pool=\"a\",action=\"$1\"}" | grep -qx "$2" ||
		fail "monitor action $1 of a"
	metric all.prom "tptools_pool_monitor_actions_total{pool=\"b\",action=\"$1\"}" | grep -qx 0 ||
		fail "monitor action $1 of b"
done
metric all.prom 'tptools_pool_monitor_last_action_timestamp_seconds{pool="a"}' | grep -qx 1700000000 ||
	fail "last action of a"
grep -q 'last_action_timestamp_seconds{pool="b"}' all.prom && fail "a last action for b, which has none"
# the metadata mirror: legs up, the scrub's bad blocks and mismatches; none for a plain pool
metric all.prom 'tptools_pool_metadata_leg_up{pool="m",leg="0"}' | grep -qx 1 || fail "m leg 0 down"
metric all.prom 'tptools_pool_metadata_leg_up{pool="m",leg="1"}' | grep -qx 1 || fail "m leg 1 down"
metric all.prom 'tptools_pool_metadata_leg_bad_blocks{pool="m",leg="1"}' | grep -qx 3 ||
	fail "m leg 1: not the scrub's 3 bad blocks"
metric all.prom 'tptools_pool_metadata_leg_bad_blocks{pool="m",leg="0"}' | grep -qx 0 || fail "m leg 0 bad"
metric all.prom 'tptools_pool_metadata_scrub_timestamp_seconds{pool="m"}' | grep -qx 1700000100 ||
	fail "m's scrub time"
metric all.prom 'tptools_pool_metadata_scrub_mismatched_blocks{pool="m"}' | grep -qx 1 ||
	fail "m's scrub mismatches"
grep -q 'metadata_leg_up{pool="a"' all.prom && fail "legs of a pool with one metadata device"
ok tpstatus --noheadings -o pool_meta_health,pool_meta_bad_blocks,pool_meta_scrub_mismatches m
out_has "damaged *3 *1"
mv m-meta1.img m-meta1.away
ok tpstatus --format prometheus m
metric out 'tptools_pool_metadata_leg_up{pool="m",leg="1"}' | grep -qx 0 || fail "m leg 1 up while missing"
mv m-meta1.away m-meta1.img

# changes show: activation skip, needs_check (read offline from the metadata)
ok tpchange --activate n b
save_area b area.bin
ok tp-damage area.bin sb needs_check
load_area b area.bin
ok tpstatus --format prometheus b
check out || fail "b flagged"
metric out 'tptools_pool_activation_skip{pool="b"}' | grep -qx 1 || fail "b not skipped"
metric out 'tptools_pool_needs_check{pool="b"}' | grep -qx 1 || fail "b not needs_check"
ok tprepair b

# arguments: a volume keeps its pool's series and leaves out the others;
# a pool named twice or with a volume too is printed once
ok tpstatus --format prometheus a/s
check out || fail "a/s"
grep -q 'pool="b"' out && fail "a/s printed pool b"
metric out 'tptools_volume_size_bytes{pool="a",volume="s"}' >/dev/null
grep -q 'volume="v"' out && fail "a/s printed volume v"
metric out 'tptools_pool_data_used_bytes{pool="a"}' | grep -qx "$used" || fail "a/s: no pool series"
ok tpstatus --format prometheus a/s a/ro b
check out || fail "a/s a/ro b"
[ "$(grep -c '^tptools_volume_size_bytes' out)" = 2 ] || fail "a/s a/ro: not two volumes"
ok tpstatus --format prometheus a a/s a
check out || fail "a a/s a: a series twice?"
[ "$(grep -c '^tptools_volume_size_bytes' out)" = 3 ] || fail "a a/s: not every volume"
failed tpstatus --format prometheus a/nosuch
err_has "pool a has no volume nosuch"
check out || fail "a/nosuch: the output broke"
metric out 'tptools_pool_up{pool="a"}' | grep -qx 1 || fail "a/nosuch: a down"
failed tpstatus --format prometheus nosuchpool
check out || fail "nosuchpool: the output broke"
metric out 'tptools_pool_up{pool="nosuchpool"}' | grep -qx 0 || fail "nosuchpool up"
ok tpstatus --format prometheus --devices a-data.img,a-meta.img a
check out || fail "--devices"

# --format: the other values, and what does not go with prometheus
ok tpstatus --json a
cp out json.1
ok tpstatus --format json a
cmp -s out json.1 || fail "--format json is not --json"
ok tpstatus a
cp out table.1
ok tpstatus --format table a
cmp -s out table.1 || fail "--format table is not the default"
ok tpstatus -f json --json a
cmp -s out json.1 || fail "-f json --json"
usage_error tpstatus --format xml a
err_has "table, json or prometheus"
usage_error tpstatus --json --format prometheus a
usage_error tpstatus --json --format table a
for o in "-o pool_name" "-O pool_name" "-S pool_volumes>1" "--units b" "--nosuffix" \
	 "--noheadings" "--nameprefixes" "--separator :"; do
	# shellcheck disable=SC2086
	usage_error tpstatus --format prometheus $o a
	err_has "do not go with it"
	[ ! -s out ] || fail "--format prometheus $o printed: $(cat out)"
done

# the checker finds a broken copy of real output: cut, a line twice, a
# family's lines apart, a HELP missing
head -c $(( $(wc -c <all.prom) / 2 )) all.prom >cut.prom
if check cut.prom 2>/dev/null; then
	# cut at a line end by chance: one byte more
	head -c $(( $(wc -c <all.prom) / 2 + 1 )) all.prom >cut.prom
	check cut.prom 2>/dev/null && fail "promcheck accepted half of the output"
fi
{ cat all.prom; grep '^tptools_pool_up{pool="a"}' all.prom; } >dup.prom
check dup.prom 2>/dev/null && fail "promcheck accepted a series twice"
{ grep -v '^tptools_pool_up{pool="a"}' all.prom; grep '^tptools_pool_up{pool="a"}' all.prom; } >apart.prom
check apart.prom 2>/dev/null && fail "promcheck accepted a family in two places"
grep -v '^# HELP tptools_volume_open ' all.prom >nohelp.prom
check nohelp.prom 2>/dev/null && fail "promcheck accepted a family without HELP"

# the alerting rules: the file is docs/prometheus.md's block
awk '/^```yaml$/ { on = 1; next } on && /^```$/ { exit } on' "$TOP/docs/prometheus.md" >doc.rules
cmp -s doc.rules "$TOP/docs/prometheus-alerts.yml" ||
	{ diff doc.rules "$TOP/docs/prometheus-alerts.yml" >&2; fail "docs/prometheus.md's rules differ from docs/prometheus-alerts.yml"; }

# promtool: the format's own linter, and the rules on this output (on PATH,
# or where scripts/install-deps.sh unpacks it)
pt=${TP_PROMTOOL_DIR:-/var/cache/tptools/promtool}
have promtool || { [ -x "$pt/promtool" ] && PATH=$pt:$PATH; }
have promtool || skip "promtool not found (scripts/install-deps.sh unpacks it into $pt)"
for f in all.prom good.prom; do
	promtool check metrics <"$f" >lint.out 2>&1 || { cat lint.out >&2; fail "promtool check metrics: $f"; }
done
printf 'x{a="1} 1\n' | promtool check metrics >/dev/null 2>&1 && fail "promtool accepts anything"
ok promtool check rules "$TOP/docs/prometheus-alerts.yml"
out_has "SUCCESS: 7 rules found"

# a pool 88% full, one flagged needs_check, one unreadable; the kernel's
# modes and the textfile's age cannot be made here: given as series
new_pool full --chunk 64k
ok tvcreate -V 100M -n big full
map_ranges full "$(vol_dev_id full big):0:0:1800"
new_pool nc
save_area nc area.bin
ok tp-damage area.bin sb needs_check
load_area nc area.bin
failed tpstatus --format prometheus full nc gone
check out || fail "the rules' input"
python3 - out >series.yml <<'PY'
import sys
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip():
        continue
    name, value = line.rsplit(" ", 1)
    if "{" in name:
        name = name.replace("{", '{instance="host:9100",job="node",', 1)
    else:
        name += '{instance="host:9100",job="node"}'
    print(f"      - series: '{name}'\n        values: '{value.strip()}+0x20'")
PY
extra() { printf "      - series: '%s'\n        values: '%s'\n" "$1" "$2" >>series.yml; }
extra 'tptools_pool_mode{instance="host:9100",job="node",pool="live",mode="read_only"}' '1+0x20'
extra 'tptools_pool_mode{instance="host:9100",job="node",pool="live",mode="out_of_data_space"}' '0+0x20'
extra 'tptools_pool_mode{instance="host:9100",job="node",pool="dead",mode="failed"}' '1+0x20'
extra 'tptools_pool_mode{instance="host:9100",job="node",pool="hungry",mode="out_of_data_space"}' '1+0x20'
extra 'tptools_pool_metadata_used_bytes{instance="host:9100",job="node",pool="live"}' '850+0x20'
extra 'tptools_pool_metadata_size_bytes{instance="host:9100",job="node",pool="live"}' '1000+0x20'
extra 'node_textfile_mtime_seconds{instance="host:9100",job="node",file="/var/lib/prometheus/node-exporter/tptools.prom"}' '0+0x20'
cat >rules.test.yml <<EOF
rule_files:
  - $TOP/docs/prometheus-alerts.yml
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
$(cat series.yml)
    alert_rule_test:
      - eval_time: 10m
        alertname: TptoolsPoolDataFull
        exp_alerts:
          - exp_labels: { severity: warning, instance: "host:9100", job: node, pool: full }
            exp_annotations:
              summary: "tptools pool full on host:9100: data 88.58% full"
              description: "Grow the data device, then run 'tpextend full' (or let tpmonitor's autoextension do it), or remove volumes or snapshots."
      - eval_time: 10m
        alertname: TptoolsPoolMetadataFull
        exp_alerts:
          - exp_labels: { severity: warning, instance: "host:9100", job: node, pool: live }
            exp_annotations:
              summary: "tptools pool live on host:9100: metadata 85% full"
              description: "When the metadata is full the kernel turns the pool read-only. Grow it with 'tpextend --metadata-size auto live'."
      - eval_time: 10m
        alertname: TptoolsPoolReadOnly
        exp_alerts:
          - exp_labels: { severity: critical, instance: "host:9100", job: node, pool: live, mode: read_only }
            exp_annotations:
              summary: "tptools pool live on host:9100 is read_only"
              description: "Writes to unprovisioned blocks fail. 'tpstatus live' says what happened and the way back (tpdeactivate, tpcheck, tprepair, tpactivate)."
          - exp_labels: { severity: critical, instance: "host:9100", job: node, pool: dead, mode: failed }
            exp_annotations:
              summary: "tptools pool dead on host:9100 is failed"
              description: "Writes to unprovisioned blocks fail. 'tpstatus dead' says what happened and the way back (tpdeactivate, tpcheck, tprepair, tpactivate)."
      - eval_time: 10m
        alertname: TptoolsPoolOutOfDataSpace
        exp_alerts:
          - exp_labels: { severity: critical, instance: "host:9100", job: node, pool: hungry, mode: out_of_data_space }
            exp_annotations:
              summary: "tptools pool hungry on host:9100 is out of data space"
              description: "Writes to new chunks queue or fail. Grow the data device and run 'tpextend hungry'."
      - eval_time: 10m
        alertname: TptoolsPoolNeedsCheck
        exp_alerts:
          - exp_labels: { severity: critical, instance: "host:9100", job: node, pool: nc }
            exp_annotations:
              summary: "tptools pool nc on host:9100 is flagged needs_check"
              description: "Run 'tpdeactivate nc', 'tpcheck nc' and 'tprepair nc'."
      - eval_time: 10m
        alertname: TptoolsPoolUnreadable
        exp_alerts:
          - exp_labels: { severity: critical, instance: "host:9100", job: node, pool: gone }
            exp_annotations:
              summary: "tptools pool gone on host:9100 cannot be read"
              description: "Its devices are missing or its metadata cannot be read; 'tpstatus gone' says why."
      - eval_time: 3m
        alertname: TptoolsPoolUnreadable
        exp_alerts: []
      - eval_time: 10m
        alertname: TptoolsMetricsStale
        exp_alerts:
          - exp_labels: { severity: warning, instance: "host:9100", job: node, file: /var/lib/prometheus/node-exporter/tptools.prom }
            exp_annotations:
              summary: "tptools metrics on host:9100 are not being updated"
              description: "tptools.prom was last written 10m 0s ago: is tptools-monitor.service (tpmonitor --textfile) running?"
EOF
promtool test rules rules.test.yml >rules.out 2>&1 || { cat rules.out >&2; fail "promtool test rules: the alerts differ"; }
