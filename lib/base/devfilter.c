/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devfilter.c - see devfilter.h. */
#include "lib/base/devfilter.h"

#include "lib/base/config.h"
#include "lib/base/log.h"

#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FILTER_KEY "devices/filter"
#define FILTER_MAX_LEN 512
#define FILTER_MAX_COPIES 1024u

struct pattern {
	int accept;
	regex_t re;
	const char *text;
};

static struct {
	unsigned generation;
	int ready;
	unsigned n;
	struct pattern *p;
} cache;

/* Split TEXT into accept and the expression: 0, or -1 with WHY set. */
static int split(const char *text, int *accept, char **expr, char *why, size_t len)
{
	size_t l = strlen(text);
	char delim;

	*expr = NULL;
	if (l < 3 || (text[0] != 'a' && text[0] != 'r')) {
		snprintf(why, len, "takes patterns that start with a (accept) or r (reject), then "
			 "a delimiter, an expression and the delimiter: \"a|^/dev/md|\"");
		return -1;
	}
	delim = text[1];
	if (delim == '\\' || (delim >= 'a' && delim <= 'z') || (delim >= 'A' && delim <= 'Z') ||
	    (delim >= '0' && delim <= '9') || delim == ' ' || text[l - 1] != delim || l < 3 ||
	    memchr(text + 2, delim, l - 3)) {
		snprintf(why, len, "takes the expression between two equal delimiters that do not "
			 "appear inside it (e.g. | or /): \"a|^/dev/md|\"");
		return -1;
	}
	*accept = text[0] == 'a';
	if (!(*expr = strndup(text + 2, l - 3))) {
		snprintf(why, len, "is out of memory");
		return -1;
	}
	return 0;
}

/* How many copies of its parts the expression's repetitions can make:
 * glibc's regcomp copies a subexpression for each + and for each count of
 * a bound {m,n}, so stacked ones (a+++..., (a{9}){9}) multiply and a short
 * pattern can take gigabytes. Counted over the whole pattern (an upper
 * bound whatever the nesting); brackets and escapes hold no operators. */
static unsigned long copies(const char *e)
{
	unsigned long f = 1;

	for (const char *p = e; *p && f <= FILTER_MAX_COPIES; p++) {
		if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '[') {
			p += p[1] == '^' ? 2 : 1;
			if (*p == ']')
				p++;
			while (*p && *p != ']')
				p++;
			if (!*p)
				break;
		} else if (*p == '+') {
			f *= 2;
		} else if (*p == '{') {
			char *end;
			unsigned long m = strtoul(p + 1, &end, 10), n = m;
			if (*end == ',')
				n = end[1] == '}' ? m : strtoul(end + 1, &end, 10);
			f *= (n > m ? n : m) + 1;
		}
	}
	return f;
}

/* Short enough, and its repetitions within bounds, for regcomp. */
static int bounded(const char *expr)
{
	return strlen(expr) <= FILTER_MAX_LEN && copies(expr) <= FILTER_MAX_COPIES;
}

int tp_dev_filter_check(const char *text, char *why, size_t len)
{
	int accept, r;
	char *expr;
	regex_t re;

	if (split(text, &accept, &expr, why, len))
		return -1;
	if (!bounded(expr)) {
		snprintf(why, len, "has an expression too long or whose repetitions (+, {m,n}) "
			 "multiply past %u copies; write a simpler one", FILTER_MAX_COPIES);
		free(expr);
		return -1;
	}
	r = regcomp(&re, expr, REG_EXTENDED | REG_NOSUB);
	if (r) {
		char msg[128];
		regerror(r, &re, msg, sizeof(msg));
		snprintf(why, len, "has an expression that does not compile (%s)", msg);
	} else {
		regfree(&re);
	}
	free(expr);
	return r ? -1 : 0;
}

static void cache_drop(void)
{
	for (unsigned i = 0; i < cache.n; i++)
		regfree(&cache.p[i].re);
	free(cache.p);
	memset(&cache, 0, sizeof(cache));
}

/* The compiled list of the loaded configuration (checked when it was
 * loaded, so each pattern compiles). */
