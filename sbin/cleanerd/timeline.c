/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline.c - the snapshot timeline (common/timeline.h) in the daemon: on
 * the mounted volume through the kernel's checkpoint ioctls, at most once a
 * minute, before a cleaning pass, so that a pass cannot reclaim a period's
 * last checkpoint the timeline is about to keep.  Each change goes to the
 * log with its reason.  The run holds the cleaner's lock (the named
 * semaphore nilfs-utils' and our chcp take, see bin/lscp/vol_mount.c), so
 * a user's chcp cannot slip between the timeline's listing and its changes
 * and have its snapshot taken for the timeline's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "cleanerd.h"
#include "ioc.h"
#include "timeline_state.h"

#define TIMELINE_INTERVAL (60 * NS_PER_SEC)

static long c_cpinfo(void *ctx, uint64_t cno, struct nilfs_cpinfo *ci, size_t n)
{
	return ioc_get_cpinfo(((struct cleanerd *)ctx)->iocfd, cno, NILFS_CHECKPOINT, ci, n);
}

static int c_set_snapshot(void *ctx, uint64_t cno, bool snapshot)
{
	return ioc_change_cpmode(((struct cleanerd *)ctx)->iocfd, cno,
				 snapshot ? NILFS_SNAPSHOT : NILFS_CHECKPOINT);
}

static int c_commit(void *ctx)
{
	return ioc_sync(((struct cleanerd *)ctx)->iocfd, NULL);
}

/* the budget's count on the device, after a sync */
static int c_held(void *ctx, const struct nlfs_gc_protect *others, const uint64_t *snaps,
		  size_t n, struct nlfs_gc_held *h)
{
	struct cleanerd *d = ctx;
	struct nlfs_err err;
	int rc = ioc_sync(d->iocfd, NULL);

	nlfs_err_clear(&err);
	if (!rc)
		rc = tl_held_on_device(d->device, others, snaps, n, h, &err);
	if (rc && err.code) {
		char msg[320];

		nlfs_err_format(&err, msg, sizeof(msg));
		say(LOG_ERR, "timeline: the space budget's count: %s", msg);
	}
	return rc;
}

/* the clean segments' blocks as the iteration found them */
static int c_clean_blocks(void *ctx, uint64_t *blocks)
{
	const struct cleanerd *d = ctx;

	*blocks = d->ncleansegs * d->rd.blocks_per_segment;
	return 0;
}

/* timeline_max_space in blocks: a share of the volume or bytes; UINT64_MAX
 * for none */
static uint64_t budget_blocks(const struct cleanerd *d)
{
	const struct cld_size *s = &d->cfg.timeline_max_space;
	uint64_t total = d->nsegs * d->rd.blocks_per_segment;

	if (s->num == 0)
		return UINT64_MAX;
	if (s->unit == CLD_UNIT_PERCENT)
		return total / 100 * s->num + total % 100 * s->num / 100;
	if (s->unit == CLD_UNIT_BYTES)
		return s->num / d->rd.blocksize;
	return s->num;   /* a plain number: blocks */
}

static bool timeline_on(const struct cld_config *c)
{
	return c->timeline_hourly || c->timeline_daily || c->timeline_weekly ||
	       c->timeline_monthly || c->timeline_yearly;
}

uint64_t cld_timeline_due(const struct cleanerd *d)
{
	if (!timeline_on(&d->cfg))
		return UINT64_MAX;
	return d->timeline_last ? d->timeline_last + TIMELINE_INTERVAL : 0;
}

