/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Offline resize (lib/gc/resize.c): a volume whose segments in use lie past
 * the new end (older versions of a file kept by snapshots and plain
 * checkpoints, some segments freed by the cleaner in between) shrinks with
 * every checkpoint reading as before; a grow makes room the writer then
 * uses; a shrink that does not fit is refused untouched; and power lost at
 * any write of a shrink leaves the old size or the new one, every
 * checkpoint intact. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include <nlfs/endian.h>
#include <nlfs/gc.h>
#include <nlfs/resize.h>
#include <nlfs/io_test.h>
#include <nlfs/repair.h>

#define BS      1024u
#define BPS     64u
#define DEV     (16ull << 20)
#define NBLK    300u           /* blocks of /data */
#define MAXCP   256u
#define NOW     1800000000ull

/* one segment per construction: several passes, each crash-tested */
static const struct nlfs_resize_params one_by_one = { .now = NOW, .segments_per_pass = 1 };
/* all at once: victims holding the current cpfile and sufile blocks */
static const struct nlfs_resize_params all_at_once = { .now = NOW, .segments_per_pass = 64 };

struct vol {
	struct nlfs_io *io;
	uint64_t ino;              /* of /data */
	int gen_at[MAXCP];         /* the generation of /data each checkpoint holds */
	int gen;
	uint64_t last_cno;
};

static void fill(uint8_t *buf, int gen, uint64_t blk)
{
	for (uint32_t i = 0; i < BS; i += 8) {
		uint64_t v = ((uint64_t)gen + 7) * 0x9E3779B97F4A7C15ull ^ (blk << 20) ^ i;

		memcpy(buf + i, &v, 8);
	}
}

static void data_inode(struct nlfs_inode *in, uint16_t mode, uint64_t size)
{
	memset(in, 0, sizeof(*in));
	in->i_mode = nlfs_cpu_to_le16(mode);
	in->i_links_count = nlfs_cpu_to_le16(mode & 040000 ? 2 : 1);
	in->i_size = nlfs_cpu_to_le64(size);
	in->i_mtime = in->i_ctime = nlfs_cpu_to_le64(NOW);
}

static void write_data(struct nlfs_writer *w, struct vol *v)
{
	uint8_t buf[BS];
	struct nlfs_inode in;
	struct nlfs_err err;

	ck_assert_int_eq(nlfs_writer_file_begin(w, v->ino, &err), 0);
	for (uint64_t b = 0; b < NBLK; b++) {
		fill(buf, v->gen, b);
		ck_assert_int_eq(nlfs_writer_file_block(w, b, buf, &err), 0);
	}
	data_inode(&in, 0100644, NBLK * BS);
	ck_assert_int_eq(nlfs_writer_file_end(w, &in, &err), 0);
}

static void committed(struct vol *v, uint64_t cno)
{
	ck_assert_uint_lt(cno, MAXCP);
	for (uint64_t c = v->last_cno + 1; c <= cno; c++)
		v->gen_at[c] = v->gen;
	v->last_cno = cno;
}

/* the volume is DEV bytes, on a device of IOSIZE */
static void make_volume_on(struct vol *v, uint64_t iosize)
{
	struct nlfs_mkfs_params p = { .blocksize = BS, .blocks_per_segment = BPS,
				      .r_segments_percentage = 5, .devsize = DEV, .ctime = NOW,
				      .uuid = { 9, 8, 7 } };
	struct nlfs_super_block sb;
	struct nlfs_writer *w;
	struct nlfs_dirw *dw;
	struct nlfs_inode in;
	struct nlfs_err err;

	memset(v, 0, sizeof(*v));
	ck_assert_int_eq(nlfs_io_open_mem(iosize, &v->io), 0);
	ck_assert_int_eq(nlfs_mkfs_superblock(&p, &sb, NULL, &err), 0);
	ck_assert_int_eq(nlfs_writer_create(v->io, &sb, &w, &err), 0);
	ck_assert_int_eq(nlfs_writer_new_ino(w, &v->ino, &err), 0);
	ck_assert_int_eq(nlfs_dirw_begin(w, NLFS_ROOT_INO, NLFS_ROOT_INO, &dw, &err), 0);
	ck_assert_int_eq(nlfs_dirw_add(dw, "data", 4, v->ino, 1, &err), 0);
	data_inode(&in, 040755, 0);
	ck_assert_int_eq(nlfs_dirw_end(dw, &in, &err), 0);
	write_data(w, v);
	ck_assert_int_eq(nlfs_writer_commit(w, &err), 0);
	nlfs_writer_free(w);
	committed(v, 1);
}

