/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * repair_meta.c - the structures every checkpoint shares, mended inside
 * repair.c's construction: the cpfile's entries and snapshot list, the
 * segment usage, segments whose logs break the chain, and the superblock
 * fields the construction writes to both copies.
 *
 * The rules that decide, in order of the harm a wrong guess does:
 *  - a segment is never made clean, nor its count cut, while a DAT entry
 *    points into what would be given up;
 *  - a checkpoint the snapshot list names stays a snapshot;
 *  - a segment whose logs break the sequence chain is emptied the way the
 *    cleaner empties one (every block any checkpoint can reach moved to
 *    the new logs), so nothing depends on its summaries any more.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <nlfs/endian.h>
#include <nlfs/gc.h>
#include <nlfs/repair.h>
#include "fsck.h"

#define SU_KNOWN (NLFS_SEGMENT_USAGE_ACTIVE | NLFS_SEGMENT_USAGE_DIRTY | NLFS_SEGMENT_USAGE_ERROR)

static bool found(const struct fsck *c, enum fsck_pr code)
{
	return c->pr_count[code] != 0;
}

static bool any_found(const struct fsck *c, const enum fsck_pr *codes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (found(c, codes[i]) && fix_is_repairable(codes[i], c->o.mode == MODE_PREEN))
			return true;
	return false;
}

#define ANY(c, ...) any_found(c, (const enum fsck_pr[]){ __VA_ARGS__ }, \
			      sizeof((const enum fsck_pr[]){ __VA_ARGS__ }) / sizeof(enum fsck_pr))

static bool cpfile_damaged(const struct fsck *c)
{
	return ANY(c, PR_CP_ENTRY, PR_CP_SNAPLIST, PR_CP_IFILE, PR_CP_LATEST, PR_CP_NCHECKPOINTS,
		   PR_CP_NSNAPSHOTS, PR_CP_BLKCOUNT);
}

/* a segment in use marked ERROR whose logs all check out */
static bool error_flag_clearable(const struct fsck *c)
{
	if (!ANY(c, PR_SU_ERRSEG))
		return false;
	for (uint64_t seg = 0; seg < c->g->nsegments; seg++) {
		const struct fsck_seg *s = &c->segs[seg];

		if ((s->su_flags & NLFS_SEGMENT_USAGE_ERROR) &&
		    (s->su_flags & NLFS_SEGMENT_USAGE_DIRTY) && !s->truncated &&
		    s->logs_end >= s->su_nblocks)
			return true;
	}
	return false;
}

static bool sufile_damaged(const struct fsck *c)
{
	return ANY(c, PR_SU_FLAGS, PR_SU_NBLOCKS, PR_SU_CLEAN, PR_SU_CURRENT, PR_SU_NEXT,
		   PR_SU_SHORT, PR_LOG_OVERRUN) || error_flag_clearable(c) ||
	       (ANY(c, PR_DAT_OUTSIDE, PR_DAT_PTR) && c->fix.nseg_live);
}

static bool chain_damaged(const struct fsck *c)
{
	return ANY(c, PR_SEG_SEQ_DUP, PR_SEG_CHAIN, PR_SEG_SEQ_NEWER) && c->fix.nrelocate;
}

bool repair_meta_needed(const struct fsck *c)
{
	return cpfile_damaged(c) || sufile_damaged(c) || chain_damaged(c) ||
	       ANY(c, PR_SB_STATE, PR_SB_STATE_BITS, PR_SB_DEVSIZE, PR_SB_OTHER_CURSOR);
}

const char *repair_meta_refused(const struct fsck *c)
{
	static char why[160];
	uint64_t ro, in;

	if (!c->sb)
		return NULL;   /* no superblock: nothing is written anyway */
	if (c->pr_count[PR_MDT_LOST])
		return rollback_possible(c->o.device) ?
		       "a metadata file of the super root has lost its block map, and a "
		       "repair would write the volume's state without it; 'fsck.nilfs2 -y "
		       "--rollback' would go back to an older super root" :
		       "a metadata file of the super root has lost its block map, and a "
		       "repair would write the volume's state without it (no older super "
		       "root holds up to roll back to)";
	ro = nlfs_le64(c->sb->s_feature_compat_ro) & ~NLFS_FEATURE_COMPAT_RO_SUPP;
	in = nlfs_le64(c->sb->s_feature_incompat) & ~NLFS_FEATURE_INCOMPAT_SUPP;
	if (!ro && !in)
		return NULL;
	snprintf(why, sizeof(why), "the volume has features this program does not know "
		 "(read-only compat 0x%" PRIx64 ", incompat 0x%" PRIx64 "): writing to it could "
		 "break what they describe", ro, in);
	return why;
}

