/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line's one reading of numbers (common/strutils.c): plain
 * numbers, checkpoint numbers and ranges, periods and sizes, by
 * util-linux's strtou64_or_err rule in every program. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_main.h"
#include <nlfs/nlfs.h>
#include "strutils.h"
#include "array.h"
#include "cli.h"
#include "linefmt.h"

static bool range(const char *s, uint64_t a, uint64_t b)
{
	uint64_t x = 7, y = 7;

	return cli_strtocno_range(s, &x, &y) == 0 && x == a && y == b;
}

static bool no_range(const char *s)
{
	uint64_t x = 7, y = 7;

	return cli_strtocno_range(s, &x, &y) != 0 && x == 7 && y == 7;
}

START_TEST(ranges_of_rmcp)
{
	ck_assert(range("5", 5, 5));
	ck_assert(range("5..10", 5, 10));
	ck_assert(range("..10", 1, 10));
	ck_assert(range("5..", 5, NLFS_CNO_MAX));
	ck_assert(range("0", 0, 0));                  /* rmcp rejects it later */
	ck_assert(range("10..5", 10, 5));             /* so does start > end */
	ck_assert(range(" 5", 5, 5));                 /* leading blanks, as strtoumax */
	ck_assert(no_range(""));
	ck_assert(no_range(".."));
	ck_assert(no_range("..."));
	ck_assert(no_range("1...3"));
	ck_assert(no_range("-5"));
	ck_assert(no_range("5..-1"));
	ck_assert(no_range("abc"));
	ck_assert(no_range("5x"));
	ck_assert(no_range("0x10"));
	ck_assert(no_range("/dev/sda1"));
	ck_assert(no_range("18446744073709551615"));  /* NLFS_CNO_MAX itself */
	ck_assert(no_range("99999999999999999999"));
}
END_TEST

