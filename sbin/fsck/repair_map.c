/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * repair_map.c - DAT entries and block maps set right from the segment
 * summaries, inside repair.c's construction.
 *
 * Every block a log holds is named by its summary: inode, checkpoint,
 * file offset and virtual block.  That is what the repairs trust:
 *   - a suspect DAT entry (no address, outside the segments in use, a
 *     block no summary claims for it, an impossible period, its bitmap
 *     bit lost) takes the block of the newest summary record claiming
 *     that virtual block; one no summary claims and no file needs is freed;
 *   - a damaged block map is rebuilt from its entries that hold up (a
 *     summary names this inode, offset and virtual block, and the DAT maps
 *     that virtual block to that very block, alive in the latest
 *     checkpoint), and for every other offset from the newest summary
 *     record of this inode whose block is alive there: what a damaged node
 *     hid comes back.  The rest is reported lost, by inode, path and block
 *     range.  Data blocks stay where they are; only new nodes are written.
 * The latest checkpoint is what is rebuilt: older checkpoints and
 * snapshots keep what they map, and no DAT entry a file of the latest
 * checkpoint maps is ended or freed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/repair.h>
#include "fsck.h"
#include "array.h"

/* one block as a summary describes it */
struct srec {
	uint64_t ino, cno, blkoff, vbn, block, seq;
	bool data;
};

struct mapfix {
	struct fsck *c;
	struct nlfs_fs *fs;
	struct nlfs_writer *w;
	struct nlfs_err *err;
	uint64_t nfixes;
	uint64_t *inos;               /* files to rebuild, sorted */
	size_t ninos;
	struct fsck_vbitmap suspect;  /* DAT entries to set */
	struct srec *recs;            /* sorted by (vbn, seq, block) */
	size_t nrecs, caprecs;
	struct srec *byfile;          /* the same, by (ino, data first, blkoff, seq, block) */
	struct fsck_vbitmap taken;    /* virtual blocks the new map of the file uses */
	struct fsck_vbitmap mapped;   /* ... of every rebuilt file */
	/* the file being rebuilt */
	uint64_t *keys, *ptrs;
	size_t nkeys, capkeys, capptrs;
};

static void said(struct mapfix *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void said(struct mapfix *m, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	m->nfixes++;
	fsck_info(m->c, "repair: %s", msg);
}

/* is BLK in a segment marked free that DAT entries point into? */
static bool seg_to_revive(const struct fsck *c, uint64_t blk)
{
	uint64_t seg = blk / c->g->blocks_per_segment;

	for (size_t i = 0; i < c->fix.nseg_live; i++)
		if (c->fix.seg_live[i] == seg)
			return true;
	return false;
}

static bool rebuilding(const struct mapfix *m, uint64_t ino)
{
	return m->ninos && bsearch(&ino, m->inos, m->ninos, sizeof(*m->inos), nlfs_cmp_u64) != NULL;
}

/* ---- the summaries ---- */

static int keep_rec(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi, void *arg)
{
	struct mapfix *m = arg;
	struct fsck *c = m->c;

	if (!bi || fi->ino == NLFS_DAT_INO || !bi->vblocknr)
		return 0;
	if (fsck_bit_test(&c->unverified, bi->block))
		return 0;   /* a summary the check could not trust */
	if (!rebuilding(m, fi->ino) && !fsck_vbit_test(&m->suspect, bi->vblocknr))
		return 0;
	if (nlfs_grow((void **)&m->recs, &m->caprecs, m->nrecs + 1, sizeof(*m->recs)))
		return -ENOMEM;
	m->recs[m->nrecs++] = (struct srec){
		.ino = fi->ino, .cno = fi->cno, .blkoff = bi->blkoff, .vbn = bi->vblocknr,
		.block = bi->block, .seq = 0, .data = bi->is_data,
	};
	return 0;
}

static int cmp_by_vbn(const void *a, const void *b)
{
	const struct srec *x = a, *y = b;

	if (x->vbn != y->vbn)
		return x->vbn < y->vbn ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->block > y->block) - (x->block < y->block);
}

