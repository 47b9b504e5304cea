# SPDX-License-Identifier: GPL-2.0-or-later
# tpreduce(8) of a pool's first data device: a pool over three data
# images whose first one holds chunks (volume a, the start of b) is
# refused while it does (exit 5, every image byte for byte); tpmove
# empties it onto the second and third (b's chunks shared with its
# snapshot s, c on the third); tpreduce --data of the first then takes it
# away: every mapping is numbered down by its size, the second image is
# the first (its label's place 0, its range from chunk 0), the third's
# place 1, the first image's label wiped and its devices-file entry
# dropped; the pool is found without it, every volume's raw export
# reads the same byte for byte, tpcheck and thin_check are clean, and a
# new volume can be made; the same on a pool with mirrored thin metadata,
# whose two legs' areas stay equal; killed (SIGKILL) after its VG commit,
# the pool is found through the VG without the old first image and reads
# the same, its thin metadata clean; tpcheck (exit 1) and tpstatus report
# the old first image as an orphan label, --devices naming it is refused
# byte for byte saying a tpreduce took it away, tprepair wipes it, saying
# so (then finds the pool clean), and the next writer gives the labels
# their places; on loop devices the same cut with the devices file lost
# (found by the label scan and the VG on the metadata device; the orphan
# found by the scan, wiped by the next writer); a device a cut tpextend
# --data was adding is an orphan tprepair wipes and tpextend takes again.
have tp-thinmap || fail "tp-thinmap not built (make tests)"

areas_equal() {	# the thin-metadata areas (1 MiB on) of two legs
	cmp -s <(dd if="$1" bs=1M skip=1 status=none) <(dd if="$2" bs=1M skip=1 status=none)
}
place() { od -An -tu4 -j $((512 + 124)) -N4 "$1" | tr -d ' '; }

exports() {	# POOL: the md5 of every volume's raw export
	local v
	for v in a b s c; do
		echo "$v $(tpsend --format raw "$1/$v" | md5sum | cut -d' ' -f1)"
	done
}
check_all() {	# POOL WHEN
	exports "$1" >got
	cmp -s want got || { diff want got >&2; fail "$2: a volume reads other bytes"; }
	ok tpcheck "$1"
	out_has clean
	thin_check_pool "$1"
}

# one pool: POOL D1 D2 D3 META [kill] (META a comma list for a mirror; kill:
# tpreduce killed after its VG commit)
round() {
	local pool=$1 d1=$2 d2=$3 d3=$4 meta=$5
	image "$d1" 16M
	image "$d2" 16M
	image "$d3" 24M
	ok tpcreate --data "$d1" --meta "$meta" --chunk 64K "$pool"
	head -c 12M /dev/urandom >a.raw
	ok tprecv --format raw -n a "$pool" <a.raw
	ok tpextend --data "$d2" "$pool"
	ok tpextend --data "$d3" "$pool"
	head -c 10M /dev/urandom >b.raw
	ok tprecv --format raw -n b "$pool" <b.raw
	ok tvsnap "$pool/b" -n s
	head -c 8M /dev/urandom >c.raw
	ok tprecv --format raw -n c "$pool" <c.raw
	exports "$pool" >want
	check_all "$pool" "before"

	# refused while the first holds chunks: every image byte for byte
	unchanged 5 tpreduce --data "$d1" "$pool"
	err_has "tpmove --from $d1 $pool"
	unchanged 5 tpreduce --test --data "$d1" "$pool"

	ok tpmove --from "$d1" "$pool"
	out_has "holds no mapped chunk now"
	check_all "$pool" "moved"
	ok tpreduce --test --data "$d1" "$pool"
	out_has "none in use"
	if [ "${6:-}" = kill ]; then
		# killed after the VG commit, before the labels follow: the
		# pool is found through the VG on the metadata device, the
		# old first image still labelled and listed, the second's
		# place still 1; it reads the same, its thin metadata is
		# clean, and the old first image is an orphan: tpcheck
		# (non-fatal) and tpstatus say so, naming what wipes it
		killed_at xdata-dropped tpreduce --data "$d1" "$pool"
		[ "$(place "$d1")" = 0 ] || fail "the kill left no label on $d1"
		[ "$(place "$d2")" = 1 ] || fail "$d2's place followed before the kill"
		exports "$pool" >got
		cmp -s want got || { diff want got >&2; fail "killed: a volume reads other bytes"; }
		thin_check_pool "$pool"
		expect_rc 1 tpcheck "$pool"
		out_has "$d1: orphan label (data device)"
		out_has "next: run 'tprepair $pool' to wipe the orphan label of .*$d1"
		ok tpstatus --noheadings -o pool_orphans "$pool"
		out_has "$d1"
		# --devices naming the old first image (still labelled):
		# refused, byte for byte, saying what it is; the new first
		# one works
		unchanged 5 tvcreate --devices "$d1,$meta" -V 1M -n x "$pool"
		err_has "is no device of the pool any more"
		err_has "a tpreduce --data took it away"
		ok tpstatus --devices "$d2,$meta" "$pool"
		# tprepair wipes the orphan label (the next writer would, too)
		# and says so, and drops its devices-file entry
		ok tprepair "$pool"
		out_has "wiped the orphan label of .*$d1"
		out_lacks "nothing written"
		cmp -s -n 512 <(dd if="$d1" bs=512 skip=1 count=1 status=none) /dev/zero ||
			fail "tprepair left the label of $d1"
		! grep -q "$d1" "$TPTOOLS_DIR/devices" || fail "the devices file still names $d1"
		check_all "$pool" "killed after the VG commit, orphan wiped"
		# the next writer gives the labels their places (its open
		# finishes what the VG commit made durable)
		ok tvcreate -V 1M -n after-kill "$pool"
		[ "$(place "$d2")" = 0 ] || fail "$d2's label gives place $(place "$d2"), not 0"
		unchanged 3 tpreduce --data "$d1" "$pool"
		err_has "not one of its data devices"
		ok tprepair "$pool"
		out_has "clean: nothing to repair"
	else
		ok tpreduce --data "$d1" "$pool"
		out_has "taken away"
	fi
	ok tpstatus --noheadings --devices-report "$pool"
	[ "$(grep -c ' data ' out)" = 2 ] || fail "two data devices expected: $(cat out)"
	grep -q " data 1 .* 0 .*$d2\$" out || fail "$d2 is not data device 1 from chunk 0: $(cat out)"
	grep -q " data 2 .*$d3\$" out || fail "$d3 is not data device 2: $(cat out)"
	cmp -s -n 512 <(dd if="$d1" bs=512 skip=1 count=1 status=none) /dev/zero ||
		fail "tpreduce left the label of $d1"
	[ "$(place "$d2")" = 0 ] || fail "$d2's label gives place $(place "$d2"), not 0"
	[ "$(place "$d3")" = 1 ] || fail "$d3's label gives place $(place "$d3"), not 1"
	check_all "$pool" "after tpreduce"
	# the devices file no longer names the first image
	! grep -q "$d1" "$TPTOOLS_DIR/devices" || fail "the devices file still names $d1"
	ok tvcreate -V 1M -n one-more "$pool"
	ok tpcheck "$pool"
	out_has clean
}

