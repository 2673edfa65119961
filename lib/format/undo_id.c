/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Undo files (undo.h) for NILFS2 volumes: the undo backend (io/io_undo.c)
 * records, and checks before it puts blocks back, the identity of the
 * volume, which is the superblocks' UUID.
 */
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/undo.h>
#include "../nlfsP.h"

/* the volume's UUID as the superblocks give it (primary, else secondary) */
static void volume_uuid(struct nlfs_io *io, uint64_t devsize, uint8_t uuid[16])
{
	struct nlfs_super_block sb;
	uint64_t offs[2] = { NLFS_SB_OFFSET_BYTES, nlfs_sb2_offset(devsize) };

	memset(uuid, 0, 16);
	for (int i = 0; i < 2; i++) {
		if (!offs[i] || nlfs_io_read(io, &sb, sizeof(sb), offs[i]) ||
		    nlfs_le16(sb.s_magic) != NLFS_SB_MAGIC)
			continue;
		memcpy(uuid, sb.s_uuid, 16);
		return;
	}
}

int nlfs_io_open_undo(struct nlfs_io *lower, const char *path, struct nlfs_io **out,
		      struct nlfs_err *err)
{
	return nlfs_undo_io_open(lower, path, volume_uuid, out, err);
}

int nlfs_undo_apply(const char *path, struct nlfs_io *dev, unsigned flags,
		    struct nlfs_undo_stats *st, struct nlfs_err *err)
{
	return nlfs_undo_io_apply(path, dev, volume_uuid, flags, st, err);
}
