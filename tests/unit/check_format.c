/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Cross-check our on-disk structs against the kernel's uapi header. */
#include "check_main.h"
#include <stddef.h>
#include <linux/magic.h>
#include <linux/nilfs2_ondisk.h>

#include <nlfs/ondisk.h>
#include <nlfs/nlfs.h>
#include <nlfs/writer.h>
#include <sys/stat.h>

#define SAME(ours, theirs, field) do {                                         \
	ck_assert_uint_eq(offsetof(struct ours, field), offsetof(struct theirs, field)); \
	ck_assert_uint_eq(sizeof(((struct ours *)0)->field),                   \
			  sizeof(((struct theirs *)0)->field));                \
} while (0)

START_TEST(superblock_matches_kernel)
{
	ck_assert_uint_eq(sizeof(struct nlfs_super_block), sizeof(struct nilfs_super_block));
	SAME(nlfs_super_block, nilfs_super_block, s_rev_level);
	SAME(nlfs_super_block, nilfs_super_block, s_minor_rev_level);
	SAME(nlfs_super_block, nilfs_super_block, s_magic);
	SAME(nlfs_super_block, nilfs_super_block, s_bytes);
	SAME(nlfs_super_block, nilfs_super_block, s_flags);
	SAME(nlfs_super_block, nilfs_super_block, s_crc_seed);
	SAME(nlfs_super_block, nilfs_super_block, s_sum);
	SAME(nlfs_super_block, nilfs_super_block, s_log_block_size);
	SAME(nlfs_super_block, nilfs_super_block, s_nsegments);
	SAME(nlfs_super_block, nilfs_super_block, s_dev_size);
	SAME(nlfs_super_block, nilfs_super_block, s_first_data_block);
	SAME(nlfs_super_block, nilfs_super_block, s_blocks_per_segment);
	SAME(nlfs_super_block, nilfs_super_block, s_r_segments_percentage);
	SAME(nlfs_super_block, nilfs_super_block, s_last_cno);
	SAME(nlfs_super_block, nilfs_super_block, s_last_pseg);
	SAME(nlfs_super_block, nilfs_super_block, s_last_seq);
	SAME(nlfs_super_block, nilfs_super_block, s_free_blocks_count);
	SAME(nlfs_super_block, nilfs_super_block, s_ctime);
	SAME(nlfs_super_block, nilfs_super_block, s_mtime);
	SAME(nlfs_super_block, nilfs_super_block, s_wtime);
	SAME(nlfs_super_block, nilfs_super_block, s_mnt_count);
	SAME(nlfs_super_block, nilfs_super_block, s_max_mnt_count);
	SAME(nlfs_super_block, nilfs_super_block, s_state);
	SAME(nlfs_super_block, nilfs_super_block, s_errors);
	SAME(nlfs_super_block, nilfs_super_block, s_lastcheck);
	SAME(nlfs_super_block, nilfs_super_block, s_checkinterval);
	SAME(nlfs_super_block, nilfs_super_block, s_creator_os);
	SAME(nlfs_super_block, nilfs_super_block, s_def_resuid);
	SAME(nlfs_super_block, nilfs_super_block, s_def_resgid);
	SAME(nlfs_super_block, nilfs_super_block, s_first_ino);
	SAME(nlfs_super_block, nilfs_super_block, s_inode_size);
	SAME(nlfs_super_block, nilfs_super_block, s_dat_entry_size);
	SAME(nlfs_super_block, nilfs_super_block, s_checkpoint_size);
	SAME(nlfs_super_block, nilfs_super_block, s_segment_usage_size);
	SAME(nlfs_super_block, nilfs_super_block, s_uuid);
	SAME(nlfs_super_block, nilfs_super_block, s_volume_name);
	SAME(nlfs_super_block, nilfs_super_block, s_c_interval);
	SAME(nlfs_super_block, nilfs_super_block, s_c_block_max);
	SAME(nlfs_super_block, nilfs_super_block, s_feature_compat);
	SAME(nlfs_super_block, nilfs_super_block, s_feature_compat_ro);
	SAME(nlfs_super_block, nilfs_super_block, s_feature_incompat);
	SAME(nlfs_super_block, nilfs_super_block, s_reserved);
}
END_TEST

START_TEST(inode_matches_kernel)
{
	ck_assert_uint_eq(sizeof(struct nlfs_inode), sizeof(struct nilfs_inode));
	SAME(nlfs_inode, nilfs_inode, i_blocks);
	SAME(nlfs_inode, nilfs_inode, i_size);
	SAME(nlfs_inode, nilfs_inode, i_ctime);
	SAME(nlfs_inode, nilfs_inode, i_mtime);
	SAME(nlfs_inode, nilfs_inode, i_ctime_nsec);
	SAME(nlfs_inode, nilfs_inode, i_mtime_nsec);
	SAME(nlfs_inode, nilfs_inode, i_uid);
	SAME(nlfs_inode, nilfs_inode, i_gid);
	SAME(nlfs_inode, nilfs_inode, i_mode);
	SAME(nlfs_inode, nilfs_inode, i_links_count);
	SAME(nlfs_inode, nilfs_inode, i_flags);
	SAME(nlfs_inode, nilfs_inode, i_bmap);
	SAME(nlfs_inode, nilfs_inode, i_xattr);
	SAME(nlfs_inode, nilfs_inode, i_generation);
	SAME(nlfs_inode, nilfs_inode, i_pad);
}
END_TEST

