/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_create.c - tpcreate's engine: check the devices, decide the
 * geometry (policy.h), write thin metadata, VG metadata and labels. */
#include "lib/pool/admin/admin_int.h"
#include "lib/pool/core/core.h"
#include "lib/pool/mirror/mirror.h"
#include "lib/pool/pool_admin.h"
#include "lib/pool/lease/lease_feature.h"

#include "lib/base/critical.h"
#include "lib/base/log.h"
#include "lib/base/sysid.h"
#include "lib/base/units.h"
#include "lib/dev/probe.h"
#include "lib/dev/stack.h"
#include "lib/dev/udev_mark.h"
#include "lib/dev/topology.h"
#include "lib/dev/wipe.h"
#include "lib/pool/host/host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* libblkid does not know our label: recognise it for tp_dev_probe. */
static int match_label(const void *buf, size_t len, struct tp_signature *sig, void *arg)
{
	struct tp_log_capture quiet;
	struct vg_label l;
	int r;

	(void)arg;
	if (len < VG_LABEL_OFFSET + VG_LABEL_SIZE)
		return 0;
	if (memcmp((const char *)buf + VG_LABEL_OFFSET + 4, VG_LABEL_MAGIC, 8))
		return 0;
	sig->kind = TP_SIG_TPTOOLS;
	snprintf(sig->type, sizeof(sig->type), "a");
	sig->offset = VG_LABEL_OFFSET;
	tp_log_capture(&quiet); /* a damaged label is reported below */
	r = vg_label_decode((const uint8_t *)buf + VG_LABEL_OFFSET, "probe", &l);
	tp_log_capture(NULL);
	if (r == VG_LABEL_FOUND)
		snprintf(sig->label, sizeof(sig->label), "pool %.56s", l.pool_name);
	else
		snprintf(sig->label, sizeof(sig->label), "damaged label");
	return 1;
}

static int device_size(const char *what, const char *path, uint64_t *size)
{
	struct io_engine *io;
	int r = io_fd_open(path, IO_RDONLY, &io);

	if (r) {
		if (r != -ENOTBLK)	/* logged by io_fd_open */
			log_error("cannot open %s device %s: %s", what, path, strerror(-r));
		return r;
	}
	*size = io->size;
	io_destroy(io);
	if (!*size) {
		/* the policy reads a size of 0 as "not known" */
		log_error("%s device %s is empty (0 bytes); an image file needs its size first "
			  "(truncate -s SIZE %s)", what, path, path);
		return -ENOSPC;
	}
	return 0;
}

/* A device that carries another pool's label (pool_label_owner): a
 * member of that pool (its VG names it) is never taken, not even with
 * --force: that pool must give it up first (tpreduce --data, tpremove);
 * nor one that cannot be told apart from a member (its pool is known but
 * cannot be read whole, or is behind the device's own VG copy). An
 * orphan of a pool (its VG does not name it) or the label of a pool of
 * which nothing else is known is taken with FORCE, else refused naming
 * 'tpremove --label'. */
static int in_use(const char *path, const char *name, int force, int again)
{
	struct pool_label_owner o;
	struct vg_label l;
	int r;

	/* under the lock of NAME (the second look), a label of a pool of
	 * that name cannot be looked at again (its lock is ours now): the
	 * first look stands, and the pool of that name had no devices-file
	 * entry then (pool_plan refuses a name in use) */
	if (again && !pool_read_label(path, &l) && !strcmp(l.pool_name, name))
		return 0;
	if ((r = pool_label_owner(path, &o)))
		return r;
	switch (o.kind) {
	case POOL_LABEL_NONE:
	case POOL_LABEL_DAMAGED:	/* a signature: --force takes it (below) */
		return 0;
	case POOL_LABEL_ORPHAN:
	case POOL_LABEL_GONE:
		if (!force) {
			pool_label_refusal(path, &o, "tpcreate will not take it", 1);
			return -EBUSY;
		}
		if (!again)
			log_warn("%s carries %s; taking it anyway (--force)", path, o.what);
		return 0;
	default:
		pool_label_refusal(path, &o, "tpcreate will not take it, not even with --force", 0);
		return -EBUSY;
	}
}

/* The device uuids of the tptools labels on the devices of P (what
 * tpcreate --force takes over: an orphan's or a gone pool's), so that
 * their devices-file entries go once the new pool is written. */
