# SPDX-License-Identifier: GPL-2.0-or-later
# tpextend --metadata-size: the active thin-metadata area grows in place and
# the spare moves behind it, into free space of the metadata device; thin_check
# and tpcheck accept the result; refusals change nothing; a crash after the
# VG commit is completed by the next command.
DATA_SIZE=256M
new_pool mgrow
ok tvcreate -V 1G -n a mgrow
layout() { pool_bytes mgrow pool_meta_offset,pool_meta_length,pool_spare_offset; }
[ "$(layout)" = "1048576 32505856 33554432" ] || fail "setup layout: $(layout)"

# no room on the metadata device, a size not above the current one
unchanged 5 tpextend --metadata-size auto mgrow
err_has "no room"
unchanged 3 tpextend --metadata-size 10M mgrow
unchanged 5 tpextend --metadata-size 1G mgrow
usage_error tpextend --metadata-size 0 mgrow
usage_error tpextend --metadata-size x mgrow

# auto: all the device offers (1 MiB header, two equal areas in whole MiB)
truncate -s 200M mgrow-meta.img
ok tpextend --metadata-size auto mgrow
out_has "thin-metadata area grown from 31 MiB to 99 MiB"
out_lacks ": data area"
[ "$(layout)" = "1048576 103809024 104857600" ] || fail "layout after auto: $(layout)"
thin_check_pool mgrow
ok tpcheck mgrow
ok tvcreate -V 1G -n b mgrow

# an explicit size; the data area grows along when its device has
truncate -s 300M mgrow-meta.img
truncate -s 300M mgrow-data.img
ok tpextend --metadata-size 120M mgrow
out_has "to 120 MiB"
out_has ": data area grown"
[ "$(layout)" = "1048576 125829120 126877696" ] || fail "layout after 120M: $(layout)"
thin_check_pool mgrow
ok tpcheck mgrow

# crash after the VG commit: the old thin superblock and labels are back
truncate -s 400M mgrow-meta.img
save_area mgrow before.img
dd if=mgrow-meta.img of=sector.before bs=512 skip=1 count=1 status=none
ok tpextend --metadata-size 150M mgrow
load_area mgrow before.img
dd if=sector.before of=mgrow-meta.img bs=512 seek=1 count=1 conv=notrunc status=none
ok tpstatus mgrow
err_has "interrupted"
ok tvcreate -V 1G -n c mgrow
err_has "completed the interrupted growth of the thin-metadata area to 38400 blocks"
[ "$(layout)" = "1048576 157286400 158334976" ] || fail "layout after the crash: $(layout)"
thin_check_pool mgrow
ok tpcheck mgrow
[ "$(thin_devices mgrow)" = 3 ] || fail "volumes lost"

# after a repair swap the active area is the second one: it grows in place
# and the spare, in its way no more than before it, moves behind it
rm -f mgrow-*.img
DATA_SIZE=256M new_pool swapped
ok tvcreate -V 1G -n a swapped
ok tprepair -y --force swapped
swapped_layout() { pool_bytes swapped pool_meta_offset,pool_meta_length,pool_spare_offset; }
[ "$(swapped_layout)" = "33554432 32505856 1048576" ] || fail "setup: not swapped: $(swapped_layout)"
truncate -s 100M swapped-meta.img
ok tpextend --metadata-size auto swapped
[ "$(swapped_layout)" = "33554432 35651584 69206016" ] || fail "layout after the swap: $(swapped_layout)"
ok tpcheck swapped
thin_check_pool swapped