static int cmp_by_file(const void *a, const void *b)
{
	const struct srec *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->data != y->data)
		return x->data ? -1 : 1;
	if (x->blkoff != y->blkoff)
		return x->blkoff < y->blkoff ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->block > y->block) - (x->block < y->block);
}

/* every trusted log of every segment in use, the records that matter kept */
static int index_summaries(struct mapfix *m)
{
	struct fsck *c = m->c;
	const struct nlfs_geometry *g = c->g;

	for (uint64_t seg = 0; seg < g->nsegments; seg++) {
		const struct fsck_seg *s = &c->segs[seg];
		uint64_t start = nlfs_seg_start(g, seg), p = start, end = start + s->su_nblocks;

		if (seg_to_revive(c, start))
			end = nlfs_seg_end(g, seg) + 1;   /* up to its last valid log */
		else if (!(s->su_flags & NLFS_SEGMENT_USAGE_DIRTY) || !s->nlogs)
			continue;
		while (p < end) {
			struct nlfs_log log;
			struct nlfs_err lerr;
			void *summary = NULL;
			size_t first = m->nrecs;
			int rc = nlfs_log_read(m->fs, p, &log, &summary, NLFS_LOG_READ_SUMMARY_ONLY,
					       &lerr);

			if (rc || !log.sumsum_ok || !log.nblocks) {
				free(summary);
				break;   /* pass 3 told; the rest of the segment is not trusted */
			}
			rc = nlfs_summary_walk(&log, summary, g->blocksize, keep_rec, m, &lerr);
			free(summary);
			if (rc == -ENOMEM)
				return rc;
			if (rc)
				m->nrecs = first;   /* records that do not add up are not used */
			for (size_t i = first; i < m->nrecs; i++)
				m->recs[i].seq = s->seq;
			p += log.nblocks;
		}
	}
	if (m->nrecs > 1)
		nlfs_sort(m->recs, m->nrecs, sizeof(*m->recs), cmp_by_vbn);
	m->byfile = malloc((m->nrecs ? m->nrecs : 1) * sizeof(*m->byfile));
	if (!m->byfile)
		return -ENOMEM;
	if (m->nrecs)
		memcpy(m->byfile, m->recs, m->nrecs * sizeof(*m->byfile));
	if (m->nrecs > 1)
		nlfs_sort(m->byfile, m->nrecs, sizeof(*m->byfile), cmp_by_file);
	return 0;
}

