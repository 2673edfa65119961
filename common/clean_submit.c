/* SPDX-License-Identifier: GPL-2.0-or-later */
/* clean_submit.c - a cleaning plan to the kernel, checkpoints first (clean_submit.h). */
#include <errno.h>

#include "ioc.h"
#include "clean_submit.h"

#define SUBMIT_CPINFO_BATCH 256

static ssize_t ioctl_get_cpinfo(void *ctx, uint64_t cno, struct nilfs_cpinfo *ci, size_t n)
{
	return ioc_get_cpinfo(*(int *)ctx, cno, NILFS_CHECKPOINT, ci, n);
}

static int ioctl_delete_checkpoint(void *ctx, uint64_t cno)
{
	return ioc_delete_checkpoint(*(int *)ctx, cno);
}

static int ioctl_clean_segments(void *ctx, const struct cld_plan *p)
{
	return ioc_clean_segments(*(int *)ctx, p->live, p->nlive, NULL, 0, p->dead, p->ndead,
				  p->bd, p->nbd, p->segnums, p->nsegs);
}

struct cld_kops cld_kops_ioctl(int *fd)
{
	return (struct cld_kops){ .get_cpinfo = ioctl_get_cpinfo,
				  .delete_checkpoint = ioctl_delete_checkpoint,
				  .clean_segments = ioctl_clean_segments, .ctx = fd };
}

/* delete the valid checkpoints of [START, END), one call each */
static int delete_period(const struct cld_kops *k, uint64_t start, uint64_t end,
			 struct cld_submit_result *r)
{
	struct nilfs_cpinfo ci[SUBMIT_CPINFO_BATCH];
	uint64_t cno = start;

	while (cno < end) {
		ssize_t n = k->get_cpinfo(k->ctx, cno, ci, SUBMIT_CPINFO_BATCH);

		if (n < 0) {
			r->cno = cno;
			return (int)n;
		}
		if (n == 0)
			return 0;
		for (ssize_t i = 0; i < n; i++) {
			int rc;

			if (ci[i].ci_cno >= end)
				return 0;
			/* a snapshot taken since the plan: its blocks are not dead */
			rc = nilfs_cpinfo_snapshot(&ci[i]) ? -EBUSY
							   : k->delete_checkpoint(k->ctx, ci[i].ci_cno);
			if (rc == -ENOENT)   /* deleted meanwhile (rmcp) */
				continue;
			if (rc) {
				r->cno = ci[i].ci_cno;
				return rc;
			}
			r->deleted++;
		}
		if (ci[n - 1].ci_cno + 1 <= cno)
			return -EIO;   /* the kernel went backwards */
		cno = ci[n - 1].ci_cno + 1;
	}
	return 0;
}

int cld_submit(const struct cld_kops *k, const struct cld_plan *p, struct cld_submit_result *r)
{
	int rc = 0;

	*r = (struct cld_submit_result){ .failed = CLD_STAGE_NONE };
	for (size_t i = 0; !rc && i < p->nperiods; i++)
		rc = delete_period(k, p->periods[i].p_start, p->periods[i].p_end, r);
	if (rc) {
		r->failed = CLD_STAGE_CHECKPOINTS;
		r->error = rc;
		return rc;
	}
	rc = k->clean_segments(k->ctx, p);
	if (rc) {
		r->failed = CLD_STAGE_CLEAN;
		r->error = rc;
	}
	return rc;
}
