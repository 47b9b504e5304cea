# SPDX-License-Identifier: GPL-2.0-or-later
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
# a file that already holds other bytes, opened without truncation
# (1<>FILE): the image's unmapped ranges are punched (or, where the file
# system punches no holes, written as zeros), and the file ends where the
# image ends, cut when it was longer, extended when shorter
head -c 12M /dev/urandom >old.img
tpsend --format raw sp/a 1<>old.img || fail "raw image into an old file: exit $?"
cmp old.img a.want || fail "raw image into a longer old file keeps its old bytes"
[ "$(stat -c %b old.img)" -lt $((8 * 2048 / 2)) ] || fail "old.img's holes were not punched"
head -c 12M /dev/urandom >old.img
TP_TEST_FAIL=send-punch tpsend --format raw sp/a 1<>old.img || fail "zeros over old bytes: exit $?"
cmp old.img a.want || fail "raw image into an old file that cannot be punched differs"
head -c 2M /dev/urandom >old.img
tpsend --format raw sp/a 1<>old.img || fail "raw image into a shorter old file: exit $?"
cmp old.img a.want || fail "raw image into a shorter old file differs"
# the image from the descriptor's offset on (here after 4 KiB of x)
head -c 12M /dev/urandom >old.img
head -c 4096 /dev/zero | tr '\0' x >old.head
{ cat old.head && tpsend --format raw sp/a; } 1<>old.img || fail "raw image at an offset: exit $?"
cmp <(head -c 4096 old.img) old.head || fail "the bytes before the image's offset differ"
cmp <(tail -c +4097 old.img) a.want || fail "raw image at an offset into an old file differs"
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

# a block device: every byte of the image, its unmapped ranges as zeros,
# and what lies beyond it kept (after the refusals: the loop device is no
# *.img their `unchanged` compares)
if have losetup; then
	head -c 12M /dev/urandom >blk.raw
	tail -c 4M blk.raw >blk.tail
	trap loops_detach EXIT
	loop_attach lb blk.raw
	tpsend --format raw sp/a >"$lb" || fail "raw image onto a block device: exit $?"
	cmp -n 8M "$lb" a.want || fail "raw image onto a block device differs"
	cmp <(tail -c 4M "$lb") blk.tail || fail "the block device's bytes beyond the image changed"
fi
