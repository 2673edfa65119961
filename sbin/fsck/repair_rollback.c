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
