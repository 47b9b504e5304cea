/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.h - messages for people, and debug traces by class.
 *
 * Owns: the global verbosity and debug mask, and the program name prefix.
 * Classes: error (always shown unless -qq), warn (shown unless -q), info
 * (shown with -v), debug (shown when its class is in the mask).
 * The debug mask comes from TPTOOLS_DEBUG: a comma list of class names
 * (io,bm,tm,sm,btree,thin,vg,dev,pool,kernel,cli) or "all", or a number.
 *
 * Convention (git's error()): log_error() returns -1 so a tool can write
 * `return log_error(...)`; library code logs once where an error is found,
 * naming the object and what to do next, then passes -errno up. */
#ifndef TP_BASE_LOG_H
#define TP_BASE_LOG_H

#include "lib/base/compiler.h"

enum tp_debug_class {
	TP_DBG_IO = 1u << 0,
	TP_DBG_BM = 1u << 1,
	TP_DBG_TM = 1u << 2,
	TP_DBG_SM = 1u << 3,
	TP_DBG_BTREE = 1u << 4,
	TP_DBG_THIN = 1u << 5,
	TP_DBG_VG = 1u << 6,
	TP_DBG_DEV = 1u << 7,
	TP_DBG_POOL = 1u << 8,
	TP_DBG_KERNEL = 1u << 9,
	TP_DBG_CLI = 1u << 10,
	TP_DBG_ALL = 0xffffffffu,
};

/* verbosity: -1 per -q, +1 per -v; 0 is the default (errors and warnings). */
void tp_log_init(const char *progname);
/* The command line this process runs, ARGC words of ARGV, for records
 * that say what made them (the VG backups): one line, a word with
 * characters other than letters, digits and _./,:=+@%- in double quotes,
 * control characters as '?', at most 1 KiB ("..." at the cut). Set by
 * the dispatcher; tp_log_command is "" until then. */
void tp_log_set_command(int argc, const char *const *argv);
const char *tp_log_command(void);
void tp_log_set_verbosity(int v);
int tp_log_verbosity(void);
unsigned tp_debug_mask(void);

int log_error(const char *fmt, ...) TP_PRINTF(1, 2);
/* The plural ending of a count in a message: "" for 1, else "s" ("%llu
 * chunk%s", n, tp_plural(n)): no "1 chunks". */
static inline const char *tp_plural(unsigned long long n)
{
	return n == 1 ? "" : "s";
}
/* How many errors were logged so far (shown or not). */
unsigned tp_log_error_count(void);
void log_warn(const char *fmt, ...) TP_PRINTF(1, 2);
void log_info(const char *fmt, ...) TP_PRINTF(1, 2);
/* An internal invariant broke (not the user's input, not the system):
 * "error: internal error at FILE:LINE: ...; this is a bug in tptools,
 * please report it", always shown. Returns -ENOTRECOVERABLE, the errno
 * the library uses for nothing else, which tp_exit_from_errno maps to
 * TP_EXIT_BUG (70), and fails every later write of the process
 * (io_fail_all_writes). Use TP_BUG(fmt, ...), which names the call site. */
int log_bug(const char *file, int line, const char *fmt, ...) TP_PRINTF(3, 4);
#define TP_BUG(...) log_bug(__FILE__, __LINE__, __VA_ARGS__)

/* Something done that people should hear of (a daemon's actions): shown
 * like a warning, without the tag; LOG_NOTICE in the system log. */
void log_notice(const char *fmt, ...) TP_PRINTF(1, 2);

/* Daemons: also send every message to syslog (the journal) under the
 * program name, and to stderr only when STDERR_TOO. */
void tp_log_syslog(int stderr_too);
/* Also write every critical message (log_crit) to the kernel's log
 * (/dev/kmsg), as "PROG: message": what a host that lost a shared
 * pool's lease says even without a syslog daemon. */
void tp_log_kmsg(void);
/* A loss the host must hear of at once (a shared pool fenced): shown
 * with "critical: ", LOG_CRIT in the system log, and in the kernel's log
 * after tp_log_kmsg; never silenced by -q. */
void log_crit(const char *fmt, ...) TP_PRINTF(1, 2);
void log_debug_class(unsigned cls, const char *fmt, ...) TP_PRINTF(2, 3);

#define log_debug(cls, ...)                                   \
	do {                                                  \
		if (tp_debug_mask() & (cls))                  \
			log_debug_class((cls), __VA_ARGS__);  \
	} while (0)

/* Redirect messages to a buffer (tests). NULL restores stderr. */
struct tp_log_capture {
	char buf[8192];
	size_t len;
};
void tp_log_capture(struct tp_log_capture *cap);
/* The same for a quiet stretch inside whatever captures now (a test's
 * capture stays, untouched): returns the capture to give back to
 * tp_log_capture_pop. */
struct tp_log_capture *tp_log_capture_push(struct tp_log_capture *cap);
void tp_log_capture_pop(struct tp_log_capture *old);
/* Whether messages go to a capture now (not to stderr): a reader that
 * remembers a warning for later (the VG slots' memo) says it again when
 * it was not seen. */
int tp_log_capturing(void);

#endif
