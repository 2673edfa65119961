/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pass_sb.c - pass 1: both superblock copies.
 *
 * Before the volume is opened: each copy's magic, s_bytes, CRC, revision,
 * geometry and state, and that the two agree on every field the kernel
 * keeps equal (only the log cursor, free-block hint, write time and state
 * may differ, since the kernel writes one copy at a time).  After opening:
 * that the cursor of the copy in use leads to a valid super-root log, and
 * that the other copy's cursor would serve the kernel's fallback.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <nlfs/endian.h>
#include "fsck.h"

static const char *copy_name(int i)
{
	return i == NLFS_SB_PRIMARY ? "primary superblock" : "secondary superblock";
}

static void check_copy(struct fsck *c, int i, const struct nlfs_super_block *sb,
		       const struct nlfs_sb_status *st, uint64_t devsize)
{
	struct nlfs_err err;
	int rc;
	uint16_t state;

	if (!st->read_ok) {
		fsck_problem(c, MSG_SB_READ, copy_name(i), (unsigned long long)st->offset,
			     nlfs_strerror(st->error));
		return;
	}
	rc = nlfs_sb_check_crc(sb);
	if (rc == -NLFS_EBADMAGIC) {
		fsck_problem(c, MSG_SB_MAGIC, copy_name(i), (unsigned long long)st->offset,
			     nlfs_le16(sb->s_magic));
		return;
	}
	if (rc == -NLFS_ECORRUPT) {
		fsck_problem(c, MSG_SB_BYTES, copy_name(i), (unsigned long long)st->offset,
			     nlfs_le16(sb->s_bytes));
		return;
	}
	if (rc) {
		fsck_problem(c, MSG_SB_CRC, copy_name(i), (unsigned long long)st->offset,
			     nlfs_le32(sb->s_sum), nlfs_sb_crc(sb));
		return;
	}
	rc = nlfs_sb_check_geometry(sb, devsize, &err);
	if (rc) {
		if (rc == -NLFS_EREVISION)
			fsck_problem(c, MSG_SB_REVISION, copy_name(i),
				     (unsigned long long)st->offset, err.what);
		else
			fsck_problem(c, MSG_SB_GEOMETRY, copy_name(i),
				     (unsigned long long)st->offset, err.what);
	} else if (i == NLFS_SB_SECONDARY && !st->valid) {
		fsck_problem(c, MSG_SB_IN_SEGMENTS, copy_name(i), (unsigned long long)st->offset);
	}
	if (nlfs_le64(sb->s_dev_size) > devsize)
		fsck_problem(c, MSG_SB_DEVSIZE, copy_name(i),
			     (unsigned long long)nlfs_le64(sb->s_dev_size),
			     (unsigned long long)devsize);
	if (nlfs_le64(sb->s_feature_compat) & ~NLFS_FEATURE_COMPAT_SUPP ||
	    nlfs_le64(sb->s_feature_compat_ro) & ~NLFS_FEATURE_COMPAT_RO_SUPP)
		fsck_problem(c, MSG_SB_FEATURES, copy_name(i),
			     (unsigned long long)nlfs_le64(sb->s_feature_compat),
			     (unsigned long long)nlfs_le64(sb->s_feature_compat_ro));
	state = nlfs_le16(sb->s_state);
	if (state & NLFS_STATE_ERROR_FS)
		fsck_problem(c, MSG_SB_ERROR_STATE, copy_name(i), state);
	if (state & ~(NLFS_STATE_VALID_FS | NLFS_STATE_ERROR_FS))
		fsck_problem(c, MSG_SB_STATE_BITS, copy_name(i), state,
			     state & NLFS_STATE_RESIZE_FS ? "an unfinished resize" : "unknown bits");
}

static void compare_copies(struct fsck *c, const struct nlfs_super_block sb[2])
{
	const char *field;

	for (int i = nlfs_sb_fixed_differ(&sb[0], &sb[1], 0, &field); i >= 0;
	     i = nlfs_sb_fixed_differ(&sb[0], &sb[1], i + 1, &field))
		if (nlfs_sb_field_updated_in_place(i))
			fsck_problem(c, MSG_SB_COPY_STALE, field);
		else
			fsck_problem(c, MSG_SB_COPIES_DIFFER, field);
}

int pass_sb(struct fsck *c, struct nlfs_io *io)
{
	struct nlfs_super_block sb[2];
	struct nlfs_sb_choice choice;
	struct nlfs_err err;
	uint64_t devsize;
	int rc;

	rc = nlfs_io_size(io, &devsize);
	if (rc) {
		fsck_problem(c, MSG_DEVICE_SIZE, nlfs_strerror(rc));
		return rc;
	}
	c->devsize = devsize;
	memset(&choice, 0, sizeof(choice));
	nlfs_sb_read_both(io, sb, &choice, &err);
	if (!choice.status[0].read_ok && !choice.status[1].read_ok) {
		fsck_problem(c, MSG_SB_NONE_READ, nlfs_strerror(choice.status[0].error));
		return -1;
	}
	if (nlfs_le16(sb[0].s_magic) != NLFS_SB_MAGIC && nlfs_le16(sb[1].s_magic) != NLFS_SB_MAGIC)
		return 1;   /* not a NILFS2 volume at all */
	for (int i = 0; i < 2; i++)
		check_copy(c, i, &sb[i], &choice.status[i], devsize);
	if (nlfs_sb_check_crc(&sb[0]) == 0 && nlfs_sb_check_crc(&sb[1]) == 0)
		compare_copies(c, sb);
	return 0;
}

