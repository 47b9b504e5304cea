/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dm_crypt.c - the dm-crypt device of an unlocked encrypted volume (see
 * dm.h "Naming" and "encrypted volumes"): its table (the kernel's
 * Documentation/admin-guide/device-mapper/dm-crypt.rst, "Parameters"),
 * made from what the caller read from the LUKS2 header, and the device
 * itself, stacked on the volume's hidden thin device. The key travels in
 * the table as hex: the buffers that held it are wiped, libdevmapper's
 * too (TP_DM_SECURE). */
#include "kernel/dm.h"
#include "kernel/dm_lib.h"
#include "lib/base/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	unsigned flag;
	const char *arg;
} crypt_features[] = {
	{ TP_DM_CRYPT_ALLOW_DISCARDS, "allow_discards" },
	{ TP_DM_CRYPT_SAME_CPU, "same_cpu_crypt" },
	{ TP_DM_CRYPT_SUBMIT_FROM_CPUS, "submit_from_crypt_cpus" },
	{ TP_DM_CRYPT_NO_READ_WORKQUEUE, "no_read_workqueue" },
	{ TP_DM_CRYPT_NO_WRITE_WORKQUEUE, "no_write_workqueue" },
};

static bool word(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

int tp_dm_crypt_table(struct tp_dm_target *t, const struct tp_dm_crypt *c)
{
	static const char hex[] = "0123456789abcdef";
	unsigned nopt = 0, known = 0;
	size_t pos = 0;
	int n;

	memset(t, 0, sizeof(*t));
	for (unsigned i = 0; i < TP_ARRAY_SIZE(crypt_features); i++)
		known |= crypt_features[i].flag;
	if (!word(c->cipher) || !word(c->dev) || !c->length || (c->key_size && !c->key) ||
	    c->key_size * 2 + 2 > TP_DM_PARAMS_MAX / 2 || (c->features & ~known) ||
	    (c->sector_size && (c->sector_size < 512 || c->sector_size > 4096 ||
				(c->sector_size & (c->sector_size - 1)))) ||
	    (c->sector_size > 512 && (c->length % (c->sector_size / 512) ||
				      c->iv_offset % (c->sector_size / 512))))
		return -EINVAL;
	t->start = 0;
	t->length = c->length;
	snprintf(t->type, sizeof(t->type), "crypt");
	n = snprintf(t->params, sizeof(t->params), "%s ", c->cipher);
	if (n < 0 || (size_t)n >= sizeof(t->params))
		goto too_long;
	pos = (size_t)n;
	if (!c->key_size) {
		t->params[pos++] = '-';	/* cipher_null: no key */
	} else {
		if (pos + c->key_size * 2 >= sizeof(t->params))
			goto too_long;
		for (size_t i = 0; i < c->key_size; i++) {
			t->params[pos++] = hex[c->key[i] >> 4];
			t->params[pos++] = hex[c->key[i] & 15];
		}
	}
	t->params[pos] = '\0';
	for (unsigned i = 0; i < TP_ARRAY_SIZE(crypt_features); i++)
		nopt += !!(c->features & crypt_features[i].flag);
	nopt += c->sector_size > 512;
	n = snprintf(t->params + pos, sizeof(t->params) - pos, " %" PRIu64 " %s %" PRIu64,
		     c->iv_offset, c->dev, c->offset);
	if (n < 0 || (size_t)n >= sizeof(t->params) - pos)
		goto too_long;
	pos += (size_t)n;
	if (nopt) {
		n = snprintf(t->params + pos, sizeof(t->params) - pos, " %u", nopt);
		if (n < 0 || (size_t)n >= sizeof(t->params) - pos)
			goto too_long;
		pos += (size_t)n;
	}
	for (unsigned i = 0; i < TP_ARRAY_SIZE(crypt_features); i++) {
		if (!(c->features & crypt_features[i].flag))
			continue;
		n = snprintf(t->params + pos, sizeof(t->params) - pos, " %s", crypt_features[i].arg);
		if (n < 0 || (size_t)n >= sizeof(t->params) - pos)
			goto too_long;
		pos += (size_t)n;
	}
	if (c->sector_size > 512) {
		n = snprintf(t->params + pos, sizeof(t->params) - pos, " sector_size:%" PRIu32,
			     c->sector_size);
		if (n < 0 || (size_t)n >= sizeof(t->params) - pos)
			goto too_long;
	}
	return 0;
too_long:
	explicit_bzero(t, sizeof(*t));
	return -ENAMETOOLONG;
}

int tp_dm_crypt_open(const char *pool, const char *pool_uuid, const char *vol, uint32_t dev_id,
		     const struct tp_dm_crypt *c, unsigned flags)
{
	char name[TP_DM_NAME_MAX], luks[TP_DM_NAME_MAX], uuid[TP_DM_UUID_MAX], devno[32];
	struct tp_dm_crypt cc = *c;
	struct tp_dm_target t;
	struct tp_dm_info info;
	int r;

	if ((r = tp_dm_name(name, sizeof(name), pool, TP_DM_ROLE_CRYPT, vol)) ||
	    (r = tp_dm_luks_name(luks, sizeof(luks), pool, vol)) ||
	    (r = tp_dm_uuid(uuid, sizeof(uuid), pool_uuid, TP_DM_ROLE_CRYPT, dev_id))) {
		log_error("%s/%s: cannot make a device-mapper name or uuid", pool ? pool : "",
			  vol ? vol : "");
		return r;
	}
	if (!tp_dm_info(name, &info))
		return -EEXIST;
	if ((r = tp_dm_info(luks, &info))) {
		if (r == -ENXIO)
			log_error("%s/%s: its thin device %s is not loaded", pool, vol, luks);
		return r;
	}
	snprintf(devno, sizeof(devno), "%" PRIu32 ":%" PRIu32, info.major, info.minor);
	cc.dev = devno;
	if ((r = tp_dm_crypt_table(&t, &cc))) {
		log_error("%s/%s: cannot make a dm-crypt table from its LUKS2 header (cipher %s, "
			  "%zu-byte key, sector size %" PRIu32 ")", pool, vol, c->cipher,
			  c->key_size, c->sector_size);
		return r;
	}
	r = tp_dm_create(name, uuid, &t, 1, TP_DM_SECURE | (flags & TP_DM_READ_ONLY));
	explicit_bzero(&t, sizeof(t));
	if (r == -EINVAL || r == -ENOENT)
		log_error("%s/%s: the kernel refused the dm-crypt table (cipher %s): is the "
			  "dm-crypt module or the cipher's missing? (the kernel log says)", pool,
			  vol, c->cipher);
	return r;
}

/* The fifth word of a crypt table's params (the payload's offset, in
 * sectors), or -EPROTO. */
static int crypt_offset(const char *params, uint64_t *offset)
{
	const char *p = params;
	unsigned long long v;
	char *end;

	for (int i = 0; i < 4; i++) {
		p = strchr(p, ' ');
		if (!p)
			return -EPROTO;
		p++;
	}
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno || end == p || (*end && *end != ' '))
		return -EPROTO;
	*offset = v;
	return 0;
}

