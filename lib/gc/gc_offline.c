/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The offline cleaner: what the kernel's CLEAN_SEGMENTS does, on an
 * unmounted volume, as one construction of the writer per pass.
 *
 * For each victim segment, every block its logs describe is classified:
 *  - a DAT data block is live if the DAT's map still points at it; it is
 *    then rewritten (a DAT node there is written anew by the writer, as
 *    every node of a metadata file's tree in a segment it frees);
 *  - a cpfile or sufile block is live while current; it is rewritten too,
 *    unless the construction empties it (a cpfile block whose checkpoints
 *    are all deleted is dropped from the map, as rmcp drops it); the old
 *    version's DAT entry is freed by the writer with the victim;
 *  - any other block is live by nlfs_gc_block_live (latest checkpoint,
 *    protection period, snapshots).  Live blocks are copied into the new
 *    logs with the same vblocknr, only the DAT's address changes; dead
 *    ones have their vblocknr freed and the checkpoints of their period
 *    (which would lose the block) are deleted.
 * A copy whose DAT entry points elsewhere is stale and left alone.  The
 * victims become clean only in the new sufile, so a crash before the
 * superblocks are written leaves every old block where it was.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/gc.h>
#include <nlfs/repair.h>
#include "../nlfsP.h"
#include "../write/construction.h"

struct seg_walk {
	struct nlfs_writer *w;
	const struct nlfs_gc_protect *prot;
	struct nlfs_gc_stats *st;
	bool count_only;          /* live counting for the policies: change nothing */
	uint32_t live;
	/* count_only and want_copies: where the live blocks to copy are (prefetch_live) */
	bool want_copies;
	uint64_t *copies;
	size_t ncopies, capcopies;
	/* the periods [start, end) of the dead blocks freed: their checkpoints
	 * are deleted once the segment is walked, overlapping ones merged */
	struct period { uint64_t start, end; } *periods;
	size_t nperiods, capperiods;
	/* the cpfile and sufile data blocks found live, rewritten after the
	 * deletions, which may empty a cpfile block (see virtual_block) */
	struct root_block { uint64_t ino, blkoff; } *roots;
	size_t nroots, caproots;
	int rc;
	struct nlfs_err *err;
};

/* the cpfile and the sufile, which every construction writes anew */
static bool root_file(uint64_t ino)
{
	return ino == NLFS_CPFILE_INO || ino == NLFS_SUFILE_INO;
}

static int dat_block(struct seg_walk *sw, const struct nlfs_binfo_rec *bi)
{
	uint64_t ptr;
	uint8_t *blk;
	int rc;

	if (!bi->is_data)
		return 0;   /* the writer moves DAT nodes out of the segments it frees */
	rc = nlfs_writer_mdt_old_ptr(sw->w, NLFS_DAT_INO, bi->blkoff, &ptr, sw->err);
	if (rc || ptr != bi->block)
		return rc;
	sw->live++;
	if (sw->count_only)
		return 0;
	sw->st->blocks_moved++;
	return nlfs_writer_mdt_write(sw->w, NLFS_DAT_INO, bi->blkoff, &blk, sw->err);
}

static int virtual_block(struct seg_walk *sw, const struct nlfs_finfo_rec *fi,
			 const struct nlfs_binfo_rec *bi)
{
	struct nlfs_writer *w = sw->w;
	const struct nlfs_dat_entry *e;
	uint64_t start, end;
	bool live;
	int rc = nlfs_writer_dat_peek(w, bi->vblocknr, &e, sw->err);

	if (rc || !e)
		return rc;   /* already freed */
	if (nlfs_le64(e->de_blocknr) != bi->block)
		return 0;   /* a stale copy: the block lives elsewhere */
	start = nlfs_le64(e->de_start);
	end = nlfs_le64(e->de_end);
	live = nlfs_gc_block_live(sw->prot, fi->cno, start, end);
	sw->live += live;
	if (sw->count_only) {
		if (live && sw->want_copies && !root_file(fi->ino)) {
			if (NLFS_GROW(sw->copies, sw->capcopies, sw->ncopies + 1))
				return -ENOMEM;
			sw->copies[sw->ncopies++] = bi->block;
		}
		return 0;
	}
	if (!live) {
		sw->st->blocks_freed++;
		rc = nlfs_writer_free_vblock(w, bi->vblocknr, sw->err);
		if (!rc && fi->cno != 0 && start < end) {
			/* the checkpoints of its period would lose it */
			if (NLFS_GROW(sw->periods, sw->capperiods, sw->nperiods + 1))
				return -ENOMEM;
			sw->periods[sw->nperiods++] = (struct period){ start, end };
		}
		return rc;
	}
	if (root_file(fi->ino)) {
		/* Nodes: the writer writes anew those in a segment it frees.
		 * Data: written again with a new vblocknr (rewrite_roots),
		 * unless this construction emptied the block (a cpfile block
		 * whose checkpoints are all deleted).  Either way the old
		 * version's entry is ended, and freed as it lies in a victim. */
		if (!bi->is_data)
			return 0;
		if (NLFS_GROW(sw->roots, sw->caproots, sw->nroots + 1))
			return -ENOMEM;
		sw->roots[sw->nroots++] = (struct root_block){ fi->ino, bi->blkoff };
		return 0;
	}
	/* copied with its virtual block, only the DAT's address changes */
	rc = nlfs_writer_move_block(w, fi->ino, fi->cno, bi->vblocknr, bi->blkoff,
				    bi->is_data ? 0 : 1, bi->block, sw->err);
	if (!rc)
		sw->st->blocks_moved++;
	return rc;
}

static int visit(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi, void *arg)
{
	struct seg_walk *sw = arg;

	if (!bi)
		return 0;
	sw->rc = fi->ino == NLFS_DAT_INO ? dat_block(sw, bi) : virtual_block(sw, fi, bi);
	return sw->rc;   /* an error stops the walk and comes back from it */
}

/* Every log of SEGNUM up to its su_nblocks; a bad one stops the cleaning
 * of the segment, since its blocks could not be classified. */
static int walk_segment(struct seg_walk *sw, uint64_t segnum)
{
	struct nlfs_suinfo su;
	struct nlfs_fs *fs = nlfs_writer_fs(sw->w);
	int rc = nlfs_sufile_get(fs, segnum, &su, sw->err);

	if (!rc)
		rc = nlfs_segment_walk(fs, segnum, su.nblocks,
				       NLFS_SEGMENT_WALK_STRICT, NULL, visit, sw, sw->err);
	return rc ? rc : sw->rc;
}

static int by_period(const void *a, const void *b)
{
	const struct period *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The checkpoints of the freed blocks' periods, each deleted once: a
 * deletion reads every entry of its range, and the dead blocks of a
 * segment share most of their periods.  Only periods that overlap or
 * touch are merged; a checkpoint between two periods keeps what it
 * reaches. */
static int delete_periods(struct seg_walk *sw)
{
	int rc = 0;

	nlfs_sort(sw->periods, sw->nperiods, sizeof(*sw->periods), by_period);
	for (size_t i = 0, j; !rc && i < sw->nperiods; i = j) {
		uint64_t start = sw->periods[i].start, end = sw->periods[i].end, n = 0;

		for (j = i + 1; j < sw->nperiods && sw->periods[j].start <= end; j++)
			if (sw->periods[j].end > end)
				end = sw->periods[j].end;
		rc = nlfs_writer_delete_checkpoints(sw->w, start, end, &n, sw->err);
		if (rc == -EBUSY)
			rc = 0;   /* snapshots in the period stay (and were not in it) */
		sw->st->checkpoints_deleted += n;
	}
	return rc;
}

/* The segment's live cpfile and sufile data blocks, after its deletions:
 * a block they emptied is dropped (punched), not copied and counted as
 * moved.  (One a later victim's deletions empty is punched then; it is
 * not written either, only counted here.) */
static int rewrite_roots(struct seg_walk *sw)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < sw->nroots; i++) {
		bool moved;

		rc = nlfs_writer_mdt_rewrite(sw->w, sw->roots[i].ino, sw->roots[i].blkoff, &moved,
					     sw->err);
		if (!rc && moved)
			sw->st->blocks_moved++;
		else if (!rc)
			sw->st->blocks_freed++;
	}
	return rc;
}

