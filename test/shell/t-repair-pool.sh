# Pool-level check and repair: tpcheck POOL is clean on a fresh pool and
# fatal with the active superblock zeroed; tprepair POOL salvages into the
# spare area and swaps in one VG commit (the damaged copy stays, byte for
# byte, in what became the spare); the transaction id matches the VG.
new_pool vault
ok tvcreate -V 1G -n www vault
ok tvsnap vault/www -n monday
ok tpcheck vault
out_has "vault: clean"
ok tpcheck --json vault
out_has '"result": "clean"'
read -r off len < <(meta_area vault)
[ -n "$off" ] || fail "no metadata area"
dd if=/dev/zero of=vault-meta.img bs=4096 seek=$((off / 4096)) count=1 conv=notrunc status=none
expect_rc 2 tpcheck vault
dd if=vault-meta.img of=damaged.before bs=4096 skip=$((off / 4096)) count=$((len / 4096)) \
	status=none
ok tprepair vault
out_has "2 thin devices"
read -r off2 len2 < <(meta_area vault)
[ "$off2" != "$off" ] || fail "tprepair did not swap the areas"
dd if=vault-meta.img of=damaged.after bs=4096 skip=$((off / 4096)) count=$((len / 4096)) \
	status=none
cmp -s damaged.before damaged.after || fail "the damaged area was written"
ok tpcheck vault
out_has "vault: clean"
ok tpstatus vault
if have thin_check; then thin_check_pool vault; fi
expect_rc 0 tpcheck -q vault
usage_error tpcheck --metadata x --devices a,b
failed tpcheck nosuchpool
