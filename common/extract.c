/* SPDX-License-Identifier: GPL-2.0-or-later */
/* extract.c: restore a subtree of a checkpoint into a host directory. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>
#include "extract.h"
#include "array.h"
#include "progress.h"

#define MAX_DEPTH 256
#define MAX_SYMLINK 4096

struct ctx {
	struct nlfs_fs *fs;
	struct nlfs_file ifile;
	struct nlfs_err *err;
	uint32_t blocksize;
	uint8_t *block;
	struct nlfs_u64map seen;    /* inode -> its first host path (hard links); NULL: a directory */
	struct progress bar;        /* blocks restored of the checkpoint's */
	uint64_t blocks_done, blocks_total;
};

static int seen_add(struct ctx *c, uint64_t ino, const char *path)
{
	char *copy = path ? strdup(path) : NULL;

	if ((path && !copy) || nlfs_u64map_put(&c->seen, ino, copy)) {
		free(copy);
		return nlfs_err_set(c->err, ENOMEM, NLFS_NOWHERE, "inode table");
	}
	return 0;
}

static int host_err(struct ctx *c, const char *op, const char *path)
{
	int e = errno ? errno : EIO;

	return nlfs_err_set(c->err, e, NLFS_NOWHERE, "%s %s: %s", op, path, strerror(e));
}

static int ino_err(struct ctx *c, int rc, uint64_t ino)
{
	if (c->err && c->err->ino == NLFS_NOWHERE)
		c->err->ino = ino;
	return rc;
}

/* ownership, permissions and times; symlinks get no chmod */
static int set_meta(struct ctx *c, const struct nlfs_file *f, const char *path)
{
	uint16_t mode = nlfs_le16(f->inode.i_mode);
	struct timespec ts[2];

	if (lchown(path, (uid_t)nlfs_le32(f->inode.i_uid), (gid_t)nlfs_le32(f->inode.i_gid)) &&
	    errno != EPERM)
		return host_err(c, "lchown", path);
	if ((mode & S_IFMT) != S_IFLNK && chmod(path, mode & 07777))
		return host_err(c, "chmod", path);
	ts[0].tv_sec = ts[1].tv_sec = (time_t)nlfs_le64(f->inode.i_mtime);
	ts[0].tv_nsec = ts[1].tv_nsec = (long)nlfs_le32(f->inode.i_mtime_nsec);
	if (ts[0].tv_nsec < 0 || ts[0].tv_nsec > 999999999)
		ts[0].tv_nsec = ts[1].tv_nsec = 0;
	if (utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW))
		return host_err(c, "utimensat", path);
	return 0;
}

/* remove a non-directory that is in the way */
static int clear_path(struct ctx *c, const char *path)
{
	struct stat st;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		return host_err(c, "lstat", path);
	}
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return host_err(c, "replacing", path);
	}
	if (unlink(path))
		return host_err(c, "unlink", path);
	return 0;
}

static int write_regular(struct ctx *c, const struct nlfs_file *f, const char *path)
{
	uint64_t size = nlfs_le64(f->inode.i_size);
	uint64_t *keys = NULL;
	size_t nkeys = 0;
	int fd, rc;

	if ((rc = clear_path(c, path)))
		return rc;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	if (fd < 0)
		return host_err(c, "creating", path);
	if (size > (uint64_t)INT64_MAX || ftruncate(fd, (off_t)size)) {
		rc = host_err(c, "ftruncate", path);
		goto out;
	}
	rc = nlfs_bmap_keys(c->fs, f, &keys, &nkeys, c->err);
	if (rc) {
		if (rc == -ENOMEM)
			rc = nlfs_err_set(c->err, ENOMEM, NLFS_NOWHERE, "block list");
		rc = ino_err(c, rc, f->ino);
		goto out;
	}
	for (size_t i = 0; i < nkeys; i++) {
		uint64_t off = keys[i] * c->blocksize;
		size_t len = c->blocksize;
		bool hole;

		if (keys[i] > UINT64_MAX / c->blocksize || off >= size)
			continue;   /* past EOF: nothing to restore */
		if (size - off < len)
			len = (size_t)(size - off);
		rc = nlfs_file_read_block(c->fs, f, keys[i], c->block, &hole, c->err);
		if (rc) {
			rc = ino_err(c, rc, f->ino);
			goto out;
		}
		progress_update(&c->bar, ++c->blocks_done, c->blocks_total);
		if (hole)
			continue;
		for (size_t done = 0; done < len;) {
			ssize_t w = pwrite(fd, c->block + done, len - done, (off_t)(off + done));

			if (w < 0) {
				if (errno == EINTR)
					continue;
				rc = host_err(c, "writing", path);
				goto out;
			}
			done += (size_t)w;
		}
	}
out:
	free(keys);
	if (close(fd) && !rc)
		rc = host_err(c, "closing", path);
	return rc;
}

