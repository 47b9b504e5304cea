/* SPDX-License-Identifier: GPL-2.0-or-later */
/* xml_defs.c - the shared subtrees of a 1.x dump. See xml_defs.h. */
#include "metadata/thin/xml_defs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void xml_defs_init(struct xml_defs *d)
{
	memset(d, 0, sizeof(*d));
	u64map_init(&d->index);
}

void xml_defs_destroy(struct xml_defs *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->defs[i].m);
	free(d->defs);
	u64map_destroy(&d->index);
	memset(d, 0, sizeof(*d));
}

int xml_defs_begin(struct xml_defs *d, uint64_t name, size_t *pos)
{
	if (u64map_get(&d->index, name, NULL))
		return -EEXIST;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct xml_def *v = realloc(d->defs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->defs = v;
		d->cap = cap;
	}
	if (u64map_put(&d->index, name, d->n))
		return -ENOMEM;
	memset(&d->defs[d->n], 0, sizeof(d->defs[d->n]));
	*pos = d->n++;
	return 0;
}

const struct xml_def *xml_defs_find(const struct xml_defs *d, uint64_t name)
{
	uint64_t pos;

	return u64map_get(&d->index, name, &pos) ? &d->defs[pos] : NULL;
}

int xml_def_append(struct xml_def *def, const struct thin_ir_mapping *m)
{
	if (def->n == def->cap) {
		size_t cap = def->cap ? def->cap * 2 : 64;
		struct thin_ir_mapping *v = realloc(def->m, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		def->m = v;
		def->cap = cap;
	}
	def->m[def->n++] = *m;
	return 0;
}
