/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tvcreate - create a thin volume in a pool. */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/pool/pool.h"
#include "lib/pool/pool_crypt.h"
#include "lib/pool/pool_volume.h"
#include "lib/pool/pool_names_dm.h"
#include "tools/cli.h"
#include "tools/cli_key.h"
#include "tools/pool_op.h"

#include <stdio.h>
#include <string.h>

struct creation {
	const char *pool, *name;
	uint64_t size;
	int no_autoactivate;	/* --activate n */
	/* --encrypt: the new header's key and settings, else NULL */
	const struct pool_crypt_new *crypt;
};

static int creation_op(struct pool *p, void *arg)
{
	const struct creation *c = arg;
	struct pool_info info;
	uint64_t over = 0, total = 0, made;
	char a[32], b[32], luks[POOL_UUID_LEN + 1];
	unsigned flags = c->no_autoactivate ? POOL_VOLUME_NO_AUTOACTIVATE : 0;
	/* the volume and its activation flag (and its luks uuid): one commit */
	int live = pool_is_live(p);
	int r = !c->crypt ? pool_volume_create_as(p, c->name, c->size, flags, &over)
		: live	  ? pool_crypt_create_live(p, c->name, c->size, flags, c->crypt, luks)
			  : pool_crypt_create(p, c->name, c->size, flags, c->crypt, luks);

	/* the pool's figures, not its every volume's */
	if (!r)
		r = pool_get_info(p, POOL_INFO_NO_VOLUMES, &info);
	if (r)
		return r;
	if (c->crypt) {	/* the raw import does not weigh the sizes: do it here */
		total = info.virtual_total;
		if (total > info.data_size)
			over = total;
	}
	if (over) {
		tp_size_format_pair(over, info.data_size, a, b, sizeof(a));
		log_warn("the sum of all thin volume sizes (%s) exceeds the size of pool %s (%s): "
			 "writes fail or queue once the pool is full; watch 'tpstatus %s'", a,
			 c->pool, b, c->pool);
	}
	(void)pool_warn_if_full(p);
	/* the size it got: C->SIZE rounded as the creation rounded it */
	if (tp_log_verbosity() >= 0 && !pool_volume_size_check(c->name, c->size, &made))
		printf("Volume %s/%s created (%s).\n", c->pool, c->name,
		       tp_size_format(made, 'h', a, sizeof(a)));
	if (c->crypt && tp_log_verbosity() >= 0)
		printf("Encrypted: LUKS2 uuid %s%s. Unwritten ranges of %s/%s read as random bytes "
		       "once it is unlocked, not as zeros.\n", luks,
		       c->crypt->allow_discards ? ", discards allowed" : "", c->pool, c->name);
	pool_info_free(&info);
	if (c->crypt && live) {
		/* unlocked as tpactivate would, with the key just given */
		const char *vols[] = { c->name };
		pool_unlock_key(c->crypt->key->data, c->crypt->key->len, "the key given");
		if (pool_activate(p, vols, 1) || pool_unlock_left_locked())
			log_warn("volume %s/%s was created but is not unlocked: unlock it with "
				 "'tpactivate --key-file FILE %s %s'", c->pool, c->name, c->pool,
				 c->name);
		pool_unlock_key(NULL, 0, NULL);
	}
	return 0;
}

/* --encrypt: a pool that cannot be opened is refused before a key is
 * asked for, and so is an inactive one without the room for the header
 * (pool_crypt_create_check; a live pool makes the volume through the
 * kernel, pool_crypt_create_live). CLI_CONTINUE or the exit code (the
 * error said). */
static int checked_first(const char *pool, const char *devices, const char *name,
			 uint64_t size)
{
	struct pool *p = NULL;
	int r = pool_open(pool, devices, POOL_RDONLY, &p);

	if (r)
		return tp_exit_from_errno(r);
	/* the name, the over-provisioning limit and room for the header */
	r = pool_is_live(p) ? 0 : pool_crypt_create_check(p, name, size);
	pool_close(p);
	return r ? tp_exit_from_errno(r) : CLI_CONTINUE;
}

