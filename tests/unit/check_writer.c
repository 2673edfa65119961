/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The log writer: volumes made in memory are read back through the reader;
 * B-tree maps of one to four levels; a second construction on an existing
 * volume; and a crash at every write of both jobs leaves the old state or
 * the new one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include <nlfs/endian.h>
#include <nlfs/gc.h>
#include <nlfs/io_test.h>
#include <nlfs/repair.h>

struct tfile {
	const char *name;
	uint64_t nblocks;     /* file length in blocks */
	uint64_t stride;      /* every STRIDE-th block holds data, the rest are holes */
};

static const struct tfile files[] = {
	{ "empty", 0, 1 },   { "one", 1, 1 },      { "six", 6, 1 },     { "seven", 7, 1 },
	{ "root3", 190, 1 }, { "lvl2", 400, 1 },   { "sparse", 9000, 997 },
	{ "lvl3", 4100, 1 },  { "deep", 200000, 16 },
};
#define NFILES (sizeof(files) / sizeof(files[0]))
/* the crash tests use the small files only, on a small device */
#define NSMALL 6
static size_t nfiles = NFILES;

static void pattern(uint8_t *buf, uint32_t bs, size_t fileno, uint64_t blk)
{
	for (uint32_t i = 0; i < bs; i += 8) {
		uint64_t v = (fileno + 1) * 0x100000001b3ull ^ (blk * 0x9E3779B97F4A7C15ull) ^ i;

		memcpy(buf + i, &v, 8);
	}
}

static struct nlfs_io *new_mem(uint64_t size)
{
	struct nlfs_io *io;

	ck_assert_int_eq(nlfs_io_open_mem(size, &io), 0);
	return io;
}

static void make_sb(struct nlfs_super_block *sb, uint32_t bs, uint32_t bps, uint64_t size)
{
	struct nlfs_mkfs_params p = { .blocksize = bs, .blocks_per_segment = bps,
				      .r_segments_percentage = 5, .devsize = size,
				      .ctime = 1700000000, .uuid = { 1, 2, 3, 4 } };
	struct nlfs_err err;

	ck_assert_msg(nlfs_mkfs_superblock(&p, sb, NULL, &err) == 0, "%s", err.what);
}

static void mk_inode(struct nlfs_inode *ino, uint16_t mode, uint16_t links, uint64_t size)
{
	memset(ino, 0, sizeof(*ino));
	ino->i_mode = nlfs_cpu_to_le16(mode);
	ino->i_links_count = nlfs_cpu_to_le16(links);
	ino->i_size = nlfs_cpu_to_le64(size);
	ino->i_mtime = ino->i_ctime = nlfs_cpu_to_le64(1700000000);
}

/* mkfs: a root directory holding FILES; returns the writer's result */
static int mkfs_job(struct nlfs_io *io, uint32_t bs, uint32_t bps, uint64_t size)
{
	struct nlfs_super_block sb;
	struct nlfs_writer *w;
	struct nlfs_err err;
	struct nlfs_dirw *dw = NULL;
	struct nlfs_inode ino;
	uint64_t inos[NFILES];
	uint8_t *buf = malloc(bs);
	int rc;

	make_sb(&sb, bs, bps, size);
	rc = nlfs_writer_create(io, &sb, &w, &err);
	if (rc)
		goto out_nofree;
	for (size_t i = 0; !rc && i < nfiles; i++)
		rc = nlfs_writer_new_ino(w, &inos[i], &err);
	if (!rc)
		rc = nlfs_dirw_begin(w, NLFS_ROOT_INO, NLFS_ROOT_INO, &dw, &err);
	for (size_t i = 0; !rc && i < nfiles; i++)
		rc = nlfs_dirw_add(dw, files[i].name, strlen(files[i].name), inos[i], 1, &err);
	if (!rc) {
		mk_inode(&ino, 040755, 2, 0);
		rc = nlfs_dirw_end(dw, &ino, &err);
	} else {
		nlfs_dirw_free(dw);
	}
	for (size_t i = 0; !rc && i < nfiles; i++) {
		rc = nlfs_writer_file_begin(w, inos[i], &err);
		for (uint64_t b = 0; !rc && b < files[i].nblocks; b += files[i].stride) {
			pattern(buf, bs, i, b);
			rc = nlfs_writer_file_block(w, b, buf, &err);
		}
		mk_inode(&ino, 0100644, 1, files[i].nblocks * bs);
		if (!rc)
			rc = nlfs_writer_file_end(w, &ino, &err);
	}
	if (!rc)
		rc = nlfs_writer_commit(w, &err);
	nlfs_writer_free(w);
out_nofree:
	free(buf);
	return rc;
}

/* a copy of a memory device's bytes, as a disk would hold them after power loss */
static struct nlfs_io *snapshot(struct nlfs_io *mem, uint64_t size)
{
	struct nlfs_io *io = new_mem(size);

	memcpy(nlfs_io_mem_data(io), nlfs_io_mem_data(mem), size);
	return io;
}

static int depth_cb(uint64_t blkoff, uint64_t ptr, unsigned level, void *arg)
{
	unsigned *max = arg;

	(void)blkoff;
	(void)ptr;
	if (level > *max)
		*max = level;
	return 0;
}

/* every file reads back; returns the latest checkpoint number */
static uint64_t verify(struct nlfs_io *io, uint32_t bs, unsigned *max_level)
{
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_file ifile, f;
	uint8_t *got = malloc(bs), *want = malloc(bs);
	uint64_t cno;
	int rc = nlfs_fs_open(io, &fs, &err);

	ck_assert_msg(rc == 0, "open: %s", err.what);
	cno = nlfs_fs_recovery(fs)->cno;
	ck_assert_int_eq(nlfs_fs_ifile(fs, 0, &ifile, &err), 0);
	for (size_t i = 0; i < nfiles; i++) {
		char path[64];
		unsigned level = 0;

		snprintf(path, sizeof(path), "/%s", files[i].name);
		ck_assert_msg(nlfs_path_lookup(fs, &ifile, path, &f, &err) == 0, "%s: %s", path,
			      err.what);
		ck_assert_uint_eq(nlfs_le64(f.inode.i_size), files[i].nblocks * bs);
		for (uint64_t b = 0; b < files[i].nblocks; b++) {
			size_t done;

			ck_assert_int_eq(nlfs_file_pread(fs, &f, got, bs, b * bs, &done, &err), 0);
			ck_assert_uint_eq(done, bs);
			if (b % files[i].stride == 0)
				pattern(want, bs, i, b);
			else
				memset(want, 0, bs);
			ck_assert_msg(!memcmp(got, want, bs), "%s block %llu differs", path,
				      (unsigned long long)b);
		}
		ck_assert_int_eq(nlfs_bmap_iterate(fs, &f, depth_cb, &level, &err), 0);
		if (max_level && level > *max_level)
			*max_level = level;
	}
	nlfs_fs_release(fs);
	free(got);
	free(want);
	return cno;
}

START_TEST(test_mkfs_roundtrip)
{
	static const uint32_t sizes[][2] = { { 1024, 64 }, { 2048, 128 }, { 4096, 256 } };
	uint32_t bs = sizes[_i][0], bps = sizes[_i][1];
	uint64_t size = 96ull << 20;
	struct nlfs_io *io = new_mem(size);
	unsigned level = 0;

	ck_assert_int_eq(mkfs_job(io, bs, bps, size), 0);
	ck_assert_uint_eq(verify(io, bs, &level), 1);
	/* "deep": a 4-level map with 1 KiB blocks (nodes at levels 1-3), 3 with larger ones */
	ck_assert_uint_eq(level, bs == 1024 ? 3 : 2);
	nlfs_io_close(io);
}
END_TEST

START_TEST(test_mkfs_params)
{
	struct nlfs_mkfs_params p = { .blocksize = 4096, .blocks_per_segment = 2048,
				      .r_segments_percentage = 5, .devsize = 64ull << 20 };
	struct nlfs_super_block sb;
	struct nlfs_err err;
	uint64_t need = 0;

	ck_assert_int_eq(nlfs_mkfs_superblock(&p, &sb, &need, &err), -ENOSPC);
	ck_assert_uint_gt(need, p.devsize);
	p.devsize = need;
	ck_assert_int_eq(nlfs_mkfs_superblock(&p, &sb, NULL, &err), 0);
	ck_assert_int_eq(nlfs_sb_check_crc(&sb), 0);
	ck_assert_uint_eq(nlfs_le64(sb.s_first_data_block), 1);
	p.blocksize = 3000;
	ck_assert_int_eq(nlfs_mkfs_superblock(&p, &sb, NULL, &err), -EINVAL);
	p.blocksize = 1024;
	p.blocks_per_segment = 4;
	ck_assert_int_eq(nlfs_mkfs_superblock(&p, &sb, NULL, &err), -EINVAL);
}
END_TEST

