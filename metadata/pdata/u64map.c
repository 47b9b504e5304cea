/* SPDX-License-Identifier: GPL-2.0-or-later */
/* u64map.c - open-addressing hash map, linear probing. See u64map.h. */
#include "metadata/pdata/u64map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static inline size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return (size_t)k;
}

void u64map_init(struct u64map *m)
{
	memset(m, 0, sizeof(*m));
}

void u64map_destroy(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	u64map_init(m);
}

void u64map_clear(struct u64map *m)
{
	if (m->cap)
		memset(m->used, 0, m->cap);
	m->nr = 0;
	m->tomb = 0;
}

static int rehash(struct u64map *m, size_t ncap)
{
	struct u64map n;

	n.keys = malloc(ncap * sizeof(uint64_t));
	n.vals = malloc(ncap * sizeof(uint64_t));
	n.used = calloc(ncap, 1);
	n.cap = ncap;
	n.nr = 0;
	n.tomb = 0;
	if (!n.keys || !n.vals || !n.used) {
		free(n.keys);
		free(n.vals);
		free(n.used);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (m->used[i] != 1)
			continue;
		size_t j = hash64(m->keys[i]) & (ncap - 1);
		while (n.used[j])
			j = (j + 1) & (ncap - 1);
		n.used[j] = 1;
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
		n.nr++;
	}
	free(m->keys);
	free(m->vals);
	free(m->used);
	*m = n;
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	size_t i, tomb = SIZE_MAX;

	if ((m->nr + m->tomb + 1) * 4 >= m->cap * 3) {
		int r = rehash(m, m->cap ? (m->nr * 2 + 2 >= m->cap ? m->cap * 2 : m->cap) : 16);
		if (r)
			return r;
	}
	i = hash64(key) & (m->cap - 1);
	while (m->used[i]) {
		if (m->used[i] == 1 && m->keys[i] == key) {
			m->vals[i] = val;
			return 0;
		}
		if (m->used[i] == 2 && tomb == SIZE_MAX)
			tomb = i;
		i = (i + 1) & (m->cap - 1);
	}
	if (tomb != SIZE_MAX) {
		i = tomb;
		m->tomb--;
	}
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = val;
	m->nr++;
	return 0;
}

static size_t find(const struct u64map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return SIZE_MAX;
	i = hash64(key) & (m->cap - 1);
	while (m->used[i]) {
		if (m->used[i] == 1 && m->keys[i] == key)
			return i;
		i = (i + 1) & (m->cap - 1);
	}
	return SIZE_MAX;
}

int u64map_get(const struct u64map *m, uint64_t key, uint64_t *val)
{
	size_t i = find(m, key);

	if (i == SIZE_MAX)
		return 0;
	if (val)
		*val = m->vals[i];
	return 1;
}

int u64map_del(struct u64map *m, uint64_t key)
{
	size_t i = find(m, key);

	if (i == SIZE_MAX)
		return 0;
	m->used[i] = 2;
	m->nr--;
	m->tomb++;
	return 1;
}

int u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	for (size_t i = *pos; i < m->cap; i++) {
		if (m->used[i] == 1) {
			*key = m->keys[i];
			if (val)
				*val = m->vals[i];
			*pos = i + 1;
			return 1;
		}
	}
	*pos = m->cap;
	return 0;
}

int u64_push(uint64_t **v, size_t *n, uint64_t x)
{
	if (!*n || !(*n & (*n - 1))) {
		uint64_t *nv = realloc(*v, (*n ? *n * 2 : 16) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
	}
	(*v)[(*n)++] = x;
	return 0;
}
