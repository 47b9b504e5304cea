/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pool_names.c - the names of the pools this host knows (pool.h):
 * pool_list_names, those of the devices file; pool_list_all_names, those
 * and the ones the labels of the block devices carry, for tpactivate
 * --all. */
#include "lib/pool/host/host.h"
#include "lib/pool/pool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add a copy of NAME to the array *NAMES of *N unless it is there. */
static int add_name(char ***names, unsigned *n, const char *name)
{
	char **grown;

	for (unsigned i = 0; i < *n; i++)
		if (!strcmp((*names)[i], name))
			return 0;
	grown = realloc(*names, (*n + 2) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	*names = grown;
	if (!(grown[*n] = strdup(name)))
		return -ENOMEM;
	grown[++*n] = NULL;
	return 0;
}

static void free_names(char ***names, unsigned *n)
{
	for (unsigned i = 0; i < *n; i++)
		free((*names)[i]);
	free(*names);
	*names = NULL;
	*n = 0;
}

int pool_list_names(char ***names, unsigned *n)
{
	struct pool_devices_entry *ent = NULL;
	size_t nent = 0;
	int r = pool_devices_list(&ent, &nent);

	*names = NULL;
	*n = 0;
	if (r)
		return r;
	for (size_t i = 0; i < nent && !r; i++)
		r = add_name(names, n, ent[i].pool);
	free(ent);
	if (!r && !*n && !(*names = calloc(1, sizeof(**names))))
		r = -ENOMEM;
	if (r) {
		free_names(names, n);
		return r;
	}
	qsort(*names, *n, sizeof(**names), cmp_name);
	return 0;
}

int pool_list_all_names(char ***names, unsigned *n)
{
	struct tp_dev_list list = { 0 };
	int r = pool_list_names(names, n);

	if (r)
		return r;
	if (!pool_scan_devices(&list)) {
		for (unsigned i = 0; i < list.count && !r; i++) {
			struct vg_label l;

			if (!pool_read_label(list.dev[i].path, &l) && l.pool_name[0])
				r = add_name(names, n, l.pool_name);
		}
		tp_dev_list_free(&list);
	}
	if (r) {
		free_names(names, n);
		return r;
	}
	if (*n)
		qsort(*names, *n, sizeof(**names), cmp_name);
	return 0;
}
