/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A segment's usage set by a repair construction (fsck.nilfs2): flags and
 * block count as the logs and the DAT show them.  Which values are right
 * is the caller's judgement; the header's clean and dirty counts are then
 * recounted by nlfs_writer_fix_sufile.
 */
#include <errno.h>

#include <nlfs/endian.h>
#include <nlfs/repair.h>
#include "writerP.h"

int nlfs_writer_set_segusage(struct nlfs_writer *w, uint64_t segnum, uint32_t flags,
			     uint32_t nblocks, struct nlfs_err *err)
{
	uint64_t slot = segnum + su_first(w), epb = w->geo.blocksize / w->susz;
	struct nlfs_segment_usage *su;
	uint8_t *blk;
	int rc;

	if (segnum >= w->geo.nsegments)
		return nlfs_err_set(err, ERANGE, NLFS_NOWHERE, "segment %llu does not exist",
				    (unsigned long long)segnum);
	rc = nlfs_wfile_write(w->sufile, slot / epb, &blk, NULL, err);
	if (rc)
		return rc;
	su = (struct nlfs_segment_usage *)(void *)(blk + (slot % epb) * w->susz);
	su->su_flags = nlfs_cpu_to_le32(flags);
	su->su_nblocks = nlfs_cpu_to_le32(flags ? nblocks : 0);
	if (!flags)
		su->su_lastmod = 0;
	else if (!su->su_lastmod)
		su->su_lastmod = nlfs_cpu_to_le64(w->ctime);
	return 0;
}
