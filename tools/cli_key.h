/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_key.h - the key and PBKDF options of the commands that take a key
 * of an encrypted volume (tvcreate --encrypt, tvchange's key changes,
 * tpactivate): one spelling, one parser (pool_crypt.h has what they
 * read into).
 *
 *   --key-file FILE     the whole file is the key (- = standard input)
 *   --key-keyring DESC  a "user" key of the kernel keyring
 *   (neither: a passphrase asked on the terminal)
 *   --pbkdf argon2id|argon2i|pbkdf2, --iter-time MS, --pbkdf-memory KiB,
 *   --pbkdf-force-iterations N   a new keyslot's PBKDF, as cryptsetup's
 */
#ifndef TP_TOOLS_CLI_KEY_H
#define TP_TOOLS_CLI_KEY_H

#include "lib/pool/pool_crypt.h"
#include "tools/cli.h"

/* The options' values as given (NULL: not given). */
struct cli_key {
	const char *file, *keyring;
	const char *pbkdf, *iter_time, *memory, *iterations;
};

/* The key source options, in a popt table: CLI_OPT_KEY(k), where K is a
 * struct cli_key. PREFIX starts each help text ("" or "with --encrypt: "). */
#define CLI_OPT_KEY(k, prefix)                                                   \
	{ "key-file", '\0', POPT_ARG_STRING, &(k).file, 0,                        \
	  prefix "the key is this file's whole content (- for standard input); "  \
	  "default: a passphrase asked on the terminal", "FILE" },                \
	{ "key-keyring", '\0', POPT_ARG_STRING, &(k).keyring, 0,                  \
	  prefix "the key is the kernel keyring's user key described DESC", "DESC" }

/* The PBKDF options of a new keyslot. */
#define CLI_OPT_PBKDF(k, prefix)                                                 \
	{ "pbkdf", '\0', POPT_ARG_STRING, &(k).pbkdf, 0,                          \
	  prefix "the new keyslot's PBKDF (default libcryptsetup's: argon2id)",   \
	  "argon2id|argon2i|pbkdf2" },                                             \
	{ "iter-time", '\0', POPT_ARG_STRING, &(k).iter_time, 0,                  \
	  prefix "milliseconds the PBKDF takes on this host (default 2000)", "MS" }, \
	{ "pbkdf-memory", '\0', POPT_ARG_STRING, &(k).memory, 0,                  \
	  prefix "argon2's memory cost (default 1048576, less on a small host)",  \
	  "KiB" },                                                                 \
	{ "pbkdf-force-iterations", '\0', POPT_ARG_STRING, &(k).iterations, 0,    \
	  prefix "the PBKDF's iterations, no benchmark (pbkdf2 at least 1000)",   \
	  "N" }

/* Whether any option of CLI_OPT_KEY / CLI_OPT_PBKDF was given. */
int cli_key_given(const struct cli_key *k);
int cli_pbkdf_given(const struct cli_key *k);
/* The first of them given, as spelled on the command line ("--pbkdf"),
 * or NULL: for "... applies only with ..." messages. */
const char *cli_key_first(const struct cli_key *k);

/* A key option given twice on ARGV (--key-file, --key-keyring,
 * --new-key-file; popt would keep the last one silently): a usage error
 * (3) naming it, else CLI_CONTINUE. */
int cli_key_repeated(const struct tp_command *cmd, int argc, const char **argv);

/* The key source K names, into *SRC: both --key-file and --key-keyring
 * is a usage error (3), else CLI_CONTINUE. */
int cli_key_source(const struct tp_command *cmd, const struct cli_key *k,
		   struct pool_key_source *src);

/* The PBKDF K names, into *P (pool_pbkdf_check'd): CLI_CONTINUE or 3. */
int cli_pbkdf(const struct tp_command *cmd, const struct cli_key *k, struct pool_pbkdf *p);

/* pool_key_read of SRC: CLI_CONTINUE with *KEY, or the exit code: 3 for
 * a key that cannot be had (no such file or keyring key, empty, too big,
 * a file too open, no terminal, two passphrases that differ: the user's
 * input), else tp_exit_from_errno's. */
int cli_key_read(const struct pool_key_source *src, const char *what, unsigned flags,
		 struct pool_key **key);

#endif
