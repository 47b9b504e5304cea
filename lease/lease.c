/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lease.c - leases on shared storage through sanlock (lease.h). */
#include "lease/lease.h"

#include "lib/base/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sanlock.h>
#include <sanlock_admin.h>
#include <sanlock_resource.h>
#include <sanlock_rv.h>

/* A resource with its one disk, as sanlock's calls want it. */
struct res1 {
	struct sanlk_resource r;
	struct sanlk_disk disk;
};

static int fill_disk(struct sanlk_disk *d, const struct lease_area *a, uint64_t offset)
{
	memset(d, 0, sizeof(*d));
	if (!a->path || strlen(a->path) >= sizeof(d->path))
		return -EINVAL;
	strcpy(d->path, a->path);
	d->offset = offset;
	return 0;
}

static int check_area(const struct lease_area *a)
{
	if (!a || !a->name || !*a->name || strlen(a->name) > LEASE_NAME_MAX || !a->path ||
	    a->offset % LEASE_ALIGN)
		return -EINVAL;
	return 0;
}

static int fill_ls(struct sanlk_lockspace *ls, const struct lease_area *a, uint64_t host_id)
{
	int r = check_area(a);

	if (r)
		return r;
	memset(ls, 0, sizeof(*ls));
	memcpy(ls->name, a->name, strlen(a->name));
	ls->host_id = host_id;
	ls->flags = SANLK_LSF_ALIGN1M | SANLK_LSF_SECTOR512;
	return fill_disk(&ls->host_id_disk, a, a->offset);
}

static int fill_res(struct res1 *x, const struct lease_area *a)
{
	int r = check_area(a);

	if (r)
		return r;
	memset(x, 0, sizeof(*x));
	memcpy(x->r.lockspace_name, a->name, strlen(a->name));
	memcpy(x->r.name, a->name, strlen(a->name));
	x->r.flags = SANLK_RES_ALIGN1M | SANLK_RES_SECTOR512;
	x->r.num_disks = 1;
	return fill_disk(&x->disk, a, a->offset + LEASE_ALIGN);
}

/* sanlock's result RV of WHAT on A as -errno, logged unless it is one the
 * caller words itself (-EBUSY, -ENOLCK). */
static int from_sanlock(int rv, const char *what, const struct lease_area *a)
{
	int r;

	if (rv >= 0)
		return 0;
	switch (rv) {
	case SANLK_ACQUIRE_IDLIVE:
	case SANLK_ACQUIRE_OWNED:
	case SANLK_ACQUIRE_OTHER:
	case SANLK_ACQUIRE_OWNED_RETRY:	/* its owner's host is dying, not dead yet */
	case -EAGAIN:
	case -EBUSY:
	case -EEXIST:	/* another process of this host holds it */
		return -EBUSY;
	case SANLK_ACQUIRE_LOCKSPACE:
	case -ENOSPC:
		return -ENOLCK;
	case -ECONNREFUSED:
	case -ENOENT:
	case -ENOTCONN:
	case -EACCES:
	case -EPERM:
		log_error("%s on %s: the sanlock daemon cannot be reached (%s); is "
			  "sanlock.service running?", what, a->path, strerror(-rv));
		return -ENOTCONN;
	case SANLK_LEADER_MAGIC:
	case SANLK_LEADER_LOCKSPACE:
	case SANLK_LEADER_RESOURCE:
		log_error("%s on %s: no lease area named %s at byte %" PRIu64 " (%s)", what,
			  a->path, a->name, a->offset, sanlock_strerror(rv));
		return -ENODATA;
	case SANLK_DBLOCK_READ:
	case SANLK_DBLOCK_WRITE:
	case SANLK_LEADER_READ:
	case SANLK_LEADER_WRITE:
	case SANLK_AIO_TIMEOUT:
	case -EIO:
		r = -EIO;
		break;
	default:
		r = rv > -4096 && rv < -200 ? -EPROTO : rv;
		break;
	}
	log_error("%s on %s: %s (sanlock %d)", what, a->path, sanlock_strerror(rv), rv);
	return r;
}

