/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check_timeline.c - the snapshot timeline's rule (common/timeline.c). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nlfs/gc.h>
#include "check_main.h"
#include "timeline.h"

#define H 3600
#define D (24 * H)
/* Monday 2026-01-05 00:00 UTC */
#define MON 1767571200

static void set_tz(const char *tz)
{
	setenv("TZ", tz, 1);
	tzset();
}

static struct tl_plan plan;

/* the plan for CPS with the owned list OWN, buckets CFG, at NOW */
static void make(const struct tl_cp *cps, size_t n, const struct tl_owned *own, size_t nown,
		 const struct tl_config *cfg, time_t now)
{
	ck_assert_int_eq(tl_plan_make(cps, n, own, nown, cfg, now, &plan), 0);
}

/* the verdict for CNO, or -1 if the plan says nothing of it */
static int verdict(uint64_t cno)
{
	for (size_t i = 0; i < plan.n; i++)
		if (plan.d[i].cno == cno)
			return (int)plan.d[i].verdict;
	return -1;
}

static int64_t until(uint64_t cno)
{
	for (size_t i = 0; i < plan.n; i++)
		if (plan.d[i].cno == cno)
			return plan.d[i].until;
	return -1;
}

static unsigned buckets(uint64_t cno)
{
	for (size_t i = 0; i < plan.n; i++)
		if (plan.d[i].cno == cno)
			return plan.d[i].buckets;
	return 0;
}

/* the numbers the plan keeps (any verdict but DEMOTE and FORGET), as "1 5 9" */
static const char *kept(void)
{
	static char buf[1024];
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < plan.n; i++)
		if (plan.d[i].buckets && at < sizeof(buf))
			at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%llu", at ? " " : "",
					       (unsigned long long)plan.d[i].cno);
	return buf;
}

static void teardown(void)
{
	tl_plan_free(&plan);
}

START_TEST(empty)
{
	struct tl_config cfg = { { 24, 7, 4, 12, 2 } };

	set_tz("UTC0");
	make(NULL, 0, NULL, 0, &cfg, MON);
	ck_assert_uint_eq(plan.n, 0);
	/* no buckets: nothing kept, even with checkpoints */
	struct tl_cp cps[] = { { 1, MON - D, false }, { 2, MON - H, false } };
	struct tl_config none = { { 0 } };

	tl_plan_free(&plan);
	make(cps, 2, NULL, 0, &none, MON);
	ck_assert_uint_eq(plan.n, 0);
}
END_TEST

START_TEST(hourly_last_of_ended_periods)
{
	struct tl_config cfg = { { 3 } };
	struct tl_cp cps[] = {
		{ 1, MON + 0 * H + 10, false }, { 2, MON + 0 * H + 3000, false },
		{ 3, MON + 1 * H + 5, false },  { 4, MON + 2 * H + 5, false },
		{ 5, MON + 2 * H + 3599, false }, { 6, MON + 3 * H + 1, false },
		{ 7, MON + 4 * H + 20, false }, /* in the hour of now: not ended */
	};

	set_tz("UTC0");
	make(cps, 7, NULL, 0, &cfg, MON + 4 * H + 1800);
	ck_assert_str_eq(kept(), "3 5 6");
	ck_assert_int_eq(verdict(5), TL_PROMOTE);
	ck_assert_int_eq(verdict(4), -1);
	ck_assert_int_eq(verdict(7), -1);
	ck_assert_uint_eq(plan.count[TL_PROMOTE], 3);
	ck_assert_uint_eq(buckets(6), 1u << TL_HOURLY);
	/* hour 2 is let go once hours 3, 4 and 5 have ended */
	ck_assert_int_eq(until(5), MON + 6 * H);
	ck_assert_int_eq(until(4), -1);
}
END_TEST

START_TEST(gaps_are_skipped)
{
	struct tl_config cfg = { { 2, 2 } };
	/* hours 0 and 1 of Monday, then nothing until Thursday 10:xx */
	struct tl_cp cps[] = {
		{ 1, MON + 100, false }, { 2, MON + H + 100, false }, { 3, MON + 3 * D + 10 * H, false },
	};

	set_tz("UTC0");
	make(cps, 3, NULL, 0, &cfg, MON + 5 * D);
	/* two hourly states: Thursday 10:00 and Monday 01:00; two daily: the same */
	ck_assert_str_eq(kept(), "2 3");
	ck_assert_uint_eq(buckets(2), (1u << TL_HOURLY) | (1u << TL_DAILY));
	ck_assert_uint_eq(buckets(1), 0);
}
END_TEST