START_TEST(summary_records_match_kernel)
{
	ck_assert_uint_eq(sizeof(struct nlfs_segment_summary), sizeof(struct nilfs_segment_summary));
	SAME(nlfs_segment_summary, nilfs_segment_summary, ss_datasum);
	SAME(nlfs_segment_summary, nilfs_segment_summary, ss_sumsum);
	SAME(nlfs_segment_summary, nilfs_segment_summary, ss_magic);
	SAME(nlfs_segment_summary, nilfs_segment_summary, ss_bytes);
	SAME(nlfs_segment_summary, nilfs_segment_summary, ss_flags);
	SAME(nlfs_segment_summary, nilfs_segment_summary, ss_seq);
	SAME(nlfs_segment_summary, nilfs_segment_summary, ss_create);
	SAME(nlfs_segment_summary, nilfs_segment_summary, ss_next);
	SAME(nlfs_segment_summary, nilfs_segment_summary, ss_nblocks);
	SAME(nlfs_segment_summary, nilfs_segment_summary, ss_nfinfo);
	SAME(nlfs_segment_summary, nilfs_segment_summary, ss_sumbytes);
	SAME(nlfs_segment_summary, nilfs_segment_summary, ss_pad);
	SAME(nlfs_segment_summary, nilfs_segment_summary, ss_cno);
	ck_assert_uint_eq(sizeof(struct nlfs_finfo), sizeof(struct nilfs_finfo));
	SAME(nlfs_finfo, nilfs_finfo, fi_ino);
	SAME(nlfs_finfo, nilfs_finfo, fi_cno);
	SAME(nlfs_finfo, nilfs_finfo, fi_nblocks);
	SAME(nlfs_finfo, nilfs_finfo, fi_ndatablk);
	ck_assert_uint_eq(sizeof(struct nlfs_binfo_v), sizeof(struct nilfs_binfo_v));
	SAME(nlfs_binfo_v, nilfs_binfo_v, bi_vblocknr);
	SAME(nlfs_binfo_v, nilfs_binfo_v, bi_blkoff);
	ck_assert_uint_eq(sizeof(struct nlfs_binfo_dat), sizeof(struct nilfs_binfo_dat));
	SAME(nlfs_binfo_dat, nilfs_binfo_dat, bi_blkoff);
	SAME(nlfs_binfo_dat, nilfs_binfo_dat, bi_level);
	ck_assert_uint_eq(NLFS_SR_INODES_OFFSET, NILFS_SR_DAT_OFFSET(128));
	ck_assert_uint_eq(NLFS_SR_BYTES(128), NILFS_SR_BYTES(128));
	ck_assert_uint_eq(NLFS_SR_BYTES(256), NILFS_SR_BYTES(256));
}
END_TEST

START_TEST(constants_match_kernel)
{
	ck_assert_uint_eq(NLFS_SB_MAGIC, NILFS_SUPER_MAGIC);
	ck_assert_uint_eq(NLFS_SEGSUM_MAGIC, NILFS_SEGSUM_MAGIC);
	ck_assert_uint_eq(NLFS_SB_OFFSET_BYTES, NILFS_SB_OFFSET_BYTES);
	ck_assert_uint_eq(NLFS_CURRENT_REV, NILFS_CURRENT_REV);
	ck_assert_uint_eq(NLFS_SS_LOGBGN, NILFS_SS_LOGBGN);
	ck_assert_uint_eq(NLFS_SS_LOGEND, NILFS_SS_LOGEND);
	ck_assert_uint_eq(NLFS_SS_SR, NILFS_SS_SR);
	ck_assert_uint_eq(NLFS_SS_SYNDT, NILFS_SS_SYNDT);
	ck_assert_uint_eq(NLFS_SS_GC, NILFS_SS_GC);
	ck_assert_uint_eq(NLFS_STATE_VALID_FS, NILFS_VALID_FS);
	ck_assert_uint_eq(NLFS_STATE_ERROR_FS, NILFS_ERROR_FS);
	ck_assert_uint_eq(NLFS_STATE_RESIZE_FS, NILFS_RESIZE_FS);
	ck_assert_uint_eq(NLFS_DAT_INO, NILFS_DAT_INO);
	ck_assert_uint_eq(NLFS_CPFILE_INO, NILFS_CPFILE_INO);
	ck_assert_uint_eq(NLFS_SUFILE_INO, NILFS_SUFILE_INO);
	ck_assert_uint_eq(NLFS_IFILE_INO, NILFS_IFILE_INO);
	ck_assert_uint_eq(NLFS_ROOT_INO, NILFS_ROOT_INO);
	ck_assert_uint_eq(NLFS_FEATURE_COMPAT_RO_BLOCK_COUNT, NILFS_FEATURE_COMPAT_RO_BLOCK_COUNT);
}
END_TEST

