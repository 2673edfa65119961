/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vol.h - one NILFS2 volume as the checkpoint tools see it.
 *
 * The operations are the kernel's checkpoint and segment ioctls
 * (<linux/nilfs2_api.h>), with their structures and meaning.  Two backends
 * implement them: "mounted" calls the ioctls on the mount point, "image"
 * answers from the on-disk structures through libnlfs.  A backend that cannot
 * make changes leaves those operations NULL; vol_open() then refuses a
 * VOL_RDWR open with -ENOTSUP, so an offline writer plugs in by filling them.
 *
 * Every operation returns 0 (or a count) or a negative errno / NLFS_E* code;
 * vol_strerror() gives the message, with the library's context if any.
 */
#ifndef LSCP_VOL_H
#define LSCP_VOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/nilfs2_api.h>

#include <nlfs/nlfs.h>

struct vol;

struct vol_ops {
	int (*cpstat)(struct vol *v, struct nilfs_cpstat *st);
	/* GET_CPINFO: up to N entries from CNO in MODE (NILFS_CHECKPOINT or
	 * NILFS_SNAPSHOT); returns how many */
	long (*cpinfo)(struct vol *v, uint64_t cno, int mode, struct nilfs_cpinfo *ci, size_t n);
	int (*sustat)(struct vol *v, struct nilfs_sustat *st);
	/* GET_SUINFO from SEGNUM; returns how many */
	long (*suinfo)(struct vol *v, uint64_t segnum, struct nilfs_suinfo *si, size_t n);
	/* GET_VINFO / GET_BDESCS: fill in the arrays the caller keyed */
	long (*vinfo)(struct vol *v, struct nilfs_vinfo *vi, size_t n);
	long (*bdescs)(struct vol *v, struct nilfs_bdesc *bd, size_t n);
	/* a handle to read segment contents with (the device itself) */
	int (*segments)(struct vol *v, struct nlfs_fs **fs);

	/* changes: NULL if the backend cannot make them */
	int (*sync)(struct vol *v, uint64_t *cno);   /* a new checkpoint (SYNC) */
	int (*change_cpmode)(struct vol *v, uint64_t cno, int mode);
	int (*delete_checkpoint)(struct vol *v, uint64_t cno);
	/* the cleaner's lock, held around snapshot changes */
	int (*lock)(struct vol *v);
	int (*unlock)(struct vol *v);
	/* make the changes durable (offline: write them as one checkpoint);
	 * NULL where each change is durable at once */
	int (*commit)(struct vol *v);

	void (*close)(struct vol *v);
};

struct vol {
	const struct vol_ops *ops;
	bool mounted;
	char *dev;              /* the device or image file */
	char *mnt;              /* the mount point (mounted only) */
	void *priv;
	char detail[320];       /* context of the last library failure */
};

/* open modes: read-only or read-write, optionally with the cleaner's lock
 * prepared (nilfs_cleanerd's named semaphore, taken with ops->lock);
 * VOL_FORCE: offline, write even to a volume the library's quick check
 * (nlfs_fs_vet) calls damaged (--force) */
enum { VOL_RDONLY = 0, VOL_RDWR = 1, VOL_LOCK = 2, VOL_FORCE = 4 };

/*
 * Open the volume named by ARG (NULL: the only mounted NILFS2 volume): a
 * device, a mount point or any directory in a mounted NILFS2 file system, or
 * an image file (a loop-mounted one goes through its mount).  A device or
 * image that is not mounted is read offline.  On failure *MSG describes it
 * (the text after "cannot open NILFS on X: ").
 */
int vol_open(const char *arg, int mode, struct vol **out, char *msg, size_t len);
/* write pending changes (see vol_ops.commit); 0 if there were none */
int vol_commit(struct vol *v);
void vol_close(struct vol *v);
const char *vol_strerror(struct vol *v, int code);
/* the volume's UUID, from the superblock its reader chose (mounted: read
 * from the device); 0 or as ops->segments */
int vol_uuid(struct vol *v, uint8_t uuid[16]);

/* backends (vol_mount.c, vol_image.c: for a volume vol_open() found not mounted) */
int vol_mount_open(struct vol *v, int mode, char *msg, size_t len);
int vol_image_open(struct vol *v, int mode, char *msg, size_t len);

#endif
