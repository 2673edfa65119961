/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline_state.h - how the timeline knows its own snapshots, and running
 * it on a volume.
 *
 * A checkpoint has no flag bit free to mark a snapshot as the timeline's,
 * so the timeline keeps the list in a state file of its own, one per
 * volume, named after the volume's UUID (DIR/UUID, DIR by default
 * TL_STATE_DIR): the number and creation time of each snapshot it made,
 * both checked against the volume before it acts (a volume made again with
 * the same UUID, or a checkpoint number reused, does not match).  The file
 * is replaced whole (a temporary file, fsync, rename, fsync of the
 * directory), so a crash leaves the old list or the new one.  A missing
 * file is an empty list: the timeline then owns nothing and demotes
 * nothing, its old snapshots stay as if a user had made them.
 *
 * The order of a run keeps the list from ever naming a snapshot the
 * timeline did not make: the snapshots it will demote leave the list
 * (written) before the volume changes, the ones it promoted join it after
 * the changes are durable.  A crash in between leaves snapshots the list
 * does not name (kept for good, like a user's), never the reverse.
 */
#ifndef NLFS_COMMON_TIMELINE_STATE_H
#define NLFS_COMMON_TIMELINE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/nilfs2_api.h>

#include <nlfs/gc.h>
#include "timeline.h"

#define TL_STATE_DIR "/var/lib/nilfs/timeline"
#define TL_STATE_DIR_ENV "NILFS_TIMELINE_STATE_DIR"

/* the state directory of the commands: $NILFS_TIMELINE_STATE_DIR if set
 * and not empty, else TL_STATE_DIR */
const char *tl_state_dir(void);
#define TL_UUID_LEN 37

/* the UUID as the state file's name ("0f5c...-..."), in BUF[TL_UUID_LEN] */
void tl_uuid_name(const uint8_t uuid[16], char buf[TL_UUID_LEN]);

/*
 * The owned list of volume UUID from PATH into *OUT (malloc'd), *N entries;
 * a missing file is an empty list.  0; -EINVAL for a file that is not a
 * timeline state of that volume (WHY says which line and why); -errno.
 */
int tl_state_load(const char *path, const char *uuid, struct tl_owned **out, size_t *n,
		  char *why, size_t whylen);
/* replace PATH with the list (creating its directory, mode 0755, if missing);
 * 0 or -errno */
int tl_state_save(const char *path, const char *uuid, const struct tl_owned *o, size_t n);

/* a volume the timeline runs on: the kernel's ioctls or the offline writer */
struct tl_vol {
	void *ctx;
	/* GET_CPINFO in checkpoint mode: up to N from CNO on; a count or -errno */
	long (*cpinfo)(void *ctx, uint64_t cno, struct nilfs_cpinfo *ci, size_t n);
	/* CHANGE_CPMODE; 0 or a negative code */
	int (*set_snapshot)(void *ctx, uint64_t cno, bool snapshot);
	/* make the changes durable; 0 or a negative code */
	int (*commit)(void *ctx);
	/* for the space budget: nlfs_gc_held_count on the volume, OTHERS the
	 * protection of what is not the timeline's (NULL: no budget) */
	int (*held)(void *ctx, const struct nlfs_gc_protect *others, const uint64_t *snaps,
		    size_t n, struct nlfs_gc_held *h);
	/* for the free-space limit: the volume's clean blocks (clean segments
	 * times blocks per segment); 0 or a negative code */
	int (*clean_blocks)(void *ctx, uint64_t *blocks);
	/* the changes take effect only when commit succeeds (the offline writer) */
	bool deferred;
};

/* nlfs_gc_held_count on DEVICE, a mounted volume's, read afresh (uncached);
 * the caller has synced the volume so that its DAT on disk is the latest
 * checkpoint's.  0, or as nlfs_io_open_unix, nlfs_fs_open and
 * nlfs_gc_held_count, with ERR set for the latter two. */
int tl_held_on_device(const char *device, const struct nlfs_gc_protect *others,
		      const uint64_t *snaps, size_t n, struct nlfs_gc_held *h, struct nlfs_err *err);

struct tl_options {
	struct tl_config cfg;
	time_t now;
	bool dry_run;
	/* the space budget in blocks (UINT64_MAX: none), and the cleaner's
	 * protection period in seconds (its checkpoints hold blocks too) */
	uint64_t budget;
	uint64_t protection_period;
	/* the free-space limit: the blocks the cleaner must be able to keep
	 * clean (its minimum of clean segments); 0: none.  What the
	 * timeline's snapshots hold is counted when the volume has fewer
	 * clean blocks, or with a budget */
	uint64_t min_free;
};

struct tl_outcome {               /* what a run did */
	int error;                    /* the first failure, 0 if none */
	const char *failed;           /* the step that failed: "list", "state", "held", "change", "commit" */
	uint64_t failed_cno;          /* the checkpoint of a failed change */
	size_t promoted, demoted;
	bool budgeted;                /* the budget was evaluated: */
	uint64_t held_before, held_after;   /* blocks only the timeline's snapshots hold */
	uint64_t allowed;             /* what they may hold under both limits */
	enum tl_limit limit;          /* the limit that bound */
	uint64_t clean, dead;         /* for the free-space limit: clean blocks, and
				       * blocks none holds (the cleaner's to reclaim) */
};

/*
 * One run: the plan for the volume (in *PLAN, freed by the caller with
 * tl_plan_free), made as the checkpoints stream by (the chooser holds
 * the kept ones, not all), the space budget applied if set, and, unless DRY_RUN, the
 * changes and the state file at STATE_PATH in the order above.  A change
 * that fails leaves the others to be made; OUT says what was done and the
 * first failure.  0, or the first failure's code.
 */
int tl_run(const struct tl_vol *v, const char *state_path, const char *uuid,
	   const struct tl_options *o, struct tl_plan *plan, struct tl_outcome *out,
	   char *why, size_t whylen);

#endif /* NLFS_COMMON_TIMELINE_STATE_H */
