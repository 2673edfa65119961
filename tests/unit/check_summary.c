/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Summaries, log validation and the super-root search. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include <nlfs/endian.h>
#include "testimg.h"

static uint8_t *log_at(struct nlfs_io *io, uint64_t blk)
{
	return nlfs_io_mem_data(io) + blk * TESTIMG_BS;
}

START_TEST(open_finds_the_super_root)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_fs *fs;
	struct nlfs_err err;
	const struct nlfs_recovery *r;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	r = nlfs_fs_recovery(fs);
	ck_assert_uint_eq(r->sr_log, TESTIMG_LOG);
	ck_assert_uint_eq(r->sr_block, TESTIMG_LOG + TESTIMG_NBLOCKS - 1);
	ck_assert_uint_eq(r->cno, 1);
	ck_assert_uint_eq(r->next_pseg, TESTIMG_LOG + TESTIMG_NBLOCKS);
	ck_assert_uint_eq(nlfs_le16(nlfs_fs_sr_inode(fs, NLFS_SUFILE_INO)->i_mode), 0100600);
	ck_assert_ptr_null(nlfs_fs_sr_inode(fs, NLFS_IFILE_INO));
	nlfs_fs_close(fs);
}
END_TEST

struct walk_seen {
	int nfiles, nblocks;
	uint64_t ino, vblocknr, block;
};

static int count_binfo(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi, void *arg)
{
	struct walk_seen *w = arg;

	if (bi->index == 0)
		w->nfiles++;
	w->nblocks++;
	w->ino = fi->ino;
	w->vblocknr = bi->vblocknr;
	w->block = bi->block;
	return 0;
}

START_TEST(walk_reports_finfo_and_binfo)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_log log;
	void *summary = NULL;
	struct walk_seen w = { 0 };

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_log_read(fs, TESTIMG_LOG, &log, &summary, 0, &err), 0);
	ck_assert(log.datasum_ok && log.sumsum_ok);
	ck_assert_uint_eq(log.flags, NLFS_SS_LOGBGN | NLFS_SS_LOGEND | NLFS_SS_SR);
	ck_assert_int_eq(nlfs_summary_walk(&log, summary, TESTIMG_BS, count_binfo, &w, &err), 0);
	ck_assert_int_eq(w.nfiles, 1);
	ck_assert_int_eq(w.nblocks, 1);
	ck_assert_uint_eq(w.ino, NLFS_IFILE_INO);
	ck_assert_uint_eq(w.vblocknr, 7);
	ck_assert_uint_eq(w.block, TESTIMG_LOG + 1);
	free(summary);
	nlfs_fs_close(fs);
}
END_TEST

START_TEST(wrong_sumsum_is_reported_separately_from_datasum)
{
	struct nlfs_io *io = testimg_create();
	uint8_t *d = log_at(io, TESTIMG_LOG);
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_log log;
	nlfs_le32_t sum;

	d[4] ^= 1;   /* ss_sumsum wrong; datasum recomputed over it */
	sum = nlfs_cpu_to_le32(nlfs_crc32(TESTIMG_SEED, d + 4, TESTIMG_NBLOCKS * TESTIMG_BS - 4));
	memcpy(d, &sum, 4);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);   /* the kernel checks datasum only */
	ck_assert_int_eq(nlfs_log_read(fs, TESTIMG_LOG, &log, NULL, 0, &err), 0);
	ck_assert(log.datasum_ok);
	ck_assert(!log.sumsum_ok);
	nlfs_fs_close(fs);
}
END_TEST

START_TEST(summary_only_read_leaves_datasum_unchecked)
{
	struct nlfs_io *io = testimg_create();
	uint8_t *d = log_at(io, TESTIMG_LOG);
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_log whole, head;
	void *s1 = NULL, *s2 = NULL;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	d[TESTIMG_BS + 100] ^= 0x40;   /* a payload block changes after the open */
	ck_assert_int_eq(nlfs_log_read(fs, TESTIMG_LOG, &whole, &s1, 0, &err), 0);
	ck_assert(whole.datasum_checked && !whole.datasum_ok && whole.sumsum_ok);
	ck_assert_int_eq(nlfs_log_read(fs, TESTIMG_LOG, &head, &s2, NLFS_LOG_READ_SUMMARY_ONLY,
				       &err), 0);
	ck_assert(!head.datasum_checked && !head.datasum_ok && head.sumsum_ok);
	ck_assert_uint_eq(head.nblocks, whole.nblocks);
	ck_assert_mem_eq(s1, s2, whole.sumbytes);
	free(s1);
	free(s2);
	nlfs_fs_close(fs);
}
END_TEST

