/* SPDX-License-Identifier: GPL-2.0-or-later */
/* array.h - growing arrays in the commands, by the library's nlfs_grow
 * (one place for the doubling and its overflow checks). */
#ifndef NLFS_COMMON_ARRAY_H
#define NLFS_COMMON_ARRAY_H

#include <errno.h>
#include <nlfs/nlfs.h>

/* room in ARR (room for CAP) for NEED items: 0 or -ENOMEM */
#define CLI_GROW(arr, cap, need) nlfs_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))
/* append VAL to ARR[N] (room for CAP): 0 or -ENOMEM */
#define CLI_PUSH(arr, n, cap, val) \
	(CLI_GROW(arr, cap, (n) + 1) ? -ENOMEM : ((arr)[(n)++] = (val), 0))

#endif
