# SPDX-License-Identifier: GPL-2.0-or-later
# One owner of signals (lib/base/critical.h): no file of lib/, kernel/,
# metadata/ or tools/ but lib/base/critical.c installs a handler, changes
# a blocked set, waits for or sends a signal; the one exception is a
# helper thread that blocks every signal in its own mask, so that the
# process's signals reach the thread running the command
# (metadata/thin/thin_walk_read.c). A daemon asks critical.c to catch
# them (tp_signals_catch), as tpmonitor does.
calls='(^|[^_[:alnum:]])(sigaction|signal|sigprocmask|pthread_sigmask|pthread_kill|sigwait[a-z]*|sigsuspend|signalfd|raise|kill|pause)\('
(cd "$TOP" && grep -rnE "$calls" lib kernel metadata tools --include='*.c' --include='*.h') >calls || true
[ -s calls ] || fail "no signal call found at all (not even critical.c's): the pattern is broken"
grep -q '^lib/base/critical\.c:.*sigaction(' calls || fail "critical.c installs no handler: the pattern is broken"
grep -vE '^lib/base/critical\.c:' calls |
	grep -vE '^metadata/thin/thin_walk_read\.c:[0-9]+:[[:space:]]*pthread_sigmask\(SIG_BLOCK, &all, NULL\);' >others || true
[ ! -s others ] || fail "signals handled outside lib/base/critical.c: $(cat others)"
