/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How the metadata files' headers count their entries, by the kernel's
 * rules: the sufile's clean and dirty segments (nilfs_segment_usage_clean
 * and _dirty), the cpfile's checkpoints and snapshots, a palloc group's
 * free entries.  Every check that recounts them (vet.c, fsck.nilfs2's
 * passes, the repairs' recounts) asks here.
 */
#include <nlfs/nlfs.h>

bool nlfs_su_flags_clean(uint32_t flags)
{
	return flags == 0;
}

bool nlfs_su_flags_dirty(uint32_t flags)
{
	return flags & NLFS_SEGMENT_USAGE_DIRTY;
}

bool nlfs_cp_flags_valid(uint32_t flags)
{
	return !(flags & NLFS_CHECKPOINT_INVALID);
}

bool nlfs_cp_flags_snapshot(uint32_t flags)
{
	return nlfs_cp_flags_valid(flags) && (flags & NLFS_CHECKPOINT_SNAPSHOT);
}

uint64_t nlfs_palloc_group_nfree(const struct nlfs_palloc_group *pg, uint64_t entries_per_group)
{
	/* a descriptor block that is a hole: every group it covers is empty */
	return pg->desc_hole ? entries_per_group : pg->nfrees;
}
