/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * assess.c - the live blocks of a segment.  Its logs are read from the
 * device; the DAT periods of their virtual blocks come from GET_VINFO and
 * the DAT's own blocks are checked with GET_BDESCS, answered by the kernel
 * or, offline, by the library.  The rule deciding liveness is the library's
 * (nlfs_gc_block_live).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/gc.h>
#include "assess.h"
#include "array.h"

#define BATCH 512

struct vblk {
	uint64_t vblocknr, cno;
};

struct collect {
	struct vblk *v;
	size_t nv, capv;
	struct nilfs_bdesc *b;
	size_t nb, capb;
};

static int collect_block(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi,
			 void *arg)
{
	struct collect *c = arg;

	if (!bi)
		return 0;
	if (fi->ino == NLFS_DAT_INO) {
		struct nilfs_bdesc *d;

		if (CLI_GROW(c->b, c->capb, c->nb + 1))
			return -ENOMEM;
		d = &c->b[c->nb++];
		memset(d, 0, sizeof(*d));
		d->bd_ino = fi->ino;
		d->bd_oblocknr = bi->block;
		d->bd_offset = bi->blkoff;
		d->bd_level = bi->is_data ? 0 : bi->level;
		return 0;
	}
	if (CLI_GROW(c->v, c->capv, c->nv + 1))
		return -ENOMEM;
	c->v[c->nv].vblocknr = bi->vblocknr;
	c->v[c->nv].cno = fi->cno;
	c->nv++;
	return 0;
}

static int cmp_vblk(const void *a, const void *b)
{
	const struct vblk *x = a, *y = b;

	return x->vblocknr < y->vblocknr ? -1 : x->vblocknr > y->vblocknr;
}

static int load_snapshots(struct assess *a)
{
	struct nilfs_cpinfo ci[BATCH];
	uint64_t cno = 0;
	size_t cap = 0;

	a->have_ss = true;
	for (;;) {
		long n = a->vol->ops->cpinfo(a->vol, cno, NILFS_SNAPSHOT, ci, BATCH);

		if (n < 0)
			return (int)n;
		for (long i = 0; i < n; i++) {
			if (CLI_GROW(a->ss, cap, a->nss + 1))
				return -ENOMEM;
			a->ss[a->nss++] = ci[i].ci_cno;
		}
		if (n == 0 || ci[n - 1].ci_next == 0)
			return 0;
		cno = ci[n - 1].ci_next;
	}
}

static int count_live(struct assess *a, struct collect *c, uint64_t *live)
{
	struct nilfs_vinfo vi[BATCH];
	struct nlfs_gc_protect prot;
	int rc;

	if (!a->have_ss && (rc = load_snapshots(a)) != 0)
		return rc;
	prot = (struct nlfs_gc_protect){ a->ss, a->nss, a->protcno };
	nlfs_sort(c->v, c->nv, sizeof(*c->v), cmp_vblk);
	for (size_t i = 0; i < c->nv; i += BATCH) {
		size_t k = c->nv - i < BATCH ? c->nv - i : BATCH;
		long n;

		memset(vi, 0, sizeof(vi));
		for (size_t j = 0; j < k; j++)
			vi[j].vi_vblocknr = c->v[i + j].vblocknr;
		n = a->vol->ops->vinfo(a->vol, vi, k);
		if (n < 0)
			return (int)n;
		for (long j = 0; j < n; j++)
			if (nlfs_gc_block_live(&prot, c->v[i + (size_t)j].cno, vi[j].vi_start,
					       vi[j].vi_end))
				(*live)++;
	}
	for (size_t i = 0; i < c->nb; i += BATCH) {
		size_t k = c->nb - i < BATCH ? c->nb - i : BATCH;
		long n = a->vol->ops->bdescs(a->vol, c->b + i, k);

		if (n < 0)
			return (int)n;
		for (long j = 0; j < n; j++)
			if (c->b[i + (size_t)j].bd_blocknr == c->b[i + (size_t)j].bd_oblocknr)
				(*live)++;
	}
	return 0;
}

int assess_segment(struct assess *a, uint64_t segnum, uint64_t *live, bool *prot)
{
	struct nilfs_suinfo si;
	struct collect c = { 0 };
	struct nlfs_fs *fs;
	struct nlfs_err err;
	uint64_t seq;
	long n;
	int rc;

	*live = 0;
	*prot = false;
	/* what the kernel reports now, not what the listing showed */
	n = a->vol->ops->suinfo(a->vol, segnum, &si, 1);
	if (n < 0)
		return (int)n;
	if (n == 0 || !nilfs_suinfo_dirty(&si) || nilfs_suinfo_active(&si) ||
	    nilfs_suinfo_error(&si)) {
		*prot = true;
		return 0;
	}
	rc = a->vol->ops->segments(a->vol, &fs);
	if (rc)
		return rc;
	rc = nlfs_segment_walk(fs, segnum, 0, 0, &seq, NULL, NULL, &err);
	if (rc)
		goto walk_failed;
	if (nlfs_seq_ge(seq, a->protseq)) {
		*prot = true;
		return 0;
	}
	nlfs_err_clear(&err);
	rc = nlfs_segment_walk(fs, segnum, si.sui_nblocks, 0, NULL, collect_block, &c, &err);
	if (!rc)
		rc = count_live(a, &c, live);
	free(c.v);
	free(c.b);
	if (rc && err.code)     /* the walk failed, not the vinfo/bdescs lookups */
		goto walk_failed;
	return rc;
walk_failed:
	nlfs_err_format(&err, a->vol->detail, sizeof(a->vol->detail));
	return rc;
}

void assess_free(struct assess *a)
{
	free(a->ss);
	a->ss = NULL;
}

int assess_protcno(struct vol *v, uint64_t now, uint64_t period, uint64_t *cno)
{
	struct nilfs_cpstat st;
	struct nilfs_cpinfo ci[BATCH];
	uint64_t eidx;
	int rc;

	*cno = NLFS_CNO_MAX;
	if (period == 0)
		return 0;
	rc = v->ops->cpstat(v, &st);
	if (rc)
		return rc;
	/* windows below the latest, newest first; stop at the first checkpoint
	 * older than the period */
	for (eidx = st.cs_cno; eidx > 1;) {
		uint64_t sidx = eidx > BATCH ? eidx - BATCH : 1;
		long n = v->ops->cpinfo(v, sidx, NILFS_CHECKPOINT, ci, eidx - sidx);

		if (n < 0)
			return (int)n;
		for (long i = n - 1; i >= 0; i--) {
			if (ci[i].ci_cno >= eidx)
				continue;
			if (ci[i].ci_create < now && now - ci[i].ci_create > period)
				return 0;
			*cno = ci[i].ci_cno;
		}
		eidx = sidx;
	}
	return 0;
}