# the data space map of a growth lives in the metadata area: a device
# whose map does not fit in what is free is refused (also --test),
# naming tpextend --metadata-size; one that leaves the area smaller than
# what the data size wants, or above the warn threshold, is added with a
# warning that says so (large sparse files, not *.img: `unchanged` reads
# every *.img)
image sm-data.img 1G
image sm-meta.img 1G
ok tpcreate --data sm-data.img --meta sm-meta.img --chunk 64k --metadata-size 2M sm
truncate -s 2T big2t.raw
unchanged 5 tpextend --test --data big2t.raw sm
err_has "adding big2t.raw would grow the data area to 2.00 TiB, whose space map in the thin metadata needs at least 2056 more blocks"
err_has "tpextend --metadata-size SIZE sm"
unchanged 5 tpextend --data big2t.raw sm
truncate -s 300G big300.raw
ok tpextend --data big300.raw sm
err_has "after adding big300.raw its thin metadata area (2 MiB, about 6[0-9]% full at once) is smaller than what 301.00 GiB of data in 64 KiB chunks wants"
[ "$(tpstatus --noheadings -o pool_meta_percent sm | tr -d ' ' | cut -d. -f1)" -ge 58 ] ||
	fail "the metadata the warning foresaw: $(tpstatus -o pool_meta_percent sm)"
ok tpchange --warn 50 sm
truncate -s 301G big300.raw
ok tpextend sm
err_has "after growing the data area its thin metadata will be about 6[0-9]% full (.* of 2 MiB) before any more data is written, at or above its warn threshold of 50%"
# grown as the warning says: the next device is added without a word
ok tpextend --metadata-size 400M sm
truncate -s 90G big90.raw
ok tpextend --data big90.raw sm
err_lacks "warning"
ok tpcheck sm
rm -f big2t.raw big300.raw big90.raw

# a mirror with dm-integrity under its legs: its integrity metadata holds
# the tags of areas up to a size fixed at tpcreate (at least four times
# the device); growth past it is refused, nothing changed; auto stops at
# it; a growth zeroes both legs' integrity superblocks (the kernel formats
# them anew and computes every tag at the next activation)
image mi-d.img 64M
image mi-m.img 8M
image mi-m2.img 8M
ok tpcreate --data mi-d.img --meta mi-m.img,mi-m2.img --metadata-size 2M mi
truncate -s 200M mi-m.img mi-m2.img
unchanged 5 tpextend --metadata-size 70M mi
err_has "holds the tags of thin-metadata areas up to 64 MiB; --metadata-size 70 MiB is more; nothing was changed: give at most 64 MiB"
ioff=$(sed -n 's/^[[:space:]]*integrity_offset=\([0-9]*\)$/\1/p' "$(backup_dir mi)"/*.vg | tail -1)
isize=$(sed -n 's/^[[:space:]]*integrity_size=\([0-9]*\)$/\1/p' "$(backup_dir mi)"/*.vg | tail -1)
[ -n "$ioff" ] && [ -n "$isize" ] || fail "no integrity regions in the VG"
# superblocks as the kernel formats them for the 2 MiB areas (version 4,
# no interleaving, 4-byte tags, one journal section, 4096 sectors of data,
# 4 KiB blocks): ones whose tags tptools keeps
for f in mi-m.img mi-m2.img; do
	for a in 0 1; do
		printf 'integrt\0\004\000\004\000\001\000\000\000\000\020\000\000\000\000\000\000\000\000\000\000\003' |
			dd of=$f bs=1 seek=$((ioff + a * isize)) conv=notrunc status=none
	done
done
ok tvcreate -V 1M -n keep mi	# (a writer keeps them: tags, not a reset)
[ "$(dd if=mi-m.img bs=1 skip="$ioff" count=7 status=none)" = integrt ] ||
	fail "a writer reset an integrity superblock it can keep tags for"
ok tpextend --metadata-size auto mi
out_has "grown from 2 MiB to 64 MiB"
for f in mi-m.img mi-m2.img; do
	for a in 0 1; do
		[ "$(dd if=$f bs=4096 skip=$(((ioff + a * isize) / 4096)) count=1 status=none |
			tr -d '\0' | wc -c)" = 0 ] || fail "$f: integrity superblock $a not zeroed by the growth"
	done
done
ok tpcheck mi