int cmd_tvcreate(const struct tp_command *cmd, int argc, const char **argv)
{
	const char *vsize = NULL, *devices = NULL, *activate = NULL, **args;
	struct creation c = { NULL, NULL, 0, 0, NULL };
	int rc, nargs, encrypt = 0, discards = 0;
	struct cli_key key = { NULL };
	struct pool_key_source src;
	struct pool_crypt_new cn;
	struct pool_key *k = NULL;
	char what[2 * POOL_NAME_MAX + 16];
	struct cli cli;
	const struct poptOption opts[] = {
		{ "virtualsize", 'V', POPT_ARG_STRING, &vsize, 0,
		  "virtual size (may exceed the pool: over-provisioning); default unit M", "SIZE" },
		{ "name", 'n', POPT_ARG_STRING, &c.name, 0, "volume name", "NAME" },
		{ "activate", 'a', POPT_ARG_STRING, &activate, 0,
		  "activated with its pool by tpactivate --all and at boot (default y)", "y|n" },
		{ "encrypt", '\0', POPT_ARG_NONE, &encrypt, 0,
		  "an encrypted volume: its content a LUKS2 device (libcryptsetup)",
		  NULL },
		{ "allow-discards", '\0', POPT_ARG_NONE, &discards, 0,
		  "with --encrypt: discards pass through dm-crypt, so the pool frees what the "
		  "filesystem frees (it shows which blocks are free)", NULL },
		CLI_OPT_KEY(key, "with --encrypt: "),
		CLI_OPT_PBKDF(key, "with --encrypt: "),
		CLI_OPT_DEVICES(devices),
		POPT_TABLEEND
	};

	/* before popt, which keeps the last of a repeated option */
	if ((rc = cli_key_repeated(cmd, argc, argv)) != CLI_CONTINUE ||
	    (rc = cli_parse(&cli, cmd, opts, argc, argv, 1, 1, &args, &nargs)) != CLI_CONTINUE)
		return rc;
	if (!vsize || !c.name)
		rc = cli_usage_error(cmd, "both -V SIZE and -n NAME are required");
	if (rc == CLI_CONTINUE)
		rc = cli_size(cmd, "-V", vsize, 'm', &c.size);
	if (rc == CLI_CONTINUE && !c.size)
		rc = cli_usage_error(cmd, "-V must be greater than 0");
	if (rc == CLI_CONTINUE && activate) {
		int on;
		if ((rc = cli_parse_activate(cmd, activate, &on)) == CLI_CONTINUE)
			c.no_autoactivate = !on;
	}
	if (rc == CLI_CONTINUE && !encrypt && (discards || cli_key_given(&key) || cli_pbkdf_given(&key)))
		rc = cli_usage_error(cmd, "%s applies to an encrypted volume only: add --encrypt",
				     discards ? "--allow-discards" : cli_key_first(&key));
	if (rc == CLI_CONTINUE && pool_dm_vol_name_check(args[0], c.name))
		rc = TP_EXIT_USAGE;
	if (rc == CLI_CONTINUE && encrypt) {
		memset(&cn, 0, sizeof(cn));
		cn.allow_discards = discards;
		if ((rc = cli_key_source(cmd, &key, &src)) == CLI_CONTINUE)
			rc = cli_pbkdf(cmd, &key, &cn.pbkdf);
		if (rc == CLI_CONTINUE && c.size < pool_crypt_min_size())
			rc = cli_usage_error(cmd, "-V %s is too small for an encrypted volume, whose "
					     "LUKS2 header takes 16 MiB: give -V %lluK or more", vsize,
					     (unsigned long long)pool_crypt_min_size() / 1024);
		/* the key before the pool is opened for writing (a prompt holds
		 * no lock), but not for a pool that refuses it anyway */
		if (rc == CLI_CONTINUE)
			rc = checked_first(args[0], devices, c.name, c.size);
		snprintf(what, sizeof(what), "volume %s/%s", args[0], c.name);
		if (rc == CLI_CONTINUE)
			rc = cli_key_read(&src, what, POOL_KEY_NEW, &k);
		cn.key = k;
		c.crypt = &cn;
	}
	if (rc == CLI_CONTINUE) {
		c.pool = args[0];
		rc = tool_pool_op(args[0], devices, creation_op, &c);
	}
	pool_key_free(k);
	cli_end(&cli);
	return rc;
}
