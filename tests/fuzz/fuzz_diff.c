/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the input is a device image (fuzz_image.h).  Every pair of its
 * first checkpoints is compared with the diff walk (nlfs_diff), and the
 * history and a path of a few inodes are looked up (nlfs_history,
 * nlfs_ino_path).  Any crash, overflow, leak or undefined behaviour is a
 * bug in the walk.
 */
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>
#include <nlfs/io_test.h>
#include "fuzz_image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_CPS 4

static int count_change(const struct nlfs_diff_change *c, void *arg)
{
	size_t *n = arg;

	*n += strlen(c->path) + (c->new_path ? strlen(c->new_path) : 0);
	return 0;
}

static int count_version(const struct nlfs_version *v, void *arg)
{
	size_t *n = arg;

	*n += v->inode ? 1 : 0;
	return *n > 64;   /* enough: stop */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_cpinfo ci[MAX_CPS];
	uint64_t cno = 1;
	size_t got = 0, n = 0;

	if (size < 4096 || fuzz_image_mem(data, size, &io))
		return 0;
	if (nlfs_fs_open(io, &fs, &err)) {
		nlfs_io_close(io);
		return 0;
	}
	if (nlfs_cpfile_list(fs, &cno, NLFS_CPINFO_CHECKPOINTS, ci, MAX_CPS, &got, &err))
		got = 0;
	for (size_t i = 0; i < got; i++)
		for (size_t j = 0; j < got; j++)
			nlfs_diff(fs, ci[i].cno, ci[j].cno, count_change, &n, NULL, &err);
	nlfs_diff(fs, 1, 0, count_change, &n, NULL, &err);
	for (uint64_t ino = NLFS_ROOT_INO; ino < 16; ino += ino == NLFS_ROOT_INO ? 9 : 1) {
		struct nlfs_file ifile, f;
		char *path = NULL;

		if (nlfs_fs_ifile(fs, 0, &ifile, &err) || nlfs_ifile_read(fs, &ifile, ino, &f, &err))
			continue;
		nlfs_history(fs, ino, nlfs_le32(f.inode.i_generation), count_version, &n, NULL, &err);
		if (!nlfs_ino_path(fs, 0, ino, &path, &err))
			n += strlen(path);
		free(path);
	}
	nlfs_fs_close(fs);
	return n == (size_t)-1;
}
