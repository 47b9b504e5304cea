# SPDX-License-Identifier: GPL-2.0-or-later
# tptools.conf and tpconfig (tptools.conf(5), tpconfig(8)): no file means
# the defaults; tpconfig shows every value and where it comes from, and its
# output read back as the file gives the same values; a refused file names
# its lines and keeps every command from running (exit 3, devices
# unchanged); tpcreate takes its defaults from create/...; the devices
# filter keeps a block device out of every scan and every open.
conf=$TPTOOLS_DIR/tptools.conf
DATA_SIZE=32M META_SIZE=16M
values() { grep -v '^[[:space:]]*#' "$1" | sed 's/[[:space:]]*#.*$//'; }

# no file: the defaults, said so
ok tpconfig
out_has "does not exist; every value is the default"
out_has 'profile = "balanced"	# default'
ok tpconfig create/profile monitor/interval global/system_id
[ "$(cat out)" = "$(printf 'balanced\n10\n')" ] || fail "bare values: $(cat out)"
ok tpconfig --system-id
[ ! -s out ] || fail "a system id without a source: $(cat out)"
: >"$conf"
ok tpconfig create/profile
[ "$(cat out)" = balanced ] || fail "an empty file: $(cat out)"
printf '# comments only\n\n  # and blanks\n' >"$conf"
ok tpconfig --changed
rm "$conf"
usage_error tpconfig create/nosuch
err_has "create/nosuch is not a setting"
usage_error tpconfig --list --changed
ok tpconfig --list
for k in global/system_id global/system_id_source devices/filter create/profile create/chunk \
	 create/metadata_size create/zero create/discards create/when_full create/activate \
	 create/warn create/autoextend_threshold create/autoextend_by create/autoextend_max \
	 create/max_overprovision monitor/interval \
	 monitor/textfile; do
	grep -q "^$k$" out || fail "--list lacks $k"
done
# every setting is in the manual page, and the page names no other
for k in $(grep -E '^[a-z_]+/[a-z_]+$' out); do
	grep -q "^\\\\fB${k#*/}\\\\fR" "$TOP/man/tptools.conf.5" || fail "tptools.conf(5) lacks $k"
done

# a file: values and their lines; the round trip
cat >"$conf" <<'EOT'
# a test file
global {
	system_id = "host-A.1"
}
devices {
	filter = [ "a|^/dev/md|", "r|/dev/sd[a-z]\"x|" ]
}
create {
	profile = "snapshots"
	warn = 70
	autoextend_threshold = "75"
	autoextend_by = "1G"
}
monitor {
	interval = 30
}
EOT
ok tpconfig
out_has "profile = \"snapshots\"	# $conf:9"
out_has "interval = 30	# $conf:15"
out_has 'zero = "auto"	# default'
values out >values.1
cp out "$conf"
ok tpconfig
values out >values.2
cmp values.1 values.2 || { diff values.1 values.2 >&2; fail "tpconfig's output read back differs"; }
ok tpconfig --changed
out_lacks "# default"
out_has 'autoextend_by = "1G"'
ok tpconfig devices/filter
[ "$(sed -n 2p out)" = 'r|/dev/sd[a-z]"x|' ] || fail "escaped quote not kept: $(cat out)"
ok tpconfig --system-id
[ "$(cat out)" = host-A.1 ] || fail "system id: $(cat out)"
# --file reads another file, and the system id sources
printf 'global {\n\tsystem_id_source = "machineid"\n}\n' >other.conf
echo "0123abcd-ef" >"$TPTOOLS_DIR/machine-id"
ok tpconfig --file other.conf --system-id
[ "$(cat out)" = 0123abcd-ef ] || fail "machineid: $(cat out)"
rm "$TPTOOLS_DIR/machine-id"
failed tpconfig --file other.conf --system-id
err_has "machine-id cannot be read"
printf 'global {\n\tsystem_id_source = "uname"\n}\n' >other.conf
ok tpconfig --file other.conf --system-id
[ "$(cat out)" = "$(uname -n | tr -cd 'A-Za-z0-9._+-')" ] || fail "uname: $(cat out)"