static void old_labels(const struct pool_create_params *p, char uuid[3][VG_UUID_LEN + 1])
{
	const char *paths[3] = { p->data_path, p->meta_path, p->meta1_path };
	struct vg_label l;

	for (int i = 0; i < 3; i++) {
		uuid[i][0] = '\0';
		if (paths[i] && !pool_read_label(paths[i], &l))
			snprintf(uuid[i], VG_UUID_LEN + 1, "%s", l.pv_uuid);
	}
}

/* Another subsystem's claim that udev recorded (udev_mark.h): refused
 * unless FORCE, which is for a mark that is stale. */
static int udev_mark(const char *path, int force)
{
	char why[256];
	int r = tp_udev_marked(path, why, sizeof(why));

	if (r <= 0)
		return r;
	if (!force) {
		log_error("%s: %s; tpcreate will not take it. Add --force only if that mark is "
			  "stale", path, why);
		return -EBUSY;
	}
	log_warn("%s: %s; taking it anyway (--force)", path, why);
	return 0;
}

/* AGAIN: the second look, under the claims (recheck): said once. */
static int check_signatures(const struct pool_create_params *p, struct pool_create_plan *plan,
			    int again)
{
	const char *paths[3] = { p->data_path, p->meta_path, p->meta1_path };
	const struct tp_probe_hook hook = { match_label, NULL };

	for (int i = 0; i < (p->meta1_path ? 3 : 2); i++) {
		struct tp_probe_result res;
		char one[160];
		int r = tp_dev_probe(paths[i], &hook, &res);

		if (r < 0)
			return r;
		plan->signatures[i][0] = '\0';
		for (unsigned k = 0; k < res.count; k++) {
			size_t used = strlen(plan->signatures[i]);
			tp_signature_describe(&res.sig[k], one, sizeof(one));
			snprintf(plan->signatures[i] + used, sizeof(plan->signatures[i]) - used,
				 "%s%s", k ? "; " : "", one);
		}
		plan->nr_signatures += res.count;
		r = in_use(paths[i], p->name, p->force, again);
		if (r)
			return r;
		if (res.count && !p->force) {
			log_error("%s carries %s; tpcreate will not overwrite it. Add --force "
				  "if its contents are no longer needed", paths[i],
				  plan->signatures[i]);
			return -EBUSY;
		}
		if ((r = udev_mark(paths[i], p->force)))
			return r;
	}
	return 0;
}

/* Does a second metadata device of SIZE bytes hold the layout planned on
 * the first one? -ENOSPC, logged, when not. */
static int meta1_fits(const struct pool_create_params *p, const struct pool_create_plan *plan,
		      uint64_t size)
{
	const struct tp_policy_plan *pol = &plan->policy;
	uint64_t end = TP_MAX(pol->meta.active_offset, pol->meta.spare_offset) + pol->meta.size;
	char a[32], b[32];

	if (size >= end)
		return 0;
	log_error("pool %s: the second metadata device %s (%s) is smaller than the layout of %s "
		  "needs (%s); nothing was written: name a device at least that large, or a "
		  "smaller --metadata-size", p->name, p->meta1_path,
		  tp_size_format(size, 'h', a, sizeof(a)), p->meta_path,
		  tp_size_format(end, 'h', b, sizeof(b)));
	return -ENOSPC;
}

/* The pool's devices must not share storage (lib/dev/stack.h): the same
 * file or device under two names, a loop device over the other, a device
 * built on the other: data and metadata (LEG 0), data and the mirror's
 * second metadata device (LEG 1), the mirror's two metadata devices (LEG
 * 2). -EINVAL (bad input), logged naming the options and the paths as
 * given. */
static int separate_storage(const struct pool_create_params *p, int leg)
{
	const char *a = leg == 2 ? p->meta_path : p->data_path;
	const char *b = leg ? p->meta1_path : p->meta_path;
	char why[512];
	int r = tp_dev_same_storage(a, b, why, sizeof(why));

	if (r <= 0)
		return r == -ENOENT ? 0 : r;	/* a missing device: device_size says so */
	if (!strcmp(a, b))
		snprintf(why, sizeof(why), "the same path twice");
	if (leg == 2)
		log_error("--meta %s,%s: the mirror's two metadata devices share their storage: "
			  "%s. Each leg needs a device of its own: name another device for the "
			  "second", a, b, why);
	else if (leg == 1)
		log_error("--data %s and the mirror's second metadata device (--meta %s,%s) share "
			  "their storage: %s. A pool needs separate devices: name another device "
			  "for --data or for the second leg", a, p->meta_path, b, why);
	else
		log_error("--data %s and --meta %s share their storage: %s. A pool needs two "
			  "separate devices: name another device for --data or --meta", a, b, why);
	return -EINVAL;
}

