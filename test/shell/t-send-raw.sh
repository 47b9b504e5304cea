# tpsend --format raw: a volume's content, read offline from the data
# device at the chunks its mappings name, equals the image written there
# byte for byte (unmapped ranges as zeros, holes in a file, a last partial
# chunk cut at the volume's size), to a file or a pipe; a snapshot keeps
# its content after the origin is written; refusals change nothing.
have tp-thinmap || fail "tp-thinmap not built (make tests)"
DATA_SIZE=256M
new_pool sp --chunk 64k
ok tvcreate -V 8M -n a sp
ok tvcreate -V 1000K -n odd sp
write() { write_chunks sp "$@"; }
truncate -s 8M a.want
truncate -s 1000K odd.want
write a 0 3
write a 40 10
write a 127 1
write odd 15 1		# the last chunk: only 40 KiB of it are the volume's
truncate -s 1000K odd.want
ok tpcheck sp

ok tpsend --format raw -o got.img sp/a
out_has "Wrote sp/a to got.img: 8 MiB, 896 KiB of it mapped."
cmp got.img a.want || fail "raw image of sp/a differs"
[ "$(stat -c %b got.img)" -lt $((8 * 2048 / 2)) ] || fail "got.img is not sparse"
tpsend --format raw sp/a | cmp - a.want || fail "raw image through a pipe differs"
# a file opened to append: no holes by seeking (each write lands at its end)
# and no kernel copy into it (copy_file_range and sendfile refuse it)
echo -n head >app.img
tpsend --format raw sp/a >>app.img || fail "raw image appended to a file: exit $?"
cmp <(tail -c +5 app.img) a.want || fail "raw image appended to a file differs"
ok tpsend -f raw -o got.img sp/odd
cmp got.img odd.want || fail "raw image of a volume ending inside a chunk differs"

# a snapshot keeps its content when the origin is overwritten
cp a.want s1.want
ok tvsnap sp/a -n s1
write a 1 1
write a 60 2
ok tpsend --format raw -o got.img sp/s1
cmp got.img s1.want || fail "the snapshot's raw image changed with its origin"
ok tpsend --format raw -o got.img sp/a
cmp got.img a.want || fail "raw image of sp/a after the snapshot differs"

# refusals
unchanged 5 tpsend -o x.stream sp/a
err_has "only a read-only volume can be sent"
unchanged 3 tpsend --format zip sp/a
unchanged 3 tpsend --format raw
unchanged 5 tpsend --format raw -o got2.img sp/nope
err_has "no volume nope"
unchanged 5 tpsend --format raw -o got2.img nopool/a
