/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * emit.c - the commands that send one file of a checkpoint (send.h): its
 * creation, contents and attributes.  Contents go by block map: only
 * mapped blocks are read and sent, in runs of consecutive blocks of up to
 * a command's data, so that a hole stays a hole on the receiving side.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "array.h"
#include "cli.h"
#include "send.h"

int send_cmd(struct send *s, const struct sstream_cmd *c)
{
	int rc = sstream_write(&s->w, c);

	if (rc == -EIO)
		cli_warnc(errno, "%s", s->out_name);
	else if (rc == -EINVAL)
		cli_warnx("%s: %s %s: not a path or value the stream can carry", s->name,
			  sstream_kind_name(c->kind), c->path);
	else if (rc)
		cli_warnc(rc, "%s", s->out_name);
	return rc ? -1 : 0;
}

int send_lib_fail(struct send *s, int rc, const struct nlfs_err *err, const char *path)
{
	char msg[320];

	if (rc == -ENOMEM || !err || !err->what[0]) {
		cli_warnc(rc, "%s%s%s", s->name, path ? ": /" : "", path ? path : "");
		return -1;
	}
	nlfs_err_format(err, msg, sizeof(msg));
	if (path)
		cli_warnx("%s: /%s: %s", s->name, path, msg);
	else
		cli_warnx("%s: %s", s->name, msg);
	return -1;
}

const char *send_rel(const char *abs)
{
	while (*abs == '/')
		abs++;
	return abs;
}

int send_attrs(struct send *s, const char *path, const struct nlfs_inode *i)
{
	uint16_t mode = nlfs_le16(i->i_mode);
	uint32_t nsec = nlfs_le32(i->i_mtime_nsec);
	struct sstream_cmd own = { .kind = SS_CHOWN, .path = path, .uid = nlfs_le32(i->i_uid),
				   .gid = nlfs_le32(i->i_gid) };
	struct sstream_cmd chmod = { .kind = SS_CHMOD, .path = path, .mode = mode & 07777 };
	/* NILFS2 keeps no access time: the receiver's is the modification time */
	struct sstream_cmd times = { .kind = SS_UTIMES, .path = path,
				     .atime = (int64_t)nlfs_le64(i->i_mtime),
				     .mtime = (int64_t)nlfs_le64(i->i_mtime),
				     .atime_nsec = nsec > 999999999 ? 0 : nsec,
				     .mtime_nsec = nsec > 999999999 ? 0 : nsec };

	if (send_cmd(s, &own))
		return -1;
	if ((mode & NLFS_S_IFMT) != NLFS_S_IFLNK && send_cmd(s, &chmod))
		return -1;
	return send_cmd(s, &times);
}

int send_blocks(struct send *s, const char *path, const struct nlfs_file *f, const uint64_t *keys,
		size_t n, uint64_t size)
{
	uint64_t per_cmd = SSTREAM_MAX_DATA / s->bs;
	struct nlfs_err err;

	for (size_t i = 0; i < n;) {
		uint64_t first = keys[i], off = first * s->bs, run = 1;
		size_t done;
		int rc;

		if (off >= size)
			break;
		while (i + run < n && run < per_cmd && keys[i + run] == first + run)
			run++;
		i += run;
		uint64_t len = run * s->bs;

		if (len > size - off)
			len = size - off;
		nlfs_file_prefetch(s->fs, f, first, run);
		nlfs_err_clear(&err);
		rc = nlfs_file_pread(s->fs, f, s->buf, (size_t)len, off, &done, &err);
		if (rc)
			return send_lib_fail(s, rc, &err, path);
		if (done != len) {
			cli_warnx("%s: /%s: block %" PRIu64 " could not be read whole", s->name, path,
				  first);
			return -1;
		}
		struct sstream_cmd w = { .kind = SS_WRITE, .path = path, .offset = off,
					 .data = s->buf, .len = len };

		if (send_cmd(s, &w))
			return -1;
		s->data_bytes += len;
	}
	return 0;
}

/* a regular file's size and mapped blocks, as a new file */
static int send_contents(struct send *s, const char *path, const struct nlfs_file *f)
{
	uint64_t size = nlfs_le64(f->inode.i_size), *keys = NULL;
	size_t n = 0;
	struct nlfs_err err;
	int rc;

	if (size) {
		struct sstream_cmd t = { .kind = SS_TRUNCATE, .path = path, .len = size };

		if (send_cmd(s, &t))
			return -1;
	}
	nlfs_err_clear(&err);
	rc = nlfs_bmap_keys(s->fs, f, &keys, &n, &err);
	if (rc) {
		free(keys);
		return send_lib_fail(s, rc, &err, path);
	}
	rc = send_blocks(s, path, f, keys, n, size);
	free(keys);
	return rc;
}

#define MAX_SYMLINK 4096