START_TEST(user_snapshots)
{
	struct tl_config cfg = { { 0, 3 } };
	struct tl_cp cps[] = {
		{ 1, MON + 10 * H, true },        /* a user's, not the last of its day */
		{ 2, MON + 20 * H, false },       /* Monday's last */
		{ 3, MON + D + 5 * H, false },
		{ 4, MON + D + 9 * H, true },     /* a user's, Tuesday's last */
		{ 5, MON + 2 * D + H, true },     /* a user's, no bucket keeps it */
	};

	set_tz("UTC0");
	make(cps, 5, NULL, 0, &cfg, MON + 10 * D);
	ck_assert_str_eq(kept(), "2 4 5");
	ck_assert_int_eq(verdict(1), -1);       /* never touched */
	ck_assert_int_eq(verdict(2), TL_PROMOTE);
	ck_assert_int_eq(verdict(4), TL_USER);  /* satisfies the day, stays the user's */
	ck_assert_int_eq(verdict(5), TL_USER);
	ck_assert_uint_eq(plan.count[TL_DEMOTE], 0);
}
END_TEST

START_TEST(owned_snapshots)
{
	struct tl_config cfg = { { 0, 1 } };
	struct tl_cp cps[] = {
		{ 1, MON + 10 * H, true },        /* ours, no longer kept */
		{ 2, MON + 20 * H, true },        /* same number, another time: not ours */
		{ 3, MON + D + 5 * H, false },    /* ours once, turned back by hand */
		{ 4, MON + D + 9 * H, true },     /* ours, still Tuesday's last */
		{ 6, MON + 2 * D, true },         /* ours */
	};
	struct tl_owned own[] = {
		{ 6, MON + 2 * D, 0 }, { 2, MON + 20 * H - 1, 0 }, { 1, MON + 10 * H, 0 },
		{ 3, MON + D + 5 * H, 0 }, { 4, MON + D + 9 * H, 0 },
		{ 5, MON + D + 10 * H, 0 }, /* removed */
	};
	struct tl_owned *after;
	size_t nafter;

	set_tz("UTC0");
	make(cps, 5, own, 6, &cfg, MON + 2 * D + H);
	ck_assert_int_eq(verdict(1), TL_DEMOTE);
	ck_assert_int_eq(verdict(2), TL_FORGET);
	ck_assert_int_eq(verdict(3), TL_FORGET);
	ck_assert_int_eq(verdict(4), TL_HOLD);
	ck_assert_int_eq(verdict(5), TL_FORGET);
	ck_assert_int_eq(verdict(6), TL_DEMOTE);  /* Wednesday has not ended */
	ck_assert_uint_eq(plan.count[TL_DEMOTE], 2);
	ck_assert_uint_eq(plan.count[TL_FORGET], 3);
	ck_assert_int_eq(tl_plan_owned(&plan, &after, &nafter), 0);
	ck_assert_uint_eq(nafter, 1);
	ck_assert_uint_eq(after[0].cno, 4);
	ck_assert_int_eq(after[0].create, MON + D + 9 * H);
	free(after);
	/* a day later Wednesday has ended: 6 is kept again */
	tl_plan_free(&plan);
	make(cps, 5, own, 6, &cfg, MON + 3 * D + H);
	ck_assert_int_eq(verdict(6), TL_HOLD);
	ck_assert_int_eq(verdict(4), TL_DEMOTE);
}
END_TEST

