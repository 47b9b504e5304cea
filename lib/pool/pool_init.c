/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_init.c - the library's one entry before any pool is opened
 * (pool.h: pool_init): every feature module registers its hooks with the
 * core. The public face is the one place above every module, so this is
 * where the features are named; the core never names one. */
#include "lib/pool/pool.h"
#include "lib/pool/core/core.h"
#include "lib/pool/data/data.h"
#include "lib/pool/lease/lease_feature.h"
#include "lib/pool/mirror/mirror.h"
#include "lib/pool/owner/owner_feature.h"
#include "lib/pool/removal/removal.h"
#include "lib/pool/stream/stream.h"
#include "lib/pool/unlock/unlock.h"

void pool_init(void)
{
	/* in this order: the data devices first (every later feature sees
	 * the pool's whole data area; detached last), the mirror's refusal
	 * of a lost first leg before the owner check, and the owner check
	 * before the lease (a foreign pool's lease is not taken) */
	pool_data_register();
	pool_mirror_register();
	pool_owner_register();
	pool_lease_register();
	pool_removal_register();
	pool_stream_register();
	pool_unlock_register();
	pool_features_ready();
}
