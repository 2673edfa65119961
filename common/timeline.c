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

#include <nlfs/gc.h>
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

struct tl_slot {       /* the last checkpoint of an ended period, for one bucket */
	int64_t key;
	struct tl_cp cp;
};

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

void tl_chooser_free(struct tl_chooser *c)
{
	for (int b = 0; b < TL_NBUCKETS; b++)
		free(c->top[b]);
	free(c->own);
	free(c->own_match);
	memset(c, 0, sizeof(*c));
}

int tl_chooser_init(struct tl_chooser *c, const struct tl_config *cfg, time_t now,
		    const struct tl_owned *owned, size_t nowned)
{
	int64_t nowhour = hour_key(now);
	size_t k = 0;

	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	for (int b = 0; b < TL_NBUCKETS; b++)
		c->nowkey[b] = bucket_key(nowhour, (enum tl_bucket)b);
	c->own = calloc(nowned + 1, sizeof(*c->own));
	c->own_match = calloc(nowned + 1, sizeof(*c->own_match));
	if (!c->own || !c->own_match) {
		tl_chooser_free(c);
		return -ENOMEM;
	}
	if (nowned)
		memcpy(c->own, owned, nowned * sizeof(*c->own));
	nlfs_sort(c->own, nowned, sizeof(*c->own), owned_cmp);
	for (size_t o = 0; o < nowned; o++)     /* a repeated number counts once */
		if (o == 0 || c->own[o].cno != c->own[k - 1].cno)
			c->own[k++] = c->own[o];
	c->nown = k;
	return 0;
}

