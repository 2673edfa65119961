/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * linefmt.h - fast fixed layouts for listings of many lines (lscp, lssu):
 * a line is built in a caller's buffer from right-aligned decimals, text
 * and local times, then written with one fwrite; no printf per field.
 *
 * Local times come from a cache of one 15-minute window (aligned in UTC)
 * over which the UTC offset does not change: localtime_r() is asked at
 * both ends of the window, and the times inside it are then plain
 * arithmetic.  No time zone changes its offset twice within 15 minutes, so
 * equal offsets at both ends hold for the whole window; where they differ
 * (a transition inside), each time is asked of localtime_r() directly.
 */
#ifndef NLFS_COMMON_LINEFMT_H
#define NLFS_COMMON_LINEFMT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct lf_time_cache {
	int64_t lo, hi;         /* the window [lo, hi) in seconds since the epoch */
	int64_t off;            /* its UTC offset */
	bool valid;
};

/* V in decimal, right-aligned in WIDTH columns (wider if it needs more);
 * returns the end of what was written */
char *lf_u64(char *p, uint64_t v, unsigned width);
/* S as it is */
char *lf_str(char *p, const char *s);
/* "YYYY-MM-DD HH:MM:SS" of T in local time, as cli_format_time() has it
 * (the number itself for a time localtime_r() cannot break down); writes
 * at most LF_TIME_MAX bytes */
#define LF_TIME_MAX 24
char *lf_time(struct lf_time_cache *c, uint64_t t, char *p);

/* stdout in blocks of BYTES when it is not a terminal (a terminal keeps
 * its lines as they come) */
void lf_buffer_stdout(size_t bytes);
/* the line [LINE, END) to stdout */
static inline void lf_put(const char *line, const char *end)
{
	fwrite(line, 1, (size_t)(end - line), stdout);
}

#endif
