/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cptarget.h - the volume the time-travel commands (nilfs-diff,
 * nilfs-history, nilfs-send) read: a device, an
 * image file or a mount point.  A mounted volume is read from its device
 * (NILFS2 never rewrites a block in place, only the cleaner reclaims one),
 * after a sync, and the checkpoints read are held against the cleaner as
 * snapshots for the duration, given back afterwards.
 */
#ifndef NLFS_COMMON_CPTARGET_H
#define NLFS_COMMON_CPTARGET_H

#include <stdbool.h>
#include <stdint.h>

#include <nlfs/nlfs.h>

struct vol;

#define TARGET_MAX_HOLDS 2

struct target {
	struct vol *vol;          /* the mount's ioctls (mounted only) */
	struct nlfs_fs *fs;
	const char *name;         /* as the user named it, for messages */
	bool mounted;
	int fd;                   /* the mount point, for the ioctls (-1: none) */
	uint64_t held[TARGET_MAX_HOLDS];   /* checkpoints made snapshots by us */
	unsigned nheld;
};

/* Open ARG; on failure "prog: ARG: reason" is printed.  0 or -1. */
int target_open(struct target *t, const char *arg);
/* The latest checkpoint (after a sync of a mounted volume). */
int target_latest(struct target *t, uint64_t *cno);
/* Check that checkpoint CNO exists and, on a mounted volume, hold it
 * against the cleaner; a message and -1 if it cannot be. */
int target_hold(struct target *t, uint64_t cno);
/* After a failed read: the checkpoint among CNOS (N of them) that no
 * longer exists, or 0. */
uint64_t target_vanished(struct target *t, const uint64_t *cnos, unsigned n);
/* Give the held checkpoints back, close everything. */
void target_close(struct target *t);

#endif
