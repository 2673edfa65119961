/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the input is a device image (fuzz_image.h).  Open it, walk the
 * log chain with every summary record, and read the super-root inodes.
 * Any crash, overflow or undefined behaviour is a bug in a parser.
 */
#include <stdlib.h>
#include <string.h>

#include <nlfs/nlfs.h>
#include <nlfs/io_test.h>
#include "fuzz_image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int walk_binfo(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi,
		      void *arg)
{
	uint64_t *acc = arg;

	*acc += fi->ino + (bi ? bi->blkoff + bi->vblocknr + bi->level : 0);
	return 0;
}

static int walk_log(const struct nlfs_log *log, const void *summary, void *arg)
{
	struct nlfs_fs *fs = arg;
	uint64_t acc = 0;

	if (summary)
		nlfs_summary_walk(log, summary, nlfs_fs_geometry(fs)->blocksize, walk_binfo,
				  &acc, NULL);
	return 0;
}

static int visit_bmap(uint64_t blkoff, uint64_t ptr, unsigned level, void *arg)
{
	(void)blkoff; (void)ptr; (void)level; (void)arg;
	return 0;
}

struct tree_walk {
	struct nlfs_fs *fs;
	struct nlfs_file *ifile;
	int budget;   /* bounds the walk: a corrupt tree may have cycles */
};

static int visit_entry(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct tree_walk *w = arg;
	struct nlfs_file f;
	uint8_t buf[512];
	size_t n;

	(void)type;
	if (--w->budget <= 0)
		return 1;
	if (nlfs_dir_name_is_dots(name, len))
		return 0;
	if (nlfs_ifile_read(w->fs, w->ifile, ino, &f, NULL))
		return 0;
	nlfs_bmap_iterate(w->fs, &f, visit_bmap, NULL, NULL);
	nlfs_file_pread(w->fs, &f, buf, sizeof(buf), 0, &n, NULL);
	nlfs_dir_iterate(w->fs, &f, visit_entry, w, NULL);
	return 0;
}

static int visit_inode(const struct nlfs_file *f, void *arg)
{
	int *budget = arg;

	(void)f;
	return --*budget <= 0;
}

static void walk_files(struct nlfs_fs *fs)
{
	struct nlfs_suhead sh;
	struct nlfs_suinfo su;
	int budget = 256;
	struct nlfs_file ifile, root;
	struct nlfs_cphead h;
	struct tree_walk w = { fs, &ifile, 64 };

	nlfs_cpfile_header(fs, &h, NULL);
	nlfs_sufile_header(fs, &sh, NULL);
	for (uint64_t seg = 0; seg < 4; seg++)
		nlfs_sufile_get(fs, seg, &su, NULL);
	if (nlfs_fs_ifile(fs, 0, &ifile, NULL))
		return;
	nlfs_ifile_iterate(fs, &ifile, visit_inode, &budget, NULL);
	if (nlfs_ifile_read(fs, &ifile, NLFS_ROOT_INO, &root, NULL))
		return;
	nlfs_dir_iterate(fs, &root, visit_entry, &w, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	struct nlfs_err err;

	if (fuzz_image_mem(data, size, &io))
		return 0;
	if (nlfs_fs_open(io, &fs, &err)) {
		char msg[320];

		nlfs_err_format(&err, msg, sizeof(msg));
		nlfs_io_close(io);
		return 0;
	}
	nlfs_fs_walk_chain(fs, walk_log, fs, &err);
	for (unsigned ino = NLFS_DAT_INO; ino <= NLFS_SUFILE_INO; ino++)
		(void)nlfs_fs_sr_inode(fs, ino)->i_mode;
	walk_files(fs);
	nlfs_fs_close(fs);
	return 0;
}
