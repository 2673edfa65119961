/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nilfs-tune: what its parts share. */
#ifndef NLFS_TUNE_H
#define NLFS_TUNE_H

#include <stdint.h>
#include <stdio.h>

#include <nlfs/nlfs.h>

/* list.c: the superblock as nilfs-utils 2.2.9's "nilfs-tune -l" prints it */
void tune_list(FILE *out, const struct nlfs_super_block *sb);

/* feature.c: feature names as nilfs-utils spells them */
enum { TUNE_COMPAT = 0, TUNE_COMPAT_RO = 1, TUNE_INCOMPAT = 2 };
/* the name of bit MASK of feature word TYPE ("block_count", "FEATURE_R5") */
const char *tune_feature_name(int type, uint64_t mask, char *buf, size_t len);
/* Apply "[^]feature,..." (or "none") to the three feature words F.  Only
 * the features nilfs-tune may change are accepted: on a refused or unknown
 * one, a message goes into WHY and -1 is returned with F unchanged. */
int tune_edit_features(const char *list, uint64_t f[3], char *why, size_t len);

#endif
