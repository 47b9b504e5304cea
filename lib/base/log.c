/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.c - see log.h. */
#include "lib/base/log.h"
#include "lib/base/exitcodes.h"
#include "lib/base/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>

static const char *prog = "tp";
static int verbosity;
static unsigned debug_mask;
static int debug_loaded;
static struct tp_log_capture *capture;

static const struct {
	const char *name;
	unsigned bit;
} debug_names[] = {
	{ "io", TP_DBG_IO },	   { "bm", TP_DBG_BM },	      { "tm", TP_DBG_TM },
	{ "sm", TP_DBG_SM },	   { "btree", TP_DBG_BTREE }, { "thin", TP_DBG_THIN },
	{ "vg", TP_DBG_VG },	   { "dev", TP_DBG_DEV },     { "pool", TP_DBG_POOL },
	{ "kernel", TP_DBG_KERNEL }, { "cli", TP_DBG_CLI },   { "all", TP_DBG_ALL },
};

/* Parse a TPTOOLS_DEBUG value; unknown names are ignored with a warning. */
static unsigned tp_debug_parse(const char *spec)
{
	unsigned mask = 0;
	char *copy, *tok, *save = NULL;

	if (!spec || !*spec)
		return 0;
	if (spec[0] >= '0' && spec[0] <= '9')
		return (unsigned)strtoul(spec, NULL, 0);
	copy = strdup(spec);
	if (!copy)
		return 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;
		for (i = 0; i < TP_ARRAY_SIZE(debug_names); i++)
			if (!strcasecmp(tok, debug_names[i].name))
				break;
		if (i == TP_ARRAY_SIZE(debug_names))
			log_warn("TPTOOLS_DEBUG: unknown debug class '%s' ignored", tok);
		else
			mask |= debug_names[i].bit;
	}
	free(copy);
	return mask;
}

void tp_log_init(const char *progname)
{
	if (progname)
		prog = progname;
	debug_mask = tp_debug_parse(getenv("TPTOOLS_DEBUG"));
	debug_loaded = 1;
}

static char command[1024];

/* Append C to COMMAND at *N, leaving room for "..."; 0 when full. */
static int command_add(size_t *n, char c)
{
	if (*n + 1 > sizeof(command) - 4)
		return 0;
	command[(*n)++] = c;
	return 1;
}

void tp_log_set_command(int argc, const char *const *argv)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_./,:=+@%-";
	size_t n = 0;
	int ok = 1;

	for (int i = 0; i < argc && ok; i++) {
		const char *w = argv[i];
		int quote = !*w || strspn(w, plain) != strlen(w);

		if (i)
			ok = command_add(&n, ' ');
		if (ok && quote)
			ok = command_add(&n, '"');
		for (const unsigned char *c = (const unsigned char *)w; ok && *c; c++) {
			if (quote && (*c == '"' || *c == '\\'))
				ok = command_add(&n, '\\');
			if (ok)
				ok = command_add(&n, *c < 0x20 || *c == 0x7f ? '?' : (char)*c);
		}
		if (ok && quote)
			ok = command_add(&n, '"');
	}
	if (!ok) {
		memcpy(command + n, "...", 3);
		n += 3;
	}
	command[n] = '\0';
}

const char *tp_log_command(void)
{
	return command;
}

void tp_log_set_verbosity(int v) { verbosity = v; }
int tp_log_verbosity(void) { return verbosity; }

unsigned tp_debug_mask(void)
{
	if (!debug_loaded) {
		debug_loaded = 1;
		debug_mask = tp_debug_parse(getenv("TPTOOLS_DEBUG"));
	}
	return debug_mask;
}

void tp_log_capture(struct tp_log_capture *cap)
{
	capture = cap;
	if (cap) {
		cap->len = 0;
		cap->buf[0] = '\0';
	}
}

struct tp_log_capture *tp_log_capture_push(struct tp_log_capture *cap)
{
	struct tp_log_capture *old = capture;

	tp_log_capture(cap);
	return old;
}

void tp_log_capture_pop(struct tp_log_capture *old)
{
	capture = old;
}

int tp_log_capturing(void)
{
	return capture != NULL;
}

static int to_syslog, to_stderr = 1, to_kmsg;

void tp_log_syslog(int stderr_too)
{
	openlog(prog, LOG_PID | LOG_CONS, LOG_DAEMON);
	to_syslog = 1;
	to_stderr = stderr_too;
}

void tp_log_kmsg(void)
{
	to_kmsg = 1;
}

#define CRIT_TAG "critical: "

/* A critical line into the kernel's log (the journal has it, and so has a
 * host without a syslog daemon), as "PROG: LINE" at level 2. */
static void kmsg(const char *line)
{
	char buf[2048 + 64];
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	snprintf(buf, sizeof(buf), "<2>%s: %s", prog, line);
	ssize_t w = write(fd, buf, strlen(buf));
	(void)w;	/* a kernel log that refuses: nowhere left to say it */
	close(fd);
}

static int priority(const char *tag)
{
	switch (tag[0]) {
	case 'c': return LOG_CRIT;
	case 'e': return LOG_ERR;
	case 'w': return LOG_WARNING;
	case '[': return LOG_DEBUG;
	default: return LOG_NOTICE;
	}
}

static void emit(const char *tag, const char *fmt, va_list ap)
{
	char line[2048];
	int n = vsnprintf(line, sizeof(line), fmt, ap);

	if (n < 0)
		return;
	if (to_kmsg && !strcmp(tag, CRIT_TAG))
		kmsg(line);
	if (to_syslog)
		syslog(priority(tag), "%s%s", tag, line);
	if (to_syslog && !to_stderr)
		return;
	if (capture) {
		int w = snprintf(capture->buf + capture->len, sizeof(capture->buf) - capture->len,
				 "%s%s\n", tag, line);
		if (w > 0)
			capture->len = TP_MIN(capture->len + (size_t)w, sizeof(capture->buf) - 1);
		return;
	}
	fflush(stdout);
	fprintf(stderr, "%s: %s%s\n", prog, tag, line);
}

static unsigned nr_errors;

unsigned tp_log_error_count(void)
{
	return nr_errors;
}

int log_error(const char *fmt, ...)
{
	va_list ap;

	nr_errors++;
	if (verbosity < -1)
		return -1;
	va_start(ap, fmt);
	emit("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

int log_bug(const char *file, int line, const char *fmt, ...)
{
	char what[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	log_error("internal error at %s:%d: %s; this is a bug in tptools, please report it",
		  file, line, what);
	io_fail_all_writes();	/* what this process knows can no longer be trusted */
	return -ENOTRECOVERABLE;
}

void log_crit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(CRIT_TAG, fmt, ap);
	va_end(ap);
}

void log_notice(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 0)
		return;
	va_start(ap, fmt);
	emit("", fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 0)
		return;
	va_start(ap, fmt);
	emit("warning: ", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 1)
		return;
	va_start(ap, fmt);
	emit("", fmt, ap);
	va_end(ap);
}

void log_debug_class(unsigned cls, const char *fmt, ...)
{
	va_list ap;
	const char *name = "debug";
	size_t i;

	for (i = 0; i < TP_ARRAY_SIZE(debug_names) - 1; i++)
		if (debug_names[i].bit == cls)
			name = debug_names[i].name;
	va_start(ap, fmt);
	{
		char tag[32];
		snprintf(tag, sizeof(tag), "[%s] ", name);
		emit(tag, fmt, ap);
	}
	va_end(ap);
}

