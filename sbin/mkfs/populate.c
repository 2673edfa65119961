/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mkfs.nilfs2 -d: copy a directory tree into the first checkpoint.
 * One walk of the tree (a directory's entries, then its files, then its
 * subdirectories, names sorted so the same tree gives the same image)
 * writes every directory, symbolic link and special file, gives every name
 * its inode number and lists the regular files; then the listed files'
 * data are written in that order.  The tree's metadata thus lies together
 * at the start of the log, in the order a checker walking the tree reads
 * it, instead of one directory block between every few files' data.  Hard
 * links inside the tree share one inode and get the number of links found
 * in the tree.
 *
 * The files are opened a few dozen ahead of the one being copied, each
 * with a POSIX_FADV_WILLNEED, so that the disk reads them while the log is
 * built: on a cold cache one synchronous read per small file would
 * otherwise leave the disk idle between them.
 */
#define _GNU_SOURCE /* SEEK_DATA, SEEK_HOLE */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <nlfs/endian.h>
#include "populate.h"
#include "array.h"
#include "progress.h"

#define READ_CHUNK (1u << 20)
#define AHEAD_FILES 64                 /* files opened ahead of the copy */
#define AHEAD_BYTES (16u << 20)        /* bytes they may ask the disk for */

struct link_ent {
	dev_t dev;
	ino_t ino;
	uint64_t nino;
	uint32_t links;
	bool used;
};

struct pop {
	struct nlfs_writer *w;
	uint32_t bs;
	uint8_t *buf;
	struct link_ent *links;    /* hash table of files with st_nlink > 1 */
	size_t caplinks, nlinks;
	struct populate_stats *stats;
	char *path;                /* the entry being copied, for messages */
	size_t pathcap;
	char *errbuf;
	size_t errlen;
	size_t rootlen;            /* of the tree's own path, in PATH */
	struct file_ent *files;    /* regular files, walk order */
	size_t nfiles, capfiles;
	char *names;               /* their directories' paths and names */
	size_t nameslen, namescap;
	struct progress bar;       /* the second walk's bytes, on a terminal */
	uint64_t bytes_total, bytes_done;
};

/* a regular file whose data the copy writes: NAME in directory DIR (offsets
 * into pop.names; DIR is relative to the tree, "" for its root) */
struct file_ent {
	uint64_t ino;
	uint32_t dir, name;
};

/* a file opened ahead of the copy */
struct ahead {
	int fd;                    /* -1: the open failed with ERR (reported in turn) */
	int err;
	const char *what;
	struct stat st;
};

struct child {
	char *name;
	struct stat st;
	uint64_t ino;
	bool first_link;          /* this name brings the inode's contents */
};

static int fail(struct pop *p, int rc, const char *what)
{
	snprintf(p->errbuf, p->errlen, "%s: %s: %s", p->path, what, strerror(rc < 0 ? -rc : rc));
	return rc < 0 ? rc : -rc;
}

static int path_push(struct pop *p, const char *name, size_t *saved)
{
	size_t len = strlen(p->path), need = len + strlen(name) + 2;

	if (CLI_GROW(p->path, p->pathcap, need))
		return -ENOMEM;
	*saved = len;
	snprintf(p->path + len, p->pathcap - len, "%s%s", len && p->path[len - 1] == '/' ? "" : "/",
		 name);
	return 0;
}

static size_t link_hash(dev_t dev, ino_t ino, size_t cap)
{
	return nlfs_hash_slot(nlfs_hash64((uint64_t)dev) ^ (uint64_t)ino, cap);
}

static struct link_ent *link_find(struct pop *p, const struct stat *st, bool add)
{
	size_t h;

	if ((p->nlinks + 1) * 2 > p->caplinks && add) {
		size_t cap = p->caplinks ? p->caplinks * 2 : 256;
		struct link_ent *n = calloc(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t i = 0; i < p->caplinks; i++) {
			if (!p->links[i].used)
				continue;
			h = link_hash(p->links[i].dev, p->links[i].ino, cap);
			while (n[h].used)
				h = (h + 1) & (cap - 1);
			n[h] = p->links[i];
		}
		free(p->links);
		p->links = n;
		p->caplinks = cap;
	}
	if (!p->caplinks)
		return NULL;
	for (h = link_hash(st->st_dev, st->st_ino, p->caplinks);; h = (h + 1) & (p->caplinks - 1)) {
		struct link_ent *e = &p->links[h];

		if (!e->used) {
			if (!add)
				return NULL;
			e->used = true;
			e->dev = st->st_dev;
			e->ino = st->st_ino;
			p->nlinks++;
			return e;
		}
		if (e->dev == st->st_dev && e->ino == st->st_ino)
			return e;
	}
}