/* offline "mkcp": a construction with no file changes on an existing volume */
static int second_job(struct nlfs_io *io, struct nlfs_err *err)
{
	struct nlfs_fs *fs;
	struct nlfs_writer *w;
	int rc = nlfs_fs_open(io, &fs, err);

	if (rc)
		return rc;
	rc = nlfs_writer_open(fs, 1700000100, 0, &w, err);
	if (!rc) {
		rc = nlfs_writer_commit(w, err);
		nlfs_writer_free(w);
	}
	nlfs_fs_release(fs);
	return rc;
}

START_TEST(test_second_checkpoint)
{
	uint32_t bs = 1024;
	uint64_t size = 48ull << 20;
	struct nlfs_io *io = new_mem(size);
	struct nlfs_err err;
	struct nlfs_fs *fs;
	struct nlfs_cphead h;
	struct nlfs_cpinfo cp;

	ck_assert_int_eq(mkfs_job(io, bs, 64, size), 0);
	for (uint64_t want = 2; want <= 4; want++) {
		ck_assert_msg(second_job(io, &err) == 0, "%s", err.what);
		ck_assert_uint_eq(verify(io, bs, NULL), want);
	}
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_cpfile_header(fs, &h, &err), 0);
	ck_assert_uint_eq(h.ncheckpoints, 4);
	/* the checkpoints in between still exist; with nothing changed they are minor */
	ck_assert_int_eq(nlfs_cpfile_info(fs, 1, &cp, &err), 0);
	ck_assert_int_eq(nlfs_cpfile_info(fs, 3, &cp, &err), 0);
	ck_assert_uint_eq(cp.flags, NLFS_CHECKPOINT_MINOR);
	ck_assert_uint_eq(cp.inodes_count, NFILES + 1);
	nlfs_fs_release(fs);
}
END_TEST

/* the state a device is in: 0 if it holds no volume, else its checkpoint */
static uint64_t state_of(struct nlfs_io *io, uint32_t bs)
{
	struct nlfs_fs *fs;
	struct nlfs_err err;

	if (nlfs_fs_open(io, &fs, &err))
		return 0;
	nlfs_fs_release(fs);
	return verify(io, bs, NULL);
}

/* the repairs' kind of construction: the root directory written anew
 * with the entries it has (fsck.nilfs2 does this to mend a directory) */
struct dirents {
	char name[16][32];
	uint64_t ino[16];
	uint8_t type[16];
	size_t n;
};

static int keep_entry(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct dirents *d = arg;

	if (nlfs_dir_name_is_dots(name, len))
		return 0;
	ck_assert_uint_lt(d->n, 16);
	ck_assert_uint_lt(len, 32);
	memcpy(d->name[d->n], name, len);
	d->name[d->n][len] = 0;
	d->ino[d->n] = ino;
	d->type[d->n++] = (uint8_t)type;
	return 0;
}

static int rewrite_root_job(struct nlfs_fs *fs, struct nlfs_err *err)
{
	struct nlfs_writer *w = NULL;
	struct nlfs_file ifile, root;
	struct nlfs_inode inode;
	struct dirents d = { .n = 0 };
	struct nlfs_dirw *dw = NULL;
	int rc = nlfs_fs_ifile(fs, 0, &ifile, err);

	if (!rc)
		rc = nlfs_ifile_read(fs, &ifile, NLFS_ROOT_INO, &root, err);
	if (!rc)
		rc = nlfs_dir_iterate(fs, &root, keep_entry, &d, err);
	if (!rc)
		rc = nlfs_writer_open(fs, 1700000200, NLFS_WRITER_REPAIR, &w, err);
	if (!rc)
		rc = nlfs_writer_get_inode(w, NLFS_ROOT_INO, &inode, err);
	if (!rc)
		rc = nlfs_writer_file_replace(w, NLFS_ROOT_INO, err);
	if (!rc)
		rc = nlfs_dirw_begin(w, NLFS_ROOT_INO, NLFS_ROOT_INO, &dw, err);
	for (size_t i = 0; !rc && i < d.n; i++)
		rc = nlfs_dirw_add(dw, d.name[i], strlen(d.name[i]), d.ino[i], d.type[i], err);
	if (!rc)
		rc = nlfs_dirw_end(dw, &inode, err);
	else
		nlfs_dirw_free(dw);
	if (!rc)
		rc = nlfs_writer_commit(w, err);
	nlfs_writer_free(w);
	return rc;
}

static int plain_job(struct nlfs_fs *fs, struct nlfs_err *err)
{
	struct nlfs_writer *w = NULL;
	int rc = nlfs_writer_open(fs, 1700000100, 0, &w, err);

	if (!rc)
		rc = nlfs_writer_commit(w, err);
	nlfs_writer_free(w);
	return rc;
}

START_TEST(test_rewrite_dir)
{
	uint64_t size = 8ull << 20, old_ptr = 0, new_ptr = 0;
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_file ifile, root;
	struct nlfs_datinfo de;

	nfiles = NSMALL;
	io = new_mem(size);
	ck_assert_int_eq(mkfs_job(io, 1024, 64, size), 0);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_fs_ifile(fs, 0, &ifile, &err), 0);
	ck_assert_int_eq(nlfs_ifile_read(fs, &ifile, NLFS_ROOT_INO, &root, &err), 0);
	ck_assert_int_eq(nlfs_bmap_lookup(fs, &root, 0, &old_ptr, &err), 0);
	ck_assert_msg(rewrite_root_job(fs, &err) == 0, "%s", err.what);
	nlfs_fs_release(fs);
	/* every file is still found through the new root, whose block is new */
	ck_assert_uint_eq(verify(io, 1024, NULL), 2);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_fs_ifile(fs, 0, &ifile, &err), 0);
	ck_assert_int_eq(nlfs_ifile_read(fs, &ifile, NLFS_ROOT_INO, &root, &err), 0);
	ck_assert_int_eq(nlfs_bmap_lookup(fs, &root, 0, &new_ptr, &err), 0);
	ck_assert_uint_ne(new_ptr, old_ptr);
	/* the old version stays in checkpoint 1 only */
	ck_assert_int_eq(nlfs_dat_lookup(fs, old_ptr, &de, &err), 0);
	ck_assert_uint_eq(de.end, 2);
	ck_assert_int_eq(nlfs_dat_lookup(fs, new_ptr, &de, &err), 0);
	ck_assert_uint_eq(de.start, 2);
	nlfs_fs_release(fs);
	nlfs_io_close(io);
}
END_TEST

/* a file's map as (key, ptr) pairs */
struct pairs {
	uint64_t k[512], p[512], nodes[64];
	size_t n, nnodes;
};

static int pairs_cb(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	struct pairs *pp = arg;

	if (level) {
		if (pp->nnodes < 64)
			pp->nodes[pp->nnodes++] = ptr;
		return 0;
	}
	if (pp->n >= 512)
		return -ENOSPC;
	pp->k[pp->n] = key;
	pp->p[pp->n++] = ptr;
	return 0;
}

/* /lvl2 (a two-level B-tree) and /seven get maps built anew from their
 * own entries, as fsck's map repair does: the data stays, the nodes are new */
static int remap_job(struct nlfs_fs *fs, struct nlfs_err *err)
{
	static const char *const paths[] = { "/lvl2", "/seven" };
	struct nlfs_writer *w = NULL;
	struct nlfs_file ifile, f;
	int rc = nlfs_fs_ifile(fs, 0, &ifile, err);

	if (!rc)
		rc = nlfs_writer_open(fs, 1700000300, NLFS_WRITER_REPAIR, &w, err);
	for (size_t i = 0; !rc && i < 2; i++) {
		struct pairs pp = { .n = 0 };

		rc = nlfs_path_lookup(fs, &ifile, paths[i], &f, err);
		if (!rc)
			rc = nlfs_bmap_iterate(fs, &f, pairs_cb, &pp, err);
		if (!rc)
			rc = nlfs_writer_file_remap(w, f.ino, pp.k, pp.p, pp.n,
						    pp.n + pp.nnodes, err);
		for (size_t j = 0; !rc && j < pp.nnodes; j++)
			rc = nlfs_writer_end_vblock(w, pp.nodes[j], err);
	}
	if (!rc)
		rc = nlfs_writer_commit(w, err);
	nlfs_writer_free(w);
	return rc;
}