image m.img 16M
round p d1.img d2.img d3.img m.img

image m0.img 16M
image m1.img 16M
round q e1.img e2.img e3.img m0.img,m1.img
areas_equal m0.img m1.img || fail "the legs' thin-metadata areas differ after tpreduce"
image r0.img 16M
round r f1.img f2.img f3.img r0.img kill

# a device a tpextend --data killed before its VG commit was adding (its
# label written, its VG area empty) is an orphan too: tpcheck says so,
# tprepair wipes it, and tpextend --data takes it again
image g1.img 16M
image g2.img 16M
image gm.img 16M
ok tpcreate --data g1.img --meta gm.img --chunk 64K gp
killed_at xdata-labelled tpextend --data g2.img gp
[ "$(place g2.img)" = 1 ] || fail "the killed tpextend left no label on g2.img"
expect_rc 1 tpcheck gp
out_has "g2.img: orphan label (data device): the pool's VG does not name it; it was being added"
ok tprepair gp
out_has "wiped the orphan label of .*g2.img"
cmp -s -n 512 <(dd if=g2.img bs=512 skip=1 count=1 status=none) /dev/zero ||
	fail "tprepair left the label of g2.img"
ok tpcheck gp
out_has clean
ok tpextend --data g2.img gp
[ "$(place g2.img)" = 1 ] || fail "tpextend did not take g2.img again"

# loop devices: killed after the VG commit and the devices file lost, the
# label scan finds the old first device (still labelled, place 0) and the
# metadata device; the VG on the metadata device names the second as the
# first, so the pool is found on it, reads the same and is clean; the
# next writer gives its label place 0, and after the old first device is
# wiped the scan finds the pool by its labels alone
loop_images l1 ld1.img 16M l2 ld2.img 24M lm lm.img 16M
ok tpcreate --data "$l1" --meta "$lm" --chunk 64K lp
head -c 8M /dev/urandom >lv.want
ok tprecv --format raw -n v lp <lv.want
ok tpextend --data "$l2" lp
ok tpmove --from "$l1" lp
killed_at xdata-dropped tpreduce --data "$l1" lp
rm "$TPTOOLS_DIR/devices"
ok tpstatus --noheadings --devices-report lp
[ "$(grep -c ' data ' out)" = 1 ] || fail "one data device expected: $(cat out)"
grep -q " data 1 .*$l2\$" out || fail "$l2 is not the first data device: $(cat out)"
rm -f lv.got; ok tpsend --format raw -o lv.got lp/v
cmp lv.want lv.got || fail "volume v reads back other bytes after the cut"
# the old first device is an orphan the scan finds: tpcheck says so
expect_rc 1 tpcheck lp
out_has "$l1: orphan label (data device)"
# the next writer wipes it, saying so, and gives the labels their places
ok tvcreate -V 1M -n w lp
err_has "wiped the orphan label on $l1"
[ "$(place ld2.img)" = 0 ] || fail "$l2's label gives place $(place ld2.img), not 0"
cmp -s -n 512 <(dd if="$l1" bs=512 skip=1 count=1 status=none) /dev/zero ||
	fail "the next writer left the label of $l1"
ok tprepair lp
out_has "clean: nothing to repair"
rm "$TPTOOLS_DIR/devices"
ok tpcheck lp
out_has clean
rm -f lv.got; ok tpsend --format raw -o lv.got lp/v
cmp lv.want lv.got || fail "volume v reads back other bytes found by its labels"
ok tpremove -y lp
