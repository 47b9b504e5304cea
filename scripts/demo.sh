#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh - the main job: show tptools at work on image files in a temp dir.
# Uses the freshly built binaries in $BUILD/bin (make demo builds them).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export PATH=$PWD/$BUILD/bin:$PATH
work=$(mktemp -d "${TMPDIR:-/tmp}/tptools-demo.XXXXXX")
export TPTOOLS_DIR=$work/etc
trap 'rm -rf "$work"' EXIT
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }
have() { tp --help | grep -q "^  $1 "; }

echo "tptools demo in $work (image files; nothing outside it is touched)"
step tp --version
step tp --help
truncate -s 4G "$work/md0.img"     # the data device (a simulated 6-disk RAID6)
truncate -s 64M "$work/meta.img"   # the metadata device
# Image files have no RAID topology: tell tptools what a 6-disk RAID6 with a
# 512 KiB md chunk reports (minimum_io_size = chunk, optimal_io_size = stripe).
export TPTOOLS_TOPOLOGY="min_io=524288,opt_io=2097152,align=0"
if have tpcreate; then
	step tpcreate --data "$work/md0.img" --meta "$work/meta.img" --chunk auto --explain --yes vault
fi
if have tvcreate; then
	step tvcreate -V 100G -n www vault
	step tvcreate -V 20G -n db vault
fi
if have tvsnap; then
	step tvsnap vault/www -n www-monday
fi
if have tpstatus; then
	step tpstatus vault
fi
if have tpcheck; then
	step tpcheck vault
fi
if have tpdump; then
	step tpdump vault
fi
echo
echo "demo finished"
