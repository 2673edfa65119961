/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpdiff_tree.c - what the directories say when a checkpoint is checked
 * by difference (cpdiff.c): the records of a changed directory's old
 * version taken back, the walk's notes of the new ones (through the hooks
 * of fsck.h), and the tree they make checked: link counts, the names of
 * free inodes, each moved directory's way up to the root.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpdiffP.h"
#include "array.h"

void cpdiff_dirty(void *arg, uint64_t ino)
{
	struct cpdiff *d = arg;

	if (ino >= d->dirtymap.nbits || fsck_bit_test_set(&d->dirtymap, ino))
		return;
	if (CLI_PUSH(d->dirty, d->ndirty, d->capdirty, ino))
		fail(d);
}

void cpdiff_note_child(void *arg, uint64_t dir, uint64_t child)
{
	struct cpdiff *d = arg;

	if (child >= d->cp.max_ino || d->cp.parent[child]) {
		fail(d);   /* a second name of a directory */
		return;
	}
	d->cp.parent[child] = dir;
	if (CLI_PUSH(d->moved, d->nmoved, d->capmoved, child))
		fail(d);
}

void cpdiff_note_dotdot(void *arg, uint64_t dir, uint64_t ino)
{
	struct cpdiff *d = arg;
	struct pair p = { dir, ino };

	if (CLI_PUSH(d->dotdot, d->ndotdot, d->capdotdot, p))
		fail(d);
}

static size_t dblk_slot(uint64_t dir, uint64_t ino, uint64_t type, size_t cap)
{
	uint64_t h = (dir * NLFS_HASH_MULT) ^ (ino * 0xc2b2ae3d27d4eb4full) ^ type;

	return (size_t)((h ^ (h >> 29)) * 0x94d049bb133111ebull >> 20) & (cap - 1);
}

/* the old records hashed, for cpdiff_record_known */
int cpdiff_hash_oldblk(struct cpdiff *d)
{
	size_t cap = 16;

	if (d->noldblk >= UINT32_MAX)
		return -ENOMEM;
	while (cap < 2 * d->noldblk)
		cap *= 2;
	if (cap > d->oldset_cap) {
		free(d->oldset);
		d->oldset = malloc(cap * sizeof(*d->oldset));
		if (!d->oldset) {
			d->oldset_cap = d->oldset_n = 0;
			return -ENOMEM;
		}
		d->oldset_cap = cap;
	}
	/* as large as this step needs, not as the largest before: cleared
	 * at every checkpoint */
	d->oldset_n = cap;
	memset(d->oldset, 0, cap * sizeof(*d->oldset));
	for (size_t i = 0; i < d->noldblk; i++) {
		const struct dblk *r = &d->oldblk[i];
		size_t s = dblk_slot(r->dir, r->ino, r->type, cap);

		while (d->oldset[s])
			s = (s + 1) & (cap - 1);
		d->oldset[s] = (uint32_t)(i + 1);
	}
	return 0;
}

/* the old record R against the place (DIR, KEY, OFF): <0, 0, >0 */
static int cmp_place(const struct dblk *r, uint64_t dir, uint64_t key, uint32_t off)
{
	if (r->dir != dir)
		return r->dir < dir ? -1 : 1;
	if (r->key != key)
		return r->key < key ? -1 : 1;
	return r->off < off ? -1 : r->off > off;
}

/* the old record at the place (DIR, KEY, OFF), or NULL.  d->oldblk is in
 * that order (take_out_old goes through the directories by inode number,
 * cpdiff_unref_dir through their blocks and records in order), and so is
 * the walk of the changed directories: a cursor that moves on finds it,
 * a search where the walk comes to another block */
static const struct dblk *old_at(struct cpdiff *d, uint64_t dir, uint64_t key, uint32_t off)
{
	size_t i = d->oldat, n = d->noldblk;

	if (i >= n || d->oldblk[i].dir != dir || d->oldblk[i].key != key ||
	    d->oldblk[i].off > off) {
		size_t lo = 0, hi = n;

		while (lo < hi) {
			size_t m = lo + (hi - lo) / 2;

			if (cmp_place(&d->oldblk[m], dir, key, off) < 0)
				lo = m + 1;
			else
				hi = m;
		}
		i = lo;
	}
	while (i < n && cmp_place(&d->oldblk[i], dir, key, off) < 0)
		i++;
	d->oldat = i;
	return i < n && !cmp_place(&d->oldblk[i], dir, key, off) ? &d->oldblk[i] : NULL;
}

