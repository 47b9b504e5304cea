# SPDX-License-Identifier: GPL-2.0-or-later
# A VG copy a newer tptools wrote on one device only (the metadata
# device; the data device's copy is older, of this format): every command
# refuses the pool (tp-metadata(5) "Format versions"), and the message
# that says which copy is newer names the device that holds it, not the
# first device of the pool. (A hostile trial of issue 40 found
# vg_read_flags naming pvs[0], the data device, whatever device the copy
# was read from.)
have tp-vgtool || fail "tp-vgtool not built (make tests)"
new_pool n
ok tvcreate -V 16M -n v n
seq=$(tp-vgtool slots n-data.img n-meta.img | sed -n 's/^newest=\([0-9]*\).*/\1/p')
tp-vgtool text n-data.img n-meta.img |
	sed "s/^\tseqno=$seq\$/\tseqno=$((seq + 1))/; s/format_version=2/format_version=3/" >newer.txt
ok tp-vgtool put newer.txt n-meta.img
unchanged 5 tvcreate -V 16M -n x n
err_has "n-meta.img: VG metadata seqno $((seq + 1)) is of a newer format"
err_lacks "n-data.img: VG metadata seqno $((seq + 1)) is of a newer format"
# the refusal's wording: no 'stale ... rewritten on the next change'
# before it (there is no next change), the last line names the pool and
# the reason, not 'no usable VG metadata'; tpcheck calls it no damage,
# tprepair's refusal is an error, not a warning
err_lacks "is stale"
err_lacks "no usable VG metadata"
err_has "pool n: its VG metadata is of a newer format than this tptools reads; nothing was changed"
expect_rc 2 tpcheck n
out_has "^n: not checked: its VG metadata is of a newer format than this tptools reads, which is no damage"
out_lacks "FATAL damage"
unchanged 5 tprepair n
err_lacks "warning: .*newer format"
err_has "error: pool n: its VG metadata is of a newer format than this tptools reads"
