/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dmlog.c - see dmlog.h. */
#include "lib/base/dmlog.h"
#include "lib/base/log.h"

#include <libdevmapper.h>
#include <stdarg.h>
#include <stdio.h>

/* libdevmapper's levels (libdm's dm-logging.h): the low 3 bits are the
 * syslog-like level, 0x80 sends a warning to stderr instead of stdout. */
#define DMLOG_LEVEL(l) ((l) & 7)
#define DMLOG_STDERR 0x80
#define DMLOG_ERR 3
#define DMLOG_WARN 4

static int installed;
static int pass_through;	/* tp_dmlog_pass_through */
static char first_error[256];

static void dmlog(int level, const char *file, int line, int dm_errno_or_class, const char *f,
		  ...) TP_PRINTF(5, 6);
static void dmlog(int level, const char *file, int line, int dm_errno_or_class, const char *f,
		  ...)
{
	char msg[1024];
	va_list ap;

	(void)file;
	(void)line;
	(void)dm_errno_or_class;
	if (pass_through && DMLOG_LEVEL(level) <= DMLOG_WARN) {
		/* where libdevmapper's own log function puts it: errors and
		 * warnings to stderr, log_print's output to stdout */
		FILE *out = level == DMLOG_WARN ? stdout : stderr;

		va_start(ap, f);
		vfprintf(out, f, ap);
		va_end(ap);
		fputc('\n', out);
		return;
	}
	if (level == DMLOG_WARN) {	/* log_print: output, e.g. a dm_report table */
		/* whole, however long (a JSON report's line of every pool field
		 * passes any fixed buffer) */
		va_start(ap, f);
		vfprintf(stdout, f, ap);
		va_end(ap);
		putchar('\n');
		return;
	}
	va_start(ap, f);
	vsnprintf(msg, sizeof(msg), f, ap);
	va_end(ap);
	if (DMLOG_LEVEL(level) <= DMLOG_ERR && !first_error[0])
		snprintf(first_error, sizeof(first_error), "%.255s", msg);
	log_debug(TP_DBG_KERNEL, "libdevmapper[%d]: %s", DMLOG_LEVEL(level), msg);
}

void tp_dmlog_install(void)
{
	if (installed)
		return;
	dm_log_with_errno_init(dmlog);
	installed = 1;
}

void tp_dmlog_reclaim(void)
{
	if (installed)
		dm_log_with_errno_init(dmlog);
}

void tp_dmlog_pass_through(int on)
{
	pass_through = on;
}

void tp_dmlog_clear(void)
{
	first_error[0] = '\0';
}

const char *tp_dmlog_first_error(void)
{
	return first_error;
}