# refused files: each problem with its line; no command runs; nothing written
rm -f "$conf"
new_pool p
ok tvcreate -V 1G -n keep p
cat >"$conf" <<'EOT'
global {
	system_id = "two words"
}
create {
	profle = "snapshots"
	warn = 170
	warn = 10
	chunk = "3q"
	discards = "sometimes"
}
monitor {
	interval = 0
	nested { a = 1 }
}
bogus { a = 1 }
loose = 1
EOT
usage_error tpconfig
for want in "tptools.conf:2: global/system_id takes only the characters" \
	    "tptools.conf:5: create/profle is not a setting" \
	    "tptools.conf:6: create/warn takes a percentage 0..100" \
	    "tptools.conf:7: create/warn is set twice (first on line 6)" \
	    "tptools.conf:8: create/chunk takes auto or a size" \
	    "tptools.conf:9: create/discards takes ignore|nopassdown|passdown, not \"sometimes\"" \
	    "tptools.conf:12: monitor/interval takes a whole number 1..3600" \
	    "tptools.conf:13: monitor/nested is a section inside a section" \
	    "tptools.conf:15: there is no section bogus" \
	    "tptools.conf:16: loose is outside any section"; do
	err_has "$want"
done
out_lacks "profile"
for cmd in "tvcreate -V 1G -n new p" "tvremove -y p/keep" "tpchange --warn 50 p" "tpstatus p" \
	   "tpcreate --data x.img --meta y.img q"; do
	# shellcheck disable=SC2086
	unchanged 3 $cmd
	err_has "not run, for the configuration file above"
done
printf 'create {\n\tprofile = \n' >"$conf"
usage_error tpconfig
err_has "syntax error"
err_has "line 3"
# values tpcreate refuses are refused in the file (the same checks), and
# a number the file's syntax cannot hold is said with its line and key
for bad in 'chunk = "100k"' 'chunk = "2g"' 'chunk = "48k"' 'metadata_size = "1000k"' \
	   'metadata_size = "100g"'; do
	printf 'create {\n\tzero = "y"\n\t%s\n}\n' "$bad" >"$conf"
	unchanged 3 tpconfig
	err_has "tptools.conf:3: create/.* takes auto or a size tpcreate accepts (.* is not valid"
	unchanged 3 tpcreate --test --data x.img --meta y.img q
	err_has "tptools.conf:3: create/"
done
err_has "it must be from 2 MiB"
printf 'create {\n\tzero = "y"\n\tchunk = "100k"\n}\n' >"$conf"
usage_error tpconfig
err_has "the nearest valid values are 64 KiB and 128 KiB"
printf 'create {\n\tzero = "y"\n\twarn = 99999999999999999999\n}\n' >"$conf"
usage_error tpconfig
err_has "tptools.conf:3: create/warn takes a percentage 0..100 (0 = never), not \"99999999999999999999\""
err_lacks "int token"
printf 'global {\n\thost_id = -99999999999999999999\n}\n' >"$conf"
usage_error tpstatus
err_has "tptools.conf:2: global/host_id takes a whole number 1..2000, not -99999999999999999999"
# a default the file gives that tpcreate cannot use here: the message
# names the setting and the file, not only an option never given
image cd.img 1G
image cm.img 64M
printf 'create {\n\tmetadata_size = "15g"\n}\n' >"$conf"
unchanged 5 tpcreate --test --data cd.img --meta cm.img q
err_has "Metadata device too small"
err_has "\--metadata-size 15g was not given: it is create/metadata_size in $conf:2"
rm -f cd.img cm.img
printf 'create {\n\tprofile = "balanced"\n\0\n}\n' >"$conf"
usage_error tpstatus
err_has "NUL byte"
head -c 2000000 /dev/zero | tr '\0' '#' >"$conf"
usage_error tpstatus
err_has "larger than"
# a file that cannot be read (a directory)
rm -f "$conf"
mkdir "$conf"
failed tpstatus p
err_has "cannot read"
rmdir "$conf"