static void make_volume(struct vol *v)
{
	make_volume_on(v, DEV);
}

/* one more checkpoint: /data rewritten as the next generation, the
 * previous checkpoint made a snapshot if SNAP, checkpoints [DEL0, DEL1)
 * deleted if DEL1 */
static void next_gen(struct vol *v, bool rewrite, bool snap, uint64_t del0, uint64_t del1)
{
	struct nlfs_fs *fs;
	struct nlfs_writer *w;
	struct nlfs_err err;
	uint64_t n;

	ck_assert_int_eq(nlfs_fs_open(v->io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_writer_open(fs, NOW, 0, &w, &err), 0);
	if (rewrite) {
		v->gen++;
		ck_assert_int_eq(nlfs_writer_file_replace(w, v->ino, &err), 0);
		write_data(w, v);
	}
	if (snap)
		ck_assert_int_eq(nlfs_writer_set_snapshot(w, nlfs_writer_cno(w) - 1, true, &err), 0);
	if (del1) {
		int rc = nlfs_writer_delete_checkpoints(w, del0, del1, &n, &err);

		ck_assert(rc == 0 || rc == -EBUSY);
	}
	ck_assert_msg(nlfs_writer_commit(w, &err) == 0, "%s", err.what);
	committed(v, nlfs_writer_cno(w));
	nlfs_writer_free(w);
	nlfs_fs_release(fs);
}

/* the checkpoints made by something else (cleaner, resize) hold the
 * current generation */
static void caught_up(struct vol *v)
{
	struct nlfs_fs *fs;
	struct nlfs_err err;

	ck_assert_int_eq(nlfs_fs_open(v->io, &fs, &err), 0);
	committed(v, nlfs_fs_recovery(fs)->cno);
	nlfs_fs_release(fs);
}

/* versions 0..13, snapshots of 5 and 10, most plain checkpoints of the
 * first half deleted and their segments cleaned, then 8 more versions:
 * these land in segments past the low ones the cleaner freed */
static void build(struct vol *v)
{
	/* nilfs-clean's manual run: every reclaimable segment */
	struct nlfs_gc_params gp = { .policy = NLFS_GC_GREEDY, .now = NOW,
				     .protection_period = 0, .target_clean = UINT64_MAX,
				     .manual = true, .nsegments_per_clean = 4, .max_passes = 64 };
	struct nlfs_gc_stats gst;
	struct nlfs_err err;

	make_volume(v);
	for (int g = 1; g <= 13; g++)
		next_gen(v, true, g == 5 || g == 10, 0, 0);
	next_gen(v, false, false, 2, 12);
	ck_assert_msg(nlfs_gc_offline(v->io, &gp, &gst, &err) == 0, "%s", err.what);
	ck_assert_uint_gt(gst.segments, 0);
	caught_up(v);
	for (int g = 0; g < 14; g++)
		next_gen(v, true, g == 3, g == 9 ? v->last_cno - 4 : 0, g == 9 ? v->last_cno - 1 : 0);
}

/* every DAT entry in use points into a segment in use (what fsck.nilfs2
 * checks, and what the kernel needs: nothing would ever free it) */
static void dat_in_use_segments(struct nlfs_fs *fs)
{
	struct nlfs_file dat;
	struct nlfs_err err;
	uint64_t nentries;

	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	/* i_blocks in 512-byte units bounds the blocks the DAT maps */
	nentries = nlfs_le64(dat.inode.i_blocks) * 512 / BS * (BS / sizeof(struct nlfs_dat_entry));
	ck_assert_uint_gt(nentries, 0);
	for (uint64_t v = 1; v < nentries; v++) {
		struct nlfs_datinfo e;
		struct nlfs_suinfo su;
		uint64_t blk;

		if (nlfs_dat_lookup(fs, v, &e, &err) || !(blk = e.blocknr))
			continue;   /* past the DAT's end, or a free entry */
		ck_assert_int_eq(nlfs_sufile_get(fs, blk / BPS, &su, &err), 0);
		ck_assert_msg(su.flags & NLFS_SEGMENT_USAGE_DIRTY,
			      "virtual block %llu points to block %llu, in clean segment %llu",
			      (unsigned long long)v, (unsigned long long)blk,
			      (unsigned long long)(blk / BPS));
	}
}

/* every checkpoint that existed up to UPTO reads its generation of /data;
 * returns the volume's segment count */
static uint64_t verify(struct nlfs_io *io, const struct vol *v, uint64_t upto, size_t *ncps)
{
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_cpinfo ci[MAXCP];
	uint8_t got[BS], want[BS];
	uint64_t cno = 1, nsegs;
	size_t n;

	ck_assert_msg(nlfs_fs_open(io, &fs, &err) == 0, "open: %s", err.what);
	nsegs = nlfs_fs_geometry(fs)->nsegments;
	dat_in_use_segments(fs);
	ck_assert_int_eq(nlfs_cpfile_list(fs, &cno, NLFS_CPINFO_CHECKPOINTS, ci, MAXCP, &n, &err),
			 0);
	*ncps = 0;
	for (size_t i = 0; i < n && ci[i].cno <= upto; i++) {
		struct nlfs_file ifile, f;

		(*ncps)++;
		ck_assert_int_eq(nlfs_fs_ifile(fs, ci[i].cno, &ifile, &err), 0);
		ck_assert_msg(nlfs_path_lookup(fs, &ifile, "/data", &f, &err) == 0, "cp %llu: %s",
			      (unsigned long long)ci[i].cno, err.what);
		for (uint64_t b = 0; b < NBLK; b++) {
			size_t done;

			ck_assert_int_eq(nlfs_file_pread(fs, &f, got, BS, b * BS, &done, &err), 0);
			fill(want, v->gen_at[ci[i].cno], b);
			ck_assert_msg(done == BS && !memcmp(got, want, BS),
				      "checkpoint %llu, block %llu differs",
				      (unsigned long long)ci[i].cno, (unsigned long long)b);
		}
	}
	nlfs_fs_release(fs);
	return nsegs;
}

/* a little more than the smallest size the free space allows */
static uint64_t target_size(struct nlfs_io *io, uint64_t *inuse)
{
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_resize_info ri;
	uint64_t size = 0;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	for (uint64_t n = 20; n < nlfs_fs_geometry(fs)->nsegments && !size; n++) {
		uint64_t s = n * BS * BPS + 4096;

		if (nlfs_resize_check(fs, s, &ri, &err) == 0)
			size = s;
	}
	ck_assert_uint_gt(size, 0);
	/* two segments to spare: one pass per segment writes its metadata too */
	size += 2ull * BS * BPS;
	ck_assert_int_eq(nlfs_resize_check(fs, size, &ri, &err), 0);
	*inuse = ri.inuse_in_cut;

	nlfs_fs_release(fs);
	return size;
}

START_TEST(test_shrink_moves_the_cut)
{
	struct vol v;
	struct nlfs_resize_stats st;
	struct nlfs_err err;
	uint64_t inuse, size;
	size_t before, after;

	build(&v);
	verify(v.io, &v, v.last_cno, &before);
	size = target_size(v.io, &inuse);
	ck_assert_uint_ge(inuse, 2);   /* the test means something */
	ck_assert_msg(nlfs_resize_offline(v.io, size, &all_at_once, &st, &err) == 0, "%s",
		      err.what);
	ck_assert_uint_eq(st.segments_moved, inuse);
	ck_assert_uint_eq(st.passes, 1);
	ck_assert_uint_eq(verify(v.io, &v, v.last_cno, &after), (size - 4096) / BS / BPS);
	ck_assert_uint_eq(after, before);   /* no checkpoint lost */
	nlfs_io_close(v.io);
}
END_TEST

START_TEST(test_grow_then_use)
{
	struct vol v;
	struct nlfs_resize_stats st;
	struct nlfs_err err;
	uint64_t small, n;
	size_t ncp;

	/* shrunk as far as it goes, then grown back to the whole device */
	build(&v);
	small = target_size(v.io, &n);
	ck_assert_int_eq(nlfs_resize_offline(v.io, small, &one_by_one, &st, &err), 0);
	caught_up(&v);
	ck_assert_int_eq(nlfs_resize_offline(v.io, DEV, &one_by_one, &st, &err), 0);
	ck_assert_uint_eq(st.segments_moved, 0);
	caught_up(&v);
	n = verify(v.io, &v, v.last_cno, &ncp);
	ck_assert_uint_eq(n, (DEV - 4096) / BS / BPS);
	ck_assert_uint_gt(n, (small - 4096) / BS / BPS);
	/* the writer fills the new segments too */
	for (int g = 0; g < 12; g++)
		next_gen(&v, true, false, 0, 0);
	verify(v.io, &v, v.last_cno, &ncp);
	nlfs_io_close(v.io);
}
END_TEST

START_TEST(test_shrink_that_does_not_fit)
{
	struct vol v;
	struct nlfs_resize_stats st;
	struct nlfs_err err;
	struct nlfs_io *before;

	build(&v);
	ck_assert_int_eq(nlfs_io_open_mem(DEV, &before), 0);
	memcpy(nlfs_io_mem_data(before), nlfs_io_mem_data(v.io), DEV);
	ck_assert_int_eq(nlfs_resize_offline(v.io, 20 * BS * BPS + 4096, &one_by_one, &st, &err),
			 -ENOSPC);
	ck_assert_int_eq(memcmp(nlfs_io_mem_data(before), nlfs_io_mem_data(v.io), DEV), 0);
	ck_assert_int_eq(nlfs_resize_offline(v.io, DEV + 4096, &one_by_one, &st, &err),
			 -EINVAL);
	nlfs_io_close(before);
	nlfs_io_close(v.io);
}
END_TEST

/* power lost at write K of a shrink: torn in the middle, after it, or the
 * write failed */
START_TEST(test_shrink_crash_at_every_write)
{
	struct vol v;
	uint64_t inuse, size, oldn, newn, seen[2] = { 0, 0 };
	bool finished = false;
	size_t ncps;

	build(&v);
	size = target_size(v.io, &inuse);
	oldn = (DEV - 4096) / BS / BPS;
	newn = (size - 4096) / BS / BPS;
	verify(v.io, &v, v.last_cno, &ncps);
	for (uint64_t k = 0; !finished; k++) {
		ck_assert_uint_lt(k, 200);
		for (int mode = 0; mode < 3; mode++) {
			struct nlfs_io *lower, *fio, *after;
			struct nlfs_resize_stats st;
			struct nlfs_err err;
			uint64_t n;
			size_t got;
			int rc;

			ck_assert_int_eq(nlfs_io_open_mem(DEV, &lower), 0);
			memcpy(nlfs_io_mem_data(lower), nlfs_io_mem_data(v.io), DEV);
			ck_assert_int_eq(nlfs_io_open_fault(lower, &fio), 0);
			if (mode == 0)
				nlfs_io_fault_tear_write(fio, k, 700);
			else if (mode == 1)
				nlfs_io_fault_tear_write(fio, k, SIZE_MAX);
			else
				nlfs_io_fault_fail_write(fio, k);
			rc = nlfs_resize_offline(fio, size, &one_by_one, &st, &err);
			if (rc == 0 && mode == 2) {
				finished = true;
				/* every move was a pass of its own */
				ck_assert_uint_eq(st.passes, inuse);
			}
			nlfs_io_fault_crash(fio);
			ck_assert_int_eq(nlfs_io_open_mem(DEV, &after), 0);
			memcpy(nlfs_io_mem_data(after), nlfs_io_mem_data(lower), DEV);
			nlfs_io_close(fio);
			n = verify(after, &v, v.last_cno, &got);
			ck_assert_msg(n == oldn || n == newn,
				      "crash at write %llu (mode %d): %llu segments",
				      (unsigned long long)k, mode, (unsigned long long)n);
			ck_assert_uint_eq(got, ncps);
			seen[n == newn]++;
			nlfs_io_close(after);
		}
	}
	ck_assert_uint_gt(seen[0], 0);
	ck_assert_uint_gt(seen[1], 0);
	nlfs_io_close(v.io);
}
END_TEST

/* the sufile's header against its entries, as the volume on IO has them */
static void sufile_counts_right(struct nlfs_io *io)
{
	struct nlfs_suhead h;
	struct nlfs_fs *fs;
	struct nlfs_err err;
	uint64_t clean = 0, dirty = 0, n;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	n = nlfs_fs_geometry(fs)->nsegments;
	for (uint64_t s = 0; s < n; s++) {
		struct nlfs_suinfo su;

		ck_assert_int_eq(nlfs_sufile_get(fs, s, &su, &err), 0);
		clean += !su.flags;
		dirty += !!(su.flags & NLFS_SEGMENT_USAGE_DIRTY);
	}
	ck_assert_int_eq(nlfs_sufile_header(fs, &h, &err), 0);
	ck_assert_uint_eq(h.ncleansegs, clean);
	ck_assert_uint_eq(h.ndirtysegs, dirty);
	nlfs_fs_release(fs);
}

/* the sufile block holding the entry of the segment the next log goes to */
static uint64_t writer_entry_block(struct nlfs_io *io)
{
	struct nlfs_fs *fs;
	struct nlfs_err err;
	uint64_t seg, blk;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	seg = nlfs_fs_recovery(fs)->next_pseg / BPS;
	blk = (seg + nlfs_sufile_first_slot(sizeof(struct nlfs_segment_usage))) /
	      (BS / sizeof(struct nlfs_segment_usage));
	nlfs_fs_release(fs);
	return blk;
}

/* A resize that moves nothing changes only the sufile's header after the
 * construction's layout (issue 39): with the writer's segment entry in a
 * later sufile block, no other change brings the header's block into the
 * log, and the new counts must reach the disk all the same. */
START_TEST(test_header_only_change_reaches_disk)
{
	struct vol v;
	struct nlfs_resize_stats st;
	struct nlfs_err err;
	uint64_t n;
	size_t ncp;

	make_volume_on(&v, 2 * DEV);
	while (writer_entry_block(v.io) == 0)
		next_gen(&v, true, false, 0, 0);
	/* a grow: the new segments counted clean, nothing else written */
	ck_assert_msg(nlfs_resize_offline(v.io, 2 * DEV, &one_by_one, &st, &err) == 0, "%s",
		      err.what);
	ck_assert_uint_eq(st.segments_moved, 0);
	ck_assert_uint_gt(writer_entry_block(v.io), 0);
	caught_up(&v);
	sufile_counts_right(v.io);
	n = verify(v.io, &v, v.last_cno, &ncp);
	ck_assert_uint_eq(n, (2 * DEV - 4096) / BS / BPS);
	/* a shrink whose cut is clean: the cut's segments leave the count */
	ck_assert_msg(nlfs_resize_offline(v.io, DEV + DEV / 2, &one_by_one, &st, &err) == 0,
		      "%s", err.what);
	ck_assert_uint_eq(st.segments_moved, 0);
	ck_assert_uint_gt(writer_entry_block(v.io), 0);
	caught_up(&v);
	sufile_counts_right(v.io);
	n = verify(v.io, &v, v.last_cno, &ncp);
	ck_assert_uint_eq(n, (DEV + DEV / 2 - 4096) / BS / BPS);
	nlfs_io_close(v.io);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("resize");
	TCase *tc = tcase_create("offline");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_shrink_moves_the_cut);
	tcase_add_test(tc, test_grow_then_use);
	tcase_add_test(tc, test_shrink_that_does_not_fit);
	tcase_add_test(tc, test_shrink_crash_at_every_write);
	tcase_add_test(tc, test_header_only_change_reaches_disk);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
