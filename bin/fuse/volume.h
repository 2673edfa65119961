/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * volume.h - the volume nilfs-fuse shows: the library's handle, the list of
 * checkpoints, each checkpoint's ifile, and the refresh that picks up
 * checkpoints written since (the kernel's, on a mounted device).
 */
#ifndef NILFS_FUSE_VOLUME_H
#define NILFS_FUSE_VOLUME_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <nlfs/nlfs.h>

struct vol_cp {
	uint64_t cno;
	uint64_t create;      /* seconds */
	bool snapshot;
};

#define VOL_IFILE_CACHE 16

struct volume {
	char *device;
	struct nlfs_fs *fs;
	int fd;                     /* the device again, for splicing its bytes */
	uint64_t latest;            /* the checkpoint the latest super root commits */
	struct vol_cp *cps;         /* ascending */
	size_t ncps, cap;
	/* what the last open found, to tell a change */
	uint64_t sr_block, nlogs_after_sr;
	struct timespec last_probe;
	struct {
		uint64_t cno;           /* 0: empty */
		uint64_t used;
		struct nlfs_file ifile;
	} ifc[VOL_IFILE_CACHE];
	uint64_t ifc_clock;
	struct nlfs_err err;        /* the last failure's detail */
};

/* Open DEVICE (a block device or an image file) and list its checkpoints. */
int vol_open(struct volume *v, const char *device);
void vol_close(struct volume *v);
/* At most once a second: whether a new log was written (the volume found
 * again on a fresh, uncached look), and if so the handle and the list
 * replaced.  Errors leave the old view. */
void vol_refresh(struct volume *v);
/* the checkpoint CNO in the list, or NULL */
const struct vol_cp *vol_cp_find(const struct volume *v, uint64_t cno);
/* the ifile of checkpoint CNO */
int vol_ifile(struct volume *v, uint64_t cno, const struct nlfs_file **ifile);
/* inode INO of checkpoint CNO */
int vol_inode(struct volume *v, uint64_t cno, uint64_t ino, struct nlfs_file *out);
/* a library return as an errno for the kernel: format errors are EIO */
int vol_errno(int rc);
/* the last failure, once on standard error (seen in the foreground),
 * after WHAT was being done (NULL: the failure says it) */
void vol_report(struct volume *v, const char *what, int rc);

#endif
