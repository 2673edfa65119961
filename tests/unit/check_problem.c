/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsck.nilfs2's problem table: every code has a unique name that matches
 * it, a description, a severity and a pass (e2fsck's tst_problem). */
#include <string.h>

#include "check_main.h"
#include "../../sbin/fsck/fsck.h"

/* problem.c reports through these; the table test needs none of them */
void fsck_report_add(struct fsck *c, enum fsck_pr code, const char *msg)
{
	(void)c; (void)code; (void)msg;
}

START_TEST(table_is_complete_and_unique)
{
	for (int i = 0; i < PR_COUNT; i++) {
		const struct fsck_problem_def *d = &fsck_problems[i];

		ck_assert_ptr_nonnull(d->name);
		ck_assert(!strncmp(d->name, "PR_", 3));
		ck_assert_ptr_nonnull(d->desc);
		ck_assert(strlen(d->desc) > 10);
		ck_assert(d->severity == SEV_ERROR || d->severity == SEV_WARNING ||
			  d->severity == SEV_INFO);
		ck_assert(d->pass >= 0 && d->pass <= 6);
		/* a repair says what it does; a problem left as found says nothing */
		ck_assert_ptr_nonnull(d->action);
		ck_assert_int_eq(d->fix == FIX_NONE, d->action[0] == '\0');
		for (int j = 0; j < i; j++) {
			ck_assert_str_ne(d->name, fsck_problems[j].name);
			ck_assert_str_ne(d->desc, fsck_problems[j].desc);
		}
	}
	ck_assert_str_eq(fsck_problems[PR_SB_CRC].name, "PR_SB_CRC");
	ck_assert_str_eq(fsck_problems[PR_IO].name, "PR_IO");
}
END_TEST

START_TEST(problems_are_counted_by_severity)
{
	struct fsck c;

	memset(&c, 0, sizeof(c));
	fsck_problem(&c, PR_SB_CRC, "x %d", 1);
	fsck_problem(&c, PR_SB_FEATURE, "y");
	fsck_problem(&c, PR_RECOVERY, "z");
	fsck_problem(&c, PR_IO, "w");
	ck_assert_uint_eq(c.nerrors, 2);
	ck_assert_uint_eq(c.nwarnings, 1);
	ck_assert(c.op_error);
	ck_assert_uint_eq(c.pr_count[PR_SB_CRC], 1);
	ck_assert(fsck_is_format_error(-NLFS_EBADCRC));
	ck_assert(!fsck_is_format_error(-5));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fsck-problem");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, table_is_complete_and_unique);
	tcase_add_test(tc, problems_are_counted_by_severity);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
