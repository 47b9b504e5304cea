/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp-dmtest - drive kernel/dm.h from shell scenarios (test/vm/s-*.sh).
 * Test-only; one subcommand per library call, output as key=value.
 *
 *   tp-dmtest available
 *   tp-dmtest version TARGET
 *   tp-dmtest name POOL ROLE [VOL]          role: thin|tpool|tmeta|tdata
 *   tp-dmtest uuid POOL_UUID ROLE [DEV_ID]
 *   tp-dmtest linear NAME UUID DEV OFFSET_BYTES LENGTH_BYTES [internal]
 *   tp-dmtest reload-linear NAME DEV OFFSET_BYTES LENGTH_BYTES
 *   tp-dmtest pool NAME UUID META DATA DATA_SECTORS BLOCK_SECTORS LOW_WATER [FEATURE...]
 *   tp-dmtest thin NAME UUID POOL DEV_ID SECTORS [EXTERNAL_ORIGIN]
 *   tp-dmtest reload-pool NAME META DATA DATA_SECTORS BLOCK_SECTORS LOW_WATER [FEATURE...]
 *   tp-dmtest suspend NAME [noflush]  |  resume NAME  |  remove NAME
 *   tp-dmtest info NAME  |  devno NAME  |  list UUID_PREFIX
 *   tp-dmtest pool-status NAME [noflush]  |  thin-status NAME
 *   tp-dmtest create-thin POOL ID  |  create-snap POOL ID ORIGIN  |  delete POOL ID
 *   tp-dmtest set-tid POOL CUR NEW  |  reserve-snap POOL  |  release-snap POOL
 *   tp-dmtest message POOL TEXT
 *   tp-dmtest activate POOL UUID META MOFF MLEN DATA DOFF DLEN BLOCK_SECTORS LOW_WATER [FEATURE...]
 *   tp-dmtest deactivate POOL  |  is-active POOL
 *   tp-dmtest vol-activate POOL UUID VOL ID SECTORS [ro]  |  vol-deactivate POOL VOL
 *   tp-dmtest snapshot POOL ORIGIN_VOL|- ID ORIGIN_ID
 *   tp-dmtest topology PATH                 (lib/dev: what libblkid reports)
 * Exit: 0 ok, 1 the call failed (errno name printed as err=), 2 usage. */
#include "kernel/dm.h"
#include "lib/base/log.h"
#include "lib/dev/topology.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
	fprintf(stderr, "tp-dmtest: bad arguments (see the comment at the top of tp-dmtest.c)\n");
	return 2;
}

static uint64_t num(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	if (*end) {
		fprintf(stderr, "tp-dmtest: '%s' is not a number\n", s);
		exit(2);
	}
	return v;
}

static int role_of(const char *s, enum tp_dm_role *role)
{
	static const char *const names[] = { "thin", "tpool", "tmeta", "tdata" };
	unsigned i;

	for (i = 0; i < TP_ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*role = (enum tp_dm_role)i;
			return 0;
		}
	return -1;
}

static int features_of(int argc, char **argv, unsigned *features)
{
	static const struct {
		const char *name;
		unsigned bit;
	} tab[] = {
		{ "skip_block_zeroing", TP_DM_SKIP_BLOCK_ZEROING },
		{ "ignore_discard", TP_DM_IGNORE_DISCARD },
		{ "no_discard_passdown", TP_DM_NO_DISCARD_PASSDOWN },
		{ "read_only", TP_DM_POOL_READ_ONLY },
		{ "error_if_no_space", TP_DM_ERROR_IF_NO_SPACE },
	};
	int i;
	unsigned j;

	*features = 0;
	for (i = 0; i < argc; i++) {
		for (j = 0; j < TP_ARRAY_SIZE(tab); j++)
			if (!strcmp(argv[i], tab[j].name))
				break;
		if (j == TP_ARRAY_SIZE(tab))
			return -1;
		*features |= tab[j].bit;
	}
	return 0;
}

static int result(int r)
{
	if (!r)
		return 0;
	printf("err=%s\n", strerrorname_np(-r) ? strerrorname_np(-r) : "unknown");
	return 1;
}

static int print_dev(const char *name, const char *uuid, void *arg)
{
	(void)arg;
	printf("%s %s\n", name, uuid);
	return 0;
}

static const char *mode_name(enum tp_dm_pool_mode m)
{
	switch (m) {
	case TP_DM_MODE_RW: return "rw";
	case TP_DM_MODE_RO: return "ro";
	case TP_DM_MODE_OUT_OF_DATA: return "out_of_data_space";
	default: return "unknown";
	}
}