void pass_sb_cursor(struct fsck *c)
{
	const struct nlfs_sb_choice *ch = nlfs_fs_sb_choice(c->fs);
	const struct nlfs_recovery *rec = nlfs_fs_recovery(c->fs);
	int used = ch->used, other = !used;
	const struct nlfs_super_block *sb = nlfs_fs_sb(c->fs, (enum nlfs_sb_slot)used);
	const struct nlfs_super_block *osb = nlfs_fs_sb(c->fs, (enum nlfs_sb_slot)other);
	struct nlfs_log log;
	const char *why;

	fsck_verbose(c, "using the %s: %s", copy_name(used), ch->reason);
	why = nlfs_log_cursor_problem(c->fs, nlfs_le64(sb->s_last_pseg),
				      nlfs_le64(sb->s_last_seq), &log);
	if (why || rec->from_other_sb) {
		fsck_problem(c, MSG_SB_CURSOR, copy_name(used),
			     (unsigned long long)nlfs_le64(sb->s_last_pseg),
			     (unsigned long long)nlfs_le64(sb->s_last_seq),
			     why ? why : "searching from it fails", copy_name(other));
	} else if (log.cno != nlfs_le64(sb->s_last_cno)) {
		fsck_problem(c, MSG_SB_LAST_CNO, copy_name(used),
			     (unsigned long long)nlfs_le64(sb->s_last_cno),
			     (unsigned long long)log.start, (unsigned long long)log.cno);
	}
	if (ch->status[other].valid && !rec->from_other_sb) {
		why = nlfs_log_cursor_problem(c->fs, nlfs_le64(osb->s_last_pseg),
					      nlfs_le64(osb->s_last_seq), &log);
		if (why)
			fsck_problem(c, MSG_SB_OTHER_CURSOR, copy_name(other),
				     (unsigned long long)nlfs_le64(osb->s_last_pseg),
				     (unsigned long long)nlfs_le64(osb->s_last_seq), why);
	}
	if (!(nlfs_le16(sb->s_state) & NLFS_STATE_VALID_FS))
		fsck_problem(c, MSG_SB_UNCLEAN, copy_name(used));
}

/* The kernel writes s_free_blocks_count with its log cursor: the clean
 * segments times the blocks per segment (nilfs_count_free_blocks); mkfs
 * counts the segments it did not write, one more (the one reserved for the
 * next log).  Checked only where the superblock describes the latest
 * state, a cleanly unmounted volume whose cursor is the newest super root
 * (else the kernel's next mount counts it again), and where the segments'
 * usage is not in doubt (a repair of it sets the count with the rest).
 * The other copy is checked when it was written with the one in use (the
 * same cursor). */
int pass_sb_free(struct fsck *c)
{
	static const enum fsck_pr usage_in_doubt[] = {
		PR_SU_FLAGS, PR_SU_NBLOCKS, PR_SU_CLEAN, PR_SU_CURRENT, PR_SU_NEXT, PR_SU_SHORT,
		PR_LOG_OVERRUN, PR_DAT_OUTSIDE, PR_DAT_PTR,
	};
	const struct nlfs_sb_choice *ch = nlfs_fs_sb_choice(c->fs);
	const struct nlfs_recovery *rec = nlfs_fs_recovery(c->fs);
	const struct nlfs_super_block *used = nlfs_fs_sb(c->fs, ch->used);
	uint64_t bps = c->g->blocks_per_segment, want = c->nsegs_clean * bps;
	uint64_t mkfs_count = (c->g->nsegments - c->nsegs_written) * bps;

	for (size_t i = 0; i < sizeof(usage_in_doubt) / sizeof(usage_in_doubt[0]); i++)
		if (c->pr_count[usage_in_doubt[i]])
			return 0;
	if (!(nlfs_le16(used->s_state) & NLFS_STATE_VALID_FS) || rec->nlogs_after_sr ||
	    rec->from_other_sb || nlfs_le64(used->s_last_pseg) != rec->sr_log)
		return 0;
	for (int i = 0; i < 2; i++) {
		const struct nlfs_super_block *sb = nlfs_fs_sb(c->fs, (enum nlfs_sb_slot)i);
		uint64_t have = nlfs_le64(sb->s_free_blocks_count);

		if (!ch->status[i].valid ||
		    nlfs_le64(sb->s_last_pseg) != nlfs_le64(used->s_last_pseg) ||
		    nlfs_le64(sb->s_last_seq) != nlfs_le64(used->s_last_seq))
			continue;
		if (have == want || (nlfs_le64(sb->s_last_cno) == 1 && have == mkfs_count))
			continue;
		fsck_problem(c, MSG_SB_FREE, copy_name(i), (unsigned long long)have,
			     (unsigned long long)c->nsegs_clean, (unsigned long long)want);
	}
	return 0;
}
