# SPDX-License-Identifier: GPL-2.0-or-later
# lib/dev + geometry policy end to end through test/tools/tp-probe:
# the TPTOOLS_TOPOLOGY override, signatures on real mkfs/mkswap images,
# the plan with its reasons and exit codes, and that probing never writes.

image data.img 1G
image meta.img 64M
image small-meta.img 2M

# image files report no topology: 64 KiB (balanced), 512 KiB (throughput), 1 MiB offset
ok tp-probe topology data.img
out_has '^source=none$'
out_has '^opt_io=0$'
ok tp-probe plan data.img meta.img
out_has '^chunk=65536$'
out_has '^data_offset=1048576$'
out_has '^zero=0$'
out_has '^reason_chunk=Chunk 64 KiB (profile balanced).*no stripe or md chunk is reported'
ok tp-probe plan data.img meta.img profile=throughput
out_has '^chunk=524288$'
out_has '^zero=0$'
ok tp-probe plan data.img meta.img profile=snapshots
out_has '^chunk=65536$'
out_has '^zero=1$'
usage_error tp-probe plan data.img meta.img profile=fast

# The measured array (README, bench/): 7-disk RAID6, 512K md chunk -> 2.5 MiB stripe
raid_geometry 512k 2560k
ok tp-probe topology data.img
out_has '^source=TPTOOLS_TOPOLOGY$'
out_has '^opt_io=2621440$'
ok tp-probe plan data.img meta.img
out_has '^chunk=65536$'			# balanced: divides the md chunk
out_has '^whole_stripe=0$'
out_has '^data_offset=2621440$'
out_has '^zero=0$'
out_has '^reason_zero=.*data of deleted volumes'
out_has "^reason_zero=.*tvremove --wipe"
out_lacks '^warning='
ok tp-probe plan data.img meta.img profile=throughput
out_has '^chunk=2621440$'
out_has '^whole_stripe=1$'
out_has '^data_offset=2621440$'
out_lacks '^warning='

# LVM's default chunk on that array is the md chunk: no boundary straddled
ok tp-probe plan data.img meta.img chunk=512k
out_has '^chunk=524288$'
out_has '^whole_stripe=0$'
out_lacks '^warning='
# 1 MiB straddles the 2.5 MiB stripes: accepted, with the better value
ok tp-probe plan data.img meta.img chunk=1m
out_has '^better=65536$'
out_has '^warning=chunk$'
out_has 'WARNING: 1 MiB straddles stripe boundaries'

# a 5-disk RAID6 (or 4-disk RAID5) with 64K md chunks: a 192K stripe, not a 64K power of two
raid_geometry 64k 192k 4k
ok tp-probe plan data.img meta.img profile=throughput
out_has '^chunk=589824$'		# 3 x 192K: the first whole multiple >= 512K
out_has '^data_offset=1183744$'		# 6 x 192K + 4K alignment_offset
ok tp-probe plan data.img meta.img
out_has '^chunk=65536$'			# one md chunk
# 32K md chunks on 5-disk RAID6: a 96K stripe; 64K and 128K straddle it
raid_geometry 32k 96k
ok tp-probe plan data.img meta.img
out_has '^chunk=196608$'

# explicit zeroing and the snapshots profile
ok tp-probe plan data.img meta.img chunk=192k zero=auto profile=snapshots
out_has '^zero=1$'
ok tp-probe plan data.img meta.img zero=y
out_has '^zero=1$'
out_has '^reason_zero=Zeroing on (as requested'

# usage errors (3) and failures (5) with the reason on stderr
usage_error tp-probe plan data.img meta.img chunk=100k
err_has 'nearest valid values are 64 KiB and 128 KiB'
usage_error tp-probe plan data.img meta.img chunk=2g
err_has 'largest valid value is 1 GiB'
usage_error tp-probe plan data.img meta.img metadata_size=1m
err_has 'metadata-size'
failed tp-probe plan data.img small-meta.img
err_has 'Metadata device too small'
err_has 'at least'
TPTOOLS_TOPOLOGY=min_io=512k,opt_io=2m expect_rc 3 tp-probe topology data.img
err_has "TPTOOLS_TOPOLOGY: missing key 'align'"
TPTOOLS_TOPOLOGY=min_io=512k,opt_io=2m,align=0,colour=blue expect_rc 3 tp-probe plan data.img meta.img
err_has "unknown key 'colour'"
unset TPTOOLS_TOPOLOGY
failed tp-probe topology no-such.img
err_has 'no-such.img'

# signatures: nothing, ext4, swap; probing leaves every byte alone
image blank.img 8M
ok tp-probe signatures blank.img
out_has '^count=0$'
if have mkfs.ext4; then
	image fs.img 8M
	mkfs.ext4 -q -F -L scratch fs.img
	before=$(sums fs.img)
	expect_rc 1 tp-probe signatures fs.img
	out_has '^signature=filesystem|ext4|'
	out_has 'label "scratch"'
	[ "$(sums fs.img)" = "$before" ] || fail "probing changed fs.img"
fi
if have mkswap; then
	image swap.img 8M
	mkswap swap.img >/dev/null 2>&1
	expect_rc 1 tp-probe signatures swap.img
	out_has '^signature=swap space|swap|'
fi

# the metadata estimate against thin-provisioning-tools' own calculator:
# at least what thin_metadata_size says for a fully provisioned pool, and
# at most 3x (64 bytes a chunk leaves room for one full set of snapshot
# mappings on top)
if have thin_metadata_size; then
	unset TPTOOLS_TOPOLOGY
	image big-meta.img 32G
	for pool in 1t 8t; do
		for chunk in 64k 512k 4m; do
			image big-data.img "$pool"
			ok tp-probe plan big-data.img big-meta.img chunk=$chunk header=0
			ours=$(sed -n 's/^meta_estimate=//p' out)
			theirs=$(thin_metadata_size -b "$chunk" -s "$pool" -m 1 -u b -n)
			[ "$ours" -ge "$theirs" ] ||
				fail "estimate $ours < thin_metadata_size $theirs ($pool, $chunk)"
			[ "$ours" -le $((theirs * 3)) ] ||
				fail "estimate $ours > 3 x thin_metadata_size $theirs ($pool, $chunk)"
		done
	done
fi
