/* devices.h - the devices file, <config dir>/devices (like LVM's
 * system.devices): where each pool's devices were last seen.
 *
 * Format: '#' comments and blank lines are ignored; every other line is
 *   POOL ROLE PV_UUID PATH
 * separated by single spaces, PATH running to the end of the line (it may
 * contain spaces, not newlines). One line per pool device; PV_UUID is
 * unique in the file. Lines that do not parse are kept verbatim on
 * rewrite and reported once as a warning, so a hand edit never loses data.
 *
 * Every change takes the "#devices" lock (lock.h; '#' cannot occur in a
 * pool name, so it never collides with a pool lock) exclusively, rereads
 * the file, and rewrites it atomically (temp + fsync + rename). Lookups
 * take it shared. The file is a cache: a lost entry is found again by
 * reading labels (vg_label_probe_path). Functions return 0 or -errno. */
#ifndef TP_VG_DEVICES_H
#define TP_VG_DEVICES_H

#include <stddef.h>

#include "lib/base/compiler.h"
#include "metadata/vg/label.h"
#include "metadata/vg/uuid.h"
#include "metadata/vg/vg.h"

struct vg_devices_entry {
	char pool[VG_NAME_MAX + 1];
	enum vg_role role;
	char pv_uuid[VG_UUID_LEN + 1];
	char path[VG_PATH_MAX + 1];
};

/* The file's path (caller frees) or NULL on ENOMEM. */
char *vg_devices_path(void);

/* Add E, replacing an entry with the same pv_uuid. -EINVAL for a bad
 * name, uuid or path (empty, or containing a newline). */
int vg_devices_add(const struct vg_devices_entry *e) TP_MUST_CHECK;

/* Remove the entry of PV_UUID: 0, or -ENOENT if there was none. */
int vg_devices_remove_pv(const char *pv_uuid) TP_MUST_CHECK;
/* Remove every entry of POOL: 0 (also when there were none). */
int vg_devices_remove_pool(const char *pool) TP_MUST_CHECK;

/* All entries (file order) into a malloc'd *ENTRIES (caller frees), *N.
 * A missing file is 0 with *N = 0. */
int vg_devices_list(struct vg_devices_entry **entries, size_t *n) TP_MUST_CHECK;

/* Entries of POOL into OUT (up to MAX, in file order); returns the count
 * found (may exceed MAX) or -errno. */
int vg_devices_lookup_pool(const char *pool, struct vg_devices_entry *out,
			   size_t max) TP_MUST_CHECK;
/* The entry of PV_UUID into *OUT: 0 or -ENOENT. */
int vg_devices_lookup_pv(const char *pv_uuid, struct vg_devices_entry *out) TP_MUST_CHECK;

#endif
