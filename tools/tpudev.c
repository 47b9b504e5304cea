/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpudev.c - `tp udev-probe DEVICE`: the helper of
 * udev/60-tptools-member.rules (IMPORT{program}). For a device that
 * carries a tptools label it prints udev properties, so lsblk -f, udisks
 * and systemd see the device as taken:
 *   ID_FS_TYPE=tptools_member  ID_FS_USAGE=raid  ID_FS_UUID=<device uuid>
 *   ID_FS_LABEL=<pool>  TPTOOLS_POOL=<pool>  TPTOOLS_POOL_UUID=<uuid>
 *   TPTOOLS_ROLE=data|meta
 * (a damaged label: ID_FS_TYPE, ID_FS_USAGE and TPTOOLS_LABEL=damaged),
 * and nothing for any other device. Exit 0 either way; 3 bad command
 * line, 5 the device cannot be read. An internal command: not listed by
 * `tp --help`, no symlink. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/pool/pool.h"
#include "tools/cli.h"

#include <stdio.h>
#include <string.h>

int cmd_udev_probe(const struct tp_command *cmd, int argc, const char **argv)
{
	const struct poptOption opts[] = { POPT_TABLEEND };
	struct pool_member m;
	const char **args;
	int nargs, rc, r;
	struct cli cli;

	if ((rc = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	rc = TP_EXIT_OK;
	r = pool_member_probe(args[0], &m);
	if (r < 0) {
		log_error("%s: cannot read its label: %s", args[0], strerror(-r));
		rc = TP_EXIT_FAILED;
	} else if (r > 0) {
		printf("ID_FS_TYPE=tptools_member\nID_FS_USAGE=raid\n");
		if (m.damaged)
			printf("TPTOOLS_LABEL=damaged\n");
		else
			printf("ID_FS_UUID=%s\nID_FS_UUID_ENC=%s\nID_FS_LABEL=%s\nID_FS_LABEL_ENC=%s\n"
			       "TPTOOLS_POOL=%s\nTPTOOLS_POOL_UUID=%s\nTPTOOLS_ROLE=%s\n",
			       m.device_uuid, m.device_uuid, m.pool, m.pool, m.pool, m.pool_uuid,
			       m.role);
	}
	cli_end(&cli);
	return rc;
}
