/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * apply.h - nilfs-receive's file operations: one stream command applied
 * under a directory, every path resolved from it without following a
 * symbolic link (openat2 RESOLVE_NO_SYMLINKS, or openat with O_NOFOLLOW
 * component by component), so that no
 * command reaches outside it; the top-level name RECV_PRIVATE is the
 * receiver's own and no stream may name it.
 */
#ifndef SEND_APPLY_H
#define SEND_APPLY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "sendstream.h"

#define RECV_PRIVATE ".nilfs-receive"

struct apply {
	int top;                 /* the receiving directory */
	int orphans;             /* RECV_PRIVATE/orphans (-1 until needed) */
	int *fds;                /* the directories of the last parent path, */
	size_t nfds, fdcap;      /* component by component, kept open (-1: */
	                         /* opened with a deeper one, not kept) */
	bool no_openat2;         /* the kernel opens no path in one call */
	char *ppath;             /* that path */
	int wfd;                 /* the file the last write went to */
	char *wpath;
	bool chown_denied;       /* not root: owners are left as they come */
	char *seen_path;         /* the last command's path, if a CHOWN that */
	struct stat seen_st;     /* found the owner so: what it found */
	char why[300];           /* what failed */
};

void apply_init(struct apply *a, int top);
/* C applied: 0, or -1 with the reason in A->why */
int apply_cmd(struct apply *a, const struct sstream_cmd *c);
/* close what the last commands left open: 0, or -1 (a write that failed
 * late) */
int apply_finish(struct apply *a);

#endif