static int write_symlink(struct ctx *c, const struct nlfs_file *f, const char *path)
{
	uint64_t size = nlfs_le64(f->inode.i_size);
	char target[MAX_SYMLINK + 1];
	size_t n;
	int rc;

	if (size == 0 || size > MAX_SYMLINK)
		return ino_err(c, nlfs_err_set(c->err, NLFS_ECORRUPT, NLFS_NOWHERE,
					       "symlink %s: target length %" PRIu64, path, size),
			       f->ino);
	rc = nlfs_file_pread(c->fs, f, target, (size_t)size, 0, &n, c->err);
	if (rc)
		return ino_err(c, rc, f->ino);
	if (n != size || memchr(target, '\0', n))
		return ino_err(c, nlfs_err_set(c->err, NLFS_ECORRUPT, NLFS_NOWHERE,
					       "symlink %s: bad target", path), f->ino);
	target[n] = '\0';
	if ((rc = clear_path(c, path)))
		return rc;
	if (symlink(target, path))
		return host_err(c, "symlink", path);
	return 0;
}

static int write_special(struct ctx *c, const struct nlfs_file *f, const char *path)
{
	uint16_t mode = nlfs_le16(f->inode.i_mode);
	dev_t dev = 0;
	int rc;

	if (S_ISCHR(mode) || S_ISBLK(mode)) {
		uint32_t ma, mi;

		nlfs_dev_decode(nlfs_le64(f->inode.i_bmap[0]), &ma, &mi);
		dev = makedev(ma, mi);
	}
	if ((rc = clear_path(c, path)))
		return rc;
	if (mknod(path, (mode & S_IFMT) | 0600, dev))
		return host_err(c, "mknod", path);
	return 0;
}

static int extract_node(struct ctx *c, const struct nlfs_file *f, const char *path,
			unsigned depth);

/* "A/B" into a buffer of LEN = strlen(a) + 1 + strlen(b) + 1 bytes */
static void join_path(char *out, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	memcpy(out, a, la);
	out[la] = '/';
	memcpy(out + la + 1, b, lb + 1);
}

struct entry {
	uint64_t ino;
	char *name;
};
struct entries {
	struct entry *e;
	size_t n, cap;
	int bad;
};

static int collect_entry(const char *name, unsigned name_len, uint64_t ino,
			 unsigned file_type, void *arg)
{
	struct entries *es = arg;
	char *s;

	(void)file_type;
	if (nlfs_dir_name_is_dots(name, name_len))
		return 0;
	if (name_len == 0 || memchr(name, '/', name_len) || memchr(name, '\0', name_len)) {
		es->bad = NLFS_ECORRUPT;
		return 1;
	}
	if (CLI_GROW(es->e, es->cap, es->n + 1)) {
		es->bad = ENOMEM;
		return 1;
	}
	s = malloc(name_len + 1);
	if (!s) {
		es->bad = ENOMEM;
		return 1;
	}
	memcpy(s, name, name_len);
	s[name_len] = '\0';
	es->e[es->n].ino = ino;
	es->e[es->n].name = s;
	es->n++;
	return 0;
}

static int extract_dir(struct ctx *c, const struct nlfs_file *dir, const char *path,
		       unsigned depth)
{
	struct entries es = { 0 };
	size_t plen = strlen(path);
	char *child = NULL;
	int rc;

	rc = nlfs_dir_iterate(c->fs, dir, collect_entry, &es, c->err);
	if (!rc && es.bad)
		rc = nlfs_err_set(c->err, es.bad, NLFS_NOWHERE,
				  es.bad == ENOMEM ? "directory %s: out of memory" :
				  "directory %s: bad entry name", path);
	if (rc) {
		rc = ino_err(c, rc, dir->ino);
		goto out;
	}
	for (size_t i = 0; i < es.n && !rc; i++) {
		size_t len = plen + 1 + strlen(es.e[i].name) + 1;
		struct nlfs_file f;

		if (len > PATH_MAX) {
			rc = nlfs_err_set(c->err, ENAMETOOLONG, NLFS_NOWHERE, "%s/%s", path,
					  es.e[i].name);
			break;
		}
		free(child);
		child = malloc(len);
		if (!child) {
			rc = nlfs_err_set(c->err, ENOMEM, NLFS_NOWHERE, "path");
			break;
		}
		join_path(child, path, es.e[i].name);
		rc = nlfs_ifile_read(c->fs, &c->ifile, es.e[i].ino, &f, c->err);
		if (rc) {
			rc = ino_err(c, rc, es.e[i].ino);
			break;
		}
		rc = extract_node(c, &f, child, depth + 1);
	}
out:
	free(child);
	for (size_t i = 0; i < es.n; i++)
		free(es.e[i].name);
	free(es.e);
	return rc;
}

