/* vg_int.h - helpers shared by the metadata/vg sources only: little-endian
 * field access for the on-disk label and slot headers. Not for callers
 * outside metadata/vg. */
#ifndef TP_VG_INT_H
#define TP_VG_INT_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "metadata/vg/label.h"

struct vg;

static inline void vg_put_le32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void vg_put_le64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static inline uint32_t vg_get_le32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline uint64_t vg_get_le64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

/* What is wrong with label L (a static string or BUF), or NULL. */
const char *vg_label_problem(const struct vg_label *l, char *buf, size_t buflen);

/* Append a copy of V to VG's volumes without any check: 0 or -ENOMEM. */
struct vg_volume;
int vg_append_volume(struct vg *vg, const struct vg_volume *v);
int vg_append_receive(struct vg *vg, const struct vg_volume *v);

/* Check every field of VG; on a problem write "key: problem" (the key as
 * a path such as "pool/volumes/www/dev_id") into MSG and return -1. */
int vg_check_model(const struct vg *vg, char *msg, size_t msglen);

#endif