static int send_symlink(struct send *s, const char *path, const struct nlfs_file *f)
{
	uint64_t size = nlfs_le64(f->inode.i_size);
	char target[MAX_SYMLINK + 1];
	struct nlfs_err err;
	size_t n;
	int rc;

	if (size == 0 || size > MAX_SYMLINK || size > s->bs) {
		cli_warnx("%s: /%s: symbolic link target of %" PRIu64 " bytes", s->name, path, size);
		return -1;
	}
	nlfs_err_clear(&err);
	rc = nlfs_file_pread(s->fs, f, target, (size_t)size, 0, &n, &err);
	if (rc)
		return send_lib_fail(s, rc, &err, path);
	if (n != size || memchr(target, '\0', n)) {
		cli_warnx("%s: /%s: damaged symbolic link target", s->name, path);
		return -1;
	}
	target[n] = '\0';
	struct sstream_cmd c = { .kind = SS_SYMLINK, .path = path, .target = target };

	return send_cmd(s, &c);
}

int send_new(struct send *s, const char *path, const struct nlfs_file *f)
{
	uint16_t mode = nlfs_le16(f->inode.i_mode);
	struct sstream_cmd c = { .path = path };
	uint32_t major = 0, minor = 0;

	switch (mode & NLFS_S_IFMT) {
	case NLFS_S_IFDIR:
		c.kind = SS_MKDIR;
		return send_cmd(s, &c);
	case NLFS_S_IFREG:
		c.kind = SS_CREATE;
		return send_cmd(s, &c) ? -1 : send_contents(s, path, f);
	case NLFS_S_IFLNK:
		return send_symlink(s, path, f);
	case NLFS_S_IFCHR:
	case NLFS_S_IFBLK:
		nlfs_dev_decode(nlfs_le64(f->inode.i_bmap[0]), &major, &minor);
		/* fall through */
	case NLFS_S_IFIFO:
	case NLFS_S_IFSOCK:
		c.kind = SS_MKNOD;
		c.mode = mode & NLFS_S_IFMT;
		c.major = major;
		c.minor = minor;
		return send_cmd(s, &c);
	default:
		cli_warnx("%s: /%s: inode %" PRIu64 " has an unknown file type (mode %06o)", s->name,
			  path, f->ino, mode);
		return -1;
	}
}

/* ---- the blocks that differ ---- */

struct keys {
	uint64_t *v;
	size_t n, cap;
};
struct changed {
	struct keys old, cur;
};

static int collect_changed(uint64_t key, uint64_t ptr, unsigned level, enum nlfs_bmap_side side,
			   void *arg)
{
	struct changed *c = arg;
	struct keys *k = side == NLFS_BMAP_OLD ? &c->old : &c->cur;

	(void)ptr;
	if (level || side == NLFS_BMAP_SHARED)
		return 0;
	return CLI_PUSH(k->v, k->n, k->cap, key);
}

static int send_hole(struct send *s, const char *path, uint64_t first, uint64_t run,
		     uint64_t size)
{
	uint64_t off = first * s->bs, len = run * s->bs;
	struct sstream_cmd h = { .kind = SS_HOLE, .path = path, .offset = off };

	if (!run || off >= size)
		return 0;
	h.len = len > size - off ? size - off : len;
	return send_cmd(s, &h);
}

/* holes where OLD mapped a block below SIZE that CUR does not map anew */
static int send_holes(struct send *s, const char *path, const struct changed *c, uint64_t size)
{
	uint64_t first = 0, run = 0;
	size_t j = 0;

	for (size_t i = 0; i < c->old.n; i++) {
		uint64_t k = c->old.v[i];

		while (j < c->cur.n && c->cur.v[j] < k)
			j++;
		if (j < c->cur.n && c->cur.v[j] == k)
			continue;   /* rewritten, not a hole */
		if (run && k == first + run) {
			run++;
			continue;
		}
		if (send_hole(s, path, first, run, size))
			return -1;
		first = k;
		run = 1;
	}
	return send_hole(s, path, first, run, size);
}

int send_changed_blocks(struct send *s, const char *path, const struct nlfs_file *old,
			const struct nlfs_file *cur)
{
	uint64_t osize = nlfs_le64(old->inode.i_size), size = nlfs_le64(cur->inode.i_size);
	struct changed c = { { 0 }, { 0 } };
	struct nlfs_err err;
	int rc;

	if (osize != size) {
		struct sstream_cmd t = { .kind = SS_TRUNCATE, .path = path, .len = size };

		if (send_cmd(s, &t))
			return -1;
	}
	nlfs_err_clear(&err);
	rc = nlfs_bmap_diff(s->fs, old, cur, collect_changed, &c, &err);
	if (rc)
		rc = send_lib_fail(s, rc, &err, path);
	if (!rc)
		rc = send_holes(s, path, &c, size < osize ? size : osize);
	if (!rc)
		rc = send_blocks(s, path, cur, c.cur.v, c.cur.n, size);
	free(c.old.v);
	free(c.cur.v);
	return rc;
}