START_TEST(weekly_monthly_yearly)
{
	struct tl_config cfg = { { 0, 0, 2, 2, 2 } };
	struct tl_cp cps[] = {
		{ 1, MON - 366 * D, false },      /* 2025-01-04, Saturday */
		{ 2, MON - 5 * D, false },        /* 2025-12-31, Wednesday */
		{ 3, MON - 1, false },            /* Sunday 2026-01-04 23:59:59 */
		{ 4, MON + 1, false },            /* Monday: a new week */
		{ 5, MON + 30 * D, false },       /* 2026-02-04 */
		{ 6, MON + 40 * D, false },       /* 2026-02-14 */
	};

	set_tz("UTC0");
	make(cps, 6, NULL, 0, &cfg, MON + 50 * D);    /* 2026-02-24 */
	/* weeks: 2026-W07 (6) and W06 (5); months: 2026-01 (4, not 3), 2025-12
	 * (2), not 2026-02 (now); years: 2025 only (2, not 1) */
	ck_assert_uint_eq(buckets(6), 1u << TL_WEEKLY);
	ck_assert_uint_eq(buckets(5), 1u << TL_WEEKLY);
	ck_assert_uint_eq(buckets(4), 1u << TL_MONTHLY);
	ck_assert_uint_eq(buckets(3), 0);
	ck_assert_uint_eq(buckets(2), (1u << TL_MONTHLY) | (1u << TL_YEARLY));
	ck_assert_uint_eq(buckets(1), 0);   /* 2025's last is 2 */
	/* 2's latest release: the year 2025 kept until 2027 has ended */
	ck_assert_int_eq(until(2), 1830297600);
	ck_assert_int_eq(until(6), MON + 56 * D);    /* W07 + 3 weeks: Monday of W10 */
	/* Sunday's checkpoint ends ISO week 1 of 2026 */
	tl_plan_free(&plan);
	cfg = (struct tl_config){ { 0, 0, 1 } };
	make(cps, 4, NULL, 0, &cfg, MON + 2);
	ck_assert_str_eq(kept(), "3");
}
END_TEST

START_TEST(dst_fall_back)
{
	/* Berlin 2026-10-25: 03:00 CEST becomes 02:00 CET at 01:00 UTC */
	const time_t t = 1792890000;   /* 2026-10-25 01:00:00 UTC */
	struct tl_config cfg = { { 10, 2 } };
	struct tl_cp cps[] = {
		{ 1, t - 24 * H, false },       /* Saturday 03:00 CEST */
		{ 2, t - 2 * H - 600, false },  /* Sunday 00:50 CEST */
		{ 3, t - 1800, false },         /* 02:30 CEST */
		{ 4, t + 1800, false },         /* 02:30 CET: the hour again */
		{ 5, t + 22 * H - 60, false },  /* 23:59 CET, the same 25-hour day */
	};
	char name[64];

	set_tz("CET-1CEST,M3.5.0,M10.5.0/3");
	make(cps, 5, NULL, 0, &cfg, t + 23 * H);
	ck_assert_str_eq(kept(), "1 2 3 4 5");
	ck_assert_uint_eq(buckets(3), 1u << TL_HOURLY);
	ck_assert_uint_eq(buckets(4), 1u << TL_HOURLY);
	ck_assert_uint_eq(buckets(5), (1u << TL_HOURLY) | (1u << TL_DAILY));
	ck_assert_uint_eq(buckets(1), (1u << TL_HOURLY) | (1u << TL_DAILY));
	/* Sunday, daily 2: until Wednesday 00:00 CET; the CEST 02:00 hour,
	 * hourly 10: eleven real hours after 02:00 CEST */
	ck_assert_int_eq(until(5), t + 2 * D + 22 * H);
	ck_assert_int_eq(until(3), t - H + 11 * H);
	tl_period_name(TL_HOURLY, t - 1800, name, sizeof(name));
	ck_assert_str_eq(name, "2026-10-25 02:00 CEST");
	tl_period_name(TL_HOURLY, t + 1800, name, sizeof(name));
	ck_assert_str_eq(name, "2026-10-25 02:00 CET");
	/* during the second 02:xx hour, the first has ended */
	tl_plan_free(&plan);
	make(cps, 4, NULL, 0, &cfg, t + 2400);
	ck_assert_uint_eq(buckets(3), 1u << TL_HOURLY);
	ck_assert_uint_eq(buckets(4), 0);
	/* one hourly period kept: the latest of them, the CET hour */
	tl_plan_free(&plan);
	cfg.keep[TL_HOURLY] = 1;
	make(cps, 4, NULL, 0, &cfg, t + 2 * H);
	ck_assert_uint_eq(buckets(4), 1u << TL_HOURLY);
	ck_assert_uint_eq(buckets(3), 0);
}
END_TEST

