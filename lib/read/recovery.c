/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Finding the latest super root the way the kernel's mount does
 * (nilfs_search_super_root): start at the superblock cursor, follow logs
 * within a segment and ss_next across segments, with seq rising by one per
 * segment; a cleanly unmounted volume stops at the first super root.
 * Marking a volume clean as that mount then does is repair/mark_clean.c's.
 */
#include <stdlib.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

int nlfs_search_super_root(struct nlfs_fs *fs, const struct nlfs_super_block *sb,
			   nlfs_log_cb cb, void *arg, struct nlfs_err *err)
{
	const struct nlfs_geometry *g = &fs->geo;
	uint64_t pseg = nlfs_le64(sb->s_last_pseg);
	uint64_t seq = nlfs_le64(sb->s_last_seq);
	uint64_t cno = nlfs_le64(sb->s_last_cno);
	bool valid_fs = nlfs_le16(sb->s_state) & NLFS_STATE_VALID_FS;
	bool scan_newer = false, found = false, seen_in_seg = false;
	uint64_t seg = pseg / g->blocks_per_segment, nextseg = 0, sr_nextseg = 0;
	struct nlfs_recovery rec = { 0 };
	/* a chain cannot be longer than the volume has segments */
	uint64_t segs_left = g->nsegments + 1;

	for (;;) {
		struct nlfs_log log;
		void *summary = NULL;
		int rc = nlfs_log_read_seq(fs, pseg, seq, &log, cb ? &summary : NULL, err);

		if (!rc && (log.seq != seq || !log.datasum_ok)) {
			rc = nlfs_err_set(err, log.seq != seq ? NLFS_ECORRUPT : NLFS_EBADCRC,
					  pseg, log.seq != seq ?
					  "log sequence %llu where %llu was expected" :
					  "log data checksum",
					  (unsigned long long)log.seq, (unsigned long long)seq);
		}
		if (rc) {
			free(summary);
			if (!scan_newer) {
				if (err)
					err->cno = cno;
				return rc;
			}
			goto next_segment;
		}
		seen_in_seg = true;
		rec.nlogs_scanned++;
		if (cb) {
			int stop = cb(&log, summary, arg);

			free(summary);
			if (stop)
				return stop < 0 ? stop : 0;
		}
		nextseg = log.next / g->blocks_per_segment;
		if (nextseg >= g->nsegments)
			return nlfs_err_set(err, NLFS_ECORRUPT, pseg,
					    "ss_next %llu outside the segments",
					    (unsigned long long)log.next);
		if (!(log.flags & NLFS_SS_SR)) {
			if (!scan_newer)
				return nlfs_err_set(err, NLFS_ENOSR, pseg,
						    "the superblock's last log has no super root");
			rec.nlogs_after_sr++;
			goto advance;
		}
		found = true;
		rec.sr_log = pseg;
		rec.sr_block = pseg + log.nblocks - 1;
		rec.sr_seq = seq;
		rec.cno = cno++;
		rec.next_pseg = pseg + log.nblocks;
		rec.next_seq = seq;
		rec.nlogs_after_sr = 0;
		sr_nextseg = nextseg;
		if (valid_fs && !cb)
			break;
		scan_newer = true;
advance:
		pseg += log.nblocks;
		if (pseg + 1 <= nlfs_seg_end(g, seg))   /* at least 2 blocks left */
			continue;
next_segment:
		if (!seen_in_seg || --segs_left == 0)
			break;
		seen_in_seg = false;
		seq++;
		seg = nextseg;
		pseg = nlfs_seg_start(g, seg);
	}
	if (!found)
		return nlfs_err_set(err, NLFS_ENOSR, nlfs_le64(sb->s_last_pseg),
				    "searching the super root");
	{
		/* the writer goes on where the chain does */
		struct nlfs_chain_pos next = nlfs_chain_next(g, rec.next_pseg, rec.sr_seq, sr_nextseg);

		rec.next_pseg = next.pos;
		rec.next_seq = next.seq;
	}
	rec.from_other_sb = fs->rec.from_other_sb;
	fs->rec = rec;
	return 0;
}
