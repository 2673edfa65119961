/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * clean_plan.c - segment walk and block classification for CLEAN_SEGMENTS.
 *
 * Only the summary blocks of each log are read, by the library's walk
 * (nlfs_segment_walk, NLFS_SEGMENT_WALK_EXACT) on an uncached reader of
 * the device.  A segment is either described completely (every log from
 * its start to su_nblocks, each with a valid ss_sumsum and the segment's
 * seq) or not at all:
 * cleaning a segment frees all of it, so a block missed here would be lost.
 *
 * One check goes beyond nilfs-utils: a virtual block whose DAT entry no
 * longer points at the copy found in the segment (vi_blocknr differs) is
 * neither moved nor freed.  In a consistent volume this never happens;
 * if it does, the copy here is stale and the block's real copy, and the
 * entry, must be left alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>
#include "ioc.h"
#include "clean_plan.h"
#include "array.h"


/* ---- the device ---- */

int cld_reader_open(struct cld_reader *r, const char *device)
{
	const struct nlfs_geometry *g;
	struct nlfs_err err;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = nlfs_io_open_unix(device, NLFS_IO_RDONLY | NLFS_IO_UNCACHED, &r->io);
	if (rc)
		return rc;
	nlfs_err_clear(&err);
	rc = nlfs_fs_open_sb(r->io, &r->fs, &err);
	if (rc) {
		nlfs_io_close(r->io);
		r->io = NULL;
		return rc < 0 ? rc : -rc;
	}
	g = nlfs_fs_geometry(r->fs);
	r->blocksize = g->blocksize;
	r->blocks_per_segment = g->blocks_per_segment;
	r->first_data_block = g->first_data_block;
	r->r_segments_percentage = nlfs_le32(
		nlfs_fs_sb(r->fs, nlfs_fs_sb_choice(r->fs)->used)->s_r_segments_percentage);
	return 0;
}

void cld_reader_close(struct cld_reader *r)
{
	if (r->fs)
		nlfs_fs_close(r->fs);   /* closes the io too */
	else if (r->io)
		nlfs_io_close(r->io);
	r->fs = NULL;
	r->io = NULL;
}

/* ---- descriptor arrays ---- */

void cld_descs_reset(struct cld_descs *d)
{
	d->nvd = d->nbd = 0;
}

void cld_descs_free(struct cld_descs *d)
{
	free(d->vd);
	free(d->bd);
	memset(d, 0, sizeof(*d));
}

void cld_plan_reset(struct cld_plan *p)
{
	p->nlive = p->nperiods = p->ndead = p->nbd = p->nsegs = 0;
	p->nstale = p->nbd_dead = 0;
}

void cld_plan_free(struct cld_plan *p)
{
	free(p->live);
	free(p->periods);
	free(p->dead);
	free(p->bd);
	free(p->segnums);
	memset(p, 0, sizeof(*p));
}

/* ---- the walk ---- */

/* a segment that does not read as the cleaner needs it: -EBADMSG and why;
 * what could not be read at all keeps its code */
static int refused(int rc, const struct nlfs_err *err, char *why, size_t whylen)
{
	nlfs_err_format(err, why, whylen);
	return rc == -ENOMEM || rc == -EIO || rc == -ENODATA ? rc : -EBADMSG;
}

int cld_segment_seq(struct cld_reader *r, uint64_t segnum, uint64_t *seq, char *why,
		    size_t whylen)
{
	struct nlfs_err err;
	int rc;

	nlfs_err_clear(&err);
	rc = nlfs_segment_seq(r->fs, segnum, seq, &err);
	return rc ? refused(rc, &err, why, whylen) : 0;
}

struct walk_ctx {
	struct cld_descs *out;
	int rc;
};

