/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progress.h - one progress line for a long command.
 *
 * What a command that can run for more than a few seconds shows while it
 * works (tptools(7) PROGRESS): on a terminal, one line on standard error
 * redrawn in place ("tpsend: vol1: 1.20 GiB of 4.00 GiB (30%), 650 MiB/s,
 * 5 s left"); nothing when standard error is not a terminal, unless
 * --progress asks (then a plain line every few seconds); with
 * --progress=json one JSON object per line, for scripts:
 *
 *   {"command":"tpsend","object":"vol1","unit":"bytes","done":N,
 *    "total":M,"elapsed_s":E,"rate":R,"eta_s":S,"final":false}
 *
 * ("total" and "eta_s" are null when the total is not known; the last line
 * has "final":true and "ok" true or false.) The first line comes once the
 * work has run TP_PROGRESS_DELAY_MS, so quick commands stay silent; later
 * ones at most every TP_PROGRESS_TERM_MS on a terminal and every
 * TP_PROGRESS_LINE_MS otherwise.
 *
 * The library layers report through tp_progress_fn (DONE of TOTAL units;
 * TOTAL 0 when unknown) and never print; tools/ owns the display. */
#ifndef TP_BASE_PROGRESS_H
#define TP_BASE_PROGRESS_H

#include <stdint.h>

/* What lib/pool calls as work is done; CTX is the caller's. Called often
 * (every I/O or batch): it must be cheap, and tp_progress_update is. */
typedef void tp_progress_fn(void *ctx, uint64_t done, uint64_t total);

enum tp_progress_mode {
	TP_PROGRESS_AUTO = 0,	/* on a terminal: redrawn line; else nothing */
	TP_PROGRESS_NONE,	/* --progress=no, or -q in AUTO */
	TP_PROGRESS_TEXT,	/* --progress: lines even when not a terminal */
	TP_PROGRESS_JSON,	/* --progress=json */
};

enum tp_progress_unit {
	TP_PROGRESS_BYTES = 0,	/* printed in binary units, with a rate */
	TP_PROGRESS_ITEMS,	/* chunks, mappings, devices: a count */
};

#define TP_PROGRESS_DELAY_MS 500u
#define TP_PROGRESS_TERM_MS 250u
#define TP_PROGRESS_LINE_MS 5000u

struct tp_progress {
	/* Set by tp_progress_begin. */
	enum tp_progress_mode mode;	/* resolved: NONE, TEXT, JSON, or AUTO = tty */
	enum tp_progress_unit unit;
	const char *command, *object, *items;	/* items: "chunks", "mappings" */
	int fd;
	uint64_t start_ms, last_ms;
	uint64_t done, total;
	int shown;		/* a line is on the terminal (to be cleared) */
	unsigned nr_lines;
	/* Tests set these after tp_progress_begin. */
	uint64_t (*now_ms)(void);	/* NULL: CLOCK_MONOTONIC */
	int force_tty;		/* treat FD as a terminal */
};

/* Start a display on FD (normally STDERR_FILENO) for COMMAND working on
 * OBJECT (a pool or volume name; may be NULL). ITEMS names the unit when
 * UNIT is TP_PROGRESS_ITEMS ("chunks"). MODE is the parsed --progress
 * (AUTO when not given); QUIET (-q) turns AUTO into NONE. */
void tp_progress_begin(struct tp_progress *pg, enum tp_progress_mode mode, int quiet, int fd,
		       const char *command, const char *object, enum tp_progress_unit unit,
		       const char *items);

/* DONE of TOTAL (TOTAL 0: not known). Prints when due. */
void tp_progress_update(struct tp_progress *pg, uint64_t done, uint64_t total);

/* tp_progress_fn for a struct tp_progress *CTX (pass it to lib/pool). */
void tp_progress_cb(void *ctx, uint64_t done, uint64_t total);

/* The end: on a terminal the line is cleared (the command's own summary
 * follows); with --progress a last line; with json the final object, "ok"
 * from OK. Safe when nothing was shown. */
void tp_progress_end(struct tp_progress *pg, int ok);

/* Parse the value of --progress (NULL or "" when given bare: TEXT;
 * "yes", "no", "json", "auto"). Returns 0 or -EINVAL. */
int tp_progress_parse(const char *val, enum tp_progress_mode *mode);

#endif
