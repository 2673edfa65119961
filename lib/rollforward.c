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
#include "nlfsP.h"

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

	qsort(fs->rf, fs->nrf, sizeof(*fs->rf), cmp_rf);
	for (size_t i = 0; i < fs->nrf; i++) {
		if (n && fs->rf[n - 1].ino == fs->rf[i].ino && fs->rf[n - 1].blkoff == fs->rf[i].blkoff)
			n--;
		fs->rf[n++] = fs->rf[i];
	}
	fs->nrf = n;
}

int nlfs_rollforward_scan(struct nlfs_fs *fs, struct nlfs_err *err)
{
	const struct nlfs_geometry *g = &fs->geo;
	struct rf_scan s = { 0 };
	uint64_t pseg = fs->rec.next_pseg, seq = fs->rec.next_seq;
	uint64_t seg = pseg / g->blocks_per_segment, nextseg = seg, budget = g->nsegments + 1;
	bool in_lseg = false, seen_in_seg = false;
	size_t cap = 0;
	int rc = 0;

	while (budget) {
		struct nlfs_log log;
		void *summary = NULL;

		if (pseg + 1 > nlfs_seg_end(g, seg) ||
		    nlfs_log_read(fs, pseg, &log, &summary, NULL) || log.seq != seq ||
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
		if (!in_lseg && (log.flags & NLFS_SS_LOGBGN) && (log.flags & NLFS_SS_SYNDT)) {
			in_lseg = true;
			s.npending = 0;
		}
		if (in_lseg && !(log.flags & NLFS_SS_SYNDT)) {
			in_lseg = false;
			s.npending = 0;
		}
		if (in_lseg) {
			rc = nlfs_summary_walk(&log, summary, g->blocksize, collect, &s, err);
			if (!rc)
				rc = s.rc;
			if (!rc && (log.flags & NLFS_SS_LOGEND)) {
				if (NLFS_GROW(fs->rf, cap, fs->nrf + s.npending))
					rc = -ENOMEM;
				else
					memcpy(fs->rf + fs->nrf, s.pending, s.npending * sizeof(*s.pending));
				if (!rc) {
					fs->nrf += s.npending;
					fs->rec.rf_logical_segments++;
				}
				s.npending = 0;
				in_lseg = false;
			}
		}
		free(summary);
		if (rc)
			break;
		pseg += log.nblocks;
	}
	free(s.pending);
	if (!rc && fs->nrf) {
		settle(fs);
		fs->rec.rf_blocks = fs->nrf;
	}
	return rc;
}

bool nlfs_rf_lookup(const struct nlfs_fs *fs, uint64_t ino, uint64_t blkoff, uint64_t *block)
{
	size_t lo = 0, hi = fs->nrf;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct nlfs_rf_block *r = &fs->rf[mid];

		if (r->ino < ino || (r->ino == ino && r->blkoff < blkoff))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < fs->nrf && fs->rf[lo].ino == ino && fs->rf[lo].blkoff == blkoff) {
		*block = fs->rf[lo].block;
		return true;
	}
	return false;
}

void nlfs_rf_adjust_inode(const struct nlfs_fs *fs, struct nlfs_file *f)
{
	uint64_t end = 0, bs = fs->geo.blocksize;

	if (!fs->nrf || f->cno != fs->rec.cno)
		return;
	/* the kernel writes whole blocks back: a file grows to cover them */
	for (size_t i = 0; i < fs->nrf; i++)
		if (fs->rf[i].ino == f->ino && (fs->rf[i].blkoff + 1) * bs > end)
			end = (fs->rf[i].blkoff + 1) * bs;
	if (end > nlfs_le64(f->inode.i_size))
		f->inode.i_size = nlfs_cpu_to_le64(end);
}

int nlfs_rollforward_tail(struct nlfs_fs *fs, struct nlfs_rf_tail *t, struct nlfs_err *err)
{
	const struct nlfs_geometry *g = &fs->geo;
	uint64_t pseg = fs->rec.next_pseg, seq = fs->rec.next_seq;
	uint64_t seg = pseg / g->blocks_per_segment, nextseg;
	uint64_t budget = g->nsegments + 1;
	bool seen_in_seg = false;
	struct nlfs_log srlog;
	int rc = nlfs_log_read(fs, fs->rec.sr_log, &srlog, NULL, err);

	if (rc)
		return rc;
	nextseg = srlog.next / g->blocks_per_segment;
	memset(t, 0, sizeof(*t));
	t->end = pseg;
	t->seq = seq;
	t->seg = seg;
	t->nextseg = nextseg;
	while (budget) {
		struct nlfs_log log;

		if (pseg + 1 > nlfs_seg_end(g, seg) || nlfs_log_read(fs, pseg, &log, NULL, NULL) ||
		    log.seq != seq) {
			if (!seen_in_seg || nextseg == seg)
				break;
			seen_in_seg = false;
			seg = nextseg;
			seq++;
			budget--;
			pseg = nlfs_seg_start(g, seg);
			continue;
		}
		if (log.flags & NLFS_SS_SR)
			break;   /* cannot be: the search found no newer super root */
		if (!seen_in_seg && seg != fs->rec.sr_log / g->blocks_per_segment) {
			if (t->nsegs == NLFS_RF_TAIL_SEGS)
				return nlfs_err_set(err, NLFS_ECORRUPT, log.start,
						    "more than %d segments of logs after the super root",
						    NLFS_RF_TAIL_SEGS);
			t->segs[t->nsegs++] = seg;
		}
		seen_in_seg = true;
		nextseg = log.next / g->blocks_per_segment;
		pseg += log.nblocks;
		t->end = pseg;
		t->seq = seq;
		t->seg = seg;
		t->nextseg = nextseg;
		if (nextseg >= g->nsegments)
			break;
	}
	return 0;
}
