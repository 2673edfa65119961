/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cldconfig.h - nilfs_cleanerd.conf: keys, defaults and the parser.
 *
 * The parser never prints: each invalid line is reported through a
 * callback with the file name and line number, and the key keeps its
 * previous value.  Sizes given as a percentage or in bytes are kept as
 * written and resolved against one volume's geometry by cld_resolve().
 */
#ifndef CLDCONFIG_H
#define CLDCONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <nlfs/gc.h>

#define CLD_NSEGMENTS_PER_CLEAN_MAX 32
#define NS_PER_SEC 1000000000ULL
#ifndef SYSCONFDIR
#define SYSCONFDIR "/etc"
#endif
#define DEFAULT_CONF SYSCONFDIR "/nilfs_cleanerd.conf"
/* a manual pass (nilfs-clean): segments per step, every MANUAL_INTERVAL */
#define MANUAL_INTERVAL (NS_PER_SEC / 10)
#define MANUAL_SPEED (1280ULL << 20)  /* bytes per second */

enum cld_unit {
	CLD_UNIT_COUNT,    /* a plain number: segments or blocks */
	CLD_UNIT_PERCENT,  /* of the segments of the volume / blocks of a segment */
	CLD_UNIT_BYTES,    /* num is in bytes (a size suffix was given) */
};

struct cld_size {
	uint64_t num;
	enum cld_unit unit;
};

struct cld_config {
	uint64_t protection_period;      /* ns */
	struct cld_size min_clean_segments;
	struct cld_size max_clean_segments;
	uint64_t clean_check_interval;   /* ns */
	enum nlfs_gc_policy selection_policy;
	unsigned nsegments_per_clean;
	unsigned mc_nsegments_per_clean;
	uint64_t cleaning_interval;      /* ns */
	uint64_t mc_cleaning_interval;   /* ns */
	uint64_t retry_interval;         /* ns */
	bool use_mmap;                   /* accepted; segments are read with pread */
	bool use_set_suinfo;
	int log_priority;                /* LOG_EMERG .. LOG_DEBUG */
	struct cld_size min_reclaimable_blocks;
	struct cld_size mc_min_reclaimable_blocks;
	/* the snapshot timeline (common/timeline.h): periods kept per
	 * bucket, all 0 (the default): off */
	unsigned timeline_hourly, timeline_daily, timeline_weekly, timeline_monthly,
		 timeline_yearly;
	char timeline_state_dir[256];    /* "": TL_STATE_DIR */
	struct cld_size timeline_max_space;   /* 0 (the default): no budget */
};

/* nilfs-utils' defaults (the built-in ones, not those of the shipped file) */
void cld_defaults(struct cld_config *c);

/* One message per invalid line: FILE, LINE (1-based) and what is wrong. */
typedef void (*cld_report_fn)(void *arg, const char *file, unsigned line, const char *msg);

/* Parse F (named NAME in messages) over C.  Returns the number of invalid
 * lines, or -errno if reading failed. */
int cld_parse_stream(struct cld_config *c, FILE *f, const char *name, cld_report_fn report,
		     void *arg);
/* Open PATH and parse it; -errno if it cannot be opened. */
int cld_parse_file(struct cld_config *c, const char *path, cld_report_fn report, void *arg);

/* Values as written in the file: 0 or -EINVAL / -ERANGE. */
int cld_parse_time(const char *s, uint64_t *ns);           /* "10", "0.5" seconds */
int cld_parse_size(const char *s, struct cld_size *out);   /* "10", "10%", "1G", "2MB" */
int cld_parse_priority(const char *s, int *prio);
const char *cld_priority_name(int prio);

/* Thresholds for one volume. */
struct cld_limits {
	uint64_t min_clean_segments;
	uint64_t max_clean_segments;
	uint32_t min_reclaimable_blocks;
	uint32_t mc_min_reclaimable_blocks;
	bool min_reclaimable_clamped, mc_min_reclaimable_clamped;
};
void cld_resolve(const struct cld_config *c, uint64_t nsegments, uint32_t blocks_per_segment,
		 uint32_t blocksize, struct cld_limits *out);
/* a size in segments (percent of NSEGMENTS rounded up, bytes rounded up) */
uint64_t cld_size_to_segments(const struct cld_size *s, uint64_t nsegments,
			      uint64_t segment_bytes);
/* a size in blocks of one segment, clamped to BLOCKS_PER_SEGMENT */
uint32_t cld_size_to_blocks(const struct cld_size *s, uint32_t blocks_per_segment,
			    uint32_t blocksize, bool *clamped);

/* a manual pass's default step: the segments of SEGMENT_BYTES that
 * MANUAL_SPEED cleans in INTERVAL ns, 1 to CLD_NSEGMENTS_PER_CLEAN_MAX */
unsigned cld_manual_step(uint64_t segment_bytes, uint64_t interval);

#endif /* CLDCONFIG_H */
