/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_vg.c - the VG metadata parsers on arbitrary bytes. The first byte
 * picks the target:
 *   0: vg_import of the rest (VG text in dm_config syntax), and an export
 *      and re-import of whatever imported; up to 8 KiB of text, also
 *      held to the reference (test/unit/vg_text_ref.h): the reader's tree
 *      or refusal must be libdevmapper's, the import's VG or message the
 *      old importer's, the export's bytes the old writer's (a longer text
 *      is left out there: libdevmapper's parser recurses once a nesting
 *      level); and vg_text_parse_fast (the canonical volumes read
 *      straight into the model) held to the general parse: it takes a
 *      text only where that reads it, with the entries of its
 *      pool/volumes in their order, and keeps nothing of a text it
 *      leaves;
 *   1: vg_label_decode of the next 512 bytes;
 *   2: a label (next 512 bytes, must decode) and its VG metadata area
 *      (the rest, placed at the label's mda offset in a zeroed device of
 *      at most 4 MiB): vg_mda_read_copies and vg_import of every copy. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/vg/label.h"
#include "metadata/vg/mda.h"
#include "metadata/vg/vg.h"
#include "metadata/vg/vg_int.h"
#include "test/lib/io_test.h"
#include "test/unit/vg_text_ref.h"

#include <libdevmapper.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REF_MAX 8192

static void fast_check(const char *text, size_t len)
{
	struct vg_text_tree tree = { 0 }, gen = { 0 };
	struct vg *vg = vg_alloc();
	char err[256];
	int r;

	if (!vg || memchr(text, '\0', len))
		goto out;
	r = vg_text_parse_fast(text, len, &tree, vg);
	if (r == 0 && (vg->nr_volumes || tree.root))
		abort();	/* a text left to the general path keeps nothing */
	if (r == 1 && vg->nr_volumes) {
		if (vg_text_parse(text, len, &gen, err, sizeof(err)))
			abort();	/* taken where the general parse refuses */
		if (!ref_general_has(gen.root, vg))
			abort();	/* not the general tree's entries */
	}
out:
	vg_text_tree_free(&gen);
	vg_text_tree_free(&tree);
	vg_free(vg);
}

static void import(const char *text, size_t len)
{
	struct vg *vg = NULL;
	char *out = NULL, why[600];
	size_t olen = 0;

	if (len <= REF_MAX && (ref_parse_diff(text, len, why, sizeof(why)) ||
			       ref_import_diff(text, len, why, sizeof(why)))) {
		fprintf(stderr, "fuzz_vg: %s\n", why);
		abort();	/* the reader left libdevmapper's or the old import's way */
	}
	fast_check(text, len);
	if (vg_import(text, len, &vg))
		return;
	if (len <= REF_MAX && ref_export_diff(vg, why, sizeof(why))) {
		fprintf(stderr, "fuzz_vg: %s\n", why);
		abort();	/* the writer's bytes are not the old writer's */
	}
	if (!vg_export(vg, &out, &olen)) {
		struct vg *again = NULL;
		if (vg_import(out, olen, &again))
			abort();	/* what we export must import */
		vg_free(again);
		free(out);
	}
	vg_free(vg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t sector[VG_LABEL_SIZE];
	struct vg_label l;

	tp_log_set_verbosity(-2);
	if (!size)
		return 0;
	switch (data[0] % 3) {
	case 0:
		import((const char *)data + 1, size - 1);
		break;
	case 1:
		memset(sector, 0, sizeof(sector));
		memcpy(sector, data + 1, size - 1 < sizeof(sector) ? size - 1 : sizeof(sector));
		if (vg_label_decode(sector, "fuzz", &l) == VG_LABEL_FOUND && vg_label_check(&l))
			abort();	/* a decoded label passes its own checks */
		break;
	case 2: {
		struct io_engine *io;
		struct vg_mda_copy copies[4];
		struct vg_pv pv;
		int n;
		if (size < 1 + VG_LABEL_SIZE)
			break;
		memcpy(sector, data + 1, sizeof(sector));
		if (vg_label_decode(sector, "fuzz", &l) != VG_LABEL_FOUND ||
		    l.mda.offset + l.mda.size > (4u << 20) || !l.mda.size)
			break;
		if (io_mem_create(l.mda.offset + l.mda.size, "fuzz", &io))
			break;
		size_t rest = size - 1 - VG_LABEL_SIZE;
		if (rest > l.mda.size)
			rest = (size_t)l.mda.size;
		memcpy(io_mem_data(io) + l.mda.offset, data + 1 + VG_LABEL_SIZE, rest);
		pv.io = io;
		pv.label = l;
		n = vg_mda_read_copies(&pv, 1, copies, 4, NULL);
		for (int i = 0; i < n; i++)
			import(copies[i].text, copies[i].len);
		if (n > 0)
			vg_mda_free_copies(copies, (unsigned)n);
		io_destroy(io);
		break;
	}
	}
	return 0;
}
