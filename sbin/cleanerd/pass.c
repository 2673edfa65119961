/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pass.c - one cleaning step of nilfs_cleanerd.
 *
 * List the reclaimable segments (GET_SUINFO: dirty, not active, not in
 * error, older than the protection period; as nilfs-utils, not written
 * after the last ordinary write unless in an emergency), rank them, and
 * describe the first ones (clean_plan.c) until the step is full: segments whose
 * seq is at or after ss_prot_seq are kept for recovery (if one of them
 * ranks among the step's victims, the pass first has the kernel write its
 * superblocks, which moves ss_prot_seq on), segments with too
 * few reclaimable blocks are deferred (SET_SUINFO lastmod = now), segments
 * whose blocks are all live are left alone.  The rest go to one
 * CLEAN_SEGMENTS call.
 *
 * Live counts for greedy and cost-benefit are exact (summaries, GET_VINFO,
 * GET_BDESCS), computed per pass for at most EVAL_BUDGET segments never
 * counted, and remembered per segment until it changes with the blocks
 * found live; a count older than EVAL_MAX_AGE is renewed by asking the
 * DAT about those blocks alone (GET_VINFO, no read of the segment), for
 * every candidate, each pass: stale counts (an upper bound, as live counts
 * only fall) ranked segments whose hot data had died as still full, and
 * the pass cleaned worse ones (bench/clean.sh).  Segments not counted yet
 * rank as full (nlfs_gc_rank uses su_nblocks).
 */
#define _GNU_SOURCE   /* syncfs */
#define VINFO_BATCH 1024u   /* GET_VINFO entries per call */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "cleanerd.h"
#include "ioc.h"
#include "array.h"
#include "clean_submit.h"

uint64_t cld_reserved_segments(const struct cleanerd *d, uint64_t nsegs)
{
	uint64_t r = (nsegs * d->r_pct + 99) / 100;

	return r > MIN_RESERVED_SEGMENTS ? r : MIN_RESERVED_SEGMENTS;
}

/* forget what is known of segment S (it changed, or was cleaned) */
static void seginfo_reset(struct cleanerd *d, struct seginfo *s)
{
	d->nrefs_total -= s->nrefs;
	free(s->refs);
	*s = (struct seginfo){ .live = NLFS_GC_LIVE_UNKNOWN };
}

static int ensure_seginfo(struct cleanerd *d, uint64_t nsegs)
{
	size_t old = d->nseg_alloc;

	if (CLI_GROW(d->seg, d->nseg_alloc, nsegs))
		return -ENOMEM;
	for (size_t i = old; i < d->nseg_alloc; i++)
		d->seg[i] = (struct seginfo){ .live = NLFS_GC_LIVE_UNKNOWN };
	return 0;
}

/* the cache entry of SEGNUM for this suinfo; reset when the segment changed */
static struct seginfo *seginfo_for(struct cleanerd *d, uint64_t segnum,
				   const struct nilfs_suinfo *si)
{
	struct seginfo *s = &d->seg[segnum];

	if (s->lastmod != si->sui_lastmod || s->nblocks != si->sui_nblocks) {
		seginfo_reset(d, s);
		s->lastmod = si->sui_lastmod;
		s->nblocks = si->sui_nblocks;
	}
	return s;
}

/* ------------------------------------------------------------------ */
/* checkpoints */

