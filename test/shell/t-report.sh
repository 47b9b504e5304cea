# SPDX-License-Identifier: GPL-2.0-or-later
# Reports like lvs: tpstatus -o +FIELDS, -O (sort), -S (select, dm_report's
# own), --separator, --nosuffix, --nameprefixes, POOL/VOLUME arguments,
# --noheadings without a blank line between the tables; tpcheck --json is
# JSON also when the check cannot run or the command line is bad.
new_pool a
new_pool b
ok tvcreate -V 1G -n v1 a
ok tvcreate -V 2G -n v2 a
ok tvsnap a/v1 -n s1
ok tvcreate -V 3G -n w b

# -o +FIELDS: the defaults, then the added fields
ok tpstatus -o +pool_uuid,vol_dev_id
head -1 out | grep -q "^Pool .*Active *UUID" || fail "pool_uuid not added: $(head -1 out)"
grep -q "^Pool *Volume.*Origin *DevId" out || fail "vol_dev_id not added"

# --noheadings: no blank line between the tables
ok tpstatus --noheadings
! grep -q '^$' out || fail "blank line with --noheadings"
[ "$(wc -l <out)" = 6 ] || fail "expected 2 pool + 4 volume rows"

# -O: sort, descending with -
ok tpstatus --noheadings -O -vol_size,vol_name -o vol_name
[ "$(tr -d ' ' <out | tr '\n' ,)" = "w,v2,s1,v1," ] || fail "sort: $(cat out)"
ok tpstatus --noheadings -O pool_name -o pool_name,vol_name
out_has "^a"

# -S on volume fields, on pool fields (a pool's volumes go with it)
ok tpstatus --noheadings -S 'vol_size>=2g' -o vol_name
[ "$(tr -d ' ' <out | tr '\n' ,)" = "v2,w," ] || fail "select size: $(cat out)"
ok tpstatus --noheadings -S 'vol_origin=v1' -o vol_name
[ "$(tr -d ' ' <out)" = "s1" ] || fail "select origin: $(cat out)"
ok tpstatus --noheadings -S 'pool_volumes>1' -o pool_name,vol_name
[ "$(tr -d ' ' <out | tr '\n' ,)" = "a,v1,v2,s1," ] || fail "select pool: $(cat out)"
ok tpstatus --noheadings -S 'pool_data_percent>80' -o pool_name,vol_name
[ ! -s out ] || fail "no pool is 80% full: $(cat out)"
ok tpstatus --noheadings -S 'pool_data_percent<80' -o pool_name
[ "$(wc -l <out)" = 2 ] || fail "both pools are below 80%"
usage_error tpstatus -S 'pool_name=a && vol_name=v1'
usage_error tpstatus -S 'no_such_field=1'
# a bad expression: quoted, with what is wrong
usage_error tpstatus -S 'vol_size>>1'
err_has "bad -S selection 'vol_size>>1': Failed to parse numeric value for selection field vol_size"
usage_error tpstatus -S 'pool_size=abc' a
err_has "bad -S selection 'pool_size=abc': .*pool_size"
usage_error tpstatus -S '(vol_size>1'
err_has "bad -S selection '(vol_size>1': Syntax error: right parenthesis expected"
out_lacks "Pool"

# --separator (unaligned), --nosuffix, --nameprefixes
ok tpstatus --noheadings --separator : --nosuffix --units g -o pool_name,pool_size a
[ "$(cat out)" = "a:4.00" ] || fail "separator/nosuffix: $(cat out)"
ok tpstatus --noheadings --nosuffix -o vol_name,vol_size a/v2
[ "$(tr -s ' ' <out)" = "v2 2" ] || fail "nosuffix: $(cat out)"
ok tpstatus --noheadings --nameprefixes -o pool_name,vol_name b
out_has "^TP_POOL_NAME='b'$"
out_has "^TP_VOL_NAME='w'$"
# --nameprefixes alone: no heading line, no blank line, so eval works
ok tpstatus --nameprefixes -o pool_name,pool_size,vol_name,vol_size b
[ "$(wc -l <out)" = 2 ] || fail "--nameprefixes: one line a row expected: $(cat out)"
! grep -v "^TP_" out || fail "--nameprefixes printed a line that is not NAME='value'"
eval "$(tpstatus --nameprefixes --units b -o pool_name,pool_size,vol_name,vol_size b)"
[ "$TP_POOL_NAME" = b ] && [ "$TP_VOL_NAME" = w ] && [ "$TP_VOL_SIZE" = 3221225472b ] ||
	fail "eval of --nameprefixes: '$TP_POOL_NAME' '$TP_VOL_NAME' '$TP_VOL_SIZE'"

