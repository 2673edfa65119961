/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * repair.c - the repairs made through the library's writer: one
 * construction, one new checkpoint, so a crash at any write leaves the
 * volume as the check found it or as repaired.
 *
 * What is repaired comes from two places: the problem counts (counters
 * are recomputed from what they count, whatever the check printed) and
 * the passes' notes (which inode needs which link count, which directory
 * entry is wrong, which inodes no directory reaches).  Inodes nothing
 * reaches are linked into /lost+found as "#INO", made if it is missing,
 * as e2fsck does.  Directories, lost+found and the root are rewritten by
 * repair_dir.c, inodes set right or cleared by repair_inode.c; what
 * cannot be kept is named in the messages.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <nlfs/endian.h>
#include <nlfs/repair.h>
#include "repairP.h"

/* ---- counters ---- */

/* Did some block map or directory fail to be walked?  Then "unused" DAT
 * entries may be the blocks those maps lost, and stay. */
static bool maps_damaged(const struct fsck *c)
{
	static const enum fsck_pr codes[] = {
		PR_BMAP_STRUCT, PR_BMAP_ORDER, PR_BMAP_VBLOCK, PR_BMAP_PERIOD, PR_BMAP_SHARED,
		PR_CP_IFILE, PR_MDT_INODE,
	};

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (repair_found(c, codes[i]))
			return true;
	/* inodes lost with an ifile block are freed by -y only: until then
	 * what they map is theirs */
	return repair_found(c, PR_IFILE_HOLE) && c->o.mode == MODE_PREEN;
}

static int fix_counters(struct repair *r)
{
	struct fsck *c = r->c;
	uint64_t n = 0;
	int rc;

	if (repair_found(c, PR_SU_NCLEAN) || repair_found(c, PR_SU_NDIRTY) ||
	    repair_found(c, PR_SU_LAST_ALLOC) || repair_found(c, PR_SU_CLEAN)) {
		rc = nlfs_writer_fix_sufile(r->w, &n, &r->err);
		if (rc)
			return repair_lib_failed(r, rc, "recounting the sufile");
		repair_done(r, n, "sufile: %" PRIu64 " field(s) recounted from the segment usage entries", n);
	}
	if (repair_found(c, PR_CP_NCHECKPOINTS) || repair_found(c, PR_CP_NSNAPSHOTS) ||
	    repair_found(c, PR_CP_BLKCOUNT)) {
		n = 0;
		rc = nlfs_writer_fix_cpfile(r->w, &n, &r->err);
		if (rc)
			return repair_lib_failed(r, rc, "recounting the cpfile");
		repair_done(r, n, "cpfile: %" PRIu64 " count(s) recounted from the checkpoint entries", n);
	}
	if (repair_found(c, PR_DAT_DESC)) {
		n = 0;
		rc = nlfs_writer_fix_palloc(r->w, NLFS_DAT_INO, &n, &r->err);
		if (rc)
			return repair_lib_failed(r, rc, "recounting the DAT's group descriptors");
		repair_done(r, n, "DAT: %" PRIu64 " group descriptor(s) recounted from the bitmaps", n);
	}
	if (repair_found(c, PR_IFILE_RESERVED)) {
		n = 0;
		rc = nlfs_writer_fix_reserved_inodes(r->w, &n, &r->err);
		if (rc)
			return repair_lib_failed(r, rc, "marking the reserved inodes");
		repair_done(r, n, "ifile: %" PRIu64 " reserved inode(s) marked in use", n);
	}
	if (repair_found(c, PR_IFILE_DESC) || repair_found(c, PR_IFILE_RESERVED)) {
		n = 0;
		rc = nlfs_writer_fix_palloc(r->w, NLFS_IFILE_INO, &n, &r->err);
		if (rc)
			return repair_lib_failed(r, rc, "recounting the ifile's group descriptors");
		repair_done(r, n, "ifile: %" PRIu64 " group descriptor(s) recounted from the bitmaps", n);
	}
	return 0;
}

