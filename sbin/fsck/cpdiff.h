/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpdiff.h - checking a checkpoint by difference with the one before
 * (cpdiff.c), for pass 6's driver (pass_checkpoint.c).
 */
#ifndef FSCK_CPDIFF_H
#define FSCK_CPDIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "fsck.h"

struct cpdiff;

/* what the walk of a checkpoint tells the difference code (fsck.h) */
extern const struct cp_diff_hooks cpdiff_hooks;

/* room for checking CNOS[NCNOS] by difference in *D: 0 (*D NULL where
 * there is one checkpoint only), or -ENOMEM (*D NULL: each is walked
 * whole) */
int cpdiff_new(struct fsck *c, const uint64_t *cnos, uint64_t ncnos, struct cpdiff **d);
void cpdiff_free(struct cpdiff *d);
/* the checkpoint at hand is CNOS[K] */
void cpdiff_step(struct cpdiff *d, uint64_t k);
/* does D hold a clean checkpoint's state to compare the next with? */
bool cpdiff_kept(const struct cpdiff *d);
/* the checkpoint at hand by difference with the one kept: true if it is
 * clean (and kept now); false if it must be walked whole (the state is
 * dropped) */
bool cpdiff_try(struct cpdiff *d);
/* take CP (true) as the state the next checkpoint is compared with; its
 * ifile map counted IFILE_NBLOCKS, NGROUPS groups */
bool cpdiff_adopt(struct fsck *c, struct cpdiff *d, struct fsck_cp *cp, uint64_t ninodes,
		  uint64_t ifile_nblocks, uint64_t ngroups);
/* the checkpoint at hand was walked whole: if it was not adopted, what
 * its walk filed for the checkpoints to come is forgotten */
void cpdiff_walked(struct cpdiff *d);

#endif /* FSCK_CPDIFF_H */
