/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pass_sufile.c - pass 2: the segment usage file.
 *
 * Loads every segment's usage into c->segs for the log pass, and checks
 * the flags (clean means all zero, ACTIVE alone is impossible, the on-disk
 * ACTIVE bit itself means nothing), the block counts against the segment
 * size, and the header's clean and dirty counts.
 */
#include <errno.h>
#include <stdlib.h>

#include "fsck.h"

#define SU_KNOWN (NLFS_SEGMENT_USAGE_ACTIVE | NLFS_SEGMENT_USAGE_DIRTY | NLFS_SEGMENT_USAGE_ERROR)
#define SU_CHUNK 4096

int pass_sufile(struct fsck *c)
{
	const struct nlfs_geometry *g = c->g;
	struct nlfs_suhead h;
	struct nlfs_suinfo *su;
	struct nlfs_err err;
	uint64_t nclean = 0, ndirty = 0, nwritten = 0;
	int rc;

	c->segs = calloc(g->nsegments, sizeof(*c->segs));
	su = malloc(SU_CHUNK * sizeof(*su));
	if (!c->segs || !su) {
		free(su);
		fsck_problem(c, MSG_OOM_SEGMENT_USAGE, (unsigned long long)g->nsegments);
		return -ENOMEM;
	}
	rc = nlfs_sufile_header(c->fs, &h, &err);
	if (rc) {
		fsck_lib_problem(c, MSG_SUFILE_HEADER_READ, &err);
		free(su);
		return rc;
	}
	for (uint64_t base = 0; base < g->nsegments; base += SU_CHUNK) {
		size_t n = g->nsegments - base < SU_CHUNK ? g->nsegments - base : SU_CHUNK;

		rc = nlfs_sufile_get_many(c->fs, base, n, su, &err);
		if (rc) {
			fsck_lib_problem(c, MSG_SUFILE_READ, &err, (unsigned long long)base);
			free(su);
			return rc;
		}
		for (size_t i = 0; i < n; i++) {
			uint64_t seg = base + i;
			uint32_t fl = su[i].flags;
			uint64_t size = g->blocks_per_segment - (seg == 0 ? g->first_data_block : 0);

			c->segs[seg].su_flags = fl;
			c->segs[seg].su_nblocks = su[i].nblocks;
			if (nlfs_su_flags_clean(fl)) {
				nclean++;
				if (su[i].nblocks || su[i].lastmod)
					fsck_problem(c, MSG_SU_CLEAN_USED, (unsigned long long)seg,
						     su[i].nblocks,
						     (unsigned long long)su[i].lastmod);
				continue;
			}
			if (nlfs_su_flags_dirty(fl))
				ndirty++;
			nwritten += su[i].nblocks != 0;
			if (fl & ~SU_KNOWN)
				fsck_problem(c, MSG_SU_FLAGS_UNKNOWN, (unsigned long long)seg, fl);
			else if (fl == NLFS_SEGMENT_USAGE_ACTIVE)
				fsck_problem(c, MSG_SU_ACTIVE_ALONE, (unsigned long long)seg);
			if (fl & NLFS_SEGMENT_USAGE_ERROR)
				fsck_problem(c, MSG_SU_ERROR, (unsigned long long)seg);
			if (su[i].nblocks > size) {
				fsck_problem(c, MSG_SU_NBLOCKS, (unsigned long long)seg,
					     su[i].nblocks, (unsigned long long)size);
				c->segs[seg].su_nblocks = (uint32_t)size;
			}
		}
	}
	free(su);
	if (h.ncleansegs != nclean)
		fsck_problem(c, MSG_SU_NCLEAN, (unsigned long long)h.ncleansegs,
			     (unsigned long long)nclean);
	if (h.ndirtysegs != ndirty)
		fsck_problem(c, MSG_SU_NDIRTY, (unsigned long long)h.ndirtysegs,
			     (unsigned long long)ndirty);
	if (h.last_alloc >= g->nsegments)
		fsck_problem(c, MSG_SU_LAST_ALLOC, (unsigned long long)h.last_alloc,
			     (unsigned long long)g->nsegments);
	c->nsegs_used = ndirty;
	c->nsegs_clean = nclean;
	c->nsegs_written = nwritten;
	return 0;
}
