/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config.c - see config.h.
 *
 * libdevmapper parses the file; it does not keep where a node came from,
 * so a small scan of the text (find_lines) records the line of every
 * `key =` in order, and the n-th node of a path gets the n-th line of it.
 * The scan only positions messages: what a value is, is dm_config's. */
#include "lib/base/config.h"

#include "lib/base/dmlog.h"
#include "lib/base/log.h"
#include "lib/base/paths.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <libdevmapper.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define CONF_NAME "tptools.conf"
#define CONF_MAX_BYTES (1u << 20)
#define CONF_MAX_DEPTH 8

struct slot {
	int set;
	unsigned line;
	unsigned n;
	char **items;
};

static struct {
	const struct tp_conf_key *keys;
	unsigned nkeys;
	struct slot *slot;
	char *file;
	int present;
} cf;

struct line_of {
	char *path;
	unsigned line;
	int used;
	size_t value;	/* `name =`: the offset of what follows the =; 0 for `name {` */
};

static void slots_free(struct slot *s, unsigned n)
{
	for (unsigned i = 0; s && i < n; i++) {
		for (unsigned j = 0; j < s[i].n; j++)
			free(s[i].items[j]);
		free(s[i].items);
	}
	free(s);
}

static unsigned generation;

void tp_config_unload(void)
{
	slots_free(cf.slot, cf.nkeys);
	free(cf.file);
	memset(&cf, 0, sizeof(cf));
	generation++;
}

unsigned tp_config_generation(void)
{
	return generation;
}

static int find_key(const struct tp_conf_key *keys, unsigned n, const char *path)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(keys[i].path, path))
			return (int)i;
	return -1;
}

static int is_section(const struct tp_conf_key *keys, unsigned n, const char *name)
{
	size_t l = strlen(name);

	for (unsigned i = 0; i < n; i++)
		if (!strncmp(keys[i].path, name, l) && keys[i].path[l] == '/')
			return 1;
	return 0;
}

/* The line of every `name =` and `name {` of TEXT with its section path,
 * in order. */
static int find_lines(const char *t, size_t len, struct line_of **out, unsigned *count)
{
	const char *stack[CONF_MAX_DEPTH];
	size_t stack_len[CONF_MAX_DEPTH];
	unsigned depth = 0, line = 1, n = 0, cap = 0;
	struct line_of *v = NULL;
	size_t i = 0;

	while (i < len) {
		char c = t[i];
		if (c == '\n') {
			line++;
			i++;
		} else if (c == '#') {
			while (i < len && t[i] != '\n')
				i++;
		} else if (c == '"') {
			for (i++; i < len && t[i] != '"'; i++) {
				if (t[i] == '\\' && i + 1 < len)
					i++;
				if (t[i] == '\n')
					line++;
			}
			i++;
		} else if (c == '}') {
			if (depth)
				depth--;
			i++;
		} else if (isalnum((unsigned char)c) || c == '_') {
			size_t s = i, j;
			unsigned at = line;
			while (i < len && (isalnum((unsigned char)t[i]) || strchr("_-.", t[i])))
				i++;
			for (j = i; j < len && (t[j] == ' ' || t[j] == '\t' || t[j] == '\r' ||
						t[j] == '\n');
			     j++)
				;
			if (j < len && (t[j] == '=' || t[j] == '{')) {
				size_t plen = i - s + 1;
				char *p;
				for (unsigned d = 0; d < depth; d++)
					plen += stack_len[d] + 1;
				if (n == cap) {
					struct line_of *nv;
					cap = cap ? 2 * cap : 16;
					if (!(nv = realloc(v, cap * sizeof(*v))))
						goto nomem;
					v = nv;
				}
				if (!(p = malloc(plen)))
					goto nomem;
				p[0] = '\0';
				for (unsigned d = 0; d < depth; d++) {
					strncat(p, stack[d], stack_len[d]);
					strcat(p, "/");
				}
				strncat(p, t + s, i - s);
				v[n++] = (struct line_of){ p, at, 0, t[j] == '=' ? j + 1 : 0 };
				if (t[j] == '{' && depth < CONF_MAX_DEPTH) {
					stack[depth] = t + s;
					stack_len[depth++] = i - s;
				}
			}
		} else {
			i++;
		}
	}
	*out = v;
	*count = n;
	return 0;
nomem:
	for (unsigned k = 0; k < n; k++)
		free(v[k].path);
	free(v);
	return -ENOMEM;
}

/* The next unused line recorded for PATH (0 when the scan has none). */
static unsigned line_for(struct line_of *v, unsigned n, const char *path)
{
	for (unsigned i = 0; i < n; i++)
		if (!v[i].used && !strcmp(v[i].path, path)) {
			v[i].used = 1;
			return v[i].line;
		}
	return 0;
}

