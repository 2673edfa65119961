/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A tiny, valid NILFS2 image built in memory for unit tests and fuzz seeds. */
#ifndef TESTIMG_H
#define TESTIMG_H

#include <nlfs/nlfs.h>
#include <nlfs/io_test.h>

#define TESTIMG_BS       1024u
#define TESTIMG_BPS      16u
#define TESTIMG_NSEGS    16u
#define TESTIMG_FIRST    4u
#define TESTIMG_DEVSIZE  (TESTIMG_NSEGS * TESTIMG_BPS * TESTIMG_BS + 4096u)
#define TESTIMG_LOG      TESTIMG_FIRST   /* block of the one log */
#define TESTIMG_NBLOCKS  3u              /* summary, one ifile block, super root */
#define TESTIMG_SEED     0x12345678u

/* Write the image into a fresh memory device. */
struct nlfs_io *testimg_create(void);
/* Recompute the log's checksums after a test edited it. */
void testimg_reseal_log(struct nlfs_io *io, uint64_t start);
/* Recompute one superblock copy's CRC after a test edited it. */
void testimg_reseal_sb(struct nlfs_io *io, uint64_t offset);

#endif
