/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * args.h - the command line of a mount helper.  mount(8) runs a helper as
 * "mount.TYPE SOURCE DIR -o OPTS": the options after the positional
 * arguments.  GNU getopt would reorder them, musl's and POSIX getopt stop
 * at SOURCE, so the helpers walk the arguments themselves.
 */
#ifndef NILFS_MOUNT_ARGS_H
#define NILFS_MOUNT_ARGS_H

#include <stddef.h>
#include <stdio.h>

/* called for each option letter C (ARG: its argument or NULL); nonzero
 * stops the walk and is returned */
typedef int (*args_option_fn)(void *ctx, int c, const char *arg);

#define ARGS_ERR_UNKNOWN (-1)     /* a letter not in the option string */
#define ARGS_ERR_MISSING (-2)     /* an option without its argument */
#define ARGS_ERR_TOO_MANY (-3)    /* more positional arguments than room */

/*
 * Walk ARGV[1..ARGC-1]: "-abc" clusters of the letters in OPTSTRING (a
 * letter followed by ':' takes an argument, glued or the next word),
 * anywhere on the line; "--" ends the options; "--help" and "--version"
 * are passed as 'h' and 'V'.  Everything else (and "-") is a positional
 * argument, stored in POS (room for MAXPOS) in order, counted in *NPOS.
 * Returns 0, a nonzero value from FN, or ARGS_ERR_* with *BADOPT the
 * offending word.
 */
int args_walk(int argc, char **argv, const char *optstring, args_option_fn fn, void *ctx,
	      char **pos, size_t maxpos, size_t *npos, const char **badopt);

/* the end of both helpers' --help: -v, -h, -V and the man page */
void args_usage_tail(FILE *f);

#endif /* NILFS_MOUNT_ARGS_H */
