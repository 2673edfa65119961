/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pass_cpdiff.c - pass 6 over many checkpoints at the cost of what changes
 * between them.
 *
 * Checkpoints share their blocks through the DAT: a virtual block number
 * names one block, whose bytes no checkpoint changes (a change is a new
 * number).  So an ifile block with the same number holds the same inode
 * records, and an inode record with the same bytes the same block map,
 * the same directory records, the same sizes.  The first checkpoint (the
 * latest) is walked whole (pass_checkpoint.c); when it is found clean, its
 * state is kept: which inodes are in use, each one's link count and the
 * directory records naming it, each directory's parent, the virtual blocks
 * in use (c->vref), the inode and block counters.  Each next checkpoint is
 * then tried by difference: the ifile's map walked (pointers seen before
 * only counted), the ifile blocks that changed read old and new, each
 * inode whose record or bitmap bit changed taken out as it was (its blocks
 * out of c->vref, its directory records out of the counts) and checked
 * again as it is now (check_inode, its map whole), each changed directory
 * read whole (pass_dir.c, no descent).  Then only the inodes whose link
 * count or references moved are compared, and only the directories that
 * moved are followed up to the root.  A block the difference does not
 * touch was alive in the previous checkpoint; it must be alive in this one
 * too: each inode's map is filed under the first checkpoint to come its
 * blocks' DAT periods do not cover, and found there if it is still the
 * same.
 *
 * Problems are held back while trying (c->probing): the first one found
 * makes the checkpoint be walked whole instead, which reports everything
 * with its checkpoint number as before, and starts the next difference
 * from there if clean.  So a difference never has to say where a problem
 * is, only that there is one; whatever it cannot decide cheaply (a file
 * type that changed under an old name, a new ifile group) counts as one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "fsck.h"
#include "array.h"

/* an inode's map, to be found again at the checkpoint it goes stale in */
struct vent {
	uint64_t ino;
	uint32_t ver;
};

struct bucket {
	struct vent *v;
	size_t n, cap;
};

/* a pointer of the ifile's map that one checkpoint has and the other not */
struct ient {
	uint64_t key, ptr;
	unsigned level;
};

/* the ifile's pointers to be gone by a checkpoint */
struct vbucket {
	uint64_t *v;
	size_t n, cap;
};

struct ichange {
	uint64_t key, ptr;
};

struct touched {
	uint64_t ino;
	bool old_alloc, new_alloc;
	bool has_old;                   /* its record changed: the last one is in prev_ifile */
	uint16_t old_mode;              /* the last record's i_mode */
};

struct pair {
	uint64_t a, b;
};

/* a record of a directory's old version: what it named, as which type */
struct dblk {
	uint64_t dir, ino, type;
};

struct cpdiff {
	struct fsck *c;
	const uint64_t *cnos;
	uint64_t ncnos, k;              /* the checkpoints, the one at hand */
	bool have;                      /* cp holds a clean checkpoint's state */
	bool header_done;
	struct fsck_cp cp;              /* cp.nblocks: of the files, not the ifile */
	uint64_t ninodes, ifile_nblocks, ngroups;
	struct nlfs_file prev_ifile;
	uint64_t ifile_last_data;       /* its last data block's offset + 1 */
	uint64_t *iptr;                 /* the ifile's data block pointers by offset */
	size_t niptr, capiptr;
	uint32_t *ver;                  /* bumped at each new version of an inode */
	struct bucket *buckets;         /* by index in cnos */
	struct vbucket *ibuckets;       /* by index in cnos */
	/* one difference */
	struct fsck_file_check *ifc;    /* the ifile's pointers are checked as its map's */
	struct ient *stale;             /* the last checkpoint's pointers this one has not */
	size_t nstale, capstale;
	uint64_t nfresh;                /* this one's pointers the last one had not */
	struct ichange *chg;
	size_t nchg, capchg;
	struct fsck_bitmap dirtymap;
	uint64_t *dirty;
	size_t ndirty, capdirty;
	struct touched *t;
	size_t nt, capt;
	struct pair *lost, *dotdot;     /* (dir, old parent), (dir, what its '..' names) */
	size_t nlost, caplost, ndotdot, capdotdot;
	uint64_t *moved;                /* directories given a parent */
	size_t nmoved, capmoved;
	struct dblk *oldblk;            /* the changed directories' old records */
	size_t noldblk, capoldblk;
	uint32_t *oldset;               /* oldblk hashed: index + 1, 0 empty */
	size_t oldset_cap;              /* slots allocated */
	size_t oldset_n;                /* slots in use now: a power of 2, twice noldblk */
	struct fsck_bitmap touchmap;    /* inodes whose record or bit changed */
	uint8_t *oldrec;                /* an ifile block of prev_ifile */
	uint64_t oldrec_blk;
	bool failed;
};

