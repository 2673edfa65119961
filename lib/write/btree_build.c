/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Block maps built in one go from a sorted list of (offset, pointer):
 * the direct form when every offset is below NLFS_DIRECT_NBLOCKS, else a
 * B-tree built bottom-up with evenly filled nodes (each at least the
 * kernel's minimum fill when a level has more than one node) until at most
 * three entries remain for the root in the inode: every node written
 * (btree_layout.c numbers and fills them).
 */
#include <errno.h>
#include <string.h>

#include "writerP.h"

/* the shape: how many nodes each level has */
struct nlfs_btb {
	bool direct;
	unsigned nlev;                         /* node-block levels below the root */
	size_t count[NLFS_BTREE_LEVEL_MAX];    /* entries per level; count[0] = keys */
};

static int plan(struct nlfs_btb *p, const uint64_t *keys, size_t n, uint32_t blocksize)
{
	size_t ncmax = nlfs_btree_node_capacity(blocksize);

	memset(p, 0, sizeof(*p));
	p->count[0] = n;
	p->direct = n == 0 || keys[n - 1] < NLFS_DIRECT_NBLOCKS;
	if (p->direct)
		return 0;
	while (p->count[p->nlev] > NLFS_BTREE_ROOT_NCHILDREN) {
		size_t c = p->count[p->nlev];

		if (p->nlev + 2 >= NLFS_BTREE_LEVEL_MAX)
			return -EFBIG;
		p->nlev++;
		p->count[p->nlev] = (c + ncmax - 1) / ncmax;
	}
	return 0;
}

/* children of node I at level K: [lo, hi) among the entries of level K-1 */
static void child_range(const struct nlfs_btb *p, unsigned k, size_t i, size_t *lo, size_t *hi)
{
	size_t c = p->count[k - 1], m = p->count[k];

	*lo = i * c / m;
	*hi = (i + 1) * c / m;
}

static uint64_t node_key(const struct nlfs_btb *p, const uint64_t *keys, unsigned k, size_t i)
{
	size_t hi;

	for (; k > 0; k--)
		child_range(p, k, i, &i, &hi);
	return keys[i];
}

int nlfs_btl_rebuild(struct nlfs_btl *l, const uint64_t *keys, size_t n, uint32_t blocksize)
{
	struct nlfs_btb p;
	int rc = plan(&p, keys, n, blocksize);

	if (rc)
		return rc;
	nlfs_btl_reset(l, blocksize, n);
	l->direct = p.direct;
	l->nlev = p.nlev;
	for (unsigned k = 1; k <= p.nlev; k++) {
		if (nlfs_btl_level(l, k, p.count[k]))
			return -ENOMEM;
		for (size_t i = 0; i < p.count[k]; i++) {
			struct nlfs_btl_node *nd = &l->lev[k][i];
			size_t hi;

			child_range(&p, k, i, &nd->first, &hi);
			nd->count = hi - nd->first;
			nd->key = node_key(&p, keys, k, i);
			nd->ptr = 0;
			nd->dirty = true;
		}
	}
	return nlfs_btl_number(l);
}