static int on_block(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi, void *arg)
{
	struct walk_ctx *w = arg;
	struct cld_descs *d = w->out;

	if (!bi)
		return 0;
	if (fi->ino == NLFS_DAT_INO) {
		struct nilfs_bdesc b = {
			.bd_ino = fi->ino,
			.bd_oblocknr = bi->block,
			.bd_offset = bi->blkoff,
			.bd_level = bi->is_data ? 0 : bi->level,
		};

		w->rc = CLI_PUSH(d->bd, d->nbd, d->capbd, b);
	} else {
		struct nilfs_vdesc v = {
			.vd_ino = fi->ino,
			.vd_cno = fi->cno,
			.vd_vblocknr = bi->vblocknr,
			.vd_blocknr = bi->block,
			.vd_offset = bi->is_data ? bi->blkoff : 0,
			.vd_flags = bi->is_data ? 0 : 1,
		};

		if (bi->vblocknr == 0) {
			w->rc = -EBADMSG;
			return 1;
		}
		w->rc = CLI_PUSH(d->vd, d->nvd, d->capvd, v);
	}
	return w->rc ? 1 : 0;
}

int cld_segment_scan(struct cld_reader *r, uint64_t segnum, uint32_t nblocks,
		     struct cld_descs *out, uint64_t *seqp, char *why, size_t whylen)
{
	size_t nvd0 = out->nvd, nbd0 = out->nbd;
	struct walk_ctx w = { .out = out };
	struct nlfs_err err;
	uint64_t seq = 0;
	int rc;

	nlfs_err_clear(&err);
	rc = nlfs_segment_walk(r->fs, segnum, nblocks, NLFS_SEGMENT_WALK_EXACT, &seq, on_block, &w,
			       &err);
	if (w.rc) {
		rc = w.rc;
		snprintf(why, whylen, rc == -EBADMSG ? "segment %" PRIu64 ": a block with "
			 "virtual address 0" : "segment %" PRIu64 ": out of memory", segnum);
	} else if (rc) {
		rc = refused(rc, &err, why, whylen);
	}
	if (rc) {
		out->nvd = nvd0;
		out->nbd = nbd0;
		return rc;
	}
	if (seqp)
		*seqp = seq;
	return 0;
}

/* ---- classification ---- */

enum cld_fate cld_vblock_fate(const struct nlfs_gc_protect *p, const struct nilfs_vdesc *vd,
			      const struct nilfs_vinfo *vi)
{
	if (vi->vi_vblocknr != vd->vd_vblocknr || vi->vi_blocknr != vd->vd_blocknr)
		return CLD_STALE;
	return nlfs_gc_block_live(p, vd->vd_cno, vi->vi_start, vi->vi_end) ? CLD_LIVE : CLD_DEAD;
}

static int by_vblocknr(const void *a, const void *b)
{
	const struct nilfs_vdesc *x = a, *y = b;

	if (x->vd_vblocknr != y->vd_vblocknr)
		return x->vd_vblocknr < y->vd_vblocknr ? -1 : 1;
	return x->vd_blocknr < y->vd_blocknr ? -1 : x->vd_blocknr > y->vd_blocknr;
}

/*
 * The order CLEAN_SEGMENTS gets the live blocks in is the order the
 * kernel writes them: it buffers each (ino, checkpoint) in a GC inode of
 * its own, writes those newest-first-added last (the list is built at its
 * head), and the blocks of one inode by offset.  Handed over from the
 * newest checkpoint down, the copies land oldest first, each age with its
 * own: the old ones, which are likely to live on, fill segments of their
 * own, and the young ones, which are likely to die soon, lie beside the
 * writer's new data (bench/clean-model.py ORDER).
 */
static int by_age(const void *a, const void *b)
{
	const struct nilfs_vdesc *x = a, *y = b;

	if (x->vd_cno != y->vd_cno)
		return x->vd_cno > y->vd_cno ? -1 : 1;
	if (x->vd_ino != y->vd_ino)
		return x->vd_ino < y->vd_ino ? -1 : 1;
	return x->vd_blocknr < y->vd_blocknr ? -1 : x->vd_blocknr > y->vd_blocknr;
}

