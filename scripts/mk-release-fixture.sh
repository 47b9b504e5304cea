#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mk-release-fixture.sh - a pool made by an earlier build of tptools, kept
# in the tree so that test/shell/t-previous-release.sh can prove, without
# building anything, that this tree opens it, changes it and reads its data
# back (issue 40: "a pool made by the previous release opens, gets a
# volume, and reads back its data").
#
#   scripts/mk-release-fixture.sh REV
#
# builds REV (scripts/bench-builds.sh: bb_build) and with that build only
# makes, on image files, the pool "rel" (256 MiB data, 16 MiB metadata,
# 64 KiB chunks): v1 imported from 1.5 MiB of numbered lines (tprecv
# --format raw; a run of zeros in the middle), s1 a snapshot of v1, v2
# 300 KiB of other lines, and e an empty 1 GiB volume. It writes
# test/data/, in release-REV: both images xz-compressed, the sha256 of
# each volume's bytes (SUMS), the VG text REV wrote (rel.vg, its backup),
# and ORIGIN.md saying how they were made.
set -eu
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: $0 REV" >&2; exit 3; }
. scripts/bench-builds.sh	# bb_build
rev=$(git rev-parse --short=7 "$1^{commit}")
bin=$(bb_build "$rev")
out=$PWD/test/data/release-$rev
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export TPTOOLS_DIR=$work/etc PATH=$bin:$PATH
mkdir etc
truncate -s 256M rel-data.img
truncate -s 16M rel-meta.img
tpcreate --chunk 64k --data rel-data.img --meta rel-meta.img rel
# numbered lines: every 64 KiB chunk differs from every other, so a chunk
# read from the wrong place shows, and xz keeps the images small
seq 1 1000000 | head -c 512K >v1.raw
head -c 512K /dev/zero >>v1.raw
seq 2000000 3000000 | head -c 512K >>v1.raw
tprecv --format raw -n v1 -i v1.raw rel
tvsnap -n s1 rel/v1
seq 5000000 6000000 | head -c 300K >v2.raw
tprecv --format raw -n v2 -i v2.raw rel
tvcreate -V 1G -n e rel
tpcheck rel
mkdir -p "$out"
for v in v1 s1 v2 e; do
	printf '%s  %s\n' "$(tpsend --format raw rel/$v | sha256sum | cut -d' ' -f1)" "$v"
done >"$out/SUMS"
cp "$(ls -d etc/backup/*/* | sort | tail -1)" "$out/rel.vg"
xz -9 -k -c rel-data.img >"$out/rel-data.img.xz"
xz -9 -k -c rel-meta.img >"$out/rel-meta.img.xz"
cat >"$out/ORIGIN.md" <<EOF
# A pool made by tptools $rev

Made by \`scripts/mk-release-fixture.sh $rev\` on $(date -u +%Y-%m-%d) with the build of
commit $rev (of $(git -C "$OLDPWD" log -1 --format=%cs "$rev")) and nothing else: the pool \`rel\` on two
image files (256 MiB data, 16 MiB metadata, 64 KiB chunks), xz-compressed here.

Its volumes:
- \`v1\`: 1.5 MiB imported with \`tprecv --format raw\` (numbered lines, zeros, numbered lines);
- \`s1\`: a snapshot of v1;
- \`v2\`: 300 KiB of other lines;
- \`e\`: 1 GiB, never written.

\`SUMS\` holds the sha256 of each volume's bytes as \`tpsend --format raw\` of that build gave
them. \`rel.vg\` is the VG text it wrote last (its backup).
\`test/shell/t-previous-release.sh\` opens the pool with this tree's build.
EOF
ls -l "$out"
