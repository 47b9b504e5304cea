/* tpcomplete.c - `tp complete-names [--volumes] [POOL...]`: the helper of
 * the bash completion (completion/tp). Prints the pools of the devices
 * file, one a line, or with --volumes their volumes as POOL/VOLUME (of the
 * POOLs named, else of every pool). Reads only (a shared pool lock); a
 * pool that cannot be opened is passed by silently. Exit 0; 3 bad command
 * line. An internal command: not listed by `tp --help`, no symlink. */
#include "lib/base/exitcodes.h"
#include "lib/pool/pool.h"
#include "tools/cli.h"

#include <stdio.h>
#include <stdlib.h>

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

int cmd_complete_names(const struct tp_command *cmd, int argc, const char **argv)
{
	int volumes = 0, nargs, rc;
	const char **args;
	char **names = NULL;
	unsigned n = 0, i;
	struct cli cli;
	const struct poptOption opts[] = {
		{ "volumes", '\0', POPT_ARG_NONE, &volumes, 0, "POOL/VOLUME names", NULL },
		POPT_TABLEEND
	};

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 0, -1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	if (nargs && volumes) {
		for (int k = 0; k < nargs; k++)
			print_volumes(args[k]);
	} else if (!pool_list_names(&names, &n)) {
		for (i = 0; i < n; i++) {
			if (volumes)
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
