/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_stack.c - a label is believed only on the top of a stack
 * (lib/dev/stack.h): the check lib/pool runs before it takes a device
 * for a pool's (label scan, devices-file entry, --devices, udev-probe,
 * autoactivation). See STACKED DEVICES in tptools(7). */
#include "lib/pool/host/host.h"
#include "lib/pool/pool.h"

#include "lib/base/log.h"
#include "metadata/vg/label.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A partition's disk: does it carry a pool label? */
static int disk_labelled(const char *disk, void *arg)
{
	struct vg_label l;

	(void)arg;
	return vg_label_probe_path(disk, &l) == VG_LABEL_FOUND;
}

int pool_stack_check(const char *path, const char *pool_uuid, struct tp_stack_verdict *v)
{
	return tp_stack_check(path, pool_uuid, disk_labelled, NULL, v);
}

static const char *top_of(const struct tp_stack_verdict *v)
{
	return v->top[0] ? v->top : v->kind == TP_STACK_MD ? "the array" : "the device above it";
}

void pool_stack_describe(const struct tp_stack_verdict *v, char *buf, size_t len)
{
	snprintf(buf, len, "%s; the pool is on %s", v->what, top_of(v));
}

void pool_stack_skip_line(const char *path, const struct tp_stack_verdict *v)
{
	log_warn("skipping %s: %s; the pool is on %s", path, v->what, top_of(v));
}

int pool_stack_refuse(const char *path, const char *pool_uuid, int allow)
{
	struct tp_stack_verdict v;
	int r = pool_stack_check(path, pool_uuid, &v);

	if (r <= 0)
		return r;
	if (allow) {
		log_warn("%s is %s; using it anyway (--allow-component, for recovery only: "
			 "writes bypass %s)", path, v.what, top_of(&v));
		return 1;
	}
	if (v.kind == TP_STACK_MD && !v.top[0])
		log_error("%s is %s: not a pool device, the pool is on the array. Assemble it "
			  "('mdadm --assemble --scan') and name the array in --devices; "
			  "--allow-component (tpactivate, tpdeactivate, tpstatus, tpsend) takes the "
			  "member itself, for recovery only", path, v.what);
	else
		log_error("%s is %s: not a pool device, the pool is on %s. Name %s in --devices; "
			  "--allow-component (tpactivate, tpdeactivate, tpstatus, tpsend) takes the "
			  "component itself, for recovery only", path,
			  v.what, top_of(&v), v.top[0] ? v.top : "that device");
	return -EBUSY;
}
