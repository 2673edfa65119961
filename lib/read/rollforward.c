/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Roll-forward, as the kernel's mount does it on a volume that was not
 * cleanly unmounted: after the last super root, each complete logical
 * segment of data-sync logs (LOGBGN .. LOGEND, every log SYNDT) holds file
 * blocks that fdatasync made durable without a checkpoint.  The kernel
 * copies them into the files of the latest checkpoint; the reader shows
 * the latest checkpoint with them in place, so it sees what a mount would.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

struct rf_scan {
	struct nlfs_rf_block *pending;
	size_t npending, cap;
	uint64_t seqno;
	int rc;
};

static int collect(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi, void *arg)
{
	struct rf_scan *s = arg;

	if (!bi || !bi->is_data || fi->ino < NLFS_ROOT_INO || fi->ino == NLFS_DAT_INO ||
	    fi->ino == NLFS_CPFILE_INO || fi->ino == NLFS_SUFILE_INO || fi->ino == NLFS_IFILE_INO)
		return 0;
	if (NLFS_GROW(s->pending, s->cap, s->npending + 1)) {
		s->rc = -ENOMEM;
		return 1;
	}
	s->pending[s->npending++] = (struct nlfs_rf_block){ fi->ino, bi->blkoff, bi->block,
							     s->seqno++ };
	return 0;
}

static int cmp_rf(const void *a, const void *b)
{
	const struct nlfs_rf_block *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->blkoff != y->blkoff)
		return x->blkoff < y->blkoff ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* keep the newest copy of each (ino, blkoff) */
static void settle(struct nlfs_fs *fs)
{
	size_t n = 0;

	if (fs->nrf > 1)
		nlfs_sort(fs->rf, fs->nrf, sizeof(*fs->rf), cmp_rf);
	for (size_t i = 0; i < fs->nrf; i++) {
		if (n && fs->rf[n - 1].ino == fs->rf[i].ino && fs->rf[n - 1].blkoff == fs->rf[i].blkoff)
			n--;
		fs->rf[n++] = fs->rf[i];
	}
	fs->nrf = n;
}

/* The logs after the latest super root, as the kernel's roll-forward
 * walks them: on in the segment while the logs are valid and carry the
 * segment's sequence number, then on to the segment the last one named.
 * VISIT gets each log and its summary; non-zero stops the walk (negative:
 * an error). */
typedef int (*rf_visit)(void *arg, const struct nlfs_log *log, const void *summary,
			uint64_t seg);
static int rf_walk(struct nlfs_fs *fs, rf_visit visit, void *arg)
{
	const struct nlfs_geometry *g = &fs->geo;
	uint64_t pseg = fs->rec.next_pseg, seq = fs->rec.next_seq;
	uint64_t seg = pseg / g->blocks_per_segment, nextseg = seg, budget = g->nsegments + 1;
	bool seen_in_seg = false;
	int rc = 0;

	while (budget && !rc) {
		struct nlfs_log log;
		void *summary = NULL;

		if (pseg + 1 > nlfs_seg_end(g, seg) ||
		    nlfs_log_read(fs, pseg, &log, &summary, 0, NULL) || log.seq != seq ||
		    !log.datasum_ok) {
			free(summary);
			/* the next segment of the chain, while logs keep coming */
			if (!seen_in_seg || nextseg == seg)
				break;
			seen_in_seg = false;
			seg = nextseg;
			seq++;
			budget--;
			pseg = nlfs_seg_start(g, seg);
			continue;
		}
		seen_in_seg = true;
		nextseg = log.next / g->blocks_per_segment;
		if (nextseg >= g->nsegments || (log.flags & NLFS_SS_SR)) {
			free(summary);
			break;   /* the kernel calls this "confused" and salvages nothing more */
		}
		rc = visit(arg, &log, summary, seg);
		free(summary);
		pseg += log.nblocks;
	}
	return rc < 0 ? rc : 0;
}

struct rf_collect {
	struct nlfs_fs *fs;
	struct rf_scan s;
	bool in_lseg;
	size_t cap;
	struct nlfs_err *err;
};