int lease_format(const struct lease_area *a, unsigned io_timeout)
{
	struct sanlk_lockspace ls;
	struct res1 x;
	int r;

	if ((r = fill_ls(&ls, a, 0)) || (r = fill_res(&x, a)))
		return r;
	r = from_sanlock(sanlock_write_lockspace(&ls, LEASE_MAX_HOSTS, 0, io_timeout),
			 "writing the lockspace", a);
	if (!r)
		r = from_sanlock(sanlock_write_resource(&x.r, 0, 0, 0), "writing the lease", a);
	return r;
}

int lease_join(const struct lease_area *a, uint64_t host_id, unsigned io_timeout)
{
	struct sanlk_lockspace ls;
	int r, rv;

	if (!host_id || host_id > LEASE_MAX_HOSTS)
		return -EINVAL;
	if ((r = fill_ls(&ls, a, host_id)))
		return r;
	rv = sanlock_add_lockspace_timeout(&ls, 0, io_timeout);
	if (rv == -EEXIST)
		return 0;
	return from_sanlock(rv, "joining the lockspace", a);
}

int lease_leave(const struct lease_area *a, uint64_t host_id)
{
	struct sanlk_lockspace ls;
	int r, rv;

	if ((r = fill_ls(&ls, a, host_id)))
		return r;
	rv = sanlock_rem_lockspace(&ls, 0);
	if (rv == -ENOENT)
		return 0;
	return from_sanlock(rv, "leaving the lockspace", a);
}

int lease_joined(const struct lease_area *a, uint64_t host_id)
{
	struct sanlk_lockspace ls;
	int r, rv;

	if ((r = fill_ls(&ls, a, host_id)))
		return r;
	rv = sanlock_inq_lockspace(&ls, 0);
	if (rv == 0)
		return 1;
	if (rv == -ENOENT)
		return 0;
	return from_sanlock(rv, "asking for the lockspace", a);
}

int lease_owner(const struct lease_area *a, struct lease_owner *owner)
{
	struct sanlk_host *hs = NULL;
	struct res1 x;
	int n = 0, r;

	memset(owner, 0, sizeof(*owner));
	if ((r = fill_res(&x, a)))
		return r;
	r = from_sanlock(sanlock_read_resource_owners(&x.r, 0, &hs, &n), "reading the lease", a);
	if (!r && n > 0 && hs) {
		owner->host_id = hs[0].host_id;
		owner->generation = hs[0].generation;
		owner->timestamp = hs[0].timestamp;
	}
	free(hs);
	return r;
}

static int acquire(struct lease_hold *h, const struct lease_area *a, const char *killpath,
		   const char *killargs, struct lease_owner *owner, int persistent)
{
	struct res1 x;
	struct sanlk_resource *rs[1] = { &x.r };
	char args[SANLK_HELPER_ARGS_LEN];
	int r;

	h->sock = -1;
	if (owner)
		memset(owner, 0, sizeof(*owner));
	if ((r = fill_res(&x, a)))
		return r;
	if (persistent)
		x.r.flags |= SANLK_RES_PERSISTENT;
	if (killpath && (strlen(killpath) >= SANLK_HELPER_PATH_LEN ||
			 (killargs && strlen(killargs) >= sizeof(args))))
		return -EINVAL;
	h->sock = sanlock_register();
	if (h->sock < 0) {
		r = from_sanlock(h->sock, "registering with sanlock", a);
		h->sock = -1;
		return r ? r : -ENOTCONN;
	}
	if (killpath) {
		snprintf(args, sizeof(args), "%s", killargs ? killargs : "");
		r = from_sanlock(sanlock_killpath(h->sock, 0, killpath, args),
				 "setting the kill path", a);
		if (r)
			goto fail;
	}
	/* never wait for a dying owner's lease to time out (tens of seconds):
	 * busy, and the caller says when to try again; busy with nobody on
	 * the disk: its holder let it go in between, try again at once */
	for (int tries = 0; tries < 3; tries++) {
		struct lease_owner o;

		r = from_sanlock(sanlock_acquire(h->sock, -1,
						 SANLK_ACQUIRE_OWNER_NOWAIT |
							 (persistent ? SANLK_ACQUIRE_ORPHAN : 0),
						 1, rs, NULL),
				 "acquiring the lease", a);
		if (r != -EBUSY)
			break;
		if (lease_owner(a, &o))
			memset(&o, 0, sizeof(o));
		if (owner)
			*owner = o;
		if (o.host_id)
			break;
	}
	if (!r)
		return 0;
fail:
	close(h->sock);
	h->sock = -1;
	return r;
}