START_TEST(dst_spring_forward)
{
	/* Berlin 2026-03-29: 02:00 CET becomes 03:00 CEST at 01:00 UTC */
	const time_t t = 1774746000;   /* 2026-03-29 01:00:00 UTC */
	struct tl_config cfg = { { 2, 1 } };
	struct tl_cp cps[] = {
		{ 1, t - 7200, false },        /* 00:00 CET */
		{ 2, t - 60, false },          /* 01:59 CET */
		{ 3, t + 60, false },          /* 03:01 CEST, the next hour */
		{ 4, t + 20 * H, false },      /* 23:00 CEST, the 23-hour day's last hour */
	};

	set_tz("CET-1CEST,M3.5.0,M10.5.0/3");
	make(cps, 4, NULL, 0, &cfg, t + 23 * H);   /* Monday 01:00 CEST */
	ck_assert_uint_eq(buckets(4), (1u << TL_HOURLY) | (1u << TL_DAILY));
	ck_assert_uint_eq(buckets(3), 1u << TL_HOURLY);
	ck_assert_uint_eq(buckets(2), 0);
	tl_plan_free(&plan);
	make(cps, 3, NULL, 0, &cfg, t + 1800);     /* 03:30 CEST */
	ck_assert_str_eq(kept(), "1 2");           /* 00:xx and 01:xx ended, 03:xx not */
}
END_TEST

START_TEST(clock_set_back)
{
	struct tl_config cfg = { { 3 } };
	struct tl_cp cps[] = {
		{ 1, MON + 5 * H, false },
		{ 2, MON + 9 * H, false },       /* in the future of NOW */
		{ 3, MON + 5 * H + 10, false },  /* the clock was set back */
		{ 4, MON + 2 * H, false },
	};

	set_tz("UTC0");
	make(cps, 4, NULL, 0, &cfg, MON + 7 * H);
	/* hour 5's highest number is 3; 2 is after now; hour 2 has 4 */
	ck_assert_str_eq(kept(), "3 4");
}
END_TEST

/* what the snapshots' runs hold, for tl_plan_budget */
static uint64_t budget(const struct nlfs_gc_held_run *runs, size_t n, uint64_t dead,
		       const struct tl_budget *b)
{
	struct nlfs_gc_held h = { (struct nlfs_gc_held_run *)runs, n, 0, dead };

	ck_assert_int_eq(tl_plan_budget(&plan, &h, b), 0);
	return plan.held_after;
}

static enum tl_shed shed(uint64_t cno)
{
	for (size_t i = 0; i < plan.n; i++)
		if (plan.d[i].cno == cno)
			return plan.d[i].shed;
	return TL_SHED_NONE;
}

