/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * clean_plan.h - from a segment on the device to the five arrays of
 * NILFS_IOCTL_CLEAN_SEGMENTS.
 *
 * A segment's logs are read from the raw device (summary blocks only: the
 * kernel reads the blocks it moves itself) and turned into block
 * descriptors: vdescs for blocks with a virtual address, bdescs for DAT
 * blocks.  GET_VINFO and GET_BDESCS then say which are live (the rule of
 * nlfs_gc_block_live); the dead ones give the virtual blocks to free and
 * the checkpoint periods to delete.
 */
#ifndef CLD_PLAN_H
#define CLD_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/nilfs2_api.h>

#include <nlfs/gc.h>
#include <nlfs/io.h>
#include <nlfs/nlfs.h>

/* the device (superblocks only: the kernel writes the volume) and the
 * geometry needed to walk its segments */
struct cld_reader {
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	uint32_t blocksize;
	uint32_t blocks_per_segment;
	uint64_t first_data_block;
	uint32_t r_segments_percentage;
};

/* Open DEVICE for reading segments, uncached (NLFS_IO_UNCACHED: no stale
 * page-cache copy of a reused segment is read). */
int cld_reader_open(struct cld_reader *r, const char *device);
void cld_reader_close(struct cld_reader *r);

/* descriptors of one or more segments */
struct cld_descs {
	struct nilfs_vdesc *vd;
	size_t nvd, capvd;
	struct nilfs_bdesc *bd;
	size_t nbd, capbd;
};

/* what CLEAN_SEGMENTS gets */
struct cld_plan {
	struct nilfs_vdesc *live;
	size_t nlive, caplive;
	struct nilfs_period *periods;
	size_t nperiods, capperiods;
	uint64_t *dead;
	size_t ndead, capdead;
	struct nilfs_bdesc *bd;
	size_t nbd, capbd;
	uint64_t *segnums;
	size_t nsegs, capsegs;
	size_t nstale;            /* vdescs whose DAT entry points elsewhere: left alone */
	size_t nbd_dead;
};

void cld_descs_reset(struct cld_descs *d);
void cld_descs_free(struct cld_descs *d);
void cld_plan_reset(struct cld_plan *p);
void cld_plan_free(struct cld_plan *p);

#define CLD_SEG_PROTECTED 1   /* returned: the segment's seq is >= protseq */

/*
 * The seq of SEGNUM's first log (-EBADMSG if it does not start with a
 * summary).
 */
int cld_segment_seq(struct cld_reader *r, uint64_t segnum, uint64_t *seq, char *why,
		    size_t whylen);
/*
 * Walk the logs of SEGNUM, NBLOCKS blocks from its start (su_nblocks), and
 * append their descriptors to OUT.  Every log must carry the magic, a
 * valid ss_sumsum, the first log's seq, and the logs must cover exactly
 * NBLOCKS blocks; otherwise -EBADMSG with the reason in WHY (a segment
 * that cannot be read completely must not be cleaned).
 */
int cld_segment_scan(struct cld_reader *r, uint64_t segnum, uint32_t nblocks,
		     struct cld_descs *out, uint64_t *seq, char *why, size_t whylen);

enum cld_fate { CLD_LIVE, CLD_DEAD, CLD_STALE };
/* VD found in a segment, VI its DAT entry (GET_VINFO) */
enum cld_fate cld_vblock_fate(const struct nlfs_gc_protect *p, const struct nilfs_vdesc *vd,
			      const struct nilfs_vinfo *vi);

/*
 * Sort D's vdescs by vblocknr and classify them with VI (D->nvd entries, in
 * that order, as GET_VINFO returned them); likewise the bdescs, sorted by
 * (ino, level, offset), whose bd_blocknr GET_BDESCS has filled.  Appends
 * to P.  Callers use cld_descs_sort() first, then the ioctls, then this.
 */
void cld_descs_sort(struct cld_descs *d);
int cld_plan_add(struct cld_plan *p, const struct nlfs_gc_protect *prot,
		 const struct cld_descs *d, const struct nilfs_vinfo *vi);
int cld_plan_add_segment(struct cld_plan *p, uint64_t segnum);
/* merge SRC into DST */
int cld_plan_merge(struct cld_plan *dst, const struct cld_plan *src);
/* final order: live from the newest checkpoint down (see by_age in
 * clean_plan.c), periods merged, dead sorted and unique */
void cld_plan_finish(struct cld_plan *p);

/* the GET_VINFO buffer, grown as needed */
struct cld_vinfo_buf {
	struct nilfs_vinfo *vi;
	size_t cap;
};

/*
 * Everything above for one segment of the volume mounted at IOCFD: its
 * NBLOCKS blocks (su_nblocks; 0: scrapped, nothing to read) scanned, their
 * DAT state asked of the kernel, and their fate under PROT, into OUT (reset
 * first) with the segment itself.  *SEQ gets the segment's seq.  -EBADMSG
 * (a segment that cannot be read completely) or an ioctl's -errno, the
 * reason in WHY.
 */
int cld_segment_plan(int iocfd, struct cld_reader *r, uint64_t segnum, uint32_t nblocks,
		     const struct nlfs_gc_protect *prot, struct cld_descs *descs,
		     struct cld_vinfo_buf *vb, struct cld_plan *out, uint64_t *seq, char *why,
		     size_t whylen);

/* blocks CLEAN_SEGMENTS would copy */
static inline size_t cld_plan_live(const struct cld_plan *p)
{
	return p->nlive + p->nbd;
}

#endif /* CLD_PLAN_H */
