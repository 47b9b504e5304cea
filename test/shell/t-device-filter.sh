# SPDX-License-Identifier: GPL-2.0-or-later
# t-device-filter.sh - a block device the devices filter rejects, named to
# any command that takes a device (tptools(7) exit status 3,
# tptools.conf(5) devices/filter): refused with exit 3 and one line that
# names it, its pattern and what to do (no "cannot open" or "cannot probe"
# after it), nothing written to the pool's devices. A pool's added data
# device the filter excludes is not "missing": tpstatus, tvcreate and
# tpreduce --missing fail (5) naming the filter, tpcheck advises to accept
# it (never tpreduce --missing), and the device stays the pool's.
conf=$TPTOOLS_DIR/tptools.conf
loop_images lx lx.img 64M
image ly.img 64M
new_pool p --chunk 64k
ok tvcreate -V 4M -n v p
image pm1.img 16M
image pm2.img 16M
image pd.img 64M
ok tpcreate --data pd.img --meta pm1.img,pm2.img --chunk 64k mp
printf 'devices {\n\tfilter = [ "r|^%s$|" ]\n}\n' "$lx" >"$conf"
sums p-data.img p-meta.img pd.img pm1.img pm2.img ly.img >sums.before

# refused CMD...: exit 3, one line on stderr naming the device and the
# filter, nothing on stdout, nothing written
refused() {
	usage_error "$@"
	[ "$(wc -l <err)" = 1 ] || { cat err >&2; fail "'$*': not one line"; }
	grep -qF "error: $lx is excluded by the devices filter, pattern \"r|^$lx\$|\" ($conf:2); to use it, accept it in devices/filter" err ||
		{ cat err >&2; fail "'$*': the refusal does not name $lx, its pattern and what to do"; }
	[ ! -s out ] || { cat out >&2; fail "'$*' printed on stdout"; }
	sums_same sums.before || fail "'$*' wrote to a device"
}
refused tpcreate --data "$lx" --meta ly.img q
refused tpcreate --data ly.img --meta "$lx" q
refused tpcreate --data ly.img --meta pm1.img,"$lx" q
refused tpextend --data "$lx" p
refused tpextend --data "$lx" --test p
refused tpchange --meta-mirror "$lx" p
refused tpchange --meta-replace "$lx" mp
refused tpchange --autoextend-device "$lx" p
refused tpmove --from "$lx" p
refused tpmove --from "$lx" --test p
refused tprepair --devices "$lx",p-meta.img p
refused tprepair --devices p-data.img,"$lx" p
refused tpstatus --devices "$lx",p-meta.img p
refused tvcreate --devices "$lx",p-meta.img -V 4M -n w p
refused tpremove --label "$lx"
rm -f "$conf"
ok tpcheck p

# the device is the pool's second data device: tpreduce --data names it
size1=$(pool_bytes p pool_size)
ok tpextend --data "$lx" p
printf 'devices {\n\tfilter = [ "r|^%s$|" ]\n}\n' "$lx" >"$conf"
sums p-data.img p-meta.img lx.img >sums.before
refused tpreduce --data "$lx" p
refused tpreduce --data "$lx" --test p
refused tpremove --label "$lx"

# unnamed, the pool's device the filter excludes is not "missing": the
# commands name the filter (exit 5), tpcheck's advice is to accept it, and
# tpreduce --missing never takes it away
filtered() {
	failed "$@"
	[ "$(wc -l <err)" = 1 ] || { cat err >&2; fail "'$*': not one line"; }
	grep -qF "is not found: $lx, where it was last seen, is excluded by the devices filter, pattern \"r|^$lx\$|\" ($conf:2); change devices/filter in tptools.conf to accept it" err ||
		{ cat err >&2; fail "'$*': the filter is not named"; }
	err_lacks "missing:"
	err_lacks "Attach it"
	sums_same sums.before || fail "'$*' wrote to a device"
}
filtered tpstatus p
filtered tvcreate -V 4M -n w p
filtered tpreduce --missing --test p
filtered tpreduce --missing p
err_has "tpreduce --missing takes away only a device that is gone"
expect_rc 2 tpcheck p
grep -qF "data device 2 (device uuid " out err &&
	grep -qF "is not found: $lx, where it was last seen, is excluded by the devices filter" out err ||
	{ cat out err >&2; fail "tpcheck does not say the filter excludes the device"; }
grep -qF "next: change devices/filter in tptools.conf to accept $lx" out ||
	{ cat out >&2; fail "tpcheck's advice is not to accept it in the filter"; }
! grep -q "tpreduce --missing" out err || { cat out err >&2; fail "tpcheck advises tpreduce --missing"; }
! grep -q "is missing" out err || { cat out err >&2; fail "tpcheck calls it missing"; }
sums_same sums.before || fail "tpcheck wrote to a device"
rm -f "$conf"
ok tpcheck p
[ "$(pool_bytes p pool_size)" -gt "$size1" ] || fail "the second data device was taken away"
