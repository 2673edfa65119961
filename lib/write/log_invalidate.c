/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stale log where the kernel's log chain goes on, invalidated.
 *
 * Logs are only ever appended, so the kernel trusts any log it finds where
 * its chain goes on, if its sequence number is the one expected there.  An
 * offline writer that crashed after its logs but before its superblocks
 * leaves such logs behind the cursor; the next writer starts again at the
 * cursor, and where its own logs end, the stale ones can go on: built on a
 * state that no longer exists and on blocks since overwritten.  The kernel
 * ignores them on a volume marked clean, but after a crash it searches on
 * from its cursor and would take them up.  As the kernel does after a
 * roll-forward (nilfs_finish_roll_forward), the first block of such a log
 * is zeroed: the chain ends there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/writer.h>

int nlfs_log_invalidate_at(struct nlfs_io *io, uint32_t blocksize, struct nlfs_chain_pos at,
			   bool *invalidated, struct nlfs_err *err)
{
	struct nlfs_log log;
	struct nlfs_err derr;
	uint8_t *buf = calloc(1, blocksize);
	int rc;

	*invalidated = false;
	if (!buf)
		return -ENOMEM;
	rc = nlfs_io_read(io, buf, blocksize, at.pos * blocksize);
	if (rc) {
		rc = nlfs_err_set(err, rc, at.pos, "%s: reading where the log chain goes on",
				  nlfs_io_name(io));
	} else if (!nlfs_summary_decode(buf, blocksize, at.pos, &log, &derr) && log.seq == at.seq) {
		memset(buf, 0, blocksize);
		rc = nlfs_io_write(io, buf, blocksize, at.pos * blocksize);
		if (!rc)
			rc = nlfs_io_flush(io);
		if (rc)
			rc = nlfs_err_set(err, rc, at.pos, "%s: invalidating a stale log",
					  nlfs_io_name(io));
		else
			*invalidated = true;
	}
	free(buf);
	return rc;
}

int nlfs_log_end_chain(struct nlfs_io *io, const struct nlfs_geometry *g, uint64_t end,
		       uint64_t seq, uint64_t nextseg, unsigned *ninvalidated, struct nlfs_err *err)
{
	struct nlfs_chain_pos next = nlfs_chain_next(g, end, seq, nextseg);
	struct nlfs_chain_pos head = { nlfs_seg_start(g, nextseg), seq + 1 };
	bool done;
	int rc = nlfs_log_invalidate_at(io, g->blocksize, next, &done, err);

	*ninvalidated = done;
	if (!rc && next.pos != head.pos) {
		rc = nlfs_log_invalidate_at(io, g->blocksize, head, &done, err);
		*ninvalidated += done;
	}
	return rc;
}