/* --autoextend-device: none of the new pool's devices, and one tpextend
 * --data would take (pool_device_unused). */
static int check_autoextend_device(const struct pool_create_params *p)
{
	const char *dev = p->monitor ? p->monitor->autoextend_device : "";
	const char *own[] = { p->data_path, p->meta_path, p->meta1_path };

	if (!dev[0])
		return 0;
	for (unsigned i = 0; i < TP_ARRAY_SIZE(own); i++)
		if (own[i] && pool_same_device(own[i], dev)) {
			log_error("pool %s: --autoextend-device %s is one of the pool's own devices; "
				  "it names a device to add later", p->name, dev);
			return -EINVAL;
		}
	return pool_device_unused(p->name, NULL, NULL, dev,
				  "tpmonitor's autoextension (--autoextend-device)");
}

/* The geometry of P on the devices PLAN measured with a VG area span of
 * SPAN (mda.h): the policy's plan, behind the span on every device, the
 * lease area and the integrity metadata behind it on the metadata device,
 * and the room of the second metadata device. 0, or -errno logged. */
static int geometry(const struct pool_create_params *p, struct pool_create_plan *plan,
		    uint64_t span)
{
	struct tp_policy_input in;
	int r;

	memset(&in, 0, sizeof(in));
	in.topo = plan->topo;
	in.data_dev_size = plan->data_dev_size;
	in.data_header = span;
	in.meta_dev_size = plan->meta_dev_size;
	in.meta_header = span;
	plan->lease_offset = plan->integrity_offset = 0;
	plan->integrity_size = plan->integrity_cover = 0;
	if (p->shared) {
		/* the lease area behind the VG area, on a 1 MiB boundary
		 * (pool_lease.c) */
		plan->lease_offset = (span + POOL_LEASE_OFFSET - 1) / POOL_LEASE_OFFSET *
				     POOL_LEASE_OFFSET;
		in.meta_header = plan->lease_offset + POOL_LEASE_AREA_BYTES;
	}
	if (p->meta1_path && p->meta_integrity) {
		/* dm-integrity's metadata for both thin-metadata areas behind
		 * the VG area (and the lease area), for areas up to four times
		 * the device (it may grow) or the format's limit */
		plan->integrity_cover = TP_MIN((uint64_t)TP_META_MAX, 4 * plan->meta_dev_size);
		plan->integrity_size = vg_imeta_need(plan->integrity_cover);
		plan->integrity_offset = (in.meta_header + VG_IMETA_ALIGN - 1) / VG_IMETA_ALIGN *
					 VG_IMETA_ALIGN;
		in.meta_header = plan->integrity_offset + 2 * plan->integrity_size;
	}
	in.chunk = p->chunk;
	in.profile = p->profile;
	in.zero = p->zero;
	in.metadata_size = p->metadata_size;
	r = tp_policy_plan(&in, &plan->policy);
	if (r) {
		log_error("pool %s: %s", p->name, plan->policy.error);
		return r;
	}
	/* the second metadata device holds the same layout (checked again
	 * when it is claimed) */
	return p->meta1_path ? meta1_fits(p, plan, plan->meta1_dev_size) : 0;
}

/* geometry() without a word: does SPAN fit? */
static int fits_quietly(const struct pool_create_params *p, struct pool_create_plan *plan,
			uint64_t span)
{
	struct tp_log_capture quiet, *outer = tp_log_capture_push(&quiet);
	int r = geometry(p, plan, span);

	tp_log_capture_pop(outer);
	return r;
}

/* PLAN's VG area of SPAN bytes, and the geometry behind it (quiet). */
static int set_span(const struct pool_create_params *p, struct pool_create_plan *plan,
		    uint64_t span)
{
	plan->vg_area = span;
	plan->mda_offset = VG_MDA_DEFAULT_OFFSET;
	plan->mda_size = vg_area_mda_size(span, 0);
	plan->vg_area_text = vg_mda_capacity_of(vg_area_mda_size(span, p->meta1_path != NULL));
	return fits_quietly(p, plan, span);
}