/* complete logical segments of data-sync logs: their blocks */
static int scan_log(void *arg, const struct nlfs_log *log, const void *summary, uint64_t seg)
{
	struct rf_collect *c = arg;
	struct nlfs_fs *fs = c->fs;
	int rc;

	(void)seg;
	if (!c->in_lseg && (log->flags & NLFS_SS_LOGBGN) && (log->flags & NLFS_SS_SYNDT)) {
		c->in_lseg = true;
		c->s.npending = 0;
	}
	if (c->in_lseg && !(log->flags & NLFS_SS_SYNDT)) {
		c->in_lseg = false;
		c->s.npending = 0;
	}
	if (!c->in_lseg)
		return 0;
	rc = nlfs_summary_walk(log, summary, fs->geo.blocksize, collect, &c->s, c->err);
	if (c->s.rc)
		rc = c->s.rc;
	if (!rc && (log->flags & NLFS_SS_LOGEND)) {
		if (NLFS_GROW(fs->rf, c->cap, fs->nrf + c->s.npending))
			return -ENOMEM;
		memcpy(fs->rf + fs->nrf, c->s.pending, c->s.npending * sizeof(*c->s.pending));
		fs->nrf += c->s.npending;
		fs->rec.rf_logical_segments++;
		c->s.npending = 0;
		c->in_lseg = false;
	}
	return rc;
}

int nlfs_rollforward_scan(struct nlfs_fs *fs, struct nlfs_err *err)
{
	struct rf_collect c = { .fs = fs, .err = err };
	int rc = rf_walk(fs, scan_log, &c);

	free(c.s.pending);
	if (!rc && fs->nrf) {
		settle(fs);
		fs->rec.rf_blocks = fs->nrf;
	}
	return rc;
}

/* by (ino, blkoff), unique once settled */
static int cmp_rf_key(const void *a, const void *b)
{
	const struct nlfs_rf_block *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->blkoff < y->blkoff ? -1 : x->blkoff > y->blkoff;
}

bool nlfs_rf_lookup(const struct nlfs_fs *fs, uint64_t ino, uint64_t blkoff, uint64_t *block)
{
	const struct nlfs_rf_block key = { .ino = ino, .blkoff = blkoff };
	const struct nlfs_rf_block *r = fs->nrf ? bsearch(&key, fs->rf, fs->nrf, sizeof(*fs->rf),
							  cmp_rf_key) : NULL;

	if (r)
		*block = r->block;
	return r != NULL;
}

/* for nlfs_lower_bound: the entries of inodes after *KEY's */
static int cmp_ino_after(const void *key, const void *elem)
{
	return ((const struct nlfs_rf_block *)elem)->ino <=
	       ((const struct nlfs_rf_block *)key)->ino ? 1 : -1;
}

uint64_t nlfs_rf_end(const struct nlfs_fs *fs, const struct nlfs_file *f)
{
	const struct nlfs_rf_block key = { .ino = f->ino };
	size_t lo;

	if (!f->cno || f->cno != fs->rec.cno)
		return 0;
	/* sorted by (ino, blkoff): the last entry of the inode is its end */
	lo = nlfs_lower_bound(&key, fs->rf, fs->nrf, sizeof(*fs->rf), cmp_ino_after);
	return lo && fs->rf[lo - 1].ino == f->ino ? fs->rf[lo - 1].blkoff + 1 : 0;
}

void nlfs_rf_adjust_inode(const struct nlfs_fs *fs, struct nlfs_file *f)
{
	/* the kernel writes whole blocks back: a file grows to cover them */
	uint64_t end = nlfs_rf_end(fs, f) * fs->geo.blocksize;

	if (end > nlfs_le64(f->inode.i_size))
		f->inode.i_size = nlfs_cpu_to_le64(end);
}

struct rf_tail_walk {
	struct nlfs_fs *fs;
	struct nlfs_rf_tail *t;
	struct nlfs_err *err;
};

static int tail_log(void *arg, const struct nlfs_log *log, const void *summary, uint64_t seg)
{
	struct rf_tail_walk *tw = arg;
	struct nlfs_rf_tail *t = tw->t;
	uint64_t bps = tw->fs->geo.blocks_per_segment;

	(void)summary;
	if (seg != tw->fs->rec.sr_log / bps && (!t->nsegs || t->segs[t->nsegs - 1] != seg)) {
		if (t->nsegs == NLFS_RF_TAIL_SEGS)
			return nlfs_err_set(tw->err, NLFS_ECORRUPT, log->start,
					    "more than %d segments of logs after the super root",
					    NLFS_RF_TAIL_SEGS);
		t->segs[t->nsegs++] = seg;
	}
	t->end = log->start + log->nblocks;
	t->open_dsync = (log->flags & NLFS_SS_SYNDT) && !(log->flags & NLFS_SS_LOGEND);
	t->seq = log->seq;
	t->seg = seg;
	t->nextseg = log->next / bps;
	return 0;
}

int nlfs_rollforward_tail(struct nlfs_fs *fs, struct nlfs_rf_tail *t, struct nlfs_err *err)
{
	struct rf_tail_walk tw = { fs, t, err };

	memset(t, 0, sizeof(*t));
	t->end = fs->rec.next_pseg;
	t->seq = fs->rec.next_seq;
	t->seg = t->end / fs->geo.blocks_per_segment;
	return rf_walk(fs, tail_log, &tw);
}