# tpcreate's defaults from create/...; an option wins over the file
cat >"$conf" <<'EOT'
create {
	profile = "snapshots"
	zero = "n"
	warn = 65
	autoextend_threshold = 75
	autoextend_by = "2G"
	autoextend_max = "10G"
	activate = "n"
	when_full = "error"
	max_overprovision = "1.5"
}
EOT
new_pool c1 --chunk 64k
ok tpchange c1
out_has "warn at 65%, autoextend at 75% by 2 GiB up to 10 GiB"
[ "$(tpstatus --noheadings -o pool_zero c1 | tr -d ' ')" = no ] || fail "create/zero n not taken"
[ "$(tpstatus --noheadings -o pool_when_full c1 | tr -d ' ')" = error ] || fail "when_full"
grep -q 'activation_skip=1' "$(backup_dir c1)"/*.vg || fail "create/activate n not taken"
grep -q 'max_overprovision_percent=150' "$(backup_dir c1)"/*.vg ||
	fail "create/max_overprovision 1.5 not taken"
new_pool c2 --chunk 64k --warn 90 --activate y --zero y --max-overprovision none -v
err_has "--when-full error: create/when_full in $conf:9"
ok tpchange c2
out_has "warn at 90%"
[ "$(tpstatus --noheadings -o pool_zero c2 | tr -d ' ')" = yes ] || fail "--zero y lost to the file"
grep -q 'max_overprovision_percent' "$(backup_dir c2)"/*.vg &&
	fail "--max-overprovision none lost to the file"
new_pool c3 --chunk 64k --explain
out_has "Default --profile snapshots from create/profile ($conf:2)"
rm -f "$conf"

# tpmonitor's defaults from monitor/...; an option wins
mkdir prom
printf 'monitor {\n\tinterval = 7\n\ttextfile = "%s/prom"\n}\n' "$PWD" >"$conf"
ok tpmonitor --once
[ -s prom/tptools.prom ] || fail "monitor/textfile: no metrics written"
grep -q '^tptools_pool_up{pool="c1"}' prom/tptools.prom || fail "monitor/textfile: $(head -3 prom/tptools.prom)"
timeout -k 10 -s TERM 3 tpmonitor --poll >out 2>err || true
err_has "started: every 7 s"
timeout -k 10 -s TERM 3 tpmonitor --poll --interval 9 >out 2>err || true
err_has "started: every 9 s"
printf 'monitor {\n\ttextfile = "prom"\n}\n' >"$conf"
usage_error tpmonitor --once
err_has "monitor/textfile takes an absolute directory path"
rm -f "$conf"

# the devices filter: a rejected block device is never opened
loop_pool blk
ln -s "$ld" data-link
printf 'devices {\n\tfilter = [ "r|^%s$|" ]\n}\n' "$ld" >"$conf"
# named: refused (the symbolic link too, by its resolved name), nothing written
unchanged 3 tpstatus --devices "$ld,$lm" blk
err_has "$ld is excluded by the devices filter, pattern"
grep -qF "pattern \"r|^$ld\$|\" ($conf:2)" err || fail "the pattern and its line not named: $(cat err)"
unchanged 3 tpstatus --devices "data-link,$lm" blk
err_has "is excluded by the devices filter"
# through the devices file: the pool's device is named as filtered
failed tpstatus blk
err_has "is excluded by the devices filter"
# the scan passes it by: not even opened
rm "$TPTOOLS_DIR/devices"
if have strace; then
	strace -f -qq -e trace=open,openat -o trace tpstatus blk >out 2>err && fail "found a filtered pool"
	grep -q "$lm" trace || fail "the scan opened no device at all (the check is broken): $(grep -c open trace) opens"
	! grep -q "\"$ld\"" trace || fail "a filtered device was opened: $(grep "$ld" trace)"
else
	failed tpstatus blk
fi
# an accept pattern before the reject lets it in; image files are never filtered
printf 'devices {\n\tfilter = [ "a|^%s$|", "r|.*|" ]\n}\n' "$ld" >"$conf"
failed tpstatus blk
err_has "not found"
printf 'devices {\n\tfilter = [ "a|^%s$|", "a|^%s$|", "r|.*|" ]\n}\n' "$ld" "$lm" >"$conf"
ok tpstatus blk
ok tvcreate -V 1G -n w blk
printf 'devices {\n\tfilter = [ "r|.*|" ]\n}\n' >"$conf"
ok tpstatus --devices c1-data.img,c1-meta.img c1
rm -f "$conf"
ok tpremove -y blk
