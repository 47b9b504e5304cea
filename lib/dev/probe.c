/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.c - see probe.h. */
#include "lib/dev/probe.h"
#include "lib/base/devopen.h"
#include "lib/base/log.h"

#include <blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *tp_sig_kind_name(enum tp_sig_kind k)
{
	switch (k) {
	case TP_SIG_FILESYSTEM:
		return "filesystem";
	case TP_SIG_SWAP:
		return "swap space";
	case TP_SIG_RAID:
		return "RAID member";
	case TP_SIG_LVM:
		return "LVM physical volume";
	case TP_SIG_CRYPTO:
		return "encrypted volume";
	case TP_SIG_PTABLE:
		return "partition table";
	case TP_SIG_TPTOOLS:
		return "tptools label";
	case TP_SIG_OTHER:
		break;
	}
	return "signature";
}

const char *tp_signature_describe(const struct tp_signature *s, char *buf, size_t len)
{
	int n = s->kind == TP_SIG_SWAP && !strcmp(s->type, "swap")
			? snprintf(buf, len, "%s", tp_sig_kind_name(s->kind))
			: snprintf(buf, len, "%s %s", s->type, tp_sig_kind_name(s->kind));
	size_t used = n < 0 ? 0 : TP_MIN((size_t)n, len);

	if (s->label[0] && used < len)
		used += (size_t)snprintf(buf + used, len - used, " (label \"%s\"%s", s->label,
					 s->uuid[0] ? "," : ")");
	if (s->uuid[0] && used < len)
		used += (size_t)snprintf(buf + used, len - used, "%sUUID %s)",
					 s->label[0] ? " " : " (", s->uuid);
	if (s->offset != UINT64_MAX && used < len)
		snprintf(buf + used, len - used, " at offset %" PRIu64, s->offset);
	return buf;
}

static void copy_str(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src ? src : "");
}

static enum tp_sig_kind classify(const char *type, const char *usage, int ptable)
{
	if (ptable)
		return TP_SIG_PTABLE;
	if (!strcmp(type, "LVM2_member") || !strcmp(type, "LVM1_member"))
		return TP_SIG_LVM;
	if (!strcmp(type, "swap") || !strcmp(type, "swsuspend"))
		return TP_SIG_SWAP;
	if (!usage)
		return TP_SIG_OTHER;
	if (!strcmp(usage, "filesystem"))
		return TP_SIG_FILESYSTEM;
	if (!strcmp(usage, "raid"))
		return TP_SIG_RAID;
	if (!strcmp(usage, "crypto"))
		return TP_SIG_CRYPTO;
	return TP_SIG_OTHER;
}

static void add_sig(struct tp_probe_result *res, const struct tp_signature *s)
{
	if (res->count < TP_PROBE_MAX)
		res->sig[res->count++] = *s;
	else
		res->truncated = 1;
}

static const char *value(blkid_probe pr, const char *name)
{
	const char *v = NULL;

	if (blkid_probe_lookup_value(pr, name, &v, NULL) < 0)
		return NULL;
	return v;
}

/* One signature from the probe's current values. */
static void take(blkid_probe pr, struct tp_probe_result *res)
{
	struct tp_signature s = { .offset = UINT64_MAX };
	const char *type = value(pr, "TYPE");
	const char *off;
	int ptable = 0;

	if (!type) {
		type = value(pr, "PTTYPE");
		ptable = type != NULL;
	}
	if (!type)
		return;
	s.kind = classify(type, value(pr, "USAGE"), ptable);
	copy_str(s.type, sizeof(s.type), type);
	copy_str(s.label, sizeof(s.label), ptable ? NULL : value(pr, "LABEL"));
	copy_str(s.uuid, sizeof(s.uuid), value(pr, ptable ? "PTUUID" : "UUID"));
	off = value(pr, ptable ? "PTMAGIC_OFFSET" : "SBMAGIC_OFFSET");
	if (off)
		s.offset = strtoull(off, NULL, 10);
	add_sig(res, &s);
}

static int run_blkid(const char *path, int fd, struct tp_probe_result *res)
{
	blkid_probe pr = blkid_new_probe();
	int r = 0, rc;

	if (!pr) {
		log_error("%s: cannot allocate a libblkid probe", path);
		return -ENOMEM;
	}
	if (blkid_probe_set_device(pr, fd, 0, 0) < 0 ||
	    blkid_probe_enable_superblocks(pr, 1) < 0 ||
	    blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
						      BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID |
						      BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_BADCSUM) < 0 ||
	    blkid_probe_enable_partitions(pr, 1) < 0 ||
	    blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC) < 0) {
		log_error("%s: libblkid cannot probe this device", path);
		r = -EIO;
		goto out;
	}
	/* Each call continues with the next prober, so the loop lists every
	 * signature on the device (as wipefs does), not only the first. */
	while ((rc = blkid_do_probe(pr)) == 0)
		take(pr, res);
	if (rc < 0) {
		log_error("%s: reading the device for signatures failed", path);
		r = -EIO;
	}
out:
	blkid_free_probe(pr);
	return r;
}

static int run_hook(const char *path, int fd, uint64_t size, const struct tp_probe_hook *hook,
		    struct tp_probe_result *res)
{
	size_t len = (size_t)TP_MIN(size, (uint64_t)TP_PROBE_HOOK_BYTES);
	struct tp_signature s = { .kind = TP_SIG_TPTOOLS, .offset = 0 };
	unsigned char *buf;
	ssize_t n;
	int r;

	if (!len)
		return 0;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	n = pread(fd, buf, len, 0);
	if (n < 0 || (size_t)n != len) {
		r = n < 0 ? -errno : -EIO;
		log_error("%s: cannot read the first %zu bytes: %s", path, len, strerror(-r));
		free(buf);
		return r;
	}
	r = hook->match(buf, len, &s, hook->arg);
	free(buf);
	if (r > 0) {
		add_sig(res, &s);
		r = 0;
	}
	return r;
}

int tp_dev_probe(const char *path, const struct tp_probe_hook *hook, struct tp_probe_result *res)
{
	struct stat st;
	uint64_t size = 0;
	int fd, r;

	memset(res, 0, sizeof(*res));
	fd = io_dev_open(path, O_RDONLY);
	if (fd < 0) {
		r = -errno;
		log_error("%s: cannot open: %s", path, strerror(errno));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		log_error("%s: cannot stat: %s", path, strerror(errno));
		goto out;
	}
	if (S_ISREG(st.st_mode)) {
		size = (uint64_t)st.st_size;
	} else if (S_ISBLK(st.st_mode)) {
		off_t end = lseek(fd, 0, SEEK_END);
		size = end > 0 ? (uint64_t)end : 0;
	} else {
		r = -ENOTBLK;
		log_error("%s: not a block device or a regular file", path);
		goto out;
	}
	r = run_blkid(path, fd, res);
	if (!r && hook && hook->match)
		r = run_hook(path, fd, size, hook, res);
out:
	close(fd);
	if (r < 0) {
		memset(res, 0, sizeof(*res));
		return r;
	}
	log_debug(TP_DBG_DEV, "%s: %u signature(s)", path, res->count);
	return res->count > 0;
}
