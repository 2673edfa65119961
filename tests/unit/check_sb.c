/* Superblocks: CRC, the kernel's choice between copies, geometry checks. */
#include <string.h>

#include "check_main.h"
#include <nlfs/endian.h>
#include "testimg.h"

#define SB2_OFF nlfs_sb2_offset(TESTIMG_DEVSIZE)

static struct nlfs_super_block *sb_at(struct nlfs_io *io, uint64_t off)
{
	return (struct nlfs_super_block *)(void *)(nlfs_io_mem_data(io) + off);
}

START_TEST(crc_is_kernel_crc32_le)
{
	/* crc32_le(~0, "123456789") is the standard CRC-32 before its final inversion */
	ck_assert_uint_eq(nlfs_crc32(0xFFFFFFFFu, "123456789", 9), 0xCBF43926u ^ 0xFFFFFFFFu);
	ck_assert_uint_eq(nlfs_crc32(0, "", 0), 0);
}
END_TEST

START_TEST(sb2_offset_is_last_4k_slot)
{
	ck_assert_uint_eq(nlfs_sb2_offset(256u << 20), (256u << 20) - 4096);
	ck_assert_uint_eq(nlfs_sb2_offset((256u << 20) + 1000), (256u << 20) - 4096);
}
END_TEST

START_TEST(primary_used_when_both_equal)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_super_block sb[2];
	struct nlfs_sb_choice c;
	struct nlfs_err err;

	ck_assert_int_eq(nlfs_sb_read_both(io, sb, &c, &err), 0);
	ck_assert(c.status[0].valid && c.status[1].valid);
	ck_assert_int_eq(c.used, NLFS_SB_PRIMARY);
	nlfs_io_close(io);
}
END_TEST

START_TEST(secondary_used_when_primary_corrupt)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_super_block sb[2];
	struct nlfs_sb_choice c;
	struct nlfs_err err;

	sb_at(io, NLFS_SB_OFFSET_BYTES)->s_nsegments ^= 1;  /* CRC now wrong */
	ck_assert_int_eq(nlfs_sb_read_both(io, sb, &c, &err), 0);
	ck_assert(!c.status[0].valid);
	ck_assert_int_eq(c.status[0].error, -NLFS_EBADCRC);
	ck_assert_int_eq(c.used, NLFS_SB_SECONDARY);
	ck_assert_str_eq(c.reason, "primary superblock is invalid");
	nlfs_io_close(io);
}
END_TEST

START_TEST(secondary_used_only_when_strictly_newer)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_super_block sb[2];
	struct nlfs_sb_choice c;
	struct nlfs_err err;

	sb_at(io, SB2_OFF)->s_last_cno = nlfs_cpu_to_le64(2);
	testimg_reseal_sb(io, SB2_OFF);
	ck_assert_int_eq(nlfs_sb_read_both(io, sb, &c, &err), 0);
	ck_assert_int_eq(c.used, NLFS_SB_SECONDARY);
	sb_at(io, NLFS_SB_OFFSET_BYTES)->s_last_cno = nlfs_cpu_to_le64(2);
	testimg_reseal_sb(io, NLFS_SB_OFFSET_BYTES);
	ck_assert_int_eq(nlfs_sb_read_both(io, sb, &c, &err), 0);
	ck_assert_int_eq(c.used, NLFS_SB_PRIMARY);
	nlfs_io_close(io);
}
END_TEST

START_TEST(no_valid_copy_is_an_error)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_super_block sb[2];
	struct nlfs_sb_choice c;
	struct nlfs_err err;

	sb_at(io, NLFS_SB_OFFSET_BYTES)->s_magic = 0;
	sb_at(io, SB2_OFF)->s_magic = 0;
	ck_assert_int_eq(nlfs_sb_read_both(io, sb, &c, &err), -NLFS_EBADMAGIC);
	ck_assert_ptr_nonnull(strstr(err.what, "no valid NILFS2 superblock"));
	ck_assert_ptr_nonnull(strstr(err.what, "memory"));
	nlfs_io_close(io);
}
END_TEST

START_TEST(geometry_rejects_what_the_kernel_rejects)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_super_block good = *sb_at(io, NLFS_SB_OFFSET_BYTES), sb;
	struct nlfs_err err;

	ck_assert_int_eq(nlfs_sb_check_geometry(&good, TESTIMG_DEVSIZE, &err), 0);
	sb = good; sb.s_rev_level = nlfs_cpu_to_le32(1);
	ck_assert_int_eq(nlfs_sb_check_geometry(&sb, TESTIMG_DEVSIZE, &err), -NLFS_EREVISION);
	sb = good; sb.s_log_block_size = nlfs_cpu_to_le32(7);
	ck_assert_int_eq(nlfs_sb_check_geometry(&sb, TESTIMG_DEVSIZE, &err), -NLFS_ECORRUPT);
	sb = good; sb.s_blocks_per_segment = nlfs_cpu_to_le32(15);
	ck_assert_int_eq(nlfs_sb_check_geometry(&sb, TESTIMG_DEVSIZE, &err), -NLFS_ECORRUPT);
	sb = good; sb.s_r_segments_percentage = 0;
	ck_assert_int_eq(nlfs_sb_check_geometry(&sb, TESTIMG_DEVSIZE, &err), -NLFS_ECORRUPT);
	sb = good; sb.s_nsegments = nlfs_cpu_to_le64(TESTIMG_NSEGS + 1);
	ck_assert_int_eq(nlfs_sb_check_geometry(&sb, TESTIMG_DEVSIZE, &err), -NLFS_ECORRUPT);
	ck_assert_ptr_nonnull(strstr(err.what, "exceed the device"));
	sb = good; sb.s_first_ino = nlfs_cpu_to_le32(10);
	ck_assert_int_eq(nlfs_sb_check_geometry(&sb, TESTIMG_DEVSIZE, &err), -NLFS_ECORRUPT);
	sb = good; sb.s_inode_size = nlfs_cpu_to_le16(64);
	ck_assert_int_eq(nlfs_sb_check_geometry(&sb, TESTIMG_DEVSIZE, &err), -NLFS_ECORRUPT);
	sb = good; sb.s_feature_incompat = nlfs_cpu_to_le64(1);
	ck_assert_int_eq(nlfs_sb_check_geometry(&sb, TESTIMG_DEVSIZE, &err), -NLFS_EFEATURE);
	sb = good; sb.s_last_pseg = nlfs_cpu_to_le64(TESTIMG_NSEGS * TESTIMG_BPS);
	ck_assert_int_eq(nlfs_sb_check_geometry(&sb, TESTIMG_DEVSIZE, &err), -NLFS_ECORRUPT);
	nlfs_io_close(io);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sb");
	TCase *tc = tcase_create("superblock");

	tcase_add_test(tc, crc_is_kernel_crc32_le);
	tcase_add_test(tc, sb2_offset_is_last_4k_slot);
	tcase_add_test(tc, primary_used_when_both_equal);
	tcase_add_test(tc, secondary_used_when_primary_corrupt);
	tcase_add_test(tc, secondary_used_only_when_strictly_newer);
	tcase_add_test(tc, no_valid_copy_is_an_error);
	tcase_add_test(tc, geometry_rejects_what_the_kernel_rejects);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
