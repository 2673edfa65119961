/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ioc.h - the NILFS2 ioctls (<linux/nilfs2_api.h>) on a file descriptor of
 * the mounted filesystem, for every command that uses them (the cleaner,
 * the checkpoint tools, nilfs-resize, nilfs-tune).  Every call returns a
 * count or 0, or -errno; each first asks fstatfs() whether FD is on a
 * nilfs2 file system and fails with -EMEDIUMTYPE, without the ioctl, if
 * not (a generic request such as FS_IOC_SETFSLABEL would change any).
 */
#ifndef NLFS_COMMON_IOC_H
#define NLFS_COMMON_IOC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/nilfs2_api.h>

/* PATH (a mount point) opened for the ioctls: an fd on nilfs2, or -errno
 * (-EMEDIUMTYPE for another file system) */
int ioc_open(const char *path);
/* 0 if FD is on a nilfs2 file system, else -EMEDIUMTYPE (or fstatfs's) */
int ioc_check_fd(int fd);

int ioc_get_sustat(int fd, struct nilfs_sustat *st);
int ioc_get_cpstat(int fd, struct nilfs_cpstat *st);
/* segment usage of N segments from SEGNUM; returns how many were filled */
ssize_t ioc_get_suinfo(int fd, uint64_t segnum, struct nilfs_suinfo *si, size_t n);
/* MODE NILFS_CHECKPOINT: valid checkpoints >= CNO; NILFS_SNAPSHOT: the
 * snapshot list from CNO (0 = its head) */
ssize_t ioc_get_cpinfo(int fd, uint64_t cno, int mode, struct nilfs_cpinfo *ci, size_t n);
/* fills vi_start/end/blocknr of the vi_vblocknr given */
ssize_t ioc_get_vinfo(int fd, struct nilfs_vinfo *vi, size_t n);
/* fills bd_blocknr (0 if absent) of the bd_offset/bd_level given */
ssize_t ioc_get_bdescs(int fd, struct nilfs_bdesc *bd, size_t n);
int ioc_clean_segments(int fd, const struct nilfs_vdesc *vd, size_t nvd,
		       const struct nilfs_period *pd, size_t npd,
		       const uint64_t *vbn, size_t nvbn,
		       const struct nilfs_bdesc *bd, size_t nbd,
		       const uint64_t *segnums, size_t nsegs);
/* one checkpoint; -EBUSY for a snapshot, -ENOENT if there is none */
int ioc_delete_checkpoint(int fd, uint64_t cno);
int ioc_set_suinfo(int fd, const struct nilfs_suinfo_update *sup, size_t n);
int ioc_sync(int fd, uint64_t *cno);
/* MODE NILFS_CHECKPOINT or NILFS_SNAPSHOT; checkpoint 0 never exists
 * (-EINVAL, as libnilfs) */
int ioc_change_cpmode(int fd, uint64_t cno, int mode);
/* the new size of the device in bytes */
int ioc_resize(int fd, uint64_t size);
/* FS_IOC_SETFSLABEL (nilfs2 from Linux 6.12): LABEL is FSLABEL_MAX bytes */
int ioc_set_label(int fd, const char *label);
/* segments outside [START, END) in bytes are no longer allocated */
int ioc_set_alloc_range(int fd, uint64_t start, uint64_t end);

#endif /* NLFS_COMMON_IOC_H */
