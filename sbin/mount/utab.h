/* SPDX-License-Identifier: GPL-2.0-or-later */
/* utab.h - the helpers' reading and writing of a mount's utab attributes. */
#ifndef NILFS_MOUNT_UTAB_H
#define NILFS_MOUNT_UTAB_H

#include <libmount.h>

#include "attrs.h"

#define NILFS2_TYPE "nilfs2"

/* The attributes recorded for FS (all zero if none, or if they do not
 * parse, which is said on stderr, cli_warnx). */
void utab_read_attrs(struct libmnt_fs *fs, struct nilfs_attrs *a);

/* Put A on FS, to be written by the context's finalize.  0 or -errno. */
int utab_put_attrs(struct libmnt_fs *fs, const struct nilfs_attrs *a);

/* Replace the attributes of the utab entry of the mount FS (source and
 * target) by A, outside a mount context: after a remount or an unmount
 * that failed.  0 or a libmount error. */
int utab_rewrite_attrs(struct libmnt_fs *fs, const struct nilfs_attrs *a);

/* mount(8)'s message (on stderr, "prog: WHAT: message", DEFAULT_MSG if
 * libmount has none) and exit code for libmount's result RC */
int utab_failure(struct libmnt_context *cxt, const char *what, int rc, const char *default_msg);

#endif /* NILFS_MOUNT_UTAB_H */
