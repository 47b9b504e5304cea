/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_feature.c - the hooks feature modules add to the core's protocol
 * (core.h). The core calls no feature: where its crash completion must
 * clear what a killed command of some feature left, that feature
 * registers a hook here once at start (pool_init, lib/pool/pool_init.c),
 * and the core runs every registered hook at its step. */
#include "lib/pool/core/core_int.h"

#include "lib/base/log.h"

#include <errno.h>

#define POOL_FEATURES_MAX 8

static const struct pool_feature *features[POOL_FEATURES_MAX];
static unsigned nr_features;
static int ready;

void pool_feature_register(const struct pool_feature *f)
{
	for (unsigned i = 0; i < nr_features; i++)
		if (features[i] == f)
			return;
	if (nr_features < POOL_FEATURES_MAX)
		features[nr_features++] = f;
	else	/* a hook left out would be a cleanup silently skipped */
		TP_BUG("feature %s: more than %d feature hooks", f->name, POOL_FEATURES_MAX);
}

void pool_features_ready(void)
{
	ready = 1;
}

int pool_features_live_leftovers(struct pool *p, int write)
{
	int r;

	if (!ready)	/* a program that never called pool_init */
		return TP_BUG("pool %s: no feature hooks registered (pool_init not called)",
			      p->name);
	for (unsigned i = 0; i < nr_features; i++)
		if (features[i]->live_leftovers && (r = features[i]->live_leftovers(p, write)))
			return r;
	return 0;
}
