/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lease.h - leases on shared storage through sanlock (issue 24).
 *
 * Owns: the one use of sanlock's client library (libsanlock_client, LGPL):
 * a lease area on a shared device holds a lockspace (delta leases: which
 * host ids are alive, renewed by each host's sanlock daemon) and one
 * resource lease (paxos: which host holds it). A host joins the lockspace
 * with its host id once (lease_join: the daemon then renews its delta
 * lease every io_timeout/... seconds, and a host that stops renewing is
 * dead after 8 x io_timeout + ...); a process acquires the resource lease
 * (lease_acquire) and holds it for as long as it lives and keeps its
 * registration (the socket in struct lease_hold) open: sanlock releases
 * it when the process ends. If this host's delta lease cannot be renewed
 * (the storage is gone), sanlock runs the holder's kill path, then kills
 * the holder; with the watchdog (wdmd) a host that does not comply is
 * reset before another host may acquire the lease. We write no lock
 * protocol of our own.
 *
 * Layout of a lease area (LEASE_AREA_BYTES, 1 MiB aligned, 512-byte
 * sectors): the lockspace at offset, the resource lease at offset +
 * LEASE_ALIGN.
 *
 * Returns 0 or -errno: -ENOTCONN no sanlock daemon (or it refused us),
 * -ENOLCK this host has not joined the lockspace, -EBUSY the lease is held
 * by another live host (struct lease_owner says which), -EIO the storage
 * could not be read or written, -ENODATA no lease area there (not
 * formatted, or another name), -EINVAL bad arguments, -EPROTO any other
 * sanlock error (logged with sanlock's own words). */
#ifndef TP_LEASE_LEASE_H
#define TP_LEASE_LEASE_H

#include <stdint.h>

#include "lib/base/compiler.h"

#define LEASE_ALIGN (1024u * 1024u)
#define LEASE_AREA_BYTES (2u * LEASE_ALIGN)
#define LEASE_MAX_HOSTS 2000u
#define LEASE_NAME_MAX 47u	/* sanlock's names: 48 bytes with the NUL */

/* Where a lease area is and what it is called: NAME (the lockspace's and
 * the resource's, e.g. the pool's uuid) on PATH at OFFSET. */
struct lease_area {
	const char *name;
	const char *path;
	uint64_t offset;
};

/* 0 when this host's sanlock daemon answers, else -ENOTCONN (logged,
 * naming WHO, e.g. "pool vault"). */
int lease_daemon_check(const char *who) TP_MUST_CHECK;
/* 1 when the daemon answers, 0 when not; nothing logged. */
int lease_daemon_up(void);

/* 1 when process PID holds A's resource lease, 0 when it holds none of
 * it (or is not registered with sanlock), -errno. */
int lease_held_by(const struct lease_area *a, int pid);

/* Who holds a resource lease. */
struct lease_owner {
	uint64_t host_id;	/* 0: nobody */
	uint64_t generation;
	uint64_t timestamp;	/* of the owner's delta lease, seconds */
};

/* Write an empty lockspace and resource lease (through the daemon). */
int lease_format(const struct lease_area *a, unsigned io_timeout) TP_MUST_CHECK;

/* Join the lockspace as HOST_ID (1..LEASE_MAX_HOSTS); waits until the
 * daemon holds this host's delta lease (tens of seconds: sanlock makes
 * sure no other host uses the id). Joined already: 0. */
int lease_join(const struct lease_area *a, uint64_t host_id, unsigned io_timeout) TP_MUST_CHECK;
/* Leave it (no lease may be held). Not joined: 0. */
int lease_leave(const struct lease_area *a, uint64_t host_id) TP_MUST_CHECK;
/* 1 joined, 0 not, or -errno. */
int lease_joined(const struct lease_area *a, uint64_t host_id);

/* A held lease: the registration this process keeps with the daemon. */
struct lease_hold {
	int sock;		/* -1: none */
};

/* Register this process, set KILLPATH (a program with its ARGS that
 * sanlock runs when the lease cannot be kept; NULL: none) and acquire the
 * resource lease exclusively. -EBUSY: *OWNER (may be NULL) says who has
 * it. */
int lease_acquire(struct lease_hold *h, const struct lease_area *a, const char *killpath,
		  const char *killargs, struct lease_owner *owner) TP_MUST_CHECK;
/* The same, a persistent lease: when the process ends without releasing it
 * (killed), sanlock keeps it held by this host (an orphan: other hosts
 * still see it held until this host is dead), and the next persistent
 * acquire on this host takes the orphan over. */
int lease_acquire_persistent(struct lease_hold *h, const struct lease_area *a,
			     const char *killpath, const char *killargs, struct lease_owner *owner)
	TP_MUST_CHECK;
/* Release A's lease if it is an orphan of this host (asynchronous). */
int lease_release_orphan(const struct lease_area *a);
/* Release it and end the registration; safe on a hold that has none. */
int lease_release(struct lease_hold *h, const struct lease_area *a);

/* Who holds the resource lease now, as the storage says (owner->host_id 0:
 * nobody; an owner whose host has died still shows until another host
 * acquires it). */
int lease_owner(const struct lease_area *a, struct lease_owner *owner) TP_MUST_CHECK;

#endif
