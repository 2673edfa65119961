/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A map from 64-bit keys to pointers (nlfs.h): open addressing with
 * linear probing, grown by doubling at half full; key 0, which marks an
 * empty slot, is kept beside the table. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "nlfsP.h"

/* where KEY is in M's table, or the empty slot it would take */
static size_t probe(const struct nlfs_u64map *m, uint64_t key)
{
	size_t j = nlfs_hash_slot(key, m->cap);

	while (m->keys[j] && m->keys[j] != key)
		j = (j + 1) & (m->cap - 1);
	return j;
}

static int rehash(struct nlfs_u64map *m)
{
	struct nlfs_u64map n = *m;

	n.cap = m->cap ? m->cap * 2 : 64;
	if (n.cap > SIZE_MAX / sizeof(*n.vals))
		return -ENOMEM;
	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		size_t j = probe(&n, m->keys[i]);

		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	*m = n;
	return 0;
}

int nlfs_u64map_put(struct nlfs_u64map *m, uint64_t key, void *val)
{
	size_t j;

	if (!key) {
		m->has_zero = true;
		m->zero_val = val;
		return 0;
	}
	if ((m->used + 1) * 2 > m->cap && rehash(m))
		return -ENOMEM;
	j = probe(m, key);
	if (!m->keys[j])
		m->used++;
	m->keys[j] = key;
	m->vals[j] = val;
	return 0;
}

bool nlfs_u64map_get(const struct nlfs_u64map *m, uint64_t key, void **val)
{
	size_t j;

	if (!key) {
		if (m->has_zero && val)
			*val = m->zero_val;
		return m->has_zero;
	}
	if (!m->cap)
		return false;
	j = probe(m, key);
	if (!m->keys[j])
		return false;
	if (val)
		*val = m->vals[j];
	return true;
}

void nlfs_u64map_free(struct nlfs_u64map *m, void (*free_val)(void *))
{
	for (size_t i = 0; free_val && i < m->cap; i++)
		if (m->keys[i])
			free_val(m->vals[i]);
	if (free_val && m->has_zero)
		free_val(m->zero_val);
	free(m->keys);
	free(m->vals);
	*m = (struct nlfs_u64map){ 0 };
}
