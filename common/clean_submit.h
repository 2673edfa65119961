/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * clean_submit.h - hand a cleaning plan (clean_plan.h) to the kernel so that a failure
 * cannot leave a DAT entry live for a block no file has any more.
 *
 * NILFS_IOCTL_CLEAN_SEGMENTS deletes the checkpoints of its periods first,
 * then frees virtual blocks and marks DAT blocks, and if one of these
 * steps fails it puts back only the DAT (from the shadow copy it took at
 * the start).  The checkpoints it had deleted stay deleted, and a cpfile
 * block emptied by them stays out of the cpfile, but the end the DAT had
 * recorded for that block's virtual address is undone: the entry stays
 * live for ever.  The deletion itself returns -EBUSY after deleting every
 * other checkpoint of a range that holds a snapshot (one taken after the
 * plan was made), so this happens without any I/O error.
 *
 * So the checkpoints go first, one NILFS_IOCTL_DELETE_CHECKPOINT each: that
 * ioctl refuses a snapshot before touching anything and takes no shadow
 * copy, so a cpfile block it empties and the DAT entry it ends are written
 * together.  CLEAN_SEGMENTS then gets no periods.  If a checkpoint of the
 * plan cannot be deleted, the segments are not cleaned in this pass: a
 * block the plan calls dead may belong to that checkpoint.
 */
#ifndef CLD_SUBMIT_H
#define CLD_SUBMIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/nilfs2_api.h>

#include "clean_plan.h"

/* the kernel calls a submission makes (tests give their own) */
struct cld_kops {
	/* valid checkpoints from CNO on (NILFS_CHECKPOINT mode); count or -errno */
	ssize_t (*get_cpinfo)(void *ctx, uint64_t cno, struct nilfs_cpinfo *ci, size_t n);
	int (*delete_checkpoint)(void *ctx, uint64_t cno);
	/* CLEAN_SEGMENTS with P's arrays but no periods */
	int (*clean_segments)(void *ctx, const struct cld_plan *p);
	void *ctx;
};

/* the kernel calls on the mounted volume open in *FD */
struct cld_kops cld_kops_ioctl(int *fd);

enum cld_stage { CLD_STAGE_NONE, CLD_STAGE_CHECKPOINTS, CLD_STAGE_CLEAN };

struct cld_submit_result {
	enum cld_stage failed;   /* where it stopped; NONE: the segments were cleaned */
	int error;               /* -errno of the failing call */
	uint64_t cno;            /* CHECKPOINTS: the checkpoint that could not be deleted */
	size_t deleted;          /* checkpoints deleted */
};

/* Delete P's checkpoints, then clean P's segments; 0 or the failing -errno,
 * the details in *R. */
int cld_submit(const struct cld_kops *k, const struct cld_plan *p, struct cld_submit_result *r);

#endif /* CLD_SUBMIT_H */
