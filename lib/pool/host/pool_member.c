/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_member.c - what a device's tptools label says, for udev
 * (`tp udev-probe`, udev/60-tptools-member.rules) and autoactivation
 * (tpactivate --auto). Reads the label sector and, for a device with our
 * label, what stacks it (libblkid's RAID probe, sysfs, udev's database),
 * through read-only opens: never writes, takes no lock, so it is safe and
 * fast in a udev worker. See pool.h. */
#include "lib/pool/host/host.h"
#include "lib/pool/pool.h"

#include "metadata/vg/label.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

_Static_assert(POOL_NAME_MAX == VG_NAME_MAX && POOL_UUID_LEN == VG_UUID_LEN,
	       "pool_member sizes differ from the label's");

int pool_member_probe(const char *path, struct pool_member *m)
{
	struct tp_stack_verdict v;
	struct vg_label l;
	int r = vg_label_probe_path(path, &l), s;

	memset(m, 0, sizeof(*m));
	if (r == VG_LABEL_NONE)
		return 0;
	if (r == VG_LABEL_FOUND || r == -EUCLEAN) {
		/* a component shows the label of the device built on it: not
		 * ours to mark or to activate (STACKED DEVICES, tptools(7)) */
		s = pool_stack_check(path, r == VG_LABEL_FOUND ? l.pool_uuid : NULL, &v);
		if (s < 0)
			return s;
		if (s > 0) {
			pool_stack_describe(&v, m->stacked, sizeof(m->stacked));
			return 0;
		}
	}
	if (r == -EUCLEAN) {
		m->damaged = 1;	/* our magic, but the label does not check out */
		return 1;
	}
	if (r < 0)
		return r;
	snprintf(m->pool, sizeof(m->pool), "%s", l.pool_name);
	snprintf(m->pool_uuid, sizeof(m->pool_uuid), "%s", l.pool_uuid);
	snprintf(m->device_uuid, sizeof(m->device_uuid), "%s", l.pv_uuid);
	snprintf(m->role, sizeof(m->role), "%s", vg_role_name(l.role));
	return 1;
}
