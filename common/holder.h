/* SPDX-License-Identifier: GPL-2.0-or-later */
/* holder.h - naming what holds a busy device, for the commands' messages. */
#ifndef NLFS_COMMON_HOLDER_H
#define NLFS_COMMON_HOLDER_H

#include <stddef.h>

/*
 * After an exclusive open of PATH failed with EBUSY: what holds it, as
 * "mounted on /mnt, held by dm-0" (or a generic phrase when nothing
 * visible does).  0, or -errno if PATH cannot be looked at.
 */
int dev_describe_holders(const char *path, char *out, size_t len);

/* why opening PATH failed with RC, in words: nlfs_strerror(), or for EBUSY
 * what holds the device (written into BUF) */
const char *dev_open_reason(const char *path, int rc, char *buf, size_t len);

#endif /* NLFS_COMMON_HOLDER_H */