/* [*lo, *hi) of the records of virtual block VBN, oldest first */
static void recs_of_vbn(const struct mapfix *m, uint64_t vbn, size_t *lo, size_t *hi)
{
	size_t a = 0, b = m->nrecs;

	while (a < b) {
		size_t mid = (a + b) / 2;

		if (m->recs[mid].vbn < vbn)
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	while (a < m->nrecs && m->recs[a].vbn == vbn)
		a++;
	*hi = a;
}

/* [*lo, *hi) in byfile of the data records of (INO, BLKOFF), oldest first */
static void recs_of_block(const struct mapfix *m, uint64_t ino, uint64_t blkoff, size_t *lo,
			  size_t *hi)
{
	size_t a = 0, b = m->nrecs;

	while (a < b) {
		size_t mid = (a + b) / 2;
		const struct srec *r = &m->byfile[mid];

		if (r->ino < ino || (r->ino == ino && r->data && r->blkoff < blkoff))
			a = mid + 1;
		else
			b = mid;
	}
	*lo = a;
	while (a < m->nrecs) {
		const struct srec *r = &m->byfile[a];

		if (r->ino != ino || !r->data || r->blkoff != blkoff)
			break;
		a++;
	}
	*hi = a;
}

/* Is BLK in a segment in use?  Not only below its usage count: a count
 * one short (a sufile repair's business) must not make a block that is
 * there look gone; nor a segment marked free by mistake, which the sufile
 * repair (repair_meta.c) takes back when its logs hold what DAT entries
 * point to. */
static bool in_dirty_segment(const struct fsck *c, uint64_t blk)
{
	const struct nlfs_geometry *g = c->g;
	uint64_t seg = blk / g->blocks_per_segment;

	return blk >= g->first_data_block && seg < g->nsegments &&
	       ((c->segs[seg].su_flags & NLFS_SEGMENT_USAGE_DIRTY) || seg_to_revive(c, blk));
}

/* the newest record claiming VBN at a block of a segment in use */
static const struct srec *claim_of(const struct mapfix *m, uint64_t vbn)
{
	size_t lo, hi;

	recs_of_vbn(m, vbn, &lo, &hi);
	while (hi > lo) {
		const struct srec *r = &m->recs[--hi];

		if (in_dirty_segment(m->c, r->block))
			return r;
	}
	return NULL;
}

/* ---- DAT entries ---- */

static bool period_possible(const struct fsck *c, uint64_t start, uint64_t end)
{
	return start >= 1 && start <= end && start <= c->latest_cno &&
	       (end == NLFS_CNO_MAX || end <= c->latest_cno);
}

/* is BLK in a segment the check found a damaged summary in? */
static bool log_noted(const struct fsck *c, uint64_t blk)
{
	uint64_t seg = blk / c->g->blocks_per_segment;

	for (size_t i = 0; i < c->fix.nlogs; i++)
		if (c->fix.logs[i].seg == seg)
			return true;
	return false;
}

/* "block B, period [S, E)" */
static void describe(char *buf, size_t len, uint64_t blk, uint64_t start, uint64_t end)
{
	if (end == NLFS_CNO_MAX)
		snprintf(buf, len, "block %" PRIu64 ", period [%" PRIu64 ", open)", blk, start);
	else
		snprintf(buf, len, "block %" PRIu64 ", period [%" PRIu64 ", %" PRIu64 ")", blk, start,
			 end);
}

/* a DAT entry as the repair found it */
struct dat_now {
	uint64_t blk, start, end;
	bool alloc;                /* its bitmap bit */
	bool used;                 /* the latest checkpoint maps it */
};

/* entry VBN (N), which no summary claims: freed, its period mended, or
 * left alone */
static int fix_unclaimed(struct mapfix *m, uint64_t vbn, const struct dat_now *n)
{
	struct fsck *c = m->c;
	uint64_t nstart, nend;

	if (!n->alloc)
		return 0;   /* the maps using it are rebuilt without it */
	if (n->blk && !in_dirty_segment(c, n->blk) && seg_to_revive(c, n->blk))
		return 0;   /* repair_meta.c may take its segment back into use */
	if (!n->blk || !in_dirty_segment(c, n->blk)) {
		if (n->used) {
			said(m, "DAT: virtual block %" PRIu64 " freed: it has no block in a segment "
			     "in use, and no summary names one; the file of the latest checkpoint "
			     "that maps it loses that block (below)", vbn);
		} else {
			said(m, "DAT: virtual block %" PRIu64 " freed: it has no block in a segment "
			     "in use, and no summary names one", vbn);
		}
		return nlfs_writer_free_vblock(m->w, vbn, m->err);
	}
	if (!period_possible(c, n->start, n->end)) {
		nstart = 1;
		nend = n->used ? NLFS_CNO_MAX : nlfs_writer_cno(m->w);
		said(m, "DAT: virtual block %" PRIu64 " (block %" PRIu64 "): its impossible period "
		     "is now [%" PRIu64 ", %s), which keeps it for every checkpoint that may use it",
		     vbn, n->blk, nstart, n->used ? "open" : "the repair's checkpoint");
		return nlfs_writer_set_vblock(m->w, vbn, n->blk, nstart, nend, m->err);
	}
	if (log_noted(c, n->blk))
		return 0;   /* its segment's summary is damaged: repair_log.c moves it */
	fsck_info(c, "left alone: DAT: virtual block %" PRIu64 " (block %" PRIu64 "): no segment "
		  "summary names a block for it, and %s", vbn, n->blk,
		  n->used ? "a file of the latest checkpoint uses it" :
			    "an older checkpoint or a snapshot may use it");
	return 0;
}

/* entry VBN (N) set to what summary record R says */
static int fix_claimed(struct mapfix *m, uint64_t vbn, const struct dat_now *n,
		       const struct srec *r)
{
	struct fsck *c = m->c;
	uint64_t nblk = r->block, nstart, nend;
	char was[128], now[128];

	if ((!n->alloc || nblk != n->blk) && fsck_bit_test(&c->datphys, nblk)) {
		/* another entry, or the DAT itself, has that block: the
		 * summary is the damaged side, and the log it is in goes */
		fsck_info(c, "left alone: DAT: virtual block %" PRIu64 ": the summary of inode %"
			  PRIu64 " (file block %" PRIu64 ") puts it at block %" PRIu64 ", which "
			  "another DAT entry or a DAT block holds", vbn, r->ino, r->blkoff, nblk);
		return 0;
	}
	if (n->alloc && period_possible(c, n->start, n->end)) {
		nstart = n->start;
		nend = n->end;
	} else if (!n->alloc && period_possible(c, n->start, n->end) && n->blk == nblk) {
		/* only its bitmap bit was lost */
		nstart = n->start;
		nend = n->used ? NLFS_CNO_MAX : n->end;
	} else {
		/* from the checkpoint its log was written in; alive on if the
		 * latest checkpoint maps it, else up to the repair's checkpoint,
		 * which keeps it for every older checkpoint and snapshot */
		nstart = r->cno >= 1 && r->cno <= c->latest_cno ? r->cno : 1;
		if (n->alloc && (n->end == NLFS_CNO_MAX || (n->end >= nstart && n->end <= c->latest_cno)))
			nend = n->end;   /* the start was the wrong half */
		else
			nend = nlfs_writer_cno(m->w);
		if (n->used)
			nend = NLFS_CNO_MAX;
	}
	if (n->alloc && nblk == n->blk && nstart == n->start && nend == n->end)
		return 0;
	if (n->alloc)
		describe(was, sizeof(was), n->blk, n->start, n->end);
	else
		snprintf(was, sizeof(was), "not allocated");
	describe(now, sizeof(now), nblk, nstart, nend);
	said(m, "DAT: virtual block %" PRIu64 ": %s -> %s, as the summary of inode %" PRIu64
	     " (file block %" PRIu64 ") says", vbn, was, now, r->ino, r->blkoff);
	return nlfs_writer_set_vblock(m->w, vbn, nblk, nstart, nend, m->err);
}

static int fix_entry(struct mapfix *m, uint64_t vbn)
{
	struct fsck *c = m->c;
	const struct srec *r;
	struct nlfs_datinfo e;
	struct dat_now n = { .used = fsck_vbit_test(&c->vref, vbn) };
	int rc = nlfs_writer_peek_vblock(m->w, vbn, &e, &n.alloc, m->err);

	if (rc)
		return rc;
	n.blk = e.blocknr;
	n.start = e.start;
	n.end = e.end;
	if (vbn == 0) {
		/* reserved: all zeros, in use */
		if (n.alloc && !n.blk && !n.start && !n.end)
			return 0;
		said(m, "DAT: entry 0 reset (it is reserved)");
		return nlfs_writer_set_vblock(m->w, 0, 0, 0, 0, m->err);
	}
	r = claim_of(m, vbn);
	if (r) {
		/* a summary that names the block the entry has: that one stays */
		size_t lo, hi;

		recs_of_vbn(m, vbn, &lo, &hi);
		for (size_t i = lo; i < hi; i++)
			if (m->recs[i].block == n.blk && in_dirty_segment(c, n.blk))
				r = &m->recs[i];
	}
	return r ? fix_claimed(m, vbn, &n, r) : fix_unclaimed(m, vbn, &n);
}

/* ---- block maps ---- */

struct salvaged {
	uint64_t *keys, *ptrs, *nodes;
	size_t n, capk, capp, nnodes, capn;
};

static int salvage_cb(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	struct salvaged *s = arg;

	if (level) {
		if (nlfs_grow((void **)&s->nodes, &s->capn, s->nnodes + 1, sizeof(*s->nodes)))
			return -ENOMEM;
		s->nodes[s->nnodes++] = ptr;
		return 0;
	}
	if (nlfs_grow((void **)&s->keys, &s->capk, s->n + 1, sizeof(*s->keys)) ||
	    nlfs_grow((void **)&s->ptrs, &s->capp, s->n + 1, sizeof(*s->ptrs)))
		return -ENOMEM;
	s->keys[s->n] = key;
	s->ptrs[s->n++] = ptr;
	return 0;
}

enum holds { HOLDS_NO, HOLDS_YES, HOLDS_REOPEN, HOLDS_REVIVE };

/* Does (KEY -> VBN) of inode INO hold up?  FROM_MAP: the map has it (an
 * ended or unallocated entry it uses may be brought back then). */
static int holds(struct mapfix *m, uint64_t ino, uint64_t key, uint64_t vbn, bool from_map,
		 enum holds *out, struct nlfs_datinfo *ep)
{
	struct fsck *c = m->c;
	struct nlfs_datinfo e;
	uint64_t blk, start, end;
	bool alloc, named = false;
	size_t lo, hi;
	int rc;

	*out = HOLDS_NO;
	if (vbn == 0)
		return 0;
	rc = nlfs_writer_peek_vblock(m->w, vbn, &e, &alloc, m->err);
	if (rc)
		return rc;
	*ep = e;
	blk = e.blocknr;
	start = e.start;
	end = e.end;
	if (!blk || !in_dirty_segment(c, blk))
		return 0;
	recs_of_block(m, ino, key, &lo, &hi);
	for (size_t i = lo; i < hi; i++) {
		const struct srec *r = &m->byfile[i];

		if (r->vbn == vbn && r->block == blk)
			named = true;
	}
	if (!named && !(from_map && alloc && fsck_bit_test(&c->unverified, blk)))
		return 0;
	if (!period_possible(c, start, end))
		return 0;
	if (!alloc) {
		if (from_map)
			*out = HOLDS_REVIVE;
		return 0;
	}
	/* the new checkpoint maps it: its entry must stay open */
	if (start <= c->latest_cno && end == NLFS_CNO_MAX)
		*out = HOLDS_YES;
	else if (from_map && start <= c->latest_cno)
		*out = HOLDS_REOPEN;
	return 0;
}

static bool in_sorted(const uint64_t *v, size_t n, uint64_t x)
{
	return n && bsearch(&x, v, n, sizeof(*v), nlfs_cmp_u64) != NULL;
}

static int push_entry(struct mapfix *m, uint64_t key, uint64_t ptr)
{
	if (nlfs_grow((void **)&m->keys, &m->capkeys, m->nkeys + 1, sizeof(*m->keys)) ||
	    nlfs_grow((void **)&m->ptrs, &m->capptrs, m->nkeys + 1, sizeof(*m->ptrs)))
		return -ENOMEM;
	m->keys[m->nkeys] = key;
	m->ptrs[m->nkeys++] = ptr;
	fsck_vbit_set(&m->taken, ptr);
	fsck_vbit_set(&m->mapped, ptr);
	return m->taken.oom || m->mapped.oom ? -ENOMEM : 0;
}

/* the offsets of the old map the new one lacks, as ranges (both sorted) */
static void report_lost(struct mapfix *m, const char *what, const uint64_t *old, size_t nold)
{
	for (size_t i = 0; i < nold;) {
		size_t j = i;

		if (in_sorted(m->keys, m->nkeys, old[i]) || (i && old[i] == old[i - 1])) {
			i++;
			continue;
		}
		while (j + 1 < nold && old[j + 1] <= old[j] + 1 && !in_sorted(m->keys, m->nkeys, old[j + 1]))
			j++;
		if (old[j] == old[i])
			fsck_info(m->c, "repair: %s: file block %" PRIu64 " lost in checkpoint %" PRIu64
				  " (no version of it holds up; now a hole)", what, old[i], m->c->latest_cno);
		else
			fsck_info(m->c, "repair: %s: file blocks %" PRIu64 "-%" PRIu64 " lost in checkpoint %"
				  PRIu64 " (no version of them holds up; now holes)", what, old[i], old[j],
				  m->c->latest_cno);
		i = j + 1;
	}
}

/* The old versions of this file the new map does not use (its old nodes
 * above all): ended, as a rewrite ends them, so they are no leak.  One
 * that another file of the latest checkpoint maps is left alone. */
static int end_old(struct mapfix *m, uint64_t ino, const uint64_t *oldp, size_t nold)
{
	uint64_t nended = 0;

	for (size_t i = 0; i < m->nrecs; i++) {
		const struct srec *r = &m->recs[i];
		struct nlfs_datinfo e;
		bool alloc;
		int rc;

		if (r->ino != ino || fsck_vbit_test(&m->taken, r->vbn))
			continue;
		if (fsck_vbit_test(&m->c->vref, r->vbn) && !in_sorted(oldp, nold, r->vbn))
			continue;
		rc = nlfs_writer_peek_vblock(m->w, r->vbn, &e, &alloc, m->err);
		if (rc)
			return rc;
		if (!alloc || e.end != NLFS_CNO_MAX || e.blocknr != r->block)
			continue;
		rc = nlfs_writer_end_vblock(m->w, r->vbn, m->err);
		if (rc)
			return rc;
		nended++;
	}
	if (nended)
		fsck_verbose(m->c, "repair: inode %" PRIu64 ": %" PRIu64 " old block version(s) "
			     "end at checkpoint %" PRIu64, ino, nended, nlfs_writer_cno(m->w));
	return 0;
}

/* a candidate for one offset of the new map */
struct cand {
	uint64_t key, vbn, seq, block;   /* seq, block: where its summary is */
	bool from_map;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->from_map != y->from_map)
		return x->from_map ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? 1 : -1;   /* newest first */
	return (x->block < y->block) - (x->block > y->block);
}

