# SPDX-License-Identifier: GPL-2.0-or-later
# Metadata written by thin_restore 0.9.0 (from generated XML: many devices,
# shared data blocks, runs and single blocks, holes, an empty device) is
# read by tpdump exactly as thin_dump reads it, in both formats.
have thin_restore || skip "thin-provisioning-tools not installed"
gen=$TOP/test/data/xml/gen.awk
n=0
for spec in "1 1" "2 300" "7 4000" "40 500" "3 60000"; do
	set -- $spec
	n=$((n + 1))
	awk -v ndev="$1" -v blocks="$2" -v seed="$n" -f "$gen" >in$n.xml
	image m$n.img 64M
	thin_restore -i in$n.xml -o m$n.img >/dev/null
	thin_dump m$n.img >want$n.xml
	cmp want$n.xml in$n.xml || fail "thin_restore/thin_dump did not round-trip workload $n"
	ok tpdump m$n.img
	cmp out want$n.xml || fail "tpdump differs from thin_dump on workload $n ($spec)"
	thin_dump -f human_readable m$n.img >want$n.txt
	ok tpdump -f human m$n.img
	cmp out want$n.txt || fail "tpdump --format human differs on workload $n"
done
