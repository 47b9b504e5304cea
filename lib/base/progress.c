/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progress.c - one progress line for a long command (progress.h). */
#include "lib/base/progress.h"

#include "lib/base/units.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t now(const struct tp_progress *pg)
{
	return pg->now_ms ? pg->now_ms() : mono_ms();
}

void tp_progress_begin(struct tp_progress *pg, enum tp_progress_mode mode, int quiet, int fd,
		       const char *command, const char *object, enum tp_progress_unit unit,
		       const char *items)
{
	memset(pg, 0, sizeof(*pg));
	if (mode == TP_PROGRESS_AUTO && quiet)
		mode = TP_PROGRESS_NONE;
	pg->mode = mode;
	pg->unit = unit;
	pg->command = command;
	pg->object = object;
	pg->items = items ? items : "items";
	pg->fd = fd;
	pg->start_ms = mono_ms();
}

static int on_tty(const struct tp_progress *pg)
{
	return pg->force_tty || isatty(pg->fd);
}

/* Write all of BUF (a progress line is never worth failing a command). */
static void put(const struct tp_progress *pg, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(pg->fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

static void fmt_amount(const struct tp_progress *pg, uint64_t v, char *buf, size_t len)
{
	if (pg->unit == TP_PROGRESS_BYTES)
		tp_size_format(v, 'h', buf, len);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

static void fmt_secs(uint64_t s, char *buf, size_t len)
{
	if (s < 120)
		snprintf(buf, len, "%" PRIu64 " s", s);
	else if (s < 7200)
		snprintf(buf, len, "%" PRIu64 " min", (s + 30) / 60);
	else
		snprintf(buf, len, "%" PRIu64 " h %" PRIu64 " min", s / 3600, (s % 3600) / 60);
}

/* Rate in units per second, from the start (steadier than per interval). */
static double rate_of(const struct tp_progress *pg, uint64_t t)
{
	uint64_t el = t - pg->start_ms;

	return el ? (double)pg->done * 1000.0 / (double)el : 0.0;
}

static void json_str(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	if (!s) {
		snprintf(buf, len, "null");
		return;
	}
	if (o + 1 < len)
		buf[o++] = '"';
	for (; *s && o + 8 < len; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			o += (size_t)snprintf(buf + o, len - o, "\\%c", ch);
		else if (ch < 0x20)
			o += (size_t)snprintf(buf + o, len - o, "\\u%04x", ch);
		else
			buf[o++] = (char)ch;
	}
	if (o + 1 < len)
		buf[o++] = '"';
	buf[o] = '\0';
}

static void print_json(struct tp_progress *pg, uint64_t t, int final, int ok)
{
	char line[1024], cmd[256], obj[512], items[64], total[32], eta[32];
	double rate = rate_of(pg, t);

	json_str(cmd, sizeof(cmd), pg->command);
	json_str(obj, sizeof(obj), pg->object);
	json_str(items, sizeof(items), pg->unit == TP_PROGRESS_BYTES ? "bytes" : pg->items);
	if (pg->total)
		snprintf(total, sizeof(total), "%" PRIu64, pg->total);
	else
		snprintf(total, sizeof(total), "null");
	if (pg->total && rate > 0 && pg->done <= pg->total)
		snprintf(eta, sizeof(eta), "%.0f", (double)(pg->total - pg->done) / rate);
	else
		snprintf(eta, sizeof(eta), final && pg->total ? "0" : "null");
	int n = snprintf(line, sizeof(line),
			 "{\"command\":%s,\"object\":%s,\"unit\":%s,\"done\":%" PRIu64
			 ",\"total\":%s,\"elapsed_s\":%.1f,\"rate\":%.0f,\"eta_s\":%s,"
			 "\"final\":%s%s}\n",
			 cmd, obj, items, pg->done, total, (double)(t - pg->start_ms) / 1000.0,
			 rate, eta, final ? "true" : "false",
			 final ? (ok ? ",\"ok\":true" : ",\"ok\":false") : "");
	if (n > 0)
		put(pg, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

static void print_text(struct tp_progress *pg, uint64_t t, int redraw)
{
	char line[512], done[40], total[40], rate_s[40], eta[40];
	double rate = rate_of(pg, t);
	size_t o = 0;

	fmt_amount(pg, pg->done, done, sizeof(done));
	o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%s: %s%s%s", redraw ? "\r" : "",
			      pg->command, pg->object ? pg->object : "", pg->object ? ": " : "",
			      done);
	if (pg->total) {
		unsigned pct = pg->done >= pg->total ? 100u
						     : (unsigned)(pg->done * 100u / pg->total);

		fmt_amount(pg, pg->total, total, sizeof(total));
		o += (size_t)snprintf(line + o, sizeof(line) - o, " of %s%s%s (%u%%)", total,
				      pg->unit == TP_PROGRESS_ITEMS ? " " : "",
				      pg->unit == TP_PROGRESS_ITEMS ? pg->items : "", pct);
	} else if (pg->unit == TP_PROGRESS_ITEMS) {
		o += (size_t)snprintf(line + o, sizeof(line) - o, " %s", pg->items);
	}
	if (pg->unit == TP_PROGRESS_BYTES && rate > 0) {
		tp_size_format((uint64_t)rate, 'h', rate_s, sizeof(rate_s));
		o += (size_t)snprintf(line + o, sizeof(line) - o, ", %s/s", rate_s);
	}
	if (pg->total && rate > 0 && pg->done < pg->total) {
		fmt_secs((uint64_t)((double)(pg->total - pg->done) / rate + 0.5), eta, sizeof(eta));
		o += (size_t)snprintf(line + o, sizeof(line) - o, ", %s left", eta);
	}
	if (o >= sizeof(line) - 8)
		o = sizeof(line) - 8;
	/* Erase what a longer previous line left behind. */
	o += (size_t)snprintf(line + o, sizeof(line) - o, "%s", redraw ? "\033[K" : "\n");
	put(pg, line, o);
}

static void show(struct tp_progress *pg, uint64_t t)
{
	switch (pg->mode) {
	case TP_PROGRESS_JSON:
		print_json(pg, t, 0, 0);
		break;
	case TP_PROGRESS_TEXT:
		if (on_tty(pg)) {
			print_text(pg, t, 1);
			pg->shown = 1;
		} else {
			print_text(pg, t, 0);
		}
		break;
	case TP_PROGRESS_AUTO:
		print_text(pg, t, 1);
		pg->shown = 1;
		break;
	case TP_PROGRESS_NONE:
		break;
	}
	pg->last_ms = t;
	pg->nr_lines++;
}

void tp_progress_update(struct tp_progress *pg, uint64_t done, uint64_t total)
{
	uint64_t t, every;

	if (!pg || pg->mode == TP_PROGRESS_NONE)
		return;
	pg->done = done;
	pg->total = total;
	t = now(pg);
	if (t - pg->start_ms < TP_PROGRESS_DELAY_MS)
		return;
	if (pg->mode == TP_PROGRESS_AUTO && !on_tty(pg)) {
		pg->mode = TP_PROGRESS_NONE;	/* decided once: not a terminal */
		return;
	}
	every = pg->mode == TP_PROGRESS_JSON ? 1000u
		: (pg->mode == TP_PROGRESS_AUTO || on_tty(pg)) ? TP_PROGRESS_TERM_MS
							      : TP_PROGRESS_LINE_MS;
	if (pg->nr_lines && t - pg->last_ms < every)
		return;
	show(pg, t);
}

void tp_progress_cb(void *ctx, uint64_t done, uint64_t total)
{
	tp_progress_update(ctx, done, total);
}

void tp_progress_end(struct tp_progress *pg, int ok)
{
	if (!pg)
		return;
	switch (pg->mode) {
	case TP_PROGRESS_JSON:
		print_json(pg, now(pg), 1, ok);
		break;
	case TP_PROGRESS_TEXT:
		if (pg->shown)
			put(pg, "\r\033[K", 4);
		if (pg->nr_lines || !on_tty(pg))
			print_text(pg, now(pg), 0);
		break;
	case TP_PROGRESS_AUTO:
	case TP_PROGRESS_NONE:
		if (pg->shown)
			put(pg, "\r\033[K", 4);
		break;
	}
	pg->shown = 0;
	pg->mode = TP_PROGRESS_NONE;
}

int tp_progress_parse(const char *val, enum tp_progress_mode *mode)
{
	if (!val || !*val || !strcmp(val, "yes"))
		*mode = TP_PROGRESS_TEXT;
	else if (!strcmp(val, "no"))
		*mode = TP_PROGRESS_NONE;
	else if (!strcmp(val, "json"))
		*mode = TP_PROGRESS_JSON;
	else if (!strcmp(val, "auto"))
		*mode = TP_PROGRESS_AUTO;
	else
		return -EINVAL;
	return 0;
}
