/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An inode cleared by a repair (fsck.nilfs2): its slot zeroed and freed in
 * the ifile of the checkpoint being built.  Its blocks are not touched
 * here: older checkpoints and snapshots still have them, and the blocks
 * no file of the new checkpoint uses are ended in the DAT by the caller
 * (nlfs_writer_end_vblock), from what the check found.
 */
#include <errno.h>
#include <string.h>

#include <nlfs/repair.h>
#include "writerP.h"

int nlfs_writer_ifile_punch(struct nlfs_writer *w, uint64_t blkoff, struct nlfs_err *err)
{
	return nlfs_wfile_punch(w->ifile, blkoff, err);
}

int nlfs_writer_clear_inode(struct nlfs_writer *w, uint64_t ino, struct nlfs_err *err)
{
	uint8_t *p;
	bool inuse;
	int rc;

	if (ino < w->first_ino)
		return nlfs_err_set(err, EINVAL, NLFS_NOWHERE, "inode %llu is reserved",
				    (unsigned long long)ino);
	rc = nlfs_palloc_test(w->ifile, w->isz, ino, &inuse, err);
	if (rc || !inuse)
		return rc;   /* not in use: nothing to clear */
	/* in use in a missing ifile block too: the block comes back zeroed */
	rc = nlfs_palloc_entry(w->ifile, w->isz, ino, &p, err);
	if (rc)
		return rc;
	memset(p, 0, w->isz);
	rc = nlfs_palloc_free(w->ifile, w->isz, ino, err);
	if (!rc)
		w->user_inodes--;
	return rc;
}
