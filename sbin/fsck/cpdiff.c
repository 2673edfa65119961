/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpdiff.c - pass 6 over many checkpoints at the cost of what changes
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
 * compared block by block (pass_dir.c, no descent): the blocks whose
 * virtual block changed read old and new, record by record, the others
 * (the same records) only for their names, which a new name in a changed
 * block must not repeat.  Then only the inodes whose link
 * count or references moved are compared, and only the directories that
 * moved are followed up to the root.  A block the difference does not
 * touch was alive in the previous checkpoint; it must be alive in this one
 * too: each inode's map is filed under the first checkpoint to come its
 * blocks' DAT periods do not cover, and found there if it is still the
 * same.
 *
 * What the directories say (the old records taken back, the walk's notes
 * of the new ones, the tree they make) is cpdiff_tree.c's; both share the
 * state of cpdiffP.h.
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
#include "cpdiffP.h"
#include "array.h"

/* checkpoints whose logs are asked for ahead of their difference, and the
 * largest log asked for (blocks).  A difference of a small change takes
 * some 25 us of CPU, far less than the disk takes to serve a request: two
 * checkpoints ahead, pass 6 of a cold --checkpoints=all on bench/fsck.sh's
 * 20,000-file volume waited for the ifile's new B-tree nodes in 170 of
 * them (sched_switch), 32 ahead in 9.  A log that large holds mostly file data
 * (100,000 files written between two checkpoints), its metadata in runs
 * of a block or two between them, each a request of its own: on
 * bench/fsck.sh's 100,000-file volume a fifth of the CPU time of its
 * first ten differences.  Cold, in turn, least of 4, load 6.5: 100,000
 * files 0.41 to 0.43 s (0.43 to 0.57 s before), 0.51 to 0.54 s without
 * the bound */
#define CP_AHEAD 32
#define CP_LOG_MAX 256
/* the blocks of a changed directory asked for ahead where its log was not
 * (note_dir_blocks; its size is a hint only), and how many are gathered
 * into runs before they are asked for */
#define DIR_AHEAD_MAX 256
#define DIR_AHEAD_BATCH 64

/* the blocks of one log the difference may read, gathered into runs */
struct log_runs {
	const struct cpdiff *d;
	struct nlfs_io *io;
	uint32_t bs;
	uint64_t start, end;            /* the run at hand: [start, end) */
};

static void flush_run(struct log_runs *r)
{
	if (r->end > r->start)
		nlfs_io_prefetch(r->io, r->start * r->bs, (r->end - r->start) * r->bs);
	r->start = r->end = 0;
}

/* block B is wanted, in ascending order between flushes: it joins the run
 * at hand where it lies in it or right after it, else starts the next */
static void run_add(struct log_runs *r, uint64_t b)
{
	if (r->end && b >= r->start && b <= r->end) {
		if (b + 1 > r->end)
			r->end = b + 1;
		return;
	}
	flush_run(r);
	r->start = b;
	r->end = b + 1;
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
	/* by hand, not nlfs_lower_bound: once per inode checked, where the
	 * comparison through a pointer costs 1% of --checkpoints=all */
	while (lo < hi) {
		uint64_t m = lo + (hi - lo) / 2;

		if (d->cnos[m] >= min_end)
			hi = m;
		else
			lo = m + 1;
	}
	return lo;
}

