/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_key.c - the key and PBKDF options (cli_key.h). */
#include "tools/cli_key.h"

#include "lib/base/exitcodes.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

int cli_key_given(const struct cli_key *k)
{
	return k->file || k->keyring;
}

int cli_pbkdf_given(const struct cli_key *k)
{
	return k->pbkdf || k->iter_time || k->memory || k->iterations;
}

const char *cli_key_first(const struct cli_key *k)
{
	return k->file ? "--key-file" : k->keyring ? "--key-keyring" : k->pbkdf ? "--pbkdf"
	       : k->iter_time ? "--iter-time" : k->memory ? "--pbkdf-memory"
	       : k->iterations ? "--pbkdf-force-iterations" : NULL;
}

int cli_key_repeated(const struct tp_command *cmd, int argc, const char **argv)
{
	static const char *const opts[] = { "--key-file", "--key-keyring", "--new-key-file" };
	unsigned seen[sizeof(opts) / sizeof(opts[0])] = { 0 };

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		for (unsigned o = 0; o < sizeof(opts) / sizeof(opts[0]); o++) {
			size_t n = strlen(opts[o]);

			if (strncmp(argv[i], opts[o], n) || (argv[i][n] && argv[i][n] != '='))
				continue;
			if (++seen[o] > 1)
				return cli_usage_error(cmd, "%s is given twice: it names one key; give "
						       "it once", opts[o]);
			if (!argv[i][n])
				i++;	/* its value, whatever it looks like */
			break;
		}
	return CLI_CONTINUE;
}

int cli_key_source(const struct tp_command *cmd, const struct cli_key *k,
		   struct pool_key_source *src)
{
	if (k->file && k->keyring)
		return cli_usage_error(cmd, "--key-file and --key-keyring name two keys: give one");
	if (k->file && !*k->file)
		return cli_usage_error(cmd, "--key-file needs a file (- for standard input)");
	if (k->keyring && !*k->keyring)
		return cli_usage_error(cmd, "--key-keyring needs the description of a key");
	src->kind = k->file ? POOL_KEY_FILE : k->keyring ? POOL_KEY_KEYRING : POOL_KEY_TERMINAL;
	src->arg = k->file ? k->file : k->keyring;
	return CLI_CONTINUE;
}

/* A whole number of OPT, 1..UINT32_MAX: CLI_CONTINUE or 3. */
static int number(const struct tp_command *cmd, const char *opt, const char *val, uint32_t *out)
{
	char *end;
	unsigned long long n;

	if (!val)
		return CLI_CONTINUE;
	errno = 0;
	n = strtoull(val, &end, 10);
	if (errno || end == val || *end || val[0] == '-' || !n || n > UINT32_MAX)
		return cli_usage_error(cmd, "%s %s: give a whole number from 1 to %u", opt, val,
				       UINT32_MAX);
	*out = (uint32_t)n;
	return CLI_CONTINUE;
}

int cli_pbkdf(const struct tp_command *cmd, const struct cli_key *k, struct pool_pbkdf *p)
{
	char why[256];
	int rc;

	memset(p, 0, sizeof(*p));
	p->type = k->pbkdf;
	if ((rc = number(cmd, "--iter-time", k->iter_time, &p->iter_time_ms)) != CLI_CONTINUE ||
	    (rc = number(cmd, "--pbkdf-memory", k->memory, &p->memory_kib)) != CLI_CONTINUE ||
	    (rc = number(cmd, "--pbkdf-force-iterations", k->iterations, &p->iterations)) !=
		    CLI_CONTINUE)
		return rc;
	if (pool_pbkdf_check(p, why, sizeof(why)))
		return cli_usage_error(cmd, "%s", why);
	return CLI_CONTINUE;
}

int cli_key_read(const struct pool_key_source *src, const char *what, unsigned flags,
		 struct pool_key **key)
{
	int e = pool_key_read(src, what, flags, key);

	switch (e) {
	case 0:
		return CLI_CONTINUE;
	case -ENOMEM:
	case -EINTR:
		return tp_exit_from_errno(e);
	default:
		return TP_EXIT_USAGE;	/* the key given is the input that is wrong */
	}
}