static void fail(struct cpdiff *d)
{
	d->failed = true;
}

bool cpdiff_header_done(const struct cpdiff *d)
{
	return d->header_done;
}

void cpdiff_dirty(struct cpdiff *d, uint64_t ino)
{
	if (ino >= d->dirtymap.nbits || fsck_bit_test_set(&d->dirtymap, ino))
		return;
	if (CLI_PUSH(d->dirty, d->ndirty, d->capdirty, ino))
		fail(d);
}

void cpdiff_note_child(struct cpdiff *d, uint64_t dir, uint64_t child)
{
	if (child >= d->cp.max_ino || d->cp.parent[child]) {
		fail(d);   /* a second name of a directory */
		return;
	}
	d->cp.parent[child] = dir;
	if (CLI_PUSH(d->moved, d->nmoved, d->capmoved, child))
		fail(d);
}

void cpdiff_note_dotdot(struct cpdiff *d, uint64_t dir, uint64_t ino)
{
	struct pair p = { dir, ino };

	if (CLI_PUSH(d->dotdot, d->ndotdot, d->capdotdot, p))
		fail(d);
}

/* the first checkpoint to come (its index in cnos, ncnos if none) that
 * blocks alive in [MAX_START, MIN_END) do not cover */
static uint64_t stale_at(const struct cpdiff *d, uint64_t max_start, uint64_t min_end)
{
	uint64_t lo = d->k + 1, hi = d->ncnos;

	if (lo >= hi)
		return d->ncnos;
	/* the checkpoints after the first come in ascending order */
	if (d->cnos[lo] < max_start)
		return lo;
	while (lo < hi) {
		uint64_t m = lo + (hi - lo) / 2;

		if (d->cnos[m] >= min_end)
			hi = m;
		else
			lo = m + 1;
	}
	return lo;
}

void cpdiff_note_version(struct cpdiff *d, uint64_t ino, uint64_t max_start, uint64_t min_end)
{
	struct vent e = { ino, d->ver && ino < d->cp.max_ino ? d->ver[ino] : 0 };
	uint64_t at = stale_at(d, max_start, min_end);
	struct bucket *b;

	if (at >= d->ncnos)
		return;
	b = &d->buckets[at];
	if (CLI_PUSH(b->v, b->n, b->cap, e))
		fail(d);
}

/* ifile pointer PTR, alive in [START, END), must be gone when that ends */
static void file_ifile_ptr(struct cpdiff *d, uint64_t ptr, uint64_t start, uint64_t end)
{
	uint64_t at = stale_at(d, start, end);
	struct vbucket *b;

	if (at >= d->ncnos)
		return;
	b = &d->ibuckets[at];
	if (CLI_PUSH(b->v, b->n, b->cap, ptr))
		fail(d);
}

static void clear_buckets(struct cpdiff *d)
{
	for (uint64_t i = 0; d->buckets && i < d->ncnos; i++) {
		free(d->buckets[i].v);
		d->buckets[i] = (struct bucket){ 0 };
		free(d->ibuckets[i].v);
		d->ibuckets[i] = (struct vbucket){ 0 };
	}
}

/* forget the kept state: the next checkpoint is walked whole */
static void drop_state(struct cpdiff *d)
{
	if (d->have)
		cp_free(&d->cp);
	memset(&d->cp, 0, sizeof(d->cp));
	d->have = false;
	free(d->iptr);
	d->iptr = NULL;
	d->niptr = d->capiptr = 0;
	free(d->ver);
	d->ver = NULL;
	fsck_bitmap_free(&d->dirtymap);
	fsck_bitmap_free(&d->touchmap);
	clear_buckets(d);
}

