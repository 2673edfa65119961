/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The offsets of a file's data blocks, collected from its block map. */
#include <errno.h>
#include <stdlib.h>

#include "../nlfsP.h"

struct keys {
	uint64_t *v;
	size_t n, cap;
};

static int collect(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	struct keys *k = arg;

	(void)ptr;
	if (level)
		return 0;
	if (NLFS_GROW(k->v, k->cap, k->n + 1))
		return -ENOMEM;
	k->v[k->n++] = key;
	return 0;
}

int nlfs_bmap_keys(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t **keys, size_t *nkeys,
		   struct nlfs_err *err)
{
	struct keys k = { 0 };
	int rc = nlfs_bmap_iterate(fs, f, collect, &k, err);

	*keys = k.v;
	*nkeys = k.n;
	return rc;
}
