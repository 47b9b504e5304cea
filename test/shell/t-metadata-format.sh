# SPDX-License-Identifier: GPL-2.0-or-later
# VG metadata format 2 (tp-metadata(5), "Change records"): a new pool is
# made in it and, once both slots hold a checkpoint, a change appends a
# record, leaving the checkpoints' bytes as they were; a pool made before it (test/data/release-0123b65, format
# 1) stays in format 1 until tpchange --metadata-format 2, which writes
# the checkpoint into both slots of every device, then records follow;
# --metadata-format 1 writes it whole again. The option goes alone; a
# bad value or another option with it is exit 3 with every image byte for
# byte; a format already set writes nothing. The volumes read back what
# the earlier build read, in every format, and tpcheck finds it clean.
have tp-vgtool || fail "tp-vgtool not built (make tests)"
fx=$TOP/test/data/release-0123b65
xz -dc "$fx/rel-data.img.xz" >rel-data.img
xz -dc "$fx/rel-meta.img.xz" >rel-meta.img
truncate -s 256M rel-data.img
D="--devices rel-data.img,rel-meta.img"
read_back() {
	local sum v got
	while read -r sum v; do
		got=$(tpsend $D --format raw "rel/$v" | sha256sum | cut -d' ' -f1)
		[ "$got" = "$sum" ] || fail "rel/$v reads other bytes than the build of 0123b65 read ($1)"
	done <"$fx/SUMS"
}
fmt() { tpstatus $D --noheadings -o pool_metadata_format rel | tr -d ' '; }
# slot_seqnos IMG: "SEQNO0 SEQNO1", the seqnos of the two slots
slot_seqnos() { tp-vgtool where "$1" | awk '$1 == "slot0" { a = $5 } $1 == "slot1" { b = $5 } END { print a, b }'; }
has_record() { tp-vgtool where "$1" | grep -q '^record '; }

# ---- a pool of format 1: shown, written whole ----
[ "$(fmt)" = 1 ] || fail "the earlier build's pool is not of format 1: $(fmt)"
ok tpchange $D rel
out_has "Pool rel: VG metadata format 1 (a change writes the whole VG text; 'tpchange --metadata-format 2'"
ok tvcreate $D -V 16M -n f1 rel
for i in rel-data.img rel-meta.img; do
	has_record "$i" && fail "$i: a record in a pool of format 1"
	read -r a b <<<"$(slot_seqnos "$i")"
	[ $((a > b ? a - b : b - a)) = 1 ] || fail "$i: slots $a and $b are not two successive commits"
done

# ---- refusals: nothing written ----
unchanged 3 tpchange $D --metadata-format 3 rel
err_has "--metadata-format takes 1 or 2, not '3'"
unchanged 3 tpchange $D --metadata-format 2 --warn 70 rel
err_has "--metadata-format is a change of its own"
unchanged 3 tpchange $D --metadata-format 2 --activate n rel
unchanged 3 tpchange $D --metadata-format= rel

# ---- the upgrade: the checkpoint in both slots, then records ----
ok tpchange $D --metadata-format 2 rel
out_has "Pool rel: VG metadata format 2 (a change writes a record of what changed"
[ "$(fmt)" = 2 ] || fail "the format after the upgrade: $(fmt)"
for i in rel-data.img rel-meta.img; do
	read -r a b <<<"$(slot_seqnos "$i")"
	[ "$a" = "$b" ] || fail "$i: the upgrade left slots of seqnos $a and $b, not its checkpoint in both"
	has_record "$i" && fail "$i: a record right after the upgrade"
done
tp-vgtool text rel-meta.img | grep -q '^[[:space:]]*format_version=2$' || fail "the upgraded text does not say format_version=2"
read_back "after the upgrade"
ok tpcheck $D rel
out_has clean
# the checkpoints (each slot's header and text) stay as they were while
# records follow them, in the slots in turn
ck_sums() {
	local k off tl
	for k in 0 1; do
		off=$(tp-vgtool where rel-meta.img | awk -v s="slot$k" '$1 == s { print $2 }')
		tl=$(od -An -t u8 -j $((off + 48)) -N 8 rel-meta.img | tr -d ' ')
		dd if=rel-meta.img bs=512 skip=$((off / 512)) count=$((1 + (tl + 511) / 512)) status=none |
			sha256sum
	done
}
ck_sums >ck.before
before=$(slot_seqnos rel-meta.img)
ok tvcreate $D -V 16M -n f2 rel
ok tvsnap $D -n f2s rel/f2
ok tvrename $D rel/f1 f1b
ok tvremove $D -y rel/f1b
for i in rel-data.img rel-meta.img; do
	has_record "$i" || fail "$i: no record after changes in format 2"
