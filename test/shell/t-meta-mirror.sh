# SPDX-License-Identifier: GPL-2.0-or-later
# Mirrored thin metadata on image files (tpcreate(8) --meta DEV1,DEV2,
# tpchange(8) --meta-replace, tpcheck(8)): a pool made with two metadata
# images writes its thin-metadata areas to both (byte-identical past the
# labels and VG areas); a volume's raw export reads back; one leg
# corrupted or removed: tpcheck reports the leg degraded (exit 1), the pool
# still opens, writes and reads; tpchange --meta-replace resyncs onto a
# new image (or the same one), tprepair onto the stale leg's own image,
# and tpcheck is clean again, the areas equal;
# the refusals (a pool without a mirror, both legs in sync, a device of
# the pool, another pool's device, --meta with three devices or one twice)
# leave every image byte for byte; tprename and tpremove go over both
# metadata devices; tpextend --metadata-size grows both legs alike offline
# (refused byte for byte when a leg has no room or is missing); tpchange
# --meta-mirror mirrors a pool made with one metadata device; tpextend
# --data, tpmove and tpreduce keep both legs alike. The first
# metadata image lost (renamed away, or its label wiped): the pool opens
# degraded on the second, readers and --meta-replace work, other writers
# refuse byte for byte, a shared pool refuses every writer.

areas_equal() {	# the thin-metadata areas (1 MiB on) of two legs
	cmp -s <(dd if="$1" bs=1M skip=1 status=none) <(dd if="$2" bs=1M skip=1 status=none)
}

image d.img 64M
image m0.img 16M
image m1.img 16M
image m2.img 16M
usage_error tpcreate --data d.img --meta m0.img,m1.img,m2.img --chunk 64K p
ok tpcreate --data d.img --meta m0.img,m1.img --chunk 64K p
head -c 3M /dev/urandom >a.want
ok tprecv --format raw -n a p <a.want
areas_equal m0.img m1.img || fail "the legs' thin-metadata areas differ after writes"
ok tpcheck p
rm -f a.got; ok tpsend --format raw -o a.got p/a
cmp a.want a.got || fail "volume a reads back different"
ok tpstatus --noheadings -o pool_meta_health p
out_has mirrored

