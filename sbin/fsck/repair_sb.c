/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * repair_sb.c - superblock repairs: a bad copy rewritten from the good one,
 * and --rollback.  (Being written; until then they change nothing.)
 */
#include "fsck.h"

int repair_superblocks(struct fsck *c, struct nlfs_io *io)
{
	(void)c;
	(void)io;
	return 0;
}

int repair_rollback(struct fsck *c, struct nlfs_io *io)
{
	(void)io;
	fsck_info(c, "--rollback is not available yet");
	return 0;
}
