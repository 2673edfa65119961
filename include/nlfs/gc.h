/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Cleaner decisions shared by the online daemon and the offline cleaner:
 * which segments to clean first (policies) and whether a block is live.
 */
#ifndef NLFS_GC_H
#define NLFS_GC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* gc_policy.c */
enum nlfs_gc_policy {
	NLFS_GC_TIMESTAMP,      /* oldest segment first (nilfs-utils' policy) */
	NLFS_GC_GREEDY,         /* fewest live blocks first */
	NLFS_GC_COST_BENEFIT,   /* highest (1 - u) * age / (1 + u) first, the age
				 * capped at the candidates' median age */
};
#define NLFS_GC_LIVE_UNKNOWN UINT32_MAX

struct nlfs_gc_candidate {
	uint64_t segnum;
	uint64_t lastmod;     /* seconds */
	uint32_t nblocks;     /* su_nblocks */
	uint32_t live;        /* live blocks, or NLFS_GC_LIVE_UNKNOWN */
	bool held;            /* kept by the kernel for recovery (seq >= ss_prot_seq) */
	double score;         /* set by nlfs_gc_rank: larger is cleaned first */
};

/* "timestamp", "greedy", "cost-benefit" (also "cost_benefit"); -EINVAL otherwise */
int nlfs_gc_policy_parse(const char *name, enum nlfs_gc_policy *out);
/* The name nlfs_gc_policy_parse takes. */
const char *nlfs_gc_policy_name(enum nlfs_gc_policy p);
/* Score and sort C best-first.  A segment modified in the future (clock
 * skew) counts as written at NOW.  Policies that need live counts use
 * nblocks where live is unknown. */
void nlfs_gc_rank(enum nlfs_gc_policy p, struct nlfs_gc_candidate *c, size_t n, uint64_t now,
		  uint32_t blocks_per_segment);
/* Whether one of the first K of the N ranked candidates C is held: the
 * online cleaner then has the kernel write its superblocks (which releases
 * them) rather than clean worse segments. */
bool nlfs_gc_held_in_first(const struct nlfs_gc_candidate *c, size_t n, size_t k);

/* gc_live.c: liveness of a block version that is not a DAT block */
struct nlfs_gc_protect {
	const uint64_t *snapshots;   /* sorted ascending */
	size_t nsnapshots;
	uint64_t protcno;            /* checkpoints >= protcno are protected (UINT64_MAX: none) */
};
/* FI_CNO from the block's finfo; [START, END) from its DAT entry.  True if
 * live. */
bool nlfs_gc_block_live(const struct nlfs_gc_protect *p, uint64_t fi_cno, uint64_t start,
			uint64_t end);
struct nlfs_fs;
struct nlfs_err;
/* A volume's protection (gc_offline.c): its snapshots, from the cpfile's
 * snapshot list (*SNAPS, which the caller frees, holds them), and the
 * oldest checkpoint created at or after LIMIT seconds (none: UINT64_MAX,
 * as with LIMIT UINT64_MAX), by a binary search on the checkpoint number
 * (creation times ascend with it): the snapshots' entries and
 * O(log checkpoints) others are read, whatever the protection period.
 * 0; -NLFS_ECORRUPT for a broken snapshot list; as nlfs_cpfile_info; -ENOMEM. */
int nlfs_gc_protect_load(struct nlfs_fs *fs, uint64_t limit, struct nlfs_gc_protect *p,
			 uint64_t **snaps, struct nlfs_err *err);
/* The blocks the logs of segment SEGNUM describe within its first NBLOCKS
 * (*TOTAL) and those of them that are live (*LIVE), read through the
 * reader (nlfs_segment_walk): a DAT data block while the DAT maps it there,
 * any other block by nlfs_gc_block_live when its DAT entry still points at
 * this copy (gc_live.c).
 * 0, or as nlfs_segment_walk. */
int nlfs_gc_segment_live(struct nlfs_fs *fs, uint64_t segnum, uint32_t nblocks,
			 const struct nlfs_gc_protect *p, uint64_t *live, uint64_t *total,
			 struct nlfs_err *err);
/* gc_hold.c: what snapshots SNAPS (N, ascending) alone hold, exactly, by
 * the liveness rule (nlfs_gc_block_live): every block version in use (a
 * DAT entry) that OTHERS' protection lets the cleaner reclaim and whose
 * period [start, end) holds some of SNAPS: those are consecutive,
 * SNAPS[first..last], and the version is reclaimable once all of them are
 * gone.  One pass over the DAT. */