bool cpdiff_record_known(void *arg, uint64_t dir, uint64_t key, uint32_t off, uint64_t ino,
			 unsigned type)
{
	struct cpdiff *d = arg;
	size_t cap = d->oldset_n;
	const struct dblk *at;

	if (!cap || fsck_bit_test(&d->touchmap, ino))
		return false;
	/* most often the old record at the same place, found without the
	 * hash's random reads; else anywhere in the old version */
	at = old_at(d, dir, key, off);
	if (at && at->ino == ino && at->type == type)
		return true;
	for (size_t s = dblk_slot(dir, ino, type, cap); d->oldset[s]; s = (s + 1) & (cap - 1)) {
		const struct dblk *r = &d->oldblk[d->oldset[s] - 1];

		if (r->dir == dir && r->ino == ino && r->type == type)
			return true;
	}
	return false;
}

static int cmp_pair_both(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	return x->b < y->b ? -1 : x->b > y->b;
}

struct dir_diff {
	struct cpdiff *d;
	uint64_t dir;
};

/* a data block of the directory's map that one version has and the other
 * not (or not with the same virtual block) */
static int note_changed_block(uint64_t key, uint64_t ptr, unsigned level,
			      enum nlfs_bmap_side side, void *arg)
{
	struct dir_diff *dd = arg;
	struct pair p = { dd->dir, key };

	(void)ptr;
	if (level || side == NLFS_BMAP_SHARED)
		return 0;
	if (CLI_PUSH(dd->d->dblocks, dd->d->ndblocks, dd->d->capdblocks, p)) {
		fail(dd->d);
		return 1;
	}
	return 0;
}

void cpdiff_sort_dblocks(struct cpdiff *d)
{
	nlfs_sort(d->dblocks, d->ndblocks, sizeof(*d->dblocks), cmp_pair_both);
}

/* is (DIR, KEY) among the N sorted pairs at P? */
static bool has_pair(const struct pair *p, size_t n, uint64_t dir, uint64_t key)
{
	struct pair want = { dir, key };
	size_t i = nlfs_lower_bound(&want, p, n, sizeof(*p), cmp_pair_both);

	return i < n && p[i].a == dir && p[i].b == key;
}

/* a directory compared block by block (its mark is in), and KEY not one
 * of the blocks that changed */
bool cpdiff_block_same(const void *arg, uint64_t dir, uint64_t key)
{
	const struct cpdiff *d = arg;

	return has_pair(d->dblocks, d->ndblocks, dir, UINT64_MAX) &&
	       !has_pair(d->dblocks, d->ndblocks, dir, key);
}

/* The references the old version of directory F made, taken back.  A
 * block both versions share (the same virtual block: the same records)
 * is left alone, here and in the walk of the new version, which reads
 * only its names: what it names is named still. */
void cpdiff_unref_dir(struct cpdiff *d, const struct nlfs_file *f, const struct nlfs_file *cur)
{
	uint32_t bs = d->c->g->blocksize;
	uint64_t *keys = NULL;
	size_t nkeys = 0, changed = d->ndblocks, nchanged;
	uint8_t *buf = malloc(bs);

	if (!buf || nlfs_bmap_keys(d->c->fs, f, &keys, &nkeys, NULL)) {
		fail(d);
		goto out;
	}
	if (cur) {
		struct dir_diff dd = { d, f->ino };
		struct pair mark = { f->ino, UINT64_MAX };

		if (nlfs_bmap_diff(d->c->fs, f, cur, note_changed_block, &dd, NULL) ||
		    CLI_PUSH(d->dblocks, d->ndblocks, d->capdblocks, mark)) {
			fail(d);
			goto out;
		}
		nlfs_sort(d->dblocks + changed, d->ndblocks - changed, sizeof(*d->dblocks),
			  cmp_pair_both);
	}
	nchanged = d->ndblocks - changed;
	for (size_t i = 0; i < nkeys && !d->failed; i++) {
		unsigned off = 0, nrec = 0;
		bool hole;
		uint64_t key = keys[i];

		if (cur && !has_pair(d->dblocks + changed, nchanged, f->ino, key))
			continue;   /* shared */
		if (nlfs_file_read_block(d->c->fs, f, key, buf, &hole, NULL) || hole) {
			fail(d);
			break;
		}
		while (off < bs) {
			struct nlfs_dir_rec rec;
			const char *why;
			unsigned end, named, at = off;
			bool dots = key == 0 && nrec < 2;

			if (nlfs_dir_salvage(buf, bs, off, &rec, &end, &why) != NLFS_DIR_SOUND) {
				fail(d);
				break;
			}
			off = end;
			nrec++;
			if (!rec.ino)
				continue;
			named = fsck_icount_get(&d->cp.nref, rec.ino);
			if (rec.ino >= d->cp.max_ino || !named) {
				fail(d);
				break;
			}
			fsck_icount_set(&d->cp.nref, rec.ino, named - 1);
			cpdiff_dirty(d, rec.ino);
			if (!dots) {
				struct dblk r = { f->ino, rec.ino, key, at, rec.file_type };

				if (CLI_PUSH(d->oldblk, d->noldblk, d->capoldblk, r))
					fail(d);
			}
			if (!dots && d->cp.parent[rec.ino] == f->ino) {
				struct pair p = { rec.ino, f->ino };

				d->cp.parent[rec.ino] = 0;
				if (CLI_PUSH(d->lost, d->nlost, d->caplost, p))
					fail(d);
			}
		}
	}
out:
	free(keys);
	free(buf);
}