static int set_iptr(struct cpdiff *d, uint64_t key, uint64_t ptr)
{
	if (key >= d->niptr) {
		if (key >= SIZE_MAX / 2 || CLI_GROW(d->iptr, d->capiptr, (size_t)key + 1))
			return -ENOMEM;
		memset(d->iptr + d->niptr, 0, ((size_t)key + 1 - d->niptr) * sizeof(*d->iptr));
		d->niptr = (size_t)key + 1;
	}
	d->iptr[key] = ptr;
	return 0;
}

struct collect {
	struct cpdiff *d;
	int rc;
};

static int collect_iref(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	struct collect *col = arg;
	struct cpdiff *d = col->d;
	struct nlfs_datinfo de;

	if (nlfs_dat_lookup(d->c->fs, ptr, &de, NULL))
		return col->rc = -EIO;
	file_ifile_ptr(d, ptr, de.start, de.end);
	if (level == 0 && set_iptr(d, key, ptr))
		return col->rc = -ENOMEM;
	if (level == 0 && key + 1 > d->ifile_last_data)
		d->ifile_last_data = key + 1;
	return 0;
}

bool cpdiff_adopt(struct fsck *c, struct cpdiff *d, struct fsck_cp *cp, uint64_t ninodes,
		  uint64_t ifile_nblocks, uint64_t ngroups)
{
	struct collect col = { d, 0 };

	d->ifile_last_data = 0;
	d->failed = false;
	if (nlfs_bmap_iterate(c->fs, &cp->ifile, collect_iref, &col, NULL) || col.rc || d->failed ||
	    !(d->ver = calloc(cp->max_ino ? cp->max_ino : 1, sizeof(*d->ver))) ||
	    fsck_bitmap_init(&d->dirtymap, cp->max_ino) ||
	    fsck_bitmap_init(&d->touchmap, cp->max_ino)) {
		drop_state(d);
		return false;
	}
	d->cp = *cp;
	d->cp.nblocks -= ifile_nblocks;
	d->cp.diff = d;
	d->have = true;
	d->ninodes = ninodes;
	d->ifile_nblocks = ifile_nblocks;
	d->ngroups = ngroups;
	d->prev_ifile = cp->ifile;
	return true;
}

/* ARR of N elements of SIZE bytes, grown to M with zeros */
static int grow_zero(void **arr, size_t size, uint64_t n, uint64_t m)
{
	void *p;

	if (m > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*arr, (size_t)m * size);
	if (!p)
		return -ENOMEM;
	memset((char *)p + (size_t)n * size, 0, (size_t)(m - n) * size);
	*arr = p;
	return 0;
}

static int grow_bitmap(struct fsck_bitmap *b, uint64_t nbits)
{
	uint64_t n = (b->nbits + 63) / 64, m = (nbits + 63) / 64;

	if (grow_zero((void **)&b->words, sizeof(*b->words), n, m))
		return -ENOMEM;
	b->nbits = nbits;
	return 0;
}

/* the ifile reached NGROUPS groups: room for their inodes, all free yet */
static int grow_groups(struct cpdiff *d, uint64_t ngroups)
{
	struct fsck_cp *cp = &d->cp;
	uint64_t n = cp->max_ino, m = ngroups * (uint64_t)d->c->g->blocksize * 8;

	if (fsck_icount_grow(&cp->nref, m) || fsck_icount_grow(&cp->links, m) ||
	    grow_zero((void **)&cp->parent, sizeof(*cp->parent), n, m) ||
	    grow_zero((void **)&d->ver, sizeof(*d->ver), n, m) ||
	    grow_bitmap(&cp->alloc, m) || grow_bitmap(&cp->visited, m) ||
	    grow_bitmap(&cp->isdir, m) || grow_bitmap(&cp->cleared, m) ||
	    grow_bitmap(&d->dirtymap, m) || grow_bitmap(&d->touchmap, m))
		return -ENOMEM;
	cp->max_ino = m;
	d->ngroups = ngroups;
	return 0;
}

