# SPDX-License-Identifier: GPL-2.0-or-later
# VG metadata is kept twice on each device: corrupting one copy, or tearing
# the last write on a device, loses nothing; the next change rewrites it.
new_pool vault
ok tvcreate -V 1G -n a vault
ok tpstatus --noheadings -o vol_name vault
awk "{print \$1}" out | sort >names.good

n=0
for what in header text tear; do
	for dev in vault-data.img vault-meta.img; do
		n=$((n + 1))
		ok tp-vgtool damage "$dev" newest "$what"
		ok tpstatus --noheadings -o vol_name vault
		err_has "corrupt"
		awk "{print \$1}" out | sort -o out
		cmp -s out names.good || fail "damaged $what on $dev lost volumes: $(cat out)"
		# the next change rewrites the bad copy and loses nothing
		ok tvcreate -V 1G -n "v$n" vault
		echo "v$n" >>names.good
		sort -o names.good names.good
		ok tp-vgtool slots vault-data.img vault-meta.img
		out_lacks corrupt
		out_has "needs_repair=0"
		ok tpstatus --noheadings -o vol_name vault
		awk "{print \$1}" out | sort -o out
		cmp -s out names.good || fail "after the change ($what on $dev): $(cat out)"
		thin_check_pool vault
	done
done

# a change record damaged on both devices (a change of the VG alone, so
# the thin metadata does not run ahead): every reader warns of both, not
# only of the device its search read first
ok tpchange --warn 70 vault
for dev in vault-data.img vault-meta.img; do
	off=$(tp-vgtool where "$dev" | awk '$1 == "record" { print $2 }')
	[ -n "$off" ] || fail "no change record on $dev"
	printf 'XXXXXXXX' | dd of="$dev" bs=1 seek=$((off + 200)) conv=notrunc status=none
done
for cmd in "tpstatus vault" "tpchange vault"; do
	ok $cmd
	err_has "vault-data.img: VG metadata slot .: change record of seqno .* is corrupt"
	err_has "vault-meta.img: VG metadata slot .: change record of seqno .* is corrupt"
done
ok tpchange --warn 75 vault
ok tp-vgtool slots vault-data.img vault-meta.img
out_has "needs_repair=0"

# one device's whole VG area destroyed: the other device's copies suffice
dd if=/dev/zero of=vault-data.img bs=4096 seek=1 count=255 conv=notrunc status=none
ok tpstatus --noheadings -o vol_name vault
awk "{print \$1}" out | sort -o out
cmp -s out names.good || fail "data device VG area zeroed: $(cat out)"
ok tvcreate -V 1G -n last vault
ok tp-vgtool slots vault-data.img
out_has "slot 0 valid"
out_has "slot 1 valid"
# every commit also went to the backup directory
[ "$(ls "$(backup_dir vault)" | wc -l)" -ge 8 ] || fail "backups missing: $(ls "$(backup_dir vault)")"
