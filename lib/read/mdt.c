/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading any file's blocks: the block map's pointer (bmap.c), turned into
 * a disk address (dat.c), or the block roll-forward puts back.
 *
 * The block-resolution loop, inherent to the format as in the kernel:
 * reading a block of a file walks its map (mdt.c -> bmap.c), whose node
 * pointers are virtual blocks translated through the DAT (bmap.c ->
 * dat.c), whose own blocks are read as a file's again (dat.c -> mdt.c).
 * It ends because the DAT maps itself physically (nlfs_file_block_addr).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

void nlfs_fs_mdt_file(const struct nlfs_fs *fs, unsigned ino, struct nlfs_file *f)
{
	const struct nlfs_inode *in = nlfs_fs_sr_inode(fs, ino);

	memset(f, 0, sizeof(*f));
	f->ino = ino;
	if (in)   /* no super root (nlfs_fs_open_sb): an empty file */
		memcpy(&f->inode, in, sizeof(f->inode));
}

static int note_end(uint64_t blkoff, uint64_t ptr, unsigned level, void *arg)
{
	uint64_t *end = arg;

	(void)ptr;
	if (level == 0 && blkoff >= *end)
		*end = blkoff + 1;
	return 0;
}

int nlfs_file_mapped_end(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t *end,
			 struct nlfs_err *err)
{
	*end = nlfs_rf_end(fs, f);
	return nlfs_bmap_iterate(fs, f, note_end, end, err);
}

void nlfs_file_prefetch(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
			uint64_t n)
{
	uint32_t bs = fs->geo.blocksize;
	uint64_t ptrs[64], blocknr;

	while (n > 0) {
		size_t k = 0, want = n < 64 ? (size_t)n : 64;

		for (size_t i = 0; i < want; i++)
			if (!nlfs_bmap_lookup(fs, f, blkoff + i, &ptrs[k], NULL) && ptrs[k])
				k++;
		if (f->ino != NLFS_DAT_INO)
			nlfs_dat_prefetch(fs, ptrs, k);
		for (size_t i = 0; i < k; i++)
			if (!nlfs_file_block_addr(fs, f, ptrs[i], &blocknr, NULL))
				nlfs_io_prefetch(fs->io, blocknr * bs, bs);
		blkoff += want;
		n -= want;
	}
}

int nlfs_file_block_where(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
			  uint64_t *blocknr, struct nlfs_err *err)
{
	uint64_t ptr;
	int rc;

	if (f->cno && f->cno == fs->rec.cno && fs->nrf &&
	    nlfs_rf_lookup(fs, f->ino, blkoff, blocknr))
		return 0;
	rc = nlfs_bmap_lookup(fs, f, blkoff, &ptr, err);
	if (!rc)
		rc = nlfs_file_block_addr(fs, f, ptr, blocknr, err);
	return rc;
}

int nlfs_file_blocks_where(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
			   uint64_t *blocknrs, size_t max, size_t *n, struct nlfs_err *err)
{
	int rc;

	/* blocks roll-forward puts back are looked up one at a time */
	if (max <= 1 || (f->cno && f->cno == fs->rec.cno && fs->nrf)) {
		*n = max ? 1 : 0;
		return max ? nlfs_file_block_where(fs, f, blkoff, blocknrs, err) : 0;
	}
	rc = nlfs_bmap_lookup_run(fs, f, blkoff, blocknrs, max, n, err);
	for (size_t i = 0; !rc && i < *n; i++)
		if (blocknrs[i])
			rc = nlfs_file_block_addr(fs, f, blocknrs[i], &blocknrs[i], err);
	return rc;
}

int nlfs_file_read_block(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
			 void *buf, bool *hole, struct nlfs_err *err)
{
	uint64_t blocknr;
	int rc = nlfs_file_block_where(fs, f, blkoff, &blocknr, err);

	if (rc)
		return rc;
	*hole = blocknr == 0;
	return nlfs_file_read_at(fs, f, blkoff, blocknr, buf, err);
}

int nlfs_file_read_at(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t blkoff,
		      uint64_t blocknr, void *buf, struct nlfs_err *err)
{
	uint32_t bs = fs->geo.blocksize;
	int rc;

	if (!blocknr) {
		memset(buf, 0, bs);
		return 0;
	}
	rc = nlfs_io_read(fs->io, buf, bs, blocknr * bs);
	if (rc) {
		rc = nlfs_err_set(err, rc, blocknr, "%s: reading block %llu of inode %llu",
				  nlfs_io_name(fs->io), (unsigned long long)blkoff,
				  (unsigned long long)f->ino);
		if (err)
			err->ino = f->ino;
	}
	return rc;
}

int nlfs_mdt_read_entry(struct nlfs_fs *fs, unsigned ino, uint32_t entry_size, uint64_t slot,
			void *out, size_t len, bool *hole, struct nlfs_err *err)
{
	uint32_t bs = fs->geo.blocksize;
	uint32_t epb = bs / entry_size;   /* entries never cross a block */
	struct nlfs_file f;
	uint8_t *buf = malloc(bs);
	int rc;

	if (!buf)
		return -ENOMEM;
	nlfs_fs_mdt_file(fs, ino, &f);
	rc = nlfs_file_read_block(fs, &f, slot / epb, buf, hole, err);
	if (!rc)
		memcpy(out, buf + (slot % epb) * entry_size, len);
	free(buf);
	return rc;
}