static int clear_vblock(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	struct cpdiff *d = arg;

	(void)key;
	(void)level;
	if (!fsck_vbit_test(&d->c->vref, ptr))
		fail(d);
	fsck_vbit_clear(&d->c->vref, ptr);
	d->cp.nblocks--;
	return 0;
}

static bool is_type(uint16_t mode, uint16_t type)
{
	return (mode & NLFS_S_IFMT) == type;
}

static size_t dblk_slot(uint64_t dir, uint64_t ino, uint64_t type, size_t cap)
{
	uint64_t h = (dir * 0x9e3779b97f4a7c15ull) ^ (ino * 0xc2b2ae3d27d4eb4full) ^ type;

	return (size_t)((h ^ (h >> 29)) * 0x94d049bb133111ebull >> 20) & (cap - 1);
}

/* the old records hashed, for cpdiff_record_known */
static int hash_oldblk(struct cpdiff *d)
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

bool cpdiff_record_known(const struct cpdiff *d, uint64_t dir, uint64_t ino, unsigned type)
{
	size_t cap = d->oldset_n;

	if (!cap || fsck_bit_test(&d->touchmap, ino))
		return false;
	for (size_t s = dblk_slot(dir, ino, type, cap); d->oldset[s]; s = (s + 1) & (cap - 1)) {
		const struct dblk *r = &d->oldblk[d->oldset[s] - 1];

		if (r->dir == dir && r->ino == ino && r->type == type)
			return true;
	}
	return false;
}