START_TEST(test_remap)
{
	uint64_t size = 8ull << 20;
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_file ifile, f;
	struct pairs before = { .n = 0 }, after = { .n = 0 }, salv = { .n = 0 };
	struct nlfs_cpinfo cp1, cp2;
	unsigned nbad = 9;

	nfiles = NSMALL;
	io = new_mem(size);
	ck_assert_int_eq(mkfs_job(io, 1024, 64, size), 0);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_fs_ifile(fs, 0, &ifile, &err), 0);
	ck_assert_int_eq(nlfs_path_lookup(fs, &ifile, "/lvl2", &f, &err), 0);
	ck_assert_int_eq(nlfs_bmap_iterate(fs, &f, pairs_cb, &before, &err), 0);
	ck_assert_uint_eq(before.n, 400);
	ck_assert_uint_gt(before.nnodes, 1);
	/* the salvage walk of an intact map gives what the walk gives */
	ck_assert_int_eq(nlfs_bmap_salvage(fs, &f, pairs_cb, &salv, &nbad), 0);
	ck_assert_uint_eq(nbad, 0);
	ck_assert_uint_eq(salv.n, before.n);
	ck_assert(!memcmp(salv.k, before.k, sizeof(salv.k)) && !memcmp(salv.p, before.p, sizeof(salv.p)));
	/* the root's pointer into nowhere: its subtree is skipped and counted */
	f.inode.i_bmap[4] = nlfs_cpu_to_le64(999999);
	memset(&salv, 0, sizeof(salv));
	ck_assert_int_eq(nlfs_bmap_salvage(fs, &f, pairs_cb, &salv, &nbad), 0);
	ck_assert_uint_eq(nbad, 1);
	ck_assert_uint_lt(salv.n, before.n);
	ck_assert_int_eq(nlfs_cpfile_info(fs, 1, &cp1, &err), 0);
	ck_assert_msg(remap_job(fs, &err) == 0, "%s", err.what);
	nlfs_fs_release(fs);
	/* every file reads as before; /lvl2's data blocks are the same, its nodes new */
	ck_assert_uint_eq(verify(io, 1024, NULL), 2);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_fs_ifile(fs, 0, &ifile, &err), 0);
	ck_assert_int_eq(nlfs_path_lookup(fs, &ifile, "/lvl2", &f, &err), 0);
	ck_assert_int_eq(nlfs_bmap_iterate(fs, &f, pairs_cb, &after, &err), 0);
	ck_assert_uint_eq(after.n, before.n);
	ck_assert(!memcmp(after.p, before.p, sizeof(after.p)));
	ck_assert_uint_ne(after.nodes[0], before.nodes[0]);
	ck_assert_uint_eq(nlfs_le64(f.inode.i_blocks), (after.n + after.nnodes) * 2);
	/* the same builder made as many nodes as mkfs did: the block count stays */
	ck_assert_uint_eq(after.nnodes, before.nnodes);
	ck_assert_int_eq(nlfs_cpfile_info(fs, 2, &cp2, &err), 0);
	ck_assert_uint_eq(cp2.blocks_count, cp1.blocks_count);
	nlfs_fs_release(fs);
	nlfs_io_close(io);
}
END_TEST

/* LOWER behind a fault device that, at write K, loses power in the middle
 * of it (keeping TORN bytes), right after it, or fails it (MODE 0, 1, 2) */
static struct nlfs_io *fault_at(struct nlfs_io *lower, uint64_t k, int mode, size_t torn)
{
	struct nlfs_io *fio;

	ck_assert_int_eq(nlfs_io_open_fault(lower, &fio), 0);
	if (mode == 0)
		nlfs_io_fault_tear_write(fio, k, torn);
	else if (mode == 1)
		nlfs_io_fault_tear_write(fio, k, SIZE_MAX);
	else
		nlfs_io_fault_fail_write(fio, k);
	return fio;
}

/* Run JOB (NULL: mkfs) on a fault device that loses power at write K: torn
 * in the middle, completed, or failed.  What the disk keeps must open as
 * OLD_CNO (0: no volume) or NEW_CNO, with every file intact. */
static void crash_job(uint64_t size, struct nlfs_io *base, uint32_t bs, uint64_t old_cno,
		      uint64_t new_cno, int (*job)(struct nlfs_fs *, struct nlfs_err *),
		      uint64_t *nwrites)
{
	uint64_t seen[2] = { 0, 0 };
	bool finished = false;

	for (uint64_t k = 0; !finished; k++) {
		for (int mode = 0; mode < 3; mode++) {
			struct nlfs_io *lower = base ? snapshot(base, size) : new_mem(size), *fio, *after;
			struct nlfs_fs *fs = NULL;
			struct nlfs_err err;
			uint64_t st;
			int rc;

			fio = fault_at(lower, k, mode, bs / 2 + 512);
			if (!base) {
				rc = mkfs_job(fio, bs, 64, size);
			} else {
				ck_assert_int_eq(nlfs_fs_open(fio, &fs, &err), 0);
				rc = job(fs, &err);
			}
			if (rc == 0 && mode == 2) {
				finished = true;   /* K is past the job's last write */
				*nwrites = k;
			}
			nlfs_io_fault_crash(fio);
			after = snapshot(lower, size);
			if (fs)
				nlfs_fs_close(fs);
			else
				nlfs_io_close(fio);
			st = state_of(after, bs);
			ck_assert_msg(st == old_cno || st == new_cno,
				      "crash at write %llu (mode %d): checkpoint %llu",
				      (unsigned long long)k, mode, (unsigned long long)st);
			seen[st == new_cno]++;
			nlfs_io_close(after);
		}
	}
	/* both outcomes happen: early crashes keep the old state, late ones the new */
	ck_assert_uint_gt(seen[0], 0);
	ck_assert_uint_gt(seen[1], 0);
}

static void crash_everywhere(uint64_t size, struct nlfs_io *base, uint32_t bs,
			     uint64_t old_cno, uint64_t new_cno, uint64_t *nwrites)
{
	crash_job(size, base, bs, old_cno, new_cno, plain_job, nwrites);
}

START_TEST(test_crash_remap)
{
	uint64_t size = 8ull << 20, n = 0;
	struct nlfs_io *io;

	nfiles = NSMALL;
	io = new_mem(size);
	ck_assert_int_eq(mkfs_job(io, 1024, 64, size), 0);
	crash_job(size, io, 1024, 1, 2, remap_job, &n);
	ck_assert_uint_gt(n, 2);
	nlfs_io_close(io);
}
END_TEST

START_TEST(test_crash_rewrite_dir)
{
	uint64_t size = 8ull << 20, n = 0;
	struct nlfs_io *io;

	nfiles = NSMALL;
	io = new_mem(size);
	ck_assert_int_eq(mkfs_job(io, 1024, 64, size), 0);
	crash_job(size, io, 1024, 1, 2, rewrite_root_job, &n);
	ck_assert_uint_gt(n, 2);
	nlfs_io_close(io);
}
END_TEST

/* --rollback's case: after mkfs (checkpoint 1) and one more checkpoint,
 * both superblocks point at the second's log and a byte of its super root
 * block past sr_bytes is flipped, so no search finds a super root.  The
 * rollback goes back to checkpoint 1; a crash at any of its writes leaves
 * a volume that opens there or, as before, not at all, and one that lost
 * power after the secondary copy opens there by the kernel's fallback. */
START_TEST(test_crash_rollback)
{
	uint64_t size = 8ull << 20, seen[2] = { 0, 0 };
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_recovery rec;
	uint8_t *d;
	bool finished = false;

	nfiles = NSMALL;
	io = new_mem(size);
	ck_assert_int_eq(mkfs_job(io, 1024, 64, size), 0);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(plain_job(fs, &err), 0);
	nlfs_fs_release(fs);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	rec = *nlfs_fs_recovery(fs);
	nlfs_fs_release(fs);
	ck_assert_uint_eq(rec.cno, 2);
	d = nlfs_io_mem_data(io);
	for (int i = 0; i < 2; i++) {
		struct nlfs_super_block sb;
		uint64_t off = i ? nlfs_sb2_offset(size) : NLFS_SB_OFFSET_BYTES;

		memcpy(&sb, d + off, sizeof(sb));
		sb.s_last_pseg = nlfs_cpu_to_le64(rec.sr_log);
		sb.s_last_seq = nlfs_cpu_to_le64(rec.sr_seq);
		sb.s_last_cno = nlfs_cpu_to_le64(rec.cno);
		nlfs_sb_update_crc(&sb);
		memcpy(d + off, &sb, sizeof(sb));
	}
	d[(rec.sr_block + 1) * 1024 - 1] ^= 1;
	ck_assert_uint_eq(state_of(io, 1024), 0);

	for (uint64_t k = 0; !finished; k++) {
		for (int mode = 0; mode < 3; mode++) {
			struct nlfs_io *lower = snapshot(io, size), *fio, *after;
			struct nlfs_rollback rb;
			uint64_t st;
			int rc;

			fio = fault_at(lower, k, mode, 512);
			ck_assert_int_eq(nlfs_fs_open_sb(fio, &fs, &err), 0);
			ck_assert_msg(nlfs_rollback_find(fs, &rb, &err) == 0, "%s", err.what);
			ck_assert(rb.needed);
			ck_assert_uint_eq(rb.cno, 1);
			ck_assert_uint_eq(rb.discarded, 1);
			rc = nlfs_rollback_write(fs, &rb, &err);
			if (rc == 0 && mode == 2)
				finished = true;   /* K is past the last write */
			nlfs_io_fault_crash(fio);
			after = snapshot(lower, size);
			nlfs_fs_close(fs);
			st = state_of(after, 1024);
			ck_assert_msg(st == 0 || st == 1, "crash at write %llu (mode %d): checkpoint %llu",
				      (unsigned long long)k, mode, (unsigned long long)st);
			/* write 0 ends the chain at the discarded log */
			if (k == 2 && mode == 2)   /* only the secondary written */
				ck_assert_uint_eq(st, 1);
			if (finished) {
				struct nlfs_chain_tail t;

				ck_assert_uint_eq(st, 1);
				ck_assert_int_eq(nlfs_fs_open(after, &fs, &err), 0);
				ck_assert_int_eq(nlfs_fs_chain_tail(fs, &t, &err), 0);
				ck_assert_uint_eq(t.nlogs, 0);   /* no search leads back */
				nlfs_fs_release(fs);
			}
			seen[st == 1]++;
			nlfs_io_close(after);
		}
	}
	ck_assert_uint_gt(seen[0], 0);
	ck_assert_uint_gt(seen[1], 0);
	nlfs_io_close(io);
}
END_TEST

