/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The progress line (lib/base/progress): when it appears, how often, what
 * it says in each mode, and that it is cleared. A pipe stands for
 * standard error and a fake clock for time. */
#include "lib/base/progress.h"
#include "test/unit/tp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static uint64_t fake_now;
static uint64_t clock_fn(void) { return fake_now; }

struct pipe_pg {
	int fd[2];
	struct tp_progress pg;
};

static void start(struct pipe_pg *p, enum tp_progress_mode mode, int quiet, int tty,
		  enum tp_progress_unit unit)
{
	CU_ASSERT_FATAL(pipe(p->fd) == 0);
	CU_ASSERT_FATAL(fcntl(p->fd[0], F_SETFL, O_NONBLOCK) == 0);
	tp_progress_begin(&p->pg, mode, quiet, p->fd[1], "tpsend", "vol1", unit, "chunks");
	fake_now = 1000000;
	p->pg.now_ms = clock_fn;
	p->pg.start_ms = fake_now;
	p->pg.force_tty = tty;
}

/* What the display wrote since the last call, into BUF. */
static const char *drain(struct pipe_pg *p, char *buf, size_t len)
{
	ssize_t n = read(p->fd[0], buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void finish(struct pipe_pg *p)
{
	close(p->fd[0]);
	close(p->fd[1]);
}

static void test_quiet_at_first(void)
{
	struct pipe_pg p;
	char buf[4096];

	start(&p, TP_PROGRESS_TEXT, 0, 1, TP_PROGRESS_BYTES);
	fake_now += TP_PROGRESS_DELAY_MS - 1;
	tp_progress_update(&p.pg, 1u << 20, 4u << 20);
	CU_ASSERT_STRING_EQUAL(drain(&p, buf, sizeof(buf)), "");
	fake_now += 1;
	tp_progress_update(&p.pg, 2u << 20, 4u << 20);
	drain(&p, buf, sizeof(buf));
	CU_ASSERT(buf[0] == '\r');
	CU_ASSERT(strstr(buf, "tpsend: vol1: 2 MiB of 4 MiB (50%)") != NULL);
	CU_ASSERT(strstr(buf, "MiB/s") != NULL);
	CU_ASSERT(strstr(buf, "s left") != NULL);
	/* Not again before the interval. */
	fake_now += TP_PROGRESS_TERM_MS - 1;
	tp_progress_update(&p.pg, 3u << 20, 4u << 20);
	CU_ASSERT_STRING_EQUAL(drain(&p, buf, sizeof(buf)), "");
	fake_now += 1;
	tp_progress_update(&p.pg, 3u << 20, 4u << 20);
	CU_ASSERT(strstr(drain(&p, buf, sizeof(buf)), "(75%)") != NULL);
	/* The end clears the redrawn line before the last plain one. */
	tp_progress_end(&p.pg, 1);
	drain(&p, buf, sizeof(buf));
	CU_ASSERT(strncmp(buf, "\r\033[K", 4) == 0);
	CU_ASSERT(strchr(buf, '\n') != NULL);
	finish(&p);
}

static void test_auto_not_a_terminal(void)
{
	struct pipe_pg p;
	char buf[4096];

	start(&p, TP_PROGRESS_AUTO, 0, 0, TP_PROGRESS_BYTES);
	for (int i = 1; i <= 20; i++) {
		fake_now += 1000;
		tp_progress_update(&p.pg, (uint64_t)i << 20, 20u << 20);
	}
	tp_progress_end(&p.pg, 1);
	CU_ASSERT_STRING_EQUAL(drain(&p, buf, sizeof(buf)), "");
	finish(&p);
}

static void test_auto_terminal_and_quiet(void)
{
	struct pipe_pg p;
	char buf[4096];

	start(&p, TP_PROGRESS_AUTO, 0, 1, TP_PROGRESS_ITEMS);
	fake_now += 600;
	tp_progress_update(&p.pg, 10, 40);
	CU_ASSERT(strstr(drain(&p, buf, sizeof(buf)), "10 of 40 chunks (25%)") != NULL);
	tp_progress_end(&p.pg, 1);
	CU_ASSERT_STRING_EQUAL(drain(&p, buf, sizeof(buf)), "\r\033[K");
	finish(&p);

	start(&p, TP_PROGRESS_AUTO, 1, 1, TP_PROGRESS_ITEMS);	/* -q */
	fake_now += 600;
	tp_progress_update(&p.pg, 10, 40);
	tp_progress_end(&p.pg, 1);
	CU_ASSERT_STRING_EQUAL(drain(&p, buf, sizeof(buf)), "");
	finish(&p);
}

static void test_text_on_a_pipe(void)
{
	struct pipe_pg p;
	char buf[8192];
	int lines = 0;

	start(&p, TP_PROGRESS_TEXT, 1, 0, TP_PROGRESS_BYTES);	/* asked: -q does not stop it */
	for (int i = 1; i <= 20; i++) {
		fake_now += 1000;
		tp_progress_update(&p.pg, (uint64_t)i << 20, 0);
	}
	tp_progress_end(&p.pg, 1);
	drain(&p, buf, sizeof(buf));
	CU_ASSERT(strchr(buf, '\r') == NULL);
	CU_ASSERT(strchr(buf, '\033') == NULL);
	for (const char *s = buf; (s = strchr(s, '\n')); s++)
		lines++;
	/* One line every TP_PROGRESS_LINE_MS over 20 s, and the last. */
	CU_ASSERT(lines >= 4 && lines <= 6);
	CU_ASSERT(strstr(buf, "tpsend: vol1: 20 MiB, ") != NULL);	/* no total: no "of" */
	finish(&p);
}

static void test_json(void)
{
	struct pipe_pg p;
	char buf[8192];

	start(&p, TP_PROGRESS_JSON, 0, 0, TP_PROGRESS_BYTES);
	fake_now += 2000;
	tp_progress_update(&p.pg, 1000, 4000);
	drain(&p, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "{\"command\":\"tpsend\",\"object\":\"vol1\",\"unit\":\"bytes\","
				    "\"done\":1000,\"total\":4000,\"elapsed_s\":2.0,\"rate\":500,"
				    "\"eta_s\":6,\"final\":false}\n");
	fake_now += 1000;
	tp_progress_end(&p.pg, 0);
	drain(&p, buf, sizeof(buf));
	CU_ASSERT(strstr(buf, "\"final\":true,\"ok\":false}\n") != NULL);
	/* Ended: later updates print nothing. */
	tp_progress_update(&p.pg, 2000, 4000);
	CU_ASSERT_STRING_EQUAL(drain(&p, buf, sizeof(buf)), "");
	finish(&p);
}

static void test_parse(void)
{
	enum tp_progress_mode m;

	CU_ASSERT(tp_progress_parse(NULL, &m) == 0 && m == TP_PROGRESS_TEXT);
	CU_ASSERT(tp_progress_parse("yes", &m) == 0 && m == TP_PROGRESS_TEXT);
	CU_ASSERT(tp_progress_parse("no", &m) == 0 && m == TP_PROGRESS_NONE);
	CU_ASSERT(tp_progress_parse("json", &m) == 0 && m == TP_PROGRESS_JSON);
	CU_ASSERT(tp_progress_parse("auto", &m) == 0 && m == TP_PROGRESS_AUTO);
	CU_ASSERT(tp_progress_parse("JSON", &m) == -EINVAL);
	CU_ASSERT(tp_progress_parse("1", &m) == -EINVAL);
}

TP_TEST_SUITE(progress, NULL, NULL,
	      { "silent for the first half second, then at most every interval",
		test_quiet_at_first },
	      { "default: nothing when not a terminal", test_auto_not_a_terminal },
	      { "default on a terminal: redrawn and cleared; -q silences", test_auto_terminal_and_quiet },
	      { "--progress on a pipe: plain lines every few seconds", test_text_on_a_pipe },
	      { "--progress=json: one object per line, a final one", test_json },
	      { "--progress values", test_parse })
