/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nilfs-resize: what its parts share. */
#ifndef NLFS_RESIZE_CMD_H
#define NLFS_RESIZE_CMD_H

#include <stdbool.h>
#include <stdint.h>

struct resize_opts {
	bool verbose, assume_yes;
	bool write_damaged;    /* --write-damaged: offline, even a damaged volume */
	const char *device;
	uint64_t devsize;      /* of the partition or image file now */
	uint64_t size;         /* the size asked for */
	bool is_file;          /* an image file: it is extended or cut */
};

/* resize.c: nilfs-utils' messages go to standard error */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
struct nlfs_err;
/* "nilfs-resize: DEVICE: why" for a volume that cannot be used (RC; ERR the
 * library's context or NULL), the device named once */
void say_unusable(const struct resize_opts *o, int rc, const struct nlfs_err *err);
/* "Do you wish to proceed (y/N)? " unless -y; true to go on */
bool confirm(const struct resize_opts *o);
/* a progress bar on a terminal (standard error), nothing elsewhere */
void progress_show(void *arg, uint64_t done, uint64_t total);

struct nlfs_resize_info;
/* what a shrink will do, in nilfs-utils' words; with NOSPACE the error
 * (and the smallest size that would do) and -1, the caller says "Aborted." */
int report_shrink(const struct resize_opts *o, const struct nlfs_resize_info *ri, bool nospace);

/* offline.c: an unmounted device or image; EXIT_SUCCESS or EXIT_FAILURE */
int resize_offline(const struct resize_opts *o);
/* online.c: s_dev_size of the volume on DEVICE, from the superblock copy
 * the kernel would use; 0 or a negative errno */
int resize_fs_size(const char *device, uint64_t *size);
/* online.c: the volume mounted at MOUNTPOINT */
int resize_online(const struct resize_opts *o, const char *mountpoint);
/* shrink_online.c: the shrink part, on FD, a file of the mounted volume
 * whose size is CUR bytes; 0 or -1 (the error said) */
int shrink_online(const struct resize_opts *o, int fd, uint64_t cur);

#endif