int tp_dm_crypt_resize(const char *name, uint64_t thin_sectors)
{
	struct tp_dm_target t;
	struct tp_dm_info info;
	uint64_t offset;
	int r, rr;

	memset(&t, 0, sizeof(t));
	if ((r = tp_dm_info(name, &info)))
		return r;
	if ((r = tp_dm_target_line(name, true, TP_DM_SECURE, t.type, sizeof(t.type), t.params,
				   sizeof(t.params))))
		goto out;
	if (strcmp(t.type, "crypt") || crypt_offset(t.params, &offset) || offset >= thin_sectors) {
		log_error("%s: not a dm-crypt device over a volume of %" PRIu64 " sectors", name,
			  thin_sectors);
		r = -EINVAL;
		goto out;
	}
	t.length = thin_sectors - offset;
	/* whole encryption sectors only, as at the unlock */
	{
		const char *ss = strstr(t.params, " sector_size:");
		unsigned long v = ss ? strtoul(ss + 13, NULL, 10) : 512;

		if (v > 512 && v <= 4096)
			t.length -= t.length % (v / 512);
	}
	if ((r = tp_dm_load(name, &t, 1, TP_DM_SECURE | (info.read_only ? TP_DM_READ_ONLY : 0)))) {
		log_error("%s: the kernel refused its new size: %s", name, strerror(-r));
		goto out;
	}
	if ((r = tp_dm_suspend(name, 0))) {
		log_error("%s: cannot suspend it: %s", name, strerror(-r));
		goto out;
	}
	if ((rr = tp_dm_resume(name))) {
		log_error("%s: cannot resume it: %s; run 'dmsetup resume %s'", name, strerror(-rr),
			  name);
		r = rr;
	}
out:
	explicit_bzero(&t, sizeof(t));
	return r;
}