struct loader {
	const struct tp_conf_key *keys;
	unsigned nkeys;
	struct slot *slot;
	const char *file;
	struct line_of *lines;
	unsigned nlines;
	int bad;
};

static void TP_PRINTF(3, 4) problem(struct loader *ld, unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		log_error("%s:%u: %s", ld->file, line, msg);
	else
		log_error("%s: %s", ld->file, msg);
	ld->bad = 1;
}

static int add_item(struct slot *s, const char *text)
{
	char **items = realloc(s->items, (s->n + 1) * sizeof(*items));

	if (!items)
		return -ENOMEM;
	s->items = items;
	if (!(items[s->n] = strdup(text)))
		return -ENOMEM;
	s->n++;
	return 0;
}

static int check_item(struct loader *ld, const struct tp_conf_key *k, unsigned line,
		      const char *text)
{
	char why[256] = "";

	if (k->check && k->check(k, text, why, sizeof(why))) {
		problem(ld, line, "%s %s, not \"%s\"", k->path, why[0] ? why : "refuses the value",
			text);
		return -1;
	}
	return 0;
}

/* One `key = value` of section SEC. */
static int load_value(struct loader *ld, const char *sec, const struct dm_config_node *n)
{
	char path[256], num[32];
	const struct tp_conf_key *k;
	const struct dm_config_value *v;
	struct slot *s;
	unsigned line;
	int i;

	snprintf(path, sizeof(path), "%s/%s", sec, n->key);
	line = line_for(ld->lines, ld->nlines, path);
	if (!n->v) {
		problem(ld, line, "%s is a section inside a section; settings are `key = value` "
			"lines of one level (`tpconfig --list` shows them)", path);
		return 0;
	}
	if ((i = find_key(ld->keys, ld->nkeys, path)) < 0) {
		problem(ld, line, "%s is not a setting (`tpconfig --list` shows them)", path);
		return 0;
	}
	k = &ld->keys[i];
	s = &ld->slot[i];
	if (s->set) {
		problem(ld, line, "%s is set twice (first on line %u); keep one", path, s->line);
		return 0;
	}
	s->set = 1;
	s->line = line;
	v = n->v;
	switch (k->type) {
	case TP_CONF_STRING:
		if (v->next || (v->type != DM_CFG_STRING && v->type != DM_CFG_INT)) {
			problem(ld, line, "%s takes one value in double quotes (%s)", path,
				k->values);
			return 0;
		}
		if (v->type == DM_CFG_INT) {
			snprintf(num, sizeof(num), "%" PRId64, v->v.i);
			if (check_item(ld, k, line, num))
				return 0;
			return add_item(s, num);
		}
		if (check_item(ld, k, line, v->v.str))
			return 0;
		return add_item(s, v->v.str);
	case TP_CONF_INT:
		if (v->next || v->type != DM_CFG_INT || v->v.i < k->min || v->v.i > k->max) {
			problem(ld, line, "%s takes a whole number %lld..%lld", path, k->min,
				k->max);
			return 0;
		}
		snprintf(num, sizeof(num), "%" PRId64, v->v.i);
		if (check_item(ld, k, line, num))
			return 0;
		return add_item(s, num);
	case TP_CONF_LIST:
		for (; v; v = v->next) {
			int r;
			if (v->type == DM_CFG_EMPTY_ARRAY)
				continue;
			if (v->type != DM_CFG_STRING) {
				problem(ld, line, "%s takes a list of strings in double quotes, "
					"[ \"...\", \"...\" ]", path);
				return 0;
			}
			if (check_item(ld, k, line, v->v.str))
				continue;
			if ((r = add_item(s, v->v.str)))
				return r;
		}
		return 0;
	}
	return 0;
}

static int load_tree(struct loader *ld, const struct dm_config_node *root)
{
	for (const struct dm_config_node *sec = root; sec; sec = sec->sib) {
		unsigned line = line_for(ld->lines, ld->nlines, sec->key);
		if (sec->v) {
			problem(ld, line, "%s is outside any section; settings go in sections, "
				"e.g. global { ... } (`tpconfig --list` shows them)", sec->key);
			continue;
		}
		if (!is_section(ld->keys, ld->nkeys, sec->key)) {
			problem(ld, line, "there is no section %s (`tpconfig --list` shows the "
				"settings)", sec->key);
			continue;
		}
		for (const struct dm_config_node *n = sec->child; n; n = n->sib) {
			int r = load_value(ld, sec->key, n);
			if (r)
				return r;
		}
	}
	return 0;
}