static int load_snapshots(struct cleanerd *d)
{
	struct nilfs_cpinfo ci[CPINFO_BATCH];
	struct nilfs_cpstat cs;
	uint64_t cno = 0;
	size_t n = 0;
	int rc = ioc_get_cpstat(d->iocfd, &cs);

	if (rc)
		return rc;
	free(d->snapshots);
	d->snapshots = NULL;
	d->nsnapshots = 0;
	if (cs.cs_nsss == 0)
		return 0;
	d->snapshots = malloc(cs.cs_nsss * sizeof(*d->snapshots));
	if (!d->snapshots)
		return -ENOMEM;
	while (n < cs.cs_nsss) {
		ssize_t got = ioc_get_cpinfo(d->iocfd, cno, NILFS_SNAPSHOT, ci,
					     cs.cs_nsss - n < CPINFO_BATCH ? cs.cs_nsss - n
									   : CPINFO_BATCH);

		if (got < 0)
			return (int)got;
		if (got == 0)
			break;
		for (ssize_t i = 0; i < got && n < cs.cs_nsss; i++)
			d->snapshots[n++] = ci[i].ci_cno;
		cno = ci[got - 1].ci_next;
		if (cno == 0)
			break;
	}
	if (n != cs.cs_nsss)
		say(LOG_WARNING, "snapshot list has %zu entries, the checkpoint file counts %llu", n,
		    (unsigned long long)cs.cs_nsss);
	nlfs_sort(d->snapshots, n, sizeof(*d->snapshots), nlfs_cmp_u64);
	d->nsnapshots = n;
	return 0;
}

/* the first checkpoint created at or after LIMIT (UINT64_MAX if none) */
static int find_protcno(struct cleanerd *d, uint64_t limit, uint64_t *protcno)
{
	struct nilfs_cpinfo ci[CPINFO_BATCH];
	uint64_t cnos[CPINFO_BATCH], create[CPINFO_BATCH];
	uint64_t start = d->cp_hint ? d->cp_hint : 1, last = 0;
	bool restarted = start == 1;

	for (;;) {
		ssize_t n = ioc_get_cpinfo(d->iocfd, start, NILFS_CHECKPOINT, ci, CPINFO_BATCH);
		uint64_t c;

		if (n < 0)
			return (int)n;
		if (n == 0) {
			*protcno = UINT64_MAX;
			d->cp_hint = last;
			return 0;
		}
		if (!restarted && ci[0].ci_create >= limit) {
			/* the limit moved back (a shorter period, the clock): from the start */
			restarted = true;
			start = 1;
			continue;
		}
		restarted = true;
		for (ssize_t i = 0; i < n; i++) {
			cnos[i] = ci[i].ci_cno;
			create[i] = ci[i].ci_create;
		}
		c = nlfs_gc_protcno(cnos, create, (size_t)n, limit);
		if (c != UINT64_MAX) {
			*protcno = c;
			d->cp_hint = c;
			return 0;
		}
		last = ci[n - 1].ci_cno;
		start = last + 1;
	}
}

/* ------------------------------------------------------------------ */
/* one segment */

/* remember the live blocks of plan P, segment S's, for recount_live */
static void keep_refs(struct cleanerd *d, struct seginfo *s, const struct cld_plan *p)
{
	struct live_ref *r = NULL;

	d->nrefs_total -= s->nrefs;
	s->nrefs = 0;
	s->have_refs = false;
	if (d->nrefs_total + p->nlive > LIVE_REFS_MAX)
		goto none;
	if (p->nlive && !(r = realloc(s->refs, p->nlive * sizeof(*r))))
		goto none;
	for (size_t i = 0; i < p->nlive; i++)
		r[i] = (struct live_ref){ p->live[i].vd_vblocknr, p->live[i].vd_blocknr,
					  p->live[i].vd_cno };
	if (r)
		s->refs = r;
	s->nrefs = (uint32_t)p->nlive;
	s->nbd = (uint32_t)p->nbd;
	s->have_refs = true;
	d->nrefs_total += p->nlive;
	return;
none:
	free(s->refs);
	s->refs = NULL;
}

/*
 * Count the live blocks of segment S again, asking the DAT (GET_VINFO)
 * about the blocks its last count found live, without reading the
 * segment: a block found dead stays dead (but for a snapshot taken since,
 * which the description before cleaning sees), and its DAT blocks are
 * taken as still live.  For ranking only: a victim is always described
 * anew (describe_segment).
 */
