/* I/O backends: memory bounds, fault injection (fail, tear, crash). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include <nlfs/io.h>

START_TEST(mem_reads_back_and_bounds)
{
	struct nlfs_io *io;
	uint8_t buf[16] = "hello, nilfs", out[16];
	uint64_t sz;

	ck_assert_int_eq(nlfs_io_open_mem(4096, &io), 0);
	ck_assert_int_eq(nlfs_io_size(io, &sz), 0);
	ck_assert_uint_eq(sz, 4096);
	ck_assert_int_eq(nlfs_io_write(io, buf, sizeof(buf), 100), 0);
	ck_assert_int_eq(nlfs_io_read(io, out, sizeof(out), 100), 0);
	ck_assert_mem_eq(buf, out, sizeof(buf));
	ck_assert_int_eq(nlfs_io_read(io, out, sizeof(out), 4090), -ENODATA);
	ck_assert_int_eq(nlfs_io_write(io, buf, sizeof(buf), 4090), -ENOSPC);
	ck_assert_int_eq(nlfs_io_read(io, out, 2, UINT64_MAX), -EINVAL);
	nlfs_io_close(io);
}
END_TEST

START_TEST(fault_fails_chosen_write)
{
	struct nlfs_io *mem, *io;
	uint8_t a = 1;

	ck_assert_int_eq(nlfs_io_open_mem(64, &mem), 0);
	ck_assert_int_eq(nlfs_io_open_fault(mem, &io), 0);
	nlfs_io_fault_fail_write(io, 1);
	ck_assert_int_eq(nlfs_io_write(io, &a, 1, 0), 0);
	ck_assert_int_eq(nlfs_io_write(io, &a, 1, 1), -EIO);
	ck_assert_int_eq(nlfs_io_write(io, &a, 1, 2), 0);
	ck_assert_uint_eq(nlfs_io_fault_writes(io), 3);
	ck_assert_uint_eq(nlfs_io_mem_data(mem)[1], 0);
	ck_assert_uint_eq(nlfs_io_mem_data(mem)[2], 1);
	nlfs_io_close(io);
}
END_TEST

START_TEST(fault_tears_then_power_is_lost)
{
	struct nlfs_io *mem, *io;
	uint8_t buf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, out[8];

	ck_assert_int_eq(nlfs_io_open_mem(64, &mem), 0);
	ck_assert_int_eq(nlfs_io_open_fault(mem, &io), 0);
	nlfs_io_fault_tear_write(io, 0, 3);
	ck_assert_int_eq(nlfs_io_write(io, buf, 8, 8), -EIO);
	ck_assert_int_eq(nlfs_io_flush(io), -EIO);
	ck_assert_int_eq(nlfs_io_read(io, out, 8, 8), -EIO);
	memcpy(out, nlfs_io_mem_data(mem) + 8, 8);
	ck_assert_uint_eq(out[2], 3);
	ck_assert_uint_eq(out[3], 0);
	nlfs_io_close(io);
}
END_TEST

START_TEST(fault_crash_drops_unflushed_writes)
{
	struct nlfs_io *mem, *io;
	uint8_t one = 1, two = 2;
	uint8_t *d;

	ck_assert_int_eq(nlfs_io_open_mem(64, &mem), 0);
	d = nlfs_io_mem_data(mem);
	ck_assert_int_eq(nlfs_io_open_fault(mem, &io), 0);
	ck_assert_int_eq(nlfs_io_write(io, &one, 1, 0), 0);
	ck_assert_int_eq(nlfs_io_flush(io), 0);
	ck_assert_int_eq(nlfs_io_write(io, &two, 1, 0), 0);
	ck_assert_int_eq(nlfs_io_write(io, &two, 1, 1), 0);
	ck_assert_int_eq(nlfs_io_write(io, &one, 1, 1), 0);
	nlfs_io_fault_crash(io);
	ck_assert_uint_eq(d[0], 1);  /* flushed: kept */
	ck_assert_uint_eq(d[1], 0);  /* never flushed: back to the oldest contents */
	nlfs_io_close(io);
}
END_TEST

START_TEST(unix_file_roundtrip)
{
	char path[] = "/tmp/nlfs-io-XXXXXX";
	int fd = mkstemp(path);
	struct nlfs_io *io;
	uint8_t buf[4] = { 9, 8, 7, 6 }, out[4];
	uint64_t sz;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 8192), 0);
	close(fd);
	ck_assert_int_eq(nlfs_io_open_unix(path, NLFS_IO_RDWR, &io), 0);
	ck_assert_str_eq(nlfs_io_name(io), path);
	ck_assert_int_eq(nlfs_io_size(io, &sz), 0);
	ck_assert_uint_eq(sz, 8192);
	ck_assert_int_eq(nlfs_io_write(io, buf, 4, 5000), 0);
	ck_assert_int_eq(nlfs_io_flush(io), 0);
	ck_assert_int_eq(nlfs_io_read(io, out, 4, 5000), 0);
	ck_assert_mem_eq(buf, out, 4);
	ck_assert_int_eq(nlfs_io_read(io, out, 4, 8190), -ENODATA);
	nlfs_io_close(io);
	ck_assert_int_eq(nlfs_io_open_unix(path, NLFS_IO_RDONLY, &io), 0);
	ck_assert_int_eq(nlfs_io_write(io, buf, 4, 0), -EROFS);
	nlfs_io_close(io);
	unlink(path);
	ck_assert_int_eq(nlfs_io_open_unix(path, NLFS_IO_RDONLY, &io), -ENOENT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("io");
	TCase *tc = tcase_create("backends");

	tcase_add_test(tc, mem_reads_back_and_bounds);
	tcase_add_test(tc, fault_fails_chosen_write);
	tcase_add_test(tc, fault_tears_then_power_is_lost);
	tcase_add_test(tc, fault_crash_drops_unflushed_writes);
	tcase_add_test(tc, unix_file_roundtrip);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
