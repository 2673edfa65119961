/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.c - small helpers several passes and the repair share, kept here
 * so that no pass calls into another (as e2fsck keeps its in util.c).
 */
#include <nlfs/endian.h>
#include "fsck.h"

bool fsck_phys_in_use(const struct fsck *c, uint64_t blk)
{
	const struct nlfs_geometry *g = c->g;
	uint64_t seg = blk / g->blocks_per_segment;

	return blk >= g->first_data_block && seg < g->nsegments &&
	       (c->segs[seg].su_flags & NLFS_SEGMENT_USAGE_DIRTY) &&
	       blk - nlfs_seg_start(g, seg) < c->segs[seg].su_nblocks;
}

bool fsck_dat_plain(struct fsck *c, uint64_t v, uint64_t *blk, bool *open)
{
	return c->dat.chunks &&
	       fsck_dattable_get(&c->dat, fsck_vbitmap_chunk_of(&c->valloc, v), v, blk, open);
}

uint64_t palloc_groups(struct fsck *c, const char *what, uint32_t entry_size, uint64_t last_data)
{
	uint32_t bs = c->g->blocksize;
	uint64_t ngroups = nlfs_palloc_ngroups(bs, entry_size, last_data ? last_data - 1 : 0);
	/* every entry in use needs a block of the device (or an inode slot):
	 * eight entries a block, and some room for the kernel's spreading of
	 * new files' blocks by inode number, is far more than any volume uses */
	uint64_t limit = (c->devsize / bs * 8 + (1ull << 24)) / ((uint64_t)bs * 8) + 1;

	if (ngroups <= limit)
		return ngroups;
	fsck_problem(c, MSG_PALLOC_TOO_FAR, what, last_data - 1, ngroups, limit);
	return limit;
}

uint64_t dir_nblocks(const uint64_t *keys, size_t nkeys)
{
	/* keys come in order; an i_size that reaches further or falls short
	 * is a wrong size (as e2fsck takes it), not missing blocks */
	return nkeys && keys[nkeys - 1] < UINT64_MAX ? keys[nkeys - 1] + 1 : 0;
}