START_TEST(space_budget)
{
	struct tl_config cfg = { { 0, 5 } };
	struct tl_cp cps[] = {
		{ 1, MON + 1 * D, true },     /* ours */
		{ 2, MON + 2 * D, true },     /* a user's */
		{ 3, MON + 3 * D, false },
		{ 4, MON + 4 * D, true },     /* ours */
		{ 5, MON + 5 * D, false },
	};
	struct tl_owned own[] = { { 1, MON + 1 * D, 0 }, { 4, MON + 4 * D, 0 } };
	/* the timeline's 1, 3, 4, 5 (indexes 0..3) each hold their own, and
	 * 3 and 4 some together */
	const struct nlfs_gc_held_run runs[] = {
		{ 0, 0, 10 }, { 1, 1, 20 }, { 2, 2, 30 }, { 3, 3, 40 }, { 1, 2, 5 },
	};
	char why[256];

	set_tz("UTC0");
	make(cps, 5, own, 2, &cfg, MON + 6 * D);
	ck_assert_int_eq(verdict(3), TL_PROMOTE);
	/* under budget: nothing changes */
	ck_assert_uint_eq(budget(runs, 5, 0, &(struct tl_budget){ 105, 0, 0 }), 105);
	ck_assert_uint_eq(plan.count[TL_DEMOTE] + plan.count[TL_OVER], 0);
	ck_assert_int_eq(plan.limit, TL_LIMIT_BUDGET);
	/* all daily: the daily ones are thinned, every second from the newest
	 * (5 stays, 4 goes, 3 stays, 1 goes), oldest first: 1 frees 10, then
	 * 4 its 30 (what it holds with 3 stays) */
	ck_assert_uint_eq(budget(runs, 5, 0, &(struct tl_budget){ 70, 0, 0 }), 65);
	ck_assert_int_eq(verdict(1), TL_DEMOTE);
	ck_assert_int_eq(shed(1), TL_SHED_THINNED);
	ck_assert_int_eq(verdict(4), TL_DEMOTE);
	ck_assert_int_eq(verdict(3), TL_PROMOTE);
	ck_assert_int_eq(verdict(2), TL_USER);   /* never the user's */
	ck_assert_int_eq(verdict(5), TL_PROMOTE);
	ck_assert_uint_eq(plan.count[TL_DEMOTE], 2);
	ck_assert_uint_eq(until(1), 0);
	for (size_t i = 0; i < plan.n; i++)
		if (plan.d[i].cno == 4)
			tl_reason(&plan.d[i], why, sizeof(why));
	ck_assert_str_eq(why, "daily 2026-01-09; over the space budget: the daily ones thinned");
	tl_plan_free(&plan);
	/* a budget of 0: all of the timeline's go, the newest last */
	make(cps, 5, own, 2, &cfg, MON + 6 * D);
	ck_assert_uint_eq(budget(runs, 5, 0, &(struct tl_budget){ 0, 0, 0 }), 0);
	ck_assert_uint_eq(plan.count[TL_DEMOTE], 2);
	ck_assert_uint_eq(plan.count[TL_OVER], 2);
	tl_plan_free(&plan);
	/* free space: 40 clean, 20 that nothing holds, 105 held, a minimum of
	 * 100: they may hold 65, so 1 and 4 go as above */
	make(cps, 5, own, 2, &cfg, MON + 6 * D);
	ck_assert_uint_eq(budget(runs, 5, 20, &(struct tl_budget){ UINT64_MAX, 100, 40 }), 65);
	ck_assert_int_eq(plan.limit, TL_LIMIT_FREE);
	ck_assert_uint_eq(plan.allowed, 65);
	ck_assert_int_eq(verdict(4), TL_DEMOTE);
	for (size_t i = 0; i < plan.n; i++)
		if (plan.d[i].cno == 1)
			tl_reason(&plan.d[i], why, sizeof(why));
	ck_assert_str_eq(why, "daily 2026-01-06; free space under the cleaner's minimum: "
			 "the daily ones thinned");
	tl_plan_free(&plan);
	/* enough free space: nothing goes */
	make(cps, 5, own, 2, &cfg, MON + 6 * D);
	ck_assert_uint_eq(budget(runs, 5, 20, &(struct tl_budget){ UINT64_MAX, 100, 400 }), 105);
	ck_assert_uint_eq(plan.allowed, 425);
	ck_assert_uint_eq(plan.count[TL_DEMOTE], 0);
}
END_TEST

START_TEST(space_budget_oldest_then_thinned)
{
	/* 2 hourly, 3 daily: days 1-3 at noon, then 10:00 and 11:00 of day 4 */
	struct tl_config cfg = { { 2, 3 } };
	struct tl_cp cps[] = {
		{ 1, MON + 0 * D + 12 * H, false }, { 2, MON + 1 * D + 12 * H, false },
		{ 3, MON + 2 * D + 12 * H, false }, { 4, MON + 3 * D + 10 * H, false },
		{ 5, MON + 3 * D + 11 * H, false },
	};
	/* 1 alone 10, 2 and 3 together 20, 4 alone 5, 3 to 5 together 7 */
	const struct nlfs_gc_held_run runs[] = {
		{ 0, 0, 10 }, { 1, 2, 20 }, { 3, 3, 5 }, { 2, 4, 7 },
	};
	char why[256];

	set_tz("UTC0");
	make(cps, 5, NULL, 0, &cfg, MON + 3 * D + 12 * H + 1800);
	ck_assert_str_eq(kept(), "1 2 3 4 5");
	/* 42 held: the oldest first, beyond the hourly ones: 1 (10 freed),
	 * 2 (nothing alone), 3 (the 20 it held with 2) */
	ck_assert_uint_eq(budget(runs, 4, 0, &(struct tl_budget){ 30, 0, 0 }), 12);
	ck_assert_int_eq(verdict(1), TL_OVER);
	ck_assert_int_eq(verdict(2), TL_OVER);
	ck_assert_int_eq(verdict(3), TL_OVER);
	ck_assert_int_eq(shed(3), TL_SHED_OLDEST);
	ck_assert_int_eq(verdict(4), TL_PROMOTE);
	ck_assert_int_eq(verdict(5), TL_PROMOTE);
	for (size_t i = 0; i < plan.n; i++)
		if (plan.d[i].cno == 2)
			tl_reason(&plan.d[i], why, sizeof(why));
	ck_assert_str_eq(why, "daily 2026-01-06; over the space budget: the oldest go first");
	tl_plan_free(&plan);
	/* then the hourly ones thinned: 4, then 5 with the run of 3 to 5 */
	make(cps, 5, NULL, 0, &cfg, MON + 3 * D + 12 * H + 1800);
	ck_assert_uint_eq(budget(runs, 4, 0, &(struct tl_budget){ 5, 0, 0 }), 0);
	ck_assert_int_eq(shed(4), TL_SHED_THINNED);
	ck_assert_int_eq(shed(5), TL_SHED_THINNED);
	ck_assert_uint_eq(plan.count[TL_OVER], 5);
}
END_TEST