/* the on-disk i_mode type bits are Linux's; one rule says which keep a map
 * and which directory-entry type each one has */
START_TEST(mode_types_match_kernel)
{
	static const struct { uint16_t nlfs; mode_t host; uint8_t ft; bool map; } t[] = {
		{ NLFS_S_IFREG, S_IFREG, NILFS_FT_REG_FILE, true },
		{ NLFS_S_IFDIR, S_IFDIR, NILFS_FT_DIR, true },
		{ NLFS_S_IFCHR, S_IFCHR, NILFS_FT_CHRDEV, false },
		{ NLFS_S_IFBLK, S_IFBLK, NILFS_FT_BLKDEV, false },
		{ NLFS_S_IFIFO, S_IFIFO, NILFS_FT_FIFO, false },
		{ NLFS_S_IFSOCK, S_IFSOCK, NILFS_FT_SOCK, false },
		{ NLFS_S_IFLNK, S_IFLNK, NILFS_FT_SYMLINK, true },
	};

	ck_assert_uint_eq(NLFS_S_IFMT, S_IFMT);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ck_assert_uint_eq(t[i].nlfs, t[i].host);
		ck_assert_uint_eq(nlfs_file_type_of_mode(t[i].nlfs | 0644), t[i].ft);
		ck_assert(nlfs_mode_has_map((uint16_t)(t[i].nlfs | 0755)) == t[i].map);
	}
	ck_assert_uint_eq(nlfs_file_type_of_mode(0644), 0);
	ck_assert(!nlfs_mode_has_map(0644));
	ck_assert(!nlfs_mode_has_map(0170000));
}
END_TEST

/* where the kernel's search reads after a log (recovery.c's
 * nilfs_search_super_root): on in the segment while two blocks are left */
START_TEST(chain_goes_on_as_the_kernel_reads)
{
	const struct nlfs_geometry g = { .blocksize = 4096, .blocks_per_segment = 64,
					 .nsegments = 16, .first_data_block = 1 };
	struct nlfs_chain_pos p;

	p = nlfs_chain_next(&g, 10, 5, 7);     /* segment 0, from block 1 */
	ck_assert_uint_eq(p.pos, 10);
	ck_assert_uint_eq(p.seq, 5);
	p = nlfs_chain_next(&g, 64 + 62, 5, 7);   /* two blocks left in segment 1 */
	ck_assert_uint_eq(p.pos, 64 + 62);
	ck_assert_uint_eq(p.seq, 5);
	p = nlfs_chain_next(&g, 64 + 63, 5, 7);   /* one left: the next segment */
	ck_assert_uint_eq(p.pos, 7 * 64);
	ck_assert_uint_eq(p.seq, 6);
	p = nlfs_chain_next(&g, 128, 5, 0);       /* the log filled segment 1 */
	ck_assert_uint_eq(p.pos, 1);              /* segment 0 starts after the superblock */
	ck_assert_uint_eq(p.seq, 6);
}
END_TEST

/* crc32_le by its definition, a bit at a time */
static uint32_t crc_by_bits(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
	}
	return crc;
}

/* nlfs_crc32 (folded where the CPU can, by table elsewhere) is the
 * kernel's crc32_le for every length and alignment, and goes on from a
 * partial sum as the kernel's does */
START_TEST(crc_is_crc32_le)
{
	static uint8_t buf[70000];
	uint32_t x = 12345;

	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	ck_assert_uint_eq(nlfs_crc32(0, "", 0), 0);
	for (size_t len = 0; len < 600; len++)
		for (size_t off = 0; off < 3; off++)
			ck_assert_uint_eq(nlfs_crc32((uint32_t)len * 7919u, buf + off, len),
					  crc_by_bits((uint32_t)len * 7919u, buf + off, len));
	for (size_t len = 4096; len < sizeof(buf); len += 4093)
		ck_assert_uint_eq(nlfs_crc32(0xdeadbeef, buf + 5, len),
				  crc_by_bits(0xdeadbeef, buf + 5, len));
	ck_assert_uint_eq(nlfs_crc32(nlfs_crc32(1, buf, 1000), buf + 1000, 3000),
			  nlfs_crc32(1, buf, 4000));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("format");
	TCase *tc = tcase_create("layout");

	tcase_add_test(tc, superblock_matches_kernel);
	tcase_add_test(tc, inode_matches_kernel);
	tcase_add_test(tc, summary_records_match_kernel);
	tcase_add_test(tc, constants_match_kernel);
	tcase_add_test(tc, mode_types_match_kernel);
	tcase_add_test(tc, chain_goes_on_as_the_kernel_reads);
	tcase_add_test(tc, crc_is_crc32_le);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
