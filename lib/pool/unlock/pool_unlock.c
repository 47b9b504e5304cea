/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_unlock.c - unlocking an encrypted volume at activation (pool.h
 * "encrypted volumes"): its thin device is loaded hidden
 * (<pool>-<vol>-luks), the LUKS2 header on it read through libcryptsetup
 * and matched to the VG's luks_uuid before any key is tried, the volume
 * key taken out with the first key that opens a keyslot, and the dm-crypt
 * device <pool>-<vol> stacked on it (kernel/dm_crypt.c) with the header's
 * cipher, offsets, sector size and persistent flags (allow_discards...).
 * Passphrases and the volume key are wiped once used.
 *
 * Keys, in this order: the key the command was given (pool_unlock_key:
 * tpactivate --key-file or --key-keyring), then <key dir>/<pool>/<volume>, then the key
 * files of the volume's origins that share its header (a snapshot
 * unlocks with its origin's key). The key directory's files must be
 * regular files owned by root that no group or other user can read or
 * write (like crypttab's). Never a prompt: a volume without a key is left
 * locked (nothing of it loaded) with one line saying how to unlock it,
 * and the other volumes go on; pool_unlock_left_locked counts them. */
#include "lib/pool/unlock/unlock.h"
#include "lib/pool/pool.h"
#include "lib/pool/core/core.h"

#include "kernel/dm.h"
#include "lib/base/config.h"
#include "lib/base/critical.h"
#include "lib/base/dmlog.h"
#include "lib/base/log.h"
#include "lib/base/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libcryptsetup.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* cryptsetup's own limit for a key file (its default --keyfile-size cap) */
#define KEY_FILE_MAX (8u << 20)

static const void *given_key;
static size_t given_len;
static const char *given_where;
static unsigned left_locked;

void pool_unlock_key(const void *data, size_t len, const char *where)
{
	given_key = data;
	given_len = len;
	given_where = where;
}

unsigned pool_unlock_left_locked(void)
{
	return left_locked;
}

/* The key directory into BUF: tptools.conf crypt/key_dir, else
 * <config dir>/keys. */
static const char *pool_unlock_key_dir(char *buf, size_t len)
{
	const char *dir = tp_config_str("crypt/key_dir");

	if (dir && *dir)
		snprintf(buf, len, "%s", dir);
	else
		snprintf(buf, len, "%s/keys", tp_config_dir());
	return buf;
}

struct key {
	char *data;
	size_t len;
};

static void key_drop(struct key *k)
{
	if (k->data) {
		explicit_bzero(k->data, k->len);
		free(k->data);
	}
	k->data = NULL;
	k->len = 0;
}

/* Read key file PATH whole into K. CHECKED: a file of the key directory
 * (regular, root's, mode ??00). 0; -ENOENT (not logged) when it does not
 * exist; else -errno, logged naming PATH. */
static int key_read(const char *path, int checked, struct key *k, const char *pool,
		    const char *vol)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	size_t cap = 4096;
	struct stat st;
	int r = 0;

	k->data = NULL;
	k->len = 0;
	if (fd < 0) {
		r = -errno;
		if (r != -ENOENT || !checked)
			log_error("pool %s: volume %s: cannot open key file %s: %s", pool, vol, path,
				  strerror(-r));
		return r;
	}
	if (checked) {
		if (fstat(fd, &st)) {
			r = -errno;
		} else if (!S_ISREG(st.st_mode)) {
			log_error("pool %s: volume %s: key file %s is not a regular file; not used",
				  pool, vol, path);
			r = -EINVAL;
		} else if (st.st_uid != 0 || (st.st_mode & 077)) {
			log_error("pool %s: volume %s: key file %s is %s (mode %04o); not used: "
				  "'chown root: %s; chmod 600 %s'", pool, vol, path,
				  st.st_uid ? "not owned by root" : "open to group or others",
				  (unsigned)(st.st_mode & 07777), path, path);
			r = -EACCES;
		}
		if (r)
			goto out;
	}
	if (!(k->data = malloc(cap))) {
		r = -ENOMEM;
		goto out;
	}
	for (;;) {
		ssize_t n;

		if (k->len == cap) {
			char *bigger;

			if (cap >= KEY_FILE_MAX) {
				log_error("pool %s: volume %s: key file %s is larger than %u bytes", pool,
					  vol, path, KEY_FILE_MAX);
				r = -EFBIG;
				break;
			}
			/* never realloc: the old buffer is wiped, not left behind */
			if (!(bigger = malloc(cap * 2))) {
				r = -ENOMEM;
				break;
			}
			memcpy(bigger, k->data, k->len);
			explicit_bzero(k->data, k->len);
			free(k->data);
			k->data = bigger;
			cap *= 2;
		}
		n = read(fd, k->data + k->len, cap - k->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			log_error("pool %s: volume %s: cannot read key file %s: %s", pool, vol, path,
				  strerror(-r));
			break;
		}
		if (!n)
			break;
		k->len += (size_t)n;
	}
	if (!r && !k->len) {
		log_error("pool %s: volume %s: key file %s is empty; not used", pool, vol, path);
		r = -EINVAL;
	}
	if (r) {
		explicit_bzero(k->data, cap);
		free(k->data);
		k->data = NULL;
		k->len = 0;
	}
out:
	close(fd);
	return r;
}