/* per offset of MF's file, from the candidates CV[NCV] (sorted): the old
 * map's entry where it holds up, else the newest version the summaries
 * know that is alive in the latest checkpoint; *FROM_SUM counts those */
static int choose_entries(struct mapfix *m, const struct fsck_map_fix *mf, const struct cand *cv,
			  size_t ncv, uint64_t *from_sum)
{
	int rc = 0;

	for (size_t i = 0; i < ncv && !rc; i++) {
		struct nlfs_datinfo e;
		enum holds h;

		if ((m->nkeys && m->keys[m->nkeys - 1] == cv[i].key) ||
		    fsck_vbit_test(&m->taken, cv[i].vbn))
			continue;
		rc = holds(m, mf->ino, cv[i].key, cv[i].vbn, cv[i].from_map, &h, &e);
		if (rc || h == HOLDS_NO)
			continue;
		if (h == HOLDS_REOPEN || h == HOLDS_REVIVE) {
			/* the file maps it, its summary names it there and its
			 * segment still holds it: the entry was ended or freed
			 * by mistake */
			rc = nlfs_writer_set_vblock(m->w, cv[i].vbn, e.blocknr,
						    e.start, NLFS_CNO_MAX, m->err);
			if (rc)
				break;
			said(m, "DAT: virtual block %" PRIu64 " (%s, file block %" PRIu64 ") %s: the "
			     "file still maps it", cv[i].vbn, mf->what, cv[i].key,
			     h == HOLDS_REOPEN ? "alive again" : "marked in use again");
		}
		if (!cv[i].from_map)
			(*from_sum)++;
		rc = push_entry(m, cv[i].key, cv[i].vbn);
	}
	return rc;
}