START_TEST(finfo_claiming_too_many_blocks_is_corrupt)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_log log;
	void *summary = NULL;
	nlfs_le32_t big = nlfs_cpu_to_le32(100);

	memcpy(log_at(io, TESTIMG_LOG) + 64 + 16, &big, 4);
	testimg_reseal_log(io, TESTIMG_LOG);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_log_read(fs, TESTIMG_LOG, &log, &summary, 0, &err), 0);
	ck_assert_int_eq(nlfs_summary_walk(&log, summary, TESTIMG_BS, NULL, NULL, &err),
			 -NLFS_ECORRUPT);
	ck_assert_uint_eq(err.block, TESTIMG_LOG);
	free(summary);
	nlfs_fs_close(fs);
}
END_TEST

START_TEST(bad_datasum_fails_open_naming_the_block)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_fs *fs;
	struct nlfs_err err;

	log_at(io, TESTIMG_LOG + 1)[10] ^= 0xFF;   /* payload changed, sums not */
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), -NLFS_EBADCRC);
	ck_assert_uint_eq(err.block, TESTIMG_LOG);
	nlfs_io_close(io);
}
END_TEST

START_TEST(bad_super_root_crc_fails_open)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_fs *fs;
	struct nlfs_err err;
	uint8_t *sr = log_at(io, TESTIMG_LOG + TESTIMG_NBLOCKS - 1);

	sr[20] ^= 1;
	/* keep the log's own sums right so only sr_sum is wrong */
	{
		uint32_t nb = TESTIMG_NBLOCKS;
		nlfs_le32_t sum;
		uint8_t *d = log_at(io, TESTIMG_LOG);

		sum = nlfs_cpu_to_le32(nlfs_crc32(TESTIMG_SEED, d + 4, nb * TESTIMG_BS - 4));
		memcpy(d, &sum, 4);
	}
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), -NLFS_EBADCRC);
	ck_assert_uint_eq(err.block, TESTIMG_LOG + TESTIMG_NBLOCKS - 1);
	nlfs_io_close(io);
}
END_TEST

START_TEST(unclean_volume_scans_forward_to_newer_super_root)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_super_block *sb = (void *)(nlfs_io_mem_data(io) + NLFS_SB_OFFSET_BYTES);
	uint8_t *first = log_at(io, TESTIMG_LOG), *second;
	struct nlfs_fs *fs;
	struct nlfs_err err;
	nlfs_le64_t cno2 = nlfs_cpu_to_le64(2);

	/* copy the log right after itself as checkpoint 2, same segment */
	second = log_at(io, TESTIMG_LOG + TESTIMG_NBLOCKS);
	memcpy(second, first, TESTIMG_NBLOCKS * TESTIMG_BS);
	memcpy(second + 0x38, &cno2, 8);
	testimg_reseal_log(io, TESTIMG_LOG + TESTIMG_NBLOCKS);

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_uint_eq(nlfs_fs_recovery(fs)->sr_log, TESTIMG_LOG);  /* VALID_FS: trust cursor */
	nlfs_fs_close(fs);

	io = testimg_create();
	sb = (void *)(nlfs_io_mem_data(io) + NLFS_SB_OFFSET_BYTES);
	second = log_at(io, TESTIMG_LOG + TESTIMG_NBLOCKS);
	memcpy(second, log_at(io, TESTIMG_LOG), TESTIMG_NBLOCKS * TESTIMG_BS);
	memcpy(second + 0x38, &cno2, 8);
	testimg_reseal_log(io, TESTIMG_LOG + TESTIMG_NBLOCKS);
	sb->s_state = 0;
	testimg_reseal_sb(io, NLFS_SB_OFFSET_BYTES);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_uint_eq(nlfs_fs_recovery(fs)->sr_log, TESTIMG_LOG + TESTIMG_NBLOCKS);
	ck_assert_uint_eq(nlfs_fs_recovery(fs)->cno, 2);
	nlfs_fs_close(fs);
}
END_TEST

struct seen_logs {
	unsigned n, nbad;
	uint64_t start[4];
};