static void cpdiff_note_version(void *arg, uint64_t ino, uint64_t max_start, uint64_t min_end)
{
	struct cpdiff *d = arg;
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
	/* a copy, not kept up: only for what to ask for ahead */
	if (!d->dirs_first.words && !fsck_bitmap_init(&d->dirs_first, cp->max_ino))
		memcpy(d->dirs_first.words, cp->isdir.words, (cp->max_ino + 63) / 64 * 8);
	d->cp = *cp;
	d->cp.nblocks -= ifile_nblocks;
	d->cp.diff = &cpdiff_hooks;
	d->cp.diff_arg = d;
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

static int push_touched(struct cpdiff *d, uint64_t ino, bool old_alloc, bool has_old)
{
	struct touched t = { .ino = ino, .old_alloc = old_alloc, .has_old = has_old,
			     .old = (uint32_t)d->noldrecs - 1 };

	return CLI_PUSH(d->t, d->nt, d->capt, t);
}

/* the last checkpoint's record of a changed inode in use (REC, of the
 * inode size), kept for take_out_old: its block is not read again */
static int push_changed(struct cpdiff *d, uint64_t ino, const uint8_t *rec)
{
	uint32_t isz = d->c->g->inode_size;
	struct nlfs_inode i = { 0 };

	memcpy(&i, rec, isz < sizeof(i) ? isz : sizeof(i));
	if (d->noldrecs >= UINT32_MAX || CLI_PUSH(d->oldrecs, d->noldrecs, d->capoldrecs, i))
		return -ENOMEM;
	return push_touched(d, ino, true, true);
}

/* inode T as the last checkpoint had it */
static void old_record(const struct cpdiff *d, const struct touched *t, struct nlfs_file *out)
{
	memset(out, 0, sizeof(*out));
	out->ino = t->ino;
	out->cno = d->prev_ifile.cno;
	out->inode = d->oldrecs[t->old];
}

/* the records of entry block KEY that differ from the last checkpoint's
 * (OLDB holds them already if HAVE_OLD); the new block goes to the cache */
static void diff_entry_block(struct cpdiff *d, uint64_t key, uint64_t ino0, uint8_t *oldb,
			     bool have_old, uint8_t *newb)
{
	struct fsck *c = d->c;
	uint32_t bs = c->g->blocksize, isz = c->g->inode_size;
	bool ohole, nhole;

	if (nlfs_file_read_block(c->fs, &d->cp.ifile, key, newb, &nhole, NULL) || nhole ||
	    (!have_old && nlfs_file_read_block(c->fs, &d->prev_ifile, key, oldb, &ohole, NULL))) {
		fail(d);
		return;
	}
	cp_icache_put(&d->cp, key, newb, bs);
	for (uint32_t i = 0; i < bs / isz; i++) {
		if (!memcmp(oldb + (size_t)i * isz, newb + (size_t)i * isz, isz))
			continue;
		/* a free inode's old record is never looked at */
		if (fsck_bit_test(&d->cp.alloc, ino0 + i) ?
		    push_changed(d, ino0 + i, oldb + (size_t)i * isz) :
		    push_touched(d, ino0 + i, false, true))
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
	if (nlfs_palloc_group_nfree(pg, epg) != epg - used)
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

/* d->t in order.  It comes in two runs that are in order already (the
 * changed records, block by block, then the bits that moved, group by
 * group): merged, where a sort of the 10,000 inodes of a large difference
 * cost a fifth of finding them */
static void sort_touched(struct cpdiff *d)
{
	size_t mid = 1, i, j, k;
	struct touched *m;

	while (mid < d->nt && cmp_touched(&d->t[mid - 1], &d->t[mid]) <= 0)
		mid++;
	for (i = mid + 1; i < d->nt && cmp_touched(&d->t[i - 1], &d->t[i]) <= 0; i++)
		;
	if (mid >= d->nt)
		return;
	m = i < d->nt ? NULL : malloc(d->nt * sizeof(*m));
	if (!m) {
		nlfs_sort(d->t, d->nt, sizeof(*d->t), cmp_touched);
		return;
	}
	for (i = 0, j = mid, k = 0; k < d->nt; k++)
		m[k] = j >= d->nt || (i < mid && cmp_touched(&d->t[i], &d->t[j]) <= 0) ? d->t[i++] :
										 d->t[j++];
	memcpy(d->t, m, d->nt * sizeof(*m));
	free(m);
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
	/* entry blocks first (the old records), then the bitmaps.  The inode
	 * cache still holds the last checkpoint's blocks: each that changed
	 * is taken out (its old records, if held), the new one put in */
	for (size_t i = 0; i < d->nchg && !d->failed; i++) {
		uint64_t key = d->chg[i].key;
		bool have_old = cp_icache_take(&d->cp, key, oldb, bs);

		for (uint64_t g = 0; g < d->ngroups; g++) {
			uint64_t bm = nlfs_palloc_bitmap_blkoff(bs, isz, g), blk;
			uint32_t off;

			if (key <= bm || key > bm + epg / ipb)
				continue;
			nlfs_palloc_locate(bs, isz, g * epg + (key - bm - 1) * ipb, &blk, &off);
			if (blk != key || off != 0)
				fail(d);
			else
				diff_entry_block(d, key, g * epg + (key - bm - 1) * ipb, oldb, have_old,
						 newb);
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
	sort_touched(d);
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

static void reset_step(struct cpdiff *d)
{
	for (size_t i = 0; i < d->ndirty; i++)
		fsck_bit_clear(&d->dirtymap, d->dirty[i]);
	for (size_t i = 0; i < d->nt; i++)
		fsck_bit_clear(&d->touchmap, d->t[i].ino);
	d->ndirty = d->nt = d->nlost = d->ndotdot = d->nmoved = d->nchg = d->nfresh = d->nstale = 0;
	d->noldblk = d->oldat = 0;
	d->ndblocks = 0;
	d->noldrecs = 0;
	d->nahead = 0;
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

/* the ifile's map: what the last checkpoint's does not share with this
 * one's, checked as a map is (FC); false if the difference cannot go on */
static bool diff_ifile_map(struct cpdiff *d, struct fsck_file_check *fc)
{
	struct fsck *c = d->c;
	struct fsck_cp *cp = &d->cp;
	uint64_t ngroups;
	uint8_t flags;

	d->ifc = fc;
	memcpy(&flags, cp->ifile.inode.i_bmap, 1);
	if ((!(flags & NLFS_BMAP_LARGE) && flags) ||
	    nlfs_bmap_diff(c->fs, &d->prev_ifile, &cp->ifile, ifile_change, d, NULL) ||
	    c->probe_failed || d->failed)
		return false;
	fc->nblocks = d->ifile_nblocks + d->nfresh - d->nstale;
	if (!nlfs_inode_blocks_ok(nlfs_le64(cp->ifile.inode.i_blocks), fc->nblocks,
				  c->g->blocksize, fc->max_fs_units))
		return false;
	ngroups = palloc_groups(c, fc->what, c->g->inode_size, d->ifile_last_data);
	/* the kernel's ifile only grows */
	if (ngroups < d->ngroups || (ngroups > d->ngroups && grow_groups(d, ngroups)))
		return false;
	for (size_t i = 0; i < d->nstale; i++)
		fsck_vbit_clear(&c->vref, d->stale[i].ptr);   /* no longer the ifile's */
	return true;
}

/* the inodes to take again, from the ifile blocks that changed */
static bool find_touched(struct cpdiff *d)
{
	/* before the blocks are read: the first difference, from the latest
	 * checkpoint to the oldest, mostly ends here */
	for (size_t i = 0; i < d->nchg; i++)
		if (set_iptr(d, d->chg[i].key, d->chg[i].ptr))
			return false;
	for (size_t i = 0; i < d->nstale; i++) {
		const struct ient *e = &d->stale[i];

		/* a data block gone, not replaced: a hole the full walk names */
		if (e->level == 0 && (e->key >= d->niptr || d->iptr[e->key] == e->ptr))
			return false;
	}
	diff_ifile_blocks(d);
	if (d->failed)
		return false;
	settle_touched(d);
	return true;
}

/* the touched inodes taken out as they were */
static bool take_out_old(struct cpdiff *d)
{
	struct fsck *c = d->c;
	struct fsck_cp *cp = &d->cp;
	uint32_t first_ino = nlfs_le32(c->sb->s_first_ino);

	for (size_t i = 0; i < d->nt && !d->failed; i++) {
		struct touched *t = &d->t[i];
		struct nlfs_file old;
		uint16_t mode;

		if (!t->old_alloc || metadata_ino(t->ino))
			continue;
		/* a bit alone moved: the record is the current one */
		if (t->has_old)
			old_record(d, t, &old);
		else if (cp_read_inode(c, cp, t->ino, &old))
			return false;
		mode = nlfs_le16(old.inode.i_mode);
		if (nlfs_mode_has_map(mode) && nlfs_bmap_iterate(c->fs, &old, clear_vblock, d, NULL))
			return false;
		if (t->ino == NLFS_ROOT_INO || t->ino >= first_ino)
			d->ninodes--;
		if (is_type(mode, NLFS_S_IFDIR) && nlfs_le16(old.inode.i_links_count)) {
			struct nlfs_file cur;
			bool have_cur = t->new_alloc && !cp_read_inode(c, cp, t->ino, &cur) &&
					is_type(nlfs_le16(cur.inode.i_mode), NLFS_S_IFDIR);

			cpdiff_unref_dir(d, &old, have_cur ? &cur : NULL);
		}
		t->old_mode = nlfs_le16(old.inode.i_mode);
		fsck_bit_clear(&cp->isdir, t->ino);
		fsck_icount_set(&cp->links, t->ino, 0);
		d->ver[t->ino]++;
		cpdiff_dirty(d, t->ino);
	}
	cpdiff_sort_dblocks(d);
	return true;
}

/* the directory blocks gathered by note_dir_blocks asked for, in runs of
 * adjacent blocks */
static void ask_dir_blocks(struct cpdiff *d)
{
	struct log_runs r = { d, nlfs_fs_io(d->c->fs), d->c->g->blocksize, 0, 0 };

	nlfs_sort(d->ahead, d->nahead, sizeof(*d->ahead), nlfs_cmp_u64);
	for (size_t i = 0; i < d->nahead; i++)
		run_add(&r, d->ahead[i]);
	flush_run(&r);
	d->nahead = 0;
}

/* directory F changed in a checkpoint whose logs were too large to be
 * asked for ahead (the bulk of a volume's files written at once): where
 * its blocks lie (the DAT blocks that say so were just read by its check),
 * to be asked for while the other changed inodes are checked, where
 * walk_changed_dirs would wait for each */
static void note_dir_blocks(struct cpdiff *d, const struct nlfs_file *f)
{
	uint32_t bs = d->c->g->blocksize;
	uint64_t n = (nlfs_le64(f->inode.i_size) + bs - 1) / bs, blk[16];

	if (n > DIR_AHEAD_MAX)
		n = DIR_AHEAD_MAX;
	for (uint64_t off = 0; off < n;) {
		size_t got = 0;

		if (nlfs_file_blocks_where(d->c->fs, f, off, blk,
					   n - off < 16 ? (size_t)(n - off) : 16, &got, NULL) || !got)
			break;   /* a hint: the walk finds what is wrong */
		for (size_t i = 0; i < got; i++)
			if (blk[i] && CLI_PUSH(d->ahead, d->nahead, d->capahead, blk[i]))
				return;
		off += got;
	}
	if (d->nahead >= DIR_AHEAD_BATCH)
		ask_dir_blocks(d);
}

/* the touched inodes put in as they are, checked again */
static bool put_in_new(struct cpdiff *d)
{
	struct fsck *c = d->c;
	struct fsck_cp *cp = &d->cp;
	uint32_t first_ino = nlfs_le32(c->sb->s_first_ino);
	struct nlfs_file f;

	for (size_t i = 0; i < d->nt && !d->failed && !c->probe_failed; i++) {
		struct touched *t = &d->t[i];
		uint16_t mode;

		if (!t->new_alloc || metadata_ino(t->ino))
			continue;
		if (cp_read_inode(c, cp, t->ino, &f))
			return false;
		mode = nlfs_le16(f.inode.i_mode);
		if (t->ino >= first_ino &&
		    (cp_inode_is_empty(&f.inode) || cp_inode_is_deleted(c, cp->cno, &f)))
			return false;
		if (t->old_alloc && (mode ^ t->old_mode) & NLFS_S_IFMT)
			return false;   /* names left in unchanged directories: their types */
		if (t->ino == NLFS_ROOT_INO || t->ino >= first_ino)
			d->ninodes++;
		d->ver[t->ino]++;
		if (!check_inode(c, cp, &f, NULL))
			return false;
		if (d->logs_not_ahead[d->k] && is_type(mode, NLFS_S_IFDIR))
			note_dir_blocks(d, &f);
		t->checked = true;
		t->new_mode = mode;
		cpdiff_dirty(d, t->ino);
	}
	ask_dir_blocks(d);
	return true;
}

/* each changed directory walked, no descent (pass_dir.c): the blocks it
 * shares with its old version for their names alone */
static bool walk_changed_dirs(struct cpdiff *d)
{
	struct fsck *c = d->c;
	struct fsck_cp *cp = &d->cp;

	for (size_t i = 0; i < d->nt && !d->failed && !c->probe_failed; i++) {
		struct touched *t = &d->t[i];

		if (!t->new_alloc || metadata_ino(t->ino) || !fsck_bit_test(&cp->isdir, t->ino) ||
		    !fsck_icount_get(&cp->links, t->ino))
			continue;
		if (t->ino != NLFS_ROOT_INO && !cp->parent[t->ino] &&
		    CLI_PUSH(d->moved, d->nmoved, d->capmoved, t->ino))
			return false;
		cp->diff_walk = true;
		walk_tree(c, cp, t->ino, 0, "");
		cp->diff_walk = false;
	}
	return true;
}

/* what every checkpoint must hold, and what the blocks filed for this one
 * and its counters (CK; its ifile's map IFILE_NBLOCKS blocks) say */
static bool holds_up(struct cpdiff *d, const struct nlfs_cpinfo *ck, uint64_t ifile_nblocks)
{
	struct fsck *c = d->c;
	struct fsck_cp *cp = &d->cp;
	uint32_t first_ino = nlfs_le32(c->sb->s_first_ino);
	struct nlfs_file f;

	for (uint64_t ino = 0; ino < first_ino; ino++)
		if (!fsck_bit_test(&cp->alloc, ino))
			return false;
	if (cp_read_inode(c, cp, NLFS_ROOT_INO, &f) ||
	    !is_type(nlfs_le16(f.inode.i_mode), NLFS_S_IFDIR) || !f.inode.i_links_count)
		return false;
	for (size_t i = 0; i < d->buckets[d->k].n; i++) {
		const struct vent *e = &d->buckets[d->k].v[i];

		if (d->ver[e->ino] == e->ver && fsck_bit_test(&cp->alloc, e->ino))
			return false;   /* an unchanged map with a block dead here */
	}
	free(d->buckets[d->k].v);
	d->buckets[d->k] = (struct bucket){ 0 };
	for (size_t i = 0; i < d->ibuckets[d->k].n; i++)
		if (fsck_vbit_test(&c->vref, d->ibuckets[d->k].v[i]))
			return false;   /* an ifile block still in use, dead here */
	free(d->ibuckets[d->k].v);
	d->ibuckets[d->k] = (struct vbucket){ 0 };
	return ck->inodes_count == d->ninodes &&
	       ck->blocks_count == cp->nblocks + ifile_nblocks;
}

static int cmp_cplog(const void *a, const void *b)
{
	const struct fsck_cplog *x = a, *y = b;

	return x->cno < y->cno ? -1 : x->cno > y->cno;
}

/* does the difference read block BI of file FI?  The ifile's blocks, every
 * file's B-tree nodes, and the directories' data: not regular files' data
 * (never read), nor the DAT's, cpfile's and sufile's (the checkpoint's own
 * versions, long replaced: the check reads the latest ones) */
static bool diff_reads(const struct cpdiff *d, const struct nlfs_finfo_rec *fi,
		       const struct nlfs_binfo_rec *bi)
{
	if (fi->ino == NLFS_IFILE_INO)
		return true;
	if (fi->ino >= NLFS_DAT_INO && fi->ino <= NLFS_SUFILE_INO)
		return false;
	if (!bi->is_data)
		return true;
	if (fi->ino < d->cp.max_ino && fsck_bit_test(&d->cp.alloc, fi->ino))
		return fsck_bit_test(&d->cp.isdir, fi->ino);
	/* a file the kept checkpoint has not: as the first one kept had it */
	return fi->ino < d->dirs_first.nbits && fsck_bit_test(&d->dirs_first, fi->ino);
}

static int gather_run(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi, void *arg)
{
	struct log_runs *r = arg;

	if (diff_reads(r->d, fi, bi))
		run_add(r, bi->block);
	return 0;
}

/* the blocks the difference may read of the logs that wrote checkpoint
 * CNO asked for ahead (their summaries, read in pass 3, say which): false
 * if a log was too large to be */
static bool prefetch_cp_logs(struct cpdiff *d, uint64_t cno)
{
	struct fsck *c = d->c;
	struct fsck_cplog key = { .cno = cno };
	struct log_runs r = { d, nlfs_fs_io(c->fs), c->g->blocksize, 0, 0 };
	size_t lo;
	bool all = true;

	if (!c->cplogs)
		return true;
	lo = nlfs_lower_bound(&key, c->cplogs, c->ncplogs, sizeof(*c->cplogs), cmp_cplog);
	for (; lo < c->ncplogs && c->cplogs[lo].cno == cno; lo++) {
		struct nlfs_log log;
		void *summary = NULL;

		if (c->cplogs[lo].nblocks > CP_LOG_MAX) {
			all = false;
			continue;
		}
		if (nlfs_log_read(c->fs, c->cplogs[lo].start, &log, &summary,
				  NLFS_LOG_READ_SUMMARY_ONLY, NULL) || !log.sumsum_ok ||
		    nlfs_summary_walk(&log, summary, r.bs, gather_run, &r, NULL)) {
			r.start = r.end = 0;
			nlfs_io_prefetch(r.io, c->cplogs[lo].start * r.bs,
					 c->cplogs[lo].nblocks * r.bs);
		}
		flush_run(&r);
		free(summary);
	}
	return all;
}

/* checkpoint CNO by difference with the one kept: true if it is clean
 * (and kept now), false if it must be walked whole */
static bool try_difference(struct fsck *c, struct cpdiff *d, uint64_t cno)
{
	struct fsck_cp *cp = &d->cp;
	struct fsck_file_check fc = { 0 };
	struct nlfs_cpinfo ck;
	struct nlfs_file f;
	char what[64];

	reset_step(d);
	if (!d->sorted && c->cplogs)
		nlfs_sort(c->cplogs, c->ncplogs, sizeof(*c->cplogs), cmp_cplog);
	d->sorted = true;
	/* this checkpoint's logs and the next ones' asked for ahead: what
	 * the difference reads (the new ifile nodes and blocks, directory
	 * blocks) is there, and the kernel reads a log in one request where
	 * the difference would wait for its blocks one by one */
	for (uint64_t j = d->k; j <= d->k + CP_AHEAD && j < d->ncnos; j++)
		if (j > d->prefetched) {
			d->logs_not_ahead[j] = !prefetch_cp_logs(d, d->cnos[j]);
			d->prefetched = j;
		}
	if (nlfs_cpfile_info(c->fs, cno, &ck, NULL) || nlfs_fs_ifile(c->fs, cno, &f, NULL))
		return false;
	c->probing = true;
	c->probe_failed = false;
	cp->cno = cno;
	cp->ifile = f;
	cp_icache_next(cp);   /* the blocks that changed are taken out below */
	snprintf(what, sizeof(what), "checkpoint %" PRIu64 ": ifile", cno);
	fc.cno = cno;
	fc.what = what;
	fc.max_fs_units = 4;
	if (!diff_ifile_map(d, &fc) || !find_touched(d) || !take_out_old(d) ||
	    cpdiff_hash_oldblk(d) || !put_in_new(d) || !walk_changed_dirs(d) || d->failed ||
	    c->probe_failed)
		goto failed;
	cpdiff_check_tree(d);
	if (!holds_up(d, &ck, fc.nblocks))
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

const struct cp_diff_hooks cpdiff_hooks = {
	.note_version = cpdiff_note_version,
	.dirty = cpdiff_dirty,
	.note_child = cpdiff_note_child,
	.note_dotdot = cpdiff_note_dotdot,
	.record_known = cpdiff_record_known,
	.block_same = cpdiff_block_same,
	.checked_mode = cpdiff_checked_mode,
};

int cpdiff_new(struct fsck *c, const uint64_t *cnos, uint64_t ncnos, struct cpdiff **dp)
{
	struct cpdiff *d;

	*dp = NULL;
	if (ncnos <= 1)
		return 0;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->buckets = calloc(ncnos, sizeof(*d->buckets))) ||
	    !(d->ibuckets = calloc(ncnos, sizeof(*d->ibuckets))) ||
	    !(d->logs_not_ahead = calloc(ncnos, sizeof(*d->logs_not_ahead)))) {
		if (d) {
			free(d->buckets);
			free(d->ibuckets);
		}
		free(d);
		return -ENOMEM;
	}
	d->c = c;
	d->cnos = cnos;
	d->ncnos = ncnos;
	*dp = d;
	return 0;
}

void cpdiff_step(struct cpdiff *d, uint64_t k)
{
	d->k = k;
}

bool cpdiff_kept(const struct cpdiff *d)
{
	return d->have;
}

bool cpdiff_try(struct cpdiff *d)
{
	if (try_difference(d->c, d, d->cnos[d->k]))
		return true;
	drop_state(d);
	return false;
}

void cpdiff_walked(struct cpdiff *d)
{
	if (!d->have)
		clear_buckets(d);
}

void cpdiff_free(struct cpdiff *d)
{
	if (!d)
		return;
	drop_state(d);
	free(d->buckets);
	free(d->ibuckets);
	free(d->logs_not_ahead);
	free(d->ahead);
	free(d->stale);
	free(d->chg);
	free(d->dirty);
	free(d->t);
	free(d->lost);
	free(d->dotdot);
	free(d->moved);
	free(d->oldblk);
	free(d->dblocks);
	free(d->oldset);
	free(d->oldrecs);
	fsck_bitmap_free(&d->dirs_first);
	free(d);
}
