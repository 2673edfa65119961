/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A palloc file's group as it is on disk: its free count and bitmap. */
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

int nlfs_palloc_read_group(struct nlfs_fs *fs, const struct nlfs_file *f, uint32_t entry_size,
			   uint64_t group, struct nlfs_palloc_group *out, struct nlfs_err *err)
{
	uint32_t bs = fs->geo.blocksize;
	uint64_t dblk = nlfs_palloc_desc_blkoff(bs, entry_size, group);
	int rc;

	if (out->desc_blkoff != dblk) {
		/* groups of one descriptor block share it: read it once */
		out->desc_blkoff = UINT64_MAX;
		rc = nlfs_file_read_block(fs, f, dblk, out->desc, &out->desc_hole, err);
		if (rc)
			return rc;
		out->desc_blkoff = dblk;
	}
	out->nfrees = nlfs_get_le32(out->desc + (group % (bs / 4)) * 4);
	return nlfs_file_read_block(fs, f, nlfs_palloc_bitmap_blkoff(bs, entry_size, group),
				    out->bitmap, &out->bitmap_hole, err);
}
