# SPDX-License-Identifier: GPL-2.0-or-later
# tprestore: what it writes passes thin_check, and thin_dump and tpdump of
# it give back the input XML byte for byte. Also from stdin, into an area
# inside a bigger device, and from thin_dump output of kernel metadata.
have thin_check || skip "thin-provisioning-tools not installed"
gen=$TOP/test/data/xml/gen.awk
n=0
for spec in "1 0" "1 1" "3 1000" "25 700" "2 50000"; do
	set -- $spec
	n=$((n + 1))
	awk -v ndev="$1" -v blocks="$2" -v seed="$n" -f "$gen" >in$n.xml
	image m$n.img 32M
	ok tprestore -i in$n.xml -o m$n.img
	thin_check m$n.img >check.log 2>&1 || { cat check.log >&2; fail "thin_check failed on workload $n"; }
	thin_dump m$n.img >dump$n.xml
	cmp dump$n.xml in$n.xml || fail "thin_dump of tprestore output differs from its input ($spec)"
	ok tpdump m$n.img
	cmp out in$n.xml || fail "tpdump of tprestore output differs from its input ($spec)"
done
# standard input, and the `tp restore` spelling
image s.img 8M
tp restore -i - -o s.img <in3.xml >out 2>err || fail "tprestore from stdin failed: $(cat err)"
ok tpdump s.img
cmp out in3.xml || fail "tprestore from stdin differs"
# an area inside a bigger device: the bytes around it stay as they were
image pool.img 40M
printf 'HEAD' | dd of=pool.img bs=1 conv=notrunc status=none
printf 'TAIL' | dd of=pool.img bs=1 seek=$((36 * 1048576)) conv=notrunc status=none
ok tprestore -i in3.xml -o pool.img --offset 4M --size 32M
ok tpdump --offset 4M --size 32M pool.img
cmp out in3.xml || fail "tprestore --offset differs"
[ "$(head -c 4 pool.img)" = HEAD ] || fail "tprestore wrote before its area"
[ "$(dd if=pool.img bs=1 skip=$((36 * 1048576)) count=4 status=none)" = TAIL ] ||
	fail "tprestore wrote after its area"
dd if=pool.img of=area.img bs=1M skip=4 count=32 status=none
thin_check area.img >/dev/null 2>&1 || fail "thin_check failed on the area"
# kernel-written metadata: dump, restore, dump again
have thin_dump && [ -e "$TOP/test/data/kernel-6.1/D_meta.img.xz" ] || exit 0
xz -dc "$TOP/test/data/kernel-6.1/D_meta.img.xz" >D.img
thin_dump D.img >D.xml
image D2.img 16M
ok tprestore -i D.xml -o D2.img
thin_check D2.img >/dev/null 2>&1 || fail "thin_check failed on restored D"
ok tpdump D2.img
cmp out D.xml || fail "restored kernel metadata D dumps differently"
