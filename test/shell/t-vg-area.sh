# SPDX-License-Identifier: GPL-2.0-or-later
# t-vg-area: tpcreate --vg-area sizes the VG metadata area of every device
# of a pool (tpcreate(8), tp-metadata(5)): a pool at its area's wall
# refuses the next volume (exit 5, every image byte for byte, the message
# naming how many volumes the area holds and tpcreate --vg-area); a larger
# area goes past that count; auto keeps 1 MiB on small devices and sizes
# the area for 100000 volumes on large ones; bad values exit 3 with the
# images unchanged; a device added later (tpextend --data, tpchange
# --meta-mirror) gets the pool's area, never the compiled default; tpstatus
# reports how full the area is.

# the label's mda_size of a device
mda_size() { tp-vgtool label "$1" | sed -n 's/^mda_size=//p'; }
# one pool field in bytes
field() { tpstatus --noheadings --nosuffix --units b -o "$2" "$1" | tr -d ' '; }

# names of 64 bytes: 60 v's and a 4-digit number
long=$(printf 'v%.0s' $(seq 60))
vname() { printf '%s%04d' "$long" "$1"; }

# --- bad values: exit 3, every image unchanged, the option named with the
# bound
image d.img 64M
image m.img 16M
for v in 0 -1 x 100K 1000000 2G 1T; do
	unchanged 3 tpcreate --data d.img --meta m.img --vg-area "$v" P
	err_has -- "--vg-area"
done
unchanged 3 tpcreate --data d.img --meta m.img --vg-area 32K P
err_has "at least 64 KiB"
unchanged 3 tpcreate --data d.img --meta m.img --vg-area 2G P
err_has "at most 1 GiB"
unchanged 3 tpcreate --data d.img --meta m.img --vg-area 100K P
err_has "multiple of 64 KiB"
# room on every device: the largest that fits these devices is named
unchanged 3 tpcreate --data d.img --meta m.img --vg-area 512M P
err_has "--vg-area 512 MiB leaves its devices too little room"
err_has "at most [0-9.]* MiB ([0-9]* bytes)"
most=$(sed -n 's/.*at most [0-9.]* MiB (\([0-9]*\) bytes).*/\1/p' err)
[ $((most % 65536)) = 0 ] || fail "the largest area named ($most) is no multiple of 64 KiB"
# ... and it does fit: a pool on it (taken away again)
ok tpcreate --test --data d.img --meta m.img --vg-area "$((most / 1024))K" P
unchanged 3 tpcreate --data d.img --meta m.img --vg-area "$((most / 1024 + 64))K" P
# a mirrored pool's area holds the kernel raid1's 512 KiB: at least 1 MiB
image m2.img 16M
unchanged 3 tpcreate --data d.img --meta m.img,m2.img --vg-area 512K P
err_has "at least 1 MiB with mirrored thin metadata"

# --- a small area (64 KiB: two slots of 30208 bytes of text) filled to its
# wall with 64-byte names: the next volume is refused, nothing changed
ok tpcreate --data d.img --meta m.img --vg-area 64K small
[ "$(mda_size d.img)" = 61440 ] || fail "data device: mda_size $(mda_size d.img), not 61440"
[ "$(mda_size m.img)" = 61440 ] || fail "metadata device: mda_size $(mda_size m.img), not 61440"
[ "$(field small pool_vg_area)" = 30208 ] || fail "pool_vg_area $(field small pool_vg_area)"
n=0
while :; do
	n=$((n + 1))
	[ $n -lt 1000 ] || fail "a 64 KiB area took 1000 volumes"
	sums ./*.img >sums.before
	set +e
	tvcreate -V 1G -n "$(vname $n)" small >out 2>err
	rc=$?
	set -e
	[ $rc = 0 ] || break
done
held=$((n - 1))
[ $rc = 5 ] || { cat err >&2; fail "the volume past the wall exited $rc, not 5"; }
sums_same sums.before || fail "the refused volume changed an image"
err_has "does not fit the VG metadata area slot of 30208 bytes"
err_has "($n volumes)"
err_has "holds about [0-9]* volumes like these"
err_has "tpcreate --vg-area"
err_has "does not grow in place"
about=$(sed -n 's/.*holds about \([0-9]*\) volumes like these.*/\1/p' err | head -1)
[ "$about" -ge $((held - 2)) ] && [ "$about" -le $((held + 1)) ] ||
	fail "the area holds $held volumes, the message says about $about"
