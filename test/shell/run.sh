#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh - run every test/shell/t-*.sh (or those named) in its own temp dir.
# Exit 0 = pass, 77 = skipped (counted as passed, reported), else fail.
# TP_RESULTS=FILE gets "passed failed", then the failed tests, one a line.
# TP_SHELL_LOGS=DIR keeps each passing test's log there as NAME.log (a
# failing test's directory is kept anyway). A passing test's "NOTE: "
# lines are shown under its PASS line.
set -u
cd "$(dirname "$0")/../.."
top=$PWD
BUILD=${BUILD:-build}
bindir=$top/$BUILD/bin
[ -x "$bindir/tp" ] || { echo "no $bindir/tp; run make first"; exit 2; }
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(test/shell/t-*.sh)
pass=0 fail=0 skipped=0
failed_names=()
# python3 is the system's (Debian's python3, what the tests are written
# for) where a version manager's shim comes first in PATH: a pyenv shim
# takes 0.2 s to start, against 0.03 s, and tests call python3 in loops
pydir=
if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ]; then
	if pydir=$(mktemp -d "${TMPDIR:-/tmp}/tp-shell-python.XXXXXX") && [ -d "$pydir" ]; then
		ln -s /usr/bin/python3 "$pydir/python3"
		trap 'rm -rf "$pydir"' EXIT
	else
		pydir=
	fi
fi
for t in "${tests[@]}"; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	# no directory of its own (TMPDIR gone: make check killed, which
	# removes its tmpfs directory): stop here, never run a test in this
	# directory with the host's configuration and devices
	if ! dir=$(mktemp -d "${TMPDIR:-/tmp}/tp-shell-$name.XXXXXX") || [ ! -d "$dir" ]; then
		echo "shell: cannot make a directory for $name under ${TMPDIR:-/tmp}; stopped"
		fail=$((fail + 1))
		failed_names+=("$name (no directory of its own under ${TMPDIR:-/tmp}; the rest not run)")
		break
	fi
	mkdir -p "$dir/etc"
	start=$(date +%s)
	(
		cd "$dir" || exit 1
		# the scan root (lib/base/devfilter.h): the test sees only the
		# loop devices of images in its own directory, never a pool on
		# the host's other block devices
		export TPTOOLS_DIR=$dir/etc PATH=$bindir:$top/$BUILD/test/bin${pydir:+:$pydir}:$PATH TP_TEST_SCAN_ROOT=$dir
		export TOP=$top BUILD=$BUILD LC_ALL=C
		unset TPTOOLS_TOPOLOGY TPTOOLS_DEBUG
		# shellcheck disable=SC1091
		source "$top/test/shell/lib.sh"
		set -e
		source "$top/$t"
	) >"$dir/log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); echo "PASS $name (${secs}s)"
		# what a passing test wants seen all the same (its NOTE: lines)
		grep -a '^NOTE: ' "$dir/log" | sed 's/^/    /' || true
		[ -z "${TP_SHELL_LOGS:-}" ] || cp "$dir/log" "$TP_SHELL_LOGS/$name.log"
		rm -rf "$dir"
	elif [ $rc -eq 77 ]; then
		skipped=$((skipped + 1)); pass=$((pass + 1))
		echo "SKIP $name: $(grep '^SKIP' "$dir/log" | head -1)"; rm -rf "$dir"
	else
		fail=$((fail + 1))
		why=$(grep -m1 -E '^FAIL|ERROR: (Address|Leak|Undefined)|runtime error' "$dir/log" | cut -c1-200)
		failed_names+=("$name (exit $rc)${why:+: $why}")
		echo "FAIL $name (exit $rc, ${secs}s); log:"
		tail -40 "$dir/log" | sed 's/^/    /'
		echo "    (kept in $dir)"
	fi
done
echo "shell: $pass passed, $fail failed ($skipped skipped)"
if [ -n "${TP_RESULTS:-}" ]; then # counts, then one failed test a line
	{ echo "$pass $fail"; printf '%s\n' "${failed_names[@]}"; } >"$TP_RESULTS"
fi
[ $fail -eq 0 ]