static void cache_fill(void)
{
	const char *const *items;
	unsigned n;

	if (cache.ready && cache.generation == tp_config_generation())
		return;
	cache_drop();
	cache.generation = tp_config_generation();
	cache.ready = 1;
	n = tp_config_list(FILTER_KEY, &items);
	if (!n || !(cache.p = calloc(n, sizeof(*cache.p))))
		return;
	for (unsigned i = 0; i < n; i++) {
		struct pattern *p = &cache.p[cache.n];
		char why[256], *expr;
		/* (the load checked each pattern; compiled here once more, to
		 * keep, and still only when it is bounded) */
		if (split(items[i], &p->accept, &expr, why, sizeof(why)))
			continue;
		if (bounded(expr) && !regcomp(&p->re, expr, REG_EXTENDED | REG_NOSUB)) {
			p->text = items[i];
			cache.n++;
		}
		free(expr);
	}
}

/* PATH's name with its links resolved into NAMES[1] (when it differs), once
 * (*DONE): for the scan root and the filter; the name to look at. */
static const char *resolve(const char *path, char *real, const char **names, int *done)
{
	if (!*done) {
		*done = 1;
		if (realpath(path, real) && strcmp(real, path))
			names[1] = real;
	}
	return names[1] ? names[1] : path;
}

#if defined(TP_TEST_HOOKS) && TP_TEST_HOOKS
/* The test build's scan root (devfilter.h): 1 when TP_TEST_SCAN_ROOT is
 * unset, or when the block device REAL (a resolved path) is a loop device
 * whose backing file lies under that directory; else 0. */
static int in_scan_root(const char *real)
{
	const char *root = getenv("TP_TEST_SCAN_ROOT"), *base;
	char rroot[PATH_MAX], sys[PATH_MAX], back[PATH_MAX];
	size_t n;
	FILE *f;

	if (!root || !*root)
		return 1;
	if (!realpath(root, rroot) || !(base = strrchr(real, '/')) || strncmp(base, "/loop", 5))
		return 0;
	snprintf(sys, sizeof(sys), "/sys/block/%s/loop/backing_file", base + 1);
	if (!(f = fopen(sys, "re")))
		return 0;
	n = fread(back, 1, sizeof(back) - 1, f);
	fclose(f);
	back[n] = '\0';
	n = strlen(rroot);
	return !strncmp(back, rroot, n) && back[n] == '/';
}
#else
#define in_scan_root(real) 1
#endif

/* tp_dev_filter_accepts, and with ROOT 0 tp_dev_filter_pattern_rejects
 * (the test build's scan root not looked at). */
static int accepts(const char *path, int root, char *why, size_t len)
{
	char real[PATH_MAX], where[PATH_MAX + 32];
	const char *names[2] = { path, NULL };
	struct stat st;
	int resolved = 0;

	if (stat(path, &st) || !S_ISBLK(st.st_mode))
		return 1;
	if (root && !in_scan_root(resolve(path, real, names, &resolved))) {
		if (why)
			snprintf(why, len, "(the test's scan root, TP_TEST_SCAN_ROOT=%s)",
				 getenv("TP_TEST_SCAN_ROOT"));
		log_debug(TP_DBG_DEV, "%s: outside the test's scan root", path);
		return 0;
	}
	cache_fill();
	if (!cache.n)
		return 1;
	resolve(path, real, names, &resolved);
	for (unsigned i = 0; i < cache.n; i++)
		for (unsigned j = 0; j < 2 && names[j]; j++) {
			if (regexec(&cache.p[i].re, names[j], 0, NULL, 0))
				continue;
			if (cache.p[i].accept)
				return 1;
			if (why)
				snprintf(why, len, "\"%s\" (%s)", cache.p[i].text,
					 tp_config_where(FILTER_KEY, where, sizeof(where)));
			log_debug(TP_DBG_DEV, "%s: rejected by devices/filter \"%s\"", path,
				  cache.p[i].text);
			return 0;
		}
	return 1;
}

int tp_dev_filter_accepts(const char *path, char *why, size_t len)
{
	return accepts(path, 1, why, len);
}

int tp_dev_filter_pattern_rejects(const char *path, char *why, size_t len)
{
	return !accepts(path, 0, why, len);
}