/* CP into bucket B's newest periods, the period KEY */
static int keep_slot(struct tl_chooser *c, int b, int64_t key, const struct tl_cp *cp)
{
	struct tl_slot *top = c->top[b];
	size_t n = c->ntop[b], lo = 0, hi = n;

	while (lo < hi) {       /* the first slot of a period >= KEY */
		size_t mid = lo + (hi - lo) / 2;

		if (top[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && top[lo].key == key) {     /* a later checkpoint of it */
		top[lo].cp = *cp;
		return 0;
	}
	if (n == c->cfg.keep[b]) {              /* full: the oldest period goes */
		if (lo == 0)
			return 0;       /* older than all N kept: never one of them */
		memmove(top, top + 1, (lo - 1) * sizeof(*top));
		top[lo - 1] = (struct tl_slot){ key, *cp };
		return 0;
	}
	if (n == c->cap[b]) {
		size_t ncap = c->cap[b] ? c->cap[b] * 2 : 16;
		struct tl_slot *t;

		if (ncap > c->cfg.keep[b])
			ncap = c->cfg.keep[b];
		t = realloc(top, ncap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		c->top[b] = top = t;
		c->cap[b] = ncap;
	}
	memmove(top + lo + 1, top + lo, (n - lo) * sizeof(*top));
	top[lo] = (struct tl_slot){ key, *cp };
	c->ntop[b]++;
	return 0;
}

int tl_chooser_add(struct tl_chooser *c, const struct tl_cp *cp)
{
	int64_t hk;

	if (c->any && cp->cno <= c->last_cno)
		return -EINVAL;
	c->any = true;
	c->last_cno = cp->cno;
	while (c->next_own < c->nown && c->own[c->next_own].cno < cp->cno)
		c->next_own++;
	if (c->next_own < c->nown && c->own[c->next_own].cno == cp->cno)
		c->own_match[c->next_own] = cp->snapshot && cp->create == c->own[c->next_own].create;
	hk = hour_key((time_t)cp->create);
	for (int b = 0; b < TL_NBUCKETS; b++) {
		int64_t key = bucket_key(hk, (enum tl_bucket)b);

		if (c->cfg.keep[b] && key < c->nowkey[b]) {
			int rc = keep_slot(c, b, key, cp);

			if (rc)
				return rc;
		}
	}
	return 0;
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
	plan->d[plan->n++] = (struct tl_decision){ cno, create, buckets, v, until, TL_SHED_NONE,
						    TL_LIMIT_NONE, 0 };
	plan->count[v]++;
}

static int slot_cno_cmp(const void *a, const void *b)
{
	const struct tl_slot *x = a, *y = b;

	return x->cp.cno < y->cp.cno ? -1 : x->cp.cno > y->cp.cno;
}

int tl_chooser_finish(struct tl_chooser *c, struct tl_plan *plan)
{
	struct tl_slot *kept = NULL;
	unsigned *mask = NULL;
	size_t nslots = 0, nkept = 0, o = 0;
	int rc = -ENOMEM;

	memset(plan, 0, sizeof(*plan));
	for (int b = 0; b < TL_NBUCKETS; b++)
		nslots += c->ntop[b];
	kept = calloc(nslots + 1, sizeof(*kept));
	mask = calloc(nslots + 1, sizeof(*mask));
	plan->d = calloc(nslots + c->nown + 1, sizeof(*plan->d));
	if (!kept || !mask || !plan->d)
		goto out;
	/* the kept checkpoints, each once with the buckets that keep it */
	for (int b = 0; b < TL_NBUCKETS; b++)
		for (size_t i = 0; i < c->ntop[b]; i++)
			kept[nkept++] = c->top[b][i];
	nlfs_sort(kept, nkept, sizeof(*kept), slot_cno_cmp);
	for (int b = 0; b < TL_NBUCKETS; b++)
		for (size_t i = 0; i < c->ntop[b]; i++) {
			size_t at = nlfs_lower_bound(&c->top[b][i], kept, nkept, sizeof(*kept),
						     slot_cno_cmp);

			mask[at] |= 1u << b;
		}
	for (size_t i = 0; i < nkept; i++) {
		const struct tl_cp *cp = &kept[i].cp;
		bool mine;

		if (i > 0 && cp->cno == kept[i - 1].cp.cno)
			continue;
		/* the owned entries below it: demoted if still that snapshot */
		for (; o < c->nown && c->own[o].cno < cp->cno; o++)
			add(plan, c->own[o].cno, c->own[o].create, 0,
			    c->own_match[o] ? TL_DEMOTE : TL_FORGET, 0);
		mine = o < c->nown && c->own[o].cno == cp->cno && c->own_match[o];
		if (o < c->nown && c->own[o].cno == cp->cno) {
			if (!mine)      /* the number is reused: a checkpoint of another time */
				add(plan, c->own[o].cno, c->own[o].create, 0, TL_FORGET, 0);
			o++;
		}
		add(plan, cp->cno, cp->create, mask[i],
		    mine ? TL_HOLD : cp->snapshot ? TL_USER : TL_PROMOTE,
		    kept_until(&c->cfg, mask[i], cp->create));
	}
	for (; o < c->nown; o++)
		add(plan, c->own[o].cno, c->own[o].create, 0,
		    c->own_match[o] ? TL_DEMOTE : TL_FORGET, 0);
	nlfs_sort(plan->d, plan->n, sizeof(*plan->d), decision_cmp);
	rc = 0;
out:
	free(kept);
	free(mask);
	tl_chooser_free(c);
	if (rc)
		tl_plan_free(plan);
	return rc;
}

int tl_plan_make(const struct tl_cp *cps, size_t n, const struct tl_owned *owned, size_t nowned,
		 const struct tl_config *cfg, time_t now, struct tl_plan *plan)
{
	struct tl_chooser c;
	int rc = tl_chooser_init(&c, cfg, now, owned, nowned);

	memset(plan, 0, sizeof(*plan));
	for (size_t i = 0; !rc && i < n; i++)
		rc = tl_chooser_add(&c, &cps[i]);
	if (rc) {
		tl_chooser_free(&c);
		return rc;
	}
	return tl_chooser_finish(&c, plan);
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

static bool is_snapshot(const struct tl_decision *d)
{
	return d->verdict == TL_PROMOTE || d->verdict == TL_HOLD;
}

/*
 * The order the timeline's snapshots (K of them, by number, their buckets
 * MASK) are given up in: ORDER[step] the index, SHED[step] why.  Returns
 * the finest bucket.
 */
static unsigned shed_order(const unsigned *mask, size_t k, size_t *order, enum tl_shed *shed,
			   size_t *left)
{
	unsigned all = 0, finest = 0;
	size_t steps = 0, m = 0;

	for (size_t j = 0; j < k; j++)
		all |= mask[j];
	while (finest < TL_NBUCKETS - 1 && !(all & (1u << finest)))
		finest++;
	/* the oldest first: what the finest bucket does not keep */
	for (size_t j = 0; j < k; j++) {
		if (mask[j] & (1u << finest)) {
			left[m++] = j;
			continue;
		}
		order[steps] = j;
		shed[steps++] = TL_SHED_OLDEST;
	}
	/* then the finest bucket thinned: every second one from the newest
	 * (which stays), the oldest of them first; again on those left */
	while (m > 0) {
		size_t kept = 0;

		for (size_t i = 0; i < m; i++) {
			size_t from_newest = m - 1 - i;

			if (m > 1 && from_newest % 2 == 0) {
				left[kept++] = left[i];
				continue;
			}
			order[steps] = left[i];
			shed[steps++] = TL_SHED_THINNED;
		}
		m = kept;
	}
	return finest;
}

int tl_plan_budget(struct tl_plan *plan, const struct nlfs_gc_held *h, const struct tl_budget *b)
{
	size_t k = 0, *pos = NULL, *order = NULL, *left = NULL, *rank = NULL;
	unsigned *mask = NULL;
	enum tl_shed *shed = NULL;
	uint64_t held = 0, *freed = NULL;
	unsigned finest;
	int rc = -ENOMEM;

	for (size_t i = 0; i < plan->n; i++)
		k += is_snapshot(&plan->d[i]);
	for (size_t r = 0; r < h->nruns; r++)
		held += h->runs[r].blocks;
	plan->held_before = plan->held_after = held;
	plan->allowed = b->max_held;
	plan->limit = TL_LIMIT_NONE;
	if (b->min_free) {
		/* free once the cleaner has reclaimed what nothing holds */
		uint64_t could = b->free + h->dead + held;
		uint64_t allowed = could > b->min_free ? could - b->min_free : 0;

		if (allowed < plan->allowed) {
			plan->allowed = allowed;
			plan->limit = TL_LIMIT_FREE;
		}
	}
	if (plan->limit == TL_LIMIT_NONE && b->max_held != UINT64_MAX)
		plan->limit = TL_LIMIT_BUDGET;
	if (held <= plan->allowed)
		return 0;
	pos = calloc(k + 1, sizeof(*pos));
	order = calloc(k + 1, sizeof(*order));
	left = calloc(k + 1, sizeof(*left));
	rank = calloc(k + 1, sizeof(*rank));
	mask = calloc(k + 1, sizeof(*mask));
	shed = calloc(k + 1, sizeof(*shed));
	freed = calloc(k + 1, sizeof(*freed));
	if (!pos || !order || !left || !rank || !mask || !shed || !freed)
		goto out;
	k = 0;
	for (size_t i = 0; i < plan->n; i++)
		if (is_snapshot(&plan->d[i])) {
			mask[k] = plan->d[i].buckets;
			pos[k++] = i;
		}
	finest = shed_order(mask, k, order, shed, left);
	for (size_t s = 0; s < k; s++)
		rank[order[s]] = s;
	/* a run's versions are freed with the last of its snapshots to go */
	for (size_t r = 0; r < h->nruns; r++) {
		size_t last = 0;

		for (size_t j = h->runs[r].first; j <= h->runs[r].last && j < k; j++)
			if (rank[j] > last)
				last = rank[j];
		freed[last] += h->runs[r].blocks;
	}
	for (size_t s = 0; s < k && held > plan->allowed; s++) {
		struct tl_decision *d = &plan->d[pos[order[s]]];

		held -= freed[s];
		plan->count[d->verdict]--;
		d->verdict = d->verdict == TL_HOLD ? TL_DEMOTE : TL_OVER;
		plan->count[d->verdict]++;
		d->shed = shed[s];
		d->limit = plan->limit;
		d->finest = finest;
		d->until = 0;
	}
	plan->held_after = held;
	rc = 0;
out:
	free(pos);
	free(order);
	free(left);
	free(rank);
	free(mask);
	free(shed);
	free(freed);
	return rc;
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

static const char *limit_name(enum tl_limit l)
{
	return l == TL_LIMIT_FREE ? "free space under the cleaner's minimum"
				  : "over the space budget";
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
	if (d->shed == TL_SHED_OLDEST && at < len)
		snprintf(buf + at, len - at, "%s%s: the oldest go first", at ? "; " : "",
			 limit_name(d->limit));
	else if (d->shed == TL_SHED_THINNED && at < len)
		snprintf(buf + at, len - at, "%s%s: the %s ones thinned", at ? "; " : "",
			 limit_name(d->limit), tl_bucket_name[d->finest]);
	else if (!d->buckets)
		snprintf(buf, len, d->verdict == TL_FORGET ? "no longer a snapshot of that time"
			 : "no bucket keeps it");
}
