/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mountinfo.h - finding mounts in /proc/self/mountinfo, for the commands. */
#ifndef NLFS_COMMON_MOUNTINFO_H
#define NLFS_COMMON_MOUNTINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define MNT_MOUNTINFO "/proc/self/mountinfo"

struct mnt_entry {
	char *mountpoint;     /* unescaped */
	char *source;         /* the device as mount(8) named it */
	dev_t dev;            /* major:minor of the filesystem */
	bool rw;
};

/*
 * The nilfs2 mount of device number DEV in the mountinfo file at PATH.  If
 * DIR is not NULL only a mount at that (canonical) directory counts.  A
 * read-write mount is preferred.  Returns 0; -ENOENT if DEV is not mounted
 * (there, as nilfs2); -EROFS if it is mounted read-only only (OUT is still
 * filled); other -errno if PATH cannot be read.
 */
int mnt_find(const char *path, dev_t dev, const char *dir, struct mnt_entry *out);
/* the first read-write nilfs2 mount, for "nilfs-clean" without a device */
int mnt_find_any(const char *path, struct mnt_entry *out);
void mnt_free(struct mnt_entry *m);
/* Every mount of FSTYPE (NULL: any) in the mountinfo file at PATH, in its
 * order: 0 (*N may be 0), or -errno if PATH cannot be read or on ENOMEM.
 * mnt_list_free() frees them. */
int mnt_list(const char *path, const char *fstype, struct mnt_entry **out, size_t *n);
void mnt_list_free(struct mnt_entry *m, size_t n);
/* The device numbers of the loop devices whose backing file is FILE (up to
 * MAX of them): how many there are. */
size_t mnt_loops_of(const char *file, dev_t *devs, size_t max);
/* Is PATH in use by a mount: a block device mounted (any file system), or
 * an image file backing a mounted loop device?  0 or -errno from stat. */
int mnt_in_use(const char *path, bool *mounted, bool *ro, char *where, size_t len);
/* the same, as a yes/no */
bool mnt_path_mounted(const char *path);

#endif /* NLFS_COMMON_MOUNTINFO_H */
