/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tp-vgtool - test-only inspection and damage of tptools labels and VG
 * metadata areas on image files, for shell tests (on PATH there as
 * $(BUILD)/test/bin/tp-vgtool).
 *
 *   tp-vgtool label PATH          label fields as key=value lines;
 *                                 exit 0 found, 1 not ours, 2 corrupt
 *   tp-vgtool slots PATH...       "PATH slot K STATE SEQNO" per slot, then
 *                                 "newest=N needs_repair=0|1"
 *   tp-vgtool text PATH...        the newest valid VG text
 *   tp-vgtool where PATH          where each copy this device keeps lies, one
 *                                 "COPY OFFSET LENGTH [STATE SEQNO]" line
 *                                 each (bytes): label, slot0 and slot1 (the
 *                                 VG area's slots, with what vg_mda_read
 *                                 finds there), newest and previous (the
 *                                 slot holding this device's newest valid
 *                                 copy and the other one), record (the
 *                                 newest change record of the newest copy,
 *                                 VG format 2; no line when it has none),
 *                                 area0 and area1
 *                                 (the label's areas; size 0: none); the
 *                                 damage matrix's locator
 *   tp-vgtool damage PATH SLOT WHAT
 *                                 SLOT: 0, 1 or "newest" (on that device);
 *                                 WHAT: header (flip a header byte), text
 *                                 (flip a text byte), tear (zero the second
 *                                 half of the slot's text: a torn write)
 *   tp-vgtool put FILE PATH...    FILE's bytes committed as the devices'
 *                                 next VG copy (the newest seqno + 1),
 *                                 whole, checksums right: a copy another
 *                                 tptools could have written
 * Exit 3 for bad usage, 5 for errors. */
#include "lib/base/exitcodes.h"
#include "lib/base/io.h"
#include "lib/base/log.h"
#include "metadata/vg/mda.h"
#include "metadata/vg/vg_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const state_names[] = {
	[VG_SLOT_EMPTY] = "empty", [VG_SLOT_VALID] = "valid",
	[VG_SLOT_CORRUPT] = "corrupt", [VG_SLOT_BLANK] = "blank", [VG_SLOT_NEWER] = "newer",
};

static int usage(void)
{
	fprintf(stderr, "usage: tp-vgtool label PATH | slots PATH... | text PATH... | where PATH | "
			"damage PATH 0|1|newest header|text|tear | put FILE PATH...\n");
	return TP_EXIT_USAGE;
}

/* Open up to two labelled devices. */
static int open_pvs(int n, char **paths, unsigned flags, struct vg_pv *pvs)
{
	int i, r;

	for (i = 0; i < n; i++) {
		r = io_fd_open(paths[i], flags, &pvs[i].io);
		if (r) {
			fprintf(stderr, "%s: %s\n", paths[i], strerror(-r));
			return r;
		}
		r = vg_label_read(pvs[i].io, &pvs[i].label);
		if (r != VG_LABEL_FOUND) {
			fprintf(stderr, "%s: no valid tptools label\n", paths[i]);
			return r ? r : -ENODATA;
		}
	}
	return 0;
}

static void close_pvs(int n, struct vg_pv *pvs)
{
	for (int i = 0; i < n; i++)
		if (pvs[i].io)
			io_destroy(pvs[i].io);
}

static int cmd_label(const char *path)
{
	struct vg_label l;
	int r = vg_label_probe_path(path, &l);

	if (r == VG_LABEL_NONE)
		return 1;
	if (r < 0)
		return r == -EUCLEAN ? 2 : TP_EXIT_FAILED;
	printf("pool_name=%s\npool_uuid=%s\npv_uuid=%s\nrole=%s\ndevice_size=%llu\n"
	       "mda_offset=%llu\nmda_size=%llu\narea0_offset=%llu\narea0_size=%llu\n"
	       "area1_offset=%llu\narea1_size=%llu\n",
	       l.pool_name, l.pool_uuid, l.pv_uuid, vg_role_name(l.role),
	       (unsigned long long)l.device_size, (unsigned long long)l.mda.offset,
	       (unsigned long long)l.mda.size, (unsigned long long)l.area[0].offset,
	       (unsigned long long)l.area[0].size, (unsigned long long)l.area[1].offset,
	       (unsigned long long)l.area[1].size);
	return 0;
}

static int cmd_slots(int n, char **paths, int text)
{
	struct vg_pv pvs[VG_MDA_MAX_DEVICES];
	struct vg_mda_status st;
	char *t = NULL;
	size_t len;
	int r, i, k;

	memset(pvs, 0, sizeof(pvs));
	memset(&st, 0, sizeof(st));
	r = open_pvs(n, paths, IO_RDONLY, pvs);
	if (r) {	/* a device without a label: said by open_pvs */
		close_pvs(n, pvs);
		return TP_EXIT_FAILED;
	}
	r = vg_mda_read(pvs, (unsigned)n, &t, &len, &st);
	if (!r && text)
		fwrite(t, 1, len, stdout);
	if (!text && (!r || r == -ENODATA || r == -EPROTONOSUPPORT)) {
		for (i = 0; i < n; i++)
			for (k = 0; k < VG_MDA_SLOTS; k++)
				printf("%s slot %d %s %llu\n", paths[i], k,
				       state_names[st.slot[i][k].state],
				       (unsigned long long)st.slot[i][k].seqno);
		printf("newest=%llu needs_repair=%d\n", (unsigned long long)st.seqno,
		       st.needs_repair);
		r = 0;
	}
	free(t);
	close_pvs(n, pvs);
	return r ? TP_EXIT_FAILED : 0;
}

/* The copies one device keeps, from its label (see the header). */
static int cmd_where(char *path)
{
	struct vg_pv pv;
	struct vg_mda_status st;
	char *t = NULL;
	size_t len;
	uint64_t size;
	int r, k, newest;

	memset(&pv, 0, sizeof(pv));
	memset(&st, 0, sizeof(st));
	if (open_pvs(1, &path, IO_RDONLY, &pv)) {
		close_pvs(1, &pv);
		return TP_EXIT_FAILED;
	}
	r = vg_mda_read(&pv, 1, &t, &len, &st);
	free(t);
	size = (pv.label.mda.size / VG_MDA_SLOTS) & ~(uint64_t)511;
	printf("label %u %u\n", VG_LABEL_OFFSET, VG_LABEL_SIZE);
	for (k = 0; k < VG_MDA_SLOTS; k++)
		printf("slot%d %llu %llu %s %llu\n", k,
		       (unsigned long long)(pv.label.mda.offset + (uint64_t)k * size),
		       (unsigned long long)size, state_names[st.slot[0][k].state],
		       (unsigned long long)st.slot[0][k].seqno);
	/* the slot with the newest valid copy (0 when none is valid) */
	newest = !r && st.slot[0][1].state == VG_SLOT_VALID && st.slot[0][1].seqno == st.seqno;
	printf("newest %llu %llu\nprevious %llu %llu\n",
	       (unsigned long long)(pv.label.mda.offset + (uint64_t)newest * size),
	       (unsigned long long)size,
	       (unsigned long long)(pv.label.mda.offset + (uint64_t)(1 - newest) * size),
	       (unsigned long long)size);
	/* the newest copy's newest change record (VG format 2), if it has one */
	if (!r && st.slot[0][newest].records)
		printf("record %llu %llu\n", (unsigned long long)st.slot[0][newest].record_off,
		       (unsigned long long)st.slot[0][newest].record_len);
	for (k = 0; k < 2; k++)
		printf("area%d %llu %llu\n", k, (unsigned long long)pv.label.area[k].offset,
		       (unsigned long long)pv.label.area[k].size);
	close_pvs(1, &pv);
	return 0;
}

static int cmd_damage(const char *path, const char *slot, const char *what)
{
	struct vg_pv pv;
	struct vg_mda_status st;
	uint8_t h[VG_MDA_SLOT_HEADER], b;
	uint64_t size, off, len, at;
	char *t = NULL, *p = (char *)path;
	size_t tl;
	int k, r;

	memset(&pv, 0, sizeof(pv));
	r = open_pvs(1, &p, 0, &pv);
	if (r)
		goto out;
	if (!strcmp(slot, "newest")) {
		r = vg_mda_read(&pv, 1, &t, &tl, &st);
		if (r)
			goto out;
		k = st.slot[0][1].state == VG_SLOT_VALID && st.slot[0][1].seqno == st.seqno;
	} else if (!strcmp(slot, "0") || !strcmp(slot, "1")) {
		k = slot[0] - '0';
	} else {
		r = -EINVAL;
		goto out;
	}
	size = (pv.label.mda.size / VG_MDA_SLOTS) & ~(uint64_t)511;
	off = pv.label.mda.offset + (uint64_t)k * size;
	r = io_read(pv.io, off, h, sizeof(h));
	if (r)
		goto out;
	len = le64_get(h + 48);
	if (len > size - VG_MDA_SLOT_HEADER)
		len = size - VG_MDA_SLOT_HEADER;
	if (!strcmp(what, "header")) {
		at = off + 40;	/* the seqno */
	} else if (!strcmp(what, "text") && len) {
		at = off + VG_MDA_SLOT_HEADER + len / 2;
	} else if (!strcmp(what, "tear") && len) {
		uint64_t from = off + VG_MDA_SLOT_HEADER + len / 2, n = len - len / 2;
		char *zero = calloc(1, n);
		r = zero ? io_write(pv.io, from, zero, n) : -ENOMEM;
		free(zero);
		goto flush;
	} else {
		r = -EINVAL;
		goto out;
	}
	r = io_read(pv.io, at, &b, 1);
	b ^= 0x20;
	if (!r)
		r = io_write(pv.io, at, &b, 1);
flush:
	if (!r)
		r = io_flush(pv.io);
	if (!r)
		printf("%s: damaged slot %d (%s)\n", path, k, what);
out:
	free(t);
	close_pvs(pv.io ? 1 : 0, &pv);
	if (r == -EINVAL)
		return usage();
	if (r)
		fprintf(stderr, "tp-vgtool: %s: %s\n", path, strerror(-r));
	return r ? TP_EXIT_FAILED : 0;
}

static int cmd_put(const char *file, int n, char **paths)
{
	struct vg_pv pvs[VG_MDA_MAX_DEVICES];
	struct vg_mda_status st;
	char *t = NULL, *old = NULL;
	size_t len = 0, oldlen;
	FILE *f = fopen(file, "rb");
	int r;

	memset(pvs, 0, sizeof(pvs));
	if (!f) {
		fprintf(stderr, "tp-vgtool: %s: %s\n", file, strerror(errno));
		return TP_EXIT_FAILED;
	}
	t = malloc(1 << 24);
	if (t)
		len = fread(t, 1, 1 << 24, f);
	fclose(f);
	r = t ? open_pvs(n, paths, 0, pvs) : -ENOMEM;
	if (!r)
		r = vg_mda_read(pvs, (unsigned)n, &old, &oldlen, &st);
	if (!r)
		r = vg_mda_commit(pvs, (unsigned)n, st.seqno + 1, t, len, 0, 0);
	if (!r)
		printf("put seqno %llu\n", (unsigned long long)st.seqno + 1);
	else
		fprintf(stderr, "tp-vgtool: put: %s\n", strerror(-r));
	free(old);
	free(t);
	close_pvs(n, pvs);
	return r ? TP_EXIT_FAILED : 0;
}

int main(int argc, char **argv)
{
	tp_log_init("tp-vgtool");
	if (argc == 3 && !strcmp(argv[1], "label"))
		return cmd_label(argv[2]);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "slots"))
		return cmd_slots(argc - 2, argv + 2, 0);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "text"))
		return cmd_slots(argc - 2, argv + 2, 1);
	if (argc == 3 && !strcmp(argv[1], "where"))
		return cmd_where(argv[2]);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "put"))
		return cmd_put(argv[2], argc - 3, argv + 3);
	if (argc == 5 && !strcmp(argv[1], "damage"))
		return cmd_damage(argv[2], argv[3], argv[4]);
	return usage();
}