START_TEST(test_crash_mkfs)
{
	uint64_t n = 0;

	nfiles = NSMALL;
	crash_everywhere(8ull << 20, NULL, 1024, 0, 1, &n);
	ck_assert_uint_gt(n, 4);
}
END_TEST

START_TEST(test_crash_second)
{
	uint64_t size = 8ull << 20, n = 0;
	struct nlfs_io *io;

	nfiles = NSMALL;
	io = new_mem(size);
	ck_assert_int_eq(mkfs_job(io, 1024, 64, size), 0);
	crash_everywhere(size, io, 1024, 1, 2, &n);
	ck_assert_uint_gt(n, 2);
	nlfs_io_close(io);
}
END_TEST

/* one offline construction: OP runs on the writer before commit */
typedef int (*wop)(struct nlfs_writer *w, void *arg, struct nlfs_err *err);
static int construct(struct nlfs_io *io, wop op, void *arg, struct nlfs_err *err)
{
	struct nlfs_fs *fs;
	struct nlfs_writer *w;
	int rc = nlfs_fs_open(io, &fs, err), rc2 = 0;

	if (rc)
		return rc;
	rc = nlfs_writer_open(fs, 1700000200, 0, &w, err);
	if (!rc && op)
		rc2 = op(w, arg, err);
	if (!rc && (rc2 == 0 || rc2 == -EBUSY))
		rc = nlfs_writer_commit(w, err);
	nlfs_writer_free(w);
	nlfs_fs_release(fs);
	return rc ? rc : rc2;
}

static int op_snap(struct nlfs_writer *w, void *arg, struct nlfs_err *err)
{
	const int64_t *cnos = arg;   /* positive: set, negative: clear; 0 ends */

	for (; *cnos; cnos++) {
		int rc = nlfs_writer_set_snapshot(w, (uint64_t)(*cnos > 0 ? *cnos : -*cnos),
						  *cnos > 0, err);
		if (rc)
			return rc;
	}
	return 0;
}

static int op_delete(struct nlfs_writer *w, void *arg, struct nlfs_err *err)
{
	const uint64_t *range = arg;
	uint64_t n;

	return nlfs_writer_delete_checkpoints(w, range[0], range[1], &n, err);
}

/* the snapshot list, walked from the header both ways */
static void check_snapshots(struct nlfs_io *io, const uint64_t *want, size_t n)
{
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_cphead h;
	struct nlfs_cpinfo cp;
	uint64_t c;
	size_t i;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_cpfile_header(fs, &h, &err), 0);
	ck_assert_uint_eq(h.nsnapshots, n);
	for (i = 0, c = h.snapshot_next; c; c = cp.next, i++) {
		ck_assert_uint_lt(i, n);
		ck_assert_uint_eq(c, want[i]);
		ck_assert_int_eq(nlfs_cpfile_info(fs, c, &cp, &err), 0);
		ck_assert(cp.flags & NLFS_CHECKPOINT_SNAPSHOT);
	}
	ck_assert_uint_eq(i, n);
	for (c = h.snapshot_prev; c; c = cp.prev) {
		ck_assert_uint_gt(i, 0);
		ck_assert_uint_eq(c, want[--i]);
		ck_assert_int_eq(nlfs_cpfile_info(fs, c, &cp, &err), 0);
	}
	ck_assert_uint_eq(i, 0);
	nlfs_fs_release(fs);
}

static bool cp_exists(struct nlfs_io *io, uint64_t cno)
{
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_cpinfo cp;
	bool ok;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ok = nlfs_cpfile_info(fs, cno, &cp, &err) == 0;
	nlfs_fs_release(fs);
	return ok;
}

START_TEST(test_checkpoint_ops)
{
	uint64_t size = 8ull << 20;
	struct nlfs_io *io;
	struct nlfs_err err;
	int64_t set1[] = { 9, 3, 15, 12, 0 }, clr[] = { -12, -3, 0 }, bad[] = { 99, 0 };
	uint64_t want1[] = { 3, 9, 12, 15 }, want2[] = { 9, 15 };
	uint64_t range[2];

	nfiles = NSMALL;
	io = new_mem(size);
	ck_assert_int_eq(mkfs_job(io, 1024, 64, size), 0);
	/* 1 KiB blocks hold 5 checkpoints each: 24 checkpoints span 5 cpfile blocks */
	for (int i = 0; i < 23; i++)
		ck_assert_msg(construct(io, NULL, NULL, &err) == 0, "%s", err.what);
	ck_assert_msg(construct(io, op_snap, set1, &err) == 0, "%s", err.what);
	check_snapshots(io, want1, 4);
	ck_assert_int_eq(construct(io, op_snap, bad, &err), -ENOENT);
	/* deleting 2..19 keeps the snapshots inside and says so */
	range[0] = 2;
	range[1] = 20;
	ck_assert_int_eq(construct(io, op_delete, range, &err), -EBUSY);
	for (uint64_t c = 2; c < 20; c++)
		ck_assert_msg(cp_exists(io, c) == (c == 3 || c == 9 || c == 12 || c == 15),
			      "checkpoint %llu", (unsigned long long)c);
	ck_assert(cp_exists(io, 1) && cp_exists(io, 20));
	ck_assert_msg(construct(io, op_snap, clr, &err) == 0, "%s", err.what);
	check_snapshots(io, want2, 2);
	/* 10..14 fill cpfile block 2: deleting them drops the block */
	range[0] = 10;
	range[1] = 15;
	ck_assert_msg(construct(io, op_delete, range, &err) == 0, "%s", err.what);
	{
		struct nlfs_fs *fs;
		struct nlfs_file f;
		struct nlfs_cphead h;
		uint64_t ptr = 1;

		ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
		nlfs_fs_mdt_file(fs, NLFS_CPFILE_INO, &f);
		ck_assert_int_eq(nlfs_bmap_lookup(fs, &f, 2, &ptr, &err), 0);
		ck_assert_uint_eq(ptr, 0);
		ck_assert_int_eq(nlfs_cpfile_header(fs, &h, &err), 0);
		/* 1, 3, 9, 15 and 20..28 */
		ck_assert_uint_eq(h.ncheckpoints, 13);
		nlfs_fs_release(fs);
	}
	/* the latest checkpoint cannot go */
	range[0] = 20;
	range[1] = 1000;
	ck_assert_int_eq(construct(io, op_delete, range, &err), -EBUSY);
	/* every file is still there after all of it */
	ck_assert_uint_eq(verify(io, 1024, NULL), 29);
	nlfs_io_close(io);
}
END_TEST

/* every checkpoint's cp_blocks_count equals what its files hold */
static void check_counts(struct nlfs_io *io, uint64_t ncps)
{
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_cpinfo cp;
	uint64_t n;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_uint_eq(nlfs_fs_recovery(fs)->cno, ncps);
	for (uint64_t c = 1; c <= ncps; c++) {
		ck_assert_int_eq(nlfs_cpfile_info(fs, c, &cp, &err), 0);
		ck_assert_msg(nlfs_cp_count_blocks(fs, c, &n, &err) == 0, "%s", err.what);
		ck_assert_msg(cp.blocks_count == n, "checkpoint %llu: %llu, files %llu",
			      (unsigned long long)c, (unsigned long long)cp.blocks_count,
			      (unsigned long long)n);
	}
	nlfs_fs_release(fs);
}

static struct nlfs_recount recount(struct nlfs_io *io)
{
	struct nlfs_recount rs;
	struct nlfs_fs *fs;
	struct nlfs_err err;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_msg(nlfs_recount_blocks(fs, 1700000300, &rs, &err) == 0, "%s", err.what);
	nlfs_fs_release(fs);
	return rs;
}

