# Label and VG-area repair (tprepair(8)): a damaged label on either
# device is rewritten from the other device's VG metadata; VG areas lost on
# both devices, or both labels lost, come back from a backup with
# --restorefile. In every case tpcheck names the command, the command is
# run as tpcheck printed it, and afterwards the pool is clean (tpcheck,
# thin_check) with every volume and mapping there. Devices that are too
# small or carry another device's label are refused, unchanged.
DATA_SIZE=512M META_SIZE=16M new_pool vault
ok tvcreate -V 1G -n www vault
ok tvsnap vault/www -n monday
bdir=$(backup_dir vault)
# mappings, so the comparison below means something
ok tpdump -o plain.xml vault
sed -e '/<device dev_id="0"/a <range_mapping origin_begin="0" data_begin="0" length="100" time="0"/>' \
    -e '/<device dev_id="1"/a <range_mapping origin_begin="200" data_begin="100" length="50" time="1"/>' \
    plain.xml >mapped.xml
read -r off len < <(meta_area vault)
ok tprestore --force -i mapped.xml -o vault-meta.img --offset "$off" --size "$len"
ok tpcheck vault
ok tpdump -o want.xml vault
grep -q range_mapping want.xml || fail "no mappings to compare"
ok tpstatus -o vol_name,vol_size,vol_origin,vol_dev_id,vol_mapped vault
cp out want.status

# the pool is whole again: clean, thin_check, same volumes and mappings
whole() {
	ok tpcheck vault
	out_has "vault: clean"
	if have thin_check; then thin_check_pool vault; fi
	ok tpdump -o got.xml vault
	cmp -s want.xml got.xml || { diff want.xml got.xml >&2; fail "the mappings changed"; }
	ok tpstatus -o vol_name,vol_size,vol_origin,vol_dev_id,vol_mapped vault
	cmp -s want.status out || { diff want.status out >&2; fail "the volumes changed"; }
}

# run_next: run the command tpcheck's "next:" line names, as printed
run_next() {
	local cmd
	cmd=$(sed -n "s/^next: .*'\(tprepair [^']*\)'.*/\1/p" out)
	[ -n "$cmd" ] || { cat out >&2; fail "tpcheck named no tprepair command"; }
	echo "running: $cmd"
	# shellcheck disable=SC2086
	ok $cmd
}

# two damaged bytes in either device's label
for dev in data meta; do
	printf '\377\377' | dd of=vault-$dev.img bs=1 seek=600 conv=notrunc status=none
	expect_rc 2 tpcheck vault
	out_has "vault-$dev.img: no valid tptools label"
	out_has "next: run 'tprepair vault' to rewrite the label of .*vault-$dev.img from the other device's copy"
	run_next
	out_has "rewrote the label of .*vault-$dev.img"
	whole
done

# a wiped label, devices named on the command line
dd if=/dev/zero of=vault-meta.img bs=512 seek=1 count=1 conv=notrunc status=none
expect_rc 2 tpcheck --devices vault-data.img,vault-meta.img vault
out_has "next: run 'tprepair vault --devices vault-data.img,vault-meta.img' to rewrite the label of vault-meta.img"
run_next
whole

# VG metadata areas damaged on both devices (both slots of each)
for dev in data meta; do
	for slot in 0 1; do
		printf '\377\377\377\377' | dd of=vault-$dev.img bs=1 conv=notrunc status=none \
			seek=$((4096 + slot * (1048576 - 4096) / 2 + 64))
	done
done
expect_rc 2 tpcheck vault
out_has "next: restore with 'tprepair vault --restorefile $bdir/.*\.vg --devices .*vault-data.img,.*vault-meta.img'"
cp out vg.out
unchanged 5 tprepair vault
err_has "no VG metadata copy is left on its devices; restore with 'tprepair vault --restorefile"
cp vg.out out
run_next
out_has "VG metadata restored from"
whole

# both labels lost
dd if=/dev/zero of=vault-data.img bs=512 seek=1 count=1 conv=notrunc status=none
dd if=/dev/zero of=vault-meta.img bs=512 seek=1 count=1 conv=notrunc status=none
expect_rc 2 tpcheck vault
out_has "next: restore with 'tprepair vault --restorefile"
cp out lost.out
# refused: a device smaller than the VG says, a device of another pool
backup=$(ls "$bdir"/*.vg | tail -1)
image small.img 256M
unchanged 5 tprepair vault --restorefile "$backup" --devices small.img,vault-meta.img
err_has "small.img has .* bytes, less than"
DATA_SIZE=512M META_SIZE=16M new_pool other
unchanged 5 tprepair vault --restorefile "$backup" --devices other-data.img,vault-meta.img
err_has "other-data.img carries the label of device .*not restoring over it"
usage_error tprepair --metadata vault-meta.img -o x.img --restorefile "$backup"
cp lost.out out
run_next
out_has "rewrote the label of .*vault-data.img from"
out_has "rewrote the label of .*vault-meta.img from"
whole
# a restore file the devices are newer than: the devices' VG is kept
ok tvcreate -V 1G -n extra vault
ok tprepair vault --restorefile "$backup" --devices vault-data.img,vault-meta.img
err_has "not older than the backup"
ok tpstatus -o vol_name vault
out_has extra