int nlfs_writer_gc_segment(struct nlfs_writer *w, uint64_t segnum,
			   const struct nlfs_gc_protect *prot, struct nlfs_gc_stats *st,
			   struct nlfs_err *err)
{
	struct seg_walk sw = { .w = w, .prot = prot, .st = st, .err = err };
	bool done;
	int rc;

	rc = nlfs_writer_gc_begin(w, segnum, &done, err);
	if (rc || done)
		return rc;
	rc = walk_segment(&sw, segnum);
	if (!rc)
		rc = delete_periods(&sw);
	if (!rc)
		rc = rewrite_roots(&sw);
	free(sw.periods);
	free(sw.roots);
	if (!rc)
		rc = nlfs_writer_release_segment(w, segnum, err);
	if (!rc)
		st->segments++;
	return rc;
}

/* Live blocks of SEGNUM, changing nothing. */
static int segment_live(struct nlfs_writer *w, uint64_t segnum, const struct nlfs_gc_protect *prot,
			uint32_t *live, struct nlfs_err *err)
{
	struct nlfs_gc_stats st = { 0 };
	struct seg_walk sw = { .w = w, .prot = prot, .st = &st, .count_only = true, .err = err };
	int rc = walk_segment(&sw, segnum);

	*live = sw.live;
	return rc;
}