static int read_text(const char *file, char **text, size_t *len)
{
	FILE *f = fopen(file, "re");
	size_t cap = 4096, n = 0;
	char *t;

	*text = NULL;
	if (!f)
		return -errno;
	if (!(t = malloc(cap + 1))) {
		fclose(f);
		return -ENOMEM;
	}
	for (;;) {
		size_t got = fread(t + n, 1, cap - n, f);
		n += got;
		if (n < cap)
			break;
		if (cap >= CONF_MAX_BYTES) {
			free(t);
			fclose(f);
			return -EFBIG;
		}
		char *nt = realloc(t, 2 * cap + 1);
		if (!nt) {
			free(t);
			fclose(f);
			return -ENOMEM;
		}
		t = nt;
		cap *= 2;
	}
	if (ferror(f)) {
		int e = errno ? -errno : -EIO;
		free(t);
		fclose(f);
		return e;
	}
	fclose(f);
	t[n] = '\0';
	*text = t;
	*len = n;
	return 0;
}

/* The loader's table, slots and file name become the process's. */
static void adopt(struct loader *ld, int present)
{
	cf.keys = ld->keys;
	cf.nkeys = ld->nkeys;
	cf.slot = ld->slot;
	cf.file = (char *)ld->file;
	cf.present = present;
	ld->slot = NULL;
}

/* Only blanks and comments? (libdevmapper's parser calls that an error.) */
static int blank(const char *t, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (t[i] == '#')
			while (i < len && t[i] != '\n')
				i++;
		else if (!isspace((unsigned char)t[i]))
			return 0;
	}
	return 1;
}

/* A number libdevmapper's parser cannot hold (it says "Failed to read int
 * token", and no line): the first value of TEXT that is an integer out of
 * the int64 range, said with its line and setting as a value in range
 * would be. 1 when one was found (logged), else 0. */
static int bad_number(struct loader *ld, const char *t, size_t len)
{
	for (unsigned i = 0; i < ld->nlines; i++) {
		const struct line_of *l = &ld->lines[i];
		size_t at = l->value;

		if (!at)
			continue;
		while (at < len && t[at] != '\n' && t[at] != ']' && t[at] != '#') {
			char tok[64], *end;
			size_t s, k;
			int idx;

			if (strchr(" \t\r[,", t[at])) {
				at++;
				continue;
			}
			if (t[at] == '"') {	/* a quoted string holds no number */
				for (at++; at < len && t[at] != '"' && t[at] != '\n'; at++)
					at += t[at] == '\\' && at + 1 < len;
				at++;
				continue;
			}
			s = at;
			while (at < len && (isalnum((unsigned char)t[at]) || strchr("+-.", t[at])))
				at++;
			if (at == s) {
				at++;
				continue;
			}
			k = at - s < sizeof(tok) ? at - s : sizeof(tok) - 1;
			memcpy(tok, t + s, k);
			tok[k] = '\0';
			if (!isdigit((unsigned char)tok[tok[0] == '-' || tok[0] == '+']) ||
			    strchr(tok, '.'))
				continue;
			errno = 0;
			(void)strtoll(tok, &end, 0);
			if (errno != ERANGE)
				continue;
			idx = find_key(ld->keys, ld->nkeys, l->path);
			if (idx < 0)
				problem(ld, l->line, "%s is not a setting (`tpconfig --list` shows them)",
					l->path);
			else if (ld->keys[idx].type == TP_CONF_INT)
				problem(ld, l->line, "%s takes a whole number %lld..%lld, not %s",
					l->path, ld->keys[idx].min, ld->keys[idx].max, tok);
			else if (check_item(ld, &ld->keys[idx], l->line, tok) == 0)
				problem(ld, l->line, "%s: the number %s is out of range", l->path,
					tok);
			return 1;
		}
	}
	return 0;
}

/* Parse TEXT (LEN bytes, NUL-terminated) of the file LD->file: 0, or
 * -EINVAL with every problem logged. */
static int parse_text(struct loader *ld, const char *text, size_t len)
{
	struct dm_config_tree *cft = NULL;
	int r;

	if (memchr(text, '\0', len)) {
		problem(ld, 0, "contains a NUL byte; it is not a text file");
		return -EINVAL;
	}
	if (blank(text, len))
		return 0;	/* a file of comments sets nothing */
	if ((r = find_lines(text, len, &ld->lines, &ld->nlines)))
		return r;
	if (!(cft = dm_config_create()))
		return -ENOMEM;
	tp_dmlog_install();
	tp_dmlog_clear();
	if (!dm_config_parse_without_dup_node_check(cft, text, text + len)) {
		const char *msg = tp_dmlog_first_error();
		if (!bad_number(ld, text, len))
			problem(ld, 0, "syntax error%s%s (tptools.conf(5) shows the syntax)",
				msg[0] ? ": " : "", msg);
		r = -EINVAL;
	} else {
		r = load_tree(ld, cft->root);
	}
	dm_config_destroy(cft);
	return r ? r : ld->bad ? -EINVAL : 0;
}

