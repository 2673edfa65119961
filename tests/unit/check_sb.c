/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Superblocks: CRC, the kernel's choice between copies, geometry checks. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include <nlfs/endian.h>
#include <nlfs/writer.h>
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

	sb_at(io, NLFS_SB_OFFSET_BYTES)->s_nsegments ^= nlfs_cpu_to_le64(1);  /* CRC now wrong */
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


/* ---- nlfs_sb_rewrite (nilfs-tune) ---- */

static int set_label(struct nlfs_super_block *sb, void *arg, struct nlfs_err *err)
{
	(void)err;
	memset(sb->s_volume_name, 0, sizeof(sb->s_volume_name));
	memcpy(sb->s_volume_name, arg, strlen(arg));
	return 0;
}

static int refuse(struct nlfs_super_block *sb, void *arg, struct nlfs_err *err)
{
	(void)sb;
	(void)arg;
	return nlfs_err_set(err, EINVAL, NLFS_NOWHERE, "refused");
}

static struct nlfs_io *copy_of(struct nlfs_io *io)
{
	struct nlfs_io *c;

	ck_assert_int_eq(nlfs_io_open_mem(TESTIMG_DEVSIZE, &c), 0);
	memcpy(nlfs_io_mem_data(c), nlfs_io_mem_data(io), TESTIMG_DEVSIZE);
	return c;
}

START_TEST(rewrite_edits_each_copy_and_keeps_its_cursor)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_super_block sb[2];
	struct nlfs_sb_choice c;
	struct nlfs_err err;

	sb_at(io, SB2_OFF)->s_last_cno = nlfs_cpu_to_le64(2);
	testimg_reseal_sb(io, SB2_OFF);
	ck_assert_int_eq(nlfs_sb_rewrite(io, set_label, "tuned", &c, &err), 0);
	ck_assert_int_eq(c.used, NLFS_SB_SECONDARY);
	ck_assert_int_eq(nlfs_sb_read_both(io, sb, &c, &err), 0);
	ck_assert(c.status[0].valid && c.status[1].valid);
	ck_assert_str_eq(sb[0].s_volume_name, "tuned");
	ck_assert_str_eq(sb[1].s_volume_name, "tuned");
	ck_assert_uint_eq(nlfs_le64(sb[0].s_last_cno), 1);
	ck_assert_uint_eq(nlfs_le64(sb[1].s_last_cno), 2);
	nlfs_io_close(io);
}
END_TEST

START_TEST(rewrite_refused_edit_writes_nothing)
{
	struct nlfs_io *io = testimg_create(), *before = copy_of(io);
	struct nlfs_sb_choice c;
	struct nlfs_err err;

	ck_assert_int_eq(nlfs_sb_rewrite(io, refuse, NULL, &c, &err), -EINVAL);
	ck_assert_str_eq(err.what, "refused");
	ck_assert_int_eq(memcmp(nlfs_io_mem_data(io), nlfs_io_mem_data(before), TESTIMG_DEVSIZE), 0);
	nlfs_io_close(before);
	nlfs_io_close(io);
}
END_TEST

START_TEST(rewrite_leaves_an_invalid_copy_alone)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_super_block sb[2], bad;
	struct nlfs_sb_choice c;
	struct nlfs_err err;

	sb_at(io, NLFS_SB_OFFSET_BYTES)->s_nsegments ^= nlfs_cpu_to_le64(1);   /* CRC now wrong */
	bad = *sb_at(io, NLFS_SB_OFFSET_BYTES);
	ck_assert_int_eq(nlfs_sb_rewrite(io, set_label, "tuned", &c, &err), 0);
	ck_assert(!c.status[0].valid);
	ck_assert_int_eq(memcmp(sb_at(io, NLFS_SB_OFFSET_BYTES), &bad, sizeof(bad)), 0);
	ck_assert_int_eq(nlfs_sb_read_both(io, sb, &c, &err), 0);
	ck_assert_int_eq(c.used, NLFS_SB_SECONDARY);
	ck_assert_str_eq(sb[1].s_volume_name, "tuned");
	nlfs_io_close(io);
}
END_TEST

/* A block size beyond the format (nilfs-utils trusted it: CVE-2026-55392)
 * is refused before anything is read with it or written. */
START_TEST(rewrite_refuses_a_block_size_beyond_the_format)
{
	struct nlfs_io *io = testimg_create(), *before;
	struct nlfs_sb_choice c;
	struct nlfs_err err;

	for (int i = 0; i < 2; i++) {
		uint64_t off = i ? SB2_OFF : NLFS_SB_OFFSET_BYTES;

		sb_at(io, off)->s_log_block_size = nlfs_cpu_to_le32(40);
		testimg_reseal_sb(io, off);
	}
	before = copy_of(io);
	ck_assert_int_eq(nlfs_sb_rewrite(io, set_label, "tuned", &c, &err), -NLFS_ECORRUPT);
	ck_assert_ptr_nonnull(strstr(err.what, "s_log_block_size"));
	ck_assert_int_eq(memcmp(nlfs_io_mem_data(io), nlfs_io_mem_data(before), TESTIMG_DEVSIZE), 0);
	nlfs_io_close(before);
	nlfs_io_close(io);
}
END_TEST

