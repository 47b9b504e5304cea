/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tptools.conf reading (lib/base/config), the devices filter's patterns
 * (lib/base/devfilter) and the system id (lib/base/sysid), against a small
 * table of their own and the tools' real one. */
#include "lib/base/config.h"
#include "lib/base/devfilter.h"
#include "lib/base/log.h"
#include "lib/base/sysid.h"
#include "test/unit/tp_test.h"
#include "tools/config_keys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int odd_only(const struct tp_conf_key *k, const char *v, char *why, size_t len)
{
	(void)k;
	if (atoi(v) % 2)
		return 0;
	snprintf(why, len, "takes odd numbers");
	return -1;
}

static const struct tp_conf_key keys[] = {
	{ "a/name", TP_CONF_STRING, "dflt", "TEXT", "a string", 0, 0, NULL },
	{ "a/odd", TP_CONF_STRING, NULL, "ODD", "checked", 0, 0, odd_only },
	{ "b/count", TP_CONF_INT, "5", "1..9", "an int", 1, 9, NULL },
	{ "b/list", TP_CONF_LIST, NULL, "[...]", "a list", 0, 0, NULL },
};

/* Write TEXT as a file of the test's directory; its path. */
static const char *conf(const char *text)
{
	static char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/t.conf", tp_test_tmpdir());
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static int load(const char *text)
{
	return tp_config_load(keys, TP_ARRAY_SIZE(keys), conf(text));
}

static void test_values_and_lines(void)
{
	const char *const *items;
	char where[4200], want[4200];
	unsigned gen = tp_config_generation();

	CU_ASSERT_EQUAL_FATAL(load("# c\n\na {\n  odd = 7\n  name = \"x \\\"q\\\" y\"\n}\n"
				   "b { list = [ \"p\", \"q\" ] }\n"), 0);
	CU_ASSERT(tp_config_generation() != gen);
	CU_ASSERT(tp_config_present());
	CU_ASSERT_STRING_EQUAL(tp_config_str("a/name"), "x \"q\" y");
	CU_ASSERT_STRING_EQUAL(tp_config_str("a/odd"), "7");	/* a number for a string */
	CU_ASSERT_EQUAL(tp_config_int("b/count"), 5);		/* the default */
	CU_ASSERT(!tp_config_is_set("b/count"));
	CU_ASSERT_EQUAL(tp_config_list("b/list", &items), 2);
	CU_ASSERT_STRING_EQUAL(items[1], "q");
	snprintf(want, sizeof(want), "%s:5", tp_config_file());
	CU_ASSERT_STRING_EQUAL(tp_config_where("a/name", where, sizeof(where)), want);
	snprintf(want, sizeof(want), "%s:7", tp_config_file());
	CU_ASSERT_STRING_EQUAL(tp_config_where("b/list", where, sizeof(where)), want);
	CU_ASSERT_STRING_EQUAL(tp_config_where("b/count", where, sizeof(where)), "default");
	tp_config_unload();
	CU_ASSERT_PTR_NULL(tp_config_str("a/name"));	/* nothing loaded: nothing */
}

static void test_no_file(void)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/none.conf", tp_test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(tp_config_load(keys, TP_ARRAY_SIZE(keys), path), 0);
	CU_ASSERT(!tp_config_present());
	CU_ASSERT_STRING_EQUAL(tp_config_str("a/name"), "dflt");
	CU_ASSERT_PTR_NULL(tp_config_str("a/odd"));
	CU_ASSERT_EQUAL(tp_config_int("b/count"), 5);
	/* an empty file and one of comments set nothing, and are no error */
	CU_ASSERT_EQUAL(load(""), 0);
	CU_ASSERT(tp_config_present());
	CU_ASSERT_STRING_EQUAL(tp_config_str("a/name"), "dflt");
	CU_ASSERT_EQUAL(load("# only\n  # comments\n\n"), 0);
	CU_ASSERT(!tp_config_is_set("a/name"));
	tp_config_unload();
}

static void test_refusals(void)
{
	static const char *const bad[] = {
		"a { nosuch = 1 }\n",			/* unknown key */
		"c { name = \"x\" }\n",			/* unknown section */
		"name = \"x\"\n",			/* outside a section */
		"a { name = \"x\"\nname = \"y\" }\n",	/* twice */
		"a { odd = 4 }\n",			/* its check */
		"a { name = [ \"x\", \"y\" ] }\n",	/* a list for a string */
		"b { count = 10 }\n",			/* out of range */
		"b { count = \"3\" }\n",		/* a string for an int */
		"b { list = [ 1, 2 ] }\n",		/* numbers in a list */
		"a { inner { x = 1 } }\n",		/* a section in a section */
		"a { name = \n",			/* syntax */
		"a { name = \"x\" } }\n",		/* syntax */
	};

	for (unsigned i = 0; i < TP_ARRAY_SIZE(bad); i++) {
		int r = load(bad[i]);
		CU_ASSERT_EQUAL(r, -EINVAL);
		if (r != -EINVAL)
			fprintf(stderr, "accepted: %s", bad[i]);
		/* a refused file keeps nothing */
		CU_ASSERT_PTR_NULL(tp_config_str("a/name"));
	}
}

