/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config.h - the host's configuration file, tptools.conf (tptools.conf(5)).
 *
 * Owns: the one parsed copy of <config dir>/tptools.conf (paths.h:
 * $TPTOOLS_DIR or /etc/tptools) for the process, checked against a table
 * of the keys there are (struct tp_conf_key), which the caller gives: the
 * tools own that table (tools/config_keys.c), this file only the reading.
 * The syntax is libdevmapper's dm_config, as lvm.conf's: sections of
 * `key = value` lines, a value a "string", a number or a [ list ] of
 * strings, `#` comments.
 *
 * Strict, like a compiler: a key or section the table does not know, a
 * key set twice, a value of the wrong kind or one its check refuses is
 * an error naming the file and line ("tptools.conf:7: create/profle is not
 * a setting; `tpconfig --list` shows them"), and the whole file is refused
 * (nothing of it applies). No file is no error: every key has its default.
 *
 * Lookups never fail: a key that is not set gives its default (NULL when
 * it has none); before a load, or for a path the table does not have, NULL
 * and 0 (a path the loaded table lacks is an internal error, logged once:
 * the code asks for a key it never declared). */
#ifndef TP_BASE_CONFIG_H
#define TP_BASE_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "lib/base/compiler.h"

enum tp_conf_type {
	TP_CONF_STRING,		/* "text"; a number is taken as its digits */
	TP_CONF_INT,		/* a whole number in [min, max] */
	TP_CONF_LIST,		/* [ "a", "b" ] (or one "string") */
};

struct tp_conf_key {
	const char *path;	/* "section/key" */
	enum tp_conf_type type;
	const char *def;	/* the default as text; NULL: none (unset) */
	const char *values;	/* what it takes, for people: "y|n", "1..3600" */
	const char *help;	/* one line */
	long long min, max;	/* TP_CONF_INT */
	/* A value's check beyond its kind (each item of a list): 0, or
	 * nonzero with WHY filled ("takes balanced, throughput or ...").
	 * NULL: any value of the kind. */
	int (*check)(const struct tp_conf_key *k, const char *value, char *why, size_t len);
};

/* Read FILE (NULL: <config dir>/tptools.conf) against KEYS. 0 when it was
 * read or does not exist; -EINVAL when it is refused (each problem logged
 * with its line; nothing of it is kept), another -errno when it cannot be
 * read (logged). A second load replaces the first. */
int tp_config_load(const struct tp_conf_key *keys, unsigned nkeys, const char *file) TP_MUST_CHECK;
/* The same for TEXT (LEN bytes) as if read from a file called NAME (the
 * fuzz harness, tests). */
int tp_config_load_text(const struct tp_conf_key *keys, unsigned nkeys, const char *name,
			const char *text, size_t len) TP_MUST_CHECK;
/* Forget the file and the table (tests; the process end frees it too). */
void tp_config_unload(void);
/* The file read or looked for (after a load), else NULL. */
const char *tp_config_file(void);
/* 1 when the file existed and was read. */
int tp_config_present(void);
/* Changes at every load and unload (for caches of what a value means). */
unsigned tp_config_generation(void);

/* A string key's value (its default when unset; NULL when neither). */
const char *tp_config_str(const char *path);
/* An int key's value (its default when unset; 0 when neither). */
long long tp_config_int(const char *path);
/* A list key's items: their count, *ITEMS the array (NULL when none). */
unsigned tp_config_list(const char *path, const char *const **items);
/* 1 when the file sets PATH. */
int tp_config_is_set(const char *path);
/* Where PATH's value comes from: "FILE:LINE" or "default" (or "unset"). */
const char *tp_config_where(const char *path, char *buf, size_t len);

/* The loaded table (for tpconfig), its size in *N. */
const struct tp_conf_key *tp_config_keys(unsigned *n);
/* Print PATH's effective value as the file would write it: a quoted
 * string, a number or a [ list ]. Nothing for an unset key. */
void tp_config_print_value(FILE *f, const char *path);

#endif
