/* SPDX-License-Identifier: GPL-2.0-or-later */
/* human.c - the human-readable dump layout. See human.h.
 *
 *   begin superblock: "", TIME, TRANSACTION, FLAGS, VERSION, DATA_BLOCK_SIZE, NR_DATA_BLOCKS
 *   device: ID
 *   mapped_blocks: M
 *   transaction: T
 *   creation time: CT
 *   snap time: ST
 *       ORIGIN -> DATA, TIME
 *       (FIRST..LAST) -> (FIRST..LAST), TIME
 *   (an empty line after each device)
 *   end superblock */
#include "metadata/thin/human.h"

static void human_superblock_begin(struct xml_out *o, const struct thin_ir_superblock *sb)
{
	xml_out_lit(o, "begin superblock: \"\", ");
	xml_out_u64(o, sb->time);
	xml_out_lit(o, ", ");
	xml_out_u64(o, sb->transaction);
	xml_out_lit(o, ", ");
	xml_out_u64(o, sb->flags);
	xml_out_lit(o, ", ");
	xml_out_u64(o, sb->version);
	xml_out_lit(o, ", ");
	xml_out_u64(o, sb->data_block_size);
	xml_out_lit(o, ", ");
	xml_out_u64(o, sb->nr_data_blocks);
	xml_out_lit(o, "\n");
}

static void human_superblock_end(struct xml_out *o)
{
	xml_out_lit(o, "end superblock\n");
}

static void human_device_begin(struct xml_out *o, const struct thin_ir_device *dev)
{
	xml_out_lit(o, "device: ");
	xml_out_u64(o, dev->dev_id);
	xml_out_lit(o, "\nmapped_blocks: ");
	xml_out_u64(o, dev->mapped_blocks);
	xml_out_lit(o, "\ntransaction: ");
	xml_out_u64(o, dev->transaction);
	xml_out_lit(o, "\ncreation time: ");
	xml_out_u64(o, dev->creation_time);
	xml_out_lit(o, "\nsnap time: ");
	xml_out_u64(o, dev->snap_time);
	xml_out_lit(o, "\n");
}

static void human_device_end(struct xml_out *o)
{
	xml_out_lit(o, "\n");
}

static void human_run(struct xml_out *o, const struct thin_ir_mapping *run)
{
	xml_out_lit(o, "    ");
	if (run->length == 1) {
		xml_out_u64(o, run->origin_begin);
		xml_out_lit(o, " -> ");
		xml_out_u64(o, run->data_begin);
	} else {
		xml_out_lit(o, "(");
		xml_out_u64(o, run->origin_begin);
		xml_out_lit(o, "..");
		xml_out_u64(o, run->origin_begin + run->length - 1);
		xml_out_lit(o, ") -> (");
		xml_out_u64(o, run->data_begin);
		xml_out_lit(o, "..");
		xml_out_u64(o, run->data_begin + run->length - 1);
		xml_out_lit(o, ")");
	}
	xml_out_lit(o, ", ");
	xml_out_u64(o, run->time);
	xml_out_lit(o, "\n");
}

const struct thin_emit_style thin_emit_human_style = {
	.superblock_begin = human_superblock_begin,
	.superblock_end = human_superblock_end,
	.device_begin = human_device_begin,
	.device_end = human_device_end,
	.run = human_run,
};
