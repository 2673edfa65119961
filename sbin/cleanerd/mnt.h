/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mnt.h - finding a NILFS2 volume's mount in /proc/self/mountinfo. */
#ifndef CLD_MNT_H
#define CLD_MNT_H

#include <stdbool.h>
#include <sys/types.h>

#define CLD_MOUNTINFO "/proc/self/mountinfo"

struct cld_mount {
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
int cld_find_mount(const char *path, dev_t dev, const char *dir, struct cld_mount *out);
/* the first read-write nilfs2 mount, for "nilfs-clean" without a device */
int cld_find_any_mount(const char *path, struct cld_mount *out);
void cld_mount_free(struct cld_mount *m);

#endif /* CLD_MNT_H */