# --units: every size field takes it (the SZ fields of the field table,
# and the size in pool_autoextend_by); upper case is SI (powers of 1000)
# as in lvs, lower case binary
sed -n 's/.*, SZ, [PV]([a-z_]*), [0-9]*, "\([a-z_]*\)".*/\1/p' "$TOP/tools/status_fields.c" >size_fields
[ "$(wc -l <size_fields)" -ge 10 ] || fail "too few size fields found: $(cat size_fields)"
ok tpchange --autoextend-by 2G a
for f in $(cat size_fields) pool_autoextend_by; do
	case $f in vol_*) t=a/v1 ;; *) t=a ;; esac
	ok tpstatus --noheadings --units b -o "$f" "$t"
	grep -Eq '^ *[0-9]+b *$' out || fail "--units b: $f printed '$(cat out)'"
done
ok tpstatus --noheadings --units b -o pool_size,pool_chunk,pool_autoextend_by a
[ "$(tr -s ' ' <out | sed 's/^ //; s/ $//')" = "4293918720b 65536b 2147483648b" ] ||
	fail "--units b: $(cat out)"
ok tpstatus --noheadings --units G -o pool_size,pool_autoextend_by a
[ "$(tr -s ' ' <out | sed 's/^ //; s/ $//')" = "4.29G 2.15G" ] || fail "--units G: $(cat out)"
ok tpstatus --noheadings --units g -o pool_size,pool_autoextend_by a
[ "$(tr -s ' ' <out | sed 's/^ //; s/ $//')" = "4.00g 2g" ] || fail "--units g: $(cat out)"
ok tpstatus --noheadings --units H -o pool_size,pool_chunk a
[ "$(tr -s ' ' <out | sed 's/^ //; s/ $//')" = "4.29 GB 65.54 kB" ] || fail "--units H: $(cat out)"
ok tpstatus --noheadings --units K -o vol_size a/v1
[ "$(tr -d ' ' <out)" = "1073741.82K" ] || fail "--units K: $(cat out)"
ok tpstatus --noheadings --units m -o vol_size a/v1
[ "$(tr -d ' ' <out)" = "1024m" ] || fail "--units m: $(cat out)"
ok tpstatus --json --units M -o vol_size a/v1
out_has '"vol_size":"1073.74M"'
ok tpchange --autoextend-by 20% a
ok tpstatus --noheadings --units b -o pool_autoextend_by a
[ "$(tr -d ' ' <out)" = "20%" ] || fail "a percentage stays one: $(cat out)"
usage_error tpstatus --units x a
err_has "H, K, M, G, T, P (powers of 1000), not 'x'"

# POOL/VOLUME: that volume's row only, no pool table
ok tpstatus a/s1
[ "$(wc -l <out)" = 2 ] || fail "one heading and one row expected: $(cat out)"
out_has "^Pool *Volume"
out_has "^a *s1 .* v1"
ok tpstatus --json -o vol_name a/s1 b
python3 -c '
import json; r = json.load(open("out"))["report"]
vols = [v["vol_name"] for t in r if "volume" in t for v in t["volume"]]
assert vols == ["s1", "w"], vols' || fail "json of a/s1 b"
failed tpstatus a/nosuch
err_has "pool a has no volume nosuch"
usage_error tpstatus a/