/* MF's file F remapped to the entries chosen, unless they are its map S
 * as it is (NBAD nodes were damaged); its old blocks ended, through OLDP
 * (room for all of S's) */
static int remap_file(struct mapfix *m, const struct fsck_map_fix *mf, const struct nlfs_file *f,
		      struct salvaged *s, unsigned nbad, uint64_t *oldp, uint64_t from_sum)
{
	uint32_t units = m->c->g->blocksize / 512;
	size_t nold = 0;
	uint8_t flags;
	bool same;
	int rc;

	memcpy(&flags, f->inode.i_bmap, 1);
	same = !nbad && s->n == m->nkeys && (flags == 0 || flags == NLFS_BMAP_LARGE);
	for (size_t i = 0; same && i < s->n; i++)
		same = s->keys[i] == m->keys[i] && s->ptrs[i] == m->ptrs[i];
	if (same)
		return 0;   /* the map holds up as it is (its DAT entries were the problem) */
	if (s->n > 1)
		nlfs_sort(s->keys, s->n, sizeof(*s->keys), nlfs_cmp_u64);
	report_lost(m, mf->what, s->keys, s->n);
	for (size_t i = 0; i < s->n; i++)
		oldp[nold++] = s->ptrs[i];
	for (size_t i = 0; i < s->nnodes; i++)
		oldp[nold++] = s->nodes[i];
	if (nold > 1)
		nlfs_sort(oldp, nold, sizeof(*oldp), nlfs_cmp_u64);
	rc = nlfs_writer_file_remap(m->w, mf->ino, m->keys, m->ptrs, m->nkeys,
				    nlfs_le64(f->inode.i_blocks) / units, m->err);
	if (!rc)
		rc = end_old(m, mf->ino, oldp, nold);
	if (rc)
		return rc;
	if (from_sum)
		said(m, "%s: block map rebuilt: %zu block(s), %" PRIu64 " of them found through the "
		     "segment summaries%s", mf->what, m->nkeys, from_sum,
		     nbad ? " (a damaged node hid them)" : "");
	else
		said(m, "%s: block map rebuilt: %zu block(s)", mf->what, m->nkeys);
	return 0;
}