static void fill_inode(struct nlfs_inode *ino, const struct stat *st, uint32_t links)
{
	memset(ino, 0, sizeof(*ino));
	ino->i_mode = nlfs_cpu_to_le16((uint16_t)st->st_mode);
	ino->i_links_count = nlfs_cpu_to_le16((uint16_t)links);
	ino->i_uid = nlfs_cpu_to_le32((uint32_t)st->st_uid);
	ino->i_gid = nlfs_cpu_to_le32((uint32_t)st->st_gid);
	ino->i_ctime = nlfs_cpu_to_le64((uint64_t)st->st_ctim.tv_sec);
	ino->i_ctime_nsec = nlfs_cpu_to_le32((uint32_t)st->st_ctim.tv_nsec);
	ino->i_mtime = nlfs_cpu_to_le64((uint64_t)st->st_mtim.tv_sec);
	ino->i_mtime_nsec = nlfs_cpu_to_le32((uint32_t)st->st_mtim.tv_nsec);
}

static int cmp_child(const void *a, const void *b)
{
	return strcmp(((const struct child *)a)->name, ((const struct child *)b)->name);
}

static void free_children(struct child *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i].name);
	free(c);
}

static int list_dir(struct pop *p, int dfd, struct child **out, size_t *count)
{
	int fd = dup(dfd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct child *c = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int rc = 0;

	if (!d) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return fail(p, rc, "cannot read directory");
	}
	/* the descriptor's offset is shared with DFD, which the second walk
	 * lists again */
	rewinddir(d);
	errno = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (strlen(de->d_name) > NLFS_NAME_LEN) {
			rc = fail(p, ENAMETOOLONG, de->d_name);
			break;
		}
		if (CLI_GROW(c, cap, n + 1)) {
			rc = -ENOMEM;
			break;
		}
		memset(&c[n], 0, sizeof(c[n]));
		c[n].name = strdup(de->d_name);
		if (!c[n].name) {
			rc = -ENOMEM;
			break;
		}
		if (fstatat(dfd, de->d_name, &c[n].st, AT_SYMLINK_NOFOLLOW)) {
			size_t saved;

			rc = -errno;
			n++;
			if (!path_push(p, de->d_name, &saved))
				rc = fail(p, rc, "cannot stat");
			break;
		}
		n++;
		errno = 0;
	}
	if (!rc && errno)
		rc = fail(p, errno, "cannot read directory");
	closedir(d);
	if (rc) {
		free_children(c, n);
		return rc;
	}
	if (n)
		nlfs_sort(c, n, sizeof(*c), cmp_child);
	*out = c;
	*count = n;
	return 0;
}

/* the file's data, hole by hole: only ranges SEEK_DATA finds are written */
static int copy_data(struct pop *p, int fd, uint64_t size, uint64_t ino)
{
	uint64_t off = 0, next = 0, blocks = 0, bs = p->bs;
	struct nlfs_err err;
	int rc = nlfs_writer_file_begin(p->w, ino, &err);
	/* most files have no hole: one question says so */
	off_t first_hole = size ? lseek(fd, 0, SEEK_HOLE) : 0;

	if (rc)
		return rc;
	while (off < size) {
		off_t data = first_hole >= (off_t)size ? 0 : lseek(fd, (off_t)off, SEEK_DATA), hole;
		uint64_t end;

		if (first_hole >= (off_t)size) {
			hole = (off_t)size;
		} else if (data < 0) {
			if (errno == ENXIO)
				break;
			data = (off_t)off;   /* no SEEK_DATA here: read everything */
			hole = (off_t)size;
		} else {
			hole = lseek(fd, data, SEEK_HOLE);
			if (hole < 0)
				hole = (off_t)size;
		}
		/* whole blocks covering [data, hole), never a block twice */
		off = (uint64_t)data / bs * bs;
		if (off < next)
			off = next;
		end = ((uint64_t)hole + bs - 1) / bs * bs;
		if (end > size)
			end = size;
		while (off < end) {
			size_t want = end - off < READ_CHUNK ? (size_t)(end - off) : READ_CHUNK;
			ssize_t got = pread(fd, p->buf, want, (off_t)off);

			if (got < 0)
				return fail(p, errno, "read error");
			if (got == 0)
				break;
			if ((size_t)got % bs)
				memset(p->buf + got, 0, bs - (size_t)got % bs);
			for (size_t b = 0; b < (size_t)got; b += bs) {
				rc = nlfs_writer_file_block(p->w, (off + b) / bs, p->buf + b, &err);
				if (rc) {
					snprintf(p->errbuf, p->errlen, "%s: %s", p->path, err.what);
					return rc;
				}
				blocks++;
			}
			off += ((size_t)got + bs - 1) / bs * bs;
			next = off;
			progress_update(&p->bar, p->bytes_done + off, p->bytes_total);
		}
		if (off < (uint64_t)hole)
			off = (uint64_t)hole;
	}
	p->stats->data_blocks += blocks;
	p->bytes_done += size;
	return 0;
}