static int cmd_pool_status(const char *name, unsigned flags)
{
	struct tp_dm_pool_status st;
	int r = tp_dm_pool_status(name, flags, &st);

	if (r)
		return result(r);
	printf("fail=%d error=%d nfields=%u transaction_id=%" PRIu64 " used_meta=%" PRIu64
	       " total_meta=%" PRIu64 " used_data=%" PRIu64 " total_data=%" PRIu64
	       " held_root=%s%" PRIu64 " mode=%s discard=%d error_if_no_space=%d needs_check=%d"
	       " meta_low_water=%" PRIu64 "\n",
	       st.fail, st.error, st.nfields, st.transaction_id, st.used_meta_blocks,
	       st.total_meta_blocks, st.used_data_blocks, st.total_data_blocks,
	       st.has_held_root ? "" : "-", st.held_root, mode_name(st.mode), (int)st.discard,
	       st.error_if_no_space, st.needs_check, st.meta_low_water);
	return 0;
}

static int cmd_thin_status(const char *name)
{
	struct tp_dm_thin_status st;
	int r = tp_dm_thin_status(name, &st);

	if (r)
		return result(r);
	printf("fail=%d inactive=%d mapped_sectors=%" PRIu64 " highest=%s%" PRIu64 "\n", st.fail,
	       st.inactive, st.mapped_sectors, st.has_highest ? "" : "-", st.highest_sector);
	return 0;
}

static int cmd_pool(int argc, char **argv, bool reload)
{
	/* [NAME UUID] META DATA DATA_SECTORS BLOCK_SECTORS LOW_WATER [FEATURE...] */
	int skip = reload ? 1 : 2;
	struct tp_dm_pool_params p = { 0 };
	struct tp_dm_target t;
	int r;

	if (argc < skip + 5)
		return usage();
	p.meta_dev = argv[skip];
	p.data_dev = argv[skip + 1];
	p.block_sectors = (uint32_t)num(argv[skip + 3]);
	p.low_water_blocks = num(argv[skip + 4]);
	if (features_of(argc - skip - 5, argv + skip + 5, &p.features))
		return usage();
	if ((r = tp_dm_thin_pool(&t, num(argv[skip + 2]), &p)))
		return result(r);
	if (reload)
		return result(tp_dm_load(argv[0], &t, 1, 0));
	return result(tp_dm_create(argv[0], argv[1], &t, 1, TP_DM_INTERNAL));
}