# tpcheck --json: always one JSON object
ok tpcheck --json a
python3 -c 'import json; d = json.load(open("out")); assert d["result"] == "clean"'
failed tpcheck --json nosuch
python3 -c '
import json; d = json.load(open("out"))
assert d["result"] == "error" and d["exit_code"] == 5, d
assert any("nosuch" in m for m in d["messages"]), d' || fail "tpcheck --json nosuch"
err_has "pool nosuch not found"
usage_error tpcheck --json --no-such-option a
python3 -c '
import json; d = json.load(open("out"))
assert d["result"] == "error" and d["exit_code"] == 3, d' || fail "tpcheck --json usage"
ok tpstatus -S help
grep -q "pool_data_percent" err || fail "-S help lists no fields"
[ ! -s out ] || fail "-S help printed a report"
# -o help: dm_report's list of the fields on stderr, whatever log function
# tptools gave libdevmapper (lib/base/dmlog.c: tp_dmlog_pass_through)
ok tpstatus -o help
[ ! -s out ] || fail "-o help printed a report: $(cat out)"
[ "$(grep -c -e '^Pool Fields$' -e '^Volume Fields$' -e '^Special Fields$' err)" = 3 ] ||
	fail "-o help: the three sections expected: $(cat err)"
err_has "^  pool_all  *- All fields in this section.$"
err_has "^  vol_luks_uuid  *- an encrypted volume's LUKS2 header uuid$"
grep '^  [a-z?]' err | awk '{ print $1 }' | sort >listed
{ printf '%s\n' pool_all vol_all selected help '?'
  grep -o '^	{ T_\(POOL\|VOL\), [^"]*"[a-z_]*"' "$TOP/tools/status_fields.c" |
	sed 's/.*"\(.*\)"/\1/'; } | sort >fields
cmp -s listed fields || fail "-o help: not one line a field: $(diff listed fields)"
ok tpstatus -o help --json
err_has "^Volume Fields$"
usage_error tpstatus -o vol_name,nosuch
err_has "^  vol_name  *- volume name$"
err_has "^Unrecognised field: nosuch$"

# a pool field in capitals or without its underscores goes to the pool
# table as dm_report reads it (it was read from a volume's row: a crash or
# another field's bytes)
ok tpstatus --noheadings -o pool_data_dev,pool_meta_dev a
cp out want.dev
for f in Pool_data_dev,POOL_META_DEV pooldatadev,p_o_o_l_metadev PoolDataDev,pool_Meta_Dev; do
	ok tpstatus --noheadings -o "$f" a
	cmp -s out want.dev || fail "-o $f: $(cat out), not $(cat want.dev)"
done
ok tpstatus --noheadings -o pool_all a
cp out want.all
ok tpstatus --noheadings -o Pool_all a
cmp -s out want.all || fail "-o Pool_all: $(cat out)"
ok tpstatus --noheadings -o vol_name,pool_uuid -S vol_name=v1 a
cp out want.sel
ok tpstatus --noheadings -o vol_name,Pool_uuid -S vol_name=v1 a
cmp -s out want.sel || fail "-o vol_name,Pool_uuid -S: $(cat out)"
ok tpstatus --json -o vol_name,pool_meta_dev a
cp out want.json
ok tpstatus --json -o vol_name,POOL_META_DEV a
cmp -s out want.json || fail "--json -o vol_name,POOL_META_DEV: $(cat out)"
# ... and so do the sort keys
ok tpstatus --noheadings -O -pool_name -o pool_name
cp out want.sort
ok tpstatus --noheadings -O -Pool_Name -o pool_name
cmp -s out want.sort || fail "-O -Pool_Name: $(cat out)"
ok tpstatus --noheadings -O -VolSize,vol_name -o vol_name
[ "$(tr -d ' ' <out | tr '\n' ,)" = "w,v2,s1,v1," ] || fail "sort -VolSize: $(cat out)"
# "pool" alone is still the volume's pool
ok tpstatus --noheadings -o vol_name,pool a
out_has "^ *v1 *a *$"

# -O sorts numbers as numbers: percentages (libdevmapper 1.02.185 compares
# their sort values as strings: 9.09 89.89 34.34 59.59), the over-provision
# ratio and the sizes shown as text (pool_autoextend_max), as lvs does
DATA_SIZE=64M new_pool pc --chunk 64k
for m in 9 89 34 59; do
	ok tvcreate -V $((99 * 64))K -n m$m pc
	write_chunks pc m$m 0 $m