/* live DAT entries no file of the latest checkpoint uses */
static int end_leaks(struct repair *r)
{
	struct fsck *c = r->c;
	int rc;

	if (c->fix.nleaks && r->nrevived)
		return 0;   /* the revived inodes may use them: the next round sees */
	if (c->fix.nleaks && maps_damaged(c) && !fsck_test_break("end-leaks")) {
		fsck_info(c, "left alone: %zu live DAT entr%s no file uses; block maps are damaged, "
			  "and these may be what they lost", c->fix.nleaks,
			  c->fix.nleaks == 1 ? "y" : "ies");
		return 0;
	}
	for (size_t i = 0; i < c->fix.nleaks; i++) {
		rc = nlfs_writer_end_vblock(r->w, c->fix.leaks[i], &r->err);
		if (rc)
			return repair_lib_failed(r, rc, "ending a leaked DAT entry");
	}
	repair_done(r, c->fix.nleaks, "DAT: %zu live entr%s no file uses now end at checkpoint %" PRIu64
	     " (older checkpoints keep them)", c->fix.nleaks, c->fix.nleaks == 1 ? "y" : "ies",
	     nlfs_writer_cno(r->w));
	return 0;
}

/* ---- roll-forward ---- */

/* What the kernel's mount would do: data-sync logs after the super root
 * put back into their files.  Done before anything else changes files, so
 * the notes of the check (made on the rolled-forward view) still hold.
 * This is recovery, not a correction (as e2fsck's journal replay): it
 * does not count among the repairs. */
static int roll_forward(struct repair *r)
{
	const struct nlfs_recovery *rec = nlfs_fs_recovery(r->fs);
	uint64_t nfiles, nblocks;
	int rc = nlfs_writer_roll_forward(r->w, &nfiles, &nblocks, &r->err);

	if (rc)
		return repair_lib_failed(r, rc, "rolling forward");
	fsck_info(r->c, "recovery: replayed %" PRIu64 " log(s) after checkpoint %" PRIu64
		  " (super root at block %" PRIu64 "), as the kernel's mount would: %" PRIu64
		  " block(s) of %" PRIu64 " file(s) rolled forward", rec->nlogs_after_sr, rec->cno,
		  rec->sr_log, nblocks, nfiles);
	return 0;
}

/* ---- the construction ---- */

static bool needs_construction(const struct fsck *c)
{
	static const enum fsck_pr codes[] = {
		PR_SB_READ, PR_SB_MAGIC, PR_SB_BYTES, PR_SB_CRC, PR_SB_CURSOR, PR_SB_GEOMETRY,
		PR_SB_REVISION, PR_SB_MISMATCH, PR_SB_STALE_COPY, PR_SB_FREE, PR_SU_NCLEAN, PR_SU_NDIRTY, PR_SU_LAST_ALLOC, PR_SU_CLEAN,
		PR_CP_NCHECKPOINTS, PR_CP_NSNAPSHOTS, PR_CP_BLKCOUNT, PR_CP_NINODES,
		PR_CP_NBLOCKS, PR_DAT_DESC, PR_IFILE_DESC, PR_IFILE_RESERVED, PR_IFILE_FREE_BIT, PR_IFILE_HOLE, PR_MDT_SIZE, PR_INO_BLOCKS,
		PR_DAT_LEAK, PR_INO_LINKS, PR_INO_UNATTACHED, PR_INO_ORPHAN, PR_DIR_FREE_INODE,
		PR_DIR_TYPE, PR_DIR_ROOT, PR_DIR_RECORD, PR_DIR_HOLE, PR_DIR_DOT, PR_DIR_DOTDOT,
		PR_DIR_NAME, PR_DIR_DUP, PR_DIR_LINKED, PR_INO_MODE, PR_INO_SIZE,
		/* repair_map.c */
		PR_BMAP_STRUCT, PR_BMAP_ORDER, PR_BMAP_DIRECT, PR_BMAP_VBLOCK, PR_BMAP_PERIOD,
		PR_BMAP_SHARED, PR_DAT_PTR, PR_DAT_UNCLAIMED_BLOCK, PR_DAT_HOLE, PR_DAT_ENTRY0,
		PR_DAT_RANGE, PR_DAT_NOADDR, PR_DAT_OUTSIDE, PR_DAT_UNCLAIMED, PR_DAT_SHARED,
		PR_LOG_VFREE, PR_LOG_VSTALE, PR_LOG_FINFO, PR_LOG_BINFO,
		PR_LOG_HEADER, PR_LOG_SUMSUM, PR_LOG_DATASUM, PR_LOG_SEQ, PR_LOG_NEXT, PR_LOG_FLAGS, PR_LOG_CNO,
		PR_LOG_SR, PR_MDT_INODE,
	};

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (repair_found(c, codes[i]) &&
		    fix_is_repairable(codes[i], c->o.mode == MODE_PREEN))
			return true;
	return repair_meta_needed(c);
}

