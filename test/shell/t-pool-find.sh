# SPDX-License-Identifier: GPL-2.0-or-later
# Finding pools by name: the devices file, --devices for image files, and a
# label scan of block devices (loop devices here) when the entry is lost or
# the devices moved.
image d.img 256M
image m.img 16M
ok tpcreate --data d.img --meta m.img files
# the devices file lost: this host's newest VG backup of the pool says
# where its devices were last seen, and their labels say they are; found,
# recorded again
rm etc/devices
ok tpstatus files
err_has "found .*d.img and .*m.img by their labels and recorded them"
grep -q "^files [0-9a-f-]* meta .*/m.img$" etc/devices || fail "not recorded: $(cat etc/devices)"
# ... and with the backups gone too, not found
mv etc/backup backup.away
rm etc/devices
failed tpstatus files
err_has "not found"
err_has "devices"
# --devices names them; a change through --devices records them again
ok tpstatus --devices d.img,m.img files
mv backup.away/* etc/backup/
ok tvcreate --devices m.img,d.img -V 1G -n v files
grep -q "^files [0-9a-f-]* data .*/d.img$" etc/devices || fail "devices file not rewritten: $(cat etc/devices)"
ok tpstatus files
out_has " v "
usage_error tpstatus --devices d.img files
unchanged 5 tpstatus --devices d.img,nosuch.img files
image other.img 16M
unchanged 5 tpstatus --devices d.img,other.img files
err_has "no tptools label"
# one entry damaged (it names another file): the other device's VG copy
# says where this one was last seen, and a writer finds it there; an entry
# naming a file whose label is another device's is not used
sed -i "s|^\(files [0-9a-f-]* meta [0-9a-f-]*\) .*|\1 $PWD/other.img|" etc/devices
ok tvcreate -V 1G -n v2 files
ok tpstatus files
out_has " v2 "
sed -i "s|^\(files [0-9a-f-]* data [0-9a-f-]*\) .*|\1 $PWD/nosuch.img|" etc/devices
ok tvcreate -V 1G -n v3 files
grep -q "^files [0-9a-f-]* data .*/d.img$" etc/devices || fail "data entry not rewritten: $(cat etc/devices)"
# the hint is a place to look, not an identity: the file there now is
# another pool's device, so the pool is not found
cp d.img d.keep
image d2.img 256M
image m2.img 16M
ok tpcreate --data d2.img --meta m2.img files2
mv d.img d.away; cp d2.img d.img
sed -i "s|^\(files [0-9a-f-]* data [0-9a-f-]*\) .*|\1 $PWD/nosuch.img|" etc/devices
failed tpstatus files
err_has "not found"
mv d.away d.img; rm d.keep
ok tpstatus files

# block devices: a lost entry and moved devices are found by their labels
loop_pool blk
rm etc/devices
ok tpstatus blk
err_has "found"
grep -q "^blk [0-9a-f-]* data .* $ld$" etc/devices || fail "scan did not record $ld: $(cat etc/devices)"
# move: detach and attach the other way round (different loop numbers)
loops_detach
loops=()
loop_attach lm2 lm.img
loop_attach ld2 ld.img
ok tvcreate -V 1G -n w blk
ok tpstatus --noheadings -o pool_data_dev,pool_meta_dev blk
read -r dd_ mm_ <out
[ "$dd_" = "$ld2" ] && [ "$mm_" = "$lm2" ] || fail "moved devices not followed: $(cat out)"
ok tpremove -y blk

# the devices file cut inside a pool's line (the rest of the file lost):
# creating a pool of that name is refused (it may exist), naming the line;
# tprepair naming the devices records them again and the damaged line
# goes; removing a pool takes its damaged lines too
image cd.img 64M
image cm.img 16M
ok tpcreate --data cd.img --meta cm.img cutp
grep -v '^cutp ' etc/devices >devices.rest
{ cat devices.rest; grep '^cutp ' etc/devices | head -1 | cut -c1-60 | tr -d '\n'; } >devices.cut
cp devices.cut etc/devices
image nd.img 64M
image nm.img 16M
unchanged 5 tpcreate --data nd.img --meta nm.img cutp
err_has "a pool named cutp may exist: the devices file .* holds a damaged line of it"
cmp -s devices.cut etc/devices || fail "a refused tpcreate changed the devices file"
ok tprepair --devices cd.img,cm.img cutp
out_has "recorded 2 devices in the devices file"
[ "$(grep -c '^cutp ' etc/devices)" = 2 ] || fail "the entries not recorded again: $(cat etc/devices)"
ok tpstatus cutp
err_lacks "ignoring a line"
cp devices.cut etc/devices
ok tpremove -y --devices cd.img,cm.img cutp
! grep -q '^cutp' etc/devices || fail "tpremove left a damaged line of the pool: $(cat etc/devices)"