done
ok tpstatus --noheadings -o vol_mapped_percent -O vol_mapped_percent pc
[ "$(tr -d ' ' <out | tr '\n' ,)" = "9.09,34.34,59.59,89.89," ] || fail "sort by percent: $(cat out)"
ok tpstatus --noheadings -o vol_name -O -mapped_percent pc
[ "$(tr -d ' ' <out | tr '\n' ,)" = "m89,m59,m34,m9," ] || fail "sort by -percent: $(cat out)"
ok tpstatus --noheadings -o pool_name,pool_data_percent -O pool_data_percent a b pc
[ "$(awk '{ print $1 }' out | tr '\n' ,)" = "a,b,pc," ] || fail "sort by pool percent: $(cat out)"
ok tvcreate -V 36G -n big b	# b: 39G over 4G (9.75), pc 12G over 64M (~197)
ok tvcreate -V 12G -n big pc
ok tpstatus --noheadings -o pool_name -O -pool_overprovision a b pc
[ "$(tr -d ' ' <out | tr '\n' ,)" = "pc,b,a," ] || fail "sort by over-provision: $(cat out)"
ok tpchange --autoextend-max 512M a
ok tpchange --autoextend-max 2G b
ok tpstatus --noheadings -o pool_name,pool_autoextend_max -O pool_autoextend_max a b pc
[ "$(awk '{ print $1 }' out | tr '\n' ,)" = "a,b,pc," ] || fail "sort by a size as text (none last): $(cat out)"
ok tvremove pc/big b/big
# keys of both tables: each sorts its own
ok tpstatus --noheadings -o vol_name -O -pool_meta_percent,vol_name a b pc
[ "$(tr -d ' ' <out | tr '\n' ,)" = "m34,m59,m89,m9,s1,v1,v2,w," ] || fail "sort by name: $(cat out)"
usage_error tpstatus -O vol_nope
err_has "bad sort key 'vol_nope'"
usage_error tpstatus -O pool_nope -o vol_name
err_has "bad sort key 'pool_nope': no pool field"

# a reader never waits silently nor for ever on a writer's lock: a raw
# import from a stalled pipe holds pool pc; tpstatus says after a second
# who holds it (pid and command line), and gives up at its bound (30 s,
# TP_TEST_LOCK_WAIT_MS here) naming the holder, exit 5, nothing read
mkfifo stall
tprecv --format raw -V 1M -n stalled pc <stall >recv.out 2>&1 &
rpid=$!
exec 9>stall
held() {
	local f=$TPTOOLS_DIR/lock/pc.lock
	[ -e "$f" ] && grep -q "FLOCK .*WRITE $rpid .*:$(stat -c %i "$f") " /proc/locks
}
wait_until "$rpid" held || fail "the import never took the pool lock"
TP_TEST_LOCK_WAIT_MS=2500 expect_rc 5 tpstatus -o pool_name pc
err_has "pool pc: waiting for its lock, held by process $rpid (tprecv --format raw -V 1M -n stalled pc)"
err_has "pool pc: its lock is still held by process $rpid (tprecv --format raw -V 1M -n stalled pc) after [0-9]* s; nothing was read"
out_lacks "pc"
# the other pools are still reported
TP_TEST_LOCK_WAIT_MS=1500 expect_rc 5 tpstatus -o pool_name a b pc
[ "$(tr -d ' ' <out | tr '\n' ,)" = "Pool,a,b," ] || fail "the other pools: $(cat out)"
TP_TEST_LOCK_WAIT_MS=1500 expect_rc 5 tpcheck pc
err_has "held by process $rpid"
# a writer waits as long as it takes, but says so too
tvcreate -V 1M -n queued pc >tv.out 2>tv.err 9>&- &
tpid=$!
wait_until "$tpid" grep -q "waiting for its lock, held by process $rpid" tv.err ||
	{ cat tv.err >&2; fail "the waiting tvcreate said nothing"; }
exec 9>&-
wait "$rpid" || true
trc=0
wait "$tpid" || trc=$?
[ "$trc" = 0 ] || { cat tv.err >&2; fail "tvcreate after the import: exit $trc"; }
ok tpstatus -o pool_name pc
ok tpcheck pc