static void loader_free(struct loader *ld)
{
	for (unsigned i = 0; i < ld->nlines; i++)
		free(ld->lines[i].path);
	free(ld->lines);
	slots_free(ld->slot, ld->nkeys);
	ld->lines = NULL;
	ld->nlines = 0;
	ld->slot = NULL;
}

/* Load NAME's TEXT, or no file (TEXT NULL): NAME becomes the process's
 * (freed here on failure). */
static int load(const struct tp_conf_key *keys, unsigned nkeys, char *name, const char *text,
		size_t len)
{
	struct loader ld = { .keys = keys, .nkeys = nkeys, .file = name };
	int r;

	if (!(ld.slot = calloc(nkeys ? nkeys : 1, sizeof(*ld.slot)))) {
		free(name);
		return -ENOMEM;
	}
	r = text ? parse_text(&ld, text, len) : 0;
	if (!r)
		adopt(&ld, text != NULL);
	else
		free(name);
	loader_free(&ld);
	return r;
}

int tp_config_load_text(const struct tp_conf_key *keys, unsigned nkeys, const char *name,
			const char *text, size_t len)
{
	char *copy = malloc(len + 1), *n = strdup(name);
	int r;

	tp_config_unload();
	if (!copy || !n) {
		free(copy);
		free(n);
		return -ENOMEM;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';	/* libdevmapper's number parser reads past an end */
	r = load(keys, nkeys, n, copy, len);
	free(copy);
	return r;
}

int tp_config_load(const struct tp_conf_key *keys, unsigned nkeys, const char *file)
{
	char *path, *text = NULL;
	size_t len = 0;
	int r;

	tp_config_unload();
	path = file ? strdup(file) : tp_path_join(tp_config_dir(), CONF_NAME);
	if (!path)
		return -ENOMEM;
	r = read_text(path, &text, &len);
	if (r == -ENOENT)
		return load(keys, nkeys, path, NULL, 0);	/* the defaults */
	if (!r) {
		r = load(keys, nkeys, path, text, len);
		free(text);
		return r;
	}
	if (r == -EFBIG)
		log_error("%s is larger than %u KiB; is it the configuration file?", path,
			  CONF_MAX_BYTES >> 10);
	else
		log_error("cannot read %s: %s", path, strerror(-r));
	free(path);
	return r == -EFBIG ? -EINVAL : r;
}

const char *tp_config_file(void)
{
	return cf.file;
}

int tp_config_present(void)
{
	return cf.present;
}

/* PATH's index, or -1; asking for a key the table lacks is our bug. */
static int lookup(const char *path)
{
	int i;

	if (!cf.keys)
		return -1;
	if ((i = find_key(cf.keys, cf.nkeys, path)) < 0) {
		static int said;
		if (!said++)
			TP_BUG("configuration key %s asked for but not declared", path);
	}
	return i;
}

const char *tp_config_str(const char *path)
{
	int i = lookup(path);

	if (i < 0)
		return NULL;
	return cf.slot[i].set && cf.slot[i].n ? cf.slot[i].items[0] : cf.keys[i].def;
}

long long tp_config_int(const char *path)
{
	const char *s = tp_config_str(path);

	return s ? strtoll(s, NULL, 10) : 0;
}

unsigned tp_config_list(const char *path, const char *const **items)
{
	int i = lookup(path);

	*items = NULL;
	if (i < 0 || !cf.slot[i].set)
		return 0;
	*items = (const char *const *)cf.slot[i].items;
	return cf.slot[i].n;
}

int tp_config_is_set(const char *path)
{
	int i = lookup(path);

	return i >= 0 && cf.slot[i].set;
}

const char *tp_config_where(const char *path, char *buf, size_t len)
{
	int i = lookup(path);

	if (i >= 0 && cf.slot[i].set)
		snprintf(buf, len, "%s:%u", cf.file, cf.slot[i].line);
	else
		snprintf(buf, len, "%s", i >= 0 && cf.keys[i].def ? "default" : "unset");
	return buf;
}

const struct tp_conf_key *tp_config_keys(unsigned *n)
{
	*n = cf.nkeys;
	return cf.keys;
}

static void print_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void tp_config_print_value(FILE *f, const char *path)
{
	int i = lookup(path);
	const struct tp_conf_key *k;

	if (i < 0)
		return;
	k = &cf.keys[i];
	if (k->type == TP_CONF_LIST) {
		const char *const *items;
		unsigned n = tp_config_list(path, &items);
		fputs("[", f);
		for (unsigned j = 0; j < n; j++) {
			fputs(j ? ", " : " ", f);
			print_string(f, items[j]);
		}
		fputs(" ]", f);
		return;
	}
	if (!tp_config_str(path))
		return;
	if (k->type == TP_CONF_INT)
		fputs(tp_config_str(path), f);
	else
		print_string(f, tp_config_str(path));
}
