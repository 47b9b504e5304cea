/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp-probe - drive lib/dev and the geometry policy from shell tests and
 * benchmark scripts. Test-only; output as key=value lines.
 *
 *   tp-probe topology PATH
 *   tp-probe signatures PATH            exit 0 nothing found, 1 found
 *   tp-probe plan DATA META [chunk=SIZE] [zero=auto|y|n] [metadata_size=SIZE]
 *                           [floor=SIZE] [header=SIZE] [profile=NAME]
 *       DATA's topology (TPTOOLS_TOPOLOGY applies), both devices' sizes;
 *       every decision with its reason (reason_*=) and warnings (warning=).
 *       header = bytes before each device's areas (default 1 MiB).
 * Exit: 0 ok, 1 found (signatures), 2 bad arguments, 3/5 as the library's
 * errno maps (tp_exit_from_errno). */
#include "lib/base/exitcodes.h"
#include "lib/base/log.h"
#include "lib/base/units.h"
#include "lib/dev/probe.h"
#include "lib/dev/topology.h"
#include "lib/pool/policy.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "tp-probe: bad arguments (see the comment at the top of tp-probe.c)\n");
	return 2;
}

static int dev_size(const char *path, uint64_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t end;

	if (fd < 0)
		return log_error("%s: cannot open: %s", path, strerror(errno)), -ENOENT;
	end = lseek(fd, 0, SEEK_END);
	close(fd);
	if (end < 0)
		return log_error("%s: cannot size", path), -EIO;
	*size = (uint64_t)end;
	return 0;
}

static int cmd_topology(const char *path)
{
	struct tp_topology t;
	int r = tp_topology_get(path, &t);

	if (r < 0)
		return tp_exit_from_errno(r);
	printf("min_io=%" PRIu64 "\nopt_io=%" PRIu64 "\nalign=%" PRIu64
	       "\nlogical=%u\nphysical=%u\ndiscard=%d\nsource=%s\n",
	       t.min_io, t.opt_io, t.align_offset, t.logical_sector, t.physical_sector,
	       t.discard, tp_topology_source_name(t.source));
	return 0;
}

static int cmd_signatures(const char *path)
{
	struct tp_probe_result res;
	char d[256];
	int r = tp_dev_probe(path, NULL, &res);

	if (r < 0)
		return tp_exit_from_errno(r);
	printf("count=%u\n", res.count);
	for (unsigned i = 0; i < res.count; i++)
		printf("signature=%s|%s|%s\n", tp_sig_kind_name(res.sig[i].kind), res.sig[i].type,
		       tp_signature_describe(&res.sig[i], d, sizeof(d)));
	return r > 0 ? 1 : 0;
}

static int plan_arg(const char *arg, struct tp_policy_input *in)
{
	const char *v = strchr(arg, '=');
	uint64_t *dst = NULL;

	if (!v)
		return -EINVAL;
	v++;
	if (!strncmp(arg, "zero=", 5))
		return tp_choice_parse(v, &in->zero);
	if (!strncmp(arg, "profile=", 8))
		return tp_profile_parse(v, &in->profile);
	if (!strncmp(arg, "chunk=", 6))
		dst = &in->chunk;
	else if (!strncmp(arg, "metadata_size=", 14))
		dst = &in->metadata_size;
	else if (!strncmp(arg, "floor=", 6))
		dst = &in->chunk_floor;
	else if (!strncmp(arg, "header=", 7)) {
		int r = tp_size_parse_arg("header", v, 'b', &in->data_header);
		in->meta_header = in->data_header;
		return r;
	}
	if (!dst)
		return -EINVAL;
	return tp_size_parse_arg(arg, v, 'b', dst);
}

static int cmd_plan(int argc, char **argv)
{
	struct tp_policy_input in = { .data_header = TP_MiB, .meta_header = TP_MiB };
	struct tp_policy_plan p;
	int r;

	if ((r = tp_topology_get(argv[0], &in.topo)) < 0)
		return tp_exit_from_errno(r);
	if ((r = dev_size(argv[0], &in.data_dev_size)) < 0 ||
	    (r = dev_size(argv[1], &in.meta_dev_size)) < 0)
		return tp_exit_from_errno(r);
	for (int i = 2; i < argc; i++)
		if (plan_arg(argv[i], &in) < 0) {
			log_error("bad plan argument '%s'", argv[i]);
			return TP_EXIT_USAGE;
		}
	r = tp_policy_plan(&in, &p);
	if (r < 0) {
		log_error("%s", p.error);
		return tp_exit_from_errno(r);
	}
	printf("stripe=%" PRIu64 "\nchunk=%" PRIu64 "\nwhole_stripe=%d\nbetter=%" PRIu64
	       "\ndata_offset=%" PRIu64 "\ndata_blocks=%" PRIu64 "\nzero=%d\n"
	       "meta_estimate=%" PRIu64 "\nmeta_size=%" PRIu64 "\nmeta_active=%" PRIu64
	       "\nmeta_spare=%" PRIu64 "\nmeta_end=%" PRIu64 "\npassdown=%d\n",
	       p.chunk.stripe, p.chunk.chunk, p.chunk.whole_stripe, p.chunk.better,
	       p.data_offset.offset, p.data_blocks, p.zero.zero, p.meta.estimate, p.meta.size,
	       p.meta.active_offset, p.meta.spare_offset, p.meta.end, p.discards.passdown);
	printf("reason_data_offset=%s\nreason_chunk=%s\nreason_zero=%s\nreason_meta=%s\n"
	       "reason_discards=%s\n",
	       p.data_offset.reason, p.chunk.reason, p.zero.reason, p.meta.reason,
	       p.discards.reason);
	if (p.chunk.warning)
		printf("warning=chunk\n");
	if (p.meta.warning)
		printf("warning=meta\n");
	return 0;
}

int main(int argc, char **argv)
{
	tp_log_init("tp-probe");
	if (argc == 3 && !strcmp(argv[1], "topology"))
		return cmd_topology(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "signatures"))
		return cmd_signatures(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "plan"))
		return cmd_plan(argc - 2, argv + 2);
	return usage();
}
