/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A volume marked clean the way the kernel's mount does when its super-root
 * search (read/recovery.c) found nothing to roll forward (fsck.nilfs2).
 */
#include <errno.h>

#include <nlfs/endian.h>
#include <nlfs/repair.h>
#include "../nlfsP.h"

struct clean_cursor {
	uint64_t log, seq, cno, free_blocks, now;
};

static int set_clean_cursor(struct nlfs_super_block *sb, void *arg, struct nlfs_err *err)
{
	const struct clean_cursor *cc = arg;

	(void)err;
	sb->s_last_pseg = nlfs_cpu_to_le64(cc->log);
	sb->s_last_seq = nlfs_cpu_to_le64(cc->seq);
	sb->s_last_cno = nlfs_cpu_to_le64(cc->cno);
	sb->s_free_blocks_count = nlfs_cpu_to_le64(cc->free_blocks);
	if (nlfs_le64(sb->s_wtime) < cc->now)
		sb->s_wtime = nlfs_cpu_to_le64(cc->now);
	sb->s_state = nlfs_cpu_to_le16(nlfs_le16(sb->s_state) | NLFS_STATE_VALID_FS);
	return 0;
}

/* What the kernel's mount writes when it found nothing to roll forward:
 * the cursor moved to the super root its search found (newer ones than
 * the cursor's are taken up this way), the clean segments' blocks of that
 * super root's sufile, and the volume marked valid.  Each copy is written
 * whole and flushed, the one not in use first: a crash between the two
 * leaves one copy old (unclean, the kernel searches on from its cursor to
 * the same super root) and one new, and either gives the same tree. */
int nlfs_recovery_mark_clean(struct nlfs_fs *fs, uint64_t now, struct nlfs_err *err)
{
	const struct nlfs_recovery *rec = &fs->rec;
	struct clean_cursor cc = { rec->sr_log, rec->sr_seq, rec->cno, 0, now };
	struct nlfs_suhead h;
	struct nlfs_sb_choice choice;
	int rc;

	if (rec->nlogs_after_sr)
		return nlfs_err_set(err, EBUSY, rec->next_pseg,
				    "%llu log(s) follow the latest super root: they are rolled "
				    "forward by a construction, not by the superblocks alone",
				    (unsigned long long)rec->nlogs_after_sr);
	rc = nlfs_sufile_header(fs, &h, err);
	if (rc)
		return rc;
	cc.free_blocks = h.ncleansegs * fs->geo.blocks_per_segment;
	return nlfs_sb_rewrite(fs->io, set_clean_cursor, &cc, &choice, err);
}