/* nilfs-tune -O block_count: wrong block counts of old checkpoints and of
 * the latest (which the next checkpoint carries on) are set right in one
 * construction; a volume whose counts are right is not written */
START_TEST(test_recount_blocks)
{
	uint64_t size = 8ull << 20;
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	struct nlfs_writer *w;
	struct nlfs_cpinfo cp;
	struct nlfs_recount rs;
	struct nlfs_err err;

	nfiles = NSMALL;
	io = new_mem(size);
	ck_assert_int_eq(mkfs_job(io, 1024, 64, size), 0);
	for (int i = 0; i < 5; i++)
		ck_assert_msg(construct(io, NULL, NULL, &err) == 0, "%s", err.what);
	/* the writer's counts are the files' */
	check_counts(io, 6);
	rs = recount(io);
	ck_assert_uint_eq(rs.ncheckpoints, 6);
	ck_assert_uint_eq(rs.nwrong, 0);
	ck_assert_uint_eq(rs.written_cno, 0);
	/* checkpoints 2 and 4 and the new latest, 7, counted wrong */
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_cpfile_info(fs, 0, &cp, &err), 0);
	ck_assert_int_eq(nlfs_writer_open(fs, 1700000250, 0, &w, &err), 0);
	ck_assert_int_eq(nlfs_writer_set_cp_blocks(w, 2, 1, &err), 0);
	ck_assert_int_eq(nlfs_writer_set_cp_blocks(w, 4, 100000, &err), 0);
	ck_assert_int_eq(nlfs_writer_set_cp_blocks(w, 99, 1, &err), -ENOENT);
	nlfs_writer_set_counts(w, cp.inodes_count, cp.blocks_count + 7);
	ck_assert_msg(nlfs_writer_commit(w, &err) == 0, "%s", err.what);
	nlfs_writer_free(w);
	nlfs_fs_release(fs);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_cpfile_info(fs, 4, &cp, &err), 0);
	ck_assert_uint_eq(cp.blocks_count, 100000);
	nlfs_fs_release(fs);
	rs = recount(io);
	ck_assert_uint_eq(rs.ncheckpoints, 7);
	ck_assert_uint_eq(rs.nwrong, 3);
	ck_assert_uint_eq(rs.latest_was, rs.latest_counted + 7);
	ck_assert_uint_eq(rs.written_cno, 8);
	check_counts(io, 8);
	rs = recount(io);
	ck_assert_uint_eq(rs.nwrong, 0);
	ck_assert_uint_eq(rs.written_cno, 0);
	ck_assert_uint_eq(verify(io, 1024, NULL), 8);
	nlfs_io_close(io);
}
END_TEST

static uint64_t clean_segments(struct nlfs_io *io)
{
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_suhead h;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_sufile_header(fs, &h, &err), 0);
	nlfs_fs_release(fs);
	return h.ncleansegs;
}

/* a volume whose segments hold mostly dead metadata: 80 offline checkpoints */
static struct nlfs_io *garbage_volume(uint64_t size)
{
	struct nlfs_io *io;
	struct nlfs_err err;

	nfiles = NSMALL;
	io = new_mem(size);
	ck_assert_int_eq(mkfs_job(io, 1024, 64, size), 0);
	for (int i = 0; i < 80; i++)
		ck_assert_msg(construct(io, NULL, NULL, &err) == 0, "%s", err.what);
	return io;
}

/* the sufile header's counts against its entries */
static void sufile_counts_agree(struct nlfs_io *io)
{
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_suhead h;
	uint64_t clean = 0, dirty = 0;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_sufile_header(fs, &h, &err), 0);
	for (uint64_t s = 0; s < nlfs_fs_geometry(fs)->nsegments; s++) {
		struct nlfs_suinfo su;

		ck_assert_int_eq(nlfs_sufile_get(fs, s, &su, &err), 0);
		clean += su.flags == 0;
		dirty += (su.flags & NLFS_SEGMENT_USAGE_DIRTY) != 0;
	}
	ck_assert_uint_eq(h.ncleansegs, clean);
	ck_assert_uint_eq(h.ndirtysegs, dirty);
	nlfs_fs_release(fs);
}

static int op_release_oldest(struct nlfs_writer *w, void *arg, struct nlfs_err *err)
{
	uint64_t *segnum = arg;

	return nlfs_writer_release_segment(w, *segnum, err);
}

/* Torture seed 7434: the offline cleaner gave a segment back in a
 * construction whose log fitted in the current segment (no segment
 * allocated); the header's counts were changed after its block had been
 * laid out, and were lost: one clean segment counted dirty. */
START_TEST(test_release_without_alloc)
{
	struct nlfs_io *io = garbage_volume(8ull << 20);
	struct nlfs_err err;
	unsigned fitted = 0;
	uint64_t last = 0, first_seg;

	/* logs past the segments whose entries share the header's block
	 * (1 KiB blocks, 16-byte entries: 62), so nothing else puts it in the log */
	while (last < 80) {
		struct nlfs_fs *fs;
		struct nlfs_suhead h;

		ck_assert_msg(construct(io, NULL, NULL, &err) == 0, "%s", err.what);
		ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
		ck_assert_int_eq(nlfs_sufile_header(fs, &h, &err), 0);
		nlfs_fs_release(fs);
		last = h.last_alloc;
	}
	first_seg = last - 10;
	for (uint64_t seg = first_seg; seg < first_seg + 4; seg++) {
		struct nlfs_fs *fs;
		struct nlfs_suhead h0, h1;
		struct nlfs_suinfo su;

		ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
		ck_assert_int_eq(nlfs_sufile_header(fs, &h0, &err), 0);
		nlfs_fs_release(fs);
		ck_assert_msg(construct(io, op_release_oldest, &seg, &err) == 0, "%s", err.what);
		sufile_counts_agree(io);
		ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
		ck_assert_int_eq(nlfs_sufile_header(fs, &h1, &err), 0);
		ck_assert_int_eq(nlfs_sufile_get(fs, seg, &su, &err), 0);
		ck_assert_uint_eq(su.flags, 0);   /* given back */
		nlfs_fs_release(fs);
		fitted += h0.last_alloc == h1.last_alloc;
	}
	ck_assert_uint_gt(fitted, 0);   /* the case of the seed came up */
	nlfs_io_close(io);
}
END_TEST

START_TEST(test_gc_offline)
{
	static const enum nlfs_gc_policy pol[] = { NLFS_GC_TIMESTAMP, NLFS_GC_GREEDY,
						   NLFS_GC_COST_BENEFIT };
	uint64_t size = 8ull << 20, before, after;
	struct nlfs_io *io = garbage_volume(size);
	struct nlfs_gc_params p = { .policy = pol[_i], .now = 1700000300, .target_clean = 0,
				    .nsegments_per_clean = 2, .max_passes = 4,
				    .min_reclaimable = 6 };
	struct nlfs_gc_stats st;
	struct nlfs_err err;

	before = clean_segments(io);
	p.target_clean = before + 4;
	ck_assert_msg(nlfs_gc_offline(io, &p, &st, &err) == 0, "%s", err.what);
	after = clean_segments(io);
	fprintf(stderr, "%s: clean %llu -> %llu, %llu passes, %llu segments, %llu moved, %llu freed\n",
		nlfs_gc_policy_name(p.policy), (unsigned long long)before, (unsigned long long)after,
		(unsigned long long)st.passes, (unsigned long long)st.segments,
		(unsigned long long)st.blocks_moved, (unsigned long long)st.blocks_freed);
	ck_assert_uint_ge(after, before + 4);
	ck_assert_uint_gt(st.segments, 0);
	ck_assert_uint_gt(st.blocks_freed, 0);
	/* the files of the first checkpoint were in segment 0..N: all still readable */
	verify(io, 1024, NULL);
	/* and the result takes ordinary constructions again */
	ck_assert_msg(construct(io, NULL, NULL, &err) == 0, "%s", err.what);
	verify(io, 1024, NULL);
	nlfs_io_close(io);
}
END_TEST

/* A timestamp run that stops at its target counts live blocks only as far
 * as it cleans; its victims must still be the oldest segments with
 * min_reclaimable reclaimable blocks, as counting every segment ranks them. */