int lease_acquire(struct lease_hold *h, const struct lease_area *a, const char *killpath,
		  const char *killargs, struct lease_owner *owner)
{
	return acquire(h, a, killpath, killargs, owner, 0);
}

int lease_acquire_persistent(struct lease_hold *h, const struct lease_area *a,
			     const char *killpath, const char *killargs, struct lease_owner *owner)
{
	return acquire(h, a, killpath, killargs, owner, 1);
}

int lease_release_orphan(const struct lease_area *a)
{
	struct res1 x;
	struct sanlk_resource *rs[1] = { &x.r };
	int r = fill_res(&x, a), rv;

	if (r)
		return r;
	x.r.flags |= SANLK_RES_PERSISTENT;
	rv = sanlock_release(-1, -1, SANLK_REL_ORPHAN, 1, rs);
	if (rv == -ENOENT)
		return 0;
	return from_sanlock(rv, "releasing this host's orphan lease", a);
}

int lease_release(struct lease_hold *h, const struct lease_area *a)
{
	struct res1 x;
	struct sanlk_resource *rs[1] = { &x.r };
	int r = 0;

	if (h->sock < 0)
		return 0;
	if (!(r = fill_res(&x, a)))
		r = from_sanlock(sanlock_release(h->sock, -1, 0, 1, rs), "releasing the lease", a);
	/* closing the registration releases whatever is left */
	close(h->sock);
	h->sock = -1;
	return r;
}

int lease_daemon_check(const char *who)
{
	uint32_t version = 0, proto = 0;
	int rv = sanlock_version(0, &version, &proto);

	if (rv >= 0)
		return 0;
	log_error("%s: the sanlock daemon does not answer (%s); start it ('systemctl start "
		  "sanlock'; sanlock(8)) and run the command again", who, strerror(-rv));
	return -ENOTCONN;
}

int lease_daemon_up(void)
{
	uint32_t version = 0, proto = 0;

	return sanlock_version(0, &version, &proto) >= 0;
}

int lease_held_by(const struct lease_area *a, int pid)
{
	char *state = NULL, want[2 * (LEASE_NAME_MAX + 1) + 2];
	int n = 0, rv, r;

	if ((r = check_area(a)))
		return r;
	rv = sanlock_inquire(-1, pid, 0, &n, &state);
	/* -ESRCH: PID is not registered; the others: no daemon (its socket) */
	if (rv == -ESRCH || rv == -ENOENT || rv == -ENOTCONN || rv == -ECONNREFUSED) {
		free(state);
		return rv == -ESRCH ? 0 : -ENOTCONN;
	}
	if (rv < 0) {
		free(state);
		return from_sanlock(rv, "asking who holds the lease", a);
	}
	/* each resource as "LOCKSPACE:NAME:PATH:OFFSET[:...]", space-separated */
	snprintf(want, sizeof(want), "%s:%s:", a->name, a->name);
	r = 0;
	for (char *t = state; t && *t && !r; t = strchr(t, ' ') ? strchr(t, ' ') + 1 : NULL)
		r = !strncmp(t, want, strlen(want));
	free(state);
	return r;
}
