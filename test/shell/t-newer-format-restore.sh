# SPDX-License-Identifier: GPL-2.0-or-later
# tp-metadata(5) "Format versions": a VG copy a newer tptools wrote makes
# every command refuse the pool and write nothing, never fall back to an
# older copy, "whose next commit would undo what that tptools wrote";
# tpcheck's next: line says "restoring an older backup would undo what
# that one wrote". tprepair --restorefile of this host's older backup is
# that very undo: without --force it must be refused like every other
# command (exit 5, the images, the devices file and the backups as they
# were). (A hostile trial of issue 40 found it restores the backup over
# the newer copy, after printing "this tptools neither checks nor
# repairs it".)
have tp-vgtool || fail "tp-vgtool not built (make tests)"
new_pool n
ok tvcreate -V 16M -n v n
ok tvcreate -V 16M -n w n
backup=$(ls "$TPTOOLS_DIR"/backup/*/*.vg | sort | tail -1)
[ -f "$backup" ] || fail "no backup made"
# the newer tptools' copy: the next seqno, format 3
seq=$(tp-vgtool slots n-data.img n-meta.img | sed -n 's/^newest=\([0-9]*\).*/\1/p')
tp-vgtool text n-data.img n-meta.img |
	sed "s/^\tseqno=$seq\$/\tseqno=$((seq + 1))/; s/format_version=2/format_version=3/" >newer.txt
grep -q 'format_version=3' newer.txt || fail "no format 3 text made"
ok tp-vgtool put newer.txt n-data.img n-meta.img
etc_sum() { (cd "$TPTOOLS_DIR" && find . -path ./lock -prune -o -type f -print | sort | xargs cat | cksum); }
etc_sum >etc.before
unchanged 5 tprepair --restorefile "$backup" n
err_has "newer format than this tptools reads"
err_lacks "restored from"
etc_sum | cmp -s - etc.before || fail "tprepair --restorefile changed the devices file or the backups"
tp-vgtool text n-meta.img | grep -q 'format_version=3' || fail "the newer tptools' copy is gone"
