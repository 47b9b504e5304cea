# SPDX-License-Identifier: GPL-2.0-or-later
# The installed tp is a release build: `make install` compiles it without
# the test hooks (TESTHOOKS=0, lib/base/critical.h), so neither the
# variables' names (TP_TEST_PAUSE, TP_TEST_FAIL) nor any step's name is in
# the binary, and setting the variables changes nothing; the build under
# test has every one of those strings (so the check can fail). The step
# names come from the sources: the last column of tools/commands.def and
# the hooks' call sites. make reuses the release build directory
# (RELEASE_BUILD, the Makefile's header; t-install makes the same one) and
# compiles only what is missing or stale. The lease's programs
# (PREFIX/lib/tptools/tp-lease-holder, tp-lease-fence) are checked the same way,
# with the lease module's own test variables (TP_TEST_LEASE_*) and the
# fencer's (TP_TEST_LEASE_LOG, tools/tp-lease-fence.c). The tests'
# own I/O engines
# (test/lib/io_test.h, io_crash.h) are in no tp at all, release or test build.
have strings || skip "strings (binutils) missing"
stage=$PWD/stage
ok make -C "$TOP" -s --no-print-directory -j"$(nproc)" BUILD="$BUILD" install \
	DESTDIR="$stage" PREFIX=/usr
rel=$stage/usr/sbin
[ -x "$rel/tp" ] || fail "make install put no sbin/tp"
for p in tp-lease-holder tp-lease-fence; do
	[ -x "$stage/usr/lib/tptools/$p" ] || fail "make install put no lib/tptools/$p"
done

# ---- the names, from the sources ----
declared=$(awk '/^TP_COMMAND\(/ { want = 1; next }
	want { gsub(/^[ \t]*"|"\)[ \t]*$/, ""); print; want = 0 }' "$TOP/tools/commands.def" |
	tr ' ' '\n' | sed 's/^live://; s/=N$//' | grep . | sort -u || true)
called=$(grep -rhoE 'tp_test_(pause(_n)?|fail)\("[a-z-]+"' "$TOP/lib" "$TOP/kernel" \
	"$TOP/metadata" "$TOP/tools" | sed 's/.*("//; s/"$//' | sort -u || true)
[ -n "$declared" ] || fail "no test pause declared in tools/commands.def (its layout changed?)"
[ -n "$called" ] || fail "no tp_test_pause/tp_test_fail call found in the sources"
lease_vars=$(grep -rhoE 'test_env\("TP_TEST_[A-Z_]+"' "$TOP/lib/pool/lease" | sed 's/.*("//; s/"$//' |
	sort -u || true)
[ "$(wc -w <<<"$lease_vars")" -ge 2 ] || fail "the lease module's test variables not found: $lease_vars"
fence_vars=$(grep -hoE 'getenv\("TP_TEST_[A-Z_]+"' "$TOP/tools/tp-lease-fence.c" |
	sed 's/.*("//; s/"$//' | sort -u || true)
[ -n "$fence_vars" ] || fail "the fencer's test variable (TP_TEST_LEASE_LOG) not found"
names=$(printf '%s\n' TP_TEST_PAUSE TP_TEST_FAIL $declared $called | sort -u)

# ---- the strings of both binaries ----
strings "$TOP/$BUILD/bin/tp" >test.strings
strings "$rel/tp" >release.strings
for s in $names; do
	grep -qF -- "$s" test.strings ||
		fail "the build under test ($BUILD) lacks '$s' (built with TESTHOOKS=0?)"
	! grep -F -- "$s" release.strings >found ||
		fail "the installed tp contains '$s': $(head -3 found | tr '\n' ' ')"
done

# the lease holder links the lease module, hooks and all; the fencer and
# the installed programs have none of them
strings "$TOP/$BUILD/lib/tptools/tp-lease-holder" >test.strings
for s in $lease_vars; do
	grep -qF -- "$s" test.strings ||
		fail "the build's tp-lease-holder lacks '$s' (built with TESTHOOKS=0?)"
done
strings "$TOP/$BUILD/lib/tptools/tp-lease-fence" >test.strings
for s in $fence_vars; do
	grep -qF -- "$s" test.strings ||
		fail "the build's tp-lease-fence lacks '$s' (built with TESTHOOKS=0?)"
done
for b in sbin/tp lib/tptools/tp-lease-holder lib/tptools/tp-lease-fence; do
	strings "$stage/usr/$b" >release.strings
	for s in $names $lease_vars $fence_vars; do
		! grep -F -- "$s" release.strings >found ||
			fail "the installed $b contains '$s': $(head -3 found | tr '\n' ' ')"
	done
done
# ---- the tests' own engines (test/lib/io_test.c, io_crash.c) are in no tp ----
# The memory, fault-injecting and power-cut I/O engines are linked into the test
# programs only: neither the installed tp nor the one under test has a
# symbol of theirs, while the unit runner has them all (so the check can
# fail) and the installed tp still has its symbols (not stripped: an empty
# list would prove nothing).
if have nm; then
	testonly='io_mem_create io_mem_data io_mem_resize io_fault_create io_fault_set io_fault_writes
		io_crash_create io_crash_wrap io_crash_hook io_crash_cut'
	nm "$rel/tp" >release.syms 2>/dev/null || fail "nm cannot read the installed tp"
	grep -q ' T io_read$' release.syms || fail "the installed tp has no symbols (stripped?): nothing to check"
	nm "$TOP/$BUILD/bin/tp" >test.syms || fail "nm cannot read $BUILD/bin/tp"
	if [ -x "$TOP/$BUILD/test/unit-tests" ]; then
		nm "$TOP/$BUILD/test/unit-tests" >unit.syms || fail "nm cannot read the unit runner"
	else
		: >unit.syms
	fi
	for s in $testonly; do
		! grep -E "^[0-9a-f]* *[A-Za-z] $s$" release.syms >found ||
			fail "the installed tp contains the test engine's $s: $(cat found)"
		! grep -E "^[0-9a-f]* *[A-Za-z] $s$" test.syms >found ||
			fail "$BUILD/bin/tp contains the test engine's $s: $(cat found)"
		[ ! -s unit.syms ] || grep -q " T $s$" unit.syms ||
			fail "the unit runner lacks $s (renamed? update this test's list)"
	done
fi

# ---- and the variables do nothing to it: no pause, no fault ----
image r-data.img 128M
image r-meta.img 16M
ok "$rel/tpcreate" --data r-data.img --meta r-meta.img r
ok timeout 120 env TP_TEST_PAUSE=after-vg-commit,after-apply TP_TEST_PAUSE_FILE="$PWD/pause" \
	TP_TEST_FAIL=set-tid,repair-commit "$rel/tvcreate" -V 4M -n v r
[ ! -e pause ] || fail "the installed tvcreate paused"
! grep -q "test pause\|test fault" err || fail "the installed tvcreate heeded a test hook: $(cat err)"
ok tpstatus --noheadings -o vol_name r
out_has "^ *v *$"
