#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fuzz.sh - build the fuzz harnesses (test/fuzz/fuzz_*.c) with clang's
# libFuzzer + ASan + UBSan and run each for a while, starting from its
# corpus (test/fuzz/corpus/<name>; new finds go to build-fuzz/corpus/<name>).
#
#   scripts/fuzz.sh [SECONDS_PER_HARNESS] [NAME...]    (default 600, all)
#
# Exit 0 when no harness crashed, hung or reported; crash inputs are kept
# in build-fuzz/artifacts/<name>/ (turn each into a corpus file + fix).
set -eu
cd "$(dirname "$0")/.."
secs=${1:-600}
shift || true
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(ls test/fuzz/fuzz_*.c | sed 's,.*/fuzz_,,; s,\.c$,,'))
B=build-fuzz
FLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
make --no-print-directory -j"$(nproc)" BUILD=$B CC=clang CFLAGS="$FLAGS" libs >/dev/null
LIBTP=$(make --no-print-directory -s BUILD=$B print-libs)
CPPFLAGS="-D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -I. $(pkg-config --cflags devmapper blkid libudev popt expat libcryptsetup)"
LIBS="$(pkg-config --libs devmapper blkid libudev popt expat libcryptsetup) -lm -lz"
rc=0
for n in "${names[@]}"; do
	mkdir -p $B/corpus/$n $B/artifacts/$n
	clang $CPPFLAGS -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o $B/fuzz_$n test/fuzz/fuzz_$n.c \
		$(sed -n "s/^FUZZ_EXTRA_$n := //p" Makefile) test/lib/*.c $LIBTP $LIBS
	echo "=== fuzz_$n for ${secs}s"
	if ! $B/fuzz_$n -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=4194304 \
		-artifact_prefix=$B/artifacts/$n/ -print_final_stats=1 \
		$B/corpus/$n test/fuzz/corpus/$n 2>$B/fuzz_$n.log; then
		echo "fuzz_$n: FAILED, see $B/fuzz_$n.log and $B/artifacts/$n/"
		tail -30 $B/fuzz_$n.log
		rc=1
	else
		grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' $B/fuzz_$n.log || true
		echo "fuzz_$n: no crash, hang or sanitizer report"
	fi
done
exit $rc
