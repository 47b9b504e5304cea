# SPDX-License-Identifier: GPL-2.0-or-later
# tptrim: on an inactive pool of image files, the chunks no volume maps
# are punched out of the data image (their blocks released), the chunks
# never written stay holes, every volume's raw export is unchanged, no
# metadata changes (tpcheck and thin_check clean, the metadata image
# byte-identical); --test reports and changes nothing; a kill between two
# discards leaves the pool as it was; refusals change nothing.
have thin_check || skip "thin_check not installed"
DATA_SIZE=128M META_SIZE=16M
conf=$TPTOOLS_DIR/tptools.conf
new_pool tr --chunk 64k
ok tvcreate -V 4M -n a tr
ok tvcreate -V 4M -n b tr
write_chunks tr a 0 8
write_chunks tr b 0 16
write_chunks tr b 40 4
ok tvsnap tr/a -n s
write_chunks tr a 2 2
ok tvcreate -V 4M -n c tr
write_chunks tr c 10 6
alloc() { echo $(($(stat -c '%b * %B' tr-data.img))); }
sums_of() { for v in a s c; do echo "$v $(tpsend --format raw "tr/$v" | md5sum | cut -d' ' -f1)"; done; }
sums_of >vols.before
# b's 20 chunks are freed by its removal, their data still on the image
ok tvremove -y tr/b
before=$(alloc)
off=$(pool_bytes tr pool_data_offset)
used=$(pool_bytes tr pool_data_used)
chunks=$(( $(pool_bytes tr pool_size) / 65536 ))
[ "$used" = $(( (8 + 2 + 6) * 65536 )) ] || fail "mapped before the trim: $used"
md5sum tr-meta.img >meta.before

# --test: the runs and their bytes, nothing discarded, nothing written
md5sum ./*.img >sums.before
ok tptrim --test tr
md5sum ./*.img >sums.after
cmp -s sums.before sums.after || fail "tptrim --test changed an image"
[ "$(grep -c "^would discard chunks" out)" -ge 2 ] || fail "--test listed no runs: $(cat out)"
free=$((chunks - 16))
out_has "Pool tr: $free of $chunks chunks ($((free / 16)) MiB) mapped by no volume"
out_has "would discard $((free / 16)) MiB in .* discards (--test: nothing was discarded)"
# each range line: its bytes at its offset of the data image, in the data area
awk '/^would discard chunks/ { split($4, r, /\.\./); n = r[2] - r[1] + 1
	if ($5 + 0 != n * 65536) exit 1; if ($9 + 0 != '"$off"' + r[1] * 65536) exit 1 }' out ||
	fail "a range's bytes or offset is not its chunks': $(grep 'would discard chunks' out | head -3)"
[ "$(alloc)" = "$before" ] || fail "--test released blocks"
grep "^would discard chunks" out >ranges
# holes RANGES FILE: 0 when every range of RANGES is a hole of FILE, and
# every byte of the data area outside them is data
holes() {
	python3 - "$1" "$2" "$off" "$chunks" <<'PY'
import os, sys
ranges, path, off, chunks = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
free = set()
for l in open(ranges):
    a, b = (int(x) for x in l.split()[3].rstrip(":").split(".."))
    free.update(range(a, b + 1))
fd = os.open(path, os.O_RDONLY)
def is_hole(o):
    try:
        return os.lseek(fd, o, os.SEEK_DATA) >= o + 65536
    except OSError:
        return True
bad = [c for c in range(chunks) if is_hole(off + c * 65536) != (c in free)]
if bad:
    print("chunks not as expected (hole iff free):", bad[:20])
    sys.exit(1)
PY
}

# (b's chunks hold data before the trim: the hole check would see that)
holes ranges tr-data.img >/dev/null && fail "the free chunks were holes before the trim"

# a kill between two discards (one chunk a piece): the pool as it was
killed_at trim-batch=3 tptrim --batch 64k tr
md5sum -c meta.before >/dev/null || fail "a killed tptrim changed the metadata image"
sums_of >vols.now
cmp -s vols.before vols.now || fail "a killed tptrim changed a volume"
ok tpcheck tr
# a signal stops it between two pieces: 130, the pool as it was
rm -f pause
env --default-signal=INT,TERM,HUP TP_TEST_PAUSE=trim-batch=2 TP_TEST_PAUSE_FILE="$PWD/pause" \
	tptrim --batch 64k tr >out 2>err &
pid=$!
wait_until "$pid" test -e pause || { cat err >&2; fail "tptrim never reached trim-batch=2"; }
kill -INT "$pid"
_w=0
while kill -0 "$pid" 2>/dev/null; do
	rm -f pause
	if ((_w++ < 20)); then sleep 0.01; else sleep 0.05; fi
done
rc=0; wait "$pid" || rc=$?
[ $rc = 130 ] || { cat err >&2; fail "tptrim stopped by SIGINT exited $rc"; }
grep -q "stopped by a signal" err || fail "the stop not said: $(cat err)"
md5sum -c meta.before >/dev/null || fail "a stopped tptrim changed the metadata image"

# the trim: b's chunks released, the holes stay holes, nothing else moves
ok tptrim --progress=json tr
grep -q '"command":"tptrim","object":"tr","unit":"chunks","done":'"$chunks"',"total":'"$chunks" err ||
	fail "tptrim's last progress line: $(tail -1 err)"
out_has "discarded $((free / 16)) MiB"
out_has "holes punched into the image file"
after=$(alloc)
# b's 20 chunks released (give or take the file system's own extent blocks)
[ $((before - after)) -ge $((20 * 65536 - 8192)) ] && [ $((before - after)) -le $((20 * 65536 + 8192)) ] ||
	fail "released $((before - after)) bytes, not b's 20 chunks ($((20 * 65536)))"
# every free chunk a hole (b's and those never written), every mapped one data
holes ranges tr-data.img || fail "the data image's holes are not the free chunks"
md5sum -c meta.before >/dev/null || fail "tptrim changed the metadata image"
sums_of >vols.now
cmp -s vols.before vols.now || { diff vols.before vols.now >&2; fail "tptrim changed a volume"; }
ok tpcheck tr
out_has "clean"
thin_check_pool tr
# again: nothing more to release
ok tptrim tr
[ "$(alloc)" = "$after" ] || fail "a second trim released more"

# refusals: bad options, a foreign pool, needs_check: nothing changed
unchanged 3 tptrim --batch 0 tr
unchanged 3 tptrim --batch x tr
unchanged 5 tptrim nosuch
printf 'global {\n\tsystem_id = "hostA"\n}\n' >"$conf"
new_pool fo --chunk 64k
printf 'global {\n\tsystem_id = "hostB"\n}\n' >"$conf"
unchanged 5 tptrim fo
err_has "hostA"
rm -f "$conf"
save_area tr area.bin
ok tp-damage area.bin sb needs_check
load_area tr area.bin
unchanged 5 tptrim tr
err_has "needs_check"
exit 0