/* ---- cpfile ---- */

struct cp_report {
	struct fsck *c;
	uint64_t n;
};

static void cp_fixed(void *arg, enum nlfs_cp_fix what, uint64_t cno, uint64_t value)
{
	struct cp_report *r = arg;
	struct fsck *c = r->c;

	r->n++;
	switch (what) {
	case NLFS_CP_FIX_FUTURE:
		fsck_info(c, "repair: checkpoint %" PRIu64 ": invalidated (past the latest "
			  "checkpoint %" PRIu64 ", no construction made it)", cno, value);
		break;
	case NLFS_CP_FIX_CNO:
		fsck_info(c, "repair: checkpoint %" PRIu64 ": cp_cno %" PRIu64 " -> %" PRIu64, cno,
			  value, cno);
		break;
	case NLFS_CP_FIX_FLAGS:
		fsck_info(c, "repair: checkpoint %" PRIu64 ": unknown flags 0x%" PRIx64 " cleared",
			  cno, value);
		break;
	case NLFS_CP_FIX_IFILE:
		fsck_info(c, "repair: checkpoint %" PRIu64 ": ifile inode (mode 0%" PRIo64 ", %"
			  PRIu64 " links) made a regular file with a link (its block map kept)", cno,
			  value & 0xffff, value >> 16);
		break;
	case NLFS_CP_FIX_SNAPSHOT:
		fsck_info(c, "repair: checkpoint %" PRIu64 ": named by the snapshot list, its "
			  "snapshot flag set again (kept a snapshot)", cno);
		break;
	case NLFS_CP_FIX_LIST:
		fsck_info(c, "repair: snapshot list relinked over %" PRIu64 " snapshot(s), in "
			  "checkpoint order", value);
		break;
	case NLFS_CP_FIX_BLOCK:
		fsck_info(c, "repair: cpfile block %" PRIu64 ": no valid checkpoint left, dropped",
			  value);
		break;
	}
}

static int mend_cpfile(struct fsck *c, struct nlfs_writer *w, uint64_t *nfixes,
		       struct nlfs_err *err)
{
	struct cp_report r = { .c = c };
	uint64_t n = 0;
	int rc = nlfs_writer_mend_cpfile(w, cp_fixed, &r, err);

	if (!rc)
		rc = nlfs_writer_fix_cpfile(w, &n, err);
	if (rc)
		return rc;
	if (found(c, PR_CP_LATEST))
		fsck_info(c, "repair: checkpoint %" PRIu64 ": valid again (its entry is whole; "
			  "only its INVALID flag was set)", c->latest_cno);
	if (n)
		fsck_info(c, "repair: cpfile: %" PRIu64 " count(s) recounted from the checkpoint "
			  "entries", n);
	*nfixes += r.n + n + (found(c, PR_CP_LATEST) ? 1 : 0);
	return 0;
}

/* ---- sufile ---- */

static bool noted_live(const struct fsck *c, uint64_t seg)
{
	for (size_t i = 0; i < c->fix.nseg_live; i++)
		if (c->fix.seg_live[i] == seg)
			return true;
	return false;
}

/* a block a DAT entry points at in [FROM, TO) of the device */
static bool live_between(const struct fsck *c, uint64_t from, uint64_t to)
{
	return from < to && fsck_bitmap_next(&c->datphys, from) < to;
}

struct seg_want {
	uint32_t flags, nblocks;
	const char *why;
};

/* what segment SEG's usage should be, given what it is (SU) */
static int want_usage(struct fsck *c, struct nlfs_fs *fs, uint64_t seg,
		      const struct nlfs_suinfo *su, uint64_t cur, uint64_t next,
		      struct seg_want *want, struct nlfs_err *err)
{
	const struct nlfs_geometry *g = c->g;
	const struct fsck_seg *s = &c->segs[seg];
	const struct nlfs_recovery *rec = nlfs_fs_recovery(fs);
	uint64_t start = nlfs_seg_start(g, seg), size = nlfs_seg_end(g, seg) + 1 - start;
	uint32_t fl = su->flags & SU_KNOWN, n = su->nblocks, le;
	int rc;