START_TEST(test_gc_timestamp_victims)
{
	struct nlfs_io *io = garbage_volume(8ull << 20);
	struct nlfs_gc_params p = { .policy = NLFS_GC_TIMESTAMP, .now = 1700000300,
				    .nsegments_per_clean = 1, .max_passes = 1,
				    .min_reclaimable = 6 };
	struct nlfs_gc_candidate *c;
	struct nlfs_gc_protect prot;
	struct nlfs_gc_stats st;
	struct nlfs_err err;
	struct nlfs_fs *fs;
	uint64_t *snaps, nsegs, n = 0;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	nsegs = nlfs_fs_geometry(fs)->nsegments;
	c = calloc(nsegs, sizeof(*c));
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(nlfs_gc_protect_load(fs, p.now, &prot, &snaps, &err), 0);
	for (uint64_t s = 0; s < nsegs; s++) {
		struct nlfs_suinfo su;
		uint64_t live, total;

		ck_assert_int_eq(nlfs_sufile_get(fs, s, &su, &err), 0);
		if (!(su.flags & NLFS_SEGMENT_USAGE_DIRTY) || su.lastmod > p.now)
			continue;
		ck_assert_int_eq(nlfs_gc_segment_live(fs, s, su.nblocks, &prot, &live, &total, &err), 0);
		if (su.nblocks >= live + p.min_reclaimable)
			c[n++] = (struct nlfs_gc_candidate){ .segnum = s, .lastmod = su.lastmod,
							     .nblocks = su.nblocks,
							     .live = (uint32_t)live };
	}
	free(snaps);
	nlfs_fs_release(fs);
	nlfs_gc_rank(NLFS_GC_TIMESTAMP, c, n, p.now, 64);

	p.target_clean = clean_segments(io) + 3;
	ck_assert_msg(nlfs_gc_offline(io, &p, &st, &err) == 0, "%s", err.what);
	ck_assert_uint_ge(st.segments, 1);
	ck_assert_uint_lt(st.segments, n);   /* it stopped short of the candidates */
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	for (uint64_t i = 0; i <= st.segments; i++) {
		struct nlfs_suinfo su;

		ck_assert_int_eq(nlfs_sufile_get(fs, c[i].segnum, &su, &err), 0);
		/* the first ones cleaned, the next one in rank not */
		ck_assert_msg((su.flags == 0) == (i < st.segments),
			      "candidate %llu (segment %llu): flags %u after %llu cleaned",
			      (unsigned long long)i, (unsigned long long)c[i].segnum, su.flags,
			      (unsigned long long)st.segments);
	}
	nlfs_fs_release(fs);
	free(c);
	verify(io, 1024, NULL);
	nlfs_io_close(io);
}
END_TEST

/* /six (files[2]) written anew, its first block's virtual number looked
 * for from HINT on, as the kernel's wrapped guess may make it */
static int six_at(struct nlfs_io *io, uint64_t hint, struct nlfs_err *err)
{
	struct nlfs_fs *fs;
	struct nlfs_writer *w = NULL;
	struct nlfs_file ifile, f;
	struct nlfs_inode ino;
	uint8_t buf[1024];
	int rc = nlfs_fs_open(io, &fs, err);

	if (rc)
		return rc;
	rc = nlfs_fs_ifile(fs, 0, &ifile, err);
	if (!rc)
		rc = nlfs_path_lookup(fs, &ifile, "/six", &f, err);
	if (!rc)
		rc = nlfs_writer_open(fs, 1700000250, 0, &w, err);
	if (!rc)
		rc = nlfs_writer_file_replace(w, f.ino, err);
	if (!rc)
		rc = nlfs_writer_file_begin(w, f.ino, err);
	if (!rc)
		nlfs_writer_dat_hint(w, hint);
	for (uint64_t b = 0; !rc && b < 6; b++) {
		pattern(buf, sizeof(buf), 2, b);
		rc = nlfs_writer_file_block(w, b, buf, err);
	}
	if (!rc)
		rc = nlfs_writer_get_inode(w, f.ino, &ino, err);
	if (!rc)
		rc = nlfs_writer_file_end(w, &ino, err);
	if (!rc)
		rc = nlfs_writer_commit(w, err);
	nlfs_writer_free(w);
	nlfs_fs_release(fs);
	return rc;
}

/* /six's virtual blocks and their addresses */
static void six_map(struct nlfs_io *io, struct pairs *pp, uint64_t *addr)
{
	struct nlfs_fs *fs;
	struct nlfs_file ifile, f;
	struct nlfs_err err;

	memset(pp, 0, sizeof(*pp));
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_fs_ifile(fs, 0, &ifile, &err), 0);
	ck_assert_int_eq(nlfs_path_lookup(fs, &ifile, "/six", &f, &err), 0);
	ck_assert_int_eq(nlfs_bmap_iterate(fs, &f, pairs_cb, pp, &err), 0);
	for (size_t i = 0; i < pp->n; i++)
		ck_assert_msg(nlfs_dat_translate(fs, pp->p[i], &addr[i], &err) == 0, "%s", err.what);
	nlfs_fs_release(fs);
}

static int op_free_top(struct nlfs_writer *w, void *arg, struct nlfs_err *err)
{
	(void)arg;
	for (uint64_t v = UINT64_MAX - 1; v != 0; v++) {
		int rc = nlfs_writer_free_vblock(w, v, err);

		if (rc)
			return rc;
	}
	return 0;
}

/* The kernel's DAT may hand out any number up to 2^64 - 1: the writer
 * allocates there and wraps past it, the offline cleaner moves such blocks
 * keeping their numbers, and entries there are ended, freed and counted in
 * their group's descriptor like any other. */
START_TEST(test_top_vblocks)
{
	uint64_t size = 8ull << 20, a0[8], a1[8], nfixed = 0;
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	struct nlfs_writer *w;
	struct nlfs_file dat;
	struct nlfs_err err;
	struct pairs pp, pp1;
	uint8_t desc[1024], bitmap[1024];
	struct nlfs_palloc_group pg = { .desc = desc, .bitmap = bitmap, .desc_blkoff = UINT64_MAX };
	uint64_t top_group = UINT64_MAX / (1024 * 8);
	struct nlfs_gc_params p = { .policy = NLFS_GC_TIMESTAMP, .now = 1700000300,
				    .nsegments_per_clean = 8, .max_passes = 40 };
	struct nlfs_gc_stats st;

	nfiles = NSMALL;
	io = new_mem(size);
	ck_assert_int_eq(mkfs_job(io, 1024, 64, size), 0);
	ck_assert_msg(six_at(io, UINT64_MAX - 1, &err) == 0, "%s", err.what);
	verify(io, 1024, NULL);
	six_map(io, &pp, a0);
	ck_assert_uint_eq(pp.n, 6);
	ck_assert_uint_eq(pp.p[0], UINT64_MAX - 1);
	ck_assert_uint_eq(pp.p[1], UINT64_MAX);
	ck_assert_uint_gt(pp.p[2], 0);          /* wrapped to the bottom */
	ck_assert_uint_lt(pp.p[2], 1000);

	/* old checkpoints' garbage, then the cleaner: the blocks move, their
	 * numbers stay */
	for (int i = 0; i < 80; i++)
		ck_assert_msg(construct(io, NULL, NULL, &err) == 0, "%s", err.what);
	p.target_clean = clean_segments(io) + 100;
	ck_assert_msg(nlfs_gc_offline(io, &p, &st, &err) == 0, "%s", err.what);
	fprintf(stderr, "top: %llu segments, %llu moved, %llu freed, six at %llu\n",
		(unsigned long long)st.segments, (unsigned long long)st.blocks_moved,
		(unsigned long long)st.blocks_freed, (unsigned long long)a0[0]);
	ck_assert_uint_gt(st.segments, 0);
	verify(io, 1024, NULL);
	six_map(io, &pp1, a1);
	ck_assert(!memcmp(pp1.p, pp.p, sizeof(pp.p)));
	ck_assert_uint_ne(a1[0], a0[0]);
	ck_assert_uint_ne(a1[1], a0[1]);

	/* rewritten low: the top entries end; then freed */
	ck_assert_msg(six_at(io, 1, &err) == 0, "%s", err.what);
	six_map(io, &pp1, a1);
	ck_assert_uint_lt(pp1.p[0], 1000);
	ck_assert_msg(construct(io, op_free_top, NULL, &err) == 0, "%s", err.what);
	verify(io, 1024, NULL);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	ck_assert_int_eq(nlfs_palloc_read_group(fs, &dat, 32, top_group, &pg, &err), 0);
	ck_assert(!pg.desc_hole && !pg.bitmap_hole);
	ck_assert_uint_eq(pg.nfrees, 1024 * 8);
	for (size_t i = 0; i < sizeof(bitmap); i++)
		ck_assert_uint_eq(bitmap[i], 0);
	/* every group's count agrees with its bitmap, the top one included */
	ck_assert_int_eq(nlfs_writer_open(fs, 1700000400, NLFS_WRITER_REPAIR, &w, &err), 0);
	ck_assert_int_eq(nlfs_writer_fix_palloc(w, NLFS_DAT_INO, &nfixed, &err), 0);
	ck_assert_uint_eq(nfixed, 0);
	nlfs_writer_free(w);
	nlfs_fs_release(fs);
	nlfs_io_close(io);
}
END_TEST

/* The quick check reads the DAT where a writer allocates (from group 0 up
 * to the first group that counts a free entry), not every group: a count
 * wrong in a group no construction allocates from lets the writers through,
 * and they carry it as it is (fsck.nilfs2 reports it). */
