/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The log reader: one log (partial segment) read at its start block, its
 * summary decoded (format/summary.c) and both checksums verified.  The
 * super-root search, roll-forward and the segment walk read through it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../nlfsP.h"

/* bytes of a log read with one call: a log of small files' blocks is
 * read in a few large reads, not one per block (cold caches, syscalls) */
#define LOG_READ_CHUNK (1u << 20)

/* Blocks FIRST.. of the log at START, as many as fit in LEN bytes; on a
 * failure the blocks are read one by one, so the error names the block. */
static int read_log_blocks(struct nlfs_fs *fs, uint64_t start, uint32_t first, uint32_t n,
			   uint8_t *buf, struct nlfs_err *err)
{
	uint32_t bs = fs->geo.blocksize;
	int rc = nlfs_io_read(fs->io, buf, (size_t)n * bs, (start + first) * bs);

	if (!rc)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		rc = nlfs_io_read(fs->io, buf + (size_t)i * bs, bs, (start + first + i) * bs);
		if (rc)
			return nlfs_err_set(err, rc, start + first + i, "%s: reading log block",
					    nlfs_io_name(fs->io));
	}
	return 0;
}

int nlfs_log_read(struct nlfs_fs *fs, uint64_t start, struct nlfs_log *log, void **summary,
		  unsigned flags, struct nlfs_err *err)
{
	const struct nlfs_geometry *g = &fs->geo;
	uint32_t bs = g->blocksize;
	uint64_t seg = start / g->blocks_per_segment;
	uint32_t chunk_blocks = LOG_READ_CHUNK / bs ? LOG_READ_CHUNK / bs : 1;
	bool whole = !(flags & NLFS_LOG_READ_SUMMARY_ONLY);
	uint8_t *buf, *big = NULL;
	uint32_t crc = 0, sumcrc, nread;
	size_t sumlen;
	int rc;

	if (seg >= g->nsegments || start < g->first_data_block)
		return nlfs_err_set(err, NLFS_ECORRUPT, start, "log start outside the segments");
	buf = malloc(bs);
	if (!buf)
		return -ENOMEM;
	rc = nlfs_io_read(fs->io, buf, bs, start * bs);
	if (rc) {
		free(buf);
		return nlfs_err_set(err, rc, start, "%s: reading segment summary",
				    nlfs_io_name(fs->io));
	}
	rc = nlfs_summary_decode(buf, bs, start, log, err);
	if (rc)
		goto out;
	if (log->nblocks > g->blocks_per_segment ||
	    start + log->nblocks - 1 > nlfs_seg_end(g, seg)) {
		rc = nlfs_err_set(err, NLFS_ECORRUPT, start,
				  "log of %u blocks overruns segment %llu", log->nblocks,
				  (unsigned long long)seg);
		goto out;
	}
	/* one pass over the log: ss_datasum covers it all after its first 4
	 * bytes, ss_sumsum the summary area [8, ss_sumbytes) */
	sumlen = log->sumbytes;
	if (whole)
		crc = nlfs_crc32(fs->crc_seed, buf + 4, bs - 4);
	sumcrc = nlfs_crc32(fs->crc_seed, buf + 8, (sumlen < bs ? sumlen : bs) - 8);
	if (summary) {
		uint8_t *s = malloc(nlfs_summary_blocks(log, bs) * (size_t)bs);

		if (!s) {
			rc = -ENOMEM;
			goto out;
		}
		memcpy(s, buf, bs);
		*summary = s;
	}
	/* without the data checksum only the summary blocks are needed */
	nread = whole ? log->nblocks : nlfs_summary_blocks(log, bs);
	/* a log read whole is asked for whole: the kernel reads its blocks in
	 * one go, where on a handle without its read-ahead (NLFS_IO_NO_READAHEAD)
	 * each chunk would be a request of its own, waited for in turn, and
	 * with it the read-ahead ran on past the log (8 MiB after a log of
	 * 6.7 MiB, bench/fsck.sh CASE=checkpoints) */
	if (whole && nread > 2)
		nlfs_io_prefetch(fs->io, (start + 1) * bs, (uint64_t)(nread - 1) * bs);
	if (chunk_blocks > nread - 1)
		chunk_blocks = nread - 1;
	if (chunk_blocks > 1) {
		big = malloc((size_t)chunk_blocks * bs);
		if (!big)
			chunk_blocks = 1;   /* one block at a time still works */
	}
	for (uint32_t i = 1; i < nread;) {
		uint32_t n = nread - i < chunk_blocks ? nread - i : chunk_blocks;
		uint8_t *p = big ? big : buf;

		rc = read_log_blocks(fs, start, i, n, p, err);
		if (rc)
			goto out;
		if (whole)
			crc = nlfs_crc32(crc, p, (size_t)n * bs);
		for (uint32_t j = 0; j < n; j++) {
			size_t at = (size_t)(i + j) * bs;

			if (at >= sumlen)
				break;
			sumcrc = nlfs_crc32(sumcrc, p + (size_t)j * bs,
					    sumlen - at < bs ? sumlen - at : bs);
			if (summary)
				memcpy((uint8_t *)*summary + at, p + (size_t)j * bs, bs);
		}
		i += n;
	}
	log->datasum_checked = whole;
	log->datasum_ok = whole && crc == log->datasum;
	log->sumsum_ok = sumcrc == log->sumsum;
	rc = 0;
out:
	if (rc && summary && *summary) {
		free(*summary);
		*summary = NULL;
	}
	free(big);
	free(buf);
	return rc;
}

/* The kernel's mount checks a log's magic and sequence number before it
 * reads the log whole for its data checksum (nilfs_validate_log): a stale
 * log, where the chain ends in a segment written before, costs it one
 * block.  Read whole first, the end of the chain on bench/fsck.sh
 * CASE=aged (an old log in the segment after the latest) cost fsck's
 * pass 3 a wait of 17 ms and 1 MiB of the disk's reads, cold. */
int nlfs_log_read_seq(struct nlfs_fs *fs, uint64_t start, uint64_t seq, struct nlfs_log *log,
		      void **summary, struct nlfs_err *err)
{
	int rc = nlfs_log_read(fs, start, log, NULL, NLFS_LOG_READ_SUMMARY_ONLY, err);

	if (rc || log->seq != seq)
		return rc;
	return nlfs_log_read(fs, start, log, summary, 0, err);
}

const char *nlfs_log_cursor_problem(struct nlfs_fs *fs, uint64_t start, uint64_t seq,
				    struct nlfs_log *log)
{
	struct nlfs_err err;

	if (nlfs_log_read_seq(fs, start, seq, log, NULL, &err))
		return "no valid log there";
	if (log->seq != seq)
		return "the log there has another sequence number";
	if (!log->datasum_ok)
		return "the log there has a bad data checksum";
	if (!(log->flags & NLFS_SS_SR))
		return "the log there has no super root";
	return NULL;
}
