/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Five checkpoints written by the library's writer:
 *   1: / {a (2 blocks), c, h, d/ {b, keep}}
 *   2: a rewritten (3 blocks), d/b renamed d/b2 (its inode untouched), c
 *      removed, e created, h linked again as d/h2
 *   3: d/f created
 *   4: b2 rewritten in place (no directory changes); it is numbered
 *      below its directory d, so the search near its number misses d
 *   5: h (both its names) and keep rewritten in place
 */
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/io_test.h>
#include <nlfs/repair.h>
#include <nlfs/writer.h>
#include "diffimg.h"

enum { A, B, C, D, E, F, H, K, NINO };

struct build {
	struct nlfs_writer *w;
	struct nlfs_err *err;
	uint64_t ino[NINO];
};

struct dent {
	const char *name;
	int which;
	uint8_t type;
};

static void mk_inode(struct nlfs_inode *i, uint16_t mode, uint16_t links, uint64_t t)
{
	memset(i, 0, sizeof(*i));
	i->i_mode = nlfs_cpu_to_le16(mode);
	i->i_links_count = nlfs_cpu_to_le16(links);
	i->i_mtime = i->i_ctime = nlfs_cpu_to_le64(t);
	i->i_generation = nlfs_cpu_to_le32(7);
}

static int put_file(struct build *b, int which, unsigned nblocks, uint8_t fill, uint64_t t)
{
	uint8_t buf[DIFFIMG_BS];
	struct nlfs_inode i;
	int rc = nlfs_writer_file_begin(b->w, b->ino[which], b->err);

	memset(buf, fill, sizeof(buf));
	for (unsigned k = 0; !rc && k < nblocks; k++)
		rc = nlfs_writer_file_block(b->w, k, buf, b->err);
	mk_inode(&i, 0100644, 1, t);
	i.i_size = nlfs_cpu_to_le64((uint64_t)nblocks * DIFFIMG_BS);
	return rc ? rc : nlfs_writer_file_end(b->w, &i, b->err);
}

static int put_dir(struct build *b, uint64_t ino, const struct dent *d, size_t nd,
		   uint16_t links, uint64_t t, bool replace)
{
	struct nlfs_dirw *dw = NULL;
	struct nlfs_inode i;
	int rc = replace ? nlfs_writer_file_replace(b->w, ino, b->err) : 0;

	if (!rc)
		rc = nlfs_dirw_begin(b->w, ino, NLFS_ROOT_INO, &dw, b->err);
	for (size_t k = 0; !rc && k < nd; k++)
		rc = nlfs_dirw_add(dw, d[k].name, strlen(d[k].name), b->ino[d[k].which],
				   d[k].type, b->err);
	if (rc) {
		nlfs_dirw_free(dw);
		return rc;
	}
	mk_inode(&i, 040755, links, t);
	return nlfs_dirw_end(dw, &i, b->err);
}

/* the next checkpoint's writer on IO (*FS to release after the commit) */
static int next_cp(struct build *b, struct nlfs_io *io, struct nlfs_fs **fs, uint64_t t)
{
	int rc = nlfs_fs_open(io, fs, b->err);

	if (!rc && (rc = nlfs_writer_open(*fs, t, 0, &b->w, b->err)))
		nlfs_fs_release(*fs);
	return rc;
}

static int commit(struct build *b, struct nlfs_fs *fs, int rc)
{
	if (!rc)
		rc = nlfs_writer_commit(b->w, b->err);
	nlfs_writer_free(b->w);
	if (fs)
		nlfs_fs_release(fs);
	return rc;
}

static int first(struct build *b)
{
	const struct dent root[] = { { "a", A, 1 }, { "c", C, 1 }, { "d", D, 2 }, { "h", H, 1 } };
	const struct dent d[] = { { "b", B, 1 }, { "keep", K, 1 } };
	int rc = 0;

	for (int k = A; !rc && k < NINO; k++)
		if (k != E && k != F)
			rc = nlfs_writer_new_ino(b->w, &b->ino[k], b->err);
	if (!rc)
		rc = put_dir(b, NLFS_ROOT_INO, root, 4, 3, 1700000000, false);
	if (!rc)
		rc = put_dir(b, b->ino[D], d, 2, 2, 1700000000, false);
	for (int k = A; !rc && k < NINO; k++)
		if (k != D && k != E && k != F)
			rc = put_file(b, k, k == A ? 2 : 1, (uint8_t)k, 1700000000);
	return rc;
}

