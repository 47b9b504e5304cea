/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crypt_key.c - where a key comes from (pool_crypt.h): a file or standard
 * input, the terminal, the kernel keyring; and the PBKDF parameters of a
 * new keyslot.
 *
 * A key is held in one buffer of POOL_KEY_MAX + 1 bytes, locked in
 * memory when the host allows it (mlock; not an error when it does not)
 * and wiped with explicit_bzero before it is freed, whatever path the
 * command takes. A file is read whole, as cryptsetup's --key-file reads
 * it: a trailing newline is part of the key. A passphrase from the
 * terminal ends at its newline, which is not part of it. The keyring is
 * reached through the keyctl and request_key system calls (no
 * libkeyutils): a key of type "user" with the given description, looked
 * for in the thread's, process's and session's keyrings, then in the
 * user's. */
#include "lib/pool/pool_crypt.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

static struct pool_key *key_alloc(void)
{
	struct pool_key *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	if (!(k->data = calloc(1, POOL_KEY_MAX + 1))) {
		free(k);
		return NULL;
	}
	(void)mlock(k->data, POOL_KEY_MAX + 1);	/* best effort: RLIMIT_MEMLOCK */
	return k;
}

void pool_key_free(struct pool_key *k)
{
	if (!k)
		return;
	if (k->data) {
		explicit_bzero(k->data, POOL_KEY_MAX + 1);
		(void)munlock(k->data, POOL_KEY_MAX + 1);
		free(k->data);
	}
	explicit_bzero(k, sizeof(*k));
	free(k);
}

int pool_key_file_private(const char *path, int fd)
{
	struct stat st;

	if (fd >= 0 ? fstat(fd, &st) : stat(path, &st)) {
		int e = -errno;
		log_error("key file %s: %s", path, strerror(errno));
		return e;
	}
	if (!S_ISREG(st.st_mode)) {
		log_error("key file %s is not a regular file: a key named in configuration must "
			  "be a file only root can read", path);
		return -EPERM;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		log_error("key file %s may be read or written by its group or by others (mode "
			  "%04o): refusing it; make it private with 'chmod 600 %s'", path,
			  (unsigned)(st.st_mode & 07777), path);
		return -EPERM;
	}
	return 0;
}

/* ---- a file or standard input ---- */