int main(int argc, char **argv)
{
	const char *cmd;
	char buf[TP_DM_PARAMS_MAX];
	enum tp_dm_role role;
	int r;

	tp_log_init("tp-dmtest");
	if (argc < 2)
		return usage();
	cmd = argv[1];
	argc -= 2;
	argv += 2;

	if (!strcmp(cmd, "available")) {
		r = tp_dm_check_available(buf, sizeof(buf));
		if (r)
			printf("why=%s\n", buf);
		return result(r);
	}
	if (!strcmp(cmd, "version") && argc == 1) {
		uint32_t v[3];

		if ((r = tp_dm_target_version(argv[0], v)))
			return result(r);
		printf("%s %u.%u.%u\n", argv[0], v[0], v[1], v[2]);
		return 0;
	}
	if (!strcmp(cmd, "name") && argc >= 2) {
		if (role_of(argv[1], &role))
			return usage();
		if ((r = tp_dm_name(buf, sizeof(buf), argv[0], role, argc > 2 ? argv[2] : NULL)))
			return result(r);
		printf("%s\n", buf);
		return 0;
	}
	if (!strcmp(cmd, "uuid") && argc >= 2) {
		if (role_of(argv[1], &role))
			return usage();
		if ((r = tp_dm_uuid(buf, sizeof(buf), argv[0], role,
				    argc > 2 ? (uint32_t)num(argv[2]) : 0)))
			return result(r);
		printf("%s\n", buf);
		return 0;
	}
	if (!strcmp(cmd, "linear") && (argc == 5 || argc == 6)) {
		struct tp_dm_target t;

		if ((r = tp_dm_linear(&t, 0, argv[2], num(argv[3]), num(argv[4]))))
			return result(r);
		return result(tp_dm_create(argv[0], argv[1], &t, 1,
					   argc == 6 && !strcmp(argv[5], "internal") ?
						   TP_DM_INTERNAL :
						   0));
	}
	if (!strcmp(cmd, "reload-linear") && argc == 4) {
		struct tp_dm_target t;

		if ((r = tp_dm_linear(&t, 0, argv[1], num(argv[2]), num(argv[3]))))
			return result(r);
		return result(tp_dm_load(argv[0], &t, 1, 0));
	}
	if (!strcmp(cmd, "pool"))
		return cmd_pool(argc, argv, false);
	if (!strcmp(cmd, "reload-pool"))
		return cmd_pool(argc, argv, true);
	if (!strcmp(cmd, "thin") && (argc == 5 || argc == 6)) {
		struct tp_dm_target t;

		if ((r = tp_dm_thin(&t, num(argv[4]), argv[2], (uint32_t)num(argv[3]),
				    argc == 6 ? argv[5] : NULL)))
			return result(r);
		return result(tp_dm_create(argv[0], argv[1], &t, 1, 0));
	}
	if (!strcmp(cmd, "suspend") && argc >= 1)
		return result(tp_dm_suspend(argv[0], argc > 1 && !strcmp(argv[1], "noflush") ?
								 TP_DM_NOFLUSH :
								 0));
	if (!strcmp(cmd, "resume") && argc == 1)
		return result(tp_dm_resume(argv[0]));
	if (!strcmp(cmd, "remove") && argc == 1)
		return result(tp_dm_remove(argv[0]));
	if (!strcmp(cmd, "info") && argc == 1) {
		struct tp_dm_info i;

		if ((r = tp_dm_info(argv[0], &i)))
			return result(r);
		printf("major=%u minor=%u open=%d targets=%u suspended=%d live=%d inactive=%d ro=%d "
		       "uuid=%s\n",
		       i.major, i.minor, i.open_count, i.target_count, i.suspended, i.live_table,
		       i.inactive_table, i.read_only, i.uuid);
		return 0;
	}
	if (!strcmp(cmd, "devno") && argc == 1) {
		if ((r = tp_dm_devno(argv[0], buf, sizeof(buf))))
			return result(r);
		printf("%s\n", buf);
		return 0;
	}
	if (!strcmp(cmd, "list") && argc == 1)
		return result(tp_dm_list(argv[0], print_dev, NULL));
	if (!strcmp(cmd, "pool-status") && argc >= 1)
		return cmd_pool_status(argv[0], argc > 1 && !strcmp(argv[1], "noflush") ?
							TP_DM_NOFLUSH :
							0);
	if (!strcmp(cmd, "thin-status") && argc == 1)
		return cmd_thin_status(argv[0]);
	if (!strcmp(cmd, "create-thin") && argc == 2)
		return result(tp_dm_create_thin(argv[0], (uint32_t)num(argv[1])));
	if (!strcmp(cmd, "create-snap") && argc == 3)
		return result(tp_dm_create_snap(argv[0], (uint32_t)num(argv[1]),
						(uint32_t)num(argv[2])));
	if (!strcmp(cmd, "delete") && argc == 2)
		return result(tp_dm_delete_thin(argv[0], (uint32_t)num(argv[1])));
	if (!strcmp(cmd, "set-tid") && argc == 3)
		return result(tp_dm_set_transaction_id(argv[0], num(argv[1]), num(argv[2])));
	if (!strcmp(cmd, "reserve-snap") && argc == 1)
		return result(tp_dm_reserve_metadata_snap(argv[0]));
	if (!strcmp(cmd, "release-snap") && argc == 1)
		return result(tp_dm_release_metadata_snap(argv[0]));
	if (!strcmp(cmd, "activate") && argc >= 10) {
		struct tp_dm_pool_layout l = {
			.pool = argv[0],
			.pool_uuid = argv[1],
			.meta_dev = argv[2],
			.meta_offset = num(argv[3]),
			.meta_length = num(argv[4]),
			.data_dev = argv[5],
			.data_offset = num(argv[6]),
			.data_length = num(argv[7]),
			.block_sectors = (uint32_t)num(argv[8]),
			.low_water_blocks = num(argv[9]),
		};

		if (features_of(argc - 10, argv + 10, &l.features))
			return usage();
		return result(tp_dm_pool_activate(&l));
	}
	if (!strcmp(cmd, "deactivate") && argc == 1)
		return result(tp_dm_pool_deactivate(argv[0]));
	if (!strcmp(cmd, "is-active") && argc == 1) {
		r = tp_dm_pool_is_active(argv[0]);
		if (r < 0)
			return result(r);
		printf("%d\n", r);
		return 0;
	}
	if (!strcmp(cmd, "vol-activate") && (argc == 5 || argc == 6))
		return result(tp_dm_vol_activate(argv[0], argv[1], argv[2], (uint32_t)num(argv[3]),
						 num(argv[4]),
						 argc == 6 && !strcmp(argv[5], "ro") ?
							 TP_DM_READ_ONLY :
							 0));
	if (!strcmp(cmd, "vol-deactivate") && argc == 2)
		return result(tp_dm_vol_deactivate(argv[0], argv[1]));
	if (!strcmp(cmd, "snapshot") && argc == 4)
		return result(tp_dm_snapshot(argv[0], strcmp(argv[1], "-") ? argv[1] : NULL,
					     (uint32_t)num(argv[2]), (uint32_t)num(argv[3])));
	if (!strcmp(cmd, "topology") && argc == 1) {
		struct tp_topology t;

		if ((r = tp_topology_get(argv[0], &t)))
			return result(r);
		printf("min_io=%" PRIu64 " opt_io=%" PRIu64 " align=%" PRIu64
		       " logical=%u physical=%u discard=%d source=%s\n",
		       t.min_io, t.opt_io, t.align_offset, t.logical_sector, t.physical_sector,
		       t.discard, tp_topology_source_name(t.source));
		return 0;
	}
	if (!strcmp(cmd, "message") && argc == 2)
		return result(tp_dm_message(argv[0], argv[1]));
	return usage();
}
