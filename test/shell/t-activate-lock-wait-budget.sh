# SPDX-License-Identifier: GPL-2.0-or-later
# tpactivate --auto/--all --lock-wait SECONDS: "wait at most SECONDS in
# all for the locks of the pools they take" (tpactivate(8), tptools.conf(5)
# activate/lock_wait). The bound is of the time spent waiting for locks,
# not of the run: a run whose first pool takes longer than SECONDS to go
# through (here its metadata device's opens slowed under strace: a boot
# that unlocks encrypted volumes or checks large thin metadata) and that
# has not waited for any lock yet still waits for the next pool's lock,
# held a moment longer. (A hostile trial of issue 40 found the bound
# taken as a deadline from the run's start, lib/base/lock.c
# tp_lock_writers_deadline: the second pool failed at once, "waits at
# most 2 s in all for locks, and that time is over", having waited 0 s.)
# No device-mapper here: a pool whose lock was taken fails on that, which
# is how the test tells it was tried.
have strace || skip "no strace"
strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here"
DATA_SIZE=128M META_SIZE=16M
new_pool alpha
new_pool beta
# beta's lock is held until alpha has been gone through, and a second more
: >err
flock -F -x "$TPTOOLS_DIR/lock/beta.lock" sh -c \
	'while ! grep -q "pool alpha" err; do sleep 0.05; done; sleep 1' &
holder=$!
sleep 0.5
# each open of alpha's metadata device (a dozen) 0.3 s slower: alpha takes
# about 4 s, twice the bound, and no lock is waited for (LeakSanitizer
# does not run under ptrace: a sanitizer build checks leaks elsewhere)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 expect_rc 5 strace -f -o trace.txt -P "$PWD/alpha-meta.img" -e trace=openat \
	-e inject=openat:delay_enter=300000 tpactivate --auto alpha beta --lock-wait 2
wait $holder || true
grep -q "pool alpha" err || fail "alpha was not tried"
err_lacks "pool beta: its lock is still held"
err_has "cannot activate pool beta"
