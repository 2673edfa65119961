/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline.c - the snapshot timeline's rule (see timeline.h).  Each
 * checkpoint's creation time is broken down once in local time, to its
 * local hour; every bucket then sorts the checkpoints of ended periods by
 * period, newest first, and keeps the highest number of each of its first
 * N periods.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/nlfs.h>
#include "timeline.h"

const char *const tl_bucket_name[TL_NBUCKETS] = {
	"hourly", "daily", "weekly", "monthly", "yearly",
};

/* days from 1970-01-01 to the proleptic Gregorian date Y-M-D (M 1..12) */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe, mp = m > 2 ? m - 3 : m + 9;   /* months from March */

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * mp + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* the civil year and month (1..12) of day DAY after 1970-01-01 */
static void civil_from_days(int64_t day, int64_t *y, unsigned *m)
{
	int64_t z = day + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;

	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/*
 * The local hour T falls in, as a number that grows with time: the day and
 * hour of the local clock, and in the hour the clocks go back its
 * summer-time half first.  Out of the range localtime can break down: a
 * period of its own, at either end.  One number per checkpoint is all the
 * rule keeps; the other periods follow from it (bucket_key).
 */
static int64_t hour_key(time_t t)
{
	struct tm tm;
	int64_t day;

	if (!localtime_r(&t, &tm))
		return t < 0 ? INT64_MIN : INT64_MAX;
	day = days_from_civil((int64_t)tm.tm_year + 1900, (unsigned)tm.tm_mon + 1,
			      (unsigned)tm.tm_mday);
	return (day * 24 + tm.tm_hour) * 2 + (tm.tm_isdst > 0 ? 0 : 1);
}

/* the period of bucket B of the local hour HK */
static int64_t bucket_key(int64_t hk, enum tl_bucket b)
{
	int64_t day = floor_div(hk, 48), y;
	unsigned m;

	if (hk == INT64_MIN || hk == INT64_MAX || b == TL_HOURLY)
		return hk;
	switch (b) {
	case TL_DAILY: return day;
	case TL_WEEKLY: return day - (day + 3 - floor_div(day + 3, 7) * 7);   /* its Monday */
	default: break;
	}
	civil_from_days(day, &y, &m);
	return b == TL_MONTHLY ? y * 12 + (m - 1) : y;
}

struct slot {          /* a checkpoint of an ended period, for one bucket */
	int64_t key;
	size_t idx;        /* into CPS */
};

/* newest period first, within it the highest number first */
static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->idx > y->idx ? -1 : x->idx < y->idx;
}

static int owned_cmp(const void *a, const void *b)
{
	const struct tl_owned *x = a, *y = b;

	return x->cno < y->cno ? -1 : x->cno > y->cno;
}

static int decision_cmp(const void *a, const void *b)
{
	const struct tl_decision *x = a, *y = b;

	return x->cno < y->cno ? -1 : x->cno > y->cno;
}

/* the index in CPS of checkpoint CNO, or N */
static size_t find_cp(const struct tl_cp *cps, size_t n, uint64_t cno)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cps[mid].cno < cno)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && cps[lo].cno == cno ? lo : n;
}

/* MASK[i]: the buckets that keep CPS[i] */
static int choose(const struct tl_cp *cps, size_t n, const struct tl_config *cfg, time_t now,
		  unsigned *mask)
{
	int64_t *hours = NULL, nowhour = hour_key(now);
	struct slot *slots = NULL;
	int rc = -ENOMEM;

	if (n == 0)
		return 0;
	hours = calloc(n, sizeof(*hours));
	slots = calloc(n, sizeof(*slots));
	if (!hours || !slots)
		goto out;
	for (size_t i = 0; i < n; i++)
		hours[i] = hour_key((time_t)cps[i].create);
	for (int b = 0; b < TL_NBUCKETS; b++) {
		int64_t nowkey = bucket_key(nowhour, (enum tl_bucket)b);
		size_t ns = 0, periods = 0;

		if (!cfg->keep[b])
			continue;
		for (size_t i = 0; i < n; i++) {
			int64_t k = bucket_key(hours[i], (enum tl_bucket)b);

			if (k < nowkey)
				slots[ns++] = (struct slot){ k, i };
		}
		nlfs_sort(slots, ns, sizeof(*slots), slot_cmp);
		for (size_t s = 0; s < ns && periods < cfg->keep[b]; s++) {
			if (s > 0 && slots[s].key == slots[s - 1].key)
				continue;
			mask[slots[s].idx] |= 1u << b;
			periods++;
		}
	}
	rc = 0;
out:
	free(hours);
	free(slots);
	return rc;
}

