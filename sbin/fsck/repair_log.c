/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * repair_log.c - segments whose logs have damaged summaries, given up.
 *
 * A summary whose file and block records do not add up, or that names a
 * virtual block the DAT (mended first, repair_map.c) puts elsewhere, stays
 * damaged as long as its segment is in use: logs are never rewritten in
 * place.  So the segment is emptied as the cleaner empties one, but with
 * the DAT, not the damaged summary, saying what is there: every allocated
 * DAT entry whose block lies in the segment is a block some checkpoint may
 * use.  Its owner (inode, offset, level) is looked up in the block maps of
 * every checkpoint, snapshots and the latest included, and in the cpfile
 * and sufile, else in the segment's summaries the check trusted; the block
 * is then moved into the repair's construction with its virtual block
 * number and DAT period kept, so every checkpoint keeps what it maps.  An
 * entry neither names is a dead version and is freed, unless some map could
 * not be walked (then the segment stays as it is).  The DAT, whose own blocks may lie there, is written anew.
 * The segment is clean in the new sufile; before the superblocks are
 * written nothing of it has changed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/repair.h>
#include "array.h"
#include "fsck.h"

struct owner {
	uint64_t ino, blkoff;
	unsigned level;
	bool found;
};

struct evac {
	struct fsck *c;
	struct nlfs_fs *fs;
	struct nlfs_writer *w;
	struct nlfs_err *err;
	uint64_t *segs;               /* sorted */
	size_t nsegs;
	struct fsck_vbitmap target;   /* virtual blocks with a block in those segments */
	uint64_t *tv;                 /* the same, ascending (sorted_targets) */
	struct owner *owners;         /* of tv[i] */
	uint64_t ntargets, nowned;
	uint64_t cur_ino;             /* the file whose map is being walked */
	bool incomplete;              /* some map could not be walked whole */
};

static bool chosen(const struct evac *e, uint64_t blk)
{
	uint64_t seg = blk / e->c->g->blocks_per_segment;

	return bsearch(&seg, e->segs, e->nsegs, sizeof(*e->segs), nlfs_cmp_u64) != NULL;
}

/* ---- which segments ---- */

/* does a DAT entry point past the valid logs of SEG, within its count? */
static bool live_past_logs(const struct fsck *c, uint64_t seg)
{
	const struct fsck_seg *s = &c->segs[seg];
	uint64_t start = nlfs_seg_start(c->g, seg);

	for (uint64_t b = start + s->logs_end; b < start + s->su_nblocks; b++)
		if (fsck_bit_test(&c->datphys, b))
			return true;
	return false;
}

static int pick_segments(struct evac *e)
{
	struct fsck *c = e->c;

	e->segs = malloc((c->fix.nlogs ? c->fix.nlogs : 1) * sizeof(*e->segs));
	if (!e->segs)
		return -ENOMEM;
	for (size_t i = 0; i < c->fix.nlogs; i++) {
		const struct fsck_log_fix *lf = &c->fix.logs[i];

		if (lf->stale) {
			/* a claim the DAT disagreed with: damage only if the DAT
			 * (mended by now) still disagrees */
			struct nlfs_datinfo de;
			bool alloc;
			int rc = nlfs_writer_peek_vblock(e->w, lf->vbn, &de, &alloc, e->err);

			if (rc)
				return rc;
			if (alloc && de.blocknr == lf->block)
				continue;
		}
		if (lf->vbn == FSCK_LOG_SHORT && !live_past_logs(c, lf->seg))
			continue;   /* the sufile repair cuts the count (repair_meta.c) */
		if (nlfs_writer_segment_released(e->w, lf->seg))
			continue;   /* emptied already (repair_meta.c) */
		/* the segment the volume writes into next: the repair's log goes
		 * on in the one after it, as the kernel's would */
		if (nlfs_writer_segment_busy(e->w, lf->seg) &&
		    nlfs_writer_leave_segment(e->w, lf->seg, e->err)) {
			fsck_info(c, "left alone: segment %" PRIu64 " has a damaged log, but the "
				  "volume writes into it next", lf->seg);
			continue;
		}
		e->segs[e->nsegs++] = lf->seg;
	}
	if (e->nsegs > 1)
		nlfs_sort(e->segs, e->nsegs, sizeof(*e->segs), nlfs_cmp_u64);
	{
		size_t n = 0;

		for (size_t i = 0; i < e->nsegs; i++)
			if (!n || e->segs[n - 1] != e->segs[i])
				e->segs[n++] = e->segs[i];
		e->nsegs = n;
	}
	return 0;
}

/* ---- what lies there, and whose it is ---- */