[ "$held" -gt 100 ] || fail "a 64 KiB area held only $held volumes of 64-byte names"
used=$(field small pool_vg_area_used)
[ "$used" -le 30208 ] && [ "$used" -gt $((30208 - 300)) ] ||
	fail "pool_vg_area_used $used at the wall"
ok tpstatus --noheadings -o pool_vg_area_percent small
grep -Eq "^ *(99\.[0-9][0-9]|100\.00) *$" out || { cat out >&2; fail "pool_vg_area_percent at the wall"; }
ok tpcheck small
out_has clean

# --- a larger area (128 KiB) goes past that count
image d3.img 64M
image m3.img 16M
ok tpcreate --data d3.img --meta m3.img --vg-area 128K big
for ((i = 1; i <= held + 5; i++)); do
	ok tvcreate -V 1G -n "$(vname $i)" big
done
[ "$(field big pool_volumes)" = $((held + 5)) ] || fail "pool big: $(field big pool_volumes) volumes"
[ "$(field big pool_vg_area)" = 62976 ] || fail "pool_vg_area $(field big pool_vg_area)"
ok tpstatus --format prometheus big
out_has 'tptools_pool_vg_area_bytes{pool="big"} 62976'
out_has 'tptools_pool_vg_area_used_bytes{pool="big"} [0-9]'
ok tpstatus --json big
out_has '"pool_vg_area":"62976", "pool_vg_area_used":"[0-9]*", "pool_vg_area_percent":"'

# --- auto on small devices (the smallest up to 1 GiB): today's 1 MiB (mda
# 1 MiB - 4 KiB on both)
image a-data.img 4G
image a-meta.img 1G
ok tpcreate --data a-data.img --meta a-meta.img a
[ "$(mda_size a-data.img)" = 1044480 ] || fail "auto on 1 GiB: mda_size $(mda_size a-data.img)"
[ "$(mda_size a-meta.img)" = 1044480 ] || fail "auto on 1 GiB: mda_size $(mda_size a-meta.img)"
[ "$(field a pool_data_offset)" = 1048576 ] || fail "auto on 1 GiB: data at $(field a pool_data_offset)"

# --- auto on large devices: 1/64 of the smallest (8 GiB: 128 MiB) capped
# at what 100000 volumes of the largest text (368 bytes) need: 71 MiB
image l-data.img 64G
image l-meta.img 8G
ok tpcreate --test --data l-data.img --meta l-meta.img l
out_has "VG area: *74448896 bytes at the start of every device"
ok tpcreate --data l-data.img --meta l-meta.img l
[ "$(mda_size l-data.img)" = $((74448896 - 4096)) ] || fail "auto on 8 GiB: $(mda_size l-data.img)"
[ "$(mda_size l-meta.img)" = $((74448896 - 4096)) ] || fail "auto on 8 GiB: $(mda_size l-meta.img)"
cap=$(field l pool_vg_area)
[ "$cap" -ge $((100000 * 368 + 65536)) ] || fail "auto holds $cap bytes: less than 100000 volumes"
# 1/64 below the cap: a 2 GiB metadata device gets 32 MiB
image l2-data.img 64G
image l2-meta.img 2G
ok tpcreate --test --data l2-data.img --meta l2-meta.img l2
out_has "VG area: *33554432 bytes at the start of every device"

# --- devices added later get the pool's area (3 MiB), not 1 MiB
image e-data.img 64M
image e-meta.img 32M
image e-data2.img 64M
image e-meta2.img 32M
ok tpcreate --data e-data.img --meta e-meta.img --vg-area 3M --metadata-size 4M e
want=$((3 * 1048576 - 4096))
[ "$(mda_size e-data.img)" = $want ] || fail "3M: mda_size $(mda_size e-data.img)"
ok tpextend --data e-data2.img e
[ "$(mda_size e-data2.img)" = $want ] || fail "tpextend --data: mda_size $(mda_size e-data2.img)"
tp-vgtool label e-data2.img >out
out_has "area0_offset=3145728"
ok tpchange --meta-mirror e-meta2.img e
[ "$(mda_size e-meta2.img)" = "$(mda_size e-meta.img)" ] ||
	fail "--meta-mirror: mda_size $(mda_size e-meta2.img), the first leg's $(mda_size e-meta.img)"
[ "$(mda_size e-meta2.img)" = $want ] || fail "--meta-mirror: mda_size $(mda_size e-meta2.img)"
ok tvcreate -V 1G -n after e
ok tpcheck e
out_has clean
[ "$(field e pool_vg_area)" = $(((want / 2) / 512 * 512 - 512)) ] ||
	fail "pool e: pool_vg_area $(field e pool_vg_area)"
