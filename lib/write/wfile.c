/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A file changed by one construction: the blocks read or written so far
 * (a hash table on the file offset) and, when its map changes, the map
 * it had on disk.  Old blocks are read through the on-disk block map, which
 * nothing changes before the new super root is written.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "writerP.h"


int nlfs_wfile_new(struct nlfs_fs *fs, uint32_t blocksize, uint64_t ino,
		   const struct nlfs_inode *inode, const struct nlfs_file *on_disk,
		   struct nlfs_wfile **out)
{
	struct nlfs_wfile *wf = calloc(1, sizeof(*wf));

	if (!wf)
		return -ENOMEM;
	wf->fs = fs;
	wf->blocksize = blocksize;
	wf->ino = ino;
	if (inode)
		wf->inode = *inode;
	if (on_disk) {
		wf->rfile = *on_disk;
		wf->on_disk = true;
	} else {
		wf->map_loaded = true;   /* a new file has no old map */
	}
	*out = wf;
	return 0;
}

void nlfs_wfile_free(struct nlfs_wfile *wf)
{
	if (!wf)
		return;
	for (size_t i = 0; i < wf->cap; i++)
		if (wf->slots[i].used)
			free(wf->slots[i].data);
	free(wf->slots);
	free(wf->old_keys);
	free(wf->old_ptrs);
	free(wf->old_nodes);
	free(wf->old_node_keys);
	free(wf->old_node_start);
	free(wf->old_node_level);
	free(wf->old_node_gone);
	free(wf->dirty_sorted);
	free(wf->keys);
	free(wf->ptrs);
	free(wf->node_ptrs);
	free(wf->node_bufs);
	free(wf);
}

static struct nlfs_wblk *find(struct nlfs_wfile *wf, uint64_t blkoff)
{
	if (!wf->cap)
		return NULL;
	for (size_t h = nlfs_hash_slot(blkoff, wf->cap);; h = (h + 1) & (wf->cap - 1)) {
		if (!wf->slots[h].used)
			return NULL;
		if (wf->slots[h].blkoff == blkoff)
			return &wf->slots[h];
	}
}

static int grow(struct nlfs_wfile *wf)
{
	size_t cap = wf->cap ? wf->cap * 2 : 64;
	struct nlfs_wblk *n = calloc(cap, sizeof(*n)), *old = wf->slots;

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < wf->cap; i++) {
		if (!wf->slots[i].used)
			continue;
		size_t h = nlfs_hash_slot(wf->slots[i].blkoff, cap);

		while (n[h].used)
			h = (h + 1) & (cap - 1);
		n[h] = wf->slots[i];
	}
	wf->slots = n;
	wf->cap = cap;
	/* the layout's sorted list follows its blocks to their new slots: a
	 * block read after the layout (a look at an entry) must not leave it
	 * pointing into the freed table; the old table is freed only after,
	 * since the list's block numbers are read from it */
	for (size_t i = 0; i < wf->nsorted; i++)
		wf->dirty_sorted[i] = find(wf, wf->dirty_sorted[i]->blkoff);
	free(old);
	return 0;
}

int nlfs_wfile_old_ptr(struct nlfs_wfile *wf, uint64_t blkoff, uint64_t *ptr,
		       struct nlfs_err *err)
{
	*ptr = 0;
	if (!wf->on_disk)
		return 0;
	if (wf->map_loaded) {
		size_t lo = nlfs_lower_bound(&blkoff, wf->old_keys, wf->nold, sizeof(*wf->old_keys),
					     nlfs_cmp_u64);

		if (lo < wf->nold && wf->old_keys[lo] == blkoff)
			*ptr = wf->old_ptrs[lo];
		return 0;
	}
	return nlfs_bmap_lookup(wf->fs, &wf->rfile, blkoff, ptr, err);
}

/* Bring block BLKOFF into the cache (a hole stays without data). */
static int load(struct nlfs_wfile *wf, uint64_t blkoff, struct nlfs_wblk **out,
		struct nlfs_err *err)
{
	uint32_t bs = wf->blocksize;
	struct nlfs_wblk *b = find(wf, blkoff);
	uint64_t ptr, blocknr;
	size_t h;
	int rc;

