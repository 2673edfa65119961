/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Two block maps of one file compared by walking only what they do not
 * share (nlfs_bmap_diff in nlfs.h).  Each map is read as a stream of
 * entries (key, pointer, level) in key order, a node before its entries.
 * The entry acted on is the one that comes first: the smaller key, or at
 * equal keys the higher level (that node may hold the other map's entry);
 * of two different nodes at the same key and level, both are opened, the
 * old one first.  So a node both maps hold meets itself before either
 * side opens it, and is passed over.
 */
#include <errno.h>
#include <stdlib.h>

#include "../nlfsP.h"

struct item {
	uint64_t key, ptr;
	unsigned level;
};

/* one map's stream: the nodes from the root down to the one at hand */
struct cursor {
	const struct nlfs_file *f;
	struct nlfs_node_view v[NLFS_BTREE_LEVEL_MAX];
	unsigned idx[NLFS_BTREE_LEVEL_MAX];
	uint8_t *bufs[NLFS_BTREE_LEVEL_MAX];
	unsigned depth;
	uint8_t direct_keys[8 * NLFS_DIRECT_NBLOCKS];
};

struct bdiff {
	struct nlfs_fs *fs;
	struct nlfs_err *err;
	struct cursor cs[2];
	/* CUR's order: the last key passed, and the shared subtree passed last
	 * whose last key is only looked up when CUR's next key could be in it */
	uint64_t floor;
	bool any;
	bool pending;
	uint64_t pend_ptr, pend_bound;
	unsigned pend_level;
};

static int out_of_order(struct bdiff *d, uint64_t key, uint64_t after)
{
	int rc = nlfs_err_set(d->err, NLFS_ECORRUPT, NLFS_NOWHERE,
			      "B-tree keys out of order (key %llu after %llu)",
			      (unsigned long long)key, (unsigned long long)after);

	if (d->err)
		d->err->ino = d->cs[NLFS_BMAP_NEW].f->ino;
	return rc;
}

/* a node's keys ascend from FIRST (the parent's key for it) */
static int check_node_keys(struct bdiff *d, const struct nlfs_node_view *v, uint64_t first,
			   bool is_root)
{
	for (unsigned i = 0; i < v->nchildren; i++) {
		uint64_t key = nlfs_node_get(v->keys, i);

		if (i == 0 ? !is_root && key != first : key <= nlfs_node_get(v->keys, i - 1))
			return out_of_order(d, key, i ? nlfs_node_get(v->keys, i - 1) : first);
	}
	return 0;
}

static int cursor_init(struct bdiff *d, struct cursor *c, const struct nlfs_file *f)
{
	struct nlfs_node_view *v = &c->v[0];

	c->f = f;
	c->depth = 1;
	c->idx[0] = 0;
	if (!nlfs_bmap_is_btree(f)) {
		/* a direct map reads as a root of level 1 with keys 0 to 5 */
		for (unsigned i = 0; i < NLFS_DIRECT_NBLOCKS; i++) {
			nlfs_le64_t k = nlfs_cpu_to_le64(i);

			memcpy(c->direct_keys + 8 * (size_t)i, &k, 8);
		}
		v->level = 1;
		v->nchildren = v->ncmax = NLFS_DIRECT_NBLOCKS;
		v->keys = c->direct_keys;
		v->ptrs = (const uint8_t *)&f->inode.i_bmap[1];
		return 0;
	}
	int rc = nlfs_bmap_root(f, v, d->err);

	return rc ? rc : check_node_keys(d, v, 0, true);
}

static bool cursor_peek(struct cursor *c, struct item *it)
{
	while (c->depth) {
		const struct nlfs_node_view *v = &c->v[c->depth - 1];
		unsigned i = c->idx[c->depth - 1];

		if (i >= v->nchildren) {
			c->depth--;
			continue;
		}
		it->key = nlfs_node_get(v->keys, i);
		it->ptr = nlfs_node_get(v->ptrs, i);
		it->level = v->level - 1;
		if (it->level == 0 && it->ptr == 0) {
			c->idx[c->depth - 1]++;   /* an unmapped slot */
			continue;
		}
		return true;
	}
	return false;
}

/* past IT (just peeked), into it if it is a node */
static int cursor_take(struct bdiff *d, struct cursor *c, const struct item *it)
{
	uint32_t bs = d->fs->geo.blocksize;
	unsigned at = c->depth;
	int rc;

	c->idx[c->depth - 1]++;
	if (it->level == 0)
		return 0;
	if (at >= NLFS_BTREE_LEVEL_MAX)
		return -NLFS_ECORRUPT;   /* levels fall by one: cannot happen */
	if (!c->bufs[at] && !(c->bufs[at] = malloc(bs)))
		return -ENOMEM;
	rc = nlfs_bmap_node(d->fs, c->f, it->ptr, it->level, c->bufs[at], &c->v[at], d->err);
	if (!rc)
		rc = check_node_keys(d, &c->v[at], it->key, false);
	if (rc)
		return rc;
	c->idx[at] = 0;
	c->depth = at + 1;
	return 0;
}

/* the last key of the subtree of CUR at PTR, a node of LEVEL */
static int subtree_last_key(struct bdiff *d, uint64_t ptr, unsigned level, uint64_t key,
			    uint64_t *last)
{
	uint8_t *buf = malloc(d->fs->geo.blocksize);
	struct nlfs_node_view v;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	*last = key;
	for (; level >= 1 && !rc; level--) {
		rc = nlfs_bmap_node(d->fs, d->cs[NLFS_BMAP_NEW].f, ptr, level, buf, &v, d->err);
		if (rc)
			break;
		/* the last slot in use (a node's slots past nchildren are not) */
		for (unsigned i = v.nchildren; i-- > 0;) {
			if (nlfs_node_get(v.ptrs, i) || level > 1) {
				*last = nlfs_node_get(v.keys, i);
				ptr = nlfs_node_get(v.ptrs, i);
				break;
			}
		}
		if (level == 1)
			break;
	}
	free(buf);
	return rc;
}

/* IT comes next in CUR: after everything before it */
static int check_cur_order(struct bdiff *d, const struct item *it)
{
	if (d->pending) {
		d->pending = false;
		/* the old map goes on at pend_bound: what comes before it may
		 * still be within the shared subtree */
		if (it->key < d->pend_bound) {
			int rc = subtree_last_key(d, d->pend_ptr, d->pend_level, d->floor, &d->floor);

			if (rc)
				return rc;
		}
	}
	if (d->any && it->key <= d->floor)
		return out_of_order(d, it->key, d->floor);
	return 0;
}

static void passed_in_cur(struct bdiff *d, const struct item *it, bool shared)
{
	/* a node's first entry has its key: the floor moves with the entries */
	if (it->level == 0 || shared) {
		d->floor = it->key;
		d->any = true;
	}
}

/* the entries that come next in both leaves alike, passed to CB at once:
 * most of a leaf a checkpoint changed one block of.  Their order needs no
 * look: a node's keys were found ascending when it was read */
static int shared_run(struct bdiff *d, struct cursor *co, struct cursor *cn, nlfs_bmap_diff_cb cb,
		      void *arg)
{
	const struct nlfs_node_view *vo = &co->v[co->depth - 1], *vn = &cn->v[cn->depth - 1];
	unsigned *io = &co->idx[co->depth - 1], *in = &cn->idx[cn->depth - 1];

	while (*io < vo->nchildren && *in < vn->nchildren) {
		uint64_t key = nlfs_node_get(vn->keys, *in), ptr = nlfs_node_get(vn->ptrs, *in);
		int rc;

		if (!ptr || key != nlfs_node_get(vo->keys, *io) || ptr != nlfs_node_get(vo->ptrs, *io))
			break;
		rc = cb(key, ptr, 0, NLFS_BMAP_SHARED, arg);
		if (rc)
			return rc;
		(*io)++;
		(*in)++;
		d->floor = key;
	}
	return 0;
}

int nlfs_bmap_diff(struct nlfs_fs *fs, const struct nlfs_file *old, const struct nlfs_file *cur,
		   nlfs_bmap_diff_cb cb, void *arg, struct nlfs_err *err)
{
	struct bdiff d = { .fs = fs, .err = err };
	struct cursor *co = &d.cs[NLFS_BMAP_OLD], *cn = &d.cs[NLFS_BMAP_NEW];
	int rc = cursor_init(&d, co, old);

	if (!rc)
		rc = cursor_init(&d, cn, cur);
	while (!rc) {
		struct item x, y, it;
		bool hx = cursor_peek(co, &x), hy = cursor_peek(cn, &y);
		enum nlfs_bmap_side s;

		if (!hx && !hy)
			break;
		if (hx && hy && x.key == y.key && x.level == y.level && x.ptr == y.ptr) {
			rc = check_cur_order(&d, &y);
			if (!rc)
				rc = cb(y.key, y.ptr, y.level, NLFS_BMAP_SHARED, arg);
			if (rc)
				break;
			co->idx[co->depth - 1]++;
			cn->idx[cn->depth - 1]++;
			passed_in_cur(&d, &y, true);
			if (!y.level)
				rc = shared_run(&d, co, cn, cb, arg);
			else {
				d.pending = true;
				d.pend_ptr = y.ptr;
				d.pend_level = y.level;
				d.pend_bound = cursor_peek(co, &x) ? x.key : UINT64_MAX;
			}
			continue;
		}
		if (!hy)
			s = NLFS_BMAP_OLD;
		else if (!hx)
			s = NLFS_BMAP_NEW;
		else if (x.key != y.key)
			s = x.key < y.key ? NLFS_BMAP_OLD : NLFS_BMAP_NEW;
		else if (x.level != y.level)
			s = x.level > y.level ? NLFS_BMAP_OLD : NLFS_BMAP_NEW;
		else
			s = NLFS_BMAP_OLD;
		it = s == NLFS_BMAP_OLD ? x : y;
		if (s == NLFS_BMAP_NEW && (rc = check_cur_order(&d, &it)) != 0)
			break;
		rc = cb(it.key, it.ptr, it.level, s, arg);
		if (!rc)
			rc = cursor_take(&d, &d.cs[s], &it);
		if (!rc && s == NLFS_BMAP_NEW)
			passed_in_cur(&d, &it, false);
	}
	for (unsigned l = 0; l < NLFS_BTREE_LEVEL_MAX; l++) {
		free(co->bufs[l]);
		free(cn->bufs[l]);
	}
	return rc;
}