START_TEST(numbers)
{
	const char *end;
	uint64_t v = 7;

	ck_assert_int_eq(cli_strtou64("0", &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(cli_strtou64("18446744073709551615", &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(cli_strtou64("010", &v), 0);   /* decimal, not octal */
	ck_assert_uint_eq(v, 10);
	ck_assert_int_eq(cli_strtou64(" +1", &v), 0);   /* as strtoumax */
	ck_assert_uint_eq(v, 1);
	v = 7;
	ck_assert_int_eq(cli_strtou64("18446744073709551616", &v), -ERANGE);
	ck_assert_int_eq(cli_strtou64("0x10", &v), -EINVAL); /* one rule: dump -c as lscp -i */
	ck_assert_int_eq(cli_strtou64("", &v), -EINVAL);
	ck_assert_int_eq(cli_strtou64("-1", &v), -EINVAL);
	ck_assert_int_eq(cli_strtou64("1k", &v), -EINVAL);
	ck_assert_int_eq(cli_strtou64("1 ", &v), -EINVAL);
	ck_assert_uint_eq(v, 7);
	ck_assert_int_eq(cli_strtou64_max("100", 99, &v), -ERANGE);
	ck_assert_int_eq(cli_strtou64_max("99", 99, &v), 0);
	ck_assert_int_eq(cli_strtou64_prefix("42x", &v, &end), 0);
	ck_assert_uint_eq(v, 42);
	ck_assert_int_eq(*end, 'x');
	{
		int i;

		ck_assert_int_eq(cli_strtoint("-5", &i), 0);
		ck_assert_int_eq(i, -5);
		ck_assert_int_eq(cli_strtoint("-2147483648", &i), 0);
		ck_assert_int_eq(i, INT32_MIN);
		ck_assert_int_eq(cli_strtoint("2147483648", &i), -ERANGE);
		ck_assert_int_eq(cli_strtoint("--1", &i), -EINVAL);
		ck_assert_int_eq(cli_strtoint("-+1", &i), -EINVAL);
	}
	ck_assert_int_eq(cli_strtocno("18446744073709551614", &v), 0);
	ck_assert_int_eq(cli_strtocno("18446744073709551615", &v), -ERANGE);
}
END_TEST

START_TEST(periods)
{
	uint64_t v;

	ck_assert_int_eq(cli_strtoperiod("90", &v), 0);
	ck_assert_uint_eq(v, 90);
	ck_assert_int_eq(cli_strtoperiod("1h", &v), 0);
	ck_assert_uint_eq(v, 3600);
	ck_assert_int_eq(cli_strtoperiod("2d", &v), 0);
	ck_assert_uint_eq(v, 172800);
	ck_assert_int_eq(cli_strtoperiod("1M", &v), 0);
	ck_assert_uint_eq(v, 31 * 86400);
	ck_assert_int_eq(cli_strtoperiod("1Y", &v), 0);
	ck_assert_uint_eq(v, 365 * 86400);
	ck_assert_int_eq(cli_strtoperiod("1x", &v), -EINVAL);
	ck_assert_int_eq(cli_strtoperiod("1hh", &v), -EINVAL);
	ck_assert_int_eq(cli_strtoperiod("h", &v), -EINVAL);
	ck_assert_int_eq(cli_strtoperiod("-1h", &v), -EINVAL);
	ck_assert_int_eq(cli_strtoperiod("18446744073709551615Y", &v), -ERANGE);
}
END_TEST

START_TEST(sizes)
{
	uint64_t v;

	ck_assert_int_eq(cli_strtosize("512", &v), 0);
	ck_assert_uint_eq(v, 512);
	ck_assert_int_eq(cli_strtosize("4K", &v), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(cli_strtosize("2MiB", &v), 0);
	ck_assert_uint_eq(v, 2u << 20);
	ck_assert_int_eq(cli_strtosize("3G", &v), 0);
	ck_assert_uint_eq(v, 3ull << 30);
	ck_assert_int_eq(cli_strtosize("1kB", &v), 0);
	ck_assert_uint_eq(v, 1000);
	ck_assert_int_eq(cli_strtosize("1MB", &v), 0);
	ck_assert_uint_eq(v, 1000000);
	ck_assert_int_eq(cli_strtosize("1E", &v), 0);
	ck_assert_uint_eq(v, 1ull << 60);
	ck_assert_int_eq(cli_strtosize("16E", &v), -ERANGE);
	ck_assert_int_eq(cli_strtosize("1Q", &v), -EINVAL);
	ck_assert_int_eq(cli_strtosize("1KK", &v), -EINVAL);
	ck_assert_int_eq(cli_strtosize("K", &v), -EINVAL);
	ck_assert_int_eq(cli_strtosize("0x10K", &v), -EINVAL);
}
END_TEST

START_TEST(arrays)
{
	uint64_t *a = NULL;
	size_t n = 0, cap = 0;

	for (uint64_t i = 0; i < 1000; i++)
		ck_assert_int_eq(CLI_PUSH(a, n, cap, i), 0);
	ck_assert_uint_eq(n, 1000);
	ck_assert_uint_eq(cap, 1024);                 /* doubling */
	for (uint64_t i = 0; i < 1000; i++)
		ck_assert_uint_eq(a[i], i);
	ck_assert_int_eq(CLI_GROW(a, cap, 10), 0);    /* room enough: unchanged */
	ck_assert_uint_eq(cap, 1024);
	/* a size that overflows is refused, the array left as it was */
	ck_assert_int_eq(CLI_GROW(a, cap, SIZE_MAX / 4), -ENOMEM);
	ck_assert_uint_eq(cap, 1024);
	ck_assert_uint_eq(a[999], 999);
	free(a);
}
END_TEST

/* lf_time against cli_format_time (localtime_r and strftime), zone by
 * zone, across their offset changes */
START_TEST(cached_local_times)
{
	static const char *const zones[] = {
		"UTC", "America/New_York", "Europe/London", "Australia/Lord_Howe",
		"Asia/Kathmandu", "Pacific/Chatham", "America/St_Johns", "Africa/Monrovia",
	};
	static const uint64_t starts[] = {
		0, 1, 1700000000, 1711846800 - 3600, 1730000000, 1000000000, 4102444800,
		(uint64_t)-1, (uint64_t)INT64_MAX,
	};

	for (size_t z = 0; z < sizeof(zones) / sizeof(zones[0]); z++) {
		struct lf_time_cache tc = { 0 };

		setenv("TZ", zones[z], 1);
		tzset();
		for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
			/* a day and a half of steps, and a year of big ones */
			for (uint64_t k = 0; k < 2000; k++) {
				uint64_t t = starts[i] + (k < 1000 ? k * 131 : (k - 1000) * 31607);
				char want[64], got[LF_TIME_MAX + 1];

				cli_format_time(t, want, sizeof(want));
				*lf_time(&tc, t, got) = '\0';
				ck_assert_msg(!strcmp(want, got), "%s: %llu: %s, not %s", zones[z],
					      (unsigned long long)t, got, want);
			}
		}
		/* every second of an hour around a change of offset (New York,
		 * 2024-03-10 02:00 local) */
		for (uint64_t t = 1710054000; t < 1710054000 + 7200; t++) {
			char want[64], got[LF_TIME_MAX + 1];

			cli_format_time(t, want, sizeof(want));
			*lf_time(&tc, t, got) = '\0';
			ck_assert_msg(!strcmp(want, got), "%s: %llu", zones[z], (unsigned long long)t);
		}
	}
	unsetenv("TZ");
}
END_TEST

START_TEST(right_aligned_numbers)
{
	char buf[64];

	*lf_u64(buf, 0, 3) = '\0';
	ck_assert_str_eq(buf, "  0");
	*lf_u64(buf, 12345, 3) = '\0';
	ck_assert_str_eq(buf, "12345");
	*lf_u64(buf, UINT64_MAX, 20) = '\0';
	ck_assert_str_eq(buf, "18446744073709551615");
	*lf_u64(buf, 42, 0) = '\0';
	ck_assert_str_eq(buf, "42");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("cli");

	tcase_add_test(tc, ranges_of_rmcp);
	tcase_add_test(tc, numbers);
	tcase_add_test(tc, periods);
	tcase_add_test(tc, sizes);
	tcase_add_test(tc, arrays);
	tcase_add_test(tc, cached_local_times);
	tcase_add_test(tc, right_aligned_numbers);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