START_TEST(test_vet_dat_groups)
{
	uint64_t size = 8ull << 20, top_group = UINT64_MAX / (1024 * 8), blocknr;
	uint32_t off = (uint32_t)(top_group % (1024 / 4)) * 4, nfree;
	uint8_t desc[1024];
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	struct nlfs_file dat;
	struct nlfs_err err;

	nfiles = NSMALL;
	io = new_mem(size);
	ck_assert_int_eq(mkfs_job(io, 1024, 64, size), 0);
	ck_assert_msg(six_at(io, UINT64_MAX - 1, &err) == 0, "%s", err.what);
	/* a log after the one that wrote the top group's descriptor block */
	ck_assert_msg(construct(io, NULL, NULL, &err) == 0, "%s", err.what);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	ck_assert_int_eq(nlfs_file_block_where(fs, &dat, nlfs_palloc_desc_blkoff(1024, 32, top_group),
					       &blocknr, &err), 0);
	nlfs_fs_release(fs);
	ck_assert_uint_gt(blocknr, 0);
	ck_assert_int_eq(nlfs_io_read(io, desc, sizeof(desc), blocknr * 1024), 0);
	nfree = nlfs_get_le32(desc + off) - 1;
	nlfs_put_le32(desc + off, nfree);
	ck_assert_int_eq(nlfs_io_write(io, desc, sizeof(desc), blocknr * 1024), 0);

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_msg(nlfs_fs_vet(fs, &err) == 0, "%s", err.what);
	nlfs_fs_release(fs);
	ck_assert_msg(construct(io, NULL, NULL, &err) == 0, "%s", err.what);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	ck_assert_int_eq(nlfs_file_read_block(fs, &dat, nlfs_palloc_desc_blkoff(1024, 32, top_group),
					      desc, &(bool){ false }, &err), 0);
	ck_assert_uint_eq(nlfs_get_le32(desc + off), nfree);
	nlfs_fs_release(fs);
	nlfs_io_close(io);
}
END_TEST

/* the node blocks of a metadata file's B-tree (their pointers) */
struct nodes {
	uint64_t ptr[2048];
	size_t n;
	unsigned height;
};

static int nodes_cb(uint64_t blkoff, uint64_t ptr, unsigned level, void *arg)
{
	struct nodes *nd = arg;

	(void)blkoff;
	if (level) {
		ck_assert_uint_lt(nd->n, 2048);
		nd->ptr[nd->n++] = ptr;
		if (level > nd->height)
			nd->height = level;
	}
	return 0;
}

static void mdt_nodes(struct nlfs_io *io, uint64_t ino, struct nodes *nd)
{
	struct nlfs_fs *fs;
	struct nlfs_file f;
	struct nlfs_err err;

	nd->n = 0;
	nd->height = 0;
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	nlfs_fs_mdt_file(fs, ino, &f);
	ck_assert_msg(nlfs_bmap_iterate(fs, &f, nodes_cb, nd, &err) == 0, "ino %llu: %s", (unsigned long long)ino, err.what);
	nlfs_fs_release(fs);
}

/* the nodes of AFTER not in BEFORE: written by the construction between */
static size_t nodes_new(const struct nodes *before, const struct nodes *after)
{
	size_t n = 0;

	for (size_t i = 0; i < after->n; i++) {
		bool found = false;

		for (size_t j = 0; !found && j < before->n; j++)
			found = before->ptr[j] == after->ptr[i];
		n += !found;
	}
	return n;
}

/* Every checkpoint's entry and every metadata block still read, with the
 * clean segments overwritten: nothing live was left in one. */
static void clean_segments_unused(struct nlfs_io *io)
{
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_cpstat cs;
	const struct nlfs_geometry *g;
	uint8_t *mem = nlfs_io_mem_data(io);
	static const uint64_t inos[] = { NLFS_DAT_INO, NLFS_CPFILE_INO, NLFS_SUFILE_INO };

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	g = nlfs_fs_geometry(fs);
	for (uint64_t s = 1; s < g->nsegments; s++) {
		struct nlfs_suinfo su;

		ck_assert_int_eq(nlfs_sufile_get(fs, s, &su, &err), 0);
		if (!su.flags)
			memset(mem + nlfs_seg_start(g, s) * g->blocksize, 0xa5,
			       (size_t)g->blocks_per_segment * g->blocksize);
	}
	nlfs_fs_release(fs);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	for (size_t i = 0; i < 3; i++) {
		struct nodes nd;

		mdt_nodes(io, inos[i], &nd);
	}
	ck_assert_int_eq(nlfs_cpfile_stat(fs, &cs, &err), 0);
	for (uint64_t c = 1, seen = 0; c <= cs.cno; c++) {
		struct nlfs_cpinfo cp;

		seen += nlfs_cpfile_info(fs, c, &cp, &err) == 0;
		ck_assert_uint_le(seen, cs.ncps);
	}
	nlfs_fs_release(fs);
	verify(io, 1024, NULL);
}

struct gc_one {
	struct nlfs_io *io;
	uint64_t segnum;
};

static int op_gc_one(struct nlfs_writer *w, void *arg, struct nlfs_err *err)
{
	struct gc_one *g = arg;
	struct nlfs_gc_protect prot;
	struct nlfs_gc_stats st = { 0 };
	struct nlfs_fs *fs;
	uint64_t *snaps = NULL;
	int rc = nlfs_fs_open(g->io, &fs, err);

	if (rc)
		return rc;
	rc = nlfs_gc_protect_load(fs, 0, &prot, &snaps, err);
	if (!rc)
		rc = nlfs_writer_gc_segment(w, g->segnum, &prot, &st, err);
	free(snaps);
	nlfs_fs_release(fs);
	return rc;
}

/* Each segment that holds a node of the DAT's or the cpfile's tree
 * cleaned alone, on a copy of IO: the nodes there move with the rest. */
static void clean_node_segments(struct nlfs_io *io, uint64_t size, const struct nodes *dat,
				const struct nodes *cp)
{
	uint64_t segs[4096];
	size_t nsegs = 0;
	struct nlfs_fs *fs;
	struct nlfs_err err;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	for (size_t i = 0; i < dat->n + cp->n; i++) {
		uint64_t blocknr = i < dat->n ? dat->ptr[i] : 0, seg;
		bool seen = false;

		if (i >= dat->n) {
			struct nlfs_datinfo de;

			ck_assert_int_eq(nlfs_dat_lookup(fs, cp->ptr[i - dat->n], &de, &err), 0);
			blocknr = de.blocknr;
		}
		seg = blocknr / nlfs_fs_geometry(fs)->blocks_per_segment;
		for (size_t j = 0; !seen && j < nsegs; j++)
			seen = segs[j] == seg;
		if (!seen)
			segs[nsegs++] = seg;
	}
	nlfs_fs_release(fs);
	for (size_t j = 0; j < nsegs; j++) {
		struct nlfs_io *copy = snapshot(io, size);
		struct gc_one g = { copy, segs[j] };
		int rc = construct(copy, op_gc_one, &g, &err);

		/* the segments the kernel's next logs go to stay */
		ck_assert_msg(rc == 0 || rc == -EBUSY, "%s", err.what);
		if (rc == 0)
			clean_segments_unused(copy);
		nlfs_io_close(copy);
	}
}

/* On a volume of many checkpoints the construction changes the metadata
 * files' B-trees as the kernel does: only the nodes above the blocks that
 * change are written, the others stay where they are; nodes split as a
 * file grows, go as checkpoints are deleted, and move out of the
 * segments the offline cleaner frees; a crash at any write of such a
 * construction keeps the old state or the new one. */
