/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * apply.c - a stream command applied under the receiving directory
 * (apply.h).  A path's directories are opened from the top refusing
 * any symbolic link (openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
 * or openat(O_NOFOLLOW | O_DIRECTORY) for each); the last component is
 * operated on with the *at() calls that do not follow it.  A write opens
 * only a regular file (checked before and after the open, which never
 * blocks on a FIFO), so a stream cannot write through a device node it
 * made.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>

#include <nlfs/nlfs.h>
#include "apply.h"

static int fail(struct apply *a, const struct sstream_cmd *c, const char *path, int e)
{
	snprintf(a->why, sizeof(a->why), "%s %s: %s", sstream_kind_name(c->kind),
		 path && *path ? path : ".", strerror(e));
	return -1;
}

void apply_init(struct apply *a, int top)
{
	memset(a, 0, sizeof(*a));
	a->top = top;
	a->orphans = a->wfd = -1;
}

/* close the kept directories from the Kth component on */
static void close_from(struct apply *a, size_t k)
{
	while (a->nfds > k)
		if (a->fds[--a->nfds] >= 0)
			close(a->fds[a->nfds]);
}

static void close_parent(struct apply *a)
{
	close_from(a, 0);
	free(a->ppath);
	a->ppath = NULL;
}

static int close_write(struct apply *a)
{
	int rc = 0;

	if (a->wfd >= 0 && close(a->wfd))
		rc = -errno;
	a->wfd = -1;
	free(a->wpath);
	a->wpath = NULL;
	return rc;
}

static bool private_name(const char *path)
{
	size_t n = strlen(RECV_PRIVATE);

	return !strncmp(path, RECV_PRIVATE, n) && (path[n] == '/' || path[n] == 0);
}

/*
 * DIR/PATH, a directory reached without following a link and without
 * leaving DIR, in one call where the kernel has openat2 (5.6): a stream's
 * paths are checked to hold no "." or ".." (sstream_path_ok), so
 * RESOLVE_BENEATH with RESOLVE_NO_SYMLINKS refuses exactly what the walk
 * component by component refuses.  -1 with errno ENOSYS where the
 * caller must walk instead (no openat2, a seccomp filter that forbids it,
 * a path longer than the kernel takes in one call).
 */
static int open_beneath(struct apply *a, int dir, const char *path)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS };
	long fd;

	if (a->no_openat2) {
		errno = ENOSYS;
		return -1;
	}
	fd = syscall(SYS_openat2, dir, path, &how, sizeof(how));
	if (fd >= 0)
		return (int)fd;
	if (errno == ENOSYS || errno == EPERM || errno == E2BIG)
		a->no_openat2 = true;
	if (a->no_openat2 || errno == ENAMETOOLONG)
		errno = ENOSYS;
	return -1;
}

/*
 * The directory holding PATH's last component, opened from the top
 * without following links (*NAME: that component).  The directories of
 * the last parent path stay open (fds[k] is its (k+1)th component, or -1
 * where one call opened several at once), so that a walk of a tree in
 * order (a full stream) opens each directory about once, and the next
 * path opens only from the deepest directory the two share: in one call
 * (open_beneath), or component by component.  Returns a descriptor owned
 * by A, or -1 with errno set.
 */