static int note_log(const struct nlfs_log *log, const void *summary, void *arg)
{
	struct seen_logs *sl = arg;

	ck_assert_ptr_nonnull(summary);
	if (sl->n < 4)
		sl->start[sl->n] = log->start;
	sl->n++;
	sl->nbad += !log->sumsum_ok;
	return 0;
}

/* three logs in segment 0: two of the first log's seq, then one of the
 * next seq (left from another pass); then the second one's ss_sumsum bad */
START_TEST(segment_logs_end_at_another_seq)
{
	struct nlfs_io *io = testimg_create();
	uint8_t *first = log_at(io, TESTIMG_LOG);
	nlfs_le64_t seq_next = nlfs_cpu_to_le64(1);
	struct seen_logs sl = { 0 };
	struct nlfs_fs *fs;
	struct nlfs_err err;
	uint32_t end;

	for (unsigned i = 1; i <= 2; i++) {
		uint8_t *copy = log_at(io, TESTIMG_LOG + i * TESTIMG_NBLOCKS);

		memcpy(copy, first, TESTIMG_NBLOCKS * TESTIMG_BS);
		if (i == 2)
			memcpy(copy + 16, &seq_next, 8);   /* ss_seq */
		testimg_reseal_log(io, TESTIMG_LOG + i * TESTIMG_NBLOCKS);
	}
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_segment_logs(fs, 0, 0, note_log, &sl, &err), 0);
	ck_assert_uint_eq(sl.n, 2);
	ck_assert_uint_eq(sl.start[0], TESTIMG_LOG);
	ck_assert_uint_eq(sl.start[1], TESTIMG_LOG + TESTIMG_NBLOCKS);
	ck_assert_int_eq(nlfs_segment_logs_end(fs, 0, &end, &err), 0);
	ck_assert_uint_eq(end, TESTIMG_LOG - nlfs_seg_start(nlfs_fs_geometry(fs), 0) +
			  2 * TESTIMG_NBLOCKS);

	log_at(io, TESTIMG_LOG + TESTIMG_NBLOCKS)[4] ^= 1;   /* its ss_sumsum */
	memset(&sl, 0, sizeof(sl));
	ck_assert_int_eq(nlfs_segment_logs(fs, 0, 0, note_log, &sl, &err), 0);
	ck_assert_uint_eq(sl.n, 2);        /* shown, checksum flagged */
	ck_assert_uint_eq(sl.nbad, 1);
	ck_assert_int_eq(nlfs_segment_logs_end(fs, 0, &end, &err), 0);
	ck_assert_uint_eq(end, TESTIMG_LOG - nlfs_seg_start(nlfs_fs_geometry(fs), 0) +
			  TESTIMG_NBLOCKS);
	ck_assert_int_eq(nlfs_segment_logs(fs, TESTIMG_NSEGS, 0, note_log, &sl, &err), -ERANGE);
	nlfs_fs_close(fs);
}
END_TEST

START_TEST(falls_back_to_other_superblock_when_search_fails)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_super_block *p = (void *)(nlfs_io_mem_data(io) + NLFS_SB_OFFSET_BYTES);
	struct nlfs_fs *fs;
	struct nlfs_err err;

	/* primary points one block too far: no log there */
	p->s_last_pseg = nlfs_cpu_to_le64(TESTIMG_LOG + 1);
	testimg_reseal_sb(io, NLFS_SB_OFFSET_BYTES);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert(nlfs_fs_recovery(fs)->from_other_sb);
	ck_assert_uint_eq(nlfs_fs_recovery(fs)->sr_log, TESTIMG_LOG);
	nlfs_fs_close(fs);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("summary");
	TCase *tc = tcase_create("logs");

	tcase_add_test(tc, open_finds_the_super_root);
	tcase_add_test(tc, walk_reports_finfo_and_binfo);
	tcase_add_test(tc, wrong_sumsum_is_reported_separately_from_datasum);
	tcase_add_test(tc, summary_only_read_leaves_datasum_unchecked);
	tcase_add_test(tc, finfo_claiming_too_many_blocks_is_corrupt);
	tcase_add_test(tc, bad_datasum_fails_open_naming_the_block);
	tcase_add_test(tc, bad_super_root_crc_fails_open);
	tcase_add_test(tc, unclean_volume_scans_forward_to_newer_super_root);
	tcase_add_test(tc, falls_back_to_other_superblock_when_search_fails);
	tcase_add_test(tc, segment_logs_end_at_another_seq);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
