/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpconfig - print the effective configuration: every setting of
 * tptools.conf (tptools.conf(5)) with its value and where that comes from
 * (the file's line, or the default), in the file's own syntax, so that
 * the output read back as the file gives the same values. KEY... prints
 * those values alone, one per line; --changed only what the file sets;
 * --list what each setting takes; --system-id this host's system id;
 * --file FILE reads FILE instead (to check a file before installing it).
 * A file that is refused is said line by line: exit 3. */
#include "lib/base/config.h"
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/sysid.h"
#include "tools/cli.h"
#include "tools/config_keys.h"

#include <stdio.h>
#include <string.h>

/* The section of PATH ("create" of "create/profile"), its length. */
static size_t section_len(const char *path)
{
	const char *slash = strchr(path, '/');
	return slash ? (size_t)(slash - path) : strlen(path);
}

static void print_all(int changed)
{
	unsigned n;
	const struct tp_conf_key *k = tp_config_keys(&n);
	char where[4096];
	const char *open = NULL;

	if (tp_config_present())
		printf("# tptools configuration: %s\n", tp_config_file());
	else
		printf("# tptools configuration: %s does not exist; every value is the default\n",
		       tp_config_file());
	for (unsigned i = 0; i < n; i++) {
		size_t sl = section_len(k[i].path);
		const char *key = k[i].path + sl + 1;
		int set = tp_config_is_set(k[i].path);
		if (changed && !set)
			continue;
		if (!open || strncmp(open, k[i].path, sl) || open[sl] != '/') {
			if (open)
				printf("}\n");
			printf("%.*s {\n", (int)sl, k[i].path);
			open = k[i].path;
		}
		tp_config_where(k[i].path, where, sizeof(where));
		if (k[i].type != TP_CONF_LIST && !tp_config_str(k[i].path)) {
			printf("\t# %s is not set (%s)\n", key, k[i].values);
			continue;
		}
		printf("\t%s = ", key);
		tp_config_print_value(stdout, k[i].path);
		printf("\t# %s\n", set ? where : k[i].type == TP_CONF_LIST ? "default: empty" : "default");
	}
	if (open)
		printf("}\n");
}

static void print_list(void)
{
	unsigned n;
	const struct tp_conf_key *k = tp_config_keys(&n);

	for (unsigned i = 0; i < n; i++)
		printf("%s\n\ttakes %s; default %s%s%s\n\t%s\n", k[i].path, k[i].values,
		       k[i].def ? "\"" : "",
		       k[i].def ? k[i].def : k[i].type == TP_CONF_LIST ? "empty" : "none",
		       k[i].def ? "\"" : "", k[i].help);
}

static int print_keys(const char **keys, int n)
{
	for (int i = 0; i < n; i++) {
		unsigned nk;
		const struct tp_conf_key *k = tp_config_keys(&nk);
		int found = 0;
		for (unsigned j = 0; j < nk && !found; j++)
			found = !strcmp(k[j].path, keys[i]);
		if (!found)
			return log_error("%s is not a setting; 'tpconfig --list' shows them "
					 "(SECTION/KEY, e.g. create/profile)", keys[i]),
			       TP_EXIT_USAGE;
	}
	/* bare values for scripts: a string without its quotes, a list one
	 * item a line, an unset key an empty line */
	for (int i = 0; i < n; i++) {
		const char *const *items;
		unsigned ni = tp_config_list(keys[i], &items);
		const char *v = tp_config_str(keys[i]);
		for (unsigned j = 0; j < ni; j++)
			printf("%s\n", items[j]);
		if (!ni)
			printf("%s\n", v ? v : "");
	}
	return TP_EXIT_OK;
}

static int print_system_id(void)
{
	char id[TP_SYSID_MAX + 1];
	const char *source;
	int r = tp_system_id(id, sizeof(id), &source);

	if (r)
		return tp_exit_from_errno(r);
	if (id[0])
		printf("%s\n", id);
	log_info("system id %s%s%s, from %s", id[0] ? "\"" : "", id[0] ? id : "none",
		 id[0] ? "\"" : "", source);
	return TP_EXIT_OK;
}

int cmd_tpconfig(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *file = NULL, **args;
	int changed = 0, list = 0, sysid = 0, rc, nargs;
	struct cli cli;
	const struct poptOption opts[] = {
		{ "file", '\0', POPT_ARG_STRING, &file, 0,
		  "read FILE instead of <config dir>/tptools.conf", "FILE" },
		{ "changed", '\0', POPT_ARG_NONE, &changed, 0, "only the settings the file sets",
		  NULL },
		{ "list", '\0', POPT_ARG_NONE, &list, 0,
		  "every setting: what it takes, its default and what it does", NULL },
		{ "system-id", '\0', POPT_ARG_NONE, &sysid, 0,
		  "print this host's system id (nothing when it has none)", NULL },
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 0, -1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	if (list + sysid + (nargs > 0) + changed > 1) {
		rc = cli_usage_error(cmd, "give one of KEY..., --changed, --list and --system-id");
	} else if ((rc = config_keys_load(file)) != TP_EXIT_OK) {
		log_error("%s is refused (above); no command runs with it until it is mended",
			  file ? file : "the configuration file");
	} else if (list) {
		print_list();
	} else if (sysid) {
		rc = print_system_id();
	} else if (nargs) {
		rc = print_keys(args, nargs);
	} else {
		print_all(changed);
	}
	cli_end(&cli);
	return rc;
}
