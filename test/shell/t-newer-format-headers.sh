# SPDX-License-Identifier: GPL-2.0-or-later
# The VG area's own version fields (tp-metadata(5): a slot header's
# "version 1", a change record's "record format version, 1") are what a
# newer tptools raises when it writes a slot or a record this one cannot
# read. Such a slot or record is a newer tptools' write, as a text of a
# higher format_version is (tp-metadata(5) "Format versions"): every
# command must refuse the pool (exit 5, every image as it was), never
# take it for damage, fall back to the copy before it and, at its next
# commit, write over it. (A hostile trial of issue 40 found both taken
# for damage: a tvcreate after a tvrename whose record, or slot, says
# version 2 undoes the rename.)
have tp-vgtool || fail "tp-vgtool not built (make tests)"
have python3 || skip "no python3"
# setver IMAGE WHAT VERSION: the version field of the newest slot's header
# (WHAT=slot) or of its newest change record (WHAT=record), its checksum
# made right again
setver() {
	local img=$1 what=$2 ver=$3 off
	off=$(tp-vgtool where "$img" | awk '$1 == "newest" { print $2 }')
	python3 "$TOP/test/tools/vgforge.py" "$img" "$off" "$what" version="$ver"
}
for what in record slot; do
	rm -f ./*.img
	rm -rf "${TPTOOLS_DIR:?}"/*
	new_pool n
	ok tvcreate -V 16M -n v n
	ok tvcreate -V 16M -n w n
	ok tvrename n/v v2
	tp-vgtool where n-meta.img | grep -q '^record ' || fail "no change record after the rename"
	setver n-data.img "$what" 2
	setver n-meta.img "$what" 2
	unchanged 5 tvcreate -V 16M -n x n
	err_lacks "falling back"
	err_lacks "damaged; using the seqno before it"
done
