# SPDX-License-Identifier: GPL-2.0-or-later
# tpremove: confirmation, --yes, --force for a pool whose device is lost,
# and re-creating a pool of the same name (each pool's backups apart).
DATA_SIZE=128M META_SIZE=16M
new_pool p --metadata-size 4M
ok tpstatus --noheadings --units b -o pool_meta_length p
grep -q "^4194304" out || fail "--metadata-size 4M not used: $(cat out)"
ok tvcreate -V 1G -n v p
failed tpremove p </dev/null
err_has "--yes"
ok tpstatus p

# a lost metadata device: tpremove refuses, --force forgets the pool
mv p-meta.img p-meta.away
failed tpremove -y p
err_has "tpremove --force p"
ok tpremove --force -y p
out_has "forgotten"
grep -q "^p " etc/devices && fail "devices file still lists p"
failed tpstatus p
# the data device's label was wiped; the lost metadata device still carries
# the old label (it was not reachable), so reusing it takes --force
failed tpcreate --data p-data.img --meta p-meta.away p
err_has "pool p"
ok tpcreate --force --yes --data p-data.img --meta p-meta.away p
# the earlier pool's backups stay in the directory of its uuid, not mixed
# with the new pool's
[ "$(ls "$(backup_dir p)" | wc -l)" = 1 ] || fail "new pool's backups mixed: $(ls "$(backup_dir p)")"
[ "$(grep -l '^	name="p"$' etc/backup/*/*.vg | wc -l)" -ge 3 ] ||
	fail "the earlier pool's backups are gone: $(ls etc/backup/*)"
ok tpremove --yes p
failed tpremove --force -y nosuch

# a stale devices-file entry: its path now holds a device of another pool
# of the same name (made since); --force forgets the entry and leaves that
# device's label alone (it carries another device uuid than the entry)
new_pool q
cp etc/devices devices.old
ok tpremove -y q
new_pool q
label() { tp-vgtool label "$1" | sed -n "s/^$2=//p"; }
now=$(label q-data.img pv_uuid)
grep -q " $now " devices.old && fail "the new q has the old one's device uuid"
cp devices.old etc/devices
sums q-data.img q-meta.img >q.sums
# this host's newest backup of the pool now called q names those paths and
# their labels are that pool's: found there, the entries put right
ok tpstatus q
err_has "devices file entry was missing or stale"
sums_same q.sums || fail "a reader wrote a device"
# without that backup, nothing says the devices are q's: the stale entries
# are all there is, and --force forgets them alone
cp devices.old etc/devices
rm -r "etc/backup/$(label q-meta.img pool_uuid)"
expect_rc 5 tpstatus q
ok tpremove --force -y q
sums_same q.sums || fail "tpremove --force wiped a device its stale entry named"
[ "$(label q-data.img pv_uuid)" = "$now" ] || fail "the new q's label is gone"
grep -q "^q " etc/devices && fail "the stale entries were kept"
true
