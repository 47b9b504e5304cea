/* SPDX-License-Identifier: GPL-2.0-or-later */
/* critical.h - the process's one owner of signals: critical sections that
 * a signal does not cut short, the stop request long work looks for, and
 * the daemon's handlers; and the test hooks (pauses and faults), which
 * exist only in a build with TP_TEST_HOOKS=1.
 *
 * The rule: nothing in lib/, kernel/, metadata/ or tools/ but this file
 * and critical.c installs a signal handler (sigaction, signal), changes
 * the process's blocked set or sends a signal to a thread; code that must
 * know of a signal asks tp_critical_pending. (A helper thread may block
 * every signal in its own mask so that the process's signals reach the
 * thread that runs the command: metadata/thin/thin_walk_read.c.)
 *
 * Critical sections: the calling thread's blocked set holds SIGINT,
 * SIGTERM and SIGHUP while a section runs. A section is a change that must
 * not stop half-way (suspend..resume of a device, reserve..release of the
 * kernel's metadata snapshot, a VG commit, a thin commit, the repair swap,
 * one change under the transaction-id protocol). Sections nest; the
 * outermost end restores the mask the thread had, so a signal that came
 * in meanwhile takes effect then, with its normal action (the command ends
 * there). SIGKILL cannot be blocked: lib/pool clears what it leaves behind
 * at the start of the next command (lib/pool/core/pool_leftovers.c).
 *
 * A daemon (tpmonitor) instead has the three signals caught once
 * (tp_signals_catch): they then ask it to stop, and its loop, like a long
 * copy, looks at tp_critical_pending between two pieces of work.
 *
 * Test hooks, compiled only with TP_TEST_HOOKS=1 (the Makefile's
 * TESTHOOKS=1: the build the tests use; `make install` and `make deb`
 * build without them, and then the macros below are empty, a constant 0
 * for tp_test_fail, and neither a step's name nor the variables' names
 * reach the binary; their arguments are not evaluated, so a counter
 * passed as N counts only for the pauses):
 * Test pauses: with TP_TEST_PAUSE=STEP[,STEP...] and TP_TEST_PAUSE_FILE=F
 * in the environment, tp_test_pause(STEP) creates F, says so on stderr,
 * and waits until F is removed; a test sends its signal while F exists
 * (TP_TEST_PAUSE_QUIET=1: it says nothing, for a test that watches a
 * terminal). Without those variables it does nothing.
 * Test faults: with TP_TEST_FAIL=STEP[,STEP...], tp_test_fail(STEP) is 1
 * (the caller fails that step as if the kernel or device had refused);
 * used to prove that a half-applied change is completed. */
#ifndef TP_BASE_CRITICAL_H
#define TP_BASE_CRITICAL_H

#include <pthread.h>
#include <stdint.h>

/* Block SIGINT, SIGTERM and SIGHUP (nested: counted). */
void tp_critical_begin(void);
/* End the section; the outermost end unblocks them again. */
void tp_critical_end(void);
/* Depth of the sections now open (0: none). */
int tp_critical_depth(void);
/* The signal (SIGINT, SIGTERM or SIGHUP) that asks the process to stop,
 * or 0: one caught (tp_signals_catch), else one that waits for the
 * section to end. A long copy inside a section looks between two pieces
 * of work and stops there (the signal takes effect when the section
 * ends); a daemon's loop looks between two rounds. */
int tp_critical_pending(void);
/* The last signal tp_critical_pending found, or 0: the command that
 * stopped for it and is still running (the signal ignored, as in a
 * background job) exits 128 + it all the same (tp_exit_from_errno). */
int tp_critical_stopped_by(void);

/* For a daemon: from now on SIGINT, SIGTERM and SIGHUP do not end the
 * process but are recorded (tp_signals_caught, tp_critical_pending), and
 * each writes a byte to WAKE_FD unless it is -1 (the write end of the
 * caller's non-blocking pipe, so that its poll wakes); SIGUSR1 is caught
 * to interrupt a thread (tp_signals_interrupt) and writes the byte too.
 * No SA_RESTART: a blocking call a signal lands in returns EINTR. The
 * handlers are installed once; a second call only changes WAKE_FD.
 * 0 or -errno. */
int tp_signals_catch(int wake_fd);
/* The signal tp_signals_catch recorded first, or 0 (from any thread). */
int tp_signals_caught(void);
/* Interrupt THREAD's blocking call (it returns EINTR): SIGUSR1, caught
 * since tp_signals_catch. 0 or -errno (-EINVAL before tp_signals_catch). */
int tp_signals_interrupt(pthread_t thread);

/* The signal recorded since tp_signals_catch (or the last take), or 0, and
 * forget it: for a daemon that goes on after a request to stop (the lease
 * holder keeps a pool's lease while the pool is loaded). */
int tp_signals_take(void);
/* Start a thread that takes no signal (all blocked in its mask), so that
 * the process's signals reach the command's own thread: pthread_create's
 * 0 or its error number. */
int tp_thread_start_unsignalled(pthread_t *t, void *(*fn)(void *), void *arg);
/* Another process: 1 when PID is alive, else 0; ask it to end (SIGTERM):
 * 0 or -errno. */
int tp_process_alive(long pid);
int tp_process_stop(long pid);
/* The same, only when IS_IT(PID, ARG) says PID is the process meant (1;
 * it reads /proc/PID): 0 when it was asked to end, -ESRCH when it is not
 * running or IS_IT said 0 (nothing sent), else -errno. The process is held
 * by a pidfd from before IS_IT looks until the signal, so a pid that went
 * to another process meanwhile is never signalled (a kernel without
 * pidfds: the signal right after the look). */
int tp_process_stop_if(long pid, int (*is_it)(long pid, void *arg), void *arg);

#if defined(TP_TEST_HOOKS) && TP_TEST_HOOKS
/* Pause at the named STEP when a test asks for it (see above). */
void tp_test_pause(const char *step);
/* The same at the Nth time through a loop: the list names it STEP=N. */
void tp_test_pause_n(const char *step, unsigned long n);
/* 1 when a test asks STEP to fail (see above), else 0. */
int tp_test_fail(const char *step);
/* A count a test may set: the environment variable NAME when it holds a
 * positive number, else DFLT (the size of a step, how often to flush). */
uint64_t tp_test_count(const char *name, uint64_t dflt);
#else
/* N is type-checked, never evaluated (no increment happens). */
#define tp_test_pause(step) ((void)0)
#define tp_test_pause_n(step, n) ((void)(0 && (n)))
#define tp_test_fail(step) (0)
#define tp_test_count(name, dflt) (dflt)
#endif

#endif
