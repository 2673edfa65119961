/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * assess.h - lssu -l: how many blocks of a segment the cleaner would have
 * to keep, judged the way nilfs_cleanerd judges them (format §9.2).
 */
#ifndef LSCP_ASSESS_H
#define LSCP_ASSESS_H

#include "vol.h"

struct assess {
	struct vol *vol;
	uint64_t protseq;       /* ss_prot_seq: newer segments are protected */
	uint64_t protcno;       /* blocks seen by this checkpoint or later stay */
	uint64_t *ss;           /* the snapshots, ascending */
	size_t nss;
	bool have_ss;
};

/* *LIVE blocks still needed in SEGNUM; *PROT if the cleaner may not touch it
 * at all (in use, or too recent for the older superblock) */
int assess_segment(struct assess *a, uint64_t segnum, uint64_t *live, bool *prot);
void assess_free(struct assess *a);

/* the oldest checkpoint created no longer than PERIOD seconds before NOW,
 * walking back from the latest (NLFS_CNO_MAX: none) */
int assess_protcno(struct vol *v, uint64_t now, uint64_t period, uint64_t *cno);

#endif