	want->flags = fl;
	want->nblocks = n;
	want->why = "";
	if (!(fl & NLFS_SEGMENT_USAGE_DIRTY)) {
		bool live = noted_live(c, seg);

		if (seg != cur && seg != next && !live) {
			/* the kernel marks a segment it failed to write ERROR so as
			 * never to use it again: without logs to check, that stays */
			want->flags = fl & NLFS_SEGMENT_USAGE_ERROR;
			want->nblocks = 0;
			want->why = want->flags ? "no block in it is in use; kept out of use"
						: "no block in it is in use";
			return 0;
		}
		rc = nlfs_segment_logs_end(fs, seg, &le, err);
		if (rc)
			return rc;
		if (live && le == 0 && seg != cur && seg != next) {
			fsck_info(c, "left alone: segment %" PRIu64 ": DAT entries point into it, but "
				  "it holds no valid log", seg);
			return 0;
		}
		want->flags = NLFS_SEGMENT_USAGE_DIRTY | (fl & NLFS_SEGMENT_USAGE_ERROR);
		want->nblocks = le;
		want->why = seg == next ? "the kernel writes there next" :
			    live ? "DAT entries point into its logs" : "the latest super root is there";
	} else if (s->nlogs || s->truncated) {
		uint64_t hi = n < size ? n : size;

		le = s->logs_end;
		if (le >= hi) {
			want->nblocks = le;
			want->why = "its logs reach that far";
		} else if (!noted_live(c, seg) && !live_between(c, start + le, start + hi)) {
			/* nothing past the break is in use: the count may end there */
			want->nblocks = le;
			want->why = "its valid logs end there and no block past them is in use";
		} else {
			want->nblocks = (uint32_t)hi;
			if (n > hi)
				want->why = "the segment ends there";
			else
				fsck_info(c, "left alone: segment %" PRIu64 ": its logs end at block %"
					  PRIu64 ", but blocks in use lie past that up to su_nblocks %u",
					  seg, start + le, n);
		}
		if ((fl & NLFS_SEGMENT_USAGE_ERROR) && !s->truncated && le >= hi) {
			want->flags &= ~NLFS_SEGMENT_USAGE_ERROR;
			want->why = "its logs check clean";
		}
	}
	if (seg == cur && want->nblocks < rec->sr_block + 1 - start) {
		want->nblocks = (uint32_t)(rec->sr_block + 1 - start);
		want->why = "the latest super root is there";
	}
	return 0;
}

static int mend_sufile(struct fsck *c, struct nlfs_fs *fs, struct nlfs_writer *w,
		       uint64_t *nfixes, struct nlfs_err *err)
{
	const struct nlfs_geometry *g = c->g;
	const struct nlfs_recovery *rec = nlfs_fs_recovery(fs);
	uint64_t cur = rec->sr_log / g->blocks_per_segment, next = g->nsegments, n = 0, nf = 0;
	struct nlfs_log log;
	int rc;

	if (!nlfs_log_read(fs, rec->sr_log, &log, NULL, 0, err))
		next = log.next / g->blocks_per_segment;
	for (uint64_t seg = 0; seg < g->nsegments; seg++) {
		struct nlfs_suinfo su;
		struct seg_want want;

		rc = nlfs_sufile_get(fs, seg, &su, err);
		if (!rc)
			rc = want_usage(c, fs, seg, &su, cur, next, &want, err);
		if (rc)
			return rc;
		if (want.flags == su.flags && want.nblocks == su.nblocks)
			continue;
		if (!su.flags && !want.flags)
			continue;   /* a clean entry's stale counts: nlfs_writer_fix_sufile */
		rc = nlfs_writer_set_segusage(w, seg, want.flags, want.nblocks, err);
		if (rc)
			return rc;
		fsck_info(c, "repair: segment %" PRIu64 ": usage flags 0x%x -> 0x%x, su_nblocks %u "
			  "-> %u (%s)", seg, su.flags, want.flags, su.nblocks, want.nblocks,
			  want.why);
		nf++;
	}
	rc = nlfs_writer_fix_sufile(w, &n, err);
	if (rc)
		return rc;
	if (n)
		fsck_info(c, "repair: sufile: %" PRIu64 " field(s) recounted from the segment usage "
			  "entries", n);
	*nfixes += nf + n;
	return 0;
}

/* ---- segments whose logs break the chain ---- */

static int relocate(struct fsck *c, struct nlfs_fs *fs, struct nlfs_writer *w, uint64_t *nfixes,
		    struct nlfs_err *err)
{
	uint64_t cur = nlfs_fs_recovery(fs)->sr_log / c->g->blocks_per_segment;
	/* every checkpoint protected: the cleaner's rules then move every
	 * block any checkpoint reaches and free only what none can */
	struct nlfs_gc_protect keep_all = { .protcno = 0 };

