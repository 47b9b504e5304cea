# SPDX-License-Identifier: GPL-2.0-or-later
# tpcheck(8): "A copy whose checksums are right but whose text does not
# import, or makes another seqno than the one it is stored under, is
# damage too (its copy of seqno N is unusable)". The copy of the older
# slot is the one a read falls back to when the newest is lost: tpcheck
# must name it there too (exit 1, never 'clean'), tprepair rewrite it,
# and tpcheck then find the pool clean. (A hostile trial of issue 40
# found tpcheck calling such a pool clean: it imports the older slot's
# text only when a read falls back to it.)
have tp-vgtool || fail "tp-vgtool not built (make tests)"
new_pool n
ok tvcreate -V 16M -n v n
seq=$(tp-vgtool slots n-data.img n-meta.img | sed -n 's/^newest=\([0-9]*\).*/\1/p')
tp-vgtool text n-data.img n-meta.img >good.txt
# seqno+1: checksummed, its text does not import (into the older slot
# once seqno+2, the good text again, follows it)
sed "s/^\tseqno=$seq\$/\tseqno=$((seq + 1))/; s/^\tchunk_size=.*/\tchunk_size=\"banana\"/" good.txt >bad.txt
sed "s/^\tseqno=$seq\$/\tseqno=$((seq + 2))/" good.txt >next.txt
ok tp-vgtool put bad.txt n-data.img n-meta.img
ok tp-vgtool put next.txt n-data.img n-meta.img
ok tp-vgtool slots n-data.img n-meta.img
out_has "n-meta.img slot [01] valid $((seq + 1))"
out_has "newest=$((seq + 2))"
ok tpstatus n
expect_rc 1 tpcheck n
out_has "its copy of seqno $((seq + 1)) is unusable"
out_lacks "clean"
ok tprepair n
ok tpcheck n
out_has "clean"

ok tpcheck --json n
out_has '"newer_format": "none",'
out_has '"notes": \[\],'

# the older slot holding a copy of a newer format (seqno+1, format 3)
# below the newest (seqno+2, this format): a newer tptools moved the pool
# back to this format, and that copy is the previous commit, not damage:
# tpcheck notes it (exit 0), tprepair leaves it, and the next change
# writes over it as over any previous commit
seq=$(tp-vgtool slots n-data.img n-meta.img | sed -n 's/^newest=\([0-9]*\).*/\1/p')
tp-vgtool text n-data.img n-meta.img >good.txt
sed "s/^\tseqno=$seq\$/\tseqno=$((seq + 1))/; s/format_version=2/format_version=3/" good.txt >newer.txt
sed "s/^\tseqno=$seq\$/\tseqno=$((seq + 2))/" good.txt >next.txt
grep -q 'format_version=3' newer.txt || fail "no format 3 text made"
ok tp-vgtool put newer.txt n-data.img n-meta.img
ok tp-vgtool put next.txt n-data.img n-meta.img
ok tpcheck n
out_has "^note: .*/n-data.img: VG metadata slot [01] holds an earlier commit (seqno $((seq + 1))) that a newer tptools wrote"
out_has "no damage: the next change writes over it"
out_has "^n: clean"
out_lacks "warning"
ok tpcheck --json n
out_has '"result": "clean",'
out_has '"newer_format": "older_copy",'
out_has "earlier commit (seqno $((seq + 1))) that a newer tptools wrote"
out_has '"non_fatal": 0,'
sums ./*.img >before.sums
ok tprepair n
err_has "note: .*earlier commit (seqno $((seq + 1))) that a newer tptools wrote.*; tprepair leaves it"
sums ./*.img | cmp -s - before.sums || fail "tprepair wrote over the previous commit"
ok tpcheck n
out_has "^note: .*(seqno $((seq + 1)))"
ok tvcreate -V 16M -n w n
ok tpcheck --json n
out_has '"newer_format": "none",'
out_lacks "newer tptools"