void cld_timeline(struct cleanerd *d, uint64_t mono, uint64_t min_clean_segments)
{
	const struct cld_config *c = &d->cfg;
	struct tl_options o = {
		.cfg = { { c->timeline_hourly, c->timeline_daily, c->timeline_weekly,
			   c->timeline_monthly, c->timeline_yearly } },
		.now = time(NULL), .budget = budget_blocks(d),
		.protection_period = c->protection_period / NS_PER_SEC,
		.min_free = min_clean_segments * d->rd.blocks_per_segment,
	};
	const struct nlfs_super_block *sb;
	char uuid[TL_UUID_LEN], path[PATH_MAX], why[256], name[64];
	struct tl_outcome out;
	struct tl_plan plan;
	sem_t *sem;
	int rc;

	if (!timeline_on(c) || (d->timeline_last && mono < cld_timeline_due(d)))
		return;
	d->timeline_last = mono;
	sb = nlfs_fs_sb(d->rd.fs, nlfs_fs_sb_choice(d->rd.fs)->used);
	tl_uuid_name(sb->s_uuid, uuid);
	snprintf(path, sizeof(path), "%s/%s",
		 c->timeline_state_dir[0] ? c->timeline_state_dir : TL_STATE_DIR, uuid);
	snprintf(name, sizeof(name), "/nilfs-cleaner-%llu", (unsigned long long)d->rdev);
	sem = sem_open(name, O_CREAT, S_IRWXU, 1);
	if (sem == SEM_FAILED) {
		say(LOG_ERR, "timeline: cannot open the cleaner's lock %s: %s", name, strerror(errno));
		return;
	}
	while (sem_wait(sem) < 0 && errno == EINTR)
		;
	rc = tl_run(&(struct tl_vol){ d, c_cpinfo, c_set_snapshot, c_commit, c_held, c_clean_blocks,
				      false },
		    path, uuid, &o, &plan, &out, why, sizeof(why));
	sem_post(sem);
	sem_close(sem);
	for (size_t i = 0; i < plan.n; i++) {
		const struct tl_decision *t = &plan.d[i];
		char reason[512];

		if (t->verdict == TL_OVER) {
			tl_reason(t, reason, sizeof(reason));
			say(LOG_DEBUG, "timeline: not promoted: %llu (%s)", (unsigned long long)t->cno,
			    reason);
			continue;
		}
		if (t->verdict != TL_PROMOTE && t->verdict != TL_DEMOTE)
			continue;
		if (out.error && out.failed_cno == t->cno)
			continue;
		tl_reason(t, reason, sizeof(reason));
		say(LOG_INFO, "timeline: %s %llu (%s)",
		    t->verdict == TL_PROMOTE ? "promoted checkpoint to a snapshot:"
					     : "demoted snapshot to a checkpoint:",
		    (unsigned long long)t->cno, reason);
	}
	/* the count when it first is, and when the budget changed something */
	if (out.budgeted && out.limit == TL_LIMIT_FREE &&
	    (out.held_after < out.held_before || !d->timeline_budget_said)) {
		say(out.held_after < out.held_before ? LOG_NOTICE : LOG_INFO,
		    "timeline: free space under the cleaner's minimum: %llu blocks clean, %llu "
		    "that nothing holds, minimum %llu: its snapshots alone hold %llu blocks, %llu "
		    "after", (unsigned long long)out.clean, (unsigned long long)out.dead,
		    (unsigned long long)o.min_free, (unsigned long long)out.held_before,
		    (unsigned long long)out.held_after);
		d->timeline_budget_said = true;
	} else if (out.budgeted && (out.promoted || out.demoted || !d->timeline_budget_said)) {
		say(LOG_INFO, "timeline: its snapshots alone hold %llu blocks, %llu after the "
		    "budget of %llu", (unsigned long long)out.held_before,
		    (unsigned long long)out.held_after, (unsigned long long)o.budget);
		d->timeline_budget_said = true;
	}
	if (rc && out.failed && !strcmp(out.failed, "state"))
		say(d->timeline_failing ? LOG_DEBUG : LOG_ERR, "timeline: %s: %s", path,
		    why[0] ? why : strerror(-rc));
	else if (rc && out.failed && !strcmp(out.failed, "change"))
		say(d->timeline_failing ? LOG_DEBUG : LOG_ERR, "timeline: checkpoint %llu: %s",
		    (unsigned long long)out.failed_cno, strerror(-rc));
	else if (rc)
		say(d->timeline_failing ? LOG_DEBUG : LOG_ERR, "timeline: %s: %s",
		    out.failed ? out.failed : "plan", strerror(-rc));
	d->timeline_failing = rc != 0;
	tl_plan_free(&plan);
}