static bool mended(const struct fsck *c, uint64_t v)
{
	return c->fix.nvblocks &&
	       bsearch(&v, c->fix.vblocks, c->fix.nvblocks, sizeof(*c->fix.vblocks), nlfs_cmp_u64);
}

static int target(struct evac *e, uint64_t v, bool alloc, uint64_t blk)
{
	if (alloc && blk && chosen(e, blk) && !fsck_vbit_test_set(&e->target, v))
		e->ntargets++;
	return e->target.oom ? -ENOMEM : 0;
}

/* the targets in order, each with room for its owner */
static int sorted_targets(struct evac *e)
{
	struct fsck_viter it = { 0 };
	uint64_t v, n = 0;

	e->tv = malloc((e->ntargets ? e->ntargets : 1) * sizeof(*e->tv));
	e->owners = calloc(e->ntargets ? e->ntargets : 1, sizeof(*e->owners));
	if (!e->tv || !e->owners)
		return -ENOMEM;
	while (n < e->ntargets && fsck_vbitmap_next(&e->target, &it, &v))
		e->tv[n++] = v;
	return 0;
}

/* the owner slot of target V, or NULL if V is none */
static struct owner *owner_of(struct evac *e, uint64_t v)
{
	const uint64_t *p;

	if (!fsck_vbit_test(&e->target, v))
		return NULL;
	p = bsearch(&v, e->tv, e->ntargets, sizeof(*e->tv), nlfs_cmp_u64);
	return p ? &e->owners[p - e->tv] : NULL;
}

/* Every allocated entry with a block in the chosen segments.  The DAT is
 * read as on disk (the writer would keep every block it reads), but for the
 * entries repair_map.c mended, which the writer holds. */
static int find_targets(struct evac *e)
{
	struct fsck *c = e->c;
	struct fsck_viter it = { .from = 1 };
	uint64_t v;
	int rc = 0;

	while (!rc && fsck_vbitmap_next(&c->valloc, &it, &v)) {
		struct nlfs_datinfo de;
		struct nlfs_err err;

		if (mended(c, v) || nlfs_dat_lookup(e->fs, v, &de, &err))
			continue;
		rc = target(e, v, true, de.blocknr);
	}
	for (size_t i = 0; !rc && i < c->fix.nvblocks; i++) {
		struct nlfs_datinfo de;
		bool alloc;

		if (!c->fix.vblocks[i] || (i && c->fix.vblocks[i] == c->fix.vblocks[i - 1]))
			continue;
		rc = nlfs_writer_peek_vblock(e->w, c->fix.vblocks[i], &de, &alloc, e->err);
		if (!rc)
			rc = target(e, c->fix.vblocks[i], alloc, de.blocknr);
	}
	return rc;
}

static int own(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	struct evac *e = arg;
	struct owner *o;

	o = owner_of(e, ptr);
	if (!o || o->found)
		return 0;
	*o = (struct owner){ e->cur_ino, key, level, true };
	e->nowned++;
	return 0;
}

static void walk_map(struct evac *e, const struct nlfs_file *f)
{
	unsigned nbad;

	e->cur_ino = f->ino;
	/* a damaged map gives what it can */
	if (nlfs_bmap_salvage(e->fs, f, own, e, &nbad) || nbad)
		e->incomplete = true;
}

/* Owners the maps did not give, from the segments' summaries the check
 * trusted: a block only a checkpoint whose map is damaged names. */
static int own_from_summary(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi,
			    void *arg)
{
	struct evac *e = arg;
	struct owner *o;

	if (!bi || fi->ino == NLFS_DAT_INO || fsck_bit_test(&e->c->unverified, bi->block))
		return 0;
	o = owner_of(e, bi->vblocknr);
	if (!o || o->found)
		return 0;
	*o = (struct owner){ fi->ino, bi->blkoff, bi->is_data ? 0 : 1, true };
	e->nowned++;
	return 0;
}

static void owners_from_summaries(struct evac *e)
{
	const struct nlfs_geometry *g = e->c->g;

	for (size_t i = 0; i < e->nsegs && e->nowned < e->ntargets; i++) {
		uint64_t start = nlfs_seg_start(g, e->segs[i]), p = start;

		while (p < start + g->blocks_per_segment) {
			struct nlfs_log log;
			struct nlfs_err err;
			void *summary = NULL;

			if (nlfs_log_read(e->fs, p, &log, &summary, NLFS_LOG_READ_SUMMARY_ONLY,
					  &err) || !log.sumsum_ok || !log.nblocks) {
				free(summary);
				break;
			}
			nlfs_summary_walk(&log, summary, g->blocksize, own_from_summary, e, &err);
			free(summary);
			p += log.nblocks;
		}
	}
}