# refusals: both legs in sync; a device of the pool; no change anywhere
md5sum ./*.img >sums.before
failed tpchange --meta-replace m2.img p
err_has "in sync"
md5sum -c --quiet sums.before || fail "a refused --meta-replace changed an image"

# leg 1's active superblock corrupted: degraded; the readers (tpcheck,
# tpstatus, tpsend, tpdump) write nothing, every image byte for byte
off=$(meta_area p | awk '{ print $1 }')
dd if=/dev/urandom of=m1.img bs=4096 seek=$((off / 4096)) count=1 conv=notrunc status=none
md5sum ./*.img >sums.before
expect_rc 1 tpcheck p
out_has "degraded"
out_has "stale"
ok tpstatus --noheadings -o pool_meta_health p
out_has degraded
rm -f a.got; ok tpsend --format raw -o a.got p/a
cmp a.want a.got || fail "volume a reads back different on one leg"
ok tpdump p
md5sum -c --quiet sums.before || fail "a reader wrote an image of a pool with a stale leg"
# a device of the pool is refused, byte for byte
usage_error tpchange --meta-replace d.img p
md5sum -c --quiet sums.before || fail "a refused --meta-replace changed an image"
# resync onto the same image (--meta-replace keeps the stale leg for itself)
ok tpchange --meta-replace m1.img p
areas_equal m0.img m1.img || fail "the resync left the areas different"
ok tpcheck p
out_has clean

# a writer resyncs a stale leg by itself (issue 25): leg 1's superblock
# corrupted again, tvcreate says so in one line, the legs are equal after,
# tpcheck is clean, the volume reads back
dd if=/dev/urandom of=m1.img bs=4096 seek=$((off / 4096)) count=1 conv=notrunc status=none
ok tvcreate -V 8M -n b p
err_has "leg 1 .*m1.img.* was stale (its thin superblock does not validate): resynced from leg 0"
[ "$(wc -l <err)" = 1 ] || fail "the resync said more than one line: $(cat err)"
areas_equal m0.img m1.img || fail "the writer's resync left the areas different"
ok tpcheck p
out_has clean
rm -f a.got; ok tpsend --format raw -o a.got p/a
cmp a.want a.got || fail "volume a reads back different after the writer's resync"
# leg 1 away while the pool is written, then back: its transaction is
# older (stale); a reader leaves it so, the next writer resyncs it
mv m1.img m1.away
ok tvcreate -V 8M -n b2 p
err_has "missing"
mv m1.away m1.img
md5sum ./*.img >sums.before
expect_rc 1 tpcheck p
out_has "leg 1 .* is stale"
ok tpstatus --noheadings -o pool_meta_legs p
out_has "stale"
md5sum -c --quiet sums.before || fail "a reader wrote an image of a pool with a stale leg"
ok tvremove -y p/b2
err_has "leg 1 .*m1.img.* was stale: resynced from leg 0"
areas_equal m0.img m1.img || fail "the writer's resync of the older leg left the areas different"
ok tpcheck p
out_has clean
# a kernel rebuild of leg 1 that did not finish (the dm-raid superblocks
# of its raid metadata: leg 0's recovery offset at the end, leg 1's short
# of it) while the thin superblocks match: stale, never in sync; a
# reader says so byte for byte, a writer resyncs it and zeroes its raid
# metadata (the kernel rebuilds it at the next activation)
read -r mda_off mda_size < <(strings m0.img | awk '/^\t\tmeta \{/ { m = 1 }
	m && /mda_offset=/ { sub(/.*=/, ""); o = $0 } m && /mda_size=/ { sub(/.*=/, ""); print o, $0; exit }')
raid=$((mda_off + mda_size))
raid_sb() {	# raid_sb IMAGE RECOVERY-OFFSET-BYTES: a dm-raid superblock's magic and offset
	printf 'DmRd' | dd of="$1" bs=1 seek=$raid conv=notrunc status=none
	printf "$2" | dd of="$1" bs=1 seek=$((raid + 32)) conv=notrunc status=none
}
raid_sb m0.img '\xff\xff\xff\xff\xff\xff\xff\xff'
raid_sb m1.img '\x00\x08\x00\x00\x00\x00\x00\x00'
areas_equal m0.img m1.img || fail "the legs' areas differ before the unfinished rebuild"
md5sum ./*.img >sums.before
expect_rc 1 tpcheck p
out_has "leg 1 .* is stale (the kernel's rebuild of it did not finish)"
md5sum -c --quiet sums.before || fail "a reader wrote an image of a pool with an unfinished rebuild"
ok tvcreate -V 8M -n b3 p
err_has "leg 1 .*m1.img.* was stale (the kernel's rebuild of it did not finish): resynced from leg 0"
cmp -s <(dd if=m1.img bs=4096 skip=$((raid / 4096)) count=128 status=none) <(head -c 512K /dev/zero) ||
	fail "the resync left leg 1's raid metadata as it was"
ok tpcheck p
out_has clean

# leg 1 removed: degraded; resync onto a new image
rm m1.img
expect_rc 1 tpcheck p
out_has "missing"
ok tvcreate -V 8M -n c p
ok tpchange --meta-replace m2.img p
areas_equal m0.img m2.img || fail "the resync onto m2.img left the areas different"
ok tpcheck p
out_has clean
ok tpstatus --noheadings -o pool_meta_health p
out_has mirrored

# leg 0 corrupted: leg 1 is the primary, the pool goes on
dd if=/dev/urandom of=m0.img bs=4096 seek=$((off / 4096)) count=1 conv=notrunc status=none
expect_rc 1 tpcheck p
grep -q "tprepair p' to resync" out err || fail "tpcheck does not name tprepair's resync"
rm -f a.got; ok tpsend --format raw -o a.got p/a
cmp a.want a.got || fail "volume a reads back different from leg 1"
ok tprepair p
out_has "resynced"
areas_equal m0.img m2.img || fail "tprepair's resync of leg 0 left the areas different"
ok tpcheck p
out_has clean

# a pool without a mirror: nothing to replace, nothing changed
image e.img 64M
image n.img 16M
ok tpcreate --data e.img --meta n.img --chunk 64K q
md5sum ./*.img >sums.before
expect_rc 3 tpchange --meta-replace m1.img q
md5sum -c --quiet sums.before || fail "a refused --meta-replace changed an image"

# another pool's device is never taken as a leg, by tpcreate or a replace
image d9.img 64M
image m9.img 16M
md5sum ./*.img >sums.before
failed tpcreate --data d9.img --meta m9.img,n.img --chunk 64K r
err_has "belongs to pool q"
usage_error tpcreate --data d9.img --meta m9.img,m9.img --chunk 64K r
md5sum -c --quiet sums.before || fail "a refused tpcreate changed an image"
rm m2.img
expect_rc 1 tpcheck p
md5sum ./*.img >sums.before
failed tpchange --meta-replace n.img p
err_has "belongs to pool q"
md5sum -c --quiet sums.before || fail "a refused --meta-replace changed an image"
image m8.img 16M
ok tpcreate --data d9.img --meta m9.img,m8.img --chunk 64K r
out_has "mirrored on"

# tprename and tpremove go over both metadata devices: the renamed pool is
# mirrored and clean; once removed, no image carries its label (a new pool
# takes them without --force)
ok tvcreate -V 8M -n x r
ok tprename r s
ok tpcheck s
out_has clean
ok tpstatus --noheadings -o pool_meta_health s
out_has mirrored
ok tpremove -y s
ok tpcreate --data d9.img --meta m9.img,m8.img --chunk 64K t
ok tpcheck t
out_has clean
# growing a mirrored pool's metadata areas (offline): with no room on the
# legs, or room on one leg only, refused byte for byte, naming the leg;
# with a leg missing, refused (degraded) byte for byte; with room on both,
# both legs' active and spare areas grow alike, byte-identical, tpcheck
# clean, the volume reads back
head -c 2M /dev/urandom >g.want
ok tprecv --format raw -n g t <g.want
read -r off0 len0 < <(meta_area t)
unchanged 5 tpextend --metadata-size auto t
err_has "each metadata mirror leg, .*m9.img and .*m8.img, (16 MiB) has no room"
truncate -s 32M m9.img
unchanged 5 tpextend --metadata-size auto t
err_has "leg 1, .*m8.img, (16 MiB) has no room"
err_has "they need"
unchanged 5 tpextend --metadata-size $(((len0 >> 20) + 4)) t
err_has "leg 1, .*m8.img, (16 MiB) has no room"
truncate -s 32M m8.img
mv m8.img m8.gone
unchanged 5 tpextend --metadata-size auto t
err_has "degraded: leg 1 (.*m8.img) is missing"
mv m8.gone m8.img
ok tpextend --metadata-size $(((len0 >> 20) + 4)) t
out_has "thin-metadata area grown"
read -r off len < <(meta_area t)
[ "$off" = "$off0" ] || fail "the active area moved ($off0 -> $off)"
[ "$len" = $(((len0 >> 20 << 20) + (4 << 20))) ] ||
	fail "the active area is $len bytes, not ${len0} + 4 MiB"
ok tpstatus --noheadings -o pool_meta_legs,pool_meta_length,pool_spare_offset t
out_has "in sync.*in sync"
out_has "$len"
spare=$(awk '{ print $NF }' out)
for range in "$off $len" "$spare $len"; do
	set -- $range
	cmp -s <(dd if=m9.img bs=4096 skip=$(($1 / 4096)) count=$(($2 / 4096)) status=none) \
		<(dd if=m8.img bs=4096 skip=$(($1 / 4096)) count=$(($2 / 4096)) status=none) ||
		fail "the legs' areas at byte $1 differ after the growth"
done
areas_equal m9.img m8.img || fail "the legs differ after the growth"
ok tpcheck t
out_has clean
rm -f g.got; ok tpsend --format raw -o g.got t/g
cmp g.want g.got || fail "volume g reads back different after the growth"
ok tpextend --metadata-size auto t
read -r off2 len2 < <(meta_area t)
[ "$len2" -gt "$len" ] || fail "auto did not grow the areas further ($len -> $len2)"
ok tpcheck t
out_has clean
areas_equal m9.img m8.img || fail "the legs differ after the auto growth"

# tpchange --meta-mirror: an existing pool's thin metadata mirrored later;
# a volume written before reads back, the areas are equal, tpcheck clean;
# a second time is refused byte for byte; degraded and resynced like the
# others
image e2.img 64M
image n2.img 16M
image n3.img 16M
ok tpcreate --data e2.img --meta n2.img --chunk 64K u
ok tprecv --format raw -n a u <a.want
ok tpchange --meta-mirror n3.img u
areas_equal n2.img n3.img || fail "--meta-mirror left the thin-metadata areas different"
ok tpcheck u
out_has clean
# its raid metadata lies behind the areas: they cannot grow past it, even
# on grown devices; refused byte for byte
truncate -s 32M n2.img
truncate -s 32M n3.img
unchanged 5 tpextend --metadata-size auto u
err_has "cannot grow past byte .* where the raid metadata"
ok tpstatus --noheadings -o pool_meta_health u
out_has mirrored
rm -f a.got
ok tpsend --format raw -o a.got u/a
cmp a.want a.got || fail "volume a of the pool mirrored later reads back different"
md5sum ./*.img >sums.before
failed tpchange --meta-mirror m8.img u
err_has "mirrored already"
md5sum -c --quiet sums.before || fail "a refused --meta-mirror changed an image"
dd if=/dev/urandom of=n3.img bs=4096 seek=$(($(meta_area u | awk '{ print $1 }') / 4096)) \
	count=1 conv=notrunc status=none
expect_rc 1 tpcheck u
ok tprepair u
ok tpcheck u
out_has clean
# a device of the pool is no mirror leg, byte for byte
md5sum ./*.img >sums.before
usage_error tpchange --meta-mirror e.img q
md5sum -c --quiet sums.before || fail "a refused --meta-mirror changed an image"

# a mirrored pool over several data images: tpextend --data, tpmove and
# tpreduce (a middle device, whose mappings behind it are numbered down,
# and the last one) rewrite its thin metadata, tpreduce wholesale into the
# spare area it then makes active; each write reaches both legs: the areas
# stay equal, tpcheck and thin_check are clean, the volumes read the same
image x1.img 16M
image x2.img 16M
image x3.img 24M
image x4.img 16M
image w0.img 16M
image w1.img 16M
ok tpcreate --data x1.img --meta w0.img,w1.img --chunk 64K w
head -c 12M /dev/urandom >xa.want
ok tprecv --format raw -n a w <xa.want
ok tpextend --data x2.img w
head -c 8M /dev/urandom >xb.want
ok tprecv --format raw -n b w <xb.want
ok tvsnap w/b -n s
legs_clean() {	# after $1: the legs alike, the pool clean, the volumes as written
	areas_equal w0.img w1.img || fail "the legs' thin-metadata areas differ after $1"
	ok tpcheck w
	out_has clean
	thin_check_pool w
	for vol in a b s; do
		rm -f x.got; ok tpsend --format raw -o x.got "w/$vol"
		cmp -s "x${vol/s/b}.want" x.got || fail "volume $vol reads back different after $1"
	done
}
legs_clean "tpextend --data"
ok tpextend --data x3.img w
ok tpmove --from x2.img w
legs_clean "tpmove"
ok tpreduce --data x2.img w
legs_clean "tpreduce of a middle device"
ok tpextend --data x4.img w
ok tpreduce --data x4.img w
legs_clean "tpreduce of the last device"

# leg 0 lost: the first metadata image renamed away, its devices-file entry
# pointing nowhere. The pool is found on its data image and leg 1 (the VG
# is on every device), tpstatus lists it degraded, tpcheck exits 1 naming
# leg 0 and the replace; readers read; the other writers (and tprepair,
# which has no device to resync onto) refuse, byte for byte; tpchange
# --meta-replace puts leg 0 on a new image, mirrored and clean again, the
# volumes' raw exports unchanged; leg 0's label wiped is the same; with
# neither leg the pool is not found
image d6.img 64M
image k0.img 16M
image k1.img 16M
image k2.img 16M
ok tpcreate --data d6.img --meta k0.img,k1.img --chunk 64K v
ok tprecv --format raw -n a v <a.want
head -c 1M /dev/urandom >b.want
ok tprecv --format raw -n b v <b.want
mv k0.img k0.gone
grep -q "k0.img" "$TPTOOLS_DIR/devices" || fail "the devices file no longer names leg 0"
ok tpstatus --noheadings -o pool_name,pool_meta_health
out_has "v *degraded"
ok tpstatus --noheadings -o pool_meta_legs v
out_has "missing"
expect_rc 1 tpcheck v
out_has "leg 0 (.*k0.img) is missing"
out_has "tpchange --meta-replace DEV v"
for vol in a b; do
	rm -f "$vol.got"; ok tpsend --format raw -o "$vol.got" "v/$vol"
	cmp "$vol.want" "$vol.got" || fail "volume $vol reads back different without leg 0"
done
md5sum ./*.img ./*.gone >sums.before
failed tvcreate -V 8M -n c v
err_has "first metadata device .*k0.img.* is missing"
err_has "tpchange --meta-replace DEV v"
failed tprepair v
err_has "first metadata device"
failed tvremove -y v/b
md5sum -c --quiet sums.before || fail "a writer refused without leg 0 changed an image"
# leg 1, the one in sync, is no new leg 0
usage_error tpchange --meta-replace k1.img v
err_has "one of its devices already"
md5sum -c --quiet sums.before || fail "a refused --meta-replace changed an image"
ok tpchange --meta-replace k2.img v
out_has "mirrored"
areas_equal k1.img k2.img || fail "the resync of leg 0 onto k2.img left the areas different"
ok tpcheck v
out_has clean
ok tpstatus --noheadings -o pool_meta_health v
out_has mirrored
for vol in a b; do
	rm -f "$vol.got"; ok tpsend --format raw -o "$vol.got" "v/$vol"
	cmp "$vol.want" "$vol.got" || fail "volume $vol reads back different after the replace"
done
ok tvcreate -V 8M -n c v
ok tpcheck v
out_has clean
# leg 0's label wiped (now k2.img, listed in the devices file): degraded the
# same way; replaced onto the same image, clean
dd if=/dev/zero of=k2.img bs=4096 count=1 conv=notrunc status=none
expect_rc 1 tpcheck v
out_has "leg 0 (.*k2.img) is missing"
out_has "tpchange --meta-replace DEV v"
ok tpstatus --noheadings -o pool_meta_health v
out_has degraded
ok tpchange --meta-replace k2.img v
areas_equal k1.img k2.img || fail "the resync of leg 0 onto its own image left the areas different"
ok tpcheck v
out_has clean
# both metadata images gone: refused like a pool without its metadata device
mv k1.img k1.gone
mv k2.img k2.gone
md5sum ./*.img ./*.gone >sums.before
failed tpstatus v
failed tpcheck v
md5sum -c --quiet sums.before || fail "a pool without either leg had an image changed"

# a mirrored pool over three data images: tpextend --data, tpmove and
# tpreduce (a middle device, later the last) rebuild the thin metadata into
# the spare area of both legs (a tpreduce once wrote leg 0's only: leg 1
# was left stale); the legs equal, tpcheck clean, the volume reads back
image xd1.img 64M
image xd2.img 64M
image xd3.img 64M
image xm0.img 16M
image xm1.img 16M
ok tpcreate --data xd1.img --meta xm0.img,xm1.img --chunk 64k x
ok tpextend --data xd2.img x
ok tpextend --data xd3.img x
areas_equal xm0.img xm1.img || fail "the legs differ after tpextend --data"
head -c 3M /dev/urandom >x.want
ok tprecv --format raw -V 3M -n a x <x.want
ok tpreduce --data xd2.img x
areas_equal xm0.img xm1.img || fail "the legs differ after tpreduce of a middle device"
ok tpmove --from xd1.img x
areas_equal xm0.img xm1.img || fail "the legs differ after tpmove"
ok tpextend --data xd2.img x
ok tpmove --from xd3.img x
ok tpreduce --data xd3.img x
areas_equal xm0.img xm1.img || fail "the legs differ after tpreduce of the last device"
ok tpcheck x
rm -f x.got; ok tpsend --format raw -o x.got x/a
cmp x.want x.got || fail "volume x/a reads back different after tpmove and tpreduce"

# a shared pool (tpcreate --lock-type sanlock; its lease area left
# unwritten by the test hook) keeps its lease area on the first metadata
# device: without it every writer and tpactivate are refused, byte for
# byte, naming the lease area; readers still list it degraded
if [ ! -S /run/sanlock/sanlock.sock ]; then
	printf 'global {\n\tsystem_id = "hostA"\n\thost_id = 2\n}\n' >"$TPTOOLS_DIR/tptools.conf"
	image sd.img 64M
	image s0.img 16M
	image s1.img 16M
	image s2.img 16M
	TP_TEST_LEASE_UNFORMATTED=1 ok tpcreate --data sd.img --meta s0.img,s1.img \
		--lock-type sanlock --chunk 64k sh
	mv s0.img s0.gone
	ok tpstatus --noheadings -o pool_name,pool_meta_health sh
	out_has "sh *degraded"
	for cmd in "tvcreate -V 8M -n v sh" "tpactivate sh" "tpchange --meta-replace s2.img sh"; do
		# shellcheck disable=SC2086
		unchanged 5 $cmd
		err_has "its lease area is on that device"
	done
	rm -f "$TPTOOLS_DIR/tptools.conf"
fi
