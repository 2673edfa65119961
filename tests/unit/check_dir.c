/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Directory records checked as the kernel checks them, i_blocks units,
 * and the super root check, on hand-made blocks. */
#include <string.h>

#include "check_main.h"
#include "testimg.h"
#include <nlfs/endian.h>
#include <nlfs/nlfs.h>

static void put_rec(uint8_t *b, unsigned off, uint64_t ino, uint16_t rec_len, const char *name,
		    uint8_t type)
{
	nlfs_le64_t i = nlfs_cpu_to_le64(ino);
	nlfs_le16_t r = nlfs_cpu_to_le16(rec_len);

	memcpy(b + off, &i, 8);
	memcpy(b + off + 8, &r, 2);
	b[off + 10] = (uint8_t)strlen(name);
	b[off + 11] = type;
	memcpy(b + off + 12, name, strlen(name));
}

START_TEST(good_block_of_records)
{
	uint8_t b[1024] = { 0 };
	struct nlfs_dir_rec r;
	struct nlfs_err err;

	put_rec(b, 0, 12, 16, ".", 2);
	put_rec(b, 16, 2, 16, "..", 2);
	put_rec(b, 32, 13, 1024 - 32, "file", 1);
	ck_assert_int_eq(nlfs_dir_record(b, 1024, 0, &r, &err), 0);
	ck_assert_uint_eq(r.ino, 12);
	ck_assert_uint_eq(r.rec_len, 16);
	ck_assert_int_eq(nlfs_dir_record(b, 1024, 32, &r, &err), 0);
	ck_assert_uint_eq(r.name_len, 4);
	ck_assert_uint_eq(r.file_type, 1);
	ck_assert(!memcmp(r.name, "file", 4));
	ck_assert_uint_eq(r.rec_len, 992);
}
END_TEST

/* the names of a directory's own and its parent's entries, by length:
 * not NUL-terminated, so the bytes after LEN do not count */
START_TEST(dot_and_dotdot_names)
{
	ck_assert(nlfs_dir_name_is_dots(".", 1));
	ck_assert(nlfs_dir_name_is_dots("..", 2));
	ck_assert(nlfs_dir_name_is_dots("..x", 2));
	ck_assert(nlfs_dir_name_is_dots(".x", 1));
	ck_assert(!nlfs_dir_name_is_dots("...", 3));
	ck_assert(!nlfs_dir_name_is_dots(".a", 2));
	ck_assert(!nlfs_dir_name_is_dots("a.", 2));
	ck_assert(!nlfs_dir_name_is_dots("a", 1));
	ck_assert(!nlfs_dir_name_is_dots(".hidden", 7));
	ck_assert(!nlfs_dir_name_is_dots("", 0));
}
END_TEST

START_TEST(bad_records_name_their_reason)
{
	uint8_t b[1024] = { 0 };
	struct nlfs_dir_rec r;
	struct nlfs_err err;

	put_rec(b, 0, 12, 8, ".", 2);
	ck_assert_int_eq(nlfs_dir_record(b, 1024, 0, &r, &err), -NLFS_ECORRUPT);
	ck_assert(strstr(err.what, "minimum"));
	put_rec(b, 0, 12, 18, ".", 2);
	ck_assert_int_eq(nlfs_dir_record(b, 1024, 0, &r, &err), -NLFS_ECORRUPT);
	ck_assert(strstr(err.what, "multiple of 4"));
	put_rec(b, 0, 12, 16, "a-longer-name", 1);
	ck_assert_int_eq(nlfs_dir_record(b, 1024, 0, &r, &err), -NLFS_ECORRUPT);
	ck_assert(strstr(err.what, "name_len"));
	put_rec(b, 1000, 12, 32, "x", 1);
	ck_assert_int_eq(nlfs_dir_record(b, 1024, 1000, &r, &err), -NLFS_ECORRUPT);
	ck_assert(strstr(err.what, "block end"));
	ck_assert_int_eq(nlfs_dir_record(b, 1024, 1020, &r, &err), -NLFS_ECORRUPT);
	/* reserved inodes: below 11, except the root (2) and the sketch file (10) */
	put_rec(b, 0, 5, 16, "x", 1);
	ck_assert_int_eq(nlfs_dir_record(b, 1024, 0, &r, &err), -NLFS_ECORRUPT);
	ck_assert(strstr(err.what, "reserved"));
	ck_assert_uint_eq(r.ino, 5);   /* still decoded for the caller */
	ck_assert(nlfs_dir_private_ino(1) && nlfs_dir_private_ino(6) && !nlfs_dir_private_ino(2) &&
		  !nlfs_dir_private_ino(10) && !nlfs_dir_private_ino(11));
	/* 64 KiB blocks store a whole-block rec_len as 65535 */
	{
		static uint8_t big[65536];

		put_rec(big, 0, 12, 65535, "x", 1);
		ck_assert_int_eq(nlfs_dir_record(big, 65536, 0, &r, &err), 0);
		ck_assert_uint_eq(r.rec_len, 65536);
	}
}
END_TEST