static void walk_inode(struct evac *e, const struct nlfs_file *f)
{
	if (nlfs_mode_has_map(nlfs_le16(f->inode.i_mode)))
		walk_map(e, f);   /* devices keep a number in i_bmap, not a map */
}

/* the ifile's data blocks of one checkpoint, in offset order */
struct iblocks {
	uint64_t *off, *vbn;
	size_t n, capo, capv;
};

static int collect_iblock(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	struct iblocks *ib = arg;

	if (level)
		return 0;
	if (nlfs_grow((void **)&ib->off, &ib->capo, ib->n + 1, sizeof(*ib->off)) ||
	    nlfs_grow((void **)&ib->vbn, &ib->capv, ib->n + 1, sizeof(*ib->vbn)))
		return -ENOMEM;
	ib->off[ib->n] = key;
	ib->vbn[ib->n++] = ptr;
	return 0;
}

static bool same_block(const struct iblocks *prev, uint64_t off, uint64_t vbn)
{
	size_t lo = nlfs_lower_bound(&off, prev->off, prev->n, sizeof(*prev->off), nlfs_cmp_u64);

	return lo < prev->n && prev->off[lo] == off && prev->vbn[lo] == vbn;
}

/* One checkpoint: its ifile's map, and the inodes of the ifile blocks that
 * changed since the checkpoint walked before it (an unchanged block holds
 * the same inodes, whose maps were walked then). */
static int walk_checkpoint(struct evac *e, uint64_t cno, struct iblocks *prev, struct iblocks *cur)
{
	const struct nlfs_geometry *g = e->c->g;
	uint32_t ipb = g->blocksize / g->inode_size;
	struct fsck_bitmap changed;
	struct nlfs_file ifile;
	struct nlfs_err err;
	uint64_t max_ino;
	int rc;

	if (nlfs_fs_ifile(e->fs, cno, &ifile, &err)) {
		e->incomplete = true;   /* a checkpoint the check reported */
		return 0;
	}
	walk_map(e, &ifile);
	cur->n = 0;
	rc = nlfs_bmap_iterate(e->fs, &ifile, collect_iblock, cur, &err);
	if (rc == -ENOMEM)
		return rc;
	if (rc)
		e->incomplete = true;
	/* an ifile reaching absurdly far was reported (PR_MDT_SIZE): only
	 * what fits the device is looked at */
	while (cur->n && cur->off[cur->n - 1] > g->devsize / g->blocksize)
		cur->n--;
	if (rc || !cur->n)
		return 0;
	rc = fsck_bitmap_init(&changed, cur->off[cur->n - 1] + 1);
	if (rc)
		return rc;
	for (size_t i = 0; i < cur->n; i++)
		if (!same_block(prev, cur->off[i], cur->vbn[i]))
			fsck_bit_set(&changed, cur->off[i]);
	max_ino = nlfs_palloc_ngroups(g->blocksize, g->inode_size, cur->off[cur->n - 1]) *
		  (uint64_t)g->blocksize * 8;
	/* a group's inodes fill whole blocks: the first of each block decides */
	for (uint64_t ino = 0; ino < max_ino && e->nowned < e->ntargets; ino += ipb) {
		uint64_t blkoff;
		uint32_t byteoff;

		nlfs_palloc_locate(g->blocksize, g->inode_size, ino, &blkoff, &byteoff);
		if (!fsck_bit_test(&changed, blkoff))
			continue;
		for (uint64_t i = ino; i < ino + ipb; i++) {
			struct nlfs_file f;

			if (nlfs_ifile_read(e->fs, &ifile, i, &f, &err) == 0)
				walk_inode(e, &f);
		}
	}
	fsck_bitmap_free(&changed);
	return 0;
}

static int find_owners(struct evac *e)
{
	struct iblocks a = { 0 }, b = { 0 }, *prev = &a, *cur = &b;
	struct nlfs_cpinfo ci[64];
	uint64_t cno = 1;
	size_t got;
	int rc;

	for (unsigned ino = NLFS_CPFILE_INO; ino <= NLFS_SUFILE_INO; ino++) {
		struct nlfs_file f;

		nlfs_fs_mdt_file(e->fs, ino, &f);
		walk_map(e, &f);
	}
	do {
		rc = nlfs_cpfile_list(e->fs, &cno, NLFS_CPINFO_CHECKPOINTS, ci, 64, &got, e->err);
		for (size_t i = 0; !rc && i < got && e->nowned < e->ntargets; i++) {
			struct iblocks *t;

			rc = walk_checkpoint(e, ci[i].cno, prev, cur);
			t = prev;
			prev = cur;
			cur = t;
		}
	} while (!rc && got && e->nowned < e->ntargets);
	free(a.off);
	free(a.vbn);
	free(b.off);
	free(b.vbn);
	return rc;
}

