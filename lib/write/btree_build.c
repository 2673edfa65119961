/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Block maps built in one go from a sorted list of (offset, pointer):
 * the direct form when every offset is below NLFS_DIRECT_NBLOCKS, else a
 * B-tree built bottom-up with evenly filled nodes (each at least the
 * kernel's minimum fill when a level has more than one node) until at most
 * three entries remain for the root in the inode.
 */
#include <errno.h>
#include <string.h>

#include <nlfs/endian.h>
#include "writerP.h"

static size_t node_capacity(uint32_t blocksize)
{
	return (blocksize - sizeof(struct nlfs_btree_node) - NLFS_BTREE_NODE_EXTRA) / 16;
}

int nlfs_btb_plan(struct nlfs_btb *p, const uint64_t *keys, size_t n, uint32_t blocksize)
{
	size_t ncmax = node_capacity(blocksize);

	memset(p, 0, sizeof(*p));
	p->blocksize = blocksize;
	p->count[0] = n;
	p->direct = n == 0 || keys[n - 1] < NLFS_DIRECT_NBLOCKS;
	if (p->direct)
		return 0;
	while (p->count[p->nlev] > NLFS_BTREE_ROOT_NCHILDREN) {
		size_t c = p->count[p->nlev];

		if (p->nlev + 2 >= NLFS_BTREE_LEVEL_MAX)
			return -EFBIG;
		p->nlev++;
		p->first[p->nlev] = p->total;
		p->count[p->nlev] = (c + ncmax - 1) / ncmax;
		p->total += p->count[p->nlev];
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

uint64_t nlfs_btb_node_key(const struct nlfs_btb *p, const uint64_t *keys, unsigned k, size_t i)
{
	size_t hi;

	for (; k > 0; k--)
		child_range(p, k, i, &i, &hi);
	return keys[i];
}

void nlfs_btb_node_of(const struct nlfs_btb *p, size_t flat, unsigned *level, size_t *i)
{
	unsigned k = 1;

	while (k < p->nlev && flat >= p->first[k + 1])
		k++;
	*level = k;
	*i = flat - p->first[k];
}

/* the pointer of entry I at level K (0: a data block) */
static uint64_t entry_ptr(const struct nlfs_btb *p, unsigned k, size_t i, const uint64_t *ptrs,
			  const uint64_t *node_ptrs)
{
	return k == 0 ? ptrs[i] : node_ptrs[p->first[k] + i];
}

static void put64(uint8_t *base, size_t idx, uint64_t v)
{
	nlfs_put_le64(base + 8 * idx, v);
}

void nlfs_btb_fill_node(const struct nlfs_btb *p, size_t flat, const uint64_t *keys,
			const uint64_t *ptrs, const uint64_t *node_ptrs, uint8_t *buf)
{
	size_t ncmax = node_capacity(p->blocksize), i, lo, hi;
	uint8_t *kp = buf + sizeof(struct nlfs_btree_node) + NLFS_BTREE_NODE_EXTRA;
	uint8_t *pp = kp + 8 * ncmax;
	struct nlfs_btree_node h = { 0 };
	unsigned k;

	memset(buf, 0, p->blocksize);
	nlfs_btb_node_of(p, flat, &k, &i);
	child_range(p, k, i, &lo, &hi);
	h.bn_level = (uint8_t)k;
	h.bn_nchildren = nlfs_cpu_to_le16((uint16_t)(hi - lo));
	memcpy(buf, &h, sizeof(h));
	for (size_t c = lo; c < hi; c++) {
		put64(kp, c - lo, nlfs_btb_node_key(p, keys, k - 1, c));
		put64(pp, c - lo, entry_ptr(p, k - 1, c, ptrs, node_ptrs));
	}
}

void nlfs_btb_fill_root(const struct nlfs_btb *p, const uint64_t *keys, const uint64_t *ptrs,
			const uint64_t *node_ptrs, nlfs_le64_t bmap[NLFS_INODE_BMAP_SIZE])
{
	uint8_t *b = (uint8_t *)bmap;
	struct nlfs_btree_node h = { 0 };
	size_t n = p->count[p->nlev];

	memset(bmap, 0, NLFS_INODE_BMAP_SIZE * 8);
	if (p->direct) {
		for (size_t i = 0; i < n; i++)
			bmap[1 + keys[i]] = nlfs_cpu_to_le64(ptrs[i]);
		return;
	}
	h.bn_flags = NLFS_BMAP_LARGE;
	h.bn_level = (uint8_t)(p->nlev + 1);
	h.bn_nchildren = nlfs_cpu_to_le16((uint16_t)n);
	memcpy(b, &h, sizeof(h));
	for (size_t i = 0; i < n; i++) {
		put64(b + sizeof(h), i, nlfs_btb_node_key(p, keys, p->nlev, i));
		put64(b + sizeof(h) + 8 * NLFS_BTREE_ROOT_NCHILDREN, i,
		      entry_ptr(p, p->nlev, i, ptrs, node_ptrs));
	}
}
