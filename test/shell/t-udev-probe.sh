# SPDX-License-Identifier: GPL-2.0-or-later
# tp udev-probe DEVICE (the helper of udev/60-tptools-member.rules): udev
# properties for a device with a tptools label, nothing for any other
# device; read-only; hidden from `tp --help`. On image files, on a loop
# device, and the rules file through udevadm (verify where udevadm has it,
# else `udevadm test` on the loop device with the rules installed under a
# private name in /run/udev/rules.d for the test's duration).
DATA_SIZE=256M META_SIZE=16M new_pool vault
rules=$TOP/udev/60-tptools-member.rules

ok tp udev-probe vault-data.img
out_has "^ID_FS_TYPE=tptools_member$"
out_has "^ID_FS_USAGE=raid$"
out_has "^ID_FS_LABEL=vault$"
out_has "^TPTOOLS_POOL=vault$"
out_has "^TPTOOLS_ROLE=data$"
uuid=$(sed -n 's/^ID_FS_UUID=//p' out)
grep -q " $uuid " "$TPTOOLS_DIR/devices" || fail "ID_FS_UUID $uuid is not the data device's uuid"
ok tp udev-probe vault-meta.img
out_has "^TPTOOLS_ROLE=meta$"
# nothing for other devices, exit 0
image empty.img 1M
ok tp udev-probe empty.img
[ ! -s out ] || fail "udev-probe printed something for an empty image"
image tiny.img 100
ok tp udev-probe tiny.img
[ ! -s out ] || fail "udev-probe printed something for a tiny file"
# a damaged label: still marked taken, flagged damaged
cp vault-meta.img damaged.img
printf '\377\377' | dd of=damaged.img bs=1 seek=600 conv=notrunc status=none
ok tp udev-probe damaged.img
out_has "^ID_FS_TYPE=tptools_member$"
out_has "^TPTOOLS_LABEL=damaged$"
# read-only: works on a read-only file, writes nothing
md5sum ./*.img >before.sum
chmod a-w vault-data.img
ok tp udev-probe vault-data.img
chmod u+w vault-data.img
md5sum -c --quiet before.sum || fail "udev-probe wrote an image"
failed tp udev-probe no-such.img
usage_error tp udev-probe
usage_error tp udev-probe a b
# internal: not listed, no symlink
ok tp --help
out_lacks "udev"
[ ! -e "$TOP/$BUILD/bin/udev-probe" ] || fail "udev-probe got a symlink"
# the rules file imports exactly this helper
[ "$(grep -c 'IMPORT{program}="/usr/sbin/tp udev-probe $devnode"' "$rules")" = 1 ] ||
	fail "the rules file does not import 'tp udev-probe \$devnode' once"

# a loop device
have losetup || skip "no losetup"
loop=$(losetup -f --show vault-data.img 2>/dev/null) || skip "cannot attach loop devices"
private=""
cleanup() {
	[ -z "$private" ] || rm -f "$private"
	losetup -d "$loop" 2>/dev/null || true
}
trap cleanup EXIT
ok tp udev-probe "$loop"
out_has "^ID_FS_UUID=$uuid$"
out_has "^TPTOOLS_ROLE=data$"

# the rules file
have udevadm || { echo "no udevadm: rules file not checked"; exit 0; }
if udevadm verify --help >/dev/null 2>&1; then
	ok udevadm verify "$rules"
elif [ -w /run ] && [ -e "/sys/class/block/${loop#/dev/}" ]; then
	mkdir -p /run/udev/rules.d
	private=/run/udev/rules.d/60-tptools-member-test-$$.rules
	sed "s|/usr/sbin/tp |$TOP/$BUILD/bin/tp |" "$rules" >"$private"
	ok udevadm test "/sys/class/block/${loop#/dev/}"
	grep -q "ID_FS_TYPE=tptools_member" out err ||
		{ cat err >&2; fail "udevadm test did not import ID_FS_TYPE"; }
	! grep "${private##*/}" err | grep -qi "invalid\|unknown\|failed\|error" ||
		{ grep "${private##*/}" err >&2; fail "udevadm: errors in the rules file"; }
	grep -q "TPTOOLS_ROLE=data" out err || fail "udevadm test: no TPTOOLS_ROLE"
else
	echo "udevadm has no verify and udevadm test cannot run here: rules file not checked"
fi
