/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * segment.c - a segment as the cleaner sees it: the logs it holds
 * (whether their blocks are live is nlfs_gc_block_live's, gc_live.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

int nlfs_segment_walk(struct nlfs_fs *fs, uint64_t segnum, uint32_t nblocks, unsigned flags,
		      uint64_t *seq, nlfs_finfo_cb cb, void *arg, struct nlfs_err *err)
{
	bool exact = flags & NLFS_SEGMENT_WALK_EXACT;
	bool datasum = flags & NLFS_SEGMENT_WALK_DATASUM;
	bool strict = exact || datasum || (flags & NLFS_SEGMENT_WALK_STRICT);
	uint64_t seq0 = 0;
	const struct nlfs_geometry *g = &fs->geo;
	uint64_t start, end, used, pos;
	int rc;

	if (segnum >= g->nsegments)
		return nlfs_err_set(err, ERANGE, NLFS_NOWHERE, "segment %llu does not exist",
				    (unsigned long long)segnum);
	start = nlfs_seg_start(g, segnum);
	end = nlfs_seg_end(g, segnum) + 1;
	used = start + nblocks < end ? start + nblocks : end;
	if (seq) {
		uint8_t *buf = malloc(g->blocksize);
		struct nlfs_segment_summary ss;

		if (!buf)
			return -ENOMEM;
		rc = nlfs_io_read(fs->io, buf, g->blocksize, start * g->blocksize);
		memcpy(&ss, buf, sizeof(ss));
		free(buf);
		if (rc)
			return nlfs_err_set(err, rc, start, "%s: reading segment %llu",
					    nlfs_io_name(fs->io), (unsigned long long)segnum);
		*seq = nlfs_le64(ss.ss_seq);
	}
	if (exact && start + nblocks > end)
		return nlfs_err_set(err, NLFS_ECORRUPT, start,
				    "segment %llu: su_nblocks %u goes past the segment's end",
				    (unsigned long long)segnum, nblocks);
	/* a log needs at least two blocks, so none starts in the last one */
	for (pos = start; pos < used && (exact || pos + 2 <= end);) {
		struct nlfs_log log;
		void *summary = NULL;
		struct nlfs_err lerr;

		if (exact && used - pos < 2)
			return nlfs_err_set(err, NLFS_ECORRUPT, pos,
					    "%llu block(s) at block %llu hold no log",
					    (unsigned long long)(used - pos), (unsigned long long)pos);

		/* the kernel's cleaner trusts ss_sumsum; the data checksum is
		 * not its rule, but offline it costs only a read of the log */
		rc = nlfs_log_read(fs, pos, &log, &summary,
				   datasum ? 0 : NLFS_LOG_READ_SUMMARY_ONLY, strict ? err : &lerr);
		if (!rc && !log.sumsum_ok)
			rc = nlfs_err_set(strict ? err : &lerr, NLFS_EBADCRC, pos,
					  "segment %llu: summary checksum",
					  (unsigned long long)segnum);
		if (!rc && datasum && !log.datasum_ok)
			rc = nlfs_err_set(err, NLFS_EBADCRC, pos,
					  "segment %llu: log at block %llu: data checksum",
					  (unsigned long long)segnum, (unsigned long long)pos);
		if (!rc && exact) {
			if (pos == start)
				seq0 = log.seq;
			if (log.seq != seq0)
				rc = nlfs_err_set(err, NLFS_ECORRUPT, pos,
						  "log at block %llu has seq %llu, the segment's "
						  "first log %llu", (unsigned long long)pos,
						  (unsigned long long)log.seq, (unsigned long long)seq0);
			else if (log.nblocks > used - pos ||
				 nlfs_summary_blocks(&log, g->blocksize) >= log.nblocks)
				rc = nlfs_err_set(err, NLFS_ECORRUPT, pos,
						  "log at block %llu (%u blocks) does not fit the "
						  "segment's %u written blocks",
						  (unsigned long long)pos, log.nblocks, nblocks);
		}
		if (rc) {
			free(summary);
			if (strict)
				return rc;
			break;   /* the end of what was written there */
		}
		rc = cb ? nlfs_summary_walk(&log, summary, g->blocksize, cb, arg, err) : 0;
		free(summary);
		if (rc)
			return rc;
		pos += log.nblocks;
	}
	return 0;
}

int nlfs_segment_seq(struct nlfs_fs *fs, uint64_t segnum, uint64_t *seq, struct nlfs_err *err)
{
	const struct nlfs_geometry *g = &fs->geo;
	uint64_t start;
	struct nlfs_log log;
	uint8_t *buf;
	int rc;

	if (segnum >= g->nsegments)
		return nlfs_err_set(err, ERANGE, NLFS_NOWHERE, "segment %llu does not exist",
				    (unsigned long long)segnum);
	start = nlfs_seg_start(g, segnum);
	buf = malloc(g->blocksize);
	if (!buf)
		return -ENOMEM;
	rc = nlfs_io_read(fs->io, buf, g->blocksize, start * g->blocksize);
	if (rc)
		rc = nlfs_err_set(err, rc, start, "%s: reading segment %llu",
				  nlfs_io_name(fs->io), (unsigned long long)segnum);
	else
		rc = nlfs_summary_decode(buf, g->blocksize, start, &log, err);
	free(buf);
	if (!rc)
		*seq = log.seq;
	return rc;
}

int nlfs_segment_logs(struct nlfs_fs *fs, uint64_t segnum, unsigned flags, nlfs_log_cb cb,
		      void *arg, struct nlfs_err *err)
{
	const struct nlfs_geometry *g = &fs->geo;
	uint64_t start, end, pos, seq = 0;
	bool want_summary = !(flags & NLFS_SEGMENT_LOGS_HEADERS);
	int rc = 0;

	if (segnum >= g->nsegments)
		return nlfs_err_set(err, ERANGE, NLFS_NOWHERE, "segment %llu does not exist",
				    (unsigned long long)segnum);
	start = nlfs_seg_start(g, segnum);
	end = nlfs_seg_end(g, segnum) + 1;
	/* a log needs at least two blocks, so none starts in the last one */
	for (pos = start; pos + 2 <= end;) {
		struct nlfs_log log;
		void *summary = NULL;
		struct nlfs_err lerr;

		rc = nlfs_log_read(fs, pos, &log, want_summary ? &summary : NULL,
				   flags & NLFS_LOG_READ_SUMMARY_ONLY, &lerr);
		if (rc == -ENOMEM || rc == -EIO)
			return nlfs_err_set(err, rc, pos, "%s: reading segment %llu",
					    nlfs_io_name(fs->io), (unsigned long long)segnum);
		/* logs of one pass over the segment share its first log's seq;
		 * a header that does not hold up or another seq is where they end */
		if (rc || (pos != start && log.seq != seq) ||
		    ((flags & NLFS_SEGMENT_LOGS_VALID) && !log.sumsum_ok)) {
			free(summary);
			return 0;
		}
		seq = log.seq;
		rc = cb(&log, summary, arg);
		free(summary);
		if (rc)
			return rc < 0 ? rc : 0;
		pos += log.nblocks;
	}
	return 0;
}

static int add_log_blocks(const struct nlfs_log *log, const void *summary, void *arg)
{
	(void)summary;
	*(uint32_t *)arg += log->nblocks;
	return 0;
}

int nlfs_segment_logs_end(struct nlfs_fs *fs, uint64_t segnum, uint32_t *nblocks,
			  struct nlfs_err *err)
{
	*nblocks = 0;
	return nlfs_segment_logs(fs, segnum,
				 NLFS_LOG_READ_SUMMARY_ONLY | NLFS_SEGMENT_LOGS_HEADERS |
				 NLFS_SEGMENT_LOGS_VALID, add_log_blocks, nblocks, err);
}