	if (b) {
		*out = b;
		return 0;
	}
	if ((wf->count + 1) * 2 > wf->cap) {
		rc = grow(wf);
		if (rc)
			return rc;
	}
	rc = nlfs_wfile_old_ptr(wf, blkoff, &ptr, err);
	if (rc)
		return rc;
	h = nlfs_hash_slot(blkoff, wf->cap);
	while (wf->slots[h].used)
		h = (h + 1) & (wf->cap - 1);
	b = &wf->slots[h];
	memset(b, 0, sizeof(*b));
	b->blkoff = blkoff;
	b->oldptr = ptr;
	if (ptr) {
		struct nlfs_fs *fs = wf->fs;

		rc = nlfs_file_block_addr(fs, &wf->rfile, ptr, &blocknr, err);
		if (rc)
			return rc;
		b->data = malloc(bs);
		if (!b->data)
			return -ENOMEM;
		rc = nlfs_io_read(nlfs_fs_io(fs), b->data, bs, blocknr * bs);
		if (rc) {
			free(b->data);
			return nlfs_err_set(err, rc, blocknr, "%s: reading block %llu of inode %llu",
					    nlfs_io_name(nlfs_fs_io(fs)),
					    (unsigned long long)blkoff,
					    (unsigned long long)wf->ino);
		}
	}
	b->used = true;
	wf->count++;
	*out = b;
	return 0;
}

int nlfs_wfile_read(struct nlfs_wfile *wf, uint64_t blkoff, uint8_t **data,
		    struct nlfs_err *err)
{
	struct nlfs_wblk *b;
	int rc = load(wf, blkoff, &b, err);

	if (rc)
		return rc;
	*data = b->data;
	return 0;
}

/* Once the construction's layout is final (nlfs_wfile_seal), a block may
 * still change, up to the writing of its log, only as what the layout
 * holds: a block the log carries (its buffer is copied when the log is
 * written), not one newly written, punched or brought back.  Anything else
 * would be left out of the log in silence; it is an error instead, before
 * the superblocks move, so the volume keeps its old state. */
static int may_change(const struct nlfs_wfile *wf, const struct nlfs_wblk *b, bool deleted,
		      struct nlfs_err *err)
{
	if (!wf->sealed || (b->dirty && b->deleted == deleted))
		return 0;
	return nlfs_err_set(err, EIO, NLFS_NOWHERE,
			    "internal: block %llu of inode %llu changed after its log was laid out",
			    (unsigned long long)b->blkoff, (unsigned long long)wf->ino);
}

void nlfs_wfile_seal(struct nlfs_wfile *wf)
{
	wf->sealed = true;
}

int nlfs_wfile_write(struct nlfs_wfile *wf, uint64_t blkoff, uint8_t **data, bool *created,
		     struct nlfs_err *err)
{
	uint32_t bs = wf->blocksize;
	struct nlfs_wblk *b;
	int rc = load(wf, blkoff, &b, err);

	if (!rc)
		rc = may_change(wf, b, false, err);
	if (rc)
		return rc;
	if (b->deleted) {
		/* written again after a punch: a fresh block */
		b->deleted = false;
		free(b->data);
		b->data = NULL;
	}
	if (created)
		*created = !b->data;
	if (!b->data) {
		b->data = calloc(1, bs);
		if (!b->data)
			return -ENOMEM;
	}
	if (!b->dirty) {
		b->dirty = true;
		wf->ndirty++;
	}
	*data = b->data;
	return 0;
}

int nlfs_wfile_rewrite(struct nlfs_wfile *wf, uint64_t blkoff, bool *rewritten,
		       struct nlfs_err *err)
{
	struct nlfs_wblk *b;
	int rc = load(wf, blkoff, &b, err);

	*rewritten = false;
	if (rc || !b->data || b->deleted)
		return rc;
	rc = may_change(wf, b, false, err);
	if (rc)
		return rc;
	if (!b->dirty) {
		b->dirty = true;
		wf->ndirty++;
	}
	*rewritten = true;
	return 0;
}

int nlfs_wfile_punch(struct nlfs_wfile *wf, uint64_t blkoff, struct nlfs_err *err)
{
	struct nlfs_wblk *b;
	int rc = load(wf, blkoff, &b, err);

	if (!rc)
		rc = may_change(wf, b, true, err);
	if (rc)
		return rc;
	b->deleted = true;
	if (!b->dirty) {
		b->dirty = true;
		wf->ndirty++;
	}
	return 0;
}