/* The oldest checkpoint created at or after LIMIT, of those up to LATEST
 * (valid, created at or after it), in *PROTCNO: a binary search on the
 * checkpoint number, creation times ascending with it (the kernel stamps
 * each checkpoint with the time of its log; nilfs-utils assumes the same),
 * so O(log checkpoints) entries are read, not every checkpoint of the
 * protection period.  [LO, TOP) holds the checkpoints not yet ruled out. */
static int find_protcno(struct nlfs_fs *fs, uint64_t limit, uint64_t latest, uint64_t *protcno,
			struct nlfs_err *err)
{
	struct nlfs_cpfile_iter *it;
	uint64_t lo = 1, top = latest;
	int rc = nlfs_cpfile_iter_open(fs, &it, err);

	*protcno = latest;
	while (!rc && lo < top) {
		uint64_t mid = lo + (top - lo) / 2, cno = mid;
		struct nlfs_cpinfo ci;
		size_t got = 0;

		/* the first valid checkpoint from MID on */
		rc = nlfs_cpfile_iter_list(it, &cno, NLFS_CPINFO_CHECKPOINTS, &ci, 1, &got, err);
		if (rc)
			break;
		if (!got || ci.cno >= top) {
			top = mid;          /* none in [MID, TOP) */
		} else if (ci.create >= limit) {
			*protcno = ci.cno;  /* and none valid in [MID, ci.cno) */
			top = mid;
		} else {
			lo = ci.cno + 1;
		}
	}
	nlfs_cpfile_iter_close(it);
	return rc;
}

int nlfs_gc_protect_load(struct nlfs_fs *fs, uint64_t limit, struct nlfs_gc_protect *p,
			 uint64_t **snaps, struct nlfs_err *err)
{
	struct nlfs_cphead h;
	struct nlfs_cpinfo cp;
	size_t n = 0, cap = 0;
	uint64_t latest = nlfs_fs_recovery(fs)->cno, c;
	int rc = nlfs_cpfile_header(fs, &h, err);

	*snaps = NULL;
	p->protcno = UINT64_MAX;
	for (c = h.snapshot_next; !rc && c; c = cp.next) {
		if (n > latest)
			return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE, "snapshot list loops");
		rc = nlfs_cpfile_info(fs, c, &cp, err);
		if (!rc && NLFS_GROW(*snaps, cap, n + 1))
			rc = -ENOMEM;
		if (!rc)
			(*snaps)[n++] = c;
	}
	/* the latest checkpoint decides whether any is protected */
	if (!rc && latest > 0) {
		rc = nlfs_cpfile_info(fs, latest, &cp, err);
		if (!rc && cp.create >= limit)
			rc = find_protcno(fs, limit, latest, &p->protcno, err);
	}
	p->snapshots = *snaps;
	p->nsnapshots = n;
	return rc;
}

/* Every live count looks entries up in the DAT: have the device read the
 * DAT's blocks in the background, a run of neighbours at a time, rather
 * than one by one as the counts come to them. */