static void free_repair(struct repair *r)
{
	for (size_t i = 0; i < r->nedits; i++)
		free(r->edits[i].adds);
	free(r->edits);
	free(r->revived);
	nlfs_writer_free(r->w);
}

/* the superblocks: the construction ends by writing both copies from
 * the one in use */
static void note_superblocks(struct repair *r)
{
	struct fsck *c = r->c;

	if (repair_found(c, PR_SB_READ) || repair_found(c, PR_SB_MAGIC) ||
	    repair_found(c, PR_SB_BYTES) || repair_found(c, PR_SB_CRC) ||
	    repair_found(c, PR_SB_CURSOR) || repair_found(c, PR_SB_GEOMETRY) ||
	    repair_found(c, PR_SB_REVISION) || repair_found(c, PR_SB_MISMATCH) ||
	    repair_found(c, PR_SB_STALE_COPY)) {
		const struct nlfs_sb_choice *ch = nlfs_fs_sb_choice(r->fs);

		repair_done(r, 1, "superblocks: both copies rewritten from the %s, pointing at the new "
		     "checkpoint", ch->used == NLFS_SB_PRIMARY ? "primary" : "secondary");
	}
}

/* block maps, DAT entries and segments with damaged summaries (not under
 * -p); *REMAPPED says whether they changed anything */
static int mend_maps(struct repair *r, bool *remapped)
{
	struct fsck *c = r->c;
	uint64_t before = r->nfixes;
	int rc;

	rc = repair_map_dat(c, r->fs, r->w, &r->nfixes, &r->err);
	if (rc)
		rc = repair_lib_failed(r, rc, "mending block maps and DAT entries");
	if (!rc) {
		rc = repair_logs(c, r->fs, r->w, &r->nfixes, &r->err);
		if (rc)
			rc = repair_lib_failed(r, rc, "giving up segments with damaged summaries");
	}
	/* what the check said of directories, links and block counts
	 * was seen through the damaged maps: the check after these
	 * repairs says it again, truly */
	*remapped = r->nfixes != before;
	if (*remapped && (c->fix.ndirents || c->fix.ndetached || c->fix.nlinks ||
			  c->fix.nblocks))
		fsck_info(c, "directory and inode repairs wait for the check after these "
			  "repairs (block maps and DAT entries changed)");
	return rc;
}

/* leaked DAT entries, directories, lost+found, inodes and the checkpoint's
 * counts, as the check saw them (after maps were REMAPPED, only what
 * does not wait for the check after these repairs) */
static int mend_tree(struct repair *r, bool preen, bool remapped)
{
	struct fsck *c = r->c;
	int rc = 0;

	if (!preen && !remapped)
		rc = repair_plan_dirents(r);
	if (!rc && (!remapped || fsck_test_break("end-leaks")))
		rc = end_leaks(r);
	if (!rc && !remapped)
		rc = repair_clear_inodes(r);   /* under -p, only empty records */
	if (!rc && !preen && !remapped)
		rc = repair_ifile_far(r);
	if (!rc && !preen && !remapped)
		rc = repair_plan_detached(r);
	if (!rc && !remapped)
		rc = repair_write_dirs(r);
	if (!rc && !remapped)
		rc = repair_inodes(r);
	/* the counts the check made are the truth the construction's own
	 * changes (cleared inodes, rewritten directories) start from; after
	 * maps were mended, the check after these repairs counts again */
	if (!rc && !remapped && c->fix.cp_counts_known) {
		nlfs_writer_set_counts(r->w, c->fix.cp_ninodes, c->fix.cp_nblocks);
		if (repair_found(c, PR_CP_NINODES) || repair_found(c, PR_CP_NBLOCKS))
			repair_done(r, 1, "checkpoint %" PRIu64 ": inode and block counts taken from its files",
			     c->latest_cno);
	}
	return rc;
}

