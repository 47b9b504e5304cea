# SPDX-License-Identifier: GPL-2.0-or-later
# tprename renames a pool offline: VG metadata, labels, backups, devices
# file; refusals leave every image byte-identical; a rename cut short
# after its VG commit, or after its labels, is refused by other commands
# with the way out and finished by running it again.
DATA_SIZE=128M
META_SIZE=16M
new_pool a --chunk 64k
ok tvcreate -V 10M -n v a
label_name() { tp-vgtool label "$1" | sed -n 's/^pool_name=//p'; }

ok tprename a b
out_has "Pool a renamed to b."
ok tpstatus b
failed tpstatus a
[ "$(label_name a-data.img)" = b ] || fail "data label: $(label_name a-data.img)"
[ "$(label_name a-meta.img)" = b ] || fail "meta label: $(label_name a-meta.img)"
grep -q "^b $(tpstatus --noheadings -o pool_uuid b | awk 'NF { print $1 }') data " "$TPTOOLS_DIR/devices" ||
	fail "devices file: $(cat "$TPTOOLS_DIR/devices")"
grep -q "^a " "$TPTOOLS_DIR/devices" && fail "devices file still names a"
# the backups stay in the directory of the pool's uuid, the rename's too,
# which records the new name
[ "$(ls "$TPTOOLS_DIR/backup")" = "$(basename "$(backup_dir b)")" ] ||
	fail "backups not in one directory: $(ls "$TPTOOLS_DIR/backup")"
[ "$(ls "$(backup_dir b)" | wc -l)" -ge 3 ] || fail "old backups lost"
grep -q '^	name="b"$' "$(ls "$(backup_dir b)"/*.vg | tail -1)" || fail "the rename's backup is not b's"
ok tpcheck b
thin_check_pool b
ok tvcreate -V 10M -n w b

# refusals: nothing written
new_pool c --chunk 64k
unchanged 5 tprename b c
err_has "a pool named c exists already"
unchanged 3 tprename b b
unchanged 3 tprename b "x/y"
unchanged 3 tprename b
unchanged 5 tprename nosuch x
# a new name that would make a volume's dm name ("POOL-VOLUME", '-'
# doubled) longer than device-mapper's 127 bytes
long=$(printf 'p%.0s' $(seq 64))
v64=$(printf 'v%.0s' $(seq 64))
ok tvcreate -V 1M -n "$v64" b
unchanged 3 tprename b "$long"
err_has "pool b: cannot be renamed to $long: the device-mapper name of its volume $v64"
err_has "would be 129 bytes, over the kernel's limit of 127"
failed tpstatus "$long"
ok tvremove -y "b/$v64"
ok tpstatus b

# cut after the VG commit: labels, devices file (and backups) still old
cp "$TPTOOLS_DIR/devices" devices.before
dd if=a-data.img of=data.label bs=512 skip=1 count=1 status=none
dd if=a-meta.img of=meta.label bs=512 skip=1 count=1 status=none
ok tprename b d
dd if=data.label of=a-data.img bs=512 seek=1 count=1 conv=notrunc status=none
dd if=meta.label of=a-meta.img bs=512 seek=1 count=1 conv=notrunc status=none
cp devices.before "$TPTOOLS_DIR/devices"
failed tpstatus b
err_has "'tprename b d' was interrupted; run it again to finish"
unchanged 5 tprename b e
ok tprename b d
ok tpstatus d
ok tpcheck d
[ "$(label_name a-data.img)" = d ] || fail "label after finishing: $(label_name a-data.img)"

# cut after the labels: the devices file still old
cp "$TPTOOLS_DIR/devices" devices.before
ok tprename d f
cp devices.before "$TPTOOLS_DIR/devices"
failed tpstatus d
# (the devices file's entries match the labels by the pool uuid; the VG
# names the pool f)
err_has "'tprename d f' was interrupted; run it again to finish"
ok tprename d f
ok tpstatus f
ok tvremove f/w
ok tpcheck f
thin_check_pool f
