/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ifile: the inodes of one checkpoint. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

int nlfs_fs_ifile(struct nlfs_fs *fs, uint64_t cno, struct nlfs_file *ifile,
		  struct nlfs_err *err)
{
	struct nlfs_checkpoint cp;
	int rc = nlfs_cpfile_read(fs, cno, &cp, err);

	if (rc)
		return rc;
	memset(ifile, 0, sizeof(*ifile));
	ifile->ino = NLFS_IFILE_INO;
	ifile->cno = nlfs_le64(cp.cp_cno);
	ifile->inode = cp.cp_ifile_inode;
	return 0;
}

static bool bit_is_set(const uint8_t *bitmap, uint64_t bit)
{
	return bitmap[bit / 8] & (1u << (bit % 8));
}

/* block BLKOFF of IFILE through the handle's cache of ifile blocks */
static int read_ifile_block(struct nlfs_fs *fs, const struct nlfs_file *ifile, uint64_t blkoff,
			    uint8_t *buf, bool *hole, struct nlfs_err *err)
{
	uint64_t blocknr = 0;
	int rc = nlfs_file_block_where(fs, ifile, blkoff, &blocknr, err);

	*hole = blocknr == 0;
	if (rc || *hole)
		return rc ? rc : nlfs_file_read_at(fs, ifile, blkoff, 0, buf, err);
	rc = nlfs_cache_read(fs, fs->ifile_cache, NLFS_IFILE_CACHE, &fs->ifile_cache_clock, blocknr,
			     buf);
	if (rc)   /* again, for the message naming the block */
		rc = nlfs_file_read_at(fs, ifile, blkoff, blocknr, buf, err);
	return rc;
}

int nlfs_ifile_read(struct nlfs_fs *fs, const struct nlfs_file *ifile, uint64_t ino,
		    struct nlfs_file *out, struct nlfs_err *err)
{
	uint32_t bs = fs->geo.blocksize;
	uint32_t isz = fs->geo.inode_size;
	uint64_t epg = (uint64_t)bs * 8, blkoff, bblk = nlfs_palloc_bitmap_blkoff(bs, isz, ino / epg);
	uint32_t byteoff;
	uint8_t *buf = malloc(bs);
	bool hole;
	int rc;

	if (!buf)
		return -ENOMEM;
	/* the bitmap is authoritative: a clear bit means no such inode */
	rc = read_ifile_block(fs, ifile, bblk, buf, &hole, err);
	if (rc)
		goto out;
	if (hole || !bit_is_set(buf, ino % epg)) {
		rc = nlfs_err_set(err, ENOENT, NLFS_NOWHERE, "inode %llu is not in use",
				  (unsigned long long)ino);
		goto out_where;
	}
	nlfs_palloc_locate(bs, isz, ino, &blkoff, &byteoff);
	rc = read_ifile_block(fs, ifile, blkoff, buf, &hole, err);
	if (rc)
		goto out_where;
	if (hole) {
		rc = nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				  "inode %llu is allocated but its ifile block %llu is a hole",
				  (unsigned long long)ino, (unsigned long long)blkoff);
		goto out_where;
	}
	memset(out, 0, sizeof(*out));
	out->ino = ino;
	out->cno = ifile->cno;
	memcpy(&out->inode, buf + byteoff, sizeof(out->inode));
	nlfs_rf_adjust_inode(fs, out);
	if (nlfs_le16(out->inode.i_links_count) == 0) {
		rc = nlfs_err_set(err, ENOENT, NLFS_NOWHERE, "inode %llu is deleted",
				  (unsigned long long)ino);
		goto out_where;
	}
	goto out;
out_where:
	if (err && rc) {
		err->ino = ino;
		err->cno = ifile->cno;
	}
out:
	free(buf);
	return rc;
}

int nlfs_ifile_iterate(struct nlfs_fs *fs, const struct nlfs_file *ifile, nlfs_inode_cb cb,
		       void *arg, struct nlfs_err *err)
{
	uint32_t bs = fs->geo.blocksize;
	uint32_t isz = fs->geo.inode_size;
	uint64_t epg = (uint64_t)bs * 8, end = 0;
	uint64_t first_ino = nlfs_le32(fs->sb[fs->choice.used].s_first_ino);
	uint8_t *bitmap = malloc(bs), *blk = malloc(bs);
	uint64_t loaded = UINT64_MAX;
	int rc;

	if (!bitmap || !blk) {
		rc = -ENOMEM;
		goto out;
	}
	/* i_size is not kept for metadata files: the last mapped block bounds the walk */
	rc = nlfs_file_mapped_end(fs, ifile, &end, err);
	for (uint64_t group = 0; !rc; group++) {
		uint64_t bblk = nlfs_palloc_bitmap_blkoff(bs, isz, group);
		bool hole;

		if (bblk >= end)
			break;
		rc = nlfs_file_read_block(fs, ifile, bblk, bitmap, &hole, err);
		if (rc || hole)
			continue;   /* an empty group's bitmap may be a hole */
		for (uint64_t r = 0; r < epg && !rc; r++) {
			uint64_t ino = group * epg + r, blkoff;
			uint32_t byteoff;
			struct nlfs_file f;

			/* below s_first_ino only the root is a user-visible file; mkfs
			 * fills the other reserved slots with placeholder inodes */
			if (!(bitmap[r / 8] & (1u << (r % 8))) ||
			    (ino < first_ino && ino != NLFS_ROOT_INO))
				continue;
			nlfs_palloc_locate(bs, isz, ino, &blkoff, &byteoff);
			if (blkoff != loaded) {
				rc = nlfs_file_read_block(fs, ifile, blkoff, blk, &hole, err);
				if (rc)
					break;
				loaded = blkoff;
			}
			memset(&f, 0, sizeof(f));
			f.ino = ino;
			f.cno = ifile->cno;
			memcpy(&f.inode, blk + byteoff, sizeof(f.inode));
			nlfs_rf_adjust_inode(fs, &f);
			rc = cb(&f, arg);
		}
	}
out:
	free(bitmap);
	free(blk);
	return rc;
}