/* The VG area span of P: --vg-area as given, or auto on the smallest of
 * its devices (mda.h: vg_area_span_auto), with the reason in PLAN; then
 * the geometry behind it. An explicit span the devices have no room for
 * is bad input (-EINVAL), said naming the largest that fits. */
static int vg_area(const struct pool_create_params *p, struct pool_create_plan *plan)
{
	uint64_t smallest = TP_MIN(plan->data_dev_size, plan->meta_dev_size), span, lo, hi;
	int mirrored = p->meta1_path != NULL, r;
	char a[32], b[32], c[32], why[sizeof(plan->policy.error)];

	if (mirrored)
		smallest = TP_MIN(smallest, plan->meta1_dev_size);
	span = p->vg_area ? p->vg_area : vg_area_span_auto(smallest, mirrored);
	if (p->vg_area)
		snprintf(plan->vg_area_reason, sizeof(plan->vg_area_reason), "as --vg-area asked");
	else if (smallest <= VG_AREA_AUTO_SMALL)
		snprintf(plan->vg_area_reason, sizeof(plan->vg_area_reason),
			 "auto: %s, as every pool before --vg-area, for a smallest device (%s) of "
			 "at most %s", tp_size_format(VG_AREA_SPAN_DEFAULT, 'h', b, sizeof(b)),
			 tp_size_format(smallest, 'h', a, sizeof(a)),
			 tp_size_format(VG_AREA_AUTO_SMALL, 'h', c, sizeof(c)));
	else
		snprintf(plan->vg_area_reason, sizeof(plan->vg_area_reason),
			 "auto: 1/%u of the smallest device (%s), at most %s (%u volumes of the "
			 "largest VG text, %u bytes each)", VG_AREA_AUTO_FRACTION,
			 tp_size_format(smallest, 'h', a, sizeof(a)),
			 tp_size_format(vg_area_span_for(VG_AREA_AUTO_VOLUMES, mirrored), 'h', c,
					sizeof(c)),
			 VG_AREA_AUTO_VOLUMES, VG_AREA_VOLUME_TEXT_MAX);
	r = set_span(p, plan, span);
	if (r != -ENOSPC)
		return r ? geometry(p, plan, span) : 0;
	/* too large for these devices? the largest that fits, if any does
	 * (auto: never less room than 1 MiB had, as before --vg-area) */
	snprintf(why, sizeof(why), "%s", plan->policy.error[0] ? plan->policy.error
				: "the second metadata device is too small");
	lo = p->vg_area ? mirrored ? VG_AREA_SPAN_MIN_MIRROR : VG_AREA_SPAN_MIN
			: VG_AREA_SPAN_DEFAULT;
	if (lo >= span || fits_quietly(p, plan, lo)) {
		/* not the area's doing: said as it is */
		set_span(p, plan, p->vg_area ? span : VG_AREA_SPAN_DEFAULT);
		return geometry(p, plan, plan->vg_area);
	}
	hi = span;	/* lo fits, hi does not */
	while (hi - lo > VG_AREA_SPAN_ALIGN) {
		uint64_t mid = (lo + (hi - lo) / 2) / VG_AREA_SPAN_ALIGN * VG_AREA_SPAN_ALIGN;

		if (mid <= lo)
			mid = lo + VG_AREA_SPAN_ALIGN;
		if (fits_quietly(p, plan, mid))
			hi = mid;
		else
			lo = mid;
	}
	if (!p->vg_area) {
		lo = lo / VG_AREA_SPAN_DEFAULT * VG_AREA_SPAN_DEFAULT;	/* whole MiB */
		snprintf(plan->vg_area_reason + strlen(plan->vg_area_reason),
			 sizeof(plan->vg_area_reason) - strlen(plan->vg_area_reason),
			 "; %s is the most that leaves the other areas their room",
			 tp_size_format(lo, 'h', a, sizeof(a)));
		return set_span(p, plan, lo);
	}
	log_error("pool %s: --vg-area %s leaves its devices too little room (%s); on these "
		  "devices it is at most %s (%llu bytes); nothing was written", p->name,
		  tp_size_format(span, 'h', a, sizeof(a)), why, tp_size_format(lo, 'h', b, sizeof(b)),
		  (unsigned long long)lo);
	return -EINVAL;
}