struct map_collect {
	struct nlfs_wfile *wf;
	size_t capk, capp, capn, capnk, capnl, capns;
	size_t seen[NLFS_BTREE_LEVEL_MAX];   /* node entries met so far, per level */
};

static int push(uint64_t **arr, size_t *n, size_t *cap, uint64_t v)
{
	if (nlfs_grow((void **)arr, cap, *n + 1, sizeof(**arr)))
		return -ENOMEM;
	(*arr)[(*n)++] = v;
	return 0;
}

static int collect(uint64_t blkoff, uint64_t ptr, unsigned level, void *arg)
{
	struct map_collect *mc = arg;
	struct nlfs_wfile *wf = mc->wf;
	size_t nk = wf->nold;

	if (level) {
		/* in the walk's order (depth first): a node's children are the
		 * entries one level down from the number met so far on */
		size_t n = wf->nold_nodes, nl = n;

		if (level >= NLFS_BTREE_LEVEL_MAX ||
		    push(&wf->old_node_keys, &n, &mc->capnk, blkoff) ||
		    push(&wf->old_node_start, &nl, &mc->capns,
			 level == 1 ? wf->nold : mc->seen[level - 1]) ||
		    nlfs_grow((void **)&wf->old_node_level, &mc->capnl, wf->nold_nodes + 1,
			      sizeof(*wf->old_node_level)))
			return -ENOMEM;
		wf->old_node_level[wf->nold_nodes] = (uint8_t)level;
		mc->seen[level]++;
		return push(&wf->old_nodes, &wf->nold_nodes, &mc->capn, ptr);
	}
	if (push(&wf->old_keys, &nk, &mc->capk, blkoff))
		return -ENOMEM;
	return push(&wf->old_ptrs, &wf->nold, &mc->capp, ptr);
}

int nlfs_wfile_load_map(struct nlfs_wfile *wf, struct nlfs_err *err)
{
	struct map_collect mc = { .wf = wf };
	int rc;

	if (wf->map_loaded)
		return 0;
	rc = nlfs_bmap_iterate(wf->fs, &wf->rfile, collect, &mc, err);
	if (rc)
		return rc;
	for (size_t i = 1; i < wf->nold; i++)
		if (wf->old_keys[i] <= wf->old_keys[i - 1])
			return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
					    "block map of inode %llu out of order",
					    (unsigned long long)wf->ino);
	wf->map_loaded = true;
	return 0;
}

static int cmp_blk(const void *a, const void *b)
{
	const struct nlfs_wblk *x = *(struct nlfs_wblk *const *)a;
	const struct nlfs_wblk *y = *(struct nlfs_wblk *const *)b;

	return x->blkoff < y->blkoff ? -1 : x->blkoff > y->blkoff;
}

int nlfs_wfile_sort_dirty(struct nlfs_wfile *wf)
{
	size_t n = 0;
	struct nlfs_wblk **a = realloc(wf->dirty_sorted, (wf->ndirty + 1) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	wf->dirty_sorted = a;
	for (size_t i = 0; i < wf->cap; i++)
		if (wf->slots[i].used && wf->slots[i].dirty)
			a[n++] = &wf->slots[i];
	nlfs_sort(a, n, sizeof(*a), cmp_blk);
	wf->nsorted = n;
	return 0;
}

int nlfs_wfile_merge_map(struct nlfs_wfile *wf)
{
	size_t i = 0, j = 0, n = 0, max = wf->nold + wf->ndirty;
	uint64_t *k = realloc(wf->keys, (max + 1) * sizeof(*k));
	uint64_t *p;

	if (!k)
		return -ENOMEM;
	wf->keys = k;
	p = realloc(wf->ptrs, (max + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	wf->ptrs = p;
	while (i < wf->nold || j < wf->ndirty) {
		struct nlfs_wblk *d = j < wf->ndirty ? wf->dirty_sorted[j] : NULL;

		if (d && (i >= wf->nold || d->blkoff <= wf->old_keys[i])) {
			if (i < wf->nold && d->blkoff == wf->old_keys[i])
				i++;
			j++;
			if (d->deleted)
				continue;
			k[n] = d->blkoff;
			p[n++] = d->newptr;
		} else {
			k[n] = wf->old_keys[i];
			p[n++] = wf->old_ptrs[i++];
		}
	}
	wf->nkeys = n;
	return 0;
}
