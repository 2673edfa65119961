/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A volume's geometry from its superblock, and where a segment's blocks lie. */
#include <nlfs/endian.h>
#include "../nlfsP.h"

void nlfs_geometry_from_sb(struct nlfs_geometry *g, const struct nlfs_super_block *sb,
			   uint64_t devsize)
{
	g->blocksize = NLFS_MIN_BLOCK_SIZE << nlfs_le32(sb->s_log_block_size);
	g->blocks_per_segment = nlfs_le32(sb->s_blocks_per_segment);
	g->nsegments = nlfs_le64(sb->s_nsegments);
	g->first_data_block = nlfs_le64(sb->s_first_data_block);
	g->inode_size = nlfs_le16(sb->s_inode_size);
	g->devsize = devsize;
}

uint64_t nlfs_seg_start(const struct nlfs_geometry *g, uint64_t segnum)
{
	return segnum == 0 ? g->first_data_block : segnum * g->blocks_per_segment;
}

uint64_t nlfs_seg_end(const struct nlfs_geometry *g, uint64_t segnum)
{
	return segnum * g->blocks_per_segment + g->blocks_per_segment - 1;
}

/* The kernel reads a log where fewer than two blocks of the segment are
 * left no more; it goes on at the start of the ss_next segment, whose
 * sequence number is one higher. */
struct nlfs_chain_pos nlfs_chain_next(const struct nlfs_geometry *g, uint64_t end,
				      uint64_t seq, uint64_t nextseg)
{
	uint64_t seg = (end - 1) / g->blocks_per_segment;   /* the log's own */

	if (end + 1 <= nlfs_seg_end(g, seg))
		return (struct nlfs_chain_pos){ end, seq };
	return (struct nlfs_chain_pos){ nlfs_seg_start(g, nextseg), seq + 1 };
}