uint64_t pool_vg_area_volumes(uint64_t text, int worst)
{
	return vg_area_volumes((size_t)text, worst ? VG_AREA_POOL_TEXT : 1024,
			       worst ? VG_AREA_VOLUME_TEXT_MAX : VG_AREA_VOLUME_TEXT_TYPICAL);
}

int pool_plan(const struct pool_create_params *p, struct pool_create_plan *plan)
{
	struct pool_devices_entry e;
	const char *why;
	int r;

	memset(plan, 0, sizeof(*plan));
	if (!vg_name_valid(p->name, &why)) {
		log_error("invalid pool name '%s': %s", p->name, why);
		return -EINVAL;
	}
	if (p->monitor && pool_monitor_policy_check(p->name, p->monitor))
		return -EINVAL;
	if (p->trash_retention > VG_TRASH_RETENTION_MAX) {
		log_error("pool %s: --trash-retention is at most ten years", p->name);
		return -EINVAL;
	}
	if (p->max_overprovision > POOL_OVERPROVISION_MAX) {
		log_error("pool %s: --max-overprovision is out of range", p->name);
		return -EINVAL;
	}
	if (p->vg_area) {
		char why_area[256];

		if (vg_area_span_valid("--vg-area", p->vg_area, p->meta1_path != NULL, why_area,
				       sizeof(why_area))) {
			log_error("pool %s: %s", p->name, why_area);
			return -EINVAL;
		}
	}
	/* the mirror's legs first: data named twice in --meta is their fault */
	if ((p->meta1_path && (r = separate_storage(p, 2))) || (r = separate_storage(p, 0)) ||
	    (p->meta1_path && (r = separate_storage(p, 1))))
		return r;
	r = pool_devices_lookup_pool(p->name, &e, 1);
	if (r > 0) {
		log_error("a pool named %s already exists (on %s); choose another name or remove "
			  "it with 'tpremove %s'", p->name, e.path, p->name);
		return -EEXIST;
	}
	if (!r) {
		char *file = pool_devices_path(), line[96];

		r = pool_devices_damaged(p->name, line, sizeof(line));
		if (r > 0)
			log_error("a pool named %s may exist: the devices file %s holds a damaged "
				  "line of it ('%s'); 'tprepair --devices DATA,META %s' with its "
				  "devices records them again, or delete that line if no such pool "
				  "is left; nothing was written", p->name, file ? file : "",
				  line, p->name);
		free(file);
		if (r > 0)
			return -EEXIST;
	}
	if ((r = device_size("data", p->data_path, &plan->data_dev_size)) ||
	    (r = device_size("metadata", p->meta_path, &plan->meta_dev_size)))
		return r;
	if ((r = check_signatures(p, plan, 0)) || (r = check_autoextend_device(p)))
		return r;
	r = tp_topology_get(p->data_path, &plan->topo);
	if (r)
		return r;
	tp_topology_describe(&plan->topo, plan->topo_desc, sizeof(plan->topo_desc));
	tp_policy_stripe(&plan->topo, plan->stripe_reason, sizeof(plan->stripe_reason));
	if (p->meta1_path &&
	    (r = device_size("second metadata", p->meta1_path, &plan->meta1_dev_size)))
		return r;
	if (p->shared && (!p->io_timeout || p->io_timeout > VG_LOCK_IO_TIMEOUT_MAX)) {
		log_error("pool %s: sanlock's io_timeout must be 1..%u seconds", p->name,
			  VG_LOCK_IO_TIMEOUT_MAX);
		return -EINVAL;
	}
	if ((r = vg_area(p, plan)))
		return r;
	plan->data_area_size = plan->policy.data_blocks * plan->policy.chunk.chunk;
	if (plan->policy.data_blocks > THIN_MAX_DATA_BLOCKS) {
		log_error("pool %s: %llu chunks are more than dm-thin can address; choose a larger "
			  "--chunk", p->name, (unsigned long long)plan->policy.data_blocks);
		return -EINVAL;
	}
	return 0;
}

static int build_vg(const struct pool_create_params *p, const struct pool_create_plan *plan,
		    struct vg **out)
{
	const struct tp_policy_plan *pol = &plan->policy;
	struct vg *vg = vg_alloc();
	int r;