/* Power lost at every write, torn half way, after it, or the write failed:
 * what the disk keeps opens with the old label or the new one, never
 * anything else, and both outcomes happen. */
START_TEST(rewrite_crash_at_every_write)
{
	struct nlfs_io *base = testimg_create();
	unsigned seen[2] = { 0, 0 };
	bool finished = false;

	for (uint64_t k = 0; !finished; k++) {
		ck_assert_uint_lt(k, 10);
		for (int mode = 0; mode < 3; mode++) {
			struct nlfs_io *lower = copy_of(base), *fio, *after;
			struct nlfs_super_block sb[2];
			struct nlfs_sb_choice c;
			struct nlfs_err err;
			const char *name;
			int rc;

			ck_assert_int_eq(nlfs_io_open_fault(lower, &fio), 0);
			if (mode == 0)
				nlfs_io_fault_tear_write(fio, k, 300);
			else if (mode == 1)
				nlfs_io_fault_tear_write(fio, k, SIZE_MAX);
			else
				nlfs_io_fault_fail_write(fio, k);
			rc = nlfs_sb_rewrite(fio, set_label, "tuned", &c, &err);
			if (rc == 0 && mode == 2) {
				finished = true;
				ck_assert_uint_eq(k, 2);   /* two copies, one write each */
			}
			nlfs_io_fault_crash(fio);
			after = copy_of(lower);
			nlfs_io_close(fio);
			ck_assert_int_eq(nlfs_sb_read_both(after, sb, &c, &err), 0);
			name = sb[c.used].s_volume_name;
			ck_assert_msg(!name[0] || !strcmp(name, "tuned"),
				      "crash at write %llu (mode %d): label '%.80s'",
				      (unsigned long long)k, mode, name);
			seen[name[0] != 0]++;
			if (finished)
				ck_assert(c.status[0].valid && c.status[1].valid &&
					  !strcmp(sb[0].s_volume_name, "tuned") &&
					  !strcmp(sb[1].s_volume_name, "tuned"));
			nlfs_io_close(after);
		}
	}
	ck_assert_uint_gt(seen[0], 0);
	ck_assert_uint_gt(seen[1], 0);
	nlfs_io_close(base);
}
END_TEST

/* an interrupted nilfs-tune -U differs in an in-place field; a block size
 * that differs is damage, not an update */
START_TEST(copies_differing_in_place_are_told_from_damage)
{
	struct nlfs_super_block a, b;
	const char *field = NULL;
	int i;

	memset(&a, 0, sizeof(a));
	b = a;
	ck_assert_int_eq(nlfs_sb_fixed_differ(&a, &b, 0, &field), -1);
	b.s_uuid[3] ^= 1;
	i = nlfs_sb_fixed_differ(&a, &b, 0, &field);
	ck_assert_int_ge(i, 0);
	ck_assert_str_eq(field, "s_uuid");
	ck_assert(nlfs_sb_field_updated_in_place(i));
	b = a;
	b.s_log_block_size = nlfs_cpu_to_le32(2);
	i = nlfs_sb_fixed_differ(&a, &b, 0, &field);
	ck_assert_int_ge(i, 0);
	ck_assert_str_eq(field, "s_log_block_size");
	ck_assert(!nlfs_sb_field_updated_in_place(i));
	b = a;
	b.s_nsegments = nlfs_cpu_to_le64(9);
	i = nlfs_sb_fixed_differ(&a, &b, 0, &field);
	ck_assert_str_eq(field, "s_nsegments");
	ck_assert(nlfs_sb_field_updated_in_place(i));
	b = a;
	b.s_blocks_per_segment = nlfs_cpu_to_le32(9);
	i = nlfs_sb_fixed_differ(&a, &b, 0, &field);
	ck_assert_str_eq(field, "s_blocks_per_segment");
	ck_assert(!nlfs_sb_field_updated_in_place(i));
	ck_assert(!nlfs_sb_field_updated_in_place(-1));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sb");
	TCase *tc = tcase_create("superblock");

	tcase_add_test(tc, crc_is_kernel_crc32_le);
	tcase_add_test(tc, copies_differing_in_place_are_told_from_damage);
	tcase_add_test(tc, sb2_offset_is_last_4k_slot);
	tcase_add_test(tc, primary_used_when_both_equal);
	tcase_add_test(tc, secondary_used_when_primary_corrupt);
	tcase_add_test(tc, secondary_used_only_when_strictly_newer);
	tcase_add_test(tc, no_valid_copy_is_an_error);
	tcase_add_test(tc, geometry_rejects_what_the_kernel_rejects);
	tcase_add_test(tc, rewrite_edits_each_copy_and_keeps_its_cursor);
	tcase_add_test(tc, rewrite_refused_edit_writes_nothing);
	tcase_add_test(tc, rewrite_leaves_an_invalid_copy_alone);
	tcase_add_test(tc, rewrite_refuses_a_block_size_beyond_the_format);
	tcase_add_test(tc, rewrite_crash_at_every_write);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