static int end_file(struct pop *p, struct nlfs_inode *inode)
{
	struct nlfs_err err;
	int rc = nlfs_writer_file_end(p->w, inode, &err);

	if (rc)
		snprintf(p->errbuf, p->errlen, "%s: %s", p->path, err.what);
	return rc;
}

/* regular file FD (status ST) as inode INO */
static int copy_file(struct pop *p, int fd, const struct stat *st, uint64_t ino)
{
	struct link_ent *le = st->st_nlink > 1 ? link_find(p, st, false) : NULL;
	struct nlfs_inode inode;
	int rc;

	fill_inode(&inode, st, le ? le->links : 1);
	inode.i_size = nlfs_cpu_to_le64((uint64_t)st->st_size);
	rc = copy_data(p, fd, (uint64_t)st->st_size, ino);
	if (!rc)
		rc = end_file(p, &inode);
	p->stats->files++;
	return rc;
}

/* a symbolic link or special file */
static int copy_nondir(struct pop *p, int dfd, const struct child *c)
{
	const struct stat *st = &c->st;
	struct link_ent *le = st->st_nlink > 1 ? link_find(p, st, false) : NULL;
	struct nlfs_inode inode;
	struct nlfs_err err;
	int rc = 0;

	fill_inode(&inode, st, le ? le->links : 1);
	inode.i_size = nlfs_cpu_to_le64((uint64_t)st->st_size);
	if (S_ISLNK(st->st_mode)) {
		ssize_t len;

		memset(p->buf, 0, p->bs);
		len = readlinkat(dfd, c->name, (char *)p->buf, p->bs);
		if (len < 0)
			return fail(p, errno, "cannot read symbolic link");
		if ((size_t)len >= p->bs)
			return fail(p, ENAMETOOLONG, "symbolic link target longer than a block");
		inode.i_size = nlfs_cpu_to_le64((uint64_t)len);
		rc = nlfs_writer_file_begin(p->w, c->ino, &err);
		if (!rc)
			rc = nlfs_writer_file_block(p->w, 0, p->buf, &err);
		if (rc) {
			snprintf(p->errbuf, p->errlen, "%s: %s", p->path, err.what);
			return rc;
		}
		p->stats->symlinks++;
		return end_file(p, &inode);
	}
	inode.i_size = 0;
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) {
		inode.i_bmap[0] = nlfs_cpu_to_le64(nlfs_dev_encode(major(st->st_rdev),
								   minor(st->st_rdev)));
	}
	p->stats->special++;
	rc = nlfs_writer_put_inode(p->w, c->ino, &inode, &err);
	if (rc)
		snprintf(p->errbuf, p->errlen, "%s: %s", p->path, err.what);
	return rc;
}

/* S and its terminating NUL into pop.names; its offset in *AT */
static int keep_name(struct pop *p, const char *s, uint32_t *at)
{
	size_t len = strlen(s) + 1;

	if (p->nameslen + len > UINT32_MAX)
		return -ENOMEM;
	if (CLI_GROW(p->names, p->namescap, p->nameslen + len))
		return -ENOMEM;
	memcpy(p->names + p->nameslen, s, len);
	*at = (uint32_t)p->nameslen;
	p->nameslen += len;
	return 0;
}

/* file NAME of the directory whose path is the first DIRLEN bytes of
 * pop.path; *DIR is that directory's path in pop.names, kept at its first
 * file */
static int remember_file(struct pop *p, uint32_t *dir, size_t dirlen, const char *name,
			 uint64_t ino)
{
	struct file_ent e = { .ino = ino };
	int rc = 0;

	if (*dir == UINT32_MAX) {
		char *rel = p->path + p->rootlen, c = p->path[dirlen];

		p->path[dirlen] = '\0';
		rc = keep_name(p, rel + (*rel == '/'), dir);
		p->path[dirlen] = c;
	}
	e.dir = *dir;
	if (!rc)
		rc = keep_name(p, name, &e.name);
	return rc ? rc : CLI_PUSH(p->files, p->nfiles, p->capfiles, e);
}