static int rebuild(struct mapfix *m, const struct fsck_map_fix *mf)
{
	struct fsck *c = m->c;
	struct salvaged s = { 0 };
	struct nlfs_file f = { .ino = mf->ino, .cno = c->latest_cno };
	uint64_t from_sum = 0, *oldp = NULL;
	struct cand *cv = NULL;
	size_t ncv = 0, lo, hi;
	unsigned nbad = 0;
	int rc;

	m->nkeys = 0;
	rc = nlfs_writer_peek_inode(m->w, mf->ino, &f.inode, m->err);
	if (rc == -ENOENT)
		return 0;   /* not in use in the new checkpoint: nothing to map */
	if (!rc)
		rc = nlfs_bmap_salvage(m->fs, &f, salvage_cb, &s, &nbad);
	if (rc)
		goto out;
	recs_of_block(m, mf->ino, 0, &lo, &hi);
	for (hi = lo; hi < m->nrecs && m->byfile[hi].ino == mf->ino && m->byfile[hi].data; hi++)
		;
	cv = malloc((s.n + hi - lo + 1) * sizeof(*cv));
	oldp = malloc((s.n + s.nnodes + 1) * sizeof(*oldp));
	if (!cv || !oldp) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < s.n; i++)
		cv[ncv++] = (struct cand){ s.keys[i], s.ptrs[i], UINT64_MAX, 0, true };
	for (size_t i = lo; i < hi; i++)
		cv[ncv++] = (struct cand){ m->byfile[i].blkoff, m->byfile[i].vbn, m->byfile[i].seq,
					   m->byfile[i].block, false };
	if (ncv > 1)
		nlfs_sort(cv, ncv, sizeof(*cv), cmp_cand);
	rc = choose_entries(m, mf, cv, ncv, &from_sum);
	if (!rc)
		rc = remap_file(m, mf, &f, &s, nbad, oldp, from_sum);