static int read_file(const char *path, const char *what, unsigned flags, struct pool_key *k)
{
	int stdin_ = !strcmp(path, "-");
	const char *name = stdin_ ? "standard input" : path;
	const char *kind = flags & POOL_KEY_REPLACES ? "the new key" : "the key";
	int fd = stdin_ ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	size_t done = 0;
	int e = 0;

	if (fd < 0) {
		e = -errno;
		log_error("key file %s (%s of %s): cannot open it: %s", path, kind, what,
			  strerror(errno));
		return e;
	}
	if (fstat(fd, &st)) {
		e = -errno;
		log_error("key file %s: %s", name, strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		log_error("key file %s is a directory: give the file that holds %s of %s",
			  name, kind, what);
		e = -EISDIR;
		goto out;
	}
	if ((flags & POOL_KEY_PRIVATE) && !stdin_ && (e = pool_key_file_private(path, fd)))
		goto out;
	/* one byte more than the limit proves a file too big */
	while (done < POOL_KEY_MAX + 1) {
		ssize_t n = read(fd, k->data + done, POOL_KEY_MAX + 1 - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = -errno;
			log_error("key file %s: reading it: %s", name, strerror(errno));
			goto out;
		}
		if (!n)
			break;
		done += (size_t)n;
	}
	if (done > POOL_KEY_MAX) {
		log_error("key file %s holds more than %u bytes, the most a key may have: give "
			  "the file that holds only %s of %s", name, POOL_KEY_MAX, kind, what);
		e = -EFBIG;
	} else if (!done) {
		log_error("key file %s is empty: an empty key protects nothing; give the file "
			  "that holds %s of %s", name, kind, what);
		e = -ENODATA;
	}
	k->len = done;
out:
	if (!stdin_)
		close(fd);
	return e;
}

/* ---- the terminal ---- */

/* One line from TTY with echo off, without its newline: its length, or
 * -errno; -EFBIG for a line longer than POOL_KEY_MAX (read to its end).
 * Echo goes off before the prompt is written (typed-ahead input, which
 * was echoed, is discarded), so whatever answers the prompt is not
 * echoed; it comes back on as it was, whatever happened. */
static ssize_t ask(int tty, const char *prompt, unsigned char *buf)
{
	struct termios old, quiet;
	size_t len = 0;
	int too_long = 0, e = 0, restore;

	/* a signal waits while echo is off: it is looked for every 200 ms,
	 * and takes effect once echo is back (SIGINT on the terminal too) */
	tp_critical_begin();
	restore = !tcgetattr(tty, &old);
	if (restore) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK);
		quiet.c_lflag |= ECHONL;
		if (tcsetattr(tty, TCSAFLUSH, &quiet))
			restore = 0;
	}
	if (write(tty, prompt, strlen(prompt)) < 0)
		e = -errno;
	while (!e) {
		struct pollfd pfd = { tty, POLLIN, 0 };
		unsigned char c;
		ssize_t n;
		int k = poll(&pfd, 1, 200);

		if (tp_critical_pending()) {
			e = -EINTR;
			break;
		}
		if (k < 0 && errno != EINTR) {
			e = -errno;
			break;
		}
		if (k <= 0)
			continue;
		if ((n = read(tty, &c, 1)) < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = -errno;
			break;
		}
		if (!n || c == '\n')
			break;
		if (len < POOL_KEY_MAX)
			buf[len++] = c;
		else
			too_long = 1;
		c = 0;
	}
	if (restore)
		(void)tcsetattr(tty, TCSANOW, &old);
	if (e == -EINTR && write(tty, "\n", 1) < 0)
		e = -EINTR;	/* (the newline is for the looks only) */
	tp_critical_end();	/* a signal that came meanwhile takes effect here */
	if (e)
		return e;
	return too_long ? -EFBIG : (ssize_t)len;
}

static int read_terminal(const char *what, unsigned flags, struct pool_key *k)
{
	struct pool_key *again = NULL;
	char prompt[POOL_NAME_MAX * 2 + 64];
	ssize_t n;
	int tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY), e = 0;

	if (tty < 0) {
		log_error("no terminal to ask for the passphrase of %s on: give it with "
			  "--key-file FILE (- for standard input) or --key-keyring DESC", what);
		return -ENXIO;
	}
	snprintf(prompt, sizeof(prompt), "%s for %s: ",
		 flags & POOL_KEY_NEW ? "New passphrase" : "Passphrase", what);
	n = ask(tty, prompt, k->data);
	if (n >= 0 && (flags & POOL_KEY_NEW)) {
		k->len = (size_t)n;
		if (!n)
			goto checked;
		if (!(again = key_alloc())) {
			e = -ENOMEM;
			goto out;
		}
		snprintf(prompt, sizeof(prompt), "The same passphrase again: ");
		ssize_t m = ask(tty, prompt, again->data);
		if (m < 0)
			n = m;
		else if ((size_t)m != k->len || memcmp(again->data, k->data, k->len)) {
			log_error("the two passphrases for %s differ: nothing was changed; try again",
				  what);
			e = -EKEYREJECTED;
			goto out;
		}
	}
checked:
	if (n == -EFBIG) {
		log_error("the passphrase for %s is longer than %u bytes: give a shorter one, or "
			  "a key file", what, POOL_KEY_MAX);
		e = -EFBIG;
	} else if (n == -EINTR) {
		log_error("asking for the passphrase of %s was interrupted: nothing was changed",
			  what);
		e = -EINTR;
	} else if (n < 0) {
		log_error("reading the passphrase of %s from the terminal: %s", what,
			  strerror((int)-n));
		e = (int)n;
	} else if (!n) {
		log_error("an empty passphrase for %s protects nothing: nothing was changed; give "
			  "a passphrase", what);
		e = -ENODATA;
	} else {
		k->len = (size_t)n;
	}
out:
	pool_key_free(again);
	close(tty);
	return e;
}

