/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A volume of five checkpoints built with the library's writer, for the
 * diff walk's unit test and its fuzzer's seed (diffimg.c says what
 * changes between them). */
#ifndef DIFFIMG_H
#define DIFFIMG_H

#include <nlfs/nlfs.h>

#define DIFFIMG_BS 1024u

/* Build it on a fresh memory device of SIZE bytes with segments of BPS
 * blocks: 0 and *OUT, or a negative error with ERR filled. */
int diffimg_build(uint64_t size, uint32_t bps, struct nlfs_io **out, struct nlfs_err *err);

#endif
