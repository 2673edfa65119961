/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The shape of a block map's B-tree after a construction: per level, its
 * nodes in key order, each the range of entries one level down it holds,
 * and whether the construction writes it (then it gets a new address) or
 * keeps it where it is.  Built anew for a new map (btree_build.c), or as
 * the kernel changes a map: from the old tree, only the nodes whose
 * entries change are written, and with them the path to the root.  A
 * node that would overflow is split evenly; one left without entries is
 * dropped; one left short of the minimum stays as it is (the kernel's
 * deletion merges it when it next shrinks).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "writerP.h"

size_t nlfs_btree_node_capacity(uint32_t blocksize)
{
	return (blocksize - sizeof(struct nlfs_btree_node) - NLFS_BTREE_NODE_EXTRA) / 16;
}

void nlfs_btl_free(struct nlfs_btl *l)
{
	for (unsigned k = 0; k < NLFS_BTREE_LEVEL_MAX; k++)
		free(l->lev[k]);
	free(l->slots);
	memset(l, 0, sizeof(*l));
}

void nlfs_btl_reset(struct nlfs_btl *l, uint32_t blocksize, size_t nkeys)
{
	for (unsigned k = 0; k < NLFS_BTREE_LEVEL_MAX; k++)
		l->n[k] = 0;
	l->n[0] = nkeys;
	l->nlev = 0;
	l->total = l->ndirty = 0;
	l->direct = false;
	l->blocksize = blocksize;
}

/* room for N nodes at level K */
int nlfs_btl_level(struct nlfs_btl *l, unsigned k, size_t n)
{
	if (NLFS_GROW(l->lev[k], l->cap[k], n + 1))
		return -ENOMEM;
	l->n[k] = n;
	return 0;
}

/* every written node its slot, level ascending, then key */
int nlfs_btl_number(struct nlfs_btl *l)
{
	size_t nd = 0, total = 0;

	for (unsigned k = 1; k <= l->nlev; k++) {
		total += l->n[k];
		for (size_t i = 0; i < l->n[k]; i++)
			nd += l->lev[k][i].dirty;
	}
	if (NLFS_GROW(l->slots, l->capslots, nd + 1))
		return -ENOMEM;
	l->total = total;
	l->ndirty = 0;
	for (unsigned k = 1; k <= l->nlev; k++)
		for (size_t i = 0; i < l->n[k]; i++) {
			struct nlfs_btl_node *nd_ = &l->lev[k][i];

			if (!nd_->dirty)
				continue;
			nd_->slot = l->ndirty;
			l->slots[l->ndirty].level = (uint8_t)k;
			l->slots[l->ndirty++].index = i;
		}
	return 0;
}

static uint64_t entry_key(const struct nlfs_btl *l, unsigned k, size_t i, const uint64_t *keys)
{
	return k == 0 ? keys[i] : l->lev[k][i].key;
}

static uint64_t entry_ptr(const struct nlfs_btl *l, unsigned k, size_t i, const uint64_t *ptrs,
			  const uint64_t *node_ptrs)
{
	const struct nlfs_btl_node *nd;

	if (k == 0)
		return ptrs[i];
	nd = &l->lev[k][i];
	return nd->dirty ? node_ptrs[nd->slot] : nd->ptr;
}

void nlfs_btl_node_of(const struct nlfs_btl *l, size_t slot, unsigned *level, uint64_t *key)
{
	*level = l->slots[slot].level;
	*key = l->lev[*level][l->slots[slot].index].key;
}

static void put64(uint8_t *base, size_t idx, uint64_t v)
{
	nlfs_put_le64(base + 8 * idx, v);
}

void nlfs_btl_fill_node(const struct nlfs_btl *l, size_t slot, const uint64_t *keys,
			const uint64_t *ptrs, const uint64_t *node_ptrs, uint8_t *buf)
{
	size_t ncmax = nlfs_btree_node_capacity(l->blocksize);
	unsigned k = l->slots[slot].level;
	const struct nlfs_btl_node *nd = &l->lev[k][l->slots[slot].index];
	uint8_t *kp = buf + sizeof(struct nlfs_btree_node) + NLFS_BTREE_NODE_EXTRA;
	uint8_t *pp = kp + 8 * ncmax;
	struct nlfs_btree_node h = { 0 };

	memset(buf, 0, l->blocksize);
	h.bn_level = (uint8_t)k;
	h.bn_nchildren = nlfs_cpu_to_le16((uint16_t)nd->count);
	memcpy(buf, &h, sizeof(h));
	for (size_t c = 0; c < nd->count; c++) {
		put64(kp, c, entry_key(l, k - 1, nd->first + c, keys));
		put64(pp, c, entry_ptr(l, k - 1, nd->first + c, ptrs, node_ptrs));
	}
}

void nlfs_btl_fill_root(const struct nlfs_btl *l, const uint64_t *keys, const uint64_t *ptrs,
			const uint64_t *node_ptrs, nlfs_le64_t bmap[NLFS_INODE_BMAP_SIZE])
{
	uint8_t *b = (uint8_t *)bmap;
	struct nlfs_btree_node h = { 0 };
	size_t n = l->n[l->nlev];

	memset(bmap, 0, NLFS_INODE_BMAP_SIZE * 8);
	if (l->direct) {
		for (size_t i = 0; i < n; i++)
			bmap[1 + keys[i]] = nlfs_cpu_to_le64(ptrs[i]);
		return;
	}
	h.bn_flags = NLFS_BMAP_LARGE;
	h.bn_level = (uint8_t)(l->nlev + 1);
	h.bn_nchildren = nlfs_cpu_to_le16((uint16_t)n);
	memcpy(b, &h, sizeof(h));
	for (size_t i = 0; i < n; i++) {
		put64(b + sizeof(h), i, entry_key(l, l->nlev, i, keys));
		put64(b + sizeof(h) + 8 * NLFS_BTREE_ROOT_NCHILDREN, i,
		      entry_ptr(l, l->nlev, i, ptrs, node_ptrs));
	}
}

