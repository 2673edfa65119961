/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ops.h - nilfs-fuse's FUSE low-level operations over a volume. */
#ifndef NILFS_FUSE_OPS_H
#define NILFS_FUSE_OPS_H

#define FUSE_USE_VERSION 34
#include <fuse_lowlevel.h>

#include "nodes.h"
#include "volume.h"

#define DIR_CACHE 8

struct dirlist;

struct nfuse {
	struct volume vol;
	struct node_table nodes;
	struct dirlist *dcache[DIR_CACHE];   /* recent directories, for lookups */
	uint64_t dclock;
	struct fuse_bufvec *bufv;             /* read replies: runs of the device */
	size_t bufcap;                        /* room for bufcap - 1 more runs */
	uint8_t *zeros;                       /* holes */
	size_t zcap;
	unsigned max_read;                    /* -o max_read=N, which init must repeat */
	bool direct_io;                       /* -o direct_io: no page cache for files */
	uid_t uid;                            /* owner of the mount's own entries */
	gid_t gid;
};

extern const struct fuse_lowlevel_ops nfuse_ops;

/* st_ino of inode INO of checkpoint CNO: (CNO << 32) | INO while both fit
 * in 32 bits, unique across checkpoints; beyond, a mix of the two */
uint64_t nfuse_st_ino(uint64_t cno, uint64_t ino);
void nfuse_free(struct nfuse *nf);

#endif
