/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Cleaner decisions: policy ranking and the kernel's liveness rule. */
#include <errno.h>

#include "check_main.h"
#include <nlfs/gc.h>

START_TEST(test_policy_parse)
{
	enum nlfs_gc_policy p;

	ck_assert_int_eq(nlfs_gc_policy_parse("timestamp", &p), 0);
	ck_assert_int_eq(p, NLFS_GC_TIMESTAMP);
	ck_assert_int_eq(nlfs_gc_policy_parse("greedy", &p), 0);
	ck_assert_int_eq(p, NLFS_GC_GREEDY);
	ck_assert_int_eq(nlfs_gc_policy_parse("cost-benefit", &p), 0);
	ck_assert_int_eq(p, NLFS_GC_COST_BENEFIT);
	ck_assert_int_eq(nlfs_gc_policy_parse("cost_benefit", &p), 0);
	ck_assert_int_eq(nlfs_gc_policy_parse("lru", &p), -EINVAL);
	ck_assert_str_eq(nlfs_gc_policy_name(NLFS_GC_GREEDY), "greedy");
}
END_TEST

/* three segments: old and full, new and empty, middle-aged and half live */
static void sample(struct nlfs_gc_candidate *c)
{
	c[0] = (struct nlfs_gc_candidate){ .segnum = 1, .lastmod = 1000, .nblocks = 100, .live = 95 };
	c[1] = (struct nlfs_gc_candidate){ .segnum = 2, .lastmod = 9000, .nblocks = 100, .live = 5 };
	c[2] = (struct nlfs_gc_candidate){ .segnum = 3, .lastmod = 5000, .nblocks = 100, .live = 50 };
}

START_TEST(test_rank)
{
	struct nlfs_gc_candidate c[3];

	sample(c);
	nlfs_gc_rank(NLFS_GC_TIMESTAMP, c, 3, 10000, 100);
	ck_assert_uint_eq(c[0].segnum, 1);
	ck_assert_uint_eq(c[1].segnum, 3);
	ck_assert_uint_eq(c[2].segnum, 2);
	sample(c);
	nlfs_gc_rank(NLFS_GC_GREEDY, c, 3, 10000, 100);
	ck_assert_uint_eq(c[0].segnum, 2);
	ck_assert_uint_eq(c[2].segnum, 1);
	/* cost-benefit: seg 2 (u .05, age 1000) ~ 904; seg 3 (u .5, age 5000) ~ 1667;
	 * seg 1 (u .95, age 9000) ~ 231 */
	sample(c);
	nlfs_gc_rank(NLFS_GC_COST_BENEFIT, c, 3, 10000, 100);
	ck_assert_uint_eq(c[0].segnum, 3);
	ck_assert_uint_eq(c[1].segnum, 2);
	ck_assert_uint_eq(c[2].segnum, 1);
	/* the age counts up to the median age (here B's, 2000): the old,
	 * 60 % live A would rank first uncapped (2500 against B's 1637) */
	c[0] = (struct nlfs_gc_candidate){ .segnum = 10, .lastmod = 0, .nblocks = 100, .live = 60 };
	c[1] = (struct nlfs_gc_candidate){ .segnum = 11, .lastmod = 8000, .nblocks = 100, .live = 10 };
	c[2] = (struct nlfs_gc_candidate){ .segnum = 12, .lastmod = 9000, .nblocks = 100, .live = 30 };
	nlfs_gc_rank(NLFS_GC_COST_BENEFIT, c, 3, 10000, 100);
	ck_assert_uint_eq(c[0].segnum, 11);
	ck_assert_uint_eq(c[1].segnum, 12);
	ck_assert_uint_eq(c[2].segnum, 10);
	/* unknown live counts fall back to nblocks; a future lastmod is "now" */
	sample(c);
	c[0].live = NLFS_GC_LIVE_UNKNOWN;
	c[0].nblocks = 0;
	c[1].lastmod = 20000;
	nlfs_gc_rank(NLFS_GC_GREEDY, c, 3, 10000, 100);
	ck_assert_uint_eq(c[0].segnum, 1);
	nlfs_gc_rank(NLFS_GC_TIMESTAMP, c, 3, 10000, 100);
	ck_assert_uint_eq(c[2].segnum, 2);
}
END_TEST

START_TEST(test_held_in_first)
{
	struct nlfs_gc_candidate c[3];

	sample(c);
	c[1].held = true;   /* seg 2: greedy's first, cost-benefit's second */
	nlfs_gc_rank(NLFS_GC_GREEDY, c, 3, 10000, 100);
	ck_assert(nlfs_gc_held_in_first(c, 3, 1));
	sample(c);
	c[1].held = true;
	nlfs_gc_rank(NLFS_GC_COST_BENEFIT, c, 3, 10000, 100);
	ck_assert(!nlfs_gc_held_in_first(c, 3, 1));
	ck_assert(nlfs_gc_held_in_first(c, 3, 2));
	ck_assert(!nlfs_gc_held_in_first(c, 1, 5));
	ck_assert(!nlfs_gc_held_in_first(c, 3, 0));
	/* timestamp puts the oldest first; the held segment is the newest */
	sample(c);
	c[1].held = true;
	nlfs_gc_rank(NLFS_GC_TIMESTAMP, c, 3, 10000, 100);
	ck_assert(!nlfs_gc_held_in_first(c, 3, 2));
	ck_assert(nlfs_gc_held_in_first(c, 3, 3));
}
END_TEST

START_TEST(test_liveness)
{
	const uint64_t snaps[] = { 10, 20, 30 };
	struct nlfs_gc_protect p = { snaps, 3, 100 };
	const uint64_t NOW = UINT64_MAX;

	/* cpfile/sufile blocks: only the current version */
	ck_assert(nlfs_gc_block_live(&p, 0, 5, NOW));
	ck_assert(!nlfs_gc_block_live(&p, 0, 5, 5));
	/* still current, or seen by a protected checkpoint */
	ck_assert(nlfs_gc_block_live(&p, 5, 5, NOW));
	ck_assert(nlfs_gc_block_live(&p, 5, 5, 101));
	/* replaced in the checkpoint that wrote it */
	ck_assert(!nlfs_gc_block_live(&p, 40, 40, 40));
	/* snapshots inside [start, end) keep it */
	ck_assert(nlfs_gc_block_live(&p, 10, 10, 11));
	ck_assert(nlfs_gc_block_live(&p, 15, 15, 21));
	ck_assert(!nlfs_gc_block_live(&p, 11, 11, 20));   /* end is exclusive */
	ck_assert(!nlfs_gc_block_live(&p, 31, 31, 90));
	ck_assert(!nlfs_gc_block_live(&p, 1, 1, 10));
	p.nsnapshots = 0;
	ck_assert(!nlfs_gc_block_live(&p, 15, 15, 21));
}
END_TEST

START_TEST(test_protcno)
{
	const uint64_t cnos[] = { 3, 4, 7, 9 }, create[] = { 100, 200, 300, 400 };

	ck_assert_uint_eq(nlfs_gc_protcno(cnos, create, 4, 250), 7);
	ck_assert_uint_eq(nlfs_gc_protcno(cnos, create, 4, 50), 3);
	ck_assert_uint_eq(nlfs_gc_protcno(cnos, create, 4, 401), UINT64_MAX);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gc");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_policy_parse);
	tcase_add_test(tc, test_rank);
	tcase_add_test(tc, test_held_in_first);
	tcase_add_test(tc, test_liveness);
	tcase_add_test(tc, test_protcno);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