done
ck_sums | cmp -s - ck.before || fail "a change in format 2 wrote over a checkpoint"
read -r a b <<<"$before"
read -r a2 b2 <<<"$(slot_seqnos rel-meta.img)"
[ $((a2 + b2)) = $((a + b + 7)) ] ||
	fail "four changes after checkpoints $a and $b: slots $a2 $b2, not the last two commits"
[ $((a2 > b2 ? a2 - b2 : b2 - a2)) = 1 ] || fail "slots $a2 and $b2 are not two successive commits"
ok tpstatus $D rel
out_has "^ *rel  *f2s "
out_lacks "^ *rel  *f1b "
read_back "after changes in format 2"
ok tpcheck $D rel
out_has clean
thin_check_pool rel

# ---- a format already set: nothing written ----
sums rel-data.img rel-meta.img >same.sum
ok tpchange $D --metadata-format 2 rel
out_has "nothing changed"
sums_same same.sum || fail "tpchange --metadata-format 2 wrote to a pool of format 2"

# ---- back to format 1: whole texts again, readable as before ----
ok tpchange $D --metadata-format 1 rel
[ "$(fmt)" = 1 ] || fail "the format after --metadata-format 1: $(fmt)"
ok tvcreate $D -V 16M -n f3 rel
tp-vgtool text rel-meta.img | grep -q '^[[:space:]]*format_version=1$' || fail "the text is not of format 1 again"
for i in rel-data.img rel-meta.img; do
	has_record "$i" && fail "$i: the newest copy has records in format 1"
done
ok tpstatus $D rel
out_has "^ *rel  *f2s "
out_has "^ *rel  *f3 "
read_back "back in format 1"
ok tpcheck $D rel
out_has clean

# ---- a new pool: format 2, a checkpoint in its blank second slot, then a
# record per change, nothing said ----
new_pool n
ok tvcreate -V 16M -n v n
[ "$(tpstatus --noheadings -o pool_metadata_format n | tr -d ' ')" = 2 ] || fail "a new pool is not of format 2"
has_record n-meta.img && fail "a record in the blank second slot of a new pool"
ok tvcreate -V 16M -n w n
has_record n-meta.img || fail "no record after the second change of a new pool"
ok tpchange n
out_lacks "metadata format"

# ---- a copy a newer tptools wrote (a format_version above 2, with a key
# this one does not know): every command refuses it, says so and writes
# nothing; none falls back to the older copy, whose next commit would undo
# what that tptools wrote (tp-metadata(5) "Format versions") ----
tp-vgtool text n-data.img n-meta.img | sed 's/format_version=2/format_version=3\n\tfuture_key=1/' >newer.txt
grep -q 'format_version=3' newer.txt || fail "no format 3 text made"
ok tp-vgtool put newer.txt n-data.img n-meta.img
for c in "tpstatus n" "tvcreate -V 16M -n x n" "tvremove -y n/v" "tpchange --warn 70 n" "tprename n m" \
	"tpcheck n" "tprepair n"; do
	rc=5; [ "${c%% *}" = tpcheck ] && rc=2
	# shellcheck disable=SC2086 # a command line
	unchanged $rc $c
	err_has "pool/format_version: 3 is newer than this tptools reads (1 to 2)"
	err_has "of a newer format than this tptools reads; nothing was changed"
	err_lacks "falling back"
done
# and neither tpcheck's next: line nor tprepair sends the user to an older
# backup, whose restore would undo what the newer tptools wrote
expect_rc 2 tpcheck n
out_has "^next: check and repair pool n with the tptools that wrote its VG metadata"
out_lacks "restorefile"
# --json tells a script "a newer tptools wrote this" from damage (both exit 2)
expect_rc 2 tpcheck --json n
out_has '"exit_code": 2,'
out_has '"newer_format": "vg",'
unchanged 5 tprepair n
err_has "repair it with the tptools that wrote it"
err_lacks "restorefile"