struct nlfs_gc_held_run {
	uint32_t first, last;        /* indexes into SNAPS, first <= last */
	uint64_t blocks;             /* versions held by exactly this run */
};
struct nlfs_gc_held {
	struct nlfs_gc_held_run *runs;   /* one per run that holds any, unordered */
	size_t nruns;
	uint64_t live;               /* versions OTHERS' protection keeps */
	uint64_t dead;               /* versions none keeps: the cleaner's to reclaim */
};
/* Into *H (freed with nlfs_gc_held_free; N below 2^32).  0, or as
 * nlfs_bmap_keys, nlfs_palloc_read_group and nlfs_dat_lookup; -ENOMEM. */
int nlfs_gc_held_count(struct nlfs_fs *fs, const struct nlfs_gc_protect *others,
		       const uint64_t *snaps, size_t nsnaps, struct nlfs_gc_held *h,
		       struct nlfs_err *err);
void nlfs_gc_held_free(struct nlfs_gc_held *h);
/* the smallest checkpoint created at or after LIMIT, given checkpoints in
 * ascending cno order with their creation times; UINT64_MAX if none */
uint64_t nlfs_gc_protcno(const uint64_t *cnos, const uint64_t *create, size_t n, uint64_t limit);

/* gc_offline.c: the offline cleaner */
struct nlfs_io;
struct nlfs_writer;
struct nlfs_err;

struct nlfs_gc_stats {
	uint64_t passes, segments, blocks_moved, blocks_freed, checkpoints_deleted;
	uint64_t segments_planned;     /* reclaimable when the run began (a
					* timestamp run that is not manual
					* counts only those it reaches) */
	/* victims left as they are: a log of theirs fails its checksums, and
	 * copying its blocks would pass the damage on under new, valid ones */
	uint64_t segments_damaged, first_damaged;
};

struct nlfs_gc_params {
	enum nlfs_gc_policy policy;
	uint64_t now;                  /* seconds; also the new checkpoints' time */
	uint64_t protection_period;    /* seconds */
	uint64_t target_clean;         /* stop once this many segments are clean */
	bool manual;                   /* instead: every segment reclaimable at the start */
	uint32_t nsegments_per_clean;  /* victims per step; a construction takes all the
					* steps worth it that fit (gc_offline.c) */
	uint32_t min_reclaimable;      /* skip a segment that frees fewer blocks (0: a tenth) */
	uint64_t max_passes;
	/* write even to a volume nlfs_fs_vet calls damaged (a command's
	 * --write-damaged); otherwise the first pass refuses it */
	bool write_damaged;
	/* if set, told after each victim: segments cleaned of those planned */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
};

/* Clean the unmounted volume on IO until TARGET_CLEAN segments are clean,
 * nothing reclaimable is left, or MAX_PASSES constructions were made.  A
 * MANUAL run (nilfs-clean's) cleans every segment that is reclaimable when
 * it starts, whatever the clean count.  Before the first pass, unless
 * WRITE_DAMAGED: nlfs_fs_vet, and nlfs_fs_vet_cp_range on the checkpoints
 * older than the protected ones (any pass may delete them).
 * 0; -EBUSY for a volume not cleanly unmounted; -NLFS_EDAMAGED (see
 * WRITE_DAMAGED); as nlfs_fs_open, nlfs_writer_open and nlfs_writer_commit. */
int nlfs_gc_offline(struct nlfs_io *io, const struct nlfs_gc_params *p, struct nlfs_gc_stats *st,
		    struct nlfs_err *err);
/* One victim in the writer's construction (live blocks copied, dead freed).  0;
 * -EINVAL for a writer of a new volume; -EBUSY for a segment the writer uses;
 * as nlfs_segment_walk (STRICT), nlfs_dat_lookup and
 * nlfs_writer_delete_checkpoints (-NLFS_EDAMAGED); -ENOMEM. */
int nlfs_writer_gc_segment(struct nlfs_writer *w, uint64_t segnum,
			   const struct nlfs_gc_protect *prot, struct nlfs_gc_stats *st,
			   struct nlfs_err *err);

#endif /* NLFS_GC_H */