static int by_bdesc(const void *a, const void *b)
{
	const struct nilfs_bdesc *x = a, *y = b;

	if (x->bd_ino != y->bd_ino)
		return x->bd_ino < y->bd_ino ? -1 : 1;
	if (x->bd_level != y->bd_level)
		return x->bd_level < y->bd_level ? -1 : 1;
	if (x->bd_offset != y->bd_offset)
		return x->bd_offset < y->bd_offset ? -1 : 1;
	return x->bd_oblocknr < y->bd_oblocknr ? -1 : x->bd_oblocknr > y->bd_oblocknr;
}

static int by_start(const void *a, const void *b)
{
	const struct nilfs_period *x = a, *y = b;

	if (x->p_start != y->p_start)
		return x->p_start < y->p_start ? -1 : 1;
	return x->p_end < y->p_end ? -1 : x->p_end > y->p_end;
}

void cld_descs_sort(struct cld_descs *d)
{
	nlfs_sort(d->vd, d->nvd, sizeof(*d->vd), by_vblocknr);
	nlfs_sort(d->bd, d->nbd, sizeof(*d->bd), by_bdesc);
}

int cld_plan_add(struct cld_plan *p, const struct nlfs_gc_protect *prot,
		 const struct cld_descs *d, const struct nilfs_vinfo *vi)
{
	for (size_t i = 0; i < d->nvd; i++) {
		struct nilfs_vdesc v = d->vd[i];
		int rc = 0;

		v.vd_period.p_start = vi[i].vi_start;
		v.vd_period.p_end = vi[i].vi_end;
		switch (cld_vblock_fate(prot, &v, &vi[i])) {
		case CLD_LIVE:
			rc = CLI_PUSH(p->live, p->nlive, p->caplive, v);
			break;
		case CLD_DEAD:
			rc = CLI_PUSH(p->dead, p->ndead, p->capdead, v.vd_vblocknr);
			/* the checkpoints that alone saw this block go with it;
			 * cpfile and sufile blocks (cno 0) belong to none */
			if (!rc && v.vd_cno != 0 && v.vd_period.p_start < v.vd_period.p_end)
				rc = CLI_PUSH(p->periods, p->nperiods, p->capperiods, v.vd_period);
			break;
		case CLD_STALE:
			p->nstale++;
			break;
		}
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < d->nbd; i++) {
		int rc = 0;

		if (d->bd[i].bd_blocknr == d->bd[i].bd_oblocknr)
			rc = CLI_PUSH(p->bd, p->nbd, p->capbd, d->bd[i]);
		else
			p->nbd_dead++;
		if (rc)
			return rc;
	}
	return 0;
}

int cld_plan_add_segment(struct cld_plan *p, uint64_t segnum)
{
	return CLI_PUSH(p->segnums, p->nsegs, p->capsegs, segnum);
}

#define APPEND(dst, src, arr, n, cap)                                                        \
	do {                                                                                 \
		int _rc = nlfs_grow((void **)&(dst)->arr, &(dst)->cap, (dst)->n + (src)->n,   \
				   sizeof(*(dst)->arr));                                     \
		if (_rc)                                                                     \
			return _rc;                                                          \
		if ((src)->n)                                                                \
			memcpy((dst)->arr + (dst)->n, (src)->arr, (src)->n * sizeof(*(dst)->arr)); \
		(dst)->n += (src)->n;                                                        \
	} while (0)

int cld_plan_merge(struct cld_plan *dst, const struct cld_plan *src)
{
	APPEND(dst, src, live, nlive, caplive);
	APPEND(dst, src, periods, nperiods, capperiods);
	APPEND(dst, src, dead, ndead, capdead);
	APPEND(dst, src, bd, nbd, capbd);
	APPEND(dst, src, segnums, nsegs, capsegs);
	dst->nstale += src->nstale;
	dst->nbd_dead += src->nbd_dead;
	return 0;
}

