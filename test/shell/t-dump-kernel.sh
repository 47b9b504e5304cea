# SPDX-License-Identifier: GPL-2.0-or-later
# tpdump on kernel-written metadata (Linux 6.1 fixtures): identical to
# thin_dump 0.9.0 in both formats, live and metadata snapshot, as a file,
# through -o and inside a bigger device (--offset); clean failures.
have thin_dump || skip "thin_dump not installed"
fx=$TOP/test/data/kernel-6.1
[ -e "$fx/B_meta.img.xz" ] || fail "missing fixtures in $fx"
for s in A B D E; do
	xz -dc "$fx/${s}_meta.img.xz" >"$s.img"
	thin_dump "$s.img" >"$s.want"
	ok tpdump "$s.img"
	cmp out "$s.want" || fail "tpdump $s differs from thin_dump"
	thin_dump -f human_readable "$s.img" >"$s.hwant"
	ok tpdump --format human "$s.img"
	cmp out "$s.hwant" || fail "tpdump --format human $s differs from thin_dump"
	ok tpdump -o "$s.xml" "$s.img"
	cmp "$s.xml" "$s.want" || fail "tpdump -o $s differs"
	[ ! -s out ] || fail "tpdump -o also wrote to stdout"
done
# fixture B holds a metadata snapshot
thin_dump -m B.img >B.snap.want
ok tpdump --metadata-snap B.img
cmp out B.snap.want || fail "tpdump --metadata-snap differs from thin_dump -m"
ok tpdump -m -f human_readable B.img
out_has "begin superblock"
ok tp dump -m B.img
cmp out B.snap.want || fail "tp dump -m differs"
# one device, devices without mappings, and both, as thin_dump selects them
for opts in "--dev-id 1" "--dev-id 0" "--dev-id 9" "--skip-mappings" \
	"--skip-mappings --dev-id 1" "-m --dev-id 1" "-f human_readable --dev-id 0"; do
	# shellcheck disable=SC2086
	thin_dump $opts B.img >want
	# shellcheck disable=SC2086
	ok tpdump $opts B.img
	cmp out want || fail "tpdump $opts differs from thin_dump"
done
usage_error tpdump --dev-id 16777216 B.img
usage_error tpdump --dev-id -1 B.img
usage_error tpdump --dev-id x B.img
# the metadata area inside a larger device
image pool.img 40M
dd if=B.img of=pool.img bs=1M seek=3 conv=notrunc status=none
ok tpdump --offset 3M --size 16M pool.img
cmp out B.want || fail "tpdump --offset differs"
ok tpdump --offset 3145728 pool.img
cmp out B.want || fail "tpdump --offset in bytes differs"
# failures: no snapshot held, no metadata, damaged, missing, bad options
failed tpdump -m A.img
err_has "metadata snapshot"
image zero.img 4M
failed tpdump zero.img
failed tpdump no-such.img
err_has "no-such.img"
cp B.img bad.img
printf 'garbage' | dd of=bad.img bs=1 seek=100 conv=notrunc status=none
failed tpdump bad.img
usage_error tpdump --format yaml B.img
err_has "yaml"
usage_error tpdump
usage_error tpdump B.img A.img
usage_error tpdump --offset 1Q B.img
usage_error tpdump --offset 64M B.img
failed tpdump -o no-such-dir/x.xml B.img
# an output that cannot take the dump
if [ -w /dev/full ]; then
	failed tpdump -o /dev/full D.img
	err_has "writing the dump"
fi