/* ---- the kernel keyring ---- */

static int read_keyring(const char *desc, const char *what, struct pool_key *k)
{
	long id = syscall(SYS_request_key, "user", desc, NULL, 0L), n;

	if (id < 0 && (errno == ENOKEY || errno == EKEYEXPIRED || errno == EKEYREVOKED))
		id = syscall(SYS_keyctl, KEYCTL_SEARCH, (long)KEY_SPEC_USER_KEYRING, "user", desc,
			     0L);
	if (id < 0) {
		int e = errno;
		if (e == ENOKEY || e == EKEYEXPIRED || e == EKEYREVOKED) {
			log_error("the kernel keyring holds no usable key of type user described "
				  "'%s' (the key of %s): add it, e.g. with 'keyctl padd user %s @u'",
				  desc, what, desc);
			return -ENOENT;
		}
		log_error("looking for key '%s' in the kernel keyring: %s", desc, strerror(e));
		return -e;
	}
	/* the length the key has is returned even when it does not fit */
	n = syscall(SYS_keyctl, KEYCTL_READ, id, k->data, (long)(POOL_KEY_MAX + 1));
	if (n < 0) {
		int e = errno;
		log_error("reading key '%s' of the kernel keyring: %s", desc, strerror(e));
		return -e;
	}
	if (n > (long)POOL_KEY_MAX) {
		log_error("key '%s' of the kernel keyring holds %ld bytes, more than the %u a key "
			  "may have", desc, n, POOL_KEY_MAX);
		return -EFBIG;
	}
	if (!n) {
		log_error("key '%s' of the kernel keyring is empty: an empty key protects nothing",
			  desc);
		return -ENODATA;
	}
	k->len = (size_t)n;
	return 0;
}

int pool_key_read(const struct pool_key_source *src, const char *what, unsigned flags,
		  struct pool_key **out)
{
	struct pool_key *k;
	int e;

	*out = NULL;
	if (!(k = key_alloc()))
		return -ENOMEM;
	switch (src->kind) {
	case POOL_KEY_FILE:
		e = read_file(src->arg, what, flags, k);
		break;
	case POOL_KEY_KEYRING:
		e = read_keyring(src->arg, what, k);
		break;
	default:
		e = read_terminal(what, flags, k);
		break;
	}
	if (e) {
		pool_key_free(k);
		return e;
	}
	*out = k;
	return 0;
}

/* ---- PBKDF ---- */

int pool_pbkdf_check(const struct pool_pbkdf *p, char *why, size_t len)
{
	int pbkdf2 = p->type && !strcmp(p->type, "pbkdf2");

	if (p->type && !pbkdf2 && strcmp(p->type, "argon2id") && strcmp(p->type, "argon2i")) {
		snprintf(why, len, "--pbkdf %s: not a PBKDF cryptsetup knows for LUKS2; give "
			 "argon2id, argon2i or pbkdf2", p->type);
		return -EINVAL;
	}
	if (pbkdf2 && p->memory_kib) {
		snprintf(why, len, "--pbkdf-memory applies to argon2i and argon2id only, not to "
			 "--pbkdf pbkdf2");
		return -EINVAL;
	}
	if (p->iterations && p->iter_time_ms) {
		snprintf(why, len, "--pbkdf-force-iterations and --iter-time exclude each other: "
			 "the one fixes the work, the other measures it");
		return -EINVAL;
	}
	if (p->iterations && p->iterations < (pbkdf2 ? 1000u : 4u)) {
		snprintf(why, len, "--pbkdf-force-iterations %u is below the least libcryptsetup "
			 "takes for %s (%u)", p->iterations, pbkdf2 ? "pbkdf2" : "argon2",
			 pbkdf2 ? 1000u : 4u);
		return -EINVAL;
	}
	if (p->memory_kib && (p->memory_kib < 32 || p->memory_kib > 4u * 1024 * 1024)) {
		snprintf(why, len, "--pbkdf-memory %u: give 32 to 4194304 KiB", p->memory_kib);
		return -EINVAL;
	}
	return 0;
}