/* the chooser keeps only the kept checkpoints' periods, whatever the order
 * of their times (a clock set back): a period pushed out stays out */
START_TEST(chooser_streams)
{
	struct tl_config cfg = { { 2 } };
	struct tl_cp cps[] = {
		{ 1, MON + 5 * H, false }, { 2, MON + 6 * H, false }, { 3, MON + 7 * H, false },
		{ 4, MON + 5 * H + 60, false },   /* hour 5 again: pushed out already */
		{ 5, MON + 6 * H + 60, false },   /* hour 6: its last now */
	};
	struct tl_chooser c;

	set_tz("UTC0");
	ck_assert_int_eq(tl_chooser_init(&c, &cfg, MON + 8 * H, NULL, 0), 0);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(tl_chooser_add(&c, &cps[i]), 0);
	ck_assert_uint_eq(c.ntop[TL_HOURLY], 2);
	ck_assert_int_eq(tl_chooser_add(&c, &cps[0]), -EINVAL);
	ck_assert_int_eq(tl_chooser_finish(&c, &plan), 0);
	ck_assert_str_eq(kept(), "3 5");
}
END_TEST

START_TEST(before_1970)
{
	struct tl_config cfg = { { 0, 0, 1, 2, 2 } };
	struct tl_cp cps[] = {
		{ 1, -400 * D, false },       /* 1968-11-26, a Tuesday */
		{ 2, -3 * D + 10, false },    /* Monday 1969-12-29 */
		{ 3, -10, false },            /* Wednesday 1969-12-31 23:59:50 */
	};

	set_tz("UTC0");
	make(cps, 3, NULL, 0, &cfg, 4 * D);   /* Monday 1970-01-05 */
	ck_assert_uint_eq(buckets(3), (1u << TL_WEEKLY) | (1u << TL_MONTHLY) | (1u << TL_YEARLY));
	ck_assert_uint_eq(buckets(2), 0);
	ck_assert_uint_eq(buckets(1), (1u << TL_MONTHLY) | (1u << TL_YEARLY));
}
END_TEST

START_TEST(bad_input)
{
	struct tl_config cfg = { { 1 } };
	struct tl_cp cps[] = { { 2, MON, false }, { 2, MON + 1, false } };

	ck_assert_int_eq(tl_plan_make(cps, 2, NULL, 0, &cfg, MON + D, &plan), -EINVAL);
	ck_assert_uint_eq(plan.n, 0);
}
END_TEST

START_TEST(names)
{
	char b[64];

	set_tz("UTC0");
	tl_period_name(TL_WEEKLY, MON - 1, b, sizeof(b));
	ck_assert_str_eq(b, "2026-W01");
	tl_period_name(TL_MONTHLY, MON, b, sizeof(b));
	ck_assert_str_eq(b, "2026-01");
	tl_period_name(TL_YEARLY, MON - 5 * D, b, sizeof(b));
	ck_assert_str_eq(b, "2025");
	tl_buckets_name((1u << TL_DAILY) | (1u << TL_YEARLY), b, sizeof(b));
	ck_assert_str_eq(b, "daily,yearly");
	tl_buckets_name(0, b, sizeof(b));
	ck_assert_str_eq(b, "-");
}
END_TEST