/* the construction written as one new checkpoint, if it holds anything
 * (repairs, or the logs REPLAYED) */
static int commit_repairs(struct repair *r, bool replayed, bool *changed)
{
	struct fsck *c = r->c;
	int rc;

	if (!r->nfixes && !replayed) {
		fsck_info(c, "nothing the repairs could change");
		return 0;
	}
	rc = nlfs_writer_commit(r->w, &r->err);
	if (rc)
		return repair_lib_failed(r, rc, "writing the repairs");
	*changed = true;
	if (r->nfixes)
		c->corrected = true;
	if (!c->repair_cno)
		c->repair_cno = nlfs_writer_cno(r->w);
	fsck_info(c, "%s written as checkpoint %" PRIu64, r->nfixes ? "repairs" : "recovery",
		  nlfs_writer_cno(r->w));
	return 0;
}

int repair_volume(struct fsck *c, struct nlfs_io *io, bool *changed)
{
	struct repair r = { .c = c };
	bool preen = c->o.mode == MODE_PREEN, remapped = false, replayed = false;
	int rc;

	*changed = false;
	if (!needs_construction(c) && !repair_found(c, PR_RECOVERY))
		return 0;
	if (repair_meta_refused(c)) {
		fsck_info(c, "not repaired: %s", repair_meta_refused(c));
		return 0;
	}
	r.now = (uint64_t)time(NULL);
	rc = nlfs_fs_open(io, &r.fs, &r.err);
	if (rc) {
		fprintf(stderr, "%s: %s: cannot open the volume to repair it\n", FSCK_PROG,
			c->o.device);
		return rc;
	}
	rc = nlfs_fs_ifile(r.fs, nlfs_fs_recovery(r.fs)->cno, &r.ifile, &r.err);
	if (rc == -ENOENT && repair_found(c, PR_CP_LATEST))
		rc = 0;   /* its entry is mended below; the passes made no note about its files */
	if (!rc)
		rc = nlfs_writer_open(r.fs, r.now, NLFS_WRITER_REPAIR | NLFS_WRITER_ROLLFORWARD,
				      &r.w, &r.err);
	if (rc) {
		rc = repair_lib_failed(&r, rc, "opening the volume for writing");
		goto out;
	}
	note_superblocks(&r);
	repair_sort_notes(c);
	rc = repair_meta(c, r.fs, r.w, &r.nfixes, &r.err);
	if (rc) {
		rc = repair_lib_failed(&r, rc, "mending the shared metadata");
		goto out;
	}
	rc = fix_counters(&r);
	if (!rc)
		repair_mdt_inodes(c, r.w, &r.nfixes);
	if (!rc && nlfs_fs_recovery(r.fs)->nlogs_after_sr) {
		rc = roll_forward(&r);
		replayed = !rc;
	}
	if (!rc && !preen)
		rc = mend_maps(&r, &remapped);
	if (!rc)
		rc = mend_tree(&r, preen, remapped);
	if (!rc)
		rc = commit_repairs(&r, replayed, changed);
out:
	if (rc && (fsck_is_format_error(rc) || rc == -ENOENT || rc == -ENOTSUP)) {
		/* the damage is in the way of the repair itself: nothing was
		 * written, and the problems stay reported (exit status 4) */
		fsck_info(c, "the repairs above cannot be made on this volume; nothing was changed");
		rc = 0;
		*changed = false;
	}
	free_repair(&r);
	if (r.fs)
		nlfs_fs_release(r.fs);   /* the io is the caller's */
	return rc;
}
