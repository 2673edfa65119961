/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading a file's bytes; holes read as zeros, reads stop at i_size. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

int nlfs_file_pread(struct nlfs_fs *fs, const struct nlfs_file *f, void *buf, size_t len,
		    uint64_t off, size_t *done, struct nlfs_err *err)
{
	uint32_t bs = fs->geo.blocksize;
	uint64_t size = nlfs_le64(f->inode.i_size);
	uint8_t *blk, *out = buf;
	int rc = 0;

	*done = 0;
	if (off >= size)
		return 0;
	if (len > size - off)
		len = (size_t)(size - off);
	blk = malloc(bs);
	if (!blk)
		return -ENOMEM;
	while (!rc && len > 0) {
		uint64_t where[64], first = off / bs, nblk = (off + len - 1) / bs - first + 1;
		size_t nwhere;

		rc = nlfs_file_blocks_where(fs, f, first, where, nblk < 64 ? (size_t)nblk : 64,
					    &nwhere, err);
		for (size_t i = 0; !rc && i < nwhere && len > 0; i++) {
			uint32_t in = (uint32_t)(off % bs);
			size_t n = bs - in < len ? bs - in : len;

			/* a whole block goes straight to the caller */
			if (n == bs) {
				rc = nlfs_file_read_at(fs, f, first + i, where[i], out, err);
			} else {
				rc = nlfs_file_read_at(fs, f, first + i, where[i], blk, err);
				if (!rc)
					memcpy(out, blk + in, n);
			}
			if (rc)
				break;
			out += n;
			off += n;
			len -= n;
			*done += n;
		}
	}
	free(blk);
	return rc;
}

bool nlfs_inode_blocks_ok(uint64_t i_blocks, uint64_t nblocks, uint32_t blocksize,
			  unsigned max_fs_units)
{
	uint64_t k = blocksize / 512;

	/* the kernel counts 512-byte units; mkfs.nilfs2 counts its blocks in
	 * fs blocks, and the kernel only adds and subtracts its own units
	 * afterwards, so i_blocks = n*k - m*(k-1) for m mkfs-made blocks */
	if (k <= 1)
		return i_blocks == nblocks;
	for (uint64_t m = 0; m <= max_fs_units; m++) {
		if (m * (k - 1) > nblocks * k)
			break;
		if (i_blocks == nblocks * k - m * (k - 1))
			return true;
	}
	return false;
}
