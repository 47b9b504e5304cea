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

# transaction ids: thin one behind the VG = an interrupted transaction
# (non-fatal, kept by tprepair); any other difference is fatal and
# tprepair sets the VG's
read -r off len < <(meta_area vault)
area() { dd if=vault-meta.img of=area.img bs=4096 skip=$((off / 4096)) count=$((len / 4096)) status=none; }
put() { dd if=area.img of=vault-meta.img bs=4096 seek=$((off / 4096)) conv=notrunc status=none; }
ok tpcheck --json vault
tid=$(sed -n 's/.*"transaction_id": \([0-9]*\).*/\1/p' out)
[ -n "$tid" ] || fail "no transaction id in the JSON report"
area
ok tp-damage area.img trans 99
put
expect_rc 2 tpcheck vault
out_has "transaction ids disagree: VG metadata $tid, thin metadata 99"
ok tprepair vault
err_has "was 99; set to the VG's $tid"
ok tpcheck vault
read -r off len < <(meta_area vault)
area
ok tp-damage area.img trans $((tid - 1))
put
expect_rc 1 tpcheck --devices vault-data.img,vault-meta.img vault
out_has "interrupted transaction"
out_has "next: run 'tprepair vault.*' to complete the interrupted transaction"
sums ./*.img >interrupted.sums
# tprepair completes it as the next change would, salvaging nothing
ok tprepair vault
out_has "completed the interrupted transaction $tid"
out_lacks "salvage"
ok tpcheck vault

usage_error tpcheck --metadata x --devices a,b
failed tpcheck nosuchpool

# ... and so does the next change
area
ok tp-damage area.img trans $((tid - 1))
put
ok tvcreate -V 1G -n extra vault
ok tpcheck vault

# a damaged VG metadata slot on one device: non-fatal, named; the repair's
# VG commit rewrites it
printf '\377\377\377\377' | dd of=vault-data.img bs=1 seek=$((4096 + 100)) conv=notrunc status=none
expect_rc 1 tpcheck vault
out_has "vault-data.img: .*VG metadata"
ok tprepair vault
ok tpcheck vault
out_lacks "VG metadata"

# a lost label: fatal for tpcheck, which names the command; tprepair
# rewrites it from the other device's VG metadata (more in t-repair-label)
dd if=/dev/zero of=vault-data.img bs=512 seek=1 count=1 conv=notrunc status=none
expect_rc 2 tpcheck --devices vault-data.img,vault-meta.img vault
out_has "vault-data.img: no valid tptools label"
out_has "next: run 'tprepair vault --devices vault-data.img,vault-meta.img' to rewrite the label of vault-data.img"
sums vault-meta.img >before.sum
ok tprepair --devices vault-data.img,vault-meta.img vault
out_has "rewrote the label of vault-data.img"
sums_same before.sum || fail "a label repair wrote the metadata device"
ok tpcheck vault
