/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline.h - the snapshot timeline's rule, in one place: which
 * checkpoints the hourly, daily, weekly, monthly and yearly buckets keep,
 * and so which checkpoints the timeline turns into snapshots and which of
 * its own snapshots it turns back.  nilfs-timeline and nilfs_cleanerd both
 * call it; it reads nothing but its arguments and the process's time zone.
 *
 * The rule:
 * - A period is a local-time hour, day, ISO week (Monday to Sunday), month
 *   or year (the process's time zone, TZ, as snapper and sanoid use).  A
 *   day is a calendar day even when it has 23 or 25 hours; in the hour
 *   the clocks go back, the two hours of the same name are two periods.
 * - Only periods that have ended count: a checkpoint in the period "now" is
 *   in, or after it (a clock set back), is never chosen.  The state at the
 *   end of a period is final once it has ended.
 * - A period's checkpoint is its last one: the highest number among the
 *   checkpoints created in it.
 * - A bucket of N keeps the last checkpoint of each of the N most recent
 *   ended periods that have a checkpoint: a period without one (the volume
 *   was idle, or off) is skipped, its state is that of the one before, so
 *   N buckets mean N different states.
 * - A kept checkpoint that is a plain checkpoint is promoted; one that is
 *   already a snapshot the timeline does not own is the user's: it stays
 *   as it is and the timeline does not take it over.  A user's snapshot
 *   elsewhere in a period does not stand in for the period's checkpoint.
 * - The timeline's own snapshots (the owned list: number and creation
 *   time, both must match) that no bucket keeps are demoted.  A snapshot
 *   not in the owned list is never demoted.  An owned entry that is no
 *   longer a snapshot (gone, or turned back by hand) is forgotten.
 */
#ifndef NLFS_COMMON_TIMELINE_H
#define NLFS_COMMON_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

enum tl_bucket { TL_HOURLY, TL_DAILY, TL_WEEKLY, TL_MONTHLY, TL_YEARLY, TL_NBUCKETS };

/* "hourly" ... "yearly", as the options and configuration keys spell them */
extern const char *const tl_bucket_name[TL_NBUCKETS];

struct tl_config {
	unsigned keep[TL_NBUCKETS];   /* periods kept per bucket; 0: none */
};

struct tl_cp {                    /* one checkpoint of the volume */
	uint64_t cno;
	int64_t create;               /* seconds since the epoch */
	bool snapshot;
};

struct tl_owned {                 /* a snapshot the timeline made */
	uint64_t cno;
	int64_t create;
	int64_t until;                /* kept at least until then (0: unknown) */
};

enum tl_verdict {
	TL_PROMOTE,   /* a bucket keeps it and it is a plain checkpoint */
	TL_HOLD,      /* a bucket keeps it and it is the timeline's snapshot */
	TL_USER,      /* a bucket keeps it and it is a user's snapshot */
	TL_DEMOTE,    /* the timeline's snapshot, no bucket keeps it */
	TL_FORGET,    /* owned, but no longer a snapshot of that time */
	TL_OVER,      /* a bucket keeps it, a plain checkpoint, over the space
		       * budget: not promoted */
	TL_NVERDICTS
};

struct tl_decision {
	uint64_t cno;
	int64_t create;
	unsigned buckets;             /* bit 1 << bucket per bucket that keeps it */
	enum tl_verdict verdict;
	int64_t until;                /* kept: the earliest time no bucket keeps
				       * it any more (the end of the last period
				       * that keeps it, if every later period
				       * has a checkpoint); else 0 */
	bool over_budget;             /* DEMOTE or OVER for the space budget */
};

struct tl_plan {
	struct tl_decision *d;        /* by checkpoint number */
	size_t n;
	size_t count[TL_NVERDICTS];   /* decisions per verdict */
};

/*
 * The decisions for checkpoints CPS (N of them, by increasing number), the
 * owned snapshots OWNED (any order), configuration CFG, at time NOW.  0;
 * -EINVAL if CPS is not in increasing order; -ENOMEM.  Free with
 * tl_plan_free().
 */
int tl_plan_make(const struct tl_cp *cps, size_t n, const struct tl_owned *owned, size_t nowned,
		 const struct tl_config *cfg, time_t now, struct tl_plan *plan);
void tl_plan_free(struct tl_plan *plan);

/* the owned list after the plan is carried out (PROMOTE and HOLD) into
 * *OUT (malloc'd, NULL if empty), *N entries; 0 or -ENOMEM */
int tl_plan_owned(const struct tl_plan *plan, struct tl_owned **out, size_t *n);

/*
 * The space budget.  The timeline's snapshots after PLAN (PROMOTE and HOLD,
 * by number: oldest first) are given up oldest first while what they
 * alone hold is over BUDGET blocks: FREED[i] is what the i-th of them frees
 * with those before it (nlfs_gc_held_only).  A held one becomes DEMOTE, one
 * to promote OVER, both over_budget.  Returns the blocks they hold after.
 */
uint64_t tl_plan_budget(struct tl_plan *plan, const uint64_t *freed, uint64_t budget);

/* the local-time name of the period of bucket B holding T, e.g.
 * "2026-03-29 01:00 CET", "2026-03-29", "2026-W13", "2026-03", "2026" */
void tl_period_name(enum tl_bucket b, time_t t, char *buf, size_t len);

/* why: the buckets and periods that keep D ("hourly 2026-12-06 21:00
 * UTC, daily 2026-12-06"), or why none does */
void tl_reason(const struct tl_decision *d, char *buf, size_t len);

/* "hourly,daily" for a bucket mask (B bits), "-" for none */
void tl_buckets_name(unsigned mask, char *buf, size_t len);

#endif /* NLFS_COMMON_TIMELINE_H */
