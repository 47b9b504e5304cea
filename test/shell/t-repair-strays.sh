# SPDX-License-Identifier: GPL-2.0-or-later
# Stray thin devices (tprepair(8)): a thin device that no volume lists, as a
# live tprecv cut short by a crash leaves one (the kernel made the thin
# device, the VG never listed it). tpcheck reports it (exit 1) and names
# tprepair; tprepair deletes it in a transaction of its own, without a
# salvage, keeps every volume and frees its chunks; a clean pool is then
# left untouched.
DATA_SIZE=64M META_SIZE=16M
new_pool p
ok tvcreate -V 8M -n v p
write_chunks p v 0 4
ok tvsnap -n s p/v
used_before=$(tpstatus --noheadings -o pool_data_used --units b p | tr -d ' ')

# thin device 9, 6 chunks mapped, committed by the thin metadata only
save_area p area.bin
ok tp-thinmap --create area.bin 9 0 6
load_area p area.bin
expect_rc 1 tpcheck p
out_has "thin device 9 belongs to no volume"
out_has "next: run 'tprepair p' to delete the thin devices that belong to no volume"
[ "$(tpstatus --noheadings -o pool_data_used --units b p | tr -d ' ')" != "$used_before" ] ||
	fail "the stray's chunks are not counted as used"

ok tprepair p
out_has "deleted 1 thin device(s) that belonged to no volume"
out_lacks "spare area"
expect_rc 0 tpcheck p
used_after=$(tpstatus --noheadings -o pool_data_used --units b p | tr -d ' ')
[ "$used_after" = "$used_before" ] || fail "data used after tprepair: $used_after, want $used_before"
ok tpstatus --noheadings -o vol_name p
out_has "^ *s *$"
out_has "^ *v *$"
have thin_check && thin_check_pool p

# clean now: tprepair writes nothing
sums ./*.img >sums.before
ok tprepair p
out_has "clean: nothing to repair"
sums ./*.img >sums.after
cmp -s sums.before sums.after || fail "tprepair of a clean pool changed a device"
