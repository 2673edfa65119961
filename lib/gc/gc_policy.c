/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Victim selection.  Timestamp is nilfs-utils' policy; greedy and
 * cost-benefit follow Rosenblum and Ousterhout's LFS cleaner, where
 * cost-benefit weighs the free space won, (1 - u), and how long it is
 * likely to stay free, age, against the cost of reading the segment and
 * writing its live part, (1 + u).  The age counts up to the median age of
 * the candidates: beyond it a segment's short-lived data is dead, and
 * more age only said that its live data is old, not that it will die:
 * uncapped, old segments of mostly live data (a volume's first fill, the
 * cleaner's own copies) outranked settled ones of little live data and
 * were copied at u 0.6 (bench/clean.sh, dev/user 1.465 -> 1.381 with the
 * cap).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/gc.h>
#include <nlfs/nlfs.h>

static const char *const names[] = {
	[NLFS_GC_TIMESTAMP] = "timestamp",
	[NLFS_GC_GREEDY] = "greedy",
	[NLFS_GC_COST_BENEFIT] = "cost-benefit",
};

int nlfs_gc_policy_parse(const char *name, enum nlfs_gc_policy *out)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i])) {
			*out = (enum nlfs_gc_policy)i;
			return 0;
		}
	if (!strcmp(name, "cost_benefit")) {
		*out = NLFS_GC_COST_BENEFIT;
		return 0;
	}
	return -EINVAL;
}

const char *nlfs_gc_policy_name(enum nlfs_gc_policy p)
{
	return (size_t)p < sizeof(names) / sizeof(names[0]) ? names[p] : "unknown";
}

static int by_score(const void *a, const void *b)
{
	const struct nlfs_gc_candidate *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->segnum < y->segnum ? -1 : x->segnum > y->segnum;
}

static int by_lastmod(const void *a, const void *b)
{
	const struct nlfs_gc_candidate *x = a, *y = b;

	return x->lastmod < y->lastmod ? -1 : x->lastmod > y->lastmod;
}

void nlfs_gc_rank(enum nlfs_gc_policy p, struct nlfs_gc_candidate *c, size_t n, uint64_t now,
		  uint32_t blocks_per_segment)
{
	double horizon = 0;

	if (p == NLFS_GC_COST_BENEFIT && n) {
		uint64_t mid;

		nlfs_sort(c, n, sizeof(*c), by_lastmod);
		mid = c[n / 2].lastmod > now ? now : c[n / 2].lastmod;
		horizon = (double)(now - mid);
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t lastmod = c[i].lastmod > now ? now : c[i].lastmod;
		double live = c[i].live == NLFS_GC_LIVE_UNKNOWN ? c[i].nblocks : c[i].live;
		double u = blocks_per_segment ? live / blocks_per_segment : 1.0;
		double age = (double)(now - lastmod);

		if (u > 1.0)
			u = 1.0;
		switch (p) {
		case NLFS_GC_TIMESTAMP:
			c[i].score = -(double)lastmod;
			break;
		case NLFS_GC_GREEDY:
			c[i].score = -live;
			break;
		case NLFS_GC_COST_BENEFIT:
		default:
			c[i].score = (1.0 - u) * ((age < horizon ? age : horizon) + 1.0) / (1.0 + u);
			break;
		}
	}
	nlfs_sort(c, n, sizeof(*c), by_score);
}

bool nlfs_gc_held_in_first(const struct nlfs_gc_candidate *c, size_t n, size_t k)
{
	for (size_t i = 0; i < n && i < k; i++)
		if (c[i].held)
			return true;
	return false;
}
