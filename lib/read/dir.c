/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Directories read: every record checked (format/dir_record.c) as the
 * kernel checks it while reading, and a path looked up name by name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

int nlfs_dir_block_entries(const struct nlfs_file *dir, uint64_t blkoff, const uint8_t *buf,
			   uint32_t bs, nlfs_dir_cb cb, void *arg, struct nlfs_err *err)
{
	for (unsigned off = 0; off < bs;) {
		struct nlfs_dir_rec de;
		const char *why = nlfs_dir_record_why(buf, bs, off, &de);
		int rc;

		if (why) {
			rc = nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
					  "directory block %llu, byte %u: %s",
					  (unsigned long long)blkoff, off, why);
			if (err) {
				err->ino = dir->ino;
				err->cno = dir->cno;
			}
			return rc;
		}
		if (de.ino && de.name_len) {
			rc = cb(de.name, de.name_len, de.ino, de.file_type & 7, arg);
			if (rc)
				return rc;
		}
		off += de.rec_len;
	}
	return 0;
}

int nlfs_dir_iterate(struct nlfs_fs *fs, const struct nlfs_file *dir, nlfs_dir_cb cb,
		     void *arg, struct nlfs_err *err)
{
	uint32_t bs = fs->geo.blocksize;
	uint64_t size = nlfs_le64(dir->inode.i_size);
	uint64_t nblocks = size / bs + (size % bs != 0), end;
	uint8_t *buf;
	int rc = nlfs_file_mapped_end(fs, dir, &end, err);

	if (rc)
		return rc;
	if (nblocks > end)
		nblocks = end;   /* past the last mapped block lie only holes */
	buf = malloc(bs);
	if (!buf)
		return -ENOMEM;
	for (uint64_t b = 0; b < nblocks && !rc; b++) {
		bool hole;

		rc = nlfs_file_read_block(fs, dir, b, buf, &hole, err);
		if (rc || hole)
			continue;
		rc = nlfs_dir_block_entries(dir, b, buf, bs, cb, arg, err);
	}
	free(buf);
	return rc;
}

struct find_name {
	const char *name;
	size_t len;
	uint64_t ino;
};

static int match_name(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct find_name *f = arg;

	(void)type;
	if (len == f->len && !memcmp(name, f->name, len)) {
		f->ino = ino;
		return 1;
	}
	return 0;
}

int nlfs_path_lookup(struct nlfs_fs *fs, const struct nlfs_file *ifile, const char *path,
		     struct nlfs_file *out, struct nlfs_err *err)
{
	int rc = nlfs_ifile_read(fs, ifile, NLFS_ROOT_INO, out, err);

	while (!rc && *path) {
		struct find_name f = { path, 0, 0 };

		while (*f.name == '/')
			f.name++;
		f.len = strcspn(f.name, "/");
		path = f.name + f.len;
		if (f.len == 0)
			break;
		if ((nlfs_le16(out->inode.i_mode) & NLFS_S_IFMT) != NLFS_S_IFDIR) {
			rc = nlfs_err_set(err, ENOTDIR, NLFS_NOWHERE, "%.*s",
					  (int)(f.name - path + f.len), f.name);
			break;
		}
		rc = nlfs_dir_iterate(fs, out, match_name, &f, err);
		if (rc < 0)
			break;
		if (!f.ino) {
			rc = nlfs_err_set(err, ENOENT, NLFS_NOWHERE, "%.*s", (int)f.len, f.name);
			if (err)
				err->cno = ifile->cno;
			break;
		}
		rc = nlfs_ifile_read(fs, ifile, f.ino, out, err);
	}
	return rc;
}