static int extract_node(struct ctx *c, const struct nlfs_file *f, const char *path,
			unsigned depth)
{
	uint16_t mode = nlfs_le16(f->inode.i_mode);
	void *first;
	int rc;

	if (depth > MAX_DEPTH)
		return ino_err(c, nlfs_err_set(c->err, NLFS_ECORRUPT, NLFS_NOWHERE,
					       "%s: deeper than %u levels", path, MAX_DEPTH),
			       f->ino);
	if (nlfs_u64map_get(&c->seen, f->ino, &first)) {
		if (S_ISDIR(mode) || !first)
			return ino_err(c, nlfs_err_set(c->err, NLFS_ECORRUPT, NLFS_NOWHERE,
						       "%s: directory inode reached twice", path),
				       f->ino);
		if ((rc = clear_path(c, path)))
			return rc;
		if (link(first, path))
			return host_err(c, "link", path);
		return 0;
	}
	switch (mode & S_IFMT) {
	case S_IFDIR:
		if ((rc = seen_add(c, f->ino, NULL)))
			return rc;
		if (mkdir(path, 0700)) {
			struct stat st;

			if (errno != EEXIST || stat(path, &st) || !S_ISDIR(st.st_mode))
				return host_err(c, "mkdir", path);
		}
		rc = extract_dir(c, f, path, depth);
		if (rc)
			return rc;
		return set_meta(c, f, path);
	case S_IFREG:
		rc = write_regular(c, f, path);
		break;
	case S_IFLNK:
		rc = write_symlink(c, f, path);
		break;
	case S_IFCHR: case S_IFBLK: case S_IFIFO: case S_IFSOCK:
		rc = write_special(c, f, path);
		break;
	default:
		return ino_err(c, nlfs_err_set(c->err, NLFS_ECORRUPT, NLFS_NOWHERE,
					       "%s: unknown file type 0%o", path, mode & S_IFMT),
			       f->ino);
	}
	if (rc)
		return rc;
	if (nlfs_le16(f->inode.i_links_count) > 1 && (rc = seen_add(c, f->ino, path)))
		return rc;
	return set_meta(c, f, path);
}

/* mkdir -p */
static int make_dest(struct ctx *c, const char *dest)
{
	char buf[PATH_MAX];
	size_t len = strlen(dest);
	struct stat st;

	if (len == 0 || len >= sizeof(buf))
		return nlfs_err_set(c->err, len ? ENAMETOOLONG : ENOENT, NLFS_NOWHERE,
				    "destination '%s'", dest);
	memcpy(buf, dest, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0777) && (errno != EEXIST || stat(buf, &st) || !S_ISDIR(st.st_mode)))
			return host_err(c, "mkdir", buf);
		if (i < len)
			buf[i] = '/';
	}
	return 0;
}

int dump_extract(struct nlfs_fs *fs, uint64_t cno, const char *path, const char *dest,
		 struct nlfs_err *err)
{
	struct ctx c = { .fs = fs, .err = err };
	struct nlfs_file f;
	char *target = NULL;
	int rc;

	c.blocksize = nlfs_fs_geometry(fs)->blocksize;
	rc = nlfs_fs_ifile(fs, cno, &c.ifile, err);
	if (rc)
		return rc;
	rc = nlfs_path_lookup(fs, &c.ifile, path, &f, err);
	if (rc)
		return rc;
	c.block = malloc(c.blocksize);
	if (!c.block)
		return nlfs_err_set(err, ENOMEM, NLFS_NOWHERE, "block buffer");
	rc = make_dest(&c, dest);
	if (rc)
		goto out;
	{
		struct nlfs_cpinfo cp;

		/* the bar's total: all the checkpoint's blocks, an upper bound */
		if (nlfs_cpfile_info(fs, cno, &cp, err) == 0)
			c.blocks_total = cp.blocks_count;
		nlfs_err_clear(err);
		progress_init(&c.bar, stderr, "extracting");
	}
	if ((nlfs_le16(f.inode.i_mode) & S_IFMT) == S_IFDIR) {
		rc = extract_node(&c, &f, dest, 0);
	} else {
		const char *base = strrchr(path, '/');
		size_t len;

		base = base ? base + 1 : path;
		len = strlen(dest) + 1 + strlen(base) + 1;
		if (!*base || len > PATH_MAX) {
			rc = nlfs_err_set(err, EINVAL, NLFS_NOWHERE, "path '%s'", path);
			goto out;
		}
		target = malloc(len);
		if (!target) {
			rc = nlfs_err_set(err, ENOMEM, NLFS_NOWHERE, "path");
			goto out;
		}
		join_path(target, dest, base);
		rc = extract_node(&c, &f, target, 0);
	}
out:
	progress_clear(&c.bar);
	free(target);
	nlfs_u64map_free(&c.seen, free);
	free(c.block);
	return rc;
}
