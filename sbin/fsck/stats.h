/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.h - --stats: what each pass took, in time and in reads, printed
 * after the check (as e2fsck -t prints its passes' times).
 */
#ifndef FSCK_STATS_H
#define FSCK_STATS_H

#include <time.h>

#include <nlfs/io.h>

struct fsck;

#define FSCK_NPASSES 6

struct fsck_stats {
	struct fsck_pass_stats {
		double seconds;
		struct nlfs_io_stats io;   /* the checker's own reads */
	} pass[FSCK_NPASSES + 1];     /* by pass number */
	struct timespec start;
};

/* one step of a pass, from fsck_step_begin() to fsck_step_end() */
struct fsck_step_mark {
	struct timespec t;
	struct nlfs_io_stats io;
};

void fsck_stats_start(struct fsck_stats *s);
/* IO: the device the step reads (NULL: none yet) */
void fsck_step_begin(struct fsck_step_mark *m, const struct nlfs_io *io);
/* add the step to PASS; IO as the device is after the step (NULL if it was
 * closed: the step's reads are then not counted) */
void fsck_step_end(struct fsck_stats *s, int pass, const struct fsck_step_mark *m,
		   const struct nlfs_io *io);
/* the lines --stats prints; RA: the read-ahead thread's handle's counters */
void fsck_stats_print(struct fsck *c, const struct fsck_stats *s, const struct nlfs_io_stats *ra);

#endif /* FSCK_STATS_H */