/* The key file of volume NAME in the key directory. */
static int key_dir_file(char *buf, size_t len, const char *pool, const char *name)
{
	char dir[PATH_MAX];
	int n = snprintf(buf, len, "%s/%s/%s", pool_unlock_key_dir(dir, sizeof(dir)), pool, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The LUKS2 header's settings as a dm-crypt table (less the device). */
static int crypt_params(struct crypt_device *cd, const struct pool *p,
			const struct vg_volume *v, char *cipher, size_t len,
			struct tp_dm_crypt *c)
{
	uint32_t flags = 0;
	uint64_t offset = crypt_get_data_offset(cd), sectors = v->size / 512;
	const char *name = crypt_get_cipher(cd), *mode = crypt_get_cipher_mode(cd);
	int ss = crypt_get_sector_size(cd), n;

	memset(c, 0, sizeof(*c));
	struct crypt_params_integrity ip;

	memset(&ip, 0, sizeof(ip));
	if (!crypt_get_integrity_info(cd, &ip) && ip.integrity && *ip.integrity) {
		log_error("pool %s: volume %s: its LUKS2 header asks for authenticated encryption "
			  "(%s), which tptools does not activate", pool_name(p), v->name, ip.integrity);
		return -EOPNOTSUPP;
	}
	n = snprintf(cipher, len, "%s%s%s", name ? name : "", mode && *mode ? "-" : "",
		     mode ? mode : "");
	if (!name || n < 0 || (size_t)n >= len || offset >= sectors) {
		log_error("pool %s: volume %s: its LUKS2 header gives no usable cipher or a payload "
			  "beyond the volume (offset %llu sectors)", pool_name(p), v->name,
			  (unsigned long long)offset);
		return -EINVAL;
	}
	c->cipher = cipher;
	c->iv_offset = crypt_get_iv_offset(cd);
	c->offset = offset;
	c->length = sectors - offset;
	c->sector_size = ss > 0 ? (uint32_t)ss : 512;
	if (c->sector_size > 512)
		c->length -= c->length % (c->sector_size / 512);
	if (!crypt_persistent_flags_get(cd, CRYPT_FLAGS_ACTIVATION, &flags)) {
		if (flags & CRYPT_ACTIVATE_ALLOW_DISCARDS)
			c->features |= TP_DM_CRYPT_ALLOW_DISCARDS;
		if (flags & CRYPT_ACTIVATE_SAME_CPU_CRYPT)
			c->features |= TP_DM_CRYPT_SAME_CPU;
		if (flags & CRYPT_ACTIVATE_SUBMIT_FROM_CRYPT_CPUS)
			c->features |= TP_DM_CRYPT_SUBMIT_FROM_CPUS;
		if (flags & CRYPT_ACTIVATE_NO_READ_WORKQUEUE)
			c->features |= TP_DM_CRYPT_NO_READ_WORKQUEUE;
		if (flags & CRYPT_ACTIVATE_NO_WRITE_WORKQUEUE)
			c->features |= TP_DM_CRYPT_NO_WRITE_WORKQUEUE;
	}
	return 0;
}

/* The next key to try for V: KEY filled and *WHERE named, 1; 0 when
 * there are no more; -errno for one that could not be read (logged; the
 * next is tried). *STEP is the position in the order. */
static int next_key(const struct pool *p, const struct vg_volume *v, unsigned *step,
		    const struct vg_volume **from, char *where, size_t len, struct key *k)
{
	for (;;) {
		const struct vg_volume *o;
		unsigned s = (*step)++;
		int r;

		if (s == 0) {
			if (!given_key)
				continue;
			snprintf(where, len, "%s", given_where ? given_where : "the key given");
			if (!(k->data = malloc(given_len ? given_len : 1)))
				return -ENOMEM;
			memcpy(k->data, given_key, given_len);
			k->len = given_len;
			return 1;
		}
		/* 1: the volume's own file; 2...: its origins' that share its
		 * header, up the chain (at most as many as there are volumes) */
		if (s == 1) {
			o = v;
		} else {
			if (!*from || !(*from)->origin[0] || s > pool_vg(p)->nr_volumes + 1)
				return 0;
			o = vg_find_volume(pool_vg(p), (*from)->origin);
			if (!o || strcmp(o->luks_uuid, v->luks_uuid))
				return 0;
		}
		*from = o;
		if ((r = key_dir_file(where, len, pool_name(p), o->name)))
			continue;
		r = key_read(where, 1, k, pool_name(p), v->name);
		if (r == -ENOENT)
			continue;
		return r ? r : 1;
	}
}

/* libcryptsetup's messages go to our debug log: ours say what happened */
static void cs_log(int level, const char *msg, void *usrptr)
{
	size_t n = strlen(msg);

	(void)usrptr;
	(void)level;
	log_debug(TP_DBG_KERNEL, "libcryptsetup: %.*s", (int)(n && msg[n - 1] == '\n' ? n - 1 : n),
		  msg);
}

/* Unload the hidden thin device again (nothing of V stays loaded). */
static void unload_hidden(struct pool *p, const struct vg_volume *v)
{
	int r = tp_dm_vol_deactivate(pool_name(p), v->name);

	if (r && r != -ENXIO)
		log_warn("pool %s: volume %s: its thin device stays loaded (%s); "
			 "'tpdeactivate %s %s' removes it", pool_name(p), v->name, strerror(-r),
			 pool_name(p), v->name);
}

static int unlock_volume(struct pool *p, const struct vg_volume *v)
{
	char luks[TP_DM_NAME_MAX], path[TP_DM_NAME_MAX + 16], dir[PATH_MAX], tried[PATH_MAX];
	char where[PATH_MAX], cipher[64], top[TP_DM_NAME_MAX];
	const struct vg_volume *from = NULL;
	struct crypt_device *cd = NULL;
	struct tp_dm_info info;
	struct tp_dm_crypt c;
	unsigned step = 0, nkeys = 0, bad = 0;
	unsigned char vk[512];
	size_t vk_size = 0;
	const char *uuid;
	int r;

	if ((r = tp_dm_name(top, sizeof(top), pool_name(p), TP_DM_ROLE_CRYPT, v->name)) ||
	    (r = tp_dm_luks_name(luks, sizeof(luks), pool_name(p), v->name)) ||
	    (r = tp_dm_path(path, sizeof(path), luks))) {
		log_error("pool %s: volume %s: its name is too long for the device-mapper names of "
			  "an encrypted volume (%s-luks); rename it ('tvrename')", pool_name(p), v->name,
			  top);
		return r;
	}
	if (!tp_dm_info(top, &info))
		return 0;	/* unlocked already */
	r = tp_dm_vol_activate(pool_name(p), pool_vg(p)->uuid, v->name, v->dev_id, v->size / 512,
			       TP_DM_VOL_LUKS | (v->read_only ? TP_DM_READ_ONLY : 0));
	if (r && r != -EEXIST) {	/* EEXIST: left by a command cut short */
		log_error("pool %s: cannot activate volume %s: %s", pool_name(p), v->name, strerror(-r));
		return r;
	}
	tp_test_pause("unlock-thin-loaded");
	crypt_set_log_callback(NULL, cs_log, NULL);
	if ((r = crypt_init(&cd, path)) ||
	    (r = crypt_load(cd, CRYPT_LUKS2, NULL))) {
		log_error("pool %s: volume %s: no readable LUKS2 header on it (%s); left locked: "
			  "'tpcheck %s' looks at it", pool_name(p), v->name, strerror(r < 0 ? -r : EIO),
			  pool_name(p));
		goto locked;
	}
	uuid = crypt_get_uuid(cd);
	if (!uuid || strcmp(uuid, v->luks_uuid)) {
		log_error("pool %s: volume %s: the LUKS2 header on it has uuid %s, not the %s its "
			  "pool records; no key tried, left locked", pool_name(p), v->name,
			  uuid ? uuid : "(none)", v->luks_uuid);
		r = -EUCLEAN;
		goto locked;
	}
	if ((r = crypt_params(cd, p, v, cipher, sizeof(cipher), &c)))
		goto locked;
	tried[0] = '\0';
	for (;;) {
		struct key k;
		int kr = next_key(p, v, &step, &from, where, sizeof(where), &k), n;

		if (!kr)
			break;
		nkeys++;
		n = (int)strlen(tried);
		if ((size_t)n + strlen(where) + 3 < sizeof(tried)) {
			if (n)
				strcat(tried, ", ");
			strcat(tried, where);
		}
		if (kr < 0) {
			bad++;
			continue;
		}
		vk_size = crypt_get_volume_key_size(cd);
		if (vk_size > sizeof(vk)) {
			key_drop(&k);
			log_error("pool %s: volume %s: its volume key of %zu bytes is larger than "
				  "tptools takes", pool_name(p), v->name, vk_size);
			r = -EINVAL;
			goto locked;
		}
		r = crypt_volume_key_get(cd, CRYPT_ANY_SLOT, (char *)vk, &vk_size, k.data, k.len);
		key_drop(&k);
		if (r >= 0)
			break;
		/* a wrong key is said once, in the line below; another
		 * failure here */
		if (r != -EPERM)
			log_error("pool %s: volume %s: libcryptsetup could not open a keyslot with %s: "
				  "%s", pool_name(p), v->name, where, strerror(-r));
		bad++;
		vk_size = 0;
	}
	if (!vk_size) {
		if (!nkeys) {
			char own[PATH_MAX];

			if (key_dir_file(own, sizeof(own), pool_name(p), v->name))
				snprintf(own, sizeof(own), "%s/%s/%s",
					 pool_unlock_key_dir(dir, sizeof(dir)), pool_name(p), v->name);
			log_error("pool %s: volume %s is encrypted and has no key (no %s); left "
				  "locked: unlock it with 'tpactivate --key-file FILE %s %s'", pool_name(p),
				  v->name, own, pool_name(p), v->name);
		} else {
			log_error("pool %s: volume %s: no key opened any of its keyslots (tried %s); "
				  "left locked: unlock it with 'tpactivate --key-file FILE %s %s'",
				  pool_name(p), v->name, tried, pool_name(p), v->name);
		}
		r = -EACCES;
		goto locked;
	}
	c.key = vk;
	c.key_size = vk_size;
	tp_critical_begin();
	r = tp_dm_crypt_open(pool_name(p), pool_vg(p)->uuid, v->name, v->dev_id, &c,
			     v->read_only ? TP_DM_READ_ONLY : 0);
	tp_critical_end();
	explicit_bzero(vk, sizeof(vk));
	explicit_bzero(&c, sizeof(c));
	crypt_free(cd);
	tp_dmlog_reclaim();	/* libcryptsetup left libdevmapper's default */
	if (r == -EEXIST)
		return 0;
	if (r) {
		unload_hidden(p, v);
		return r;
	}
	return 0;
locked:
	explicit_bzero(vk, sizeof(vk));
	if (cd)
		crypt_free(cd);
	tp_dmlog_reclaim();
	unload_hidden(p, v);
	left_locked++;
	(void)bad;
	return 0;
}

/* the load_volume hook: encrypted volumes are ours */
static int load_volume(struct pool *p, const struct vg_volume *v)
{
	int r;

	if (!v->luks_uuid[0])
		return 0;
	r = unlock_volume(p, v);
	return r ? r : 1;
}

static struct pool_feature unlock_feature = {
	.name = "unlock",
	.load_volume = load_volume,
};

void pool_unlock_register(void)
{
	pool_feature_register(&unlock_feature);
}