START_TEST(test_incremental_trees)
{
	uint64_t size = 24ull << 20, range[2] = { 2, 700 }, n = 0, cno;
	struct nlfs_gc_params p = { .policy = NLFS_GC_TIMESTAMP, .now = 1700000300,
				    .manual = true, .nsegments_per_clean = 8, .max_passes = 100,
				    .min_reclaimable = 1 };
	struct nlfs_gc_stats st;
	struct nodes dat0, dat1, cp0, cp1;
	struct nlfs_io *io;
	struct nlfs_err err;

	nfiles = NSMALL;
	io = new_mem(size);
	ck_assert_int_eq(mkfs_job(io, 1024, 64, size), 0);
	/* 1 KiB blocks: 5 checkpoints a cpfile block, 63 entries a node */
	for (int i = 0; i < 1100; i++)
		ck_assert_msg(construct(io, NULL, NULL, &err) == 0, "%s", err.what);
	mdt_nodes(io, NLFS_DAT_INO, &dat0);
	mdt_nodes(io, NLFS_CPFILE_INO, &cp0);
	ck_assert_uint_ge(dat0.n, 5);
	ck_assert_uint_ge(cp0.n, 4);
	ck_assert_uint_ge(dat0.height, 1);
	ck_assert_msg(construct(io, NULL, NULL, &err) == 0, "%s", err.what);
	mdt_nodes(io, NLFS_DAT_INO, &dat1);
	mdt_nodes(io, NLFS_CPFILE_INO, &cp1);
	/* the paths to the blocks that change (the cpfile's header and its
	 * last block; the DAT's entries of old and new blocks), not the trees */
	ck_assert_uint_le(nodes_new(&dat0, &dat1), 2 * dat1.height);
	ck_assert_uint_lt(nodes_new(&dat0, &dat1), dat1.n);
	ck_assert_uint_le(nodes_new(&cp0, &cp1), 2 * cp1.height);
	ck_assert_uint_lt(nodes_new(&cp0, &cp1), cp1.n);
	ck_assert_uint_ge(cp1.n, cp0.n);
	cno = verify(io, 1024, NULL);
	clean_node_segments(io, size, &dat1, &cp1);
	/* a crash anywhere in such a construction */
	crash_everywhere(size, io, 1024, cno, cno + 1, &n);
	ck_assert_uint_gt(n, 2);
	/* most of the cpfile's blocks dropped: whole nodes go */
	ck_assert_msg(construct(io, op_delete, range, &err) == 0, "%s", err.what);
	mdt_nodes(io, NLFS_CPFILE_INO, &cp1);
	ck_assert_uint_lt(cp1.n, cp0.n);
	for (int i = 0; i < 20; i++)
		ck_assert_msg(construct(io, NULL, NULL, &err) == 0, "%s", err.what);
	verify(io, 1024, NULL);
	/* the cleaner frees every segment it can, among them those that hold
	 * nodes the trees kept */
	ck_assert_msg(nlfs_gc_offline(io, &p, &st, &err) == 0, "%s", err.what);
	ck_assert_uint_gt(st.segments, 0);
	clean_segments_unused(io);
	ck_assert_msg(construct(io, NULL, NULL, &err) == 0, "%s", err.what);
	clean_segments_unused(io);
	nlfs_io_close(io);
}
END_TEST

START_TEST(test_crash_gc)
{
	uint64_t size = 8ull << 20;
	struct nlfs_io *base = garbage_volume(size);
	struct nlfs_gc_params p = { .policy = NLFS_GC_TIMESTAMP, .now = 1700000300,
				    .nsegments_per_clean = 3, .max_passes = 1 };
	uint64_t latest = verify(base, 1024, NULL), k, seen_new = 0, seen_old = 0;
	bool finished = false;

	p.target_clean = clean_segments(base) + 3;
	for (k = 0; !finished; k++) {
		for (int mode = 0; mode < 3; mode++) {
			struct nlfs_io *lower = snapshot(base, size), *fio, *after;
			struct nlfs_gc_stats st;
			struct nlfs_err err;
			uint64_t cno;
			int rc;

			fio = fault_at(lower, k, mode, 700);
			rc = nlfs_gc_offline(fio, &p, &st, &err);
			if (rc == 0 && mode == 2)
				finished = true;
			nlfs_io_fault_crash(fio);
			after = snapshot(lower, size);
			nlfs_io_close(fio);
			cno = verify(after, 1024, NULL);   /* every file intact, whichever state */
			ck_assert_msg(cno == latest || cno == latest + 1,
				      "crash at write %llu: checkpoint %llu",
				      (unsigned long long)k, (unsigned long long)cno);
			if (cno == latest)
				seen_old++;
			else
				seen_new++;
			nlfs_io_close(after);
		}
	}
	ck_assert_uint_gt(seen_old, 0);
	ck_assert_uint_gt(seen_new, 0);
	ck_assert_uint_gt(k, 3);
	nlfs_io_close(base);
}
END_TEST

/* Stale logs past the cursor: the offline cleaner loses power after its
 * logs, before its superblocks; a checkpoint is then written at the
 * cursor.  Its writer ends the chain where it stops, so that the kernel's
 * search (after a later crash) cannot go on into the cleaner's logs, built
 * on blocks the checkpoint has overwritten.  With those stale summaries put
 * back (what an older writer left), the chain tail shows them as not
 * continuing the cursor's checkpoint, and ending them gives the volume
 * back as the second writer left it. */
START_TEST(test_stale_tail)
{
	uint64_t size = 8ull << 20;
	struct nlfs_io *base = garbage_volume(size), *cut = NULL, *io;
	struct nlfs_gc_params p = { .policy = NLFS_GC_TIMESTAMP, .now = 1700000300,
				    .nsegments_per_clean = 3, .max_passes = 1 };
	uint64_t latest = verify(base, 1024, NULL), nblocks = size / 1024, restored = 0;
	struct nlfs_chain_tail t;
	struct nlfs_fs *fs;
	struct nlfs_err err;
	uint8_t a[1024], b[1024];
	bool finished = false, invalidated;

	p.target_clean = clean_segments(base) + 3;
	/* the last crash point (a write completed, then power lost) that still
	 * shows the old checkpoint: every log written, no superblock */
	for (uint64_t k = 0; !finished; k++) {
		struct nlfs_io *lower = snapshot(base, size), *fio = fault_at(lower, k, 1, 0);
		struct nlfs_gc_stats st;

		finished = nlfs_gc_offline(fio, &p, &st, &err) == 0;
		nlfs_io_fault_crash(fio);
		io = snapshot(lower, size);
		nlfs_io_close(fio);
		if (!finished && verify(io, 1024, NULL) == latest) {
			if (cut)
				nlfs_io_close(cut);
			cut = io;
		} else {
			nlfs_io_close(io);
		}
	}
	ck_assert_ptr_nonnull(cut);
	ck_assert_int_eq(nlfs_fs_open(cut, &fs, &err), 0);
	ck_assert_int_eq(nlfs_fs_chain_tail(fs, &t, &err), 0);
	ck_assert_uint_gt(t.nlogs, 0);   /* the cleaner's logs, past the cursor */
	ck_assert(t.continues);
	nlfs_fs_release(fs);

	io = snapshot(cut, size);
	ck_assert_msg(construct(io, NULL, NULL, &err) == 0, "%s", err.what);
	ck_assert_uint_eq(verify(io, 1024, NULL), latest + 1);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_fs_chain_tail(fs, &t, &err), 0);
	ck_assert_uint_eq(t.nlogs, 0);
	nlfs_fs_release(fs);

	/* the summaries the writer zeroed, put back */
	for (uint64_t blk = 0; blk < nblocks; blk++) {
		ck_assert_int_eq(nlfs_io_read(cut, a, sizeof(a), blk * 1024), 0);
		ck_assert_int_eq(nlfs_io_read(io, b, sizeof(b), blk * 1024), 0);
		if (nlfs_le32(((const struct nlfs_segment_summary *)(const void *)a)->ss_magic) !=
		    NLFS_SEGSUM_MAGIC ||
		    b[0] || memcmp(b, b + 1, sizeof(b) - 1))
			continue;
		ck_assert_int_eq(nlfs_io_write(io, a, sizeof(a), blk * 1024), 0);
		restored++;
	}
	ck_assert_uint_gt(restored, 0);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_fs_chain_tail(fs, &t, &err), 0);
	ck_assert_uint_gt(t.nlogs, 0);
	ck_assert(!t.continues);
	ck_assert_int_eq(nlfs_log_invalidate_at(io, 1024, t.first, &invalidated, &err), 0);
	ck_assert(invalidated);
	ck_assert_int_eq(nlfs_fs_chain_tail(fs, &t, &err), 0);
	ck_assert_uint_eq(t.nlogs, 0);
	nlfs_fs_release(fs);
	ck_assert_uint_eq(verify(io, 1024, NULL), latest + 1);
	nlfs_io_close(io);
	nlfs_io_close(cut);
	nlfs_io_close(base);
}
END_TEST

Suite *writer_suite(void);
Suite *writer_suite(void)
{
	Suite *s = suite_create("writer");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_mkfs_params);
	tcase_add_loop_test(tc, test_mkfs_roundtrip, 0, 3);
	tcase_add_test(tc, test_second_checkpoint);
	tcase_add_test(tc, test_checkpoint_ops);
	tcase_add_test(tc, test_recount_blocks);
	tcase_add_loop_test(tc, test_gc_offline, 0, 3);
	tcase_add_test(tc, test_gc_timestamp_victims);
	tcase_add_test(tc, test_release_without_alloc);
	tcase_add_test(tc, test_crash_gc);
	tcase_add_test(tc, test_incremental_trees);
	tcase_add_test(tc, test_stale_tail);
	tcase_add_test(tc, test_crash_mkfs);
	tcase_add_test(tc, test_crash_second);
	tcase_add_test(tc, test_crash_rollback);
	tcase_add_test(tc, test_rewrite_dir);
	tcase_add_test(tc, test_crash_rewrite_dir);
	tcase_add_test(tc, test_remap);
	tcase_add_test(tc, test_top_vblocks);
	tcase_add_test(tc, test_vet_dat_groups);
	tcase_add_test(tc, test_crash_remap);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(writer_suite());
}
