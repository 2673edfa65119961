/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devtag.h - a device named by its tag: UUID=, LABEL=, PARTUUID= or
 * PARTLABEL=, wherever a command takes a device (as e2fsck and mount do).
 */
#ifndef NLFS_COMMON_DEVTAG_H
#define NLFS_COMMON_DEVTAG_H

/*
 * *DEV = the device ARG names: ARG itself, or for a tag the device libblkid
 * finds carrying it (kept until exit).  0, -ENODEV when no device carries
 * the tag, -ENOMEM.  A file whose name looks like a tag is named ./NAME.
 */
int dev_lookup(const char *arg, const char **dev);

/* why dev_lookup(ARG) failed with RC, in words ("no device has this label") */
const char *dev_lookup_reason(const char *arg, int rc);

/* dev_lookup for a command's device argument: NULL after "prog: ARG: why"
 * (cli_warnx) on standard error */
const char *dev_resolve(const char *arg);

#endif
