/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dump.nilfs2 stats: the volume's score-card figures. */
#ifndef DUMP_STATS_H
#define DUMP_STATS_H

#include <stdbool.h>
#include <nlfs/nlfs.h>

int dump_stats(struct nlfs_fs *fs, bool json, struct nlfs_err *err);

#endif
