/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef NLFS_MKFS_POPULATE_H
#define NLFS_MKFS_POPULATE_H

#include <nlfs/writer.h>

struct populate_stats {
	uint64_t files, dirs, symlinks, special, data_blocks;
};

/* Copy the tree at DIR into the root directory of W's checkpoint, with
 * a PROGRESS bar on standard error if it is a terminal.  On failure ERRBUF
 * names the path and the reason. */
int populate_tree(struct nlfs_writer *w, const char *dir, struct populate_stats *stats,
		  bool progress, char *errbuf, size_t errlen);
/* An empty root directory (mode 0755, owned by the caller). */
int populate_empty_root(struct nlfs_writer *w, uint64_t now, char *errbuf, size_t errlen);

#endif
