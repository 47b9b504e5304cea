# SPDX-License-Identifier: GPL-2.0-or-later
# tprestore refuses bad input with exit 5 and a message naming the line,
# and leaves the output byte-for-byte unchanged (sha256 before and after),
# whether it held metadata or anything else.
have thin_restore || skip "thin-provisioning-tools not installed"
gen=$TOP/test/data/xml/gen.awk
awk -v ndev=3 -v blocks=2000 -f "$gen" >good.xml
image meta.img 2M
thin_restore -i good.xml -o meta.img >/dev/null
image junk.img 2M
printf 'not metadata' | dd of=junk.img bs=1 seek=5000 conv=notrunc status=none
sb='<superblock uuid="" time="1" transaction="5" flags="0" version="2" data_block_size="128" nr_data_blocks="100">'
dev='<device dev_id="1" mapped_blocks="1" transaction="0" creation_time="0" snap_time="0">'
m() { echo "<single_mapping origin_block=\"$1\" data_block=\"$2\" time=\"0\"/>"; }
i=0
bad() { # bad EXPECTED-MESSAGE LINES...
	local msg=$1 f
	shift
	i=$((i + 1))
	f=bad$i.xml
	printf '%s\n' "$@" >"$f"
	for out in meta.img junk.img; do
		before=$(sums "$out")
		failed tprestore -i "$f" -o "$out"
		err_has "$msg"
		err_has "$f:[0-9]*:[0-9]*:"
		[ "$(sums "$out")" = "$before" ] || fail "tprestore changed $out on bad input $i ($msg)"
	done
}
bad "malformed XML" "$sb" "$dev" "</superblock>"
bad "malformed XML" "$sb" "$dev" "$(m 0 0)"
bad "malformed XML" ""
bad "unknown element" "$sb" "<metadata/>" "</superblock>"
bad "is not a decimal number" "$sb" "<def name=\"a\"/>" "</superblock>"
bad "no <def name=\"3\"> before it" "$sb" "$dev" "<ref name=\"3\"/>" "</device>" "</superblock>"
bad "unknown attribute 'colour'" "$sb" "$dev" "<single_mapping origin_block=\"0\" data_block=\"0\" time=\"0\" colour=\"red\"/>" "</device>" "</superblock>"
bad "missing attribute 'time'" "$sb" "$dev" "<single_mapping origin_block=\"0\" data_block=\"0\"/>" "</device>" "</superblock>"
bad "missing attribute 'nr_data_blocks'" '<superblock time="1" transaction="5" data_block_size="128">' "</superblock>"
bad "not a decimal number" "$sb" "$dev" "$(m 0x1 0)" "</device>" "</superblock>"
bad "too large" "$sb" "$dev" "$(m 18446744073709551616 0)" "</device>" "</superblock>"
bad "only allowed inside <device>" "$sb" "$(m 0 0)" "</superblock>"
bad "overlaps or precedes" "$sb" "$dev" "$(m 5 0)" "$(m 5 1)" "</device>" "</superblock>"
bad "overlaps or precedes" "$sb" "$dev" "$(m 5 0)" "$(m 3 1)" "</device>" "</superblock>"
bad "overlaps or precedes" "$sb" "$dev" '<range_mapping origin_begin="0" data_begin="0" length="10" time="0"/>' "$(m 9 50)" "</device>" "</superblock>"
bad "beyond nr_data_blocks" "$sb" "$dev" "$(m 0 100)" "</device>" "</superblock>"
bad "beyond nr_data_blocks" "$sb" "$dev" '<range_mapping origin_begin="0" data_begin="95" length="6" time="0"/>' "</device>" "</superblock>"
bad "data_block_size=\"100\"" '<superblock time="1" transaction="5" data_block_size="100" nr_data_blocks="10">' "</superblock>"
bad "data_block_size=\"4194304\"" '<superblock time="1" transaction="5" data_block_size="4194304" nr_data_blocks="10">' "</superblock>"
bad "duplicate dev_id 1" "$sb" "$dev" "</device>" "$dev" "</device>" "</superblock>"
bad "length must be at least 1" "$sb" "$dev" '<range_mapping origin_begin="0" data_begin="0" length="0" time="0"/>' "</device>" "</superblock>"
bad "unexpected text" "$sb" "hello" "</superblock>"
# a valid document followed by junk, and a valid head of a long document
# with the error at its very end
bad "malformed XML" "$(cat good.xml)" "<superblock/>"
bad "beyond nr_data_blocks" "$(head -n -2 good.xml)" "$(m 999999999 99999999)" "</device>" "</superblock>"
# an area too small for the document: refused before writing
awk -v ndev=2 -v blocks=20000 -f "$gen" >big.xml
image small.img 256K
before=$(sums small.img)
failed tprestore -i big.xml -o small.img
err_has "too small"
[ "$(sums small.img)" = "$before" ] || fail "tprestore changed a too-small output"
# command line errors
usage_error tprestore -o meta.img
usage_error tprestore -i good.xml
usage_error tprestore -i good.xml -o meta.img extra
usage_error tprestore -i good.xml -o meta.img --offset 32M
failed tprestore -i no-such.xml -o meta.img
failed tprestore -i good.xml -o no-such.img
# and the good document still works on both outputs
ok tprestore -i good.xml -o junk.img
thin_check junk.img >/dev/null 2>&1 || fail "thin_check failed after a good restore"
