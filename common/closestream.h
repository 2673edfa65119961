/* SPDX-License-Identifier: GPL-2.0-or-later */
/* closestream.h - a failed write to standard output is an error at exit. */
#ifndef NLFS_COMMON_CLOSESTREAM_H
#define NLFS_COMMON_CLOSESTREAM_H

/*
 * At exit, flush standard output; if that or an earlier write failed (a
 * full disk, a closed pipe), say so as "PROG: write error: ..." (not for
 * EPIPE, whose reader has gone) and exit with STATUS instead.  Call early
 * in main(); a later call changes PROG and STATUS only.
 */
void close_stdout_at_exit(const char *prog, int status);

#endif