static int prefetch_dat(struct nlfs_writer *w, struct nlfs_io *io, struct nlfs_err *err)
{
	const uint64_t *keys, *ptrs;
	uint32_t bs = nlfs_writer_geometry(w)->blocksize;
	size_t n;
	int rc = nlfs_writer_mdt_old_map(w, NLFS_DAT_INO, &keys, &ptrs, &n, err);

	for (size_t i = 0, j; !rc && i < n; i = j) {
		for (j = i + 1; j < n && ptrs[j] == ptrs[j - 1] + 1; j++)
			;
		nlfs_io_prefetch(io, ptrs[i] * bs, (uint64_t)(j - i) * bs);
	}
	return rc;
}

/* blocks of a gap between two live ones read along rather than split the run */
#define COPY_GAP_MAX 8

/* Of the victims, only the live blocks are read again (their summaries are
 * cached by the counts): have the device start on those, in disk order and
 * in runs, not on the whole segments, whose dead part is most of them and
 * would be read first. */
static int prefetch_live(struct nlfs_writer *w, struct nlfs_io *io,
			 const struct nlfs_gc_candidate *c, uint64_t n,
			 const struct nlfs_gc_protect *prot, struct nlfs_err *err)
{
	struct nlfs_gc_stats st = { 0 };
	struct seg_walk sw = { .w = w, .prot = prot, .st = &st, .count_only = true,
			       .want_copies = true, .err = err };
	uint32_t bs = nlfs_writer_geometry(w)->blocksize;
	int rc = 0;

	for (uint64_t j = 0; !rc && j < n; j++)
		rc = walk_segment(&sw, c[j].segnum);
	if (!rc) {
		nlfs_sort(sw.copies, sw.ncopies, sizeof(*sw.copies), nlfs_cmp_u64);
		for (size_t i = 0, k; i < sw.ncopies; i = k) {
			for (k = i + 1; k < sw.ncopies && sw.copies[k] - sw.copies[k - 1] <= COPY_GAP_MAX;
			     k++)
				;
			nlfs_io_prefetch(io, sw.copies[i] * bs,
					 (sw.copies[k - 1] - sw.copies[i] + 1) * bs);
		}
	}
	free(sw.copies);
	return rc;
}

/* bytes of a segment's head read ahead for its first summary */
#define SUMMARY_AHEAD 32768
/* segments ahead of the count whose first summaries are asked for */
#define SUMMARY_WINDOW 64

/* The live counts of a pass's segments, in the order it will clean them */
struct counting {
	struct nlfs_gc_candidate *c;
	uint64_t nseen;       /* segments it may clean, at C[0, NSEEN) */
	uint64_t next;        /* the first of them not counted yet */
	uint64_t ncand;       /* counted and with MINR reclaimable blocks, moved to C[0, NCAND) */
	uint64_t ahead;       /* the first whose summary is not asked for yet */
	uint32_t minr;
};

/* Count on until WANT candidates are kept or every segment is counted */
static int count_candidates(struct nlfs_writer *w, struct nlfs_io *io,
			    const struct nlfs_gc_protect *prot, struct counting *cc, uint64_t want,
			    struct nlfs_err *err)
{
	const struct nlfs_geometry *g = nlfs_writer_geometry(w);
	struct nlfs_gc_candidate *c = cc->c;
	int rc = 0;

	while (!rc && cc->ncand < want && cc->next < cc->nseen) {
		uint64_t i = cc->next++;

		/* the first log's summary of the next ones, read in the
		 * background while the counts wait on one after the other */
		for (; cc->ahead < cc->nseen && cc->ahead < i + SUMMARY_WINDOW; cc->ahead++)
			nlfs_io_prefetch(io, nlfs_seg_start(g, c[cc->ahead].segnum) * g->blocksize,
					 SUMMARY_AHEAD);
		rc = segment_live(w, c[i].segnum, prot, &c[i].live, err);
		if (!rc && c[i].nblocks >= c[i].live + cc->minr)
			c[cc->ncand++] = c[i];
	}
	return rc;
}

/* victims per construction at most: bounds the DAT blocks it changes */
#define GC_BATCH_MAX 256

