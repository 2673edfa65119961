/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Block maps: the direct form (six pointers in i_bmap) and the B-tree
 * (a 3-slot root in i_bmap, node blocks below).  Every node read from disk
 * is checked as the kernel checks it before it is trusted.  Node pointers
 * are translated by the DAT (dat.c), as the kernel's btree.c does: part of
 * the block-resolution loop named in mdt.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

int nlfs_bmap_root(const struct nlfs_file *f, struct nlfs_node_view *v, struct nlfs_err *err)
{
	const uint8_t *b = (const uint8_t *)f->inode.i_bmap;
	struct nlfs_btree_node h;

	memcpy(&h, b, sizeof(h));
	v->level = h.bn_level;
	v->nchildren = nlfs_le16(h.bn_nchildren);
	v->ncmax = NLFS_BTREE_ROOT_NCHILDREN;
	v->keys = b + sizeof(h);
	v->ptrs = v->keys + 8 * NLFS_BTREE_ROOT_NCHILDREN;
	if (v->level < 1 || v->level >= NLFS_BTREE_LEVEL_MAX || v->nchildren > v->ncmax ||
	    (v->nchildren == 0 && v->level > 1)) {
		int rc = nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				      "B-tree root: level %u, %u children", v->level,
				      v->nchildren);
		if (err)
			err->ino = f->ino;
		return rc;
	}
	return 0;
}

/* The node block at BLOCKNR of file INO, from the handle's node cache if
 * it is there. */
static int read_node_block(struct nlfs_fs *fs, uint64_t ino, uint64_t blocknr, uint8_t *buf)
{
	bool metadata = ino >= NLFS_DAT_INO && ino <= NLFS_IFILE_INO;

	return nlfs_cache_read(fs, fs->node_cache + (metadata ? 0 : NLFS_NODE_CACHE / 2),
			       NLFS_NODE_CACHE / 2, &fs->node_cache_clock, blocknr, buf);
}

int nlfs_bmap_node(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t ptr, unsigned want,
		   uint8_t *buf, struct nlfs_node_view *v, struct nlfs_err *err)
{
	uint32_t bs = fs->geo.blocksize;
	struct nlfs_btree_node h;
	uint64_t blocknr;
	int rc = nlfs_file_block_addr(fs, f, ptr, &blocknr, err);

	if (rc)
		return rc;
	if (blocknr == 0)
		goto corrupt;
	rc = read_node_block(fs, f->ino, blocknr, buf);
	if (rc)
		return nlfs_err_set(err, rc, blocknr, "%s: reading B-tree node",
				    nlfs_io_name(fs->io));
	memcpy(&h, buf, sizeof(h));
	v->level = h.bn_level;
	v->nchildren = nlfs_le16(h.bn_nchildren);
	v->ncmax = (bs - sizeof(h) - NLFS_BTREE_NODE_EXTRA) / 16;
	v->keys = buf + sizeof(h) + NLFS_BTREE_NODE_EXTRA;
	v->ptrs = v->keys + 8 * (size_t)v->ncmax;
	if (h.bn_flags & NLFS_BMAP_LARGE || v->level != want || v->nchildren < 1 ||
	    v->nchildren > v->ncmax) {
		rc = nlfs_err_set(err, NLFS_ECORRUPT, blocknr,
				  "B-tree node: flags 0x%x, level %u (expected %u), %u children",
				  h.bn_flags, v->level, want, v->nchildren);
		if (err)
			err->ino = f->ino;
		return rc;
	}
	return 0;
corrupt:
	rc = nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
			  "B-tree node pointer %llu has no disk address",
			  (unsigned long long)ptr);
	if (err)
		err->ino = f->ino;
	return rc;
}