static int parent_of(struct apply *a, const char *path, const char **name)
{
	const char *slash = strrchr(path, '/');
	size_t plen = slash ? (size_t)(slash - path) : 0, k = 0, i = 0, n = 1, last;
	size_t clen = a->ppath ? strlen(a->ppath) : 0;
	int fd;

	*name = slash ? slash + 1 : path;
	if (!slash)
		return a->top;
	/* the components the kept path shares with this one */
	while (k < a->nfds) {
		size_t e = i;

		while (e < clen && a->ppath[e] != '/')
			e++;
		if (e > plen || memcmp(a->ppath + i, path + i, e - i) || (e < plen && path[e] != '/'))
			break;
		k++;
		i = e + 1;
	}
	close_from(a, k);
	free(a->ppath);
	if (!(a->ppath = strndup(path, plen))) {
		close_from(a, 0);
		return -1;
	}
	for (size_t j = 0; j < plen; j++)
		n += path[j] == '/';
	/* the deepest of them open, and where the path goes on from it */
	for (last = k; last && a->fds[last - 1] < 0; last--)
		;
	if (last == n)
		return a->fds[n - 1];
	for (i = 0, k = 0; k < last; k++)
		i += strcspn(path + i, "/") + 1;
	if (nlfs_grow((void **)&a->fds, &a->fdcap, n, sizeof(*a->fds)))
		goto fail_nomem;
	a->nfds = last;   /* the rest are -1 */
	fd = open_beneath(a, last ? a->fds[last - 1] : a->top, a->ppath + i);
	if (fd >= 0) {
		while (a->nfds < n - 1)
			a->fds[a->nfds++] = -1;
		a->fds[a->nfds++] = fd;
		return fd;
	}
	if (errno != ENOSYS)
		goto fail;
	while (i < plen) {
		size_t e = i + strcspn(path + i, "/");
		int at = a->nfds ? a->fds[a->nfds - 1] : a->top;
		char comp[e - i + 1];   /* e <= plen: the last slash ends the parent */

		memcpy(comp, path + i, e - i);
		comp[e - i] = 0;
		fd = openat(at, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			goto fail;
		a->fds[a->nfds++] = fd;
		i = e + 1;
	}
	return a->fds[a->nfds - 1];
fail_nomem:
	errno = ENOMEM;
fail:;
	int e2 = errno;

	close_parent(a);
	errno = e2;
	return -1;
}

static int orphan_dir(struct apply *a)
{
	int priv;

	if (a->orphans >= 0)
		return a->orphans;
	if (mkdirat(a->top, RECV_PRIVATE, 0700) && errno != EEXIST)
		return -1;
	priv = openat(a->top, RECV_PRIVATE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (priv < 0)
		return -1;
	if (mkdirat(priv, "orphans", 0700) && errno != EEXIST) {
		close(priv);
		return -1;
	}
	a->orphans = openat(priv, "orphans", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(priv);
	return a->orphans;
}

/* the regular file at PATH, open for writing (kept for the next write) */
static int file_of(struct apply *a, const char *path)
{
	const char *name;
	struct stat before, after;
	int dfd, fd;

	if (a->wpath && !strcmp(a->wpath, path))
		return a->wfd;
	if (close_write(a))
		return -1;
	if ((dfd = parent_of(a, path, &name)) < 0)
		return -1;
	if (fstatat(dfd, name, &before, AT_SYMLINK_NOFOLLOW))
		return -1;
	if (!S_ISREG(before.st_mode)) {
		errno = EINVAL;   /* not a regular file */
		return -1;
	}
	fd = openat(dfd, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &after) || !S_ISREG(after.st_mode) || after.st_ino != before.st_ino ||
	    after.st_dev != before.st_dev) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if (!(a->wpath = strdup(path))) {
		close(fd);
		return -1;
	}
	a->wfd = fd;
	return fd;
}

static int write_all(int fd, const uint8_t *p, uint64_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		off += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return 0;
}

/* bytes [OFF, OFF + LEN) read as zeros, deallocated where the filesystem can */
static int punch(int fd, uint64_t off, uint64_t len)
{
	static const uint8_t zeros[65536];

	if (!fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len))
		return 0;
	if (errno != EOPNOTSUPP && errno != ENOSYS)
		return -1;
	while (len) {
		uint64_t n = len < sizeof(zeros) ? len : sizeof(zeros);

		if (write_all(fd, zeros, n, off))
			return -1;
		off += n;
		len -= n;
	}
	return 0;
}

static int do_rename(int from_dir, const char *from, int to_dir, const char *to)
{
	if (!renameat2(from_dir, from, to_dir, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* a filesystem without RENAME_NOREPLACE: check, then rename */
	struct stat st;

	if (!fstatat(to_dir, to, &st, AT_SYMLINK_NOFOLLOW)) {
		errno = EEXIST;
		return -1;
	}
	return renameat(from_dir, from, to_dir, to);
}

/* is P the path UNDER, or below it */
static bool under(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(p, dir, n) && (p[n] == '/' || p[n] == 0);
}

/* do two paths name entries of the same directory */
static bool same_parent(const char *p1, const char *p2)
{
	const char *s1 = strrchr(p1, '/'), *s2 = strrchr(p2, '/');
	size_t n1 = s1 ? (size_t)(s1 - p1) : 0, n2 = s2 ? (size_t)(s2 - p2) : 0;

	return n1 == n2 && !memcmp(p1, p2, n1);
}

/* the two-path commands: LINK and RENAME, ORPHAN and ADOPT */
static int two_paths(struct apply *a, const struct sstream_cmd *c)
{
	char id[24];
	const char *n1, *n2 = id, *p1 = c->path, *p2 = c->path2;
	int d1, d2 = -1, keep = -1;

	snprintf(id, sizeof(id), "%llu", (unsigned long long)c->id);
	if (c->kind == SS_ORPHAN || c->kind == SS_ADOPT) {
		if ((d2 = orphan_dir(a)) < 0)
			return fail(a, c, "orphans", errno);
		p2 = NULL;
	}
	if ((d1 = parent_of(a, p1, &n1)) < 0)
		return fail(a, c, p1, errno);
	if (p2 && same_parent(p1, p2)) {
		n2 = p2 + (n1 - p1);
		d2 = d1;
	} else if (p2) {
		/* the first parent is dup'ed: resolving the second may replace the kept one */
		if ((keep = d1 = fcntl(d1, F_DUPFD_CLOEXEC, 0)) < 0)
			return fail(a, c, p1, errno);
		if ((d2 = parent_of(a, p2, &n2)) < 0) {
			int e = errno;

			close(keep);
			return fail(a, c, p2, e);
		}
	}
	int rc;

	switch (c->kind) {
	case SS_LINK: rc = linkat(d2, n2, d1, n1, 0); break;   /* path is the new name */
	case SS_ADOPT: rc = do_rename(d2, n2, d1, n1); break;
	default: rc = do_rename(d1, n1, d2, n2); break;
	}
	int e = errno;

	if (keep >= 0)
		close(keep);
	/* a moved directory may be the kept parent, or hold the kept file
	 * (what is adopted comes from the orphans: after it, nothing is kept) */
	if (c->kind == SS_ADOPT || (c->kind != SS_LINK && a->ppath && under(a->ppath, c->path)))
		close_parent(a);
	if (c->kind == SS_ADOPT || (c->kind != SS_LINK && a->wpath && under(a->wpath, c->path)))
		close_write(a);
	if (rc)
		return fail(a, c, c->path, e);
	return 0;
}

int apply_cmd(struct apply *a, const struct sstream_cmd *c)
{
	const char *name;
	int dfd, fd;

	/* the attributes the CHOWN just before found, if on this path */
	bool seen = a->seen_path && c->kind == SS_CHMOD && !strcmp(a->seen_path, c->path);

	free(a->seen_path);
	a->seen_path = NULL;
	if (private_name(c->path) || (c->path2 && private_name(c->path2))) {
		snprintf(a->why, sizeof(a->why), "%s %s: the stream names %s, the receiver's own",
			 sstream_kind_name(c->kind), c->path, RECV_PRIVATE);
		return -1;
	}
	switch (c->kind) {
	case SS_LINK:
	case SS_RENAME:
	case SS_ORPHAN:
	case SS_ADOPT:
		return two_paths(a, c);
	case SS_WRITE:
	case SS_HOLE:
	case SS_TRUNCATE:
		if ((fd = file_of(a, c->path)) < 0)
			return fail(a, c, c->path, errno);
		if (c->kind == SS_WRITE ? write_all(fd, c->data, c->len, c->offset)
		    : c->kind == SS_HOLE ? punch(fd, c->offset, c->len)
		    : ftruncate(fd, (off_t)c->len))
			return fail(a, c, c->path, errno);
		return 0;
	default:
		break;
	}
	if (a->wpath && (c->kind == SS_CHOWN || c->kind == SS_CHMOD || c->kind == SS_UTIMES) &&
	    !strcmp(a->wpath, c->path)) {
		/* the regular file still open from its contents (a full stream
		 * sends its attributes right after them): set through its
		 * descriptor as the top's are, no name looked up again */
		dfd = a->wfd;
		name = "";
	} else if (*c->path) {
		if ((dfd = parent_of(a, c->path, &name)) < 0)
			return fail(a, c, c->path, errno);
	} else {
		dfd = a->top;
		name = "";
	}
	int flags = *name ? AT_SYMLINK_NOFOLLOW : AT_EMPTY_PATH;
	int rc = 0;

	switch (c->kind) {
	case SS_MKDIR:
		rc = mkdirat(dfd, name, 0700);
		break;
	case SS_CREATE:
		/* kept open for the contents that follow */
		if ((rc = close_write(a)))
			break;
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 || !(a->wpath = strdup(c->path))) {
			if (fd >= 0)
				close(fd);
			rc = -1;
			break;
		}
		a->wfd = fd;
		break;
	case SS_MKNOD:
		rc = mknodat(dfd, name, c->mode | 0600, makedev(c->major, c->minor));
		break;
	case SS_SYMLINK:
		rc = symlinkat(c->target, dfd, name);
		break;
	case SS_UNLINK:
	case SS_RMDIR:
		if (a->wpath)
			close_write(a);
		rc = unlinkat(dfd, name, c->kind == SS_RMDIR ? AT_REMOVEDIR : 0);
		if (c->kind == SS_RMDIR)
			close_parent(a);   /* it may have been the kept one */
		break;
	case SS_CHMOD: {
		struct stat st;

		/* never through a symbolic link (chmod follows one); a mode
		 * already so (an incremental stream sends it with the times) is
		 * left, as the owner before it */
		if (seen) {
			st = a->seen_st;
		} else if (*name) {
			rc = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW);
		} else {
			rc = fchmod(dfd, c->mode);
			break;
		}
		if (rc)
			break;
		if (S_ISLNK(st.st_mode)) {
			errno = ELOOP;
			rc = -1;
		} else if ((st.st_mode & 07777) != c->mode) {
			rc = *name ? fchmodat(dfd, name, c->mode, 0) : fchmod(dfd, c->mode);
		}
		break;
	}
	case SS_CHOWN: {
		struct stat st;

		if (a->chown_denied)
			break;
		/* an owner already so is left (a change would also clear the
		 * set-user-ID bit the CHMOD after it sets again): the file's
		 * attributes are kept for that CHMOD */
		rc = *name ? fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) : fstat(dfd, &st);
		if (rc)
			break;
		if (st.st_uid == c->uid && st.st_gid == c->gid) {
			free(a->seen_path);
			if ((a->seen_path = strdup(c->path)))
				a->seen_st = st;
			break;
		}
		rc = fchownat(dfd, name, c->uid, c->gid, flags);
		if (rc && errno == EPERM) {
			a->chown_denied = true;
			rc = 0;
		}
		break;
	}
	case SS_UTIMES: {
		struct timespec ts[2] = { { .tv_sec = (time_t)c->atime, .tv_nsec = c->atime_nsec },
					  { .tv_sec = (time_t)c->mtime, .tv_nsec = c->mtime_nsec } };

		rc = *name ? utimensat(dfd, name, ts, AT_SYMLINK_NOFOLLOW) : futimens(dfd, ts);
		break;
	}
	default:
		snprintf(a->why, sizeof(a->why), "%s: not a command here", sstream_kind_name(c->kind));
		return -1;
	}
	return rc ? fail(a, c, c->path, errno) : 0;
}

int apply_finish(struct apply *a)
{
	int rc = close_write(a);

	close_parent(a);
	free(a->seen_path);
	a->seen_path = NULL;
	free(a->fds);
	a->fds = NULL;
	a->fdcap = 0;
	if (a->orphans >= 0)
		close(a->orphans);
	a->orphans = -1;
	if (rc) {
		snprintf(a->why, sizeof(a->why), "closing a written file: %s", strerror(-rc));
		return -1;
	}
	return 0;
}