/* clean segments once VICTIMS are cleaned whose copies take USED blocks */
static uint64_t clean_after(uint64_t clean, uint64_t victims, uint64_t used, uint32_t bps)
{
	uint64_t filled = (used + bps - 1) / bps;

	return clean + victims > filled ? clean + victims - filled : 0;
}

/* One pass: rank the reclaimable segments and clean N of them, or more
 * (see below), in one construction; *DONE unless another may clean more.  A
 * manual run (P->manual) takes its candidates from *START, the segments
 * reclaimable when it began (set by its first pass), and clears the ones
 * it cleans, which later logs may reuse. */
static int one_pass(struct nlfs_io *io, const struct nlfs_gc_params *p, struct nlfs_gc_stats *st,
		    bool *done, uint64_t *clean, uint8_t **start, struct nlfs_err *err)
{
	struct nlfs_fs *fs;
	struct nlfs_writer *w = NULL;
	struct nlfs_suhead sh;
	struct nlfs_gc_candidate *c = NULL;
	struct nlfs_gc_protect prot;
	const struct nlfs_geometry *g;
	struct counting cc = { 0 };
	uint64_t *snaps = NULL, nsegs, limit, chosen = 0, used = 0, room = 0;
	/* the timestamp policy ranks without the live counts: a run that
	 * stops at its target counts only as far as it cleans */
	bool more = false, lazy = p->policy == NLFS_GC_TIMESTAMP && !p->manual;
	uint32_t bps, step = p->nsegments_per_clean ? p->nsegments_per_clean : 1;
	int rc = nlfs_fs_open(io, &fs, err);

	*done = true;
	if (rc)
		return rc;
	g = nlfs_fs_geometry(fs);
	nsegs = g->nsegments;
	bps = g->blocks_per_segment;
	/* nilfs-utils' default: a tenth of a segment */
	cc.minr = p->min_reclaimable ? p->min_reclaimable : bps / 10 + 1;
	limit = p->now > p->protection_period ? p->now - p->protection_period : 0;
	rc = nlfs_sufile_header(fs, &sh, err);
	*clean = sh.ncleansegs;
	if (!rc && *clean >= p->target_clean && !p->manual)
		goto out;
	if (!rc && p->manual && !*start && !(*start = calloc(nsegs, 1)))
		rc = -ENOMEM;
	if (!rc)
		rc = nlfs_gc_protect_load(fs, limit, &prot, &snaps, err);
	/* vetted before the first pass; the later ones build on its result */
	if (p->write_damaged || st->passes)
		nlfs_fs_vet_skip(fs);
	/* and the blocks of every checkpoint the run may delete, those
	 * below the protected ones: a later pass deletes from them too */
	if (!rc)
		rc = nlfs_fs_vet(fs, err);
	if (!rc)
		rc = nlfs_fs_vet_cp_range(fs, 1, prot.protcno < nlfs_fs_recovery(fs)->cno ?
					  prot.protcno : nlfs_fs_recovery(fs)->cno, err);
	if (!rc)
		rc = nlfs_writer_open(fs, p->now, 0, &w, err);
	if (!rc && !(c = calloc(nsegs, sizeof(*c))))
		rc = -ENOMEM;
	cc.c = c;
	if (!rc)
		rc = prefetch_dat(w, io, err);
	for (uint64_t s = 0; !rc && s < nsegs; s++) {
		struct nlfs_suinfo su;
		uint32_t fl;

		rc = nlfs_sufile_get(fs, s, &su, err);
		fl = su.flags;
		if (rc || !(fl & NLFS_SEGMENT_USAGE_DIRTY) || (fl & NLFS_SEGMENT_USAGE_ERROR) ||
		    nlfs_writer_segment_busy(w, s) || su.lastmod >= limit + 1 ||
		    (p->manual && st->passes && !(*start)[s]))
			continue;
		c[cc.nseen].segnum = s;
		c[cc.nseen].lastmod = su.lastmod;
		c[cc.nseen].nblocks = su.nblocks;
		c[cc.nseen].live = NLFS_GC_LIVE_UNKNOWN;
		c[cc.nseen].held = false;   /* unmounted: nothing to recover from */
		cc.nseen++;
	}
	/* offline, the other policies can afford exact live counts of all */
	if (!rc && !lazy)
		rc = count_candidates(w, io, &prot, &cc, UINT64_MAX, err);
	for (uint64_t i = 0; !rc && p->manual && !st->passes && i < cc.ncand; i++)
		(*start)[c[i].segnum] = 1;
	if (!rc)
		nlfs_gc_rank(p->policy, c, lazy ? cc.nseen : cc.ncand, p->now, bps);
	/* blocks the new logs may fill: clean segments outside the reserve,
	 * less the two the log writer holds and two for the metadata */
	if (!rc && *clean > nlfs_writer_reserved_segments(w) + 4)
		room = (*clean - nlfs_writer_reserved_segments(w) - 4) * bps;
	/* Steps of N victims in rank order, one construction for as many as
	 * are worth it: each construction costs a flush of the device and a
	 * rewrite of the metadata, which offline only slows the run down.  The
	 * run's first step is taken as it is; later ones only while short of
	 * the target and adding to the clean segments, as another pass would
	 * (a manual run: all of its segments), and only as long as the copies
	 * fit in the clean segments outside the reserve and the construction
	 * stays of a bounded size.  Stopped by those two limits alone, the run
	 * goes on with another construction. */
	for (;;) {
		uint64_t n, need = 0;

		if (!rc && lazy)
			rc = count_candidates(w, io, &prot, &cc, chosen + step, err);
		if (rc || chosen >= cc.ncand)
			break;
		n = cc.ncand - chosen < step ? cc.ncand - chosen : step;
		for (uint64_t j = chosen; j < chosen + n; j++)
			/* the copies, summaries, and the DAT blocks that change with
			 * the entries of the blocks moved and freed */
			need += c[j].live + c[j].nblocks / 64 + 2;
		if (chosen || st->passes) {
			uint64_t before = clean_after(*clean, chosen, used, bps);

			if (!p->manual && (before >= p->target_clean ||
					   clean_after(*clean, chosen + n, used + need, bps) <= before))
				break;
			if (used + need > room || chosen + n > GC_BATCH_MAX) {
				more = true;
				break;
			}
		}
		used += need;
		chosen += n;
	}
	/* the reclaimable segments: all, or those a lazy pass counted */
	if (!rc && !st->passes)
		st->segments_planned = cc.ncand;
	if (!rc)
		rc = prefetch_live(w, io, c, chosen, &prot, err);
	for (uint64_t j = 0; !rc && j < chosen; j++) {
		/* every log read whole first: the walk changes the writer as
		 * it goes, so a damaged log must be found before it */
		rc = nlfs_segment_walk(fs, c[j].segnum, c[j].nblocks, NLFS_SEGMENT_WALK_DATASUM,
				       NULL, NULL, NULL, err);
		if (rc == -NLFS_EBADCRC) {
			if (!st->segments_damaged++)
				st->first_damaged = c[j].segnum;
			nlfs_err_clear(err);
			rc = 0;
			continue;
		}
		if (!rc)
			rc = nlfs_writer_gc_segment(w, c[j].segnum, &prot, st, err);
		if (p->manual)
			(*start)[c[j].segnum] = 0;
		if (!rc && p->progress)
			p->progress(p->progress_arg, st->segments, st->segments_planned);
	}
	if (!rc && chosen) {
		rc = nlfs_writer_commit(w, err);
		if (!rc) {
			st->passes++;
			*done = !more;
		}
	}
out:
	nlfs_writer_free(w);
	free(c);
	free(snaps);
	nlfs_fs_release(fs);
	return rc;
}

int nlfs_gc_offline(struct nlfs_io *io, const struct nlfs_gc_params *p, struct nlfs_gc_stats *st,
		    struct nlfs_err *err)
{
	uint64_t clean = 0, last = 0;
	uint8_t *start = NULL;
	bool done = false;
	int rc = 0;

	memset(st, 0, sizeof(*st));
	for (uint64_t pass = 0; !rc && !done && pass < p->max_passes; pass++) {
		rc = one_pass(io, p, st, &done, &clean, &start, err);
		/* a pass that freed no segment means what is left is live: stop
		 * (a manual run ends with its list of segments) */
		if (pass > 0 && clean <= last && !p->manual)
			break;
		last = clean;
	}
	free(start);
	return rc;
}