/* Index of the last key <= KEY, or -1. */
static int find_child(const struct nlfs_node_view *v, uint64_t key)
{
	int lo = 0, hi = (int)v->nchildren - 1, found = -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (nlfs_node_get(v->keys, (unsigned)mid) <= key) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

int nlfs_bmap_lookup_run(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
			 uint64_t *ptrs, size_t max, size_t *n, struct nlfs_err *err)
{
	struct nlfs_node_view v;
	uint8_t *buf;
	int rc, i;

	*n = 0;
	if (max == 0)
		return 0;
	if (!nlfs_bmap_is_btree(f)) {
		for (; *n < max; (*n)++) {
			uint64_t k = blkoff + *n;

			/* past the six slots: holes as far as asked */
			ptrs[*n] = k < NLFS_DIRECT_NBLOCKS ? nlfs_le64(f->inode.i_bmap[1 + k]) : 0;
		}
		return 0;
	}
	rc = nlfs_bmap_root(f, &v, err);
	if (rc)
		return rc;
	buf = malloc(fs->geo.blocksize);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		i = find_child(&v, blkoff);
		if (i < 0 || v.level == 1)
			break;
		rc = nlfs_bmap_node(fs, f, nlfs_node_get(v.ptrs, (unsigned)i), v.level - 1, buf, &v,
				    err);
		if (rc)
			goto out;
	}
	if (i < 0) {
		/* before the first key: a hole up to it */
		uint64_t first = v.nchildren ? nlfs_node_get(v.keys, 0) : UINT64_MAX;

		for (; *n < max && blkoff + *n < first; (*n)++)
			ptrs[*n] = 0;
		goto out;
	}
	/* the node's keys from the one found on; past its last key the next
	 * node would have to say */
	for (unsigned j = (unsigned)i; *n < max; (*n)++) {
		uint64_t k = blkoff + *n;

		while (j < v.nchildren && nlfs_node_get(v.keys, j) < k)
			j++;
		if (j >= v.nchildren) {
			if (*n == 0)
				ptrs[(*n)++] = 0;   /* past the last key: a hole */
			break;
		}
		ptrs[*n] = nlfs_node_get(v.keys, j) == k ? nlfs_node_get(v.ptrs, j) : 0;
	}
out:
	free(buf);
	return rc;
}

int nlfs_bmap_lookup(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
		     uint64_t *ptr, struct nlfs_err *err)
{
	size_t n;

	*ptr = 0;
	return nlfs_bmap_lookup_run(fs, f, blkoff, ptr, 1, &n, err);
}

int nlfs_bmap_lookup_level(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t key,
			   unsigned level, uint64_t *ptr, struct nlfs_err *err)
{
	struct nlfs_node_view v;
	uint8_t *buf;
	int rc;

	if (level == 0)
		return nlfs_bmap_lookup(fs, f, key, ptr, err);
	*ptr = 0;
	if (!nlfs_bmap_is_btree(f))   /* a direct map has no nodes */
		return 0;
	rc = nlfs_bmap_root(f, &v, err);
	if (rc || level >= v.level)   /* the root itself has no pointer to it */
		return rc;
	buf = malloc(fs->geo.blocksize);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		int i = find_child(&v, key);

		if (i < 0)
			break;
		if (v.level == level + 1) {
			if (nlfs_node_get(v.keys, (unsigned)i) == key)
				*ptr = nlfs_node_get(v.ptrs, (unsigned)i);
			break;
		}
		rc = nlfs_bmap_node(fs, f, nlfs_node_get(v.ptrs, (unsigned)i), v.level - 1, buf, &v, err);
		if (rc)
			break;
	}
	free(buf);
	return rc;
}

struct iter {
	struct nlfs_fs *fs;
	const struct nlfs_file *f;
	nlfs_bmap_cb cb;
	void *arg;
	struct nlfs_err *err;
	uint8_t *bufs[NLFS_BTREE_LEVEL_MAX];
	uint64_t last_key;
	bool any;
	bool holes;               /* B-tree entries without a pointer reach CB too */
};

static int iterate_node(struct iter *it, const struct nlfs_node_view *v, uint64_t lower_bound)
{
	for (unsigned i = 0; i < v->nchildren; i++) {
		uint64_t key = nlfs_node_get(v->keys, i), ptr = nlfs_node_get(v->ptrs, i);
		int rc;

		if ((i > 0 && key <= nlfs_node_get(v->keys, i - 1)) || key < lower_bound) {
			rc = nlfs_err_set(it->err, NLFS_ECORRUPT, NLFS_NOWHERE,
					  "B-tree keys out of order at level %u (key %llu)",
					  v->level, (unsigned long long)key);
			if (it->err)
				it->err->ino = it->f->ino;
			return rc;
		}
		if (v->level == 1) {
			if (ptr == 0 && !it->holes)
				continue;
			rc = it->cb(key, ptr, 0, it->arg);
		} else {
			struct nlfs_node_view child;

			rc = it->cb(key, ptr, v->level - 1, it->arg);
			if (rc)
				return rc;
			rc = nlfs_bmap_node(it->fs, it->f, ptr, v->level - 1, it->bufs[v->level - 1],
				       &child, it->err);
			if (!rc && nlfs_node_get(child.keys, 0) != key)
				rc = nlfs_err_set(it->err, NLFS_ECORRUPT, NLFS_NOWHERE,
						  "B-tree node's first key %llu differs from its parent's %llu",
						  (unsigned long long)nlfs_node_get(child.keys, 0),
						  (unsigned long long)key);
			if (!rc)
				rc = iterate_node(it, &child, key);
		}
		if (rc)
			return rc;
	}
	return 0;
}

