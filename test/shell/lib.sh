# lib.sh - helpers for shell tests (sourced by test/shell/run.sh into each test).
#
# Each test runs in its own temporary directory (cwd) with TPTOOLS_DIR set
# to ./etc and the freshly built commands first on PATH. A test passes when
# it exits 0; `fail` stops it with a message.

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_rc N CMD...: run CMD, demand exit code N exactly; output goes to
# ./out and ./err (also echoed on failure).
expect_rc() {
	local want=$1 rc
	shift
	"$@" >out 2>err && rc=0 || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "--- stdout of: $*" >&2; cat out >&2
		echo "--- stderr:" >&2; cat err >&2
		fail "'$*' exited $rc, expected $want"
	fi
}
ok() { expect_rc 0 "$@"; }
usage_error() { expect_rc 3 "$@"; }
failed() { expect_rc 5 "$@"; }

# grep helpers on the last command's output
out_has() { grep -q -- "$1" out || { cat out >&2; fail "stdout lacks '$1'"; }; }
err_has() { grep -q -- "$1" err || { cat err >&2; fail "stderr lacks '$1'"; }; }
out_lacks() { ! grep -q -- "$1" out || { cat out >&2; fail "stdout has '$1'"; }; }

# sums FILE...: print one checksum line per file (for byte-for-byte checks)
sums() { sha256sum "$@"; }

# image NAME SIZE: a sparse image file
image() { rm -f "$1"; truncate -s "$2" "$1"; }

# geometry override for image files (see tpcreate(8)): md chunk, full stripe
raid_geometry() { export TPTOOLS_TOPOLOGY="min_io=$1,opt_io=$2,align=${3:-0}"; }

have() { command -v "$1" >/dev/null 2>&1; }
skip() { echo "SKIP: $*"; exit 77; }
