/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Inodes set right by a repair (fsck.nilfs2) in the ifile of the
 * checkpoint being built: one cleared (its slot zeroed and freed), the
 * reserved ones marked in use, one whose bitmap bit alone was lost marked
 * in use again.  A cleared inode's blocks are not touched here: older
 * checkpoints and snapshots still have them, and the blocks no file of
 * the new checkpoint uses are ended in the DAT by the caller
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

int nlfs_writer_fix_reserved_inodes(struct nlfs_writer *w, uint64_t *nfixed,
				    struct nlfs_err *err)
{
	for (uint64_t ino = 0; ino < w->first_ino; ino++) {
		const uint8_t *e;
		int rc = nlfs_palloc_peek(w->ifile, w->isz, ino, &e, err);

		if (!rc && !e) {
			rc = nlfs_palloc_reserve(w->ifile, w->isz, ino, err);
			(*nfixed)++;
			if (ino == NLFS_ROOT_INO)
				w->user_inodes++;   /* the one reserved inode a checkpoint counts */
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* would the kernel take this slot for a live inode? */
static bool plausible_inode(const struct nlfs_inode *in)
{
	return nlfs_file_type_of_mode(nlfs_le16(in->i_mode)) != 0 &&
	       nlfs_le16(in->i_links_count) > 0;
}

int nlfs_writer_revive_inode(struct nlfs_writer *w, uint64_t ino, bool *revived,
			     struct nlfs_err *err)
{
	struct nlfs_inode in;
	const uint8_t *e;
	int rc;

	*revived = false;
	if (ino < w->first_ino)
		return 0;
	rc = nlfs_palloc_peek(w->ifile, w->isz, ino, &e, err);
	if (rc || e)
		return rc;
	rc = nlfs_writer_get_inode(w, ino, &in, err);
	if (rc || !plausible_inode(&in))
		return rc;
	rc = nlfs_palloc_reserve(w->ifile, w->isz, ino, err);
	if (rc)
		return rc;
	w->user_inodes++;
	*revived = true;
	return 0;
}