static void test_print(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	CU_ASSERT_EQUAL_FATAL(load("a { name = \"q\\\"\\\\\" }\nb { list = [ ] count = 3 }\n"), 0);
	f = open_memstream(&buf, &len);
	tp_config_print_value(f, "a/name");
	fputc(' ', f);
	tp_config_print_value(f, "b/count");
	fputc(' ', f);
	tp_config_print_value(f, "b/list");
	fclose(f);
	CU_ASSERT_STRING_EQUAL(buf, "\"q\\\"\\\\\" 3 [ ]");
	free(buf);
	CU_ASSERT(tp_config_is_set("b/list"));
	tp_config_unload();
}

static void test_filter_patterns(void)
{
	char why[256];

	CU_ASSERT_EQUAL(tp_dev_filter_check("a|^/dev/md|", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(tp_dev_filter_check("r/.*/", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(tp_dev_filter_check("x|a|", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(tp_dev_filter_check("a|a", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(tp_dev_filter_check("a|a|b|", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(tp_dev_filter_check("aaba", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(tp_dev_filter_check("r|(|", why, sizeof(why)), 0);
	CU_ASSERT(strstr(why, "does not compile") != NULL);
	CU_ASSERT_NOT_EQUAL(tp_dev_filter_check("a", why, sizeof(why)), 0);
	/* repetitions that would make regcomp copy its tree past bounds */
	CU_ASSERT_NOT_EQUAL(tp_dev_filter_check("a|x+++++++++++|", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(tp_dev_filter_check("a|((x{40}){40})|", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(tp_dev_filter_check("a|^/dev/sd[a-z]+[0-9]{1,2}$|", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(tp_dev_filter_check("a|[+{]+|", why, sizeof(why)), 0);
	/* a regular file is never filtered, whatever the list */
	CU_ASSERT_EQUAL_FATAL(tp_config_load(tp_conf_keys, tp_conf_nkeys,
					     conf("devices { filter = [ \"r|.*|\" ] }\n")), 0);
	CU_ASSERT_EQUAL(tp_dev_filter_accepts(tp_config_file(), why, sizeof(why)), 1);
	tp_config_unload();
}

static void test_system_id(void)
{
	char id[TP_SYSID_MAX + 1], why[128];
	const char *src;

	CU_ASSERT_EQUAL(tp_system_id_check("host-1.a_b+c", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(tp_system_id_check("two words", why, sizeof(why)), 0);
	CU_ASSERT_NOT_EQUAL(tp_system_id_check("", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL_FATAL(tp_config_load(tp_conf_keys, tp_conf_nkeys,
					     conf("global { system_id = \"hostA\" "
						  "system_id_source = \"uname\" }\n")), 0);
	CU_ASSERT_EQUAL(tp_system_id(id, sizeof(id), &src), 0);
	CU_ASSERT_STRING_EQUAL(id, "hostA");	/* system_id wins */
	CU_ASSERT_STRING_EQUAL(src, "global/system_id");
	CU_ASSERT_EQUAL_FATAL(tp_config_load(tp_conf_keys, tp_conf_nkeys,
					     conf("global { system_id_source = \"none\" }\n")), 0);
	CU_ASSERT_EQUAL(tp_system_id(id, sizeof(id), &src), 0);
	CU_ASSERT_STRING_EQUAL(id, "");
	tp_config_unload();
}

/* The tools' table: each default passes its own check, and the paths are
 * SECTION/KEY in sections that stay together (tpconfig prints one block
 * per section). */
static void test_tools_table(void)
{
	char why[256];

	for (unsigned i = 0; i < tp_conf_nkeys; i++) {
		const struct tp_conf_key *k = &tp_conf_keys[i];
		const char *slash = strchr(k->path, '/');
		CU_ASSERT_PTR_NOT_NULL_FATAL(slash);
		CU_ASSERT_PTR_NULL(strchr(slash + 1, '/'));
		if (k->def && k->check)
			CU_ASSERT_EQUAL(k->check(k, k->def, why, sizeof(why)), 0);
		/* a key whose section differs from the one before it opens
		 * its section: no earlier key has it */
		size_t sl = (size_t)(slash - k->path) + 1;
		if (i && strncmp(tp_conf_keys[i - 1].path, k->path, sl))
			for (unsigned j = 0; j < i; j++)
				CU_ASSERT_NOT_EQUAL(strncmp(tp_conf_keys[j].path, k->path, sl), 0);
	}
}

static int quiet(void)
{
	tp_log_set_verbosity(-2);
	return 0;
}

static int loud(void)
{
	tp_log_set_verbosity(0);
	tp_config_unload();
	return 0;
}

TP_TEST_SUITE(config, quiet, loud,
	      { "values, defaults and the lines they come from", test_values_and_lines },
	      { "no file: the defaults", test_no_file },
	      { "a refused file names its problem and keeps nothing", test_refusals },
	      { "values printed in the file's syntax", test_print },
	      { "devices filter patterns", test_filter_patterns },
	      { "system id sources", test_system_id },
	      { "the tools' table is consistent", test_tools_table })