/* the start of the period of bucket B that is N periods after the one
 * holding T (local time) */
static int64_t period_after(enum tl_bucket b, time_t t, unsigned n)
{
	struct tm tm;
	time_t r;

	if (!localtime_r(&t, &tm))
		return 0;
	if (b == TL_HOURLY)    /* real hours: the repeated one counts twice */
		return (int64_t)t - tm.tm_min * 60 - tm.tm_sec + (int64_t)n * 3600;
	tm.tm_sec = tm.tm_min = tm.tm_hour = 0;
	tm.tm_isdst = -1;
	switch (b) {
	case TL_DAILY: tm.tm_mday += (int)n; break;
	case TL_WEEKLY: tm.tm_mday += 7 * (int)n - (tm.tm_wday + 6) % 7; break;
	case TL_MONTHLY: tm.tm_mday = 1; tm.tm_mon += (int)n; break;
	default: tm.tm_mday = 1; tm.tm_mon = 0; tm.tm_year += (int)n; break;
	}
	r = mktime(&tm);
	return r == (time_t)-1 ? 0 : (int64_t)r;
}

/* the earliest time no bucket of MASK keeps a checkpoint made at CREATE */
static int64_t kept_until(const struct tl_config *cfg, unsigned mask, int64_t create)
{
	int64_t until = 0;

	for (int b = 0; b < TL_NBUCKETS; b++) {
		int64_t u;

		if (!(mask & (1u << b)))
			continue;
		u = period_after((enum tl_bucket)b, (time_t)create, cfg->keep[b] + 1);
		if (u > until)
			until = u;
	}
	return until;
}

static void add(struct tl_plan *plan, uint64_t cno, int64_t create, unsigned buckets,
		enum tl_verdict v, int64_t until)
{
	plan->d[plan->n++] = (struct tl_decision){ cno, create, buckets, v, until, false };
	plan->count[v]++;
}

int tl_plan_make(const struct tl_cp *cps, size_t n, const struct tl_owned *owned, size_t nowned,
		 const struct tl_config *cfg, time_t now, struct tl_plan *plan)
{
	struct tl_owned *own = NULL;
	unsigned *mask = NULL;
	bool *mine = NULL;
	size_t ndecisions = 0;
	int rc = -ENOMEM;

	memset(plan, 0, sizeof(*plan));
	for (size_t i = 1; i < n; i++)
		if (cps[i].cno <= cps[i - 1].cno)
			return -EINVAL;
	mask = calloc(n + 1, sizeof(*mask));
	mine = calloc(n + 1, sizeof(*mine));
	own = calloc(nowned + 1, sizeof(*own));
	if (!mask || !mine || !own)
		goto out;
	rc = choose(cps, n, cfg, now, mask);
	if (rc)
		goto out;
	/* a decision per kept checkpoint and per owned entry, at the most */
	for (size_t i = 0; i < n; i++)
		ndecisions += mask[i] != 0;
	plan->d = calloc(ndecisions + nowned + 1, sizeof(*plan->d));
	rc = -ENOMEM;
	if (!plan->d)
		goto out;
	if (nowned)
		memcpy(own, owned, nowned * sizeof(*own));
	nlfs_sort(own, nowned, sizeof(*own), owned_cmp);
	/* the owned entries that are still those snapshots; the rest are forgotten */
	for (size_t o = 0; o < nowned; o++) {
		size_t i = find_cp(cps, n, own[o].cno);

		if (o > 0 && own[o].cno == own[o - 1].cno)
			continue;
		if (i < n && cps[i].snapshot && cps[i].create == own[o].create)
			mine[i] = true;
		else
			add(plan, own[o].cno, own[o].create, 0, TL_FORGET, 0);
	}
	for (size_t i = 0; i < n; i++) {
		enum tl_verdict v;

		if (!mask[i] && !mine[i])
			continue;
		if (!mask[i])
			v = TL_DEMOTE;
		else if (mine[i])
			v = TL_HOLD;
		else if (cps[i].snapshot)
			v = TL_USER;
		else
			v = TL_PROMOTE;
		add(plan, cps[i].cno, cps[i].create, mask[i], v,
		    mask[i] ? kept_until(cfg, mask[i], cps[i].create) : 0);
	}
	nlfs_sort(plan->d, plan->n, sizeof(*plan->d), decision_cmp);
	rc = 0;
out:
	free(mask);
	free(mine);
	free(own);
	if (rc)
		tl_plan_free(plan);
	return rc;
}

