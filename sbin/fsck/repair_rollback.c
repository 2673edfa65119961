/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * repair_rollback.c - fsck.nilfs2 --rollback: both superblocks pointed
 * back at the newest super root that holds up (which one, and how the
 * superblocks are written, is the library's nlfs_rollback_find/_write).
 * What users otherwise do with a hex editor when the kernel reports
 * "error -22 while searching super root".
 */
#include <errno.h>
#include <stdio.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>
#include <nlfs/repair.h>
#include "fsck.h"

static int failed(struct fsck *c, const struct nlfs_err *err, const char *doing)
{
	char msg[512];

	nlfs_err_format(err, msg, sizeof(msg));
	fprintf(stderr, "%s: %s: %s: %s\n", FSCK_PROG, c->o.device, doing, msg);
	return err->code ? err->code : -EIO;
}

int repair_rollback(struct fsck *c, struct nlfs_io *io, bool *changed)
{
	const struct nlfs_super_block *sb;
	struct nlfs_rollback rb;
	struct nlfs_err err;
	struct nlfs_fs *fs;
	int rc;

	*changed = false;
	nlfs_err_clear(&err);
	rc = nlfs_fs_open_sb(io, &fs, &err);
	if (rc)
		return failed(c, &err, "rollback: reading the superblocks");
	sb = nlfs_fs_sb(fs, nlfs_fs_sb_choice(fs)->used);
	fsck_info(c, "rollback: looking for the newest super root that holds up");
	rc = nlfs_rollback_find(fs, &rb, &err);
	if (rc == -NLFS_ENOSR) {
		/* nothing to go back to: the check's findings stand */
		fsck_info(c, "rollback: not possible: %s", err.what);
		rc = 0;
	} else if (rc) {
		rc = failed(c, &err, "rollback");
	} else if (!rb.needed) {
		fsck_info(c, "rollback: nothing to roll back: the volume's super root "
			  "(checkpoint %llu, block %llu) holds up",
			  (unsigned long long)rb.cno, (unsigned long long)rb.log);
	} else {
		uint64_t from_cno = nlfs_le64(sb->s_last_cno), from = nlfs_le64(sb->s_last_pseg);

		rc = nlfs_rollback_write(fs, &rb, &err);
		if (rc) {
			rc = failed(c, &err, "rollback");
		} else {
			*changed = true;
			fsck_info(c, "rollback: rolled back from checkpoint %llu (block %llu) to "
				  "checkpoint %llu (block %llu): %llu logs discarded",
				  (unsigned long long)from_cno, (unsigned long long)from,
				  (unsigned long long)rb.cno, (unsigned long long)rb.log,
				  (unsigned long long)rb.discarded);
		}
	}
	nlfs_fs_release(fs);   /* the io stays the caller's */
	return rc;
}

bool rollback_possible(const char *device)
{
	struct nlfs_rollback rb;
	struct nlfs_err err;
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	bool possible = false;

	nlfs_err_clear(&err);
	if (nlfs_io_open_unix(device, NLFS_IO_RDONLY, &io))
		return false;
	if (!nlfs_fs_open_sb(io, &fs, &err)) {
		possible = !nlfs_rollback_find(fs, &rb, &err) && rb.needed;
		nlfs_fs_release(fs);
	}
	nlfs_io_close(io);
	return possible;
}

/* Valid logs past the cursor of a clean volume that do not continue its
 * history (an earlier writer's, cut before its superblocks, where a later
 * writer went on from the cursor) are ended, never taken up: they were
 * built on a state since replaced, and on blocks since overwritten. */
static int stale_tail(struct fsck *c, struct nlfs_fs *fs, bool *changed, struct nlfs_err *err)
{
	struct nlfs_chain_tail t;
	int rc = nlfs_fs_chain_tail(fs, &t, err);

	if (rc)
		return failed(c, err, "following the logs past the cursor");
	if (!t.nlogs || t.continues)
		return 0;
	rc = nlfs_log_invalidate_at(nlfs_fs_io(fs), nlfs_fs_geometry(fs)->blocksize, t.first,
				    changed, err);
	if (rc)
		return failed(c, err, "ending the log chain at the cursor");
	if (*changed)
		fsck_info(c, "repair: logs: %llu stale log(s) from block %llu on (checkpoint %llu) "
			  "do not continue the cursor's checkpoint %llu: their first block zeroed, "
			  "so that no crash lets the kernel take them up",
			  (unsigned long long)t.nlogs, (unsigned long long)t.first.pos,
			  (unsigned long long)t.first_cno,
			  (unsigned long long)nlfs_le64(nlfs_fs_sb(fs, nlfs_fs_sb_choice(fs)->used)->s_last_cno));
	return 0;
}

int repair_cursor(struct fsck *c, struct nlfs_io *io, bool *changed)
{
	const struct nlfs_super_block *sb;
	struct nlfs_rollback rb;
	struct nlfs_err err;
	struct nlfs_fs *fs;
	uint64_t cno, log;
	int rc;

	*changed = false;
	if (c->o.mode == MODE_NO || (c->o.mode == MODE_PREEN && !c->pr_count[PR_SB_CURSOR]))
		return 0;
	nlfs_err_clear(&err);
	rc = nlfs_fs_open_sb(io, &fs, &err);
	if (rc)
		return failed(c, &err, "reading the superblocks");
	sb = nlfs_fs_sb(fs, nlfs_fs_sb_choice(fs)->used);
	cno = nlfs_le64(sb->s_last_cno);
	log = nlfs_le64(sb->s_last_pseg);
	if (!c->pr_count[PR_SB_CURSOR]) {
		rc = stale_tail(c, fs, changed, &err);
		if (rc || *changed) {
			nlfs_fs_release(fs);
			return rc;
		}
	}
	rc = nlfs_rollback_find(fs, &rb, &err);
	if (rc == -NLFS_ENOSR) {
		rc = 0;   /* no super root holds up: the check's findings stand */
	} else if (rc) {
		rc = failed(c, &err, "looking for the newest super root");
	} else if (rb.needed && !rb.discarded && (rb.cno >= cno || rb.log == log)) {
		/* the newest super root there is, never an older one: nothing is
		 * given up, and a cursor that names the wrong checkpoint is set
		 * to the one its log commits */
		rc = nlfs_rollback_write(fs, &rb, &err);
		if (rc) {
			rc = failed(c, &err, "writing the superblocks");
		} else {
			*changed = true;
			fsck_info(c, "repair: superblocks: log cursor (block %llu, checkpoint %llu) -> "
				  "the newest super root (block %llu, checkpoint %llu)",
				  (unsigned long long)log, (unsigned long long)cno,
				  (unsigned long long)rb.log, (unsigned long long)rb.cno);
		}
	}
	nlfs_fs_release(fs);
	return rc;
}