void cld_plan_finish(struct cld_plan *p)
{
	size_t n = 0;

	nlfs_sort(p->live, p->nlive, sizeof(*p->live), by_age);
	nlfs_sort(p->bd, p->nbd, sizeof(*p->bd), by_bdesc);
	/* overlapping or touching periods become one: each is free of
	 * snapshots and of protected checkpoints, and so is their union */
	nlfs_sort(p->periods, p->nperiods, sizeof(*p->periods), by_start);
	for (size_t i = 0; i < p->nperiods; i++) {
		if (n && p->periods[i].p_start <= p->periods[n - 1].p_end) {
			if (p->periods[i].p_end > p->periods[n - 1].p_end)
				p->periods[n - 1].p_end = p->periods[i].p_end;
		} else {
			p->periods[n++] = p->periods[i];
		}
	}
	p->nperiods = n;
	nlfs_sort(p->dead, p->ndead, sizeof(*p->dead), nlfs_cmp_u64);
	n = 0;
	for (size_t i = 0; i < p->ndead; i++)
		if (!n || p->dead[i] != p->dead[n - 1])
			p->dead[n++] = p->dead[i];
	p->ndead = n;
	nlfs_sort(p->segnums, p->nsegs, sizeof(*p->segnums), nlfs_cmp_u64);
}

/* GET_VINFO and GET_BDESCS in batches of this many */
#define KERNEL_BATCH 1024u

int cld_segment_plan(int iocfd, struct cld_reader *r, uint64_t segnum, uint32_t nblocks,
		     const struct nlfs_gc_protect *prot, struct cld_descs *descs,
		     struct cld_vinfo_buf *vb, struct cld_plan *out, uint64_t *seq, char *why,
		     size_t whylen)
{
	int rc;

	cld_plan_reset(out);
	cld_descs_reset(descs);
	*seq = 0;
	if (nblocks == 0)   /* scrapped: nothing was written there */
		return cld_plan_add_segment(out, segnum);
	rc = cld_segment_seq(r, segnum, seq, why, whylen);
	if (!rc)
		rc = cld_segment_scan(r, segnum, nblocks, descs, seq, why, whylen);
	if (rc)
		return rc;
	cld_descs_sort(descs);
	if (CLI_GROW(vb->vi, vb->cap, descs->nvd))
		return -ENOMEM;
	for (size_t i = 0; i < descs->nvd; i++)
		vb->vi[i] = (struct nilfs_vinfo){ .vi_vblocknr = descs->vd[i].vd_vblocknr };
	for (size_t i = 0; i < descs->nvd; ) {
		size_t n = descs->nvd - i < KERNEL_BATCH ? descs->nvd - i : KERNEL_BATCH;
		ssize_t got = ioc_get_vinfo(iocfd, vb->vi + i, n);

		if (got < 0) {
			snprintf(why, whylen, "GET_VINFO: %s", strerror((int)-got));
			return (int)got;
		}
		if ((size_t)got != n) {
			snprintf(why, whylen, "GET_VINFO returned %zd of %zu entries", got, n);
			return -EIO;
		}
		i += n;
	}
	for (size_t i = 0; i < descs->nbd; ) {
		size_t n = descs->nbd - i < KERNEL_BATCH ? descs->nbd - i : KERNEL_BATCH;
		ssize_t got = ioc_get_bdescs(iocfd, descs->bd + i, n);

		if (got < 0 || (size_t)got != n) {
			snprintf(why, whylen, "GET_BDESCS: %s",
				 got < 0 ? strerror((int)-got) : "short reply");
			return got < 0 ? (int)got : -EIO;
		}
		i += n;
	}
	rc = cld_plan_add(out, prot, descs, vb->vi);
	return rc ? rc : cld_plan_add_segment(out, segnum);
}
