/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef NLFS_CLEANERD_OFFLINE_H
#define NLFS_CLEANERD_OFFLINE_H

#include <stdbool.h>
#include <stdio.h>

#include <nlfs/gc.h>

struct cld_config;
/* nilfs_cleanerd --offline: P's policy, protection period, victims per pass,
 * reclaim threshold and target (max_clean_segments) from the configuration
 * C, for the unmounted DEVICE; WRITE_DAMAGED: even to a volume the
 * library's quick check calls damaged (--write-damaged). */
int cleanerd_offline_conf(const char *device, const struct cld_config *c, bool write_damaged,
			  FILE *out, FILE *err);

struct cld_size;
/* nilfs-clean --offline: one manual pass over every segment reclaimable
 * now, whatever the clean count, with C's policy and protection period and
 * MINREC (NULL: C's min_reclaimable_blocks) as the reclaim threshold;
 * WRITE_DAMAGED as above. */
int cleanerd_offline_manual(const char *device, const struct cld_config *c,
			    const struct cld_size *minrec, bool write_damaged, FILE *out,
			    FILE *err);

#endif