	for (size_t i = 0; i < c->fix.nrelocate; i++) {
		uint64_t seg = c->fix.relocate[i];
		struct nlfs_gc_stats st = { 0 };
		int rc;

		if (seg == cur) {
			/* the chain is read back from the latest super root: its
			 * segment is the one that is right */
			fsck_info(c, "left alone: segment %" PRIu64 ": it holds the latest super root",
				  seg);
			continue;
		}
		rc = nlfs_writer_gc_segment(w, seg, &keep_all, &st, err);
		if (rc == -EBUSY) {
			fsck_info(c, "left alone: segment %" PRIu64 ": the log writer continues in it",
				  seg);
			continue;
		}
		if (rc)
			return rc;
		fsck_info(c, "repair: segment %" PRIu64 ": its %" PRIu64 " block(s) in use moved to "
			  "the new logs; it is clean now", seg, st.blocks_moved);
		(*nfixes)++;
	}
	return 0;
}

/* ---- superblock ---- */

/* Every error found other than the kernel's error flag itself can be
 * repaired: then the check is the full check the flag asks for. */
static bool only_repairable_errors(const struct fsck *c)
{
	for (int i = 0; i < PR_COUNT; i++)
		if (c->pr_count[i] && i != PR_SB_STATE && fsck_problems[i].severity == SEV_ERROR &&
		    !fix_is_repairable((enum fsck_pr)i, c->o.mode == MODE_PREEN))
			return false;
	return true;
}

static void mend_sb(struct fsck *c, struct nlfs_writer *w, uint64_t *nfixes)
{
	uint16_t state = nlfs_le16(c->sb->s_state);
	uint16_t unknown = state & (uint16_t)~(NLFS_STATE_VALID_FS | NLFS_STATE_ERROR_FS |
					       NLFS_STATE_RESIZE_FS);

	if (found(c, PR_SB_STATE) && fix_is_repairable(PR_SB_STATE, c->o.mode == MODE_PREEN)) {
		if (only_repairable_errors(c)) {
			nlfs_writer_sb_state(w, NLFS_STATE_ERROR_FS);
			fsck_info(c, "repair: superblocks: the kernel's error flag cleared (the "
				  "check it asks for was made)");
			(*nfixes)++;
		} else {
			fsck_info(c, "left alone: the kernel's error flag: errors are left that no "
				  "repair exists for");
		}
	}
	if (found(c, PR_SB_STATE_BITS) && unknown) {
		nlfs_writer_sb_state(w, unknown);
		fsck_info(c, "repair: superblocks: unknown state bits 0x%04x cleared", unknown);
		(*nfixes)++;
	}
	if (found(c, PR_SB_DEVSIZE) && fix_is_repairable(PR_SB_DEVSIZE, c->o.mode == MODE_PREEN)) {
		if (nlfs_writer_sb_devsize(w)) {
			fsck_info(c, "repair: superblocks: s_dev_size %" PRIu64 " -> %" PRIu64
				  " (every segment lies inside the device)",
				  nlfs_le64(c->sb->s_dev_size), c->devsize);
			(*nfixes)++;
		} else {
			fsck_info(c, "left alone: s_dev_size: segments lie past the end of the "
				  "device (was it cut short?)");
		}
	}
	if (found(c, PR_SB_OTHER_CURSOR)) {
		fsck_info(c, "repair: superblocks: both copies rewritten from the one in use");
		(*nfixes)++;
	}
	/* the writer's superblocks count the free blocks as the kernel does */
	if (found(c, PR_SB_FREE)) {
		fsck_info(c, "repair: superblocks: s_free_blocks_count set from the clean segments");
		(*nfixes)++;
	}
}

int repair_meta(struct fsck *c, struct nlfs_fs *fs, struct nlfs_writer *w, uint64_t *nfixes,
		struct nlfs_err *err)
{
	int rc = 0;

	if (cpfile_damaged(c))
		rc = mend_cpfile(c, w, nfixes, err);
	if (!rc && sufile_damaged(c))
		rc = mend_sufile(c, fs, w, nfixes, err);
	if (!rc && chain_damaged(c))
		rc = relocate(c, fs, w, nfixes, err);
	if (!rc)
		mend_sb(c, w, nfixes);
	return rc;
}