void tl_plan_free(struct tl_plan *plan)
{
	free(plan->d);
	memset(plan, 0, sizeof(*plan));
}

int tl_plan_owned(const struct tl_plan *plan, struct tl_owned **out, size_t *n)
{
	size_t k = plan->count[TL_PROMOTE] + plan->count[TL_HOLD];

	*out = NULL;
	*n = 0;
	if (!k)
		return 0;
	*out = calloc(k, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < plan->n; i++)
		if (plan->d[i].verdict == TL_PROMOTE || plan->d[i].verdict == TL_HOLD)
			(*out)[(*n)++] = (struct tl_owned){ plan->d[i].cno, plan->d[i].create,
							    plan->d[i].until };
	return 0;
}

uint64_t tl_plan_budget(struct tl_plan *plan, const uint64_t *freed, uint64_t budget)
{
	uint64_t total = 0;
	size_t k = 0;

	for (size_t i = 0; i < plan->n; i++)
		if (plan->d[i].verdict == TL_PROMOTE || plan->d[i].verdict == TL_HOLD)
			total += freed[k++];
	k = 0;
	for (size_t i = 0; i < plan->n && total > budget; i++) {
		struct tl_decision *d = &plan->d[i];

		if (d->verdict != TL_PROMOTE && d->verdict != TL_HOLD)
			continue;
		total -= freed[k++];
		plan->count[d->verdict]--;
		d->verdict = d->verdict == TL_HOLD ? TL_DEMOTE : TL_OVER;
		plan->count[d->verdict]++;
		d->over_budget = true;
		d->until = 0;
	}
	return total;
}

void tl_period_name(enum tl_bucket b, time_t t, char *buf, size_t len)
{
	static const char *const fmt[TL_NBUCKETS] = {
		"%Y-%m-%d %H:00 %Z", "%Y-%m-%d", "%G-W%V", "%Y-%m", "%Y",
	};
	struct tm tm;

	if (len == 0)
		return;
	if (!localtime_r(&t, &tm) || !strftime(buf, len, fmt[b], &tm))
		snprintf(buf, len, "@%lld", (long long)t);
}

void tl_buckets_name(unsigned mask, char *buf, size_t len)
{
	size_t at = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (int b = 0; b < TL_NBUCKETS && at < len; b++)
		if (mask & (1u << b))
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "",
					       tl_bucket_name[b]);
	if (!mask)
		snprintf(buf, len, "-");
}

void tl_reason(const struct tl_decision *d, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int b = 0; b < TL_NBUCKETS && at < len; b++) {
		char period[64];

		if (!(d->buckets & (1u << b)))
			continue;
		tl_period_name((enum tl_bucket)b, (time_t)d->create, period, sizeof(period));
		at += (size_t)snprintf(buf + at, len - at, "%s%s %s", at ? ", " : "",
				       tl_bucket_name[b], period);
	}
	if (d->over_budget && at < len)
		snprintf(buf + at, len - at, "%sover the space budget, the oldest go first",
			 at ? "; " : "");
	else if (!d->buckets)
		snprintf(buf, len, d->verdict == TL_FORGET ? "no longer a snapshot of that time"
			 : "no bucket keeps it");
}