out:
	for (size_t i = 0; i < m->nkeys; i++)
		fsck_vbit_clear(&m->taken, m->ptrs[i]);
	free(cv);
	free(oldp);
	free(s.keys);
	free(s.ptrs);
	free(s.nodes);
	return rc;
}

/* ---- the DAT's own blocks ---- */

static int rewrite_dat(struct mapfix *m)
{
	size_t n;
	int rc = repair_dat_rewrite(m->fs, m->w, &n, m->err);

	if (!rc)
		said(m, "DAT: its %zu block(s) written anew, each described by the new log's summary", n);
	return rc;
}

/* ---- the repair ---- */

void repair_mdt_inodes(struct fsck *c, struct nlfs_writer *w, uint64_t *nfixes)
{
	uint64_t n = 0;

	if (!c->pr_count[PR_MDT_INODE])
		return;
	nlfs_writer_fix_mdt_inodes(w, &n);
	if (!n)
		return;
	*nfixes += n;
	fsck_info(c, "repair: super root: the DAT's, cpfile's and sufile's inodes made regular files "
		  "with a link (%" PRIu64 " field(s))", n);
}

int repair_map_dat(struct fsck *c, struct nlfs_fs *fs, struct nlfs_writer *w, uint64_t *nfixes,
		   struct nlfs_err *err)
{
	struct mapfix m = { .c = c, .fs = fs, .w = w, .err = err };
	uint64_t *v = c->fix.vblocks;
	size_t nv = c->fix.nvblocks;
	int rc;

