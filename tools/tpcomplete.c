/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpcomplete.c - `tp complete-names [--volumes] [POOL...]`: the helper of
 * the bash completion (completion/tp). Prints the pools of the devices
 * file, one a line, or with --volumes their volumes as POOL/VOLUME (of the
 * POOLs named, else of every pool), or with --family POOL/VOLUME the
 * other volumes of VOLUME's snapshot family (the same first volume at the
 * end of the origin chain: what tvrollback --to accepts), or with --trash
 * the names in their trash as POOL/VOLUME (tvremove --undo, --purge). Reads only (a shared pool lock); a
 * pool that cannot be opened is passed by silently. Exit 0; 3 bad command
 * line. An internal command: not listed by `tp --help`, no symlink. */
#include "lib/base/exitcodes.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_volume.h"
#include "tools/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_volumes(const char *name)
{
	struct pool *p = NULL;
	struct pool_info info;

	if (pool_open(name, NULL, POOL_RDONLY, &p))
		return;
	if (!pool_get_info(p, 0, &info)) {
		for (unsigned i = 0; i < info.nr_volumes; i++)
			printf("%s/%s\n", name, info.volumes[i].name);
		pool_info_free(&info);
	}
	pool_close(p);
}

/* The names in pool NAME's trash, each once. */
static void print_trash(const char *name)
{
	struct pool_trash_entry *e = NULL;
	struct pool *p = NULL;
	unsigned n = 0;

	if (pool_open(name, NULL, POOL_RDONLY, &p))
		return;
	if (pool_volume_trash_count(p) && !pool_volume_trash_list(p, 0, &e, &n))
		for (unsigned i = 0; i < n; i++) {
			unsigned j = 0;

			while (j < i && strcmp(e[j].name, e[i].name))
				j++;
			if (j == i)
				printf("%s/%s\n", name, e[i].name);
		}
	free(e);
	pool_close(p);
}

/* The first volume of NAME's origin chain, as volume_rollback.c's family()
 * (NULL when the chain leads to a volume that is gone). */
static const struct pool_volume_info *root(const struct pool_info *in, const char *name)
{
	const struct pool_volume_info *v = NULL;

	for (unsigned i = 0; i < in->nr_volumes && !v; i++)
		if (!strcmp(in->volumes[i].name, name))
			v = &in->volumes[i];
	for (unsigned depth = 0; v && v->origin[0] && depth <= in->nr_volumes; depth++) {
		const struct pool_volume_info *o = NULL;
		for (unsigned i = 0; i < in->nr_volumes && !o; i++)
			if (!strcmp(in->volumes[i].name, v->origin))
				o = &in->volumes[i];
		v = o;
	}
	return v;
}

static void print_family(const char *spec)
{
	char pool[POOL_NAME_MAX + 1], vol[POOL_NAME_MAX + 1];
	struct pool *p = NULL;
	struct pool_info info;

	if (pool_split_volume_spec(spec, pool, vol) || pool_open(pool, NULL, POOL_RDONLY, &p))
		return;
	if (!pool_get_info(p, 0, &info)) {
		const struct pool_volume_info *r = root(&info, vol);
		for (unsigned i = 0; r && i < info.nr_volumes; i++)
			if (strcmp(info.volumes[i].name, vol) &&
			    root(&info, info.volumes[i].name) == r)
				printf("%s/%s\n", pool, info.volumes[i].name);
		pool_info_free(&info);
	}
	pool_close(p);
}

int cmd_complete_names(const struct tp_command *cmd, int argc, const char **argv)
{
	int volumes = 0, trash = 0, nargs, rc;
	const char *family = NULL;
	const char **args;
	char **names = NULL;
	unsigned n = 0, i;
	struct cli cli;
	const struct poptOption opts[] = {
		{ "volumes", '\0', POPT_ARG_NONE, &volumes, 0, "POOL/VOLUME names", NULL },
		{ "trash", '\0', POPT_ARG_NONE, &trash, 0, "POOL/VOLUME names in the trash", NULL },
		{ "family", '\0', POPT_ARG_STRING, &family, 0,
		  "the other volumes of VOLUME's snapshot family", "POOL/VOLUME" },
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 0, -1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	if (family) {
		print_family(family);
	} else if (nargs && (volumes || trash)) {
		for (int k = 0; k < nargs; k++)
			(trash ? print_trash : print_volumes)(args[k]);
	} else if (!pool_list_names(&names, &n)) {
		for (i = 0; i < n; i++) {
			if (trash)
				print_trash(names[i]);
			else if (volumes)
				print_volumes(names[i]);
			else
				printf("%s\n", names[i]);
			free(names[i]);
		}
		free(names);
	}
	cli_end(&cli);
	return TP_EXIT_OK;
}