	if (!vg)
		return -ENOMEM;
	snprintf(vg->name, sizeof(vg->name), "%s", p->name);
	if ((r = vg_uuid_generate(vg->uuid)) ||
	    (r = vg_uuid_generate(vg->dev[VG_ROLE_DATA].pv_uuid)) ||
	    (r = vg_uuid_generate(vg->dev[VG_ROLE_META].pv_uuid))) {
		vg_free(vg);
		return r;
	}
	/* the owner: this host, when it has a system id (tptools.conf(5));
	 * a shared pool has none (its lease decides) */
	if (!p->shared && (r = tp_system_id(vg->system_id, sizeof(vg->system_id), NULL))) {
		vg_free(vg);
		return r;
	}
	vg->creation_time = (int64_t)time(NULL);
	if (gethostname(vg->creation_host, sizeof(vg->creation_host) - 1))
		strcpy(vg->creation_host, "unknown");
	vg->chunk_size = (uint32_t)(pol->chunk.chunk / 512);
	vg->zero = pol->zero.zero;
	vg->profile = p->chunk ? VG_PROFILE_CUSTOM : pool_profile_to_vg(p->profile);
	vg->discards = p->discards_set ? (enum vg_discards)p->discards
			: pol->discards.passdown ? VG_DISCARDS_PASSDOWN : VG_DISCARDS_NOPASSDOWN;
	vg->when_full = (enum vg_when_full)p->when_full;
	vg->activation_skip = !!p->no_autoactivate;
	if (p->monitor)
		pool_monitor_policy_to_vg(p->monitor, &vg->monitor);
	vg->max_overprovision = p->max_overprovision;
	vg->trash_retention = p->trash_retention;
	if (p->shared) {
		vg->lock.type = VG_LOCK_SANLOCK;
		vg->lock.offset = plan->lease_offset;
		vg->lock.io_timeout = p->io_timeout;
		vg_lock_name(vg->uuid, vg->lock.name);
	}
	vg->metadata_area = 0;
	for (int i = 0; i < VG_NR_ROLES; i++) {
		struct vg_device *d = &vg->dev[i];
		snprintf(d->path, sizeof(d->path), "%s", i == VG_ROLE_DATA ? p->data_path
									  : p->meta_path);
		d->size = i == VG_ROLE_DATA ? plan->data_dev_size : plan->meta_dev_size;
		d->mda.offset = plan->mda_offset;
		d->mda.size = plan->mda_size;
	}
	vg->dev[VG_ROLE_DATA].area[0].offset = pol->data_offset.offset;
	vg->dev[VG_ROLE_DATA].area[0].size = plan->data_area_size;
	vg->dev[VG_ROLE_META].area[0].offset = pol->meta.active_offset;
	vg->dev[VG_ROLE_META].area[0].size = pol->meta.size;
	vg->dev[VG_ROLE_META].area[1].offset = pol->meta.spare_offset;
	vg->dev[VG_ROLE_META].area[1].size = pol->meta.size;
	if (p->meta1_path) {
		/* the kernel raid1's metadata after the VG area (vg.h) */
		vg->meta_mirror = 1;
		vg->dev[VG_ROLE_META].mda.size -= VG_RAID_META_BYTES;
		vg->meta1 = vg->dev[VG_ROLE_META];
		snprintf(vg->meta1.path, sizeof(vg->meta1.path), "%s", p->meta1_path);
		vg->meta1.size = plan->meta1_dev_size;
		vg->integrity_offset = plan->integrity_offset;
		vg->integrity_size = plan->integrity_size;
		if ((r = vg_uuid_generate(vg->meta1.pv_uuid))) {
			vg_free(vg);
			return r;
		}
	}
	*out = vg;
	return 0;
}

/* Zero the first metadata block of an area so nothing stale looks valid. */
static int zero_block(struct io_engine *io, uint64_t offset)
{
	static const unsigned char zero[THIN_METADATA_BLOCK_SIZE];
	return io_write(io, offset, zero, sizeof(zero));
}

/* pool_plan's device checks again, under the pool lock and the claims:
 * the name still free, no signature (or label of a known pool) that
 * PLAN did not see. */
