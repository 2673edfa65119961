/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Resizing a volume offline (lib/gc/resize.c): what a new size means for the
 * volume, and the resize itself on an unmounted device or image.
 */
#ifndef NLFS_RESIZE_H
#define NLFS_RESIZE_H

#include <nlfs/nlfs.h>

struct nlfs_resize_info {
	uint64_t old_devsize, new_devsize;     /* s_dev_size now; the size asked */
	uint64_t old_nsegments, new_nsegments;
	uint64_t segment_bytes;
	uint64_t ncleansegs;                   /* clean segments now */
	uint64_t nrsvsegs;                     /* reserved segments at the new size */
	uint32_t percentage;                   /* s_r_segments_percentage */
	uint64_t inuse_in_cut;                 /* segments in use past the new end */
	uint64_t free_after;                   /* clean, unreserved segments after a shrink */
	uint64_t short_segments;               /* a shrink that does not fit: segments missing */
};
/* What resizing FS to NEW_DEVSIZE bytes involves.  0; -ENOSPC (with
 * short_segments set) when the clean segments cannot cover the cut and the
 * new reserve, the rule of the kernel and nilfs-utils; as
 * nlfs_sufile_get. */
int nlfs_resize_check(struct nlfs_fs *fs, uint64_t new_devsize, struct nlfs_resize_info *ri,
		      struct nlfs_err *err);

/* The same from the numbers alone (a mounted volume's, from the kernel):
 * G's geometry, the reserve PERCENTAGE, the size now and the clean
 * segments now; inuse_in_cut is left 0.
 * 0; -ENOSPC (short_segments set) for a shrink the clean segments cannot cover. */
int nlfs_resize_fill(struct nlfs_resize_info *ri, const struct nlfs_geometry *g,
		     uint32_t percentage, uint64_t old_devsize, uint64_t ncleansegs,
		     uint64_t new_devsize);
/* the smallest size a shrink can reach now (the old size if none) */
uint64_t nlfs_resize_min_size(const struct nlfs_resize_info *ri);

struct nlfs_resize_stats {
	uint64_t passes;           /* constructions (checkpoints) written */
	uint64_t segments_moved;   /* segments emptied out of the cut */
	uint64_t blocks_moved;
};
struct nlfs_resize_params {
	uint64_t now;                  /* the new checkpoints' time */
	uint32_t segments_per_pass;    /* moved per construction (0: 8) */
	bool write_damaged;            /* even if nlfs_fs_vet calls the volume damaged */
	void (*progress)(void *arg, uint64_t moved, uint64_t total);
	void *arg;
};
/* Resize the unmounted volume on IO to NEW_DEVSIZE bytes, which the
 * device must hold (an image file is extended before a grow and cut after
 * a shrink by the caller).
 * 0; -EINVAL for a size the device cannot hold; -ENOSPC as nlfs_resize_check;
 * -NLFS_EDAMAGED (nlfs_fs_vet, unless WRITE_DAMAGED); as nlfs_fs_open,
 * nlfs_writer_open and nlfs_writer_commit. */
int nlfs_resize_offline(struct nlfs_io *io, uint64_t new_devsize,
			const struct nlfs_resize_params *p, struct nlfs_resize_stats *st,
			struct nlfs_err *err);

#endif /* NLFS_RESIZE_H */
