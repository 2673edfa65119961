/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * send.h - what nilfs-send's parts share: the stream being written and the
 * checkpoint(s) read, and the commands that send one file (emit.c).  The
 * full tree is sent by full.c, the difference from a parent by
 * incremental.c (on the library's nlfs_diff).  Every function that fails
 * has printed why ("nilfs-send: ...") and returns -1.
 */
#ifndef SEND_SEND_H
#define SEND_SEND_H

#include <stdint.h>

#include <nlfs/nlfs.h>
#include "sendstream.h"

struct send {
	struct nlfs_fs *fs;
	const char *name;              /* the volume as the user named it */
	struct sstream_writer w;
	const char *out_name;          /* the stream's file, for messages */
	uint64_t cno, parent;          /* parent 0: a full stream */
	struct nlfs_file ifile, old_ifile;
	uint32_t bs;
	uint8_t *buf;                  /* SSTREAM_MAX_DATA bytes */
	uint64_t data_bytes;           /* bytes of file contents sent */
};

/* C, or a message */
int send_cmd(struct send *s, const struct sstream_cmd *c);
/* a message for a library failure about PATH (may be NULL) */
int send_lib_fail(struct send *s, int rc, const struct nlfs_err *err, const char *path);
/* the stream path of an absolute checkpoint path ("/a/b" -> "a/b", "/" -> "") */
const char *send_rel(const char *abs);
/* chown, chmod (not for a symbolic link) and utimes of inode I at PATH */
int send_attrs(struct send *s, const char *path, const struct nlfs_inode *i);
/* a file that is new at PATH: mkdir, create and its contents, symlink or
 * mknod (no attributes: the caller sends them when the file is complete) */
int send_new(struct send *s, const char *path, const struct nlfs_file *f);
/* the blocks KEYS (ascending) of F written at PATH, none past SIZE */
int send_blocks(struct send *s, const char *path, const struct nlfs_file *f, const uint64_t *keys,
		size_t n, uint64_t size);
/* what turns OLD's contents into CUR's at PATH: truncate, holes where
 * blocks went, and the blocks whose virtual block numbers differ */
int send_changed_blocks(struct send *s, const char *path, const struct nlfs_file *old,
			const struct nlfs_file *cur);

int send_full(struct send *s);
int send_incremental(struct send *s);

#endif
