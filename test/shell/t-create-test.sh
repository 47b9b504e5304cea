# SPDX-License-Identifier: GPL-2.0-or-later
# tpcreate --test: every decision (as --explain) and what would be
# written, with nothing written: every image and the devices file
# byte-identical; the figures it prints are those a real create then has.
devfile="$TPTOOLS_DIR/devices"
state() { md5sum ./*.img; if [ -e "$devfile" ]; then md5sum "$devfile"; else echo "no devices file"; fi; ls "$TPTOOLS_DIR/backup" 2>/dev/null || true; }
# test_then_create NAME ARGS...: --test, nothing changed; then the real
# create; each figure of --test is the pool's
test_then_create() {
	local name=$1 v
	shift
	state >st.before
	ok tpcreate --test "$@" "$name"
	state >st.after
	cmp -s st.before st.after || { diff st.before st.after >&2; fail "tpcreate --test $name wrote"; }
	out_has "Test mode: nothing was written"
	cp out test.out
	ok tpcreate --explain "$@" "$name"
	# the decisions --test printed are those of the create
	sed -n '/^Test mode/q;p' test.out >test.explain
	sed -n '/^Pool .* created/q;p' out >real.explain
	cmp -s test.explain real.explain || { diff test.explain real.explain >&2; fail "$name: --test decided otherwise"; }
	read -r chunk off size moff mlen soff < <(pool_bytes "$name" \
		pool_chunk,pool_data_offset,pool_size,pool_meta_offset,pool_meta_length,pool_spare_offset)
	grep -q "^  chunk: *$chunk bytes$" test.out || fail "$name: chunk $chunk not as --test said"
	grep -q "^  data area: *offset $off, $size bytes = $((size / chunk)) chunks" test.out ||
		fail "$name: data area $off+$size not as --test said: $(grep 'data area:' test.out)"
	grep -q "^  metadata areas: *active at $moff, spare at $soff, $mlen bytes each$" test.out ||
		fail "$name: metadata areas not as --test said: $(grep 'metadata areas' test.out)"
	v=$(tpstatus --noheadings -o pool_zero,pool_discards "$name" | awk '{ print ($1 == "yes" ? "on" : "off"), $2 }')
	grep -q "zeroing ${v% *}, discards ${v#* }," test.out || fail "$name: zeroing/discards '$v' not as --test said"
	ok tpcheck "$name"
}

image a-data.img 256M
image a-meta.img 16M
test_then_create a --data a-data.img --meta a-meta.img
grep -q "metadata size: *estimate = 4080 chunks x 64 bytes + 1048576 = 1309696 bytes, rounded up to 4096-byte blocks = 1310720, at least 2097152: 2097152 bytes" test.out ||
	fail "the metadata arithmetic: $(grep 'metadata size' test.out)"

# a striped device, a profile, zeroing, a metadata size and the policies
raid_geometry 65536 262144
image b-data.img 1G
image b-meta.img 64M
test_then_create b --data b-data.img --meta b-meta.img --profile throughput --zero y \
	--metadata-size 8M --when-full error --activate n --warn 70 --autoextend-threshold 80 \
	--autoextend-max 2G --max-overprovision 2
grep -q "Metadata area 8 MiB as requested" test.out || fail "--metadata-size not explained"
grep -q "when full error, activate n" test.out || fail "when-full/activate not said"
grep -q "monitoring: *warn at 70%, autoextend at 80% by 20% up to 2 GiB" test.out ||
	fail "monitoring not said: $(grep monitoring: test.out)"
grep -q "over-provision: *at most 2.00 x the data size" test.out || fail "limit not said"
unset TPTOOLS_TOPOLOGY

# refusals are those of the real create, with nothing written: a
# device of a pool, a signature without --force, a too small device
unchanged 5 tpcreate --test --data a-data.img --meta c-meta.img c
image c-data.img 64M
image c-meta.img 16M
mkfs.ext4 -q -F c-data.img
unchanged 5 tpcreate --test --data c-data.img --meta c-meta.img c
err_has "tpcreate will not overwrite it"
# with --force: said, not asked, not erased
state >st.before
ok tpcreate --test --force --data c-data.img --meta c-meta.img c
state >st.after
cmp -s st.before st.after || fail "tpcreate --test --force wrote"
out_has "signatures: *erased first (--force): "
image d-data.img 1M
image d-meta.img 16M
unchanged 5 tpcreate --test --data d-data.img --meta d-meta.img d
# a mirror's second metadata device too small for the layout: refused by
# --test as by the create, each naming its size and the size needed
image e-data.img 64M
image e-meta.img 16M
image e-meta2.img 6M
unchanged 5 tpcreate --test --data e-data.img --meta e-meta.img,e-meta2.img e
err_has "the second metadata device e-meta2.img (6 MiB) is smaller than the layout of e-meta.img needs (16 MiB)"
cp err test.err
unchanged 5 tpcreate --data e-data.img --meta e-meta.img,e-meta2.img e
cmp -s err test.err || fail "tpcreate and tpcreate --test refuse differently: $(cat test.err err)"
ok tpcreate --test --data e-data.img --meta e-meta.img,e-meta2.img --metadata-size 2M e
exit 0