static int cmp_touched_ino(const void *key, const void *elem)
{
	uint64_t ino = *(const uint64_t *)key;
	const struct touched *t = elem;

	return ino < t->ino ? -1 : ino > t->ino;
}

/* the walk of the changed directories names the inodes that changed most
 * of all (new files, moved ones): put_in_new read each, and its ifile
 * block, in a large difference, is long out of the cache by then */
bool cpdiff_checked_mode(const void *arg, uint64_t ino, uint16_t *mode)
{
	const struct cpdiff *d = arg;
	size_t i;

	if (!fsck_bit_test(&d->touchmap, ino))
		return false;
	i = nlfs_lower_bound(&ino, d->t, d->nt, sizeof(*d->t), cmp_touched_ino);
	if (i >= d->nt || d->t[i].ino != ino || !d->t[i].checked)
		return false;
	*mode = d->t[i].new_mode;
	return true;
}

/* does directory C lead up to the root? */
static bool reaches_root(const struct cpdiff *d, uint64_t ino)
{
	for (uint64_t steps = 0; ino != NLFS_ROOT_INO; steps++) {
		if (steps > d->cp.max_ino || ino >= d->cp.max_ino)
			return false;
		ino = d->cp.parent[ino];
		if (!ino)
			return false;
	}
	return true;
}

static bool walked_dir(const struct cpdiff *d, uint64_t ino)
{
	return fsck_bit_test(&d->cp.alloc, ino) && fsck_bit_test(&d->cp.isdir, ino) &&
	       fsck_icount_get(&d->cp.links, ino) > 0;
}

static uint64_t dotdot_of(const struct cpdiff *d, uint64_t dir, bool *found)
{
	for (size_t i = 0; i < d->ndotdot; i++)
		if (d->dotdot[i].a == dir) {
			*found = true;
			return d->dotdot[i].b;
		}
	*found = false;
	return 0;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	return x->a < y->a ? -1 : x->a > y->a;
}

/* the tree after the changes: link counts, names of free inodes, parents */
void cpdiff_check_tree(struct cpdiff *d)
{
	struct fsck *c = d->c;
	struct fsck_cp *cp = &d->cp;
	uint32_t first_ino = nlfs_le32(c->sb->s_first_ino);

	nlfs_sort(d->dotdot, d->ndotdot, sizeof(*d->dotdot), cmp_pair);
	if (cp->nref.nomem || cp->links.nomem)
		fail(d);   /* a count could not be kept */
	for (size_t i = 0; i < d->ndirty && !d->failed; i++) {
		uint64_t ino = d->dirty[i];
		uint32_t named;

		if (metadata_ino(ino) || (ino < first_ino && ino != NLFS_ROOT_INO))
			continue;
		named = fsck_icount_get(&cp->nref, ino);
		if (fsck_bit_test(&cp->alloc, ino) ? fsck_icount_get(&cp->links, ino) != named :
		    named != 0)
			fail(d);
	}
	for (size_t i = 0; i < d->ndotdot && !d->failed; i++) {
		uint64_t dir = d->dotdot[i].a;

		if (i && dir == d->dotdot[i - 1].a)
			fail(d);
		else if (cp->parent[dir] != d->dotdot[i].b || !reaches_root(d, dir))
			fail(d);
	}
	for (size_t i = 0; i < d->nlost && !d->failed; i++) {
		uint64_t dir = d->lost[i].a;
		bool found;

		dotdot_of(d, dir, &found);
		if (!walked_dir(d, dir))
			continue;   /* gone: what still names it shows in its count */
		/* an unchanged directory's '..' still names the old parent */
		if ((!found && cp->parent[dir] != d->lost[i].b) || !reaches_root(d, dir))
			fail(d);
	}
	for (size_t i = 0; i < d->nmoved && !d->failed; i++)
		if (!walked_dir(d, d->moved[i]) || !reaches_root(d, d->moved[i]))
			fail(d);
}
