# Bare metadata areas go through lib/pool: a write target that is a pool
# device (tptools label) is refused with exit 5 and left byte-for-byte
# unchanged, unless the area is aimed past the label with --offset or
# --force is given; the file itself is locked (a writer fails at once
# while another command holds it, a reader shares it).
DATA_SIZE=256M META_SIZE=16M new_pool vault
ok tvcreate -V 64M -n www vault
ok tpdump vault
cp out vault.xml
read -r off len < <(meta_area vault)
spare=$(tpstatus --noheadings -o pool_spare_offset vault | awk 'NF { print $1; exit }')
ok tpcheck --metadata vault-meta.img --offset "$off" --size "$len"
out_has "clean"
save_area vault src.img

# refused: both pool devices, for tprestore -o and tprepair -o
unchanged 5 tprestore -i vault.xml -o vault-meta.img
err_has "meta device of pool vault"
err_has "--offset"
err_has "--force"
unchanged 5 tprestore -i vault.xml -o vault-data.img
err_has "data device of pool vault"
unchanged 5 tprepair --metadata src.img -o vault-meta.img
err_has "meta device of pool vault"
err_has "--force"
unchanged 5 tprestore -i vault.xml -o vault-meta.img --offset 0 --size "$off"
ok tpcheck vault

# aimed at the spare area with --offset: written, the pool still fine
ok tprestore -i vault.xml -o vault-meta.img --offset "$spare" --size "$len"
ok tpdump vault-meta.img --offset "$spare" --size "$len"
cmp out vault.xml || fail "tprestore --offset into the spare area differs"
ok tpcheck vault

# --force overwrites a pool device (a copy here)
cp vault-meta.img victim.img
ok tprestore --force -i vault.xml -o victim.img
ok tpdump victim.img
cmp out vault.xml || fail "tprestore --force differs"
cp vault-meta.img victim2.img
ok tprepair --metadata src.img -o victim2.img --force
ok tpcheck --metadata victim2.img
ok tprepair --force vault	# with a pool: salvage even when clean (t-repair-preserve)

# the lock on the file itself
if have flock; then
	image plain.img 8M
	md5sum plain.img >plain.before
	expect_rc 5 flock -x plain.img tprestore -i vault.xml -o plain.img
	err_has "in use by another tptools command"
	md5sum -c --quiet plain.before || fail "a refused tprestore changed the file"
	expect_rc 0 flock -s victim.img tpdump victim.img
	cmp out vault.xml || fail "tpdump under a shared lock differs"
fi