static int iterate(struct nlfs_fs *fs, const struct nlfs_file *f, nlfs_bmap_cb cb, void *arg,
		   bool holes, struct nlfs_err *err)
{
	struct iter it = { fs, f, cb, arg, err, { 0 }, 0, false, holes };
	struct nlfs_node_view root;
	int rc;

	if (!nlfs_bmap_is_btree(f)) {
		for (unsigned i = 0; i < NLFS_DIRECT_NBLOCKS; i++) {
			uint64_t p = nlfs_le64(f->inode.i_bmap[1 + i]);

			if (p && (rc = cb(i, p, 0, arg)) != 0)
				return rc;
		}
		return 0;
	}
	rc = nlfs_bmap_root(f, &root, err);
	if (rc)
		return rc;
	for (unsigned l = 1; l < root.level; l++) {
		it.bufs[l] = malloc(fs->geo.blocksize);
		if (!it.bufs[l]) {
			rc = -ENOMEM;
			goto out;
		}
	}
	rc = iterate_node(&it, &root, 0);
out:
	for (unsigned l = 0; l < NLFS_BTREE_LEVEL_MAX; l++)
		free(it.bufs[l]);
	return rc;
}

int nlfs_bmap_iterate(struct nlfs_fs *fs, const struct nlfs_file *f, nlfs_bmap_cb cb,
		      void *arg, struct nlfs_err *err)
{
	return iterate(fs, f, cb, arg, false, err);
}

int nlfs_bmap_iterate_holes(struct nlfs_fs *fs, const struct nlfs_file *f, nlfs_bmap_cb cb,
			    void *arg, struct nlfs_err *err)
{
	return iterate(fs, f, cb, arg, true, err);
}

/* ---- salvage: what a damaged map still holds ---- */

struct salvage {
	struct nlfs_fs *fs;
	const struct nlfs_file *f;
	nlfs_bmap_cb cb;
	void *arg;
	uint8_t *bufs[NLFS_BTREE_LEVEL_MAX];
	unsigned nbad;
};

static int salvage_node(struct salvage *s, const struct nlfs_node_view *v)
{
	for (unsigned i = 0; i < v->nchildren; i++) {
		uint64_t key = nlfs_node_get(v->keys, i), ptr = nlfs_node_get(v->ptrs, i);
		struct nlfs_node_view child;
		struct nlfs_err err;
		int rc;

		if (ptr == 0)
			continue;
		rc = s->cb(key, ptr, v->level - 1, s->arg);
		if (rc < 0)
			return rc;
		if (v->level == 1)
			continue;
		rc = nlfs_bmap_node(s->fs, s->f, ptr, v->level - 1, s->bufs[v->level - 1], &child, &err);
		if (rc == -ENOMEM)
			return rc;
		if (rc) {
			s->nbad++;   /* a node that does not hold up: its subtree is skipped */
			continue;
		}
		rc = salvage_node(s, &child);
		if (rc)
			return rc;
	}
	return 0;
}

int nlfs_bmap_salvage(struct nlfs_fs *fs, const struct nlfs_file *f, nlfs_bmap_cb cb, void *arg,
		      unsigned *nbad)
{
	struct salvage s = { fs, f, cb, arg, { 0 }, 0 };
	struct nlfs_node_view root;
	struct nlfs_err err;
	int rc = 0;

	*nbad = 0;
	if (!nlfs_bmap_is_btree(f)) {
		for (unsigned i = 0; i < NLFS_DIRECT_NBLOCKS; i++) {
			uint64_t p = nlfs_le64(f->inode.i_bmap[1 + i]);

			if (p && (rc = cb(i, p, 0, arg)) < 0)
				return rc;
		}
		return 0;
	}
	if (nlfs_bmap_root(f, &root, &err)) {
		*nbad = 1;
		return 0;
	}
	for (unsigned l = 1; l < root.level; l++) {
		s.bufs[l] = malloc(fs->geo.blocksize);
		if (!s.bufs[l]) {
			rc = -ENOMEM;
			goto out;
		}
	}
	rc = salvage_node(&s, &root);
	*nbad = s.nbad;
out:
	for (unsigned l = 0; l < NLFS_BTREE_LEVEL_MAX; l++)
		free(s.bufs[l]);
	return rc;
}