/* a subdirectory to descend into: its fd, or -1 with *RC set */
static int open_subdir(struct pop *p, int dfd, const char *name, int *rc)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		*rc = fail(p, errno, "cannot open directory");
	return fd;
}

static int copy_dir(struct pop *p, int dfd, const struct stat *st, uint64_t ino,
		    uint64_t parent)
{
	struct child *c = NULL;
	size_t n = 0, nsub = 0;
	struct nlfs_dirw *dw = NULL;
	struct nlfs_inode inode;
	struct nlfs_err err;
	uint32_t here = UINT32_MAX;  /* this directory's path in pop.names, once needed */
	int rc = list_dir(p, dfd, &c, &n);

	if (rc)
		return rc;
	for (size_t i = 0; !rc && i < n; i++) {
		struct link_ent *le = NULL;

		if (!S_ISDIR(c[i].st.st_mode) && c[i].st.st_nlink > 1) {
			le = link_find(p, &c[i].st, true);
			if (!le) {
				rc = -ENOMEM;
				break;
			}
		}
		if (le && le->nino) {
			c[i].ino = le->nino;
			le->links++;
			continue;
		}
		rc = nlfs_writer_new_ino(p->w, &c[i].ino, &err);
		if (rc) {
			snprintf(p->errbuf, p->errlen, "%s: %s", p->path, err.what);
			break;
		}
		c[i].first_link = true;
		if (le) {
			le->nino = c[i].ino;
			le->links = 1;
		}
		nsub += S_ISDIR(c[i].st.st_mode);
	}
	if (!rc)
		rc = nlfs_dirw_begin(p->w, ino, parent, &dw, &err);
	for (size_t i = 0; !rc && i < n; i++)
		rc = nlfs_dirw_add(dw, c[i].name, strlen(c[i].name), c[i].ino,
				   nlfs_file_type_of_mode(c[i].st.st_mode), &err);
	if (!rc) {
		fill_inode(&inode, st, (uint32_t)(2 + nsub));
		rc = nlfs_dirw_end(dw, &inode, &err);
	} else {
		nlfs_dirw_free(dw);
	}
	if (rc && !p->errbuf[0])
		snprintf(p->errbuf, p->errlen, "%s: %s", p->path, err.what);
	p->stats->dirs++;
	for (int pass = 0; pass < 2 && !rc; pass++) {
		for (size_t i = 0; !rc && i < n; i++) {
			bool isdir = S_ISDIR(c[i].st.st_mode);
			size_t saved;

			if (!c[i].first_link || isdir != (pass == 1))
				continue;
			rc = path_push(p, c[i].name, &saved);
			if (rc)
				break;
			if (isdir) {
				int fd = open_subdir(p, dfd, c[i].name, &rc);

				if (fd < 0)
					break;
				rc = copy_dir(p, fd, &c[i].st, c[i].ino, ino);
				close(fd);
			} else if (S_ISREG(c[i].st.st_mode)) {
				rc = remember_file(p, &here, saved, c[i].name, c[i].ino);
				p->bytes_total += (uint64_t)c[i].st.st_size;
			} else {
				rc = copy_nondir(p, dfd, &c[i]);
			}
			if (!rc)
				p->path[saved] = '\0';
		}
	}
	free_children(c, n);
	return rc;
}

/* pop.path: the tree's path, then file E's path in it */
static int file_path(struct pop *p, const struct file_ent *e, const char **rel)
{
	const char *dir = p->names + e->dir, *name = p->names + e->name;
	size_t saved;
	int rc;

	p->path[p->rootlen] = '\0';
	if (*dir) {
		rc = path_push(p, dir, &saved);
		if (rc)
			return rc;
	}
	rc = path_push(p, name, &saved);
	*rel = p->path + p->rootlen;
	*rel += **rel == '/';
	return rc;
}