static int recheck(const struct pool_create_params *p, const struct pool_create_plan *plan)
{
	struct pool_create_plan now;
	struct pool_devices_entry e;
	int r = pool_devices_lookup_pool(p->name, &e, 1);

	if (r > 0) {
		log_error("a pool named %s already exists (on %s); choose another name or remove "
			  "it with 'tpremove %s'", p->name, e.path, p->name);
		return -EEXIST;
	}
	memset(&now, 0, sizeof(now));
	r = check_signatures(p, &now, 1);
	if (!r && now.nr_signatures > plan->nr_signatures) {
		log_error("pool %s: %s and %s changed while tpcreate waited for them (%s%s%s); "
			  "nothing was written", p->name, p->data_path, p->meta_path,
			  now.signatures[0], now.signatures[0][0] && now.signatures[1][0] ? "; " : "",
			  now.signatures[1][0] ? now.signatures[1] : now.signatures[2]);
		r = -EBUSY;
	}
	return r;
}

/* The second metadata device of a mirrored pool: claimed, and big enough
 * for the meta device's layout. */
static int open_meta1(const struct pool_create_params *p, const struct pool_create_plan *plan,
		      struct tp_lock **claim, struct vg_pv *pv)
{
	int r;

	if (!strcmp(p->meta1_path, p->meta_path) || !strcmp(p->meta1_path, p->data_path)) {
		log_error("pool %s: --meta %s,%s: the second metadata device must be a device of "
			  "its own; nothing was written", p->name, p->meta_path, p->meta1_path);
		return -EINVAL;
	}
	r = pool_claim_open(p->name, p->meta1_path, 0, claim, &pv->io);
	if (r) {
		if (r != -EBUSY)
			log_error("pool %s: cannot open %s for writing: %s (in use?)", p->name,
				  p->meta1_path, strerror(-r));
		return r;
	}
	return meta1_fits(p, plan, pv->io->size);
}