static int recount_live(struct cleanerd *d, struct seginfo *s, const struct nlfs_gc_protect *prot)
{
	size_t n = s->nrefs, kept = 0;

	if (CLI_GROW(d->vinfo.vi, d->vinfo.cap, n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		d->vinfo.vi[i] = (struct nilfs_vinfo){ .vi_vblocknr = s->refs[i].vblocknr };
	for (size_t i = 0; i < n; ) {
		size_t k = n - i < VINFO_BATCH ? n - i : VINFO_BATCH;
		ssize_t got = ioc_get_vinfo(d->iocfd, d->vinfo.vi + i, k);

		if (got < 0)
			return (int)got;
		if ((size_t)got != k)
			return -EIO;
		i += k;
	}
	for (size_t i = 0; i < n; i++) {
		struct nilfs_vdesc vd = { .vd_vblocknr = s->refs[i].vblocknr,
					  .vd_blocknr = s->refs[i].blocknr,
					  .vd_cno = s->refs[i].cno };

		if (cld_vblock_fate(prot, &vd, &d->vinfo.vi[i]) == CLD_LIVE)
			s->refs[kept++] = s->refs[i];
	}
	d->nrefs_total -= n - kept;
	s->nrefs = (uint32_t)kept;
	s->live = (uint32_t)kept + s->nbd;
	s->evaluated = mono_ns();
	return 0;
}

/*
 * Describe SEGNUM into d->tmp (reset first).  0: described; CLD_SEG_PROTECTED;
 * -EBADMSG: cannot be read completely; other -errno: an ioctl failed.
 */
static int describe_segment(struct cleanerd *d, uint64_t segnum, const struct nilfs_suinfo *si,
			    struct seginfo *s, const struct nlfs_gc_protect *prot, uint64_t protseq)
{
	char why[256] = "";
	uint64_t seq;
	int rc = cld_segment_plan(d->iocfd, &d->rd, segnum, si->sui_nblocks, prot, &d->descs,
				  &d->vinfo, &d->tmp, &seq, why, sizeof(why));

	if (rc)
		goto bad;
	if (si->sui_nblocks == 0)
		return 0;   /* scrapped: nothing to count */
	/* a protected segment is still counted: if it ranks first, the pass
	 * asks for a superblock write instead of cleaning worse segments */
	s->seq = seq;
	s->have_seq = true;
	s->live = (uint32_t)cld_plan_live(&d->tmp);
	s->evaluated = mono_ns();
	keep_refs(d, s, &d->tmp);
	return (int64_t)(seq - protseq) >= 0 ? CLD_SEG_PROTECTED : 0;
bad:
	if (rc == -ENOMEM)
		return rc;
	if (s->bad < UINT8_MAX)
		s->bad++;
	d->st.errors++;
	say(s->bad >= BAD_LIMIT ? LOG_ERR : LOG_WARNING, "segment %" PRIu64 "%s: %s", segnum,
	    s->bad >= BAD_LIMIT ? " left alone until it changes" : " skipped", why);
	return rc == -EBADMSG || rc == -EIO || rc == -ENOENT ? -EBADMSG : rc;
}

static uint32_t segment_capacity(const struct cleanerd *d, uint64_t segnum)
{
	return segnum == 0 ? d->rd.blocks_per_segment - (uint32_t)d->rd.first_data_block
			   : d->rd.blocks_per_segment;
}

/* ------------------------------------------------------------------ */
/* one pass */

int cld_shrink_protected_region(struct cleanerd *d)
{
	/* Each sync of the whole volume writes a super root and then one
	 * superblock copy, the two copies in turn, and the kernel protects
	 * what was written since the older copy's log: two syncs move
	 * ss_prot_seq up to the first one while the volume is written.  No
	 * freeze (nilfs-utils' way, which writes both copies at once): it
	 * waits for every writer to leave the filesystem, and a writer
	 * throttled on dirty pages while the volume has no clean segment
	 * never leaves, so the cleaner that would free one would wait for
	 * ever, and every writer stalls while the freeze lasts. */
	for (int i = 0; i < 2; i++)
		if (syncfs(d->iocfd) < 0)
			return -errno;
	return 0;
}

static void defer_segments(struct cleanerd *d, const uint64_t *segs, size_t n)
{
	struct nilfs_suinfo_update sup[CLD_NSEGMENTS_PER_CLEAN_MAX * 4];
	uint64_t now = (uint64_t)time(NULL);
	int rc;

	if (n > sizeof(sup) / sizeof(sup[0]))
		n = sizeof(sup) / sizeof(sup[0]);
	for (size_t i = 0; i < n; i++) {
		sup[i] = (struct nilfs_suinfo_update){ .sup_segnum = segs[i] };
		nilfs_suinfo_update_set_lastmod(&sup[i]);
		sup[i].sup_sui.sui_lastmod = now;
	}
	rc = ioc_set_suinfo(d->iocfd, sup, n);
	if (rc == -ENOTTY || rc == -EINVAL || rc == -EOPNOTSUPP) {
		say(LOG_WARNING, "SET_SUINFO is not supported (%s): min_reclaimable_blocks is "
		    "ignored from now on", strerror(-rc));
		d->set_suinfo_broken = true;
	} else if (rc) {
		say(LOG_ERR, "cannot defer segments (SET_SUINFO): %s", strerror(-rc));
	}
}

/* NILFS_CLEANERD_TEST_HOOK (tests only): a shell command run just before a
 * plan goes to the kernel, with NILFS_CLEANERD_PERIODS="START-END ..."
 * (the checkpoint ranges it deletes), so that a test can change the volume
 * between the plan and the ioctls */
static void run_test_hook(const struct cld_plan *p)
{
	const char *hook = getenv("NILFS_CLEANERD_TEST_HOOK");
	char list[1024] = "";
	size_t len = 0;
	int rc;

	if (!hook || !*hook)
		return;
	for (size_t i = 0; i < p->nperiods && len < sizeof(list) - 48; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%llu-%llu",
					i ? " " : "", (unsigned long long)p->periods[i].p_start,
					(unsigned long long)p->periods[i].p_end);
	setenv("NILFS_CLEANERD_PERIODS", list, 1);
	rc = system(hook);
	say(LOG_DEBUG, "test hook ran (status %d)", rc);
}

/* what a failed CLEAN_SEGMENTS most likely met (dmesg has the kernel's word) */
static const char *clean_failure_cause(int err)
{
	switch (err) {
	case -EBUSY: return "another cleaner is at work";
	case -ENOENT: return "a block of the plan no longer has its DAT entry (stale description)";
	case -EEXIST: return "two descriptions of one block (conflicting buffer)";
	case -EINVAL: return "the kernel refused the arrays";
	case -EROFS: return "the filesystem is read-only now";
	case -ENOMEM: case -ENOSPC: return "out of memory or space";
	default: return "see the kernel log";
	}
}

static bool clean_failure_transient(int err)
{
	return err == -EBUSY || err == -ENOMEM || err == -ENOSPC || err == -EINTR || err == -EAGAIN;
}

/* d->plan to the kernel (submit.h): its checkpoints, then its segments */
static void submit_plan(struct cleanerd *d, struct pass_result *res)
{
	struct cld_kops k = cld_kops_ioctl(&d->iocfd);
	struct cld_submit_result r;
	int rc;

	cld_plan_finish(&d->plan);
	run_test_hook(&d->plan);
	rc = cld_submit(&k, &d->plan, &r);
	if (d->isolate)
		d->isolate--;
	if (rc && r.failed == CLD_STAGE_CHECKPOINTS) {
		/* nothing cleaned: a block the plan calls dead may belong to the
		 * checkpoint left; the next pass plans again */
		say(rc == -EBUSY ? LOG_NOTICE : LOG_ERR, "checkpoint %llu cannot be deleted (%s%s), "
		    "%zu others deleted: segments not cleaned in this pass",
		    (unsigned long long)r.cno, strerror(-rc),
		    rc == -EBUSY ? ": it became a snapshot" : "", r.deleted);
		/* a snapshot race is over once it is seen: plan again soon */
		if (rc != -EBUSY) {
			res->error = rc;
			d->st.errors++;
		}
		return;
	}
	if (rc) {
		bool transient = clean_failure_transient(rc);

		say(transient ? LOG_NOTICE : LOG_ERR, "cleaning %zu segment%s failed (CLEAN_SEGMENTS): "
		    "%s: %s%s", d->plan.nsegs, d->plan.nsegs == 1 ? "" : "s", strerror(-rc),
		    clean_failure_cause(rc), !transient && d->plan.nsegs > 1
		    ? "; the next passes clean one segment at a time to find the one at fault" : "");
		res->error = rc;
		if (transient)
			return;
		d->st.errors++;
		if (d->plan.nsegs > 1) {
			/* which segment is at fault is not known: none is counted bad,
			 * each gets a pass of its own */
			d->isolate = (unsigned)d->plan.nsegs;
			return;
		}
		if (d->seg[d->plan.segnums[0]].bad < UINT8_MAX)
			d->seg[d->plan.segnums[0]].bad++;
		return;
	}
	{
		char list[256] = "";
		size_t len = 0;

		for (size_t i = 0; i < d->plan.nsegs && len < sizeof(list) - 24; i++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, " %" PRIu64,
						d->plan.segnums[i]);
		res->cleaned = d->plan.nsegs;
		d->st.cleaned += d->plan.nsegs;
		d->st.moved += cld_plan_live(&d->plan);
		d->st.moved_dat += d->plan.nbd;
		d->st.freed += d->plan.ndead;
		d->st.periods += d->plan.nperiods;
		d->st.stale += d->plan.nstale;
		say(d->plan.nstale ? LOG_WARNING : LOG_INFO, "cleaned segment%s%s: %zu blocks "
		    "moved (%zu DAT), %zu virtual blocks freed, %zu checkpoints deleted",
		    d->plan.nsegs == 1 ? "" : "s", list, cld_plan_live(&d->plan), d->plan.nbd,
		    d->plan.ndead, r.deleted);
		if (d->plan.nstale)
			say(LOG_WARNING, "%zu blocks there had DAT entries pointing elsewhere "
			    "(stale copies): neither moved nor freed", d->plan.nstale);
		for (size_t i = 0; i < d->plan.nsegs; i++)
			seginfo_reset(d, &d->seg[d->plan.segnums[i]]);
	}
}

void cld_run_pass(struct cleanerd *d, const struct nilfs_sustat *sus, const struct params *p,
		  struct pass_result *res)
{
	struct nlfs_gc_candidate *cand = NULL;
	struct nilfs_suinfo *si = NULL;
	struct nlfs_gc_protect prot;
	uint64_t now = (uint64_t)time(NULL), pp = p->protection_period / NS_PER_SEC;
	uint64_t prottime = now > pp ? now - pp : 0, protcno = UINT64_MAX, nsegs = sus->ss_nsegs;
	uint64_t deferred[CLD_NSEGMENTS_PER_CLEAN_MAX * 4];
	size_t ncand = 0, ndeferred = 0, examined = 0, max_examine, nper;
	uint64_t protseq = sus->ss_prot_seq;
	int rc;

	memset(res, 0, sizeof(*res));
	cld_plan_reset(&d->plan);
	rc = ensure_seginfo(d, nsegs);
	si = malloc(nsegs * sizeof(*si));
	cand = malloc(nsegs * sizeof(*cand));
	if (rc || !si || !cand) {
		res->error = -ENOMEM;
		goto out;
	}
	for (uint64_t segnum = 0; segnum < nsegs; ) {
		ssize_t n = ioc_get_suinfo(d->iocfd, segnum, si + segnum,
					   nsegs - segnum < SUINFO_BATCH ? nsegs - segnum
									 : SUINFO_BATCH);

		if (n < 0) {
			say(LOG_ERR, "cannot read segment usage (GET_SUINFO): %s",
			    strerror((int)-n));
			res->error = (int)n;
			goto out;
		}
		if (n == 0) {
			nsegs = segnum;
			break;
		}
		segnum += (uint64_t)n;
	}
	for (uint64_t segnum = 0; segnum < nsegs; segnum++) {
		const struct nilfs_suinfo *x = &si[segnum];
		int64_t lastmod = (int64_t)x->sui_lastmod;
		int64_t imp;
		struct seginfo *s;

		if (!nilfs_suinfo_dirty(x)) {
			seginfo_reset(d, &d->seg[segnum]);
			continue;
		}
		if (nilfs_suinfo_active(x) || nilfs_suinfo_error(x))
			continue;
		s = seginfo_for(d, segnum, x);
		if (s->bad >= BAD_LIMIT)
			continue;
		/* a segment written by the cleaner after the last ordinary write
		 * holds nothing new to reclaim (unless in an emergency).  Times
		 * are whole seconds: a segment of the same second as that write
		 * may be its own, so only later ones are skipped (nilfs-utils
		 * skips those too and leaves a burst that ends within one
		 * second uncleaned until the next write) */
		imp = lastmod <= (int64_t)now ? lastmod : (int64_t)sus->ss_nongc_ctime - 1;
		if (imp > (int64_t)sus->ss_nongc_ctime && !p->emergency)
			continue;
		if (!(lastmod < (int64_t)prottime || lastmod > (int64_t)now)) {
			uint64_t when = (uint64_t)lastmod + pp + 1;

			if (!res->next_eligible || when < res->next_eligible)
				res->next_eligible = when;
			continue;
		}
		cand[ncand++] = (struct nlfs_gc_candidate){
			.segnum = segnum, .lastmod = x->sui_lastmod, .nblocks = x->sui_nblocks,
			.live = x->sui_nblocks == 0 ? 0 : s->live,
		};
	}
	res->ncand = ncand;
	if (ncand == 0)
		goto out;

	rc = load_snapshots(d);
	if (!rc)
		rc = find_protcno(d, prottime, &protcno);
	if (rc) {
		say(LOG_ERR, "cannot read checkpoints (GET_CPINFO): %s", strerror(-rc));
		res->error = rc;
		goto out;
	}
	prot = (struct nlfs_gc_protect){ .snapshots = d->snapshots,
					 .nsnapshots = d->nsnapshots, .protcno = protcno };
	say(LOG_DEBUG, "%zu candidates, protcno %" PRIu64 ", %zu snapshots, protseq %llu, "
	    "last ordinary write %llu",
	    ncand, protcno, d->nsnapshots, (unsigned long long)sus->ss_prot_seq,
	    (unsigned long long)sus->ss_nongc_ctime);

	/* greedy and cost-benefit rank on live counts: evaluate those not
	 * known or known for too long, a bounded number per pass */
	if (p->policy != NLFS_GC_TIMESTAMP) {
		uint64_t t = mono_ns();

		for (int round = 0; round < 2; round++) {
			size_t budget = round == 0 ? EVAL_BUDGET : EVAL_REFRESH;

			for (size_t i = 0; i < ncand; i++) {
				struct seginfo *s = &d->seg[cand[i].segnum];
				bool unknown = s->live == NLFS_GC_LIVE_UNKNOWN;

				if (cand[i].nblocks == 0 || (round == 0) != unknown)
					continue;
				if (!unknown && t - s->evaluated < EVAL_MAX_AGE)
					continue;
				if (!budget && (unknown || !s->have_refs))
					continue;
				if (!unknown && s->have_refs) {
					/* cheap: no budget */
					rc = recount_live(d, s, &prot);
					if (rc && rc != -ENOMEM)
						rc = describe_segment(d, cand[i].segnum,
								      &si[cand[i].segnum], s, &prot,
								      protseq);
				} else {
					budget--;
					rc = describe_segment(d, cand[i].segnum, &si[cand[i].segnum], s,
							      &prot, protseq);
				}
				if (rc == -ENOMEM) {
					res->error = rc;
					goto out;
				}
				cand[i].live = s->live;
			}
		}
	}
	for (size_t i = 0; i < ncand; i++) {
		const struct seginfo *s = &d->seg[cand[i].segnum];

		cand[i].held = s->have_seq && (int64_t)(s->seq - protseq) >= 0;
	}
	nlfs_gc_rank(p->policy, cand, ncand, now, d->rd.blocks_per_segment);
	/* the best victims are often the segments written last (hot data,
	 * mostly dead already), which the kernel keeps for recovery until it
	 * writes its superblocks: ask for that write rather than clean worse
	 * segments, at most once per SB_WRITE_GAP */
	if (nlfs_gc_held_in_first(cand, ncand, p->nsegments) &&
	    (!d->last_sb_write || mono_ns() - d->last_sb_write >= SB_WRITE_GAP)) {
		struct nilfs_sustat now_sus;

		d->last_sb_write = mono_ns();
		rc = cld_shrink_protected_region(d);
		if (!rc)
			rc = ioc_get_sustat(d->iocfd, &now_sus);
		if (rc) {
			say(LOG_NOTICE, "cannot have the superblocks written (syncfs): %s",
			    strerror(-rc));
		} else {
			say(LOG_DEBUG, "a segment held for recovery ranks among the victims: "
			    "superblocks written, protseq %" PRIu64 " -> %llu", protseq,
			    (unsigned long long)now_sus.ss_prot_seq);
			protseq = now_sus.ss_prot_seq;
		}
	}

	/* after a failure of several segments together, one at a time */
	nper = d->isolate ? 1 : p->nsegments;
	max_examine = (size_t)p->nsegments * 4 + 8;
	for (size_t i = 0; i < ncand && d->plan.nsegs + ndeferred < nper &&
			   examined < max_examine; i++) {
		uint64_t segnum = cand[i].segnum;
		struct seginfo *s = &d->seg[segnum];
		uint32_t reclaimable;

		/* all live (known recently): copying it would win nothing */
		if (s->live != NLFS_GC_LIVE_UNKNOWN && s->live >= segment_capacity(d, segnum) &&
		    mono_ns() - s->evaluated < EVAL_MAX_AGE)
			continue;
		examined++;
		rc = describe_segment(d, segnum, &si[segnum], s, &prot, protseq);
		if (rc == CLD_SEG_PROTECTED) {
			res->protected_seq++;
			continue;
		}
		if (rc == -ENOMEM || (rc < 0 && rc != -EBADMSG)) {
			res->error = rc;
			break;
		}
		if (rc)
			continue;
		reclaimable = segment_capacity(d, segnum) -
			(uint32_t)(cld_plan_live(&d->tmp) < segment_capacity(d, segnum)
					   ? cld_plan_live(&d->tmp) : segment_capacity(d, segnum));
		if (reclaimable == 0)
			continue;
		if (p->min_reclaimable && reclaimable < p->min_reclaimable && si[segnum].sui_nblocks &&
		    d->cfg.use_set_suinfo && !d->set_suinfo_broken && !p->emergency) {
			say(LOG_DEBUG, "segment %" PRIu64 ": %u reclaimable blocks, fewer than %u: "
			    "deferred", segnum, reclaimable, p->min_reclaimable);
			deferred[ndeferred++] = segnum;
			continue;
		}
		say(LOG_DEBUG, "victim %" PRIu64 ": %zu live of %u, written %lld s ago, rank %zu "
		    "of %zu", segnum, cld_plan_live(&d->tmp), si[segnum].sui_nblocks,
		    (long long)now - (long long)si[segnum].sui_lastmod, i, ncand);
		rc = cld_plan_merge(&d->plan, &d->tmp);
		if (rc) {
			res->error = rc;
			break;
		}
	}
	if (ndeferred) {
		defer_segments(d, deferred, ndeferred);
		res->deferred = ndeferred;
		d->st.deferred += ndeferred;
	}
	if (d->plan.nsegs && !res->error)
		submit_plan(d, res);
	d->st.protected_seq += res->protected_seq;
out:
	free(si);
	free(cand);
}

uint64_t cld_count_reclaimable(struct cleanerd *d, uint64_t nsegs)
{
	struct nilfs_suinfo si[SUINFO_BATCH];
	uint64_t n = 0;

	for (uint64_t seg = 0; seg < nsegs; ) {
		ssize_t got = ioc_get_suinfo(d->iocfd, seg, si,
					     nsegs - seg < SUINFO_BATCH ? nsegs - seg : SUINFO_BATCH);

		if (got <= 0)
			break;
		for (ssize_t i = 0; i < got; i++)
			n += nilfs_suinfo_dirty(&si[i]) && !nilfs_suinfo_active(&si[i]) &&
			     !nilfs_suinfo_error(&si[i]);
		seg += (uint64_t)got;
	}
	return n;
}

