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
	return ioc_get_cpinfo(*(int *)ctx, cno, NILFS_CHECKPOINT, ci, n);
}

static int c_set_snapshot(void *ctx, uint64_t cno, bool snapshot)
{
	return ioc_change_cpmode(*(int *)ctx, cno, snapshot ? NILFS_SNAPSHOT : NILFS_CHECKPOINT);
}

static int c_commit(void *ctx)
{
	return ioc_sync(*(int *)ctx, NULL);
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

void cld_timeline(struct cleanerd *d, uint64_t mono)
{
	const struct cld_config *c = &d->cfg;
	struct tl_options o = {
		.cfg = { { c->timeline_hourly, c->timeline_daily, c->timeline_weekly,
			   c->timeline_monthly, c->timeline_yearly } },
		.now = time(NULL), .budget = UINT64_MAX,
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
	rc = tl_run(&(struct tl_vol){ &d->iocfd, c_cpinfo, c_set_snapshot, c_commit, NULL, false },
		    path, uuid, &o, &plan, &out, why, sizeof(why));
	sem_post(sem);
	sem_close(sem);
	for (size_t i = 0; i < plan.n; i++) {
		const struct tl_decision *t = &plan.d[i];
		char reason[512];

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