/* open file I ahead of its copy and ask for its first bytes */
static int open_ahead(struct pop *p, int rootfd, size_t i, struct ahead *a)
{
	const char *rel;
	int rc = file_path(p, &p->files[i], &rel);

	if (rc)
		return rc;
	a->fd = openat(rootfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	a->err = errno;
	a->what = "cannot open";
	if (a->fd < 0)
		return 0;
	if (fstat(a->fd, &a->st)) {
		a->err = errno;
		a->what = "cannot stat";
	} else if (!S_ISREG(a->st.st_mode)) {
		a->err = EAGAIN;
		a->what = "the tree changed while it was copied";
	} else {
		if (a->st.st_size > 0)
			(void)posix_fadvise(a->fd, 0, a->st.st_size < (off_t)AHEAD_BYTES ?
					    a->st.st_size : (off_t)AHEAD_BYTES, POSIX_FADV_WILLNEED);
		return 0;
	}
	close(a->fd);
	a->fd = -1;
	return 0;
}

static uint64_t ahead_bytes(const struct ahead *a)
{
	return a->fd < 0 ? 0 : (uint64_t)a->st.st_size < AHEAD_BYTES ? (uint64_t)a->st.st_size :
	       AHEAD_BYTES;
}

/* the listed files' data, in the walk's order, opened AHEAD_FILES ahead */
static int copy_files(struct pop *p, int rootfd)
{
	struct ahead ring[AHEAD_FILES];
	size_t opened = 0, i;
	uint64_t asked = 0;
	int rc = 0;

	for (i = 0; !rc && i < p->nfiles; i++) {
		struct ahead *a;
		const char *rel;

		while (opened < p->nfiles && opened < i + AHEAD_FILES &&
		       (opened == i || asked < AHEAD_BYTES)) {
			rc = open_ahead(p, rootfd, opened, &ring[opened % AHEAD_FILES]);
			if (rc)
				break;
			asked += ahead_bytes(&ring[opened % AHEAD_FILES]);
			opened++;
		}
		if (rc)
			break;
		a = &ring[i % AHEAD_FILES];
		asked -= ahead_bytes(a);
		rc = file_path(p, &p->files[i], &rel);
		if (!rc && a->fd < 0)
			rc = fail(p, a->err, a->what);
		if (!rc)
			rc = copy_file(p, a->fd, &a->st, p->files[i].ino);
		if (a->fd >= 0)
			close(a->fd);
	}
	for (; i < opened; i++)
		if (ring[i % AHEAD_FILES].fd >= 0)
			close(ring[i % AHEAD_FILES].fd);
	return rc;
}

/* hard links counted after the whole tree was seen */
static int fix_link_counts(struct pop *p)
{
	for (size_t i = 0; i < p->caplinks; i++) {
		struct link_ent *e = &p->links[i];
		struct nlfs_inode inode;
		struct nlfs_err err;
		int rc;

		if (!e->used || !e->nino)
			continue;
		rc = nlfs_writer_get_inode(p->w, e->nino, &inode, &err);
		if (!rc) {
			inode.i_links_count = nlfs_cpu_to_le16((uint16_t)e->links);
			rc = nlfs_writer_put_inode(p->w, e->nino, &inode, &err);
		}
		if (rc) {
			snprintf(p->errbuf, p->errlen, "%s", err.what);
			return rc;
		}
	}
	return 0;
}

int populate_tree(struct nlfs_writer *w, const char *dir, struct populate_stats *stats,
		  bool progress, char *errbuf, size_t errlen)
{
	struct pop p = { .w = w, .stats = stats, .errbuf = errbuf, .errlen = errlen };
	struct stat st;
	int fd, rc;

	errbuf[0] = '\0';
	p.bs = nlfs_writer_geometry(w)->blocksize;
	p.buf = malloc(READ_CHUNK + p.bs);
	p.path = strdup(dir);
	if (!p.buf || !p.path) {
		free(p.buf);
		free(p.path);
		return -ENOMEM;
	}
	p.pathcap = strlen(dir) + 1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		rc = fail(&p, errno, "cannot open directory");
	} else {
		p.rootlen = strlen(p.path);
		rc = copy_dir(&p, fd, &st, NLFS_ROOT_INO, NLFS_ROOT_INO);
		p.path[p.rootlen] = '\0';
		progress_init_unless(&p.bar, stderr, "copying", !progress);
		if (!rc)
			rc = copy_files(&p, fd);
		progress_clear(&p.bar);
		if (!rc)
			rc = fix_link_counts(&p);
	}
	if (fd >= 0)
		close(fd);
	free(p.buf);
	free(p.path);
	free(p.links);
	free(p.files);
	free(p.names);
	return rc;
}

int populate_empty_root(struct nlfs_writer *w, uint64_t now, char *errbuf, size_t errlen)
{
	struct stat st;
	struct nlfs_dirw *dw;
	struct nlfs_inode inode;
	struct nlfs_err err;
	int rc;

	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFDIR | 0755;
	st.st_uid = getuid();
	st.st_gid = getgid();
	st.st_ctim.tv_sec = st.st_mtim.tv_sec = (time_t)now;
	rc = nlfs_dirw_begin(w, NLFS_ROOT_INO, NLFS_ROOT_INO, &dw, &err);
	if (!rc) {
		fill_inode(&inode, &st, 2);
		rc = nlfs_dirw_end(dw, &inode, &err);
	}
	if (rc)
		snprintf(errbuf, errlen, "root directory: %s", err.what);
	return rc;
}