static int second(struct build *b)
{
	const struct dent root[] = { { "a", A, 1 }, { "d", D, 2 }, { "e", E, 1 }, { "h", H, 1 } };
	const struct dent d[] = { { "b2", B, 1 }, { "h2", H, 1 }, { "keep", K, 1 } };
	struct nlfs_inode in;
	int rc = nlfs_writer_new_ino(b->w, &b->ino[E], b->err);

	if (!rc)
		rc = put_dir(b, NLFS_ROOT_INO, root, 4, 3, 1700000100, true);
	if (!rc)
		rc = put_dir(b, b->ino[D], d, 3, 2, 1700000100, true);
	if (!rc)
		rc = nlfs_writer_file_replace(b->w, b->ino[A], b->err);
	if (!rc)
		rc = put_file(b, A, 3, 0x55, 1700000100);
	if (!rc)
		rc = put_file(b, E, 1, 0x66, 1700000100);
	if (!rc)
		rc = nlfs_writer_get_inode(b->w, b->ino[H], &in, b->err);
	if (!rc) {
		in.i_links_count = nlfs_cpu_to_le16(2);
		in.i_ctime = nlfs_cpu_to_le64(1700000100);
		rc = nlfs_writer_put_inode(b->w, b->ino[H], &in, b->err);
	}
	return rc ? rc : nlfs_writer_clear_inode(b->w, b->ino[C], b->err);
}

static int third(struct build *b)
{
	const struct dent d[] = { { "b2", B, 1 }, { "f", F, 1 }, { "h2", H, 1 }, { "keep", K, 1 } };
	int rc = nlfs_writer_new_ino(b->w, &b->ino[F], b->err);

	if (!rc)
		rc = put_dir(b, b->ino[D], d, 4, 2, 1700000200, true);
	return rc ? rc : put_file(b, F, 1, 0x77, 1700000200);
}

/* the files WHICH (N) rewritten in place, h keeping its two links */
static int rewrite(struct build *b, const int *which, size_t n, uint64_t t)
{
	struct nlfs_inode in;
	int rc = 0;

	for (size_t k = 0; !rc && k < n; k++) {
		rc = nlfs_writer_file_replace(b->w, b->ino[which[k]], b->err);
		if (!rc)
			rc = put_file(b, which[k], 1, (uint8_t)(0x80 + k), t);
		if (!rc && which[k] == H)
			rc = nlfs_writer_get_inode(b->w, b->ino[H], &in, b->err);
		if (!rc && which[k] == H) {
			in.i_links_count = nlfs_cpu_to_le16(2);
			rc = nlfs_writer_put_inode(b->w, b->ino[H], &in, b->err);
		}
	}
	return rc;
}

int diffimg_build(uint64_t size, uint32_t bps, struct nlfs_io **out, struct nlfs_err *err)
{
	struct nlfs_mkfs_params p = { .blocksize = DIFFIMG_BS, .blocks_per_segment = bps,
				      .r_segments_percentage = 5, .devsize = size,
				      .ctime = 1700000000, .uuid = { 1, 2, 3 } };
	struct nlfs_super_block sb;
	struct build b = { .err = err };
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	int rc = nlfs_io_open_mem(size, &io);

	if (rc)
		return rc;
	rc = nlfs_mkfs_superblock(&p, &sb, NULL, err);
	if (!rc)
		rc = nlfs_writer_create(io, &sb, &b.w, err);
	if (!rc)
		rc = commit(&b, NULL, first(&b));
	if (!rc && !(rc = next_cp(&b, io, &fs, 1700000100)))
		rc = commit(&b, fs, second(&b));
	if (!rc && !(rc = next_cp(&b, io, &fs, 1700000200)))
		rc = commit(&b, fs, third(&b));
	if (!rc && !(rc = next_cp(&b, io, &fs, 1700000300)))
		rc = commit(&b, fs, rewrite(&b, (const int[]){ B }, 1, 1700000300));
	if (!rc && !(rc = next_cp(&b, io, &fs, 1700000400)))
		rc = commit(&b, fs, rewrite(&b, (const int[]){ H, K }, 2, 1700000400));
	if (rc) {
		nlfs_io_close(io);
		return rc;
	}
	*out = io;
	return 0;
}
