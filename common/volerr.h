/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * volerr.h - why a volume cannot be used, in the words every command
 * prints after "prog: OBJECT: ", so that the object is named once: a
 * directory, a busy device, another file system (libblkid names it), or
 * the library's reason.
 */
#ifndef NLFS_COMMON_VOLERR_H
#define NLFS_COMMON_VOLERR_H

#include <stdbool.h>
#include <stddef.h>

#include <nlfs/nlfs.h>

/* The type of the file system libblkid finds on PATH, if it is one and
 * not nilfs2 ("ext4"), into TYPE. */
bool cmd_foreign_type(const char *path, char *type, size_t len);

/*
 * Opening or reading the volume at PATH failed with RC (ERR: the library's
 * context, or NULL).  Returns the reason, without PATH: "is a directory,
 * not a device or an image file", "the device is in use (...)", "formatted
 * as ext4, not NILFS2", or the library's message with a leading "PATH: "
 * taken off.  BUF holds it if it is not static.
 */
const char *cmd_volume_reason(const char *path, int rc, const struct nlfs_err *err, char *buf,
			      size_t len);

#endif /* NLFS_COMMON_VOLERR_H */
