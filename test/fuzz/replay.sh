#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# replay.sh - replay every fuzz corpus (test/fuzz/corpus/<name>/*) through
# its harness built as a plain program ($BUILD/test/bin/fuzz_<name>), one
# result per harness; writes "passed failed", then the failed harnesses
# one a line, to $TP_RESULTS (run-all.sh).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
pass=0 fail=0
failed_names=()
for dir in test/fuzz/corpus/*/; do
	name=$(basename "$dir")
	bin=$BUILD/test/bin/fuzz_$name
	if [ ! -x "$bin" ]; then
		echo "FAIL fuzz_$name: $bin not built"
		fail=$((fail + 1)); failed_names+=("fuzz_$name (not built)")
		continue
	fi
	if out=$("$bin" "$dir" 2>&1); then
		echo "PASS fuzz_$name (${out##*replayed })"
		pass=$((pass + 1))
	else
		echo "FAIL fuzz_$name:"
		echo "$out" | tail -20 | sed 's/^/    /'
		fail=$((fail + 1)); failed_names+=("fuzz_$name")
	fi
done
echo "fuzz: $pass passed, $fail failed"
if [ -n "${TP_RESULTS:-}" ]; then
	{ echo "$pass $fail"; printf '%s\n' "${failed_names[@]}"; } >"$TP_RESULTS"
fi
[ "$fail" -eq 0 ]