/* salvage: every record that holds up is kept, the rest named and skipped */
START_TEST(salvage_keeps_what_holds_up)
{
	uint8_t b[1024] = { 0 };
	struct nlfs_dir_rec r;
	const char *why;
	unsigned next;

	put_rec(b, 0, 12, 16, ".", 2);
	put_rec(b, 16, 2, 16, "..", 2);
	put_rec(b, 32, 13, 24, "file", 1);
	put_rec(b, 56, 14, 1024 - 56, "next", 1);
	ck_assert_int_eq(nlfs_dir_salvage(b, 1024, 32, &r, &next, &why), NLFS_DIR_SOUND);
	ck_assert_uint_eq(next, 56);
	ck_assert_ptr_null(why);
	/* a rec_len too small: the record reaches the next sound one */
	put_rec(b, 16, 2, 10, "..", 2);
	ck_assert_int_eq(nlfs_dir_salvage(b, 1024, 16, &r, &next, &why), NLFS_DIR_MENDED);
	ck_assert_uint_eq(r.rec_len, 16);
	ck_assert_uint_eq(next, 32);
	/* running past the block end: the same */
	put_rec(b, 32, 13, 2000, "file", 1);
	ck_assert_int_eq(nlfs_dir_salvage(b, 1024, 32, &r, &next, &why), NLFS_DIR_MENDED);
	ck_assert_uint_eq(next, 56);
	ck_assert(!memcmp(r.name, "file", 4));
	/* name_len too long for a rec_len that fits: the name ends at its padding */
	put_rec(b, 32, 13, 24, "file", 1);
	b[32 + 10] = 200;
	ck_assert_int_eq(nlfs_dir_salvage(b, 1024, 32, &r, &next, &why), NLFS_DIR_MENDED);
	ck_assert_uint_eq(r.name_len, 4);
	ck_assert_uint_eq(next, 56);
	/* a reserved inode: that record goes, the next stays */
	put_rec(b, 32, 5, 24, "file", 1);
	ck_assert_int_eq(nlfs_dir_salvage(b, 1024, 32, &r, &next, &why), NLFS_DIR_DROPPED);
	ck_assert_uint_eq(next, 56);
	ck_assert(strstr(why, "reserved"));
	/* garbage: dropped up to the next record from which sound ones run */
	memset(b + 32, 0xff, 24);
	ck_assert_int_eq(nlfs_dir_salvage(b, 1024, 32, &r, &next, &why), NLFS_DIR_DROPPED);
	ck_assert_uint_eq(next, 56);
}
END_TEST

START_TEST(i_blocks_in_either_unit)
{
	/* kernel: 512-byte units */
	ck_assert(nlfs_inode_blocks_ok(24, 3, 4096, 0));
	ck_assert(!nlfs_inode_blocks_ok(3, 3, 4096, 0));
	/* mkfs: fs blocks, then the kernel's additions: 3 mkfs blocks + 35 kernel ones */
	ck_assert(nlfs_inode_blocks_ok(3, 3, 4096, 4));
	ck_assert(nlfs_inode_blocks_ok(283, 38, 4096, 4));
	ck_assert(!nlfs_inode_blocks_ok(284, 38, 4096, 4));
	ck_assert(nlfs_inode_blocks_ok(0, 0, 1024, 4));
	ck_assert(nlfs_inode_blocks_ok(7, 4, 1024, 4));   /* 1 mkfs block + 3 kernel ones */
	ck_assert(!nlfs_inode_blocks_ok(9, 4, 1024, 4));
}
END_TEST

START_TEST(super_root_check)
{
	struct nlfs_io *io = testimg_create();
	uint8_t *sr = nlfs_io_mem_data(io) + (TESTIMG_LOG + 2) * TESTIMG_BS;
	struct nlfs_err err;

	ck_assert_int_eq(nlfs_super_root_check(sr, TESTIMG_BS, TESTIMG_SEED, 128, 7, &err), 0);
	sr[100] ^= 1;
	ck_assert_int_eq(nlfs_super_root_check(sr, TESTIMG_BS, TESTIMG_SEED, 128, 7, &err),
			 -NLFS_EBADCRC);
	ck_assert_uint_eq(err.block, 7);
	sr[4] = 10;
	sr[5] = 0;
	ck_assert_int_eq(nlfs_super_root_check(sr, TESTIMG_BS, TESTIMG_SEED, 128, 7, &err),
			 -NLFS_ECORRUPT);
	nlfs_io_close(io);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dir");
	TCase *tc = tcase_create("records");

	tcase_add_test(tc, good_block_of_records);
	tcase_add_test(tc, dot_and_dotdot_names);
	tcase_add_test(tc, bad_records_name_their_reason);
	tcase_add_test(tc, salvage_keeps_what_holds_up);
	tcase_add_test(tc, i_blocks_in_either_unit);
	tcase_add_test(tc, super_root_check);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
