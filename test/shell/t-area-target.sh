# SPDX-License-Identifier: GPL-2.0-or-later
# Bare metadata areas go through lib/pool: a write target that is a pool
# device (tptools label) is refused with exit 5 and left byte-for-byte
# unchanged when the area written covers the label or overlaps any area
# the pool uses (VG metadata, data, the active or the spare thin-metadata
# area), unless --force is given; free space past the areas may be
# written; the file itself is locked (a writer fails at once while
# another command holds it, a reader shares it).
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
err_has "no pool's"
err_has "--force"
unchanged 5 tprestore -i vault.xml -o vault-data.img
err_has "data device of pool vault"
unchanged 5 tprepair --metadata src.img -o vault-meta.img
err_has "meta device of pool vault"
err_has "--force"
unchanged 5 tprestore -i vault.xml -o vault-meta.img --offset 0 --size "$off"
ok tpcheck vault

# aimed with --offset at an area the pool uses, or any overlap with one:
# refused, every byte as it was (cmp against copies)
mda=4096
data_off=$(pool_bytes vault pool_data_offset)
cp vault-meta.img meta.copy
cp vault-data.img data.copy
refused() {	# refused OUT WHAT ARGS...: refused naming WHAT, OUT as it was
	local out=$1 what=$2
	shift 2
	expect_rc 5 "$@"
	err_has "overlaps the $what of pool vault"
	err_has "add --force"
	cmp -s vault-meta.img meta.copy || fail "'$*' changed vault-meta.img"
	cmp -s vault-data.img data.copy || fail "'$*' changed vault-data.img"
}
refused meta "active thin-metadata area" \
	tprestore -i vault.xml -o vault-meta.img --offset "$off" --size "$len"
refused meta "active thin-metadata area" \
	tprestore -i vault.xml -o vault-meta.img --offset $((off + len / 2)) --size "$len"
refused meta "spare thin-metadata area" \
	tprestore -i vault.xml -o vault-meta.img --offset "$spare" --size "$len"
refused meta "spare thin-metadata area" \
	tprestore -i vault.xml -o vault-meta.img --offset $((spare + len / 2)) --size 1M
refused meta "VG metadata area" \
	tprestore -i vault.xml -o vault-meta.img --offset "$mda" --size 1M
refused data "data area" \
	tprestore -i vault.xml -o vault-data.img --offset $((data_off + 1048576)) --size 4M
refused data "VG metadata area" \
	tprestore -i vault.xml -o vault-data.img --offset "$mda" --size 1M
ok tpcheck vault
# after a repair swapped the areas, the names follow the VG
ok tprepair --force vault
cp vault-meta.img meta.copy
cp vault-data.img data.copy
refused meta "active thin-metadata area" \
	tprestore -i vault.xml -o vault-meta.img --offset "$spare" --size "$len"
refused meta "spare thin-metadata area" \
	tprestore -i vault.xml -o vault-meta.img --offset "$off" --size "$len"
# free space past the areas is no pool's: written
truncate -s 24M vault-meta.img
ok tprestore -i vault.xml -o vault-meta.img --offset 16M --size "$len"
ok tpdump vault-meta.img --offset 16M --size "$len"
cmp out vault.xml || fail "tprestore into free space differs"
ok tpcheck vault
# --force writes into the spare area
ok tprestore --force -i vault.xml -o vault-meta.img --offset "$off" --size "$len"
ok tpdump vault-meta.img --offset "$off" --size "$len"
cmp out vault.xml || fail "tprestore --force into the spare area differs"
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

# a pool device whose label is lost (zeroed) still holds its VG copy at
# 4096: refused as a pool device, not taken for a blank file; --force writes
cp vault-meta.img nolabel.img
dd if=/dev/zero of=nolabel.img bs=512 count=1 seek=1 conv=notrunc status=none
cp nolabel.img nolabel.copy
expect_rc 5 tprestore -i vault.xml -o nolabel.img
err_has "VG metadata area but no label"
err_has "add --force"
cmp -s nolabel.img nolabel.copy || fail "a refused tprestore changed a device without its label"
expect_rc 5 tprepair --metadata src.img -o nolabel.img
cmp -s nolabel.img nolabel.copy || fail "a refused tprepair -o changed a device without its label"
ok tprestore --force -i vault.xml -o nolabel.img
# a device that tpremove wiped (blank slots, no copy) is no pool's
DATA_SIZE=64M META_SIZE=8M new_pool gone
ok tpremove -y gone
ok tprestore -i vault.xml -o gone-meta.img

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
