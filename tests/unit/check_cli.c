/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command-line parsing of the checkpoint tools (bin/lscp/cli.c):
 * checkpoint numbers and ranges read as nilfs-utils reads them. */
#include <stdint.h>

#include "check_main.h"
#include <nlfs/nlfs.h>
#include "cli.h"

static bool range(const char *s, uint64_t a, uint64_t b)
{
	uint64_t x = 7, y = 7;

	return cli_parse_cno_range(s, &x, &y) && x == a && y == b;
}

static bool no_range(const char *s)
{
	uint64_t x, y;

	return !cli_parse_cno_range(s, &x, &y);
}

START_TEST(ranges_of_rmcp)
{
	ck_assert(range("5", 5, 5));
	ck_assert(range("5..10", 5, 10));
	ck_assert(range("..10", 1, 10));
	ck_assert(range("5..", 5, NLFS_CNO_MAX));
	ck_assert(range("0", 0, 0));                  /* rmcp rejects it later */
	ck_assert(range("10..5", 10, 5));             /* so does start > end */
	ck_assert(range(" 5", 5, 5));                 /* leading blanks, as strtoull */
	ck_assert(no_range(""));
	ck_assert(no_range(".."));
	ck_assert(no_range("..."));
	ck_assert(no_range("1...3"));
	ck_assert(no_range("-5"));
	ck_assert(no_range("5..-1"));
	ck_assert(no_range("abc"));
	ck_assert(no_range("5x"));
	ck_assert(no_range("/dev/sda1"));
	ck_assert(no_range("18446744073709551615"));  /* NLFS_CNO_MAX itself */
	ck_assert(no_range("99999999999999999999"));
}
END_TEST

START_TEST(numbers)
{
	const char *end;
	uint64_t v;

	ck_assert_uint_eq(cli_parse_cno("42", &end), 42);
	ck_assert_int_eq(*end, 0);
	ck_assert_uint_eq(cli_parse_cno("42x", &end), 42);
	ck_assert_int_eq(*end, 'x');
	ck_assert_uint_eq(cli_parse_cno("-1", &end), NLFS_CNO_MAX);
	ck_assert(cli_parse_u64("0", &v) && v == 0);
	ck_assert(cli_parse_u64("18446744073709551615", &v) && v == UINT64_MAX);
	ck_assert(!cli_parse_u64("18446744073709551616", &v));
	ck_assert(!cli_parse_u64("", &v));
	ck_assert(!cli_parse_u64("-1", &v));
	ck_assert(!cli_parse_u64(" 1", &v));
	ck_assert(!cli_parse_u64("1k", &v));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cli");

	tcase_add_test(tc, ranges_of_rmcp);
	tcase_add_test(tc, numbers);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
