/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Undo files (fsck.nilfs2 -z, nilfs-undo): the old bytes of every block a
 * repair overwrites, saved before the overwrite, and put back on request.
 */
#ifndef NLFS_UNDO_H
#define NLFS_UNDO_H

#include <stdbool.h>
#include <nlfs/nlfs.h>

/* Wrap LOWER (taking ownership): writes through the result first save the
 * blocks they overwrite to a new file PATH (an existing file is refused).
 * 0; -EEXIST for an existing PATH, or the errno of creating it; -ENOMEM. */
int nlfs_io_open_undo(struct nlfs_io *lower, const char *path, struct nlfs_io **out,
		      struct nlfs_err *err);

#define NLFS_UNDO_DRY_RUN 0x1u   /* read and check the file, write nothing */
#define NLFS_UNDO_FORCE   0x2u   /* even if DEV's size or UUID differ */
struct nlfs_undo_stats {
	uint64_t nblocks;        /* blocks put back (or that would be) */
	bool torn;               /* the file ends in a record a crash cut short */
};
/* Put the blocks saved in PATH back on DEV.  0; -EXDEV if DEV is not the
 * device the file was made for (and FLAGS has no NLFS_UNDO_FORCE);
 * -NLFS_ECORRUPT or -NLFS_EREVISION for a file that is not an undo file we
 * can read; the errno of reading it; a negative errno from DEV; -ENOMEM. */
int nlfs_undo_apply(const char *path, struct nlfs_io *dev, unsigned flags,
		    struct nlfs_undo_stats *st, struct nlfs_err *err);

#endif /* NLFS_UNDO_H */
