/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * strutils.h - the one reading of numbers on every command line of the
 * suite.
 *
 * The rule is util-linux's strtou64_or_err(): a number is decimal (no 0x,
 * and a leading 0 is not octal), the whole argument, leading blanks and a
 * '+' allowed as strtoumax() allows them, a '-' refused (strtoull would read
 * "-1" as 2^64-1).  Each returns 0, -EINVAL (not a number of the kind) or
 * -ERANGE (too large); nothing is stored on failure.
 */
#ifndef NLFS_COMMON_STRUTILS_H
#define NLFS_COMMON_STRUTILS_H

#include <stdint.h>

/* a number, all of S */
int cli_strtou64(const char *s, uint64_t *v);
/* a number up to MAX (-ERANGE above it) */
int cli_strtou64_max(const char *s, uint64_t max, uint64_t *v);
/* the digits at the start of S (after blanks and '+'), *END after them */
int cli_strtou64_prefix(const char *s, uint64_t *v, const char **end);

/* a signed int, decimal, as util-linux's strtos32_or_err: a '-' allowed */
int cli_strtoint(const char *s, int *v);

/* a checkpoint number: a number below NLFS_CNO_MAX (0 is read; the caller
 * says whether it is allowed) */
int cli_strtocno(const char *s, uint64_t *cno);
/* a checkpoint range: CNO, A..B, ..B (from 1) or A.. (to NLFS_CNO_MAX);
 * A > B is read, the caller refuses it where it must */
int cli_strtocno_range(const char *s, uint64_t *start, uint64_t *end);

/* a period in seconds: a number, or a number and one of s, m, h, d, w,
 * M (31 days), Y (365 days), as nilfs-utils reads a protection period */
int cli_strtoperiod(const char *s, uint64_t *seconds);

/* a size in bytes: a number and an optional unit, K, M, G, T, P, E or
 * KiB, MiB ... (powers of 1024), kB, KB, MB, GB ... (powers of 1000) */
int cli_strtosize(const char *s, uint64_t *bytes);
/* the unit part of a size alone ("" is 1) */
int cli_size_unit(const char *unit, uint64_t *mult);

#endif
