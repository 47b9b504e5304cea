# SPDX-License-Identifier: GPL-2.0-or-later
# tpcheck compares this host's newest VG metadata backup of the pool (its
# uuid's: another pool's never counts) with the VG metadata the devices
# hold: a backup newer than it (the newest copies damaged on every
# device) is a finding whose advice is the restore of that backup, not
# tprepair's rewrite of the older VG; a backup of the devices' seqno
# holding another text (an older VG rewritten under that seqno) is a
# finding too, with both crcs. Nothing is written by the check. The
# host's files lie under a long path: a finding names it whole.
long=$PWD/$(printf 'a-directory-with-a-long-name-%.0s' 1 2 3 4 5 6)
mkdir -p "$long/etc"
export TPTOOLS_DIR=$long/etc
DATA_SIZE=32M META_SIZE=16M new_pool P --chunk 64K
ok tvcreate -V 1M -n a P
ok tpchange --warn 70 P
dir=$(backup_dir P)
newest=$(ls "$dir"/*.vg | tail -1)
seq=$(basename "$newest" .vg | sed 's/^0*//')
cp "$newest" lost.vg
ok tpcheck P
out_lacks "backup"

# a backup of another pool (another uuid) with a higher seqno, in this
# pool's directory, and another pool with more commits: neither counts
DATA_SIZE=32M META_SIZE=16M new_pool Q --chunk 64K
for w in 71 72 73 74 75 76; do ok tpchange --warn "$w" Q; done
sed "s/^\(\t*seqno *= *\)[0-9]*$/\1$((seq + 5))/; s/^\(\tuuid *= *\"\)[0-9a-f]\{8\}/\1deadbeef/" \
	"$newest" >"$dir/$(printf %020d $((seq + 5))).vg"
ok tpcheck P
out_lacks "backup"

# the newest copy damaged on both devices: the backup is newer
ok tp-vgtool damage P-data.img newest text
ok tp-vgtool damage P-meta.img newest header
cp --sparse=always P-data.img data.keep
cp --sparse=always P-meta.img meta.keep
sums ./P-*.img "$dir"/* >sums.before
expect_rc 1 tpcheck P
sums_same sums.before || fail "tpcheck wrote"
out_has "^warning: this host's newest VG metadata backup $newest records seqno $seq, newer than the devices' VG metadata (seqno $((seq - 1)))$"
out_has "^next: the devices lack a commit this host made (backup seqno $seq, made after 'tpchange --warn 70 P'): "
out_has "restore it with 'tprepair P --restorefile $newest --devices .*P-data.img,.*P-meta.img'"
out_has "; 'tprepair P' would rewrite the damaged copies from the older VG metadata, without that change$"
out_lacks "deadbeef"

# tprepair rewrites the older VG as seqno $seq (its backup replaces this
# host's); the backup of the lost change put back, as another host that
# kept it would have it: two texts of one seqno
ok tprepair P
cp lost.vg "$newest"
expect_rc 1 tpcheck P
out_has "^warning: this host's VG metadata backup $newest of seqno $seq holds another text (crc32c 0x[0-9a-f]\{8\}) than the devices' VG metadata (crc32c 0x[0-9a-f]\{8\})$"
out_has "^next: two texts carry VG metadata seqno $seq: the devices' and this host's backup, made after 'tpchange --warn 70 P' .*make again the change the devices lack"
# made again: the next commit supersedes both
ok tpchange --warn 70 P
ok tpcheck P
out_lacks "backup"

# the advice followed instead: the damaged devices, the backup restored
cp --sparse=always data.keep P-data.img
cp --sparse=always meta.keep P-meta.img
cp lost.vg "$newest"
rm -f "$dir/$(printf %020d $((seq + 1))).vg"
expect_rc 1 tpcheck P
ok tprepair P --restorefile "$newest" --devices P-data.img,P-meta.img
ok tpchange P
out_has "warn at 70%"
ok tpcheck P
out_lacks "backup"
ok tpcheck Q
