/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Superblock fields a repair construction sets right (fsck.nilfs2).  The
 * construction writes both copies from the one in use when it commits, so
 * a change made here reaches both, and a crash before then changes none.
 */
#include <nlfs/endian.h>
#include <nlfs/repair.h>
#include "writerP.h"

void nlfs_writer_sb_state(struct nlfs_writer *w, uint16_t clear)
{
	w->sb.s_state = nlfs_cpu_to_le16(nlfs_le16(w->sb.s_state) & (uint16_t)~clear);
}

bool nlfs_writer_sb_devsize(struct nlfs_writer *w)
{
	uint64_t need = w->geo.nsegments * w->geo.blocks_per_segment * (uint64_t)w->geo.blocksize;

	/* only where nothing of the volume lies past the end of the device */
	if (need > w->geo.devsize)
		return false;
	w->sb.s_dev_size = nlfs_cpu_to_le64(w->geo.devsize);
	return true;
}
