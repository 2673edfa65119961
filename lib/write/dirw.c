/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * New directories: records packed into whole blocks, the last record of
 * each block stretched to its end, "." and ".." first as the kernel's
 * make_empty writes them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/writer.h>

struct nlfs_dirw {
	struct nlfs_writer *w;
	uint32_t blocksize;
	uint8_t *blk;
	uint32_t used, last;      /* bytes used; offset of the last record */
	uint64_t blkoff;
};

/* 65536 does not fit in rec_len: it is stored as 65535 */
static nlfs_le16_t rec_len_to_disk(uint32_t len)
{
	return nlfs_cpu_to_le16((uint16_t)(len >= 65536 ? 65535 : len));
}

static void set_rec_len(struct nlfs_dirw *d, uint32_t off, uint32_t len)
{
	nlfs_le16_t v = rec_len_to_disk(len);

	memcpy(d->blk + off + offsetof(struct nlfs_dir_entry, rec_len), &v, 2);
}

static int flush_block(struct nlfs_dirw *d, struct nlfs_err *err)
{
	int rc;

	set_rec_len(d, d->last, d->blocksize - d->last);
	rc = nlfs_writer_file_block(d->w, d->blkoff++, d->blk, err);
	memset(d->blk, 0, d->blocksize);
	d->used = d->last = 0;
	return rc;
}

int nlfs_dirw_add(struct nlfs_dirw *d, const char *name, size_t len, uint64_t ino,
		  uint8_t file_type, struct nlfs_err *err)
{
	struct nlfs_dir_entry de = { 0 };
	uint32_t need = NLFS_DIR_REC_LEN((uint32_t)len);
	int rc;

	if (len == 0 || len > NLFS_NAME_LEN)
		return nlfs_err_set(err, ENAMETOOLONG, NLFS_NOWHERE, "name of %zu bytes", len);
	if (d->used + need > d->blocksize) {
		rc = flush_block(d, err);
		if (rc)
			return rc;
	}
	de.inode = nlfs_cpu_to_le64(ino);
	de.rec_len = rec_len_to_disk(need);
	de.name_len = (uint8_t)len;
	de.file_type = file_type;
	memcpy(d->blk + d->used, &de, NLFS_DIR_ENTRY_HEADER);
	memcpy(d->blk + d->used + NLFS_DIR_ENTRY_HEADER, name, len);
	d->last = d->used;
	d->used += need;
	return 0;
}

void nlfs_dirw_free(struct nlfs_dirw *d)
{
	if (!d)
		return;
	free(d->blk);
	free(d);
}

int nlfs_dirw_begin(struct nlfs_writer *w, uint64_t ino, uint64_t parent, struct nlfs_dirw **out,
		    struct nlfs_err *err)
{
	uint8_t dir_type = nlfs_file_type_of_mode(NLFS_S_IFDIR);
	struct nlfs_dirw *d = calloc(1, sizeof(*d));
	int rc;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	d->w = w;
	d->blocksize = nlfs_writer_geometry(w)->blocksize;
	d->blk = calloc(1, d->blocksize);
	if (!d->blk) {
		free(d);
		return -ENOMEM;
	}
	rc = nlfs_writer_file_begin(w, ino, err);
	if (!rc)
		rc = nlfs_dirw_add(d, ".", 1, ino, dir_type, err);
	if (!rc)
		rc = nlfs_dirw_add(d, "..", 2, parent, dir_type, err);
	if (rc) {
		nlfs_dirw_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

int nlfs_dirw_end(struct nlfs_dirw *d, struct nlfs_inode *inode, struct nlfs_err *err)
{
	int rc = flush_block(d, err);

	if (!rc) {
		inode->i_size = nlfs_cpu_to_le64(d->blkoff * d->blocksize);
		rc = nlfs_writer_file_end(d->w, inode, err);
	}
	nlfs_dirw_free(d);
	return rc;
}