/* the references the old version of directory F made, taken back */
static void unref_dir(struct cpdiff *d, const struct nlfs_file *f)
{
	uint32_t bs = d->c->g->blocksize;
	uint64_t *keys = NULL;
	size_t nkeys = 0;
	uint8_t *buf = malloc(bs);

	if (!buf || nlfs_bmap_keys(d->c->fs, f, &keys, &nkeys, NULL)) {
		fail(d);
		goto out;
	}
	for (size_t i = 0; i < nkeys && !d->failed; i++) {
		unsigned off = 0, nrec = 0;
		bool hole;
		uint64_t key = keys[i];

		if (nlfs_file_read_block(d->c->fs, f, key, buf, &hole, NULL) || hole) {
			fail(d);
			break;
		}
		while (off < bs) {
			struct nlfs_dir_rec rec;
			const char *why;
			unsigned end, named;
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
				struct dblk r = { f->ino, rec.ino, rec.file_type };

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

static int push_touched(struct cpdiff *d, uint64_t ino, bool old_alloc, bool has_old)
{
	struct touched t = { .ino = ino, .old_alloc = old_alloc, .has_old = has_old };

	return CLI_PUSH(d->t, d->nt, d->capt, t);
}

/* inode INO as the last checkpoint had it; the block read last is kept
 * (the inodes come in order) */
static int read_old_record(struct cpdiff *d, uint64_t ino, struct nlfs_file *out)
{
	uint32_t bs = d->c->g->blocksize, isz = d->c->g->inode_size;
	uint64_t blkoff;
	uint32_t off;
	bool hole;

	nlfs_palloc_locate(bs, isz, ino, &blkoff, &off);
	if (!d->oldrec) {
		d->oldrec = malloc(bs);
		d->oldrec_blk = UINT64_MAX;
		if (!d->oldrec)
			return -ENOMEM;
	}
	if (blkoff != d->oldrec_blk) {
		d->oldrec_blk = UINT64_MAX;
		if (nlfs_file_read_block(d->c->fs, &d->prev_ifile, blkoff, d->oldrec, &hole, NULL))
			return -EIO;
		d->oldrec_blk = blkoff;
	}
	memset(out, 0, sizeof(*out));
	out->ino = ino;
	out->cno = d->prev_ifile.cno;
	memcpy(&out->inode, d->oldrec + off, isz < sizeof(out->inode) ? isz : sizeof(out->inode));
	return 0;
}

/* the records of entry block KEY that differ from the last checkpoint's */
static void diff_entry_block(struct cpdiff *d, uint64_t key, uint64_t ino0, uint8_t *oldb,
			     uint8_t *newb)
{
	struct fsck *c = d->c;
	uint32_t bs = c->g->blocksize, isz = c->g->inode_size;
	bool ohole, nhole;

	if (nlfs_file_read_block(c->fs, &d->cp.ifile, key, newb, &nhole, NULL) || nhole ||
	    nlfs_file_read_block(c->fs, &d->prev_ifile, key, oldb, &ohole, NULL)) {
		fail(d);
		return;
	}
	for (uint32_t i = 0; i < bs / isz; i++) {
		if (!memcmp(oldb + (size_t)i * isz, newb + (size_t)i * isz, isz))
			continue;
		if (push_touched(d, ino0 + i, fsck_bit_test(&d->cp.alloc, ino0 + i), true))
			fail(d);
	}
}

/* group G's descriptor and bitmap again: the bits that moved */
static void diff_group(struct cpdiff *d, uint64_t g, struct nlfs_palloc_group *pg)
{
	struct fsck *c = d->c;
	uint32_t bs = c->g->blocksize;
	uint64_t epg = (uint64_t)bs * 8, used = 0;

	if (nlfs_palloc_read_group(c->fs, &d->cp.ifile, c->g->inode_size, g, pg, NULL) ||
	    pg->bitmap_hole) {
		fail(d);
		return;
	}
	for (uint64_t w = 0; w < epg / 64; w++) {
		uint64_t nw, ow = d->cp.alloc.words[g * (epg / 64) + w], x;

		nw = nlfs_get_le64(pg->bitmap + w * 8);
		used += (uint64_t)__builtin_popcountll(nw);
		for (x = nw ^ ow; x; x &= x - 1) {
			uint64_t ino = g * epg + w * 64 + (uint64_t)__builtin_ctzll(x);

			/* the record itself is read below if it changed too */
			if (push_touched(d, ino, ow >> (ino % 64) & 1, false))
				fail(d);
		}
		d->cp.alloc.words[g * (epg / 64) + w] = nw;
	}
	if (pg->desc_hole ? used != 0 : pg->nfrees != epg - used)
		fail(d);
}

static int cmp_touched(const void *a, const void *b)
{
	const struct touched *x = a, *y = b;

	/* by inode; a changed record (old kept) before a bit alone */
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (int)y->has_old - (int)x->has_old;
}

/* the ifile blocks that changed: which inodes to take again */
static void diff_ifile_blocks(struct cpdiff *d)
{
	struct fsck *c = d->c;
	uint32_t bs = c->g->blocksize, isz = c->g->inode_size;
	uint64_t epg = (uint64_t)bs * 8, ipb = bs / isz;
	struct nlfs_palloc_group pg = { .desc_blkoff = UINT64_MAX };
	uint8_t *oldb = malloc(bs), *newb = malloc(bs);

	pg.desc = malloc(bs);
	pg.bitmap = malloc(bs);
	if (!oldb || !newb || !pg.desc || !pg.bitmap) {
		fail(d);
		goto out;
	}
	/* entry blocks first (the old records), then the bitmaps */
	for (size_t i = 0; i < d->nchg && !d->failed; i++) {
		uint64_t key = d->chg[i].key;

		for (uint64_t g = 0; g < d->ngroups; g++) {
			uint64_t bm = nlfs_palloc_bitmap_blkoff(bs, isz, g), blk;
			uint32_t off;

			if (key <= bm || key > bm + epg / ipb)
				continue;
			nlfs_palloc_locate(bs, isz, g * epg + (key - bm - 1) * ipb, &blk, &off);
			if (blk != key || off != 0)
				fail(d);
			else
				diff_entry_block(d, key, g * epg + (key - bm - 1) * ipb, oldb, newb);
			break;
		}
	}
	for (uint64_t g = 0; g < d->ngroups && !d->failed; g++) {
		bool changed = false;

		for (size_t i = 0; i < d->nchg; i++)
			if (d->chg[i].key == nlfs_palloc_bitmap_blkoff(bs, isz, g) ||
			    d->chg[i].key == nlfs_palloc_desc_blkoff(bs, isz, g))
				changed = true;
		if (changed)
			diff_group(d, g, &pg);
	}
	nlfs_sort(d->t, d->nt, sizeof(*d->t), cmp_touched);
out:
	free(oldb);
	free(newb);
	free(pg.desc);
	free(pg.bitmap);
}

/* merge the entries of one inode; the bits are the new ones by now */
static void settle_touched(struct cpdiff *d)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nt; i++) {
		/* a record that changed was read before the bitmaps, with
		 * the old bit: one entry says both */
		if (n && d->t[n - 1].ino == d->t[i].ino)
			continue;
		d->t[n++] = d->t[i];
	}
	d->nt = n;
	for (size_t i = 0; i < d->nt; i++) {
		d->t[i].new_alloc = fsck_bit_test(&d->cp.alloc, d->t[i].ino);
		fsck_bit_set(&d->touchmap, d->t[i].ino);
	}
}

static bool metadata_ino(uint64_t ino)
{
	return ino == 0 || (ino >= NLFS_DAT_INO && ino <= NLFS_IFILE_INO);
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
static void check_tree(struct cpdiff *d)
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

static void reset_step(struct cpdiff *d)
{
	for (size_t i = 0; i < d->ndirty; i++)
		fsck_bit_clear(&d->dirtymap, d->dirty[i]);
	for (size_t i = 0; i < d->nt; i++)
		fsck_bit_clear(&d->touchmap, d->t[i].ino);
	d->ndirty = d->nt = d->nlost = d->ndotdot = d->nmoved = d->nchg = d->nfresh = d->nstale = 0;
	d->noldblk = 0;
	d->oldrec_blk = UINT64_MAX;   /* prev_ifile is another one now */
	d->failed = false;
}

/* an entry of the ifile's map that one of the two checkpoints has alone */
static int ifile_change(uint64_t key, uint64_t ptr, unsigned level, enum nlfs_bmap_side side,
			void *arg)
{
	struct cpdiff *d = arg;
	struct nlfs_datinfo de;

	if (side == NLFS_BMAP_SHARED)
		return 0;   /* alive here unless its ibucket says otherwise */
	if (side == NLFS_BMAP_OLD) {
		struct ient e = { key, ptr, level };

		if (CLI_PUSH(d->stale, d->nstale, d->capstale, e))
			fail(d);
		return d->failed;
	}
	if (!check_map_pointer(d->c, d->ifc, &d->cp.ifile, key, ptr, level, &de)) {
		fail(d);
		return 1;
	}
	file_ifile_ptr(d, ptr, de.start, de.end);
	if (level == 0) {
		struct ichange ch = { key, ptr };

		if (CLI_PUSH(d->chg, d->nchg, d->capchg, ch))
			fail(d);
		if (key + 1 > d->ifile_last_data)
			d->ifile_last_data = key + 1;
	}
	d->nfresh++;
	return d->failed;
}

/* checkpoint CNO by difference with the one kept: true if it is clean
 * (and kept now), false if it must be walked whole */
static bool try_difference(struct fsck *c, struct cpdiff *d, uint64_t cno)
{
	uint32_t first_ino = nlfs_le32(c->sb->s_first_ino);
	struct fsck_cp *cp = &d->cp;
	struct fsck_file_check fc = { 0 };
	struct nlfs_cpinfo ck;
	struct nlfs_file f;
	uint64_t ngroups;
	uint8_t flags;
	char what[64];

	reset_step(d);
	if (nlfs_cpfile_info(c->fs, cno, &ck, NULL) || nlfs_fs_ifile(c->fs, cno, &f, NULL))
		return false;
	c->probing = true;
	c->probe_failed = false;
	cp->cno = cno;
	cp->ifile = f;
	cp_icache_reset(cp);

	/* the ifile's map: what the last checkpoint's does not share with it */
	snprintf(what, sizeof(what), "checkpoint %" PRIu64 ": ifile", cno);
	fc.cno = cno;
	fc.what = what;
	fc.max_fs_units = 4;
	d->ifc = &fc;
	memcpy(&flags, cp->ifile.inode.i_bmap, 1);
	if ((!(flags & NLFS_BMAP_LARGE) && flags) ||
	    nlfs_bmap_diff(c->fs, &d->prev_ifile, &cp->ifile, ifile_change, d, NULL) ||
	    c->probe_failed || d->failed)
		goto failed;
	fc.nblocks = d->ifile_nblocks + d->nfresh - d->nstale;
	if (!nlfs_inode_blocks_ok(nlfs_le64(cp->ifile.inode.i_blocks), fc.nblocks,
				  c->g->blocksize, fc.max_fs_units))
		goto failed;
	ngroups = palloc_groups(c, what, c->g->inode_size, d->ifile_last_data);
	/* the kernel's ifile only grows */
	if (ngroups < d->ngroups || (ngroups > d->ngroups && grow_groups(d, ngroups)))
		goto failed;
	for (size_t i = 0; i < d->nstale; i++)
		fsck_vbit_clear(&c->vref, d->stale[i].ptr);   /* no longer the ifile's */

	/* the inodes to take again */
	diff_ifile_blocks(d);
	if (d->failed)
		goto failed;
	for (size_t i = 0; i < d->nchg; i++)
		if (set_iptr(d, d->chg[i].key, d->chg[i].ptr))
			goto failed;
	for (size_t i = 0; i < d->nstale; i++) {
		const struct ient *e = &d->stale[i];

		/* a data block gone, not replaced: a hole the full walk names */
		if (e->level == 0 && (e->key >= d->niptr || d->iptr[e->key] == e->ptr))
			goto failed;
	}
	settle_touched(d);

	/* out as they were */
	for (size_t i = 0; i < d->nt && !d->failed; i++) {
		struct touched *t = &d->t[i];
		struct nlfs_file old;
		uint16_t mode;

		if (!t->old_alloc || metadata_ino(t->ino))
			continue;
		/* a bit alone moved: the record is the current one */
		if (t->has_old ? read_old_record(d, t->ino, &old) : cp_read_inode(c, cp, t->ino, &old))
			goto failed;
		mode = nlfs_le16(old.inode.i_mode);
		if (nlfs_mode_has_map(mode) && nlfs_bmap_iterate(c->fs, &old, clear_vblock, d, NULL))
			goto failed;
		if (t->ino == NLFS_ROOT_INO || t->ino >= first_ino)
			d->ninodes--;
		if (is_type(mode, NLFS_S_IFDIR) && nlfs_le16(old.inode.i_links_count))
			unref_dir(d, &old);
		t->old_mode = nlfs_le16(old.inode.i_mode);
		fsck_bit_clear(&cp->isdir, t->ino);
		fsck_icount_set(&cp->links, t->ino, 0);
		d->ver[t->ino]++;
		cpdiff_dirty(d, t->ino);
	}
	if (hash_oldblk(d))
		goto failed;
	/* in as they are */
	for (size_t i = 0; i < d->nt && !d->failed && !c->probe_failed; i++) {
		struct touched *t = &d->t[i];
		uint16_t mode;

		if (!t->new_alloc || metadata_ino(t->ino))
			continue;
		if (cp_read_inode(c, cp, t->ino, &f))
			goto failed;
		mode = nlfs_le16(f.inode.i_mode);
		if (t->ino >= first_ino &&
		    (cp_inode_is_empty(&f.inode) || cp_inode_is_deleted(c, cno, &f)))
			goto failed;
		if (t->old_alloc && (mode ^ t->old_mode) & NLFS_S_IFMT)
			goto failed;   /* names left in unchanged directories: their types */
		if (t->ino == NLFS_ROOT_INO || t->ino >= first_ino)
			d->ninodes++;
		d->ver[t->ino]++;
		if (!check_inode(c, cp, &f, NULL))
			goto failed;
		cpdiff_dirty(d, t->ino);
	}
	for (size_t i = 0; i < d->nt && !d->failed && !c->probe_failed; i++) {
		struct touched *t = &d->t[i];

		if (!t->new_alloc || metadata_ino(t->ino) || !fsck_bit_test(&cp->isdir, t->ino) ||
		    !fsck_icount_get(&cp->links, t->ino))
			continue;
		if (t->ino != NLFS_ROOT_INO && !cp->parent[t->ino] &&
		    CLI_PUSH(d->moved, d->nmoved, d->capmoved, t->ino))
			goto failed;
		cp->diff_walk = true;
		walk_tree(c, cp, t->ino, 0, "");
		cp->diff_walk = false;
	}
	if (d->failed || c->probe_failed)
		goto failed;
	check_tree(d);

	/* what every checkpoint must hold */
	for (uint64_t ino = 0; ino < first_ino; ino++)
		if (!fsck_bit_test(&cp->alloc, ino))
			goto failed;
	if (cp_read_inode(c, cp, NLFS_ROOT_INO, &f) ||
	    !is_type(nlfs_le16(f.inode.i_mode), NLFS_S_IFDIR) || !f.inode.i_links_count)
		goto failed;
	for (size_t i = 0; i < d->buckets[d->k].n; i++) {
		const struct vent *e = &d->buckets[d->k].v[i];

		if (d->ver[e->ino] == e->ver && fsck_bit_test(&cp->alloc, e->ino))
			goto failed;   /* an unchanged map with a block dead here */
	}
	free(d->buckets[d->k].v);
	d->buckets[d->k] = (struct bucket){ 0 };
	for (size_t i = 0; i < d->ibuckets[d->k].n; i++)
		if (fsck_vbit_test(&c->vref, d->ibuckets[d->k].v[i]))
			goto failed;   /* an ifile block still in use, dead here */
	free(d->ibuckets[d->k].v);
	d->ibuckets[d->k] = (struct vbucket){ 0 };
	if (ck.inodes_count != d->ninodes ||
	    ck.blocks_count != cp->nblocks + fc.nblocks)
		goto failed;
	if (d->failed || c->probe_failed || c->maps_incomplete)
		goto failed;
	c->probing = false;
	d->ifile_nblocks = fc.nblocks;
	d->prev_ifile = cp->ifile;
	c->ncps_checked++;
	return true;
failed:
	c->probing = false;
	c->probe_failed = false;
	cp->diff_walk = false;
	return false;
}

int pass_checkpoints(struct fsck *c, const uint64_t *cnos, uint64_t ncnos)
{
	struct cpdiff d = { .c = c, .cnos = cnos, .ncnos = ncnos };
	uint64_t ndiff = 0;

	if (ncnos > 1 && (!(d.buckets = calloc(ncnos, sizeof(*d.buckets))) ||
			  !(d.ibuckets = calloc(ncnos, sizeof(*d.ibuckets))))) {
		free(d.buckets);
		d.buckets = NULL;
		fsck_problem(c, MSG_OOM_VIRTUAL_SETS);
	}
	for (uint64_t i = 0; i < ncnos && !fsck_cancelled(c); i++) {
		d.k = i;
		d.header_done = false;
		if (d.have) {
			char title[96];

			snprintf(title, sizeof(title),
				 "checking inodes, block maps and directories (checkpoint %" PRIu64 ")",
				 cnos[i]);
			fsck_pass_begin(c, 6, title);
			d.header_done = true;
			if (try_difference(c, &d, cnos[i])) {
				ndiff++;
				continue;
			}
			drop_state(&d);
		}
		if (i > 0) {
			fsck_vbitmap_clear_all(&c->vref);
			c->maps_incomplete = false;
		}
		pass_checkpoint_walk(c, cnos[i], d.buckets ? &d : NULL);
		if (!d.have && d.buckets)
			clear_buckets(&d);
		if (i == 0 && !fsck_cancelled(c))
			pass_dat_leaks(c);
	}
	if (ncnos > 1)
		fsck_verbose(c, "%" PRIu64 " of %" PRIu64 " checkpoints checked by difference with "
			     "the one before", ndiff, ncnos);
	drop_state(&d);
	free(d.buckets);
	free(d.ibuckets);
	free(d.stale);
	free(d.chg);
	free(d.dirty);
	free(d.t);
	free(d.lost);
	free(d.dotdot);
	free(d.moved);
	free(d.oldblk);
	free(d.oldset);
	free(d.oldrec);
	return 0;
}