/* Levels above the top one until at most the root's three entries
 * remain, as new nodes filled evenly. */
static int grow_root(struct nlfs_btl *l, const uint64_t *keys)
{
	size_t ncmax = nlfs_btree_node_capacity(l->blocksize);

	while (l->n[l->nlev] > NLFS_BTREE_ROOT_NCHILDREN) {
		size_t c = l->n[l->nlev], m = (c + ncmax - 1) / ncmax;
		unsigned k = l->nlev + 1;

		if (k + 1 >= NLFS_BTREE_LEVEL_MAX)
			return -EFBIG;
		if (nlfs_btl_level(l, k, m))
			return -ENOMEM;
		for (size_t i = 0; i < m; i++) {
			struct nlfs_btl_node *nd = &l->lev[k][i];

			nd->first = i * c / m;
			nd->count = (i + 1) * c / m - nd->first;
			nd->key = entry_key(l, k - 1, nd->first, keys);
			nd->ptr = 0;
			nd->dirty = true;
		}
		l->nlev = k;
	}
	return 0;
}

/* One level K of the old tree over the new entries of level K-1: each
 * old node takes the entries within its key range (the first also those
 * below it).  ONODES are its old nodes (indexes into the wfile's depth-
 * first arrays), M of them; OLD_BELOW the old entry count of level K-1. */
static int update_level(struct nlfs_btl *l, struct nlfs_wfile *wf, unsigned k,
			const size_t *onodes, size_t m, size_t old_below, const bool *force)
{
	size_t ncmax = nlfs_btree_node_capacity(l->blocksize);
	size_t below = l->n[k - 1], i = 0, d = 0, out = 0;
	const uint64_t *keys = wf->keys;

	if (m == 0)
		return nlfs_err_set(NULL, NLFS_ECORRUPT, NLFS_NOWHERE, "B-tree level %u empty", k);
	/* room for every old node, and a new one per entry */
	if (nlfs_btl_level(l, k, m + below + 1))
		return -ENOMEM;
	for (size_t j = 0; j < m; j++) {
		size_t o = onodes[j], first = i, count, ostart = wf->old_node_start[o];
		size_t oend = j + 1 < m ? wf->old_node_start[onodes[j + 1]] : old_below;
		/* once replaced, a node stays replaced: a later planning round
		 * may no longer see why (its old entry ended, or freed) */
		bool last = j + 1 == m, dirty = (force && force[o]) || wf->old_node_gone[o];
		uint64_t next = last ? 0 : wf->old_node_keys[onodes[j + 1]];

		while (i < below && (last || entry_key(l, k - 1, i, keys) < next)) {
			if (k > 1 && l->lev[k - 1][i].dirty)
				dirty = true;
			i++;
		}
		count = i - first;
		if (k == 1) {
			/* a data entry changed, came or went in its range */
			while (d < wf->nsorted && (last || wf->dirty_sorted[d]->blkoff < next)) {
				dirty = true;
				d++;
			}
		}
		if (count != oend - ostart)
			dirty = true;
		if (dirty || count == 0)
			wf->old_node_gone[o] |= 1;
		if (count == 0)
			continue;
		for (size_t piece = 0, pieces = (count + ncmax - 1) / ncmax; piece < pieces;
		     piece++) {
			struct nlfs_btl_node *nd = &l->lev[k][out++];

			nd->first = first + piece * count / pieces;
			nd->count = first + (piece + 1) * count / pieces - nd->first;
			nd->key = entry_key(l, k - 1, nd->first, keys);
			nd->dirty = dirty;
			nd->ptr = dirty ? 0 : wf->old_nodes[o];
		}
	}
	l->n[k] = out;
	return 0;
}

int nlfs_btl_update(struct nlfs_btl *l, struct nlfs_wfile *wf, const bool *force,
		    struct nlfs_err *err)
{
	struct nlfs_node_view root;
	size_t *onodes = NULL, m, old_below = wf->nold;
	unsigned height;
	int rc = nlfs_bmap_root(&wf->rfile, &root, err);

	if (rc)
		return rc;
	nlfs_btl_reset(l, wf->blocksize, wf->nkeys);
	height = root.level - 1;
	if (wf->nold_nodes && !(onodes = malloc(wf->nold_nodes * sizeof(*onodes))))
		return -ENOMEM;
	if (!wf->old_node_gone &&
	    !(wf->old_node_gone = calloc(wf->nold_nodes + 1, sizeof(*wf->old_node_gone)))) {
		free(onodes);
		return -ENOMEM;
	}
	for (unsigned k = 1; !rc && k <= height; k++) {
		m = 0;
		for (size_t o = 0; o < wf->nold_nodes; o++)
			if (wf->old_node_level[o] == k)
				onodes[m++] = o;
		rc = update_level(l, wf, k, onodes, m, old_below, force);
		l->nlev = k;
		old_below = m;
	}
	free(onodes);
	if (!rc)
		rc = grow_root(l, wf->keys);
	return rc ? rc : nlfs_btl_number(l);
}
