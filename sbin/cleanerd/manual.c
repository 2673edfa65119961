/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * manual.c - a manual run (nilfs-clean): from the request control.c took
 * to its end, its parameters for each pass and what is left of it.
 */
#include <inttypes.h>
#include <syslog.h>

#include "cleanerd.h"

bool cld_manual_params(struct cleanerd *d, uint64_t nsegs, uint32_t min_reclaimable,
		       struct params *p)
{
	if (!d->mm.active)
		return false;
	if (!d->mm.counted) {
		d->mm.remaining = cld_count_reclaimable(d, nsegs);
		d->mm.counted = true;
	}
	*p = (struct params){
		.protection_period = d->mm.protection_period,
		.nsegments = d->mm.nsegments,
		.interval = d->mm.interval,
		.policy = d->cfg.selection_policy,
		.min_reclaimable = min_reclaimable,
	};
	if (d->mm.have_minrec) {
		bool clamped;

		p->min_reclaimable = cld_size_to_blocks(&d->mm.minrec, d->rd.blocks_per_segment,
							d->rd.blocksize, &clamped);
	}
	return true;
}

void cld_manual_account(struct cleanerd *d, const struct pass_result *res, bool retry)
{
	uint64_t done = res->cleaned + res->deferred;

	if (!d->mm.active)
		return;
	d->mm.remaining = d->mm.remaining > done ? d->mm.remaining - done : 0;
	if (d->mm.remaining == 0 || (!d->last_busy && !res->error && !retry))
		cld_manual_end(d, "completed");
}

void cld_manual_end(struct cleanerd *d, const char *how)
{
	d->mm.active = false;
	d->jobdone = d->mm.job;
	say(LOG_INFO, "manual run %" PRIu64 " %s", d->mm.job, how);
}
