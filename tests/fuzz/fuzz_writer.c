/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the input is a device image (fuzz_image.h).  Open it and make
 * one offline construction on it (snapshot the latest checkpoint, delete
 * the first one, commit), then open the result.  The writer reads the
 * metadata files' maps, palloc descriptors and bitmaps, cpfile and sufile
 * entries from disk; none of it may be trusted.
 */
#include <string.h>

#include <nlfs/io_test.h>
#include "fuzz_image.h"
#include <nlfs/writer.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	struct nlfs_writer *w;
	struct nlfs_err err;
	uint64_t n, cno;

	if (fuzz_image_mem(data, size, &io))
		return 0;
	if (nlfs_fs_open(io, &fs, &err)) {
		nlfs_io_close(io);
		return 0;
	}
	cno = nlfs_fs_recovery(fs)->cno;
	if (nlfs_writer_open(fs, 1700000000, 0, &w, &err) == 0) {
		nlfs_writer_set_snapshot(w, cno, true, &err);
		nlfs_writer_delete_checkpoints(w, 1, 2, &n, &err);
		nlfs_writer_commit(w, &err);
		nlfs_writer_free(w);
	}
	io = nlfs_fs_release(fs);
	if (nlfs_fs_open(io, &fs, &err) == 0) {
		struct nlfs_cphead h;

		nlfs_cpfile_header(fs, &h, &err);
		nlfs_fs_close(fs);
	} else {
		nlfs_io_close(io);
	}
	return 0;
}
