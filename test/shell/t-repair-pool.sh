# SPDX-License-Identifier: GPL-2.0-or-later
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

# both devices' VG areas put back to an older moment (the thin metadata is
# two transactions ahead): a salvage would set the thin metadata back and
# delete volume w, made since. This host's newest backup agrees with the
# thin metadata: tpcheck names its restore, tprepair without it refuses
# (exit 5, nothing written), and the restore keeps both volumes
image lag-d.img 64M
image lag-m.img 16M
ok tpcreate -q --data lag-d.img --meta lag-m.img lagp
head -c 1M /dev/urandom >lag-v.raw
ok tprecv -q --format raw -n v -i lag-v.raw lagp
dd if=lag-d.img of=lag-d.vg bs=4096 skip=1 count=255 status=none
dd if=lag-m.img of=lag-m.vg bs=4096 skip=1 count=255 status=none
head -c 1M /dev/urandom >lag-w.raw
ok tprecv -q --format raw -n w -i lag-w.raw lagp
dd if=lag-d.vg of=lag-d.img bs=4096 seek=1 conv=notrunc status=none
dd if=lag-m.vg of=lag-m.img bs=4096 seek=1 conv=notrunc status=none
expect_rc 2 tpcheck lagp
out_has "next: restore with 'tprepair lagp --restorefile .*/00000000000000000005.vg --devices .*lag-d.img,.*lag-m.img' (this host's backup seqno 5 of the pool agrees with the thin metadata, transaction 4"
cmd=$(sed -n "s/^next: restore with '\([^']*\)'.*/\1/p" out)
unchanged 5 tprepair lagp
err_has "its VG metadata lags behind its thin metadata; nothing was changed"
ok $cmd
ok tpcheck lagp
ok tpsend --format raw -o lag-v.out lagp/v
cmp lag-v.out lag-v.raw || fail "volume v changed"
ok tpsend --format raw -o lag-w.out lagp/w
cmp lag-w.out lag-w.raw || fail "volume w, made after the VG copy put back, is not kept"
# the same without any backup that agrees: tprepair still refuses (the
# salvage would delete volume w's thin device), and names the choice;
# --force is the consent to that loss
dd if=lag-d.vg of=lag-d.img bs=4096 seek=1 conv=notrunc status=none
dd if=lag-m.vg of=lag-m.img bs=4096 seek=1 conv=notrunc status=none
rm -f "$(backup_dir lagp)"/*.vg
expect_rc 2 tpcheck lagp
out_has "next: no backup of this host agrees with the thin metadata (transaction"
out_has "or run 'tprepair lagp --force' to set the thin metadata back"
unchanged 5 tprepair lagp
err_has "its VG metadata lags behind its thin metadata; nothing was changed"
ok tprepair --force lagp
ok tpsend --format raw -o lag-v.out lagp/v
cmp lag-v.out lag-v.raw || fail "volume v changed by the forced salvage"
