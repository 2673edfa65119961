/* SPDX-License-Identifier: GPL-2.0-or-later */
/* extract.h: restore a subtree of a checkpoint into a host directory. */
#ifndef DUMP_EXTRACT_H
#define DUMP_EXTRACT_H

#include <stdint.h>

#include <nlfs/nlfs.h>

/*
 * Restore PATH (an absolute path in checkpoint CNO, 0 = latest) into the
 * host directory DEST, created if missing.  A directory's contents land
 * in DEST itself (and DEST takes the directory's metadata); any other
 * file becomes DEST/basename(PATH).  Returns 0 or a negative error and
 * fills ERR; prints nothing but a progress bar when standard error is a
 * terminal.
 */
int dump_extract(struct nlfs_fs *fs, uint64_t cno, const char *path, const char *dest,
		 struct nlfs_err *err);

#endif /* DUMP_EXTRACT_H */
