/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cpfile: the header and checkpoint entries. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "nlfsP.h"

static int read_slot(struct nlfs_fs *fs, uint64_t slot, void *out, size_t len, bool *hole,
		     struct nlfs_err *err)
{
	return nlfs_mdt_read_entry(fs, NLFS_CPFILE_INO,
				   nlfs_le16(fs->sb[fs->choice.used].s_checkpoint_size), slot, out,
				   len, hole, err);
}

int nlfs_cpfile_header(struct nlfs_fs *fs, struct nlfs_cpfile_header *h, struct nlfs_err *err)
{
	bool hole;
	int rc = read_slot(fs, 0, h, sizeof(*h), &hole, err);

	if (rc)
		return rc;
	if (hole)
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE, "cpfile header block is a hole");
	h->ch_ncheckpoints = nlfs_le64(h->ch_ncheckpoints);
	h->ch_nsnapshots = nlfs_le64(h->ch_nsnapshots);
	h->ch_snapshot_next = nlfs_le64(h->ch_snapshot_next);
	h->ch_snapshot_prev = nlfs_le64(h->ch_snapshot_prev);
	return 0;
}

int nlfs_cpfile_get(struct nlfs_fs *fs, uint64_t cno, struct nlfs_checkpoint *cp,
		    struct nlfs_err *err)
{
	uint32_t esz = nlfs_le16(fs->sb[fs->choice.used].s_checkpoint_size);
	/* the header takes the first slots of block 0 */
	uint64_t first = (sizeof(struct nlfs_cpfile_header) + esz - 1) / esz;
	bool hole;
	int rc;

	if (cno == 0)
		cno = fs->rec.cno;
	if (cno > fs->rec.cno)
		goto noent;
	rc = read_slot(fs, cno + first - 1, cp, sizeof(*cp), &hole, err);
	if (rc)
		return rc;
	if (hole || nlfs_le32(cp->cp_flags) & NLFS_CHECKPOINT_INVALID)
		goto noent;
	if (nlfs_le64(cp->cp_cno) != cno) {
		rc = nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				  "checkpoint entry %llu says it is checkpoint %llu",
				  (unsigned long long)cno,
				  (unsigned long long)nlfs_le64(cp->cp_cno));
		if (err)
			err->cno = cno;
		return rc;
	}
	return 0;
noent:
	rc = nlfs_err_set(err, ENOENT, NLFS_NOWHERE, "checkpoint %llu", (unsigned long long)cno);
	if (err)
		err->cno = cno;
	return rc;
}
