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

/* why the space budget gave a snapshot up */
enum tl_shed {
	TL_SHED_NONE,
	TL_SHED_OLDEST,    /* the oldest go first: beyond the finest bucket's */
	TL_SHED_THINNED,   /* the finest bucket thinned, every second one */
};

/* which limit the space budget held the timeline to */
enum tl_limit {
	TL_LIMIT_NONE,
	TL_LIMIT_BUDGET,   /* what its snapshots alone hold, over the budget */
	TL_LIMIT_FREE,     /* free space under the cleaner's minimum */
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
	enum tl_shed shed;            /* DEMOTE or OVER for the space budget: how, */
	enum tl_limit limit;          /* under which limit */
	unsigned finest;              /* the bucket thinned */
};

struct tl_plan {
	struct tl_decision *d;        /* by checkpoint number */
	size_t n;
	size_t count[TL_NVERDICTS];   /* decisions per verdict */
	/* the space budget (tl_plan_budget) */
	enum tl_limit limit;          /* the limit that bound, if any */
	uint64_t held_before, held_after;   /* blocks the timeline's snapshots alone hold */
	uint64_t allowed;             /* blocks they may hold under both limits */
};

/*
 * The plan made while the checkpoints stream by: tl_chooser_init, then
 * tl_chooser_add for each checkpoint by increasing number, then
 * tl_chooser_finish.  It holds what the rule needs and no more: per
 * bucket the last checkpoint of each of its N newest ended periods so far
 * (a period pushed out by N newer ones never comes back), and the owned
 * entries with whether each is still that snapshot; not the checkpoints.
 */
struct tl_slot;
struct tl_chooser {
	struct tl_config cfg;
	int64_t nowkey[TL_NBUCKETS];    /* the period "now" of each bucket */
	struct tl_slot *top[TL_NBUCKETS];   /* by period, oldest first */
	size_t ntop[TL_NBUCKETS], cap[TL_NBUCKETS];
	struct tl_owned *own;           /* by number, without repeats */
	bool *own_match;                /* own[i] is still that snapshot */
	size_t nown, next_own;
	uint64_t last_cno;
	bool any;
};

/* for CFG at NOW, with the owned snapshots OWNED (any order); 0 or -ENOMEM */
int tl_chooser_init(struct tl_chooser *c, const struct tl_config *cfg, time_t now,
		    const struct tl_owned *owned, size_t nowned);
/* the next checkpoint: 0; -EINVAL if its number is not above the last one's;
 * -ENOMEM */
int tl_chooser_add(struct tl_chooser *c, const struct tl_cp *cp);
/* the decisions into *PLAN (free with tl_plan_free); the chooser is freed
 * either way.  0 or -ENOMEM. */
int tl_chooser_finish(struct tl_chooser *c, struct tl_plan *plan);
void tl_chooser_free(struct tl_chooser *c);

/*
 * The decisions for checkpoints CPS (N of them, by increasing number), the
 * owned snapshots OWNED (any order), configuration CFG, at time NOW, by the
 * chooser.  0; -EINVAL if CPS is not in increasing order; -ENOMEM.  Free
 * with tl_plan_free().
 */
int tl_plan_make(const struct tl_cp *cps, size_t n, const struct tl_owned *owned, size_t nowned,
		 const struct tl_config *cfg, time_t now, struct tl_plan *plan);
void tl_plan_free(struct tl_plan *plan);

/* the owned list after the plan is carried out (PROMOTE and HOLD) into
 * *OUT (malloc'd, NULL if empty), *N entries; 0 or -ENOMEM */
int tl_plan_owned(const struct tl_plan *plan, struct tl_owned **out, size_t *n);

/*
 * The space budget.  The timeline's snapshots after PLAN (PROMOTE and HOLD,
 * by number: SNAPS of nlfs_gc_held_count, whose count is H) may hold alone
 * MAX_HELD blocks at most (UINT64_MAX: no limit), and, with MIN_FREE set,
 * only as much as leaves MIN_FREE blocks clean once the cleaner has
 * reclaimed what nothing holds: FREE (clean now) + H->dead + what they
 * hold - MIN_FREE.  Over that, they are given up in this order until they
 * hold no more: first the oldest, all those the finest bucket that keeps
 * any of them does not keep (TL_SHED_OLDEST), oldest first; then that
 * bucket's are thinned (TL_SHED_THINNED): every second one counted from
 * the newest, oldest first, and again on those left, the newest last.  A
 * held one becomes DEMOTE, one to promote OVER.  Each step frees exactly
 * the versions none of the snapshots left holds.  What they hold before
 * and after, and the limit that bound, are set in PLAN.  0 or -ENOMEM.
 */
struct nlfs_gc_held;
struct tl_budget {
	uint64_t max_held;            /* blocks; UINT64_MAX: none */
	uint64_t min_free;            /* blocks; 0: none */
	uint64_t free;                /* blocks clean now */
};
int tl_plan_budget(struct tl_plan *plan, const struct nlfs_gc_held *h, const struct tl_budget *b);

/* the local-time name of the period of bucket B holding T, e.g.
 * "2026-03-29 01:00 CET", "2026-03-29", "2026-W13", "2026-03", "2026" */
void tl_period_name(enum tl_bucket b, time_t t, char *buf, size_t len);

/* why: the buckets and periods that keep D ("hourly 2026-12-06 21:00
 * UTC, daily 2026-12-06"), or why none does */
void tl_reason(const struct tl_decision *d, char *buf, size_t len);

/* "hourly,daily" for a bucket mask (B bits), "-" for none */
void tl_buckets_name(unsigned mask, char *buf, size_t len);

#endif /* NLFS_COMMON_TIMELINE_H */