	if (!c->fix.nmaps && !nv && !c->fix.dat_rewrite)
		return 0;
	m.inos = malloc((c->fix.nmaps ? c->fix.nmaps : 1) * sizeof(*m.inos));
	if (!m.inos)
		return -ENOMEM;
	for (size_t i = 0; i < c->fix.nmaps; i++)
		m.inos[m.ninos++] = c->fix.maps[i].ino;
	if (m.ninos > 1)
		nlfs_sort(m.inos, m.ninos, sizeof(*m.inos), nlfs_cmp_u64);
	if (nv > 1)
		nlfs_sort(v, nv, sizeof(*v), nlfs_cmp_u64);
	for (size_t i = 0; i < nv; i++)
		fsck_vbit_set(&m.suspect, v[i]);
	rc = m.suspect.oom ? -ENOMEM : 0;
	if (!rc)
		rc = index_summaries(&m);
	if (!rc && c->fix.dat_rewrite)
		rc = rewrite_dat(&m);
	for (size_t i = 0; !rc && i < nv; i++)
		if (i == 0 || v[i] != v[i - 1])
			rc = fix_entry(&m, v[i]);
	for (size_t i = 0; !rc && i < c->fix.nmaps; i++) {
		if (i && c->fix.maps[i].ino == c->fix.maps[i - 1].ino)
			continue;
		rc = rebuild(&m, &c->fix.maps[i]);
	}
	/* what a damaged map hid looked unused: it is no leak */
	if (!rc && !fsck_test_break("end-leaks")) {
		size_t n = 0;

		for (size_t i = 0; i < c->fix.nleaks; i++)
			if (!fsck_vbit_test(&m.mapped, c->fix.leaks[i]))
				c->fix.leaks[n++] = c->fix.leaks[i];
		c->fix.nleaks = n;
	}
	*nfixes += m.nfixes;
	fsck_vbitmap_free(&m.suspect);
	fsck_vbitmap_free(&m.mapped);
	fsck_vbitmap_free(&m.taken);
	free(m.inos);
	free(m.recs);
	free(m.byfile);
	free(m.keys);
	free(m.ptrs);
	return rc;
}
