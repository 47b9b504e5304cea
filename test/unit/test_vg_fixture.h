/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_vg_fixture.h - a small labelled pool on memory engines for the
 * metadata/vg unit tests (test_vg_*.c): labels, a valid struct vg, and
 * helpers. Header-only (static functions) so each test file stays
 * self-contained. */
#ifndef TP_TEST_VG_FIXTURE_H
#define TP_TEST_VG_FIXTURE_H

#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/vg/label.h"
#include "metadata/vg/mda.h"
#include "metadata/vg/vg.h"
#include "test/lib/io_test.h"
#include "test/unit/tp_test.h"

#include <stdio.h>
#include <string.h>

#define FX_DEV_SIZE (16ull << 20)
#define FX_POOL_UUID "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"
#define FX_META_UUID "11111111-2222-4333-8444-555555555555"
#define FX_DATA_UUID "66666666-7777-4888-9999-aaaaaaaaaaaa"

/* Label of a 16 MiB device of ROLE in pool "vault". meta: two 4 MiB
 * thin-metadata areas at 1 MiB and 5 MiB; data: data area from 1 MiB. */
static inline void fx_label(enum vg_role role, struct vg_label *l)
{
	memset(l, 0, sizeof(*l));
	l->version = VG_LABEL_VERSION;
	l->role = role;
	strcpy(l->pv_uuid, role == VG_ROLE_META ? FX_META_UUID : FX_DATA_UUID);
	strcpy(l->pool_uuid, FX_POOL_UUID);
	strcpy(l->pool_name, "vault");
	l->device_size = FX_DEV_SIZE;
	l->mda.offset = VG_MDA_DEFAULT_OFFSET;
	l->mda.size = VG_MDA_DEFAULT_SIZE;
	l->area[0].offset = 1ull << 20;
	if (role == VG_ROLE_META) {
		l->area[0].size = 4ull << 20;
		l->area[1].offset = 5ull << 20;
		l->area[1].size = 4ull << 20;
	} else {
		l->area[0].size = FX_DEV_SIZE - (1ull << 20);
	}
}

static inline void fx_vol(struct vg *vg, const char *name, uint32_t id, const char *origin)
{
	struct vg_volume v;

	memset(&v, 0, sizeof(v));
	snprintf(v.name, sizeof(v.name), "%s", name);
	v.dev_id = id;
	v.size = 100ull << 30;
	snprintf(v.origin, sizeof(v.origin), "%s", origin ? origin : "");
	v.creation_time = 1700000000 + id;
	v.read_only = origin != NULL;
	if (vg->next_dev_id <= id)
		vg->next_dev_id = id + 1;
	CU_ASSERT_EQUAL_FATAL(vg_add_volume(vg, &v), 0);
}

/* A valid vg matching fx_label's devices, with volumes www, db and a
 * snapshot www-snap of www. seqno 1. */
static inline struct vg *fx_vg(void)
{
	struct vg *vg = vg_alloc();
	struct vg_label l;
	int role;

	CU_ASSERT_PTR_NOT_NULL_FATAL(vg);
	strcpy(vg->name, "vault");
	strcpy(vg->uuid, FX_POOL_UUID);
	vg->seqno = 1;
	vg->creation_time = 1700000000;
	strcpy(vg->creation_host, "host.example");
	vg->chunk_size = 4096;
	vg->zero = 0;
	vg->discards = VG_DISCARDS_PASSDOWN;
	vg->when_full = VG_WHEN_FULL_QUEUE;
	vg->transaction_id = 7;
	vg->next_dev_id = 1;
	for (role = 0; role < VG_NR_ROLES; role++) {
		struct vg_device *d = &vg->dev[role];
		fx_label((enum vg_role)role, &l);
		strcpy(d->pv_uuid, l.pv_uuid);
		snprintf(d->path, sizeof(d->path), "/dev/test-%s", vg_role_name(l.role));
		d->size = l.device_size;
		d->mda = l.mda;
		d->area[0] = l.area[0];
		d->area[1] = l.area[1];
	}
	fx_vol(vg, "www", 1, NULL);
	fx_vol(vg, "db", 2, NULL);
	fx_vol(vg, "www-snap", 3, "www");
	return vg;
}

/* Two labelled, formatted memory devices: pvs[0] meta, pvs[1] data. With
 * FAULT each is wrapped in a fault engine (owning the memory engine);
 * mem[i] is the memory engine underneath either way. */
struct fx_pool {
	struct vg_pv pvs[2];
	struct io_engine *mem[2];
};

static inline void fx_pool_open(struct fx_pool *p, int fault)
{
	int i;

	for (i = 0; i < 2; i++) {
		enum vg_role role = i == 0 ? VG_ROLE_META : VG_ROLE_DATA;
		CU_ASSERT_EQUAL_FATAL(io_mem_create(FX_DEV_SIZE, vg_role_name(role), &p->mem[i]), 0);
		p->pvs[i].io = p->mem[i];
		if (fault)
			CU_ASSERT_EQUAL_FATAL(io_fault_create(p->mem[i], 1, &p->pvs[i].io), 0);
		fx_label(role, &p->pvs[i].label);
		CU_ASSERT_EQUAL_FATAL(vg_label_write(p->pvs[i].io, &p->pvs[i].label), 0);
		CU_ASSERT_EQUAL_FATAL(vg_mda_format(p->pvs[i].io, &p->pvs[i].label), 0);
	}
}

static inline void fx_pool_close(struct fx_pool *p)
{
	io_destroy(p->pvs[0].io);
	io_destroy(p->pvs[1].io);
}

#endif