/*
 * Random volumes against a second reading of the rule: in UTC the periods'
 * strftime names sort as their times do, a period has ended when its name
 * sorts before that of now, and the kept checkpoint of a period is found by
 * scanning all checkpoints with that name.
 */
static void oracle(const struct tl_cp *cps, size_t n, const struct tl_config *cfg, time_t now,
		   unsigned *mask)
{
	static const char *const fmt[TL_NBUCKETS] = { "%Y-%m-%d %H", "%Y-%m-%d", "%G-W%V", "%Y-%m", "%Y" };
	char (*name)[32] = calloc(n, sizeof(*name)), nowname[32];

	ck_assert_ptr_nonnull(name);
	memset(mask, 0, n * sizeof(*mask));
	for (int b = 0; b < TL_NBUCKETS; b++) {
		char last[32] = "\xff";

		strftime(nowname, sizeof(nowname), fmt[b], gmtime(&now));
		for (size_t i = 0; i < n; i++) {
			time_t t = (time_t)cps[i].create;

			strftime(name[i], sizeof(name[i]), fmt[b], gmtime(&t));
		}
		for (unsigned k = 0; k < cfg->keep[b]; k++) {
			/* the greatest period name below LAST that has ended */
			char best[32] = "";
			size_t pick = n;

			for (size_t i = 0; i < n; i++)
				if (strcmp(name[i], nowname) < 0 && strcmp(name[i], last) < 0 &&
				    strcmp(name[i], best) >= 0) {
					strcpy(best, name[i]);
					pick = i;   /* numbers increase: the last wins */
				}
			if (pick == n)
				break;
			mask[pick] |= 1u << b;
			strcpy(last, best);
		}
	}
	free(name);
}

START_TEST(random_against_oracle)
{
	enum { N = 400 };
	struct tl_cp cps[N];
	unsigned mask[N];

	set_tz("UTC0");
	srand(12345);
	for (int round = 0; round < 200; round++) {
		struct tl_config cfg;
		int64_t t = MON - (int64_t)(rand() % 800) * D;
		size_t n = (size_t)(rand() % N);
		time_t now;

		for (int b = 0; b < TL_NBUCKETS; b++)
			cfg.keep[b] = (unsigned)(rand() % 6 ? rand() % 30 : 0);
		for (size_t i = 0; i < n; i++) {
			/* steps from seconds to weeks, sometimes backwards */
			int64_t step = (int64_t)(rand() % 5 == 0 ? rand() % (14 * D) : rand() % (3 * H));

			t += rand() % 20 == 0 ? -step / 2 : step;
			cps[i] = (struct tl_cp){ i + 1, t, rand() % 10 == 0 };
		}
		now = (time_t)(t - (rand() % 4 == 0 ? (int64_t)(rand() % (30 * D)) : -(int64_t)(rand() % D)));
		make(cps, n, NULL, 0, &cfg, now);
		oracle(cps, n, &cfg, now, mask);
		for (size_t i = 0; i < n; i++) {
			int v = verdict(cps[i].cno);

			ck_assert_msg(buckets(cps[i].cno) == mask[i],
				      "round %d cno %zu: buckets %#x, expected %#x", round, i + 1,
				      buckets(cps[i].cno), mask[i]);
			ck_assert_int_eq(v, !mask[i] ? -1 : cps[i].snapshot ? TL_USER : TL_PROMOTE);
		}
		tl_plan_free(&plan);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("timeline");
	TCase *tc = tcase_create("rule");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, empty);
	tcase_add_test(tc, hourly_last_of_ended_periods);
	tcase_add_test(tc, gaps_are_skipped);
	tcase_add_test(tc, user_snapshots);
	tcase_add_test(tc, owned_snapshots);
	tcase_add_test(tc, weekly_monthly_yearly);
	tcase_add_test(tc, dst_fall_back);
	tcase_add_test(tc, dst_spring_forward);
	tcase_add_test(tc, clock_set_back);
	tcase_add_test(tc, space_budget);
	tcase_add_test(tc, space_budget_oldest_then_thinned);
	tcase_add_test(tc, chooser_streams);
	tcase_add_test(tc, before_1970);
	tcase_add_test(tc, bad_input);
	tcase_add_test(tc, names);
	tcase_add_test(tc, random_against_oracle);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