/* ---- the DAT's blocks ---- */

static int collect_dat_block(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	uint64_t **v = arg;

	(void)ptr;
	if (level == 0)
		*(*v)++ = key;
	return 0;
}

static int count_dat_block(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	(void)key;
	(void)ptr;
	if (level == 0)
		++*(size_t *)arg;
	return 0;
}

int repair_dat_rewrite(struct nlfs_fs *fs, struct nlfs_writer *w, size_t *n, struct nlfs_err *err)
{
	struct nlfs_file dat;
	uint64_t *keys, *at;
	int rc;

	*n = 0;
	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	rc = nlfs_bmap_iterate(fs, &dat, count_dat_block, n, err);
	if (rc)
		return rc;
	keys = malloc((*n ? *n : 1) * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	at = keys;
	rc = nlfs_bmap_iterate(fs, &dat, collect_dat_block, &at, err);
	for (size_t i = 0; !rc && i < *n; i++)
		rc = nlfs_writer_dat_rewrite_block(w, keys[i], err);
	free(keys);
	return rc;
}

/* ---- moving ---- */

static int move_all(struct evac *e, uint64_t *nmoved, uint64_t *nfreed)
{
	struct fsck *c = e->c;

	for (uint64_t i = 0; i < e->ntargets; i++) {
		uint64_t v = e->tv[i];
		const struct owner *o = &e->owners[i];
		struct nlfs_datinfo de;
		uint64_t cno;
		bool alloc;
		int rc = nlfs_writer_peek_vblock(e->w, v, &de, &alloc, e->err);

		if (rc)
			return rc;
		if (!o->found) {
			/* no checkpoint maps it: a dead version */
			if (fsck_vbit_test(&c->vref, v))
				continue;   /* cannot be: the latest maps it; leave it be */
			rc = nlfs_writer_free_vblock(e->w, v, e->err);
			if (rc)
				return rc;
			(*nfreed)++;
			continue;
		}
		/* the checkpoint that wrote it, as the kernel's finfo says; the
		 * cpfile and sufile are written with 0 */
		cno = o->ino == NLFS_CPFILE_INO || o->ino == NLFS_SUFILE_INO ? 0 :
		      de.start;
		rc = nlfs_writer_move_block(e->w, o->ino, cno, v, o->blkoff, o->level,
					    de.blocknr, e->err);
		if (rc)
			return rc;
		(*nmoved)++;
	}
	return 0;
}

int repair_logs(struct fsck *c, struct nlfs_fs *fs, struct nlfs_writer *w, uint64_t *nfixes,
		struct nlfs_err *err)
{
	struct evac e = { .c = c, .fs = fs, .w = w, .err = err };
	uint64_t nmoved = 0, nfreed = 0;
	size_t ndat = 0;
	int rc;

	if (!c->fix.nlogs)
		return 0;
	rc = pick_segments(&e);
	if (rc || !e.nsegs)
		goto out;
	rc = find_targets(&e);
	if (!rc)
		rc = sorted_targets(&e);
	if (!rc && e.ntargets)
		rc = find_owners(&e);
	if (!rc && e.nowned < e.ntargets)
		owners_from_summaries(&e);
	if (!rc && e.nowned < e.ntargets && e.incomplete) {
		/* whose the rest is, maps that could not be walked may know:
		 * freeing them could take a block from a checkpoint */
		fsck_info(c, "left alone: %" PRIu64 " block(s) in segment(s) with damaged logs belong "
			  "to no map that could be walked; the segments stay as they are",
			  e.ntargets - e.nowned);
		goto out;
	}
	if (!rc)
		rc = move_all(&e, &nmoved, &nfreed);
	if (!rc)
		rc = repair_dat_rewrite(fs, w, &ndat, err);
	for (size_t i = 0; !rc && i < e.nsegs; i++) {
		rc = nlfs_writer_release_segment(w, e.segs[i], err);
		if (rc)
			break;
		(*nfixes)++;
		fsck_info(c, "repair: segment %" PRIu64 " holds a damaged log: given up (clean in "
			  "the repair checkpoint)", e.segs[i]);
	}
	if (!rc) {
		fsck_info(c, "repair: %" PRIu64 " block(s) moved out of %s, their virtual blocks and "
			  "DAT periods kept; %" PRIu64 " dead version(s) no checkpoint maps and no "
			  "summary names freed; the DAT (%zu blocks) written anew", nmoved,
			  e.nsegs == 1 ? "it" : "them", nfreed, ndat);
		*nfixes += nmoved + nfreed;
	}
out:
	free(e.segs);
	free(e.owners);
	free(e.tv);
	fsck_vbitmap_free(&e.target);
	return rc;
}