static int create(const struct pool_create_params *p, const struct pool_create_plan *plan_in)
{
	struct vg_pv pv[VG_NR_ROLES + 1];
	struct tp_lock *claim[VG_NR_ROLES + 1] = { NULL, NULL, NULL };
	struct pool_create_plan plan_mirror = *plan_in, *plan = &plan_mirror;
	struct io_engine *win = NULL, *mio = NULL;
	unsigned npv = p->meta1_path ? VG_NR_ROLES + 1 : VG_NR_ROLES;
	struct thin_md *md = NULL;
	struct tp_lock *lock = NULL;
	char taken[3][VG_UUID_LEN + 1];
	struct vg *vg = NULL;
	int r;

	memset(pv, 0, sizeof(pv));
	memset(taken, 0, sizeof(taken));
	/* a shared pool's lease area is written through sanlock: without
	 * its daemon, nothing is written at all */
	if (p->shared && (r = pool_lease_check_daemon(p->name)))
		return r;
	r = tp_lock_acquire(p->name, TP_LOCK_EXCL, &lock);
	if (r) {
		log_error("pool %s: cannot take its lock: %s", p->name, strerror(-r));
		return r;
	}
	for (int i = 0; i < VG_NR_ROLES && !r; i++) {
		r = pool_claim_open(p->name, i == VG_ROLE_DATA ? p->data_path : p->meta_path, 0,
				    &claim[i], &pv[i].io);
		if (r && r != -EBUSY)
			log_error("pool %s: cannot open its devices for writing: %s (in use?)",
				  p->name, strerror(-r));
	}
	if (!r && p->meta1_path && !(r = open_meta1(p, plan, &claim[VG_NR_ROLES], &pv[VG_NR_ROLES])))
		plan_mirror.meta1_dev_size = pv[VG_NR_ROLES].io->size;
	/* What pool_plan saw may have changed while we waited for the claim
	 * (another tpcreate on the same devices): look again. */
	if (r || (r = recheck(p, plan)))
		goto out;
	old_labels(p, taken);
	if ((r = build_vg(p, plan, &vg)))
		goto out;
	/* --force over old contents: erase what blkid and udev would still
	 * recognise (the user has confirmed). */
	if (p->force && plan->nr_signatures &&
	    ((r = tp_dev_wipe_signatures(p->data_path)) < 0 ||
	     (r = tp_dev_wipe_signatures(p->meta_path)) < 0 ||
	     (p->meta1_path && (r = tp_dev_wipe_signatures(p->meta1_path)) < 0)))
		goto out;
	/* 0. the lease area (a new lockspace and lease, no holder) */
	if (vg->lock.type != VG_LOCK_NONE &&
	    (r = pool_lease_format(p->name, vg->lock.name, p->meta_path, vg->lock.offset,
				   vg->lock.io_timeout)))
		goto out;
	for (int i = 0; i < VG_NR_ROLES; i++)
		vg_label_from_vg(vg, (enum vg_role)i, pv[i].io->size, &pv[i].label);
	if (p->meta1_path)
		vg_label_from_vg_meta1(vg, pv[VG_NR_ROLES].io->size, &pv[VG_NR_ROLES].label);
	/* 1. thin metadata in the active area; the spare starts empty (both
	 * legs of a mirror alike, through the mirror engine) */
	r = io_mirror_create(pv[VG_ROLE_META].io, p->meta1_path ? pv[VG_NR_ROLES].io : NULL, 0,
			     pv[VG_ROLE_META].io->name, 0, &mio);
	if (!r)
		r = io_window_create(mio, vg->dev[VG_ROLE_META].area[0].offset,
				     vg->dev[VG_ROLE_META].area[0].size, 0, &win);
	if (!r)
		r = thin_format(win, vg->chunk_size, plan->policy.data_blocks, &md);
	if (!r)
		r = zero_block(mio, vg->dev[VG_ROLE_META].area[1].offset);
	/* the raid metadata zeroed: the kernel's raid1 starts as a new set;
	 * so are the integrity superblocks: the kernel formats them */
	if (!r && p->meta1_path)
		r = pool_zero_raid_meta(mio, vg);
	for (unsigned a = 0; !r && vg->integrity_size && a < 2; a++)
		r = zero_block(mio, vg_imeta_offset(vg, a));
	if (!r && io_mirror_in_use(mio) != (p->meta1_path ? 3u : 1u))
		r = -EIO;	/* a leg failed a write */
	if (r) {
		log_error("pool %s: cannot write thin metadata on %s: %s", p->name, p->meta_path,
			  strerror(-r));
		goto out;
	}
	/* 2. VG metadata on every device, 3. labels: the pool exists from
	 * here; one critical section, so a signal does not leave a VG
	 * without its labels */
	tp_critical_begin();
	for (unsigned i = 0; i < npv && !r; i++)
		r = vg_mda_format(pv[i].io, &pv[i].label);
	if (!r && !(r = vg_commit(pv, npv, vg)))
		pool_backup_commit(vg);
	for (unsigned i = 0; i < npv && !r; i++)
		r = vg_label_write(pv[i].io, &pv[i].label);
	tp_critical_end();
	if (r) {
		log_error("pool %s: cannot write its labels and VG metadata: %s", p->name,
			  strerror(-r));
		goto out;
	}
	/* the entries of the labels taken over (an orphan's) go */
	for (int i = 0; i < 3; i++)
		if (taken[i][0] && pool_devices_remove_pv(taken[i]))
			log_warn("pool %s: the devices file still lists device uuid %s, which "
				 "tpcreate took over", p->name, taken[i]);
	for (int i = 0; i < VG_NR_ROLES; i++)
		pool_record_device(p->name, (enum vg_role)i, vg->dev[i].pv_uuid, vg->dev[i].path);
out:
	thin_close(md);
	io_destroy(win);
	io_destroy(mio);
	for (unsigned i = 0; i < VG_NR_ROLES + 1; i++) {
		io_destroy(pv[i].io);
		tp_lock_release(claim[i]);
	}
	vg_free(vg);
	tp_lock_release(lock);
	return r;
}

int pool_create(const struct pool_create_params *params, const struct pool_create_plan *plan)
{
	/* Absolute paths: the devices file and VG path hints must not depend
	 * on the current directory. */
	char *data = realpath(params->data_path, NULL), *meta = realpath(params->meta_path, NULL);
	char *meta1 = params->meta1_path ? realpath(params->meta1_path, NULL) : NULL;
	struct pool_create_params abs = *params;
	int r;

	abs.data_path = data ? data : params->data_path;
	abs.meta_path = meta ? meta : params->meta_path;
	if (params->meta1_path)
		abs.meta1_path = meta1 ? meta1 : params->meta1_path;
	r = create(&abs, plan);
	free(data);
	free(meta);
	free(meta1);
	return r;
}
