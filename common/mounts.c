/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mounts.c - mount lookup for the commands (mounts.h), on libmount's table
 * of this process's mounts and its cache (canonical paths, tags).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <libmount.h>

#include "array.h"
#include "cli.h"
#include "mounts.h"

/* loop devices of one image file looked at, at most */
#define MNT_LOOPS_MAX 16

struct candidates {
	dev_t dev[MNT_LOOPS_MAX];
	char name[MNT_LOOPS_MAX][NAME_MAX + 8];   /* "/dev/loopN", or empty */
	size_t n;
};

static struct libmnt_table *load(const char *table, struct libmnt_cache **cache, int *rc)
{
	struct libmnt_table *tb = mnt_new_table();

	*cache = NULL;
	if (!tb) {
		*rc = -ENOMEM;
		return NULL;
	}
	*rc = table ? mnt_table_parse_file(tb, table) : mnt_table_parse_mtab(tb, NULL);
	if (*rc) {
		*rc = *rc < 0 ? *rc : -EINVAL;
		mnt_unref_table(tb);
		return NULL;
	}
	*cache = mnt_new_cache();
	if (*cache)
		mnt_table_set_cache(tb, *cache);
	return tb;
}

static void unload(struct libmnt_table *tb, struct libmnt_cache *cache)
{
	mnt_unref_table(tb);
	mnt_unref_cache(cache);
}

static bool fs_rw(struct libmnt_fs *fs)
{
	return !mnt_fs_match_options(fs, "ro");
}

static int fill(struct mnt_entry *out, struct libmnt_fs *fs)
{
	const char *src = mnt_fs_get_source(fs), *type = mnt_fs_get_fstype(fs);

	out->mountpoint = strdup(mnt_fs_get_target(fs) ? mnt_fs_get_target(fs) : "");
	out->source = strdup(src ? src : "none");
	out->fstype = strdup(type ? type : "unknown");
	out->dev = mnt_fs_get_devno(fs);
	out->rw = fs_rw(fs);
	if (!out->mountpoint || !out->source || !out->fstype) {
		mnt_free(out);
		return -ENOMEM;
	}
	return 0;
}

/* better than the best so far: a foreign mount, then a read-write one */
static int rank(struct libmnt_fs *fs)
{
	return (mnt_fs_match_fstype(fs, "nilfs2") ? 0 : 2) + (fs_rw(fs) ? 1 : 0);
}

static bool matches(struct libmnt_fs *fs, const struct candidates *c, struct libmnt_cache *cache)
{
	for (size_t i = 0; i < c->n; i++) {
		if (mnt_fs_get_devno(fs) == c->dev[i])
			return true;
		if (c->name[i][0] && mnt_fs_match_source(fs, c->name[i], cache))
			return true;
	}
	return false;
}

static int lookup(const char *table, const struct candidates *c, const char *path,
		  const char *dir, struct mnt_entry *out)
{
	struct libmnt_cache *cache;
	struct libmnt_iter *it;
	struct libmnt_fs *fs, *best = NULL;
	int rc, best_rank = -1;
	struct libmnt_table *tb = load(table, &cache, &rc);

	if (!tb)
		return rc;
	it = mnt_new_iter(MNT_ITER_FORWARD);
	if (!it) {
		unload(tb, cache);
		return -ENOMEM;
	}
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		if (!matches(fs, c, cache))
			continue;
		if (dir && !mnt_fs_match_target(fs, dir, cache))
			continue;
		if (rank(fs) > best_rank) {
			best = fs;
			best_rank = rank(fs);
		}
	}
	mnt_free_iter(it);
	/* a device's symlink or tag named on the command line */
	if (!best && path && !dir)
		best = mnt_table_find_source(tb, path, MNT_ITER_FORWARD);
	rc = best ? fill(out, best) : -ENOENT;
	unload(tb, cache);
	return rc;
}

/* every loop device whose backing file is the file ST describes */
static void loops_of(const char *file, const struct stat *st, struct candidates *c)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	char real[PATH_MAX];
	int have_real = -1;   /* realpath() not asked yet: most scans never need it */

	if (!d)
		return;
	while (c->n < MNT_LOOPS_MAX && (e = readdir(d))) {
		char path[PATH_MAX], back[PATH_MAX];
		unsigned maj, min;
		struct stat bst;
		bool same;
		FILE *f;

		if (strncmp(e->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		same = fgets(back, sizeof(back), f) != NULL;
		fclose(f);
		if (!same)
			continue;
		back[strcspn(back, "\n")] = 0;
		/* the same inode, or (a deleted or unreachable one) the same name */
		if (stat(back, &bst) == 0) {
			same = bst.st_dev == st->st_dev && bst.st_ino == st->st_ino;
		} else {
			if (have_real < 0)
				have_real = realpath(file, real) != NULL;
			same = have_real && !strcmp(back, real);
		}
		if (!same)
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dev", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%u:%u", &maj, &min) == 2) {
			c->dev[c->n] = makedev(maj, min);
			snprintf(c->name[c->n], sizeof(c->name[0]), "/dev/%s", e->d_name);
			c->n++;
		}
		fclose(f);
	}
	closedir(d);
}

static int lookup_dir(const char *table, const char *path, struct mnt_entry *out)
{
	struct libmnt_cache *cache;
	struct libmnt_fs *fs;
	int rc;
	struct libmnt_table *tb = load(table, &cache, &rc);

	if (!tb)
		return rc;
	fs = mnt_table_find_mountpoint(tb, path, MNT_ITER_BACKWARD);
	rc = fs ? fill(out, fs) : -ENOENT;
	unload(tb, cache);
	return rc;
}

int mnt_lookup(const char *table, const char *path, const char *dir, struct mnt_entry *out)
{
	struct candidates c = { .n = 0 };
	struct stat st;

	memset(out, 0, sizeof(*out));
	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return dir ? -ENOENT : lookup_dir(table, path, out);
	if (S_ISBLK(st.st_mode)) {
		c.dev[0] = st.st_rdev;
		c.n = 1;
		return lookup(table, &c, path, dir, out);
	}
	if (!S_ISREG(st.st_mode))
		return -ENOENT;
	loops_of(path, &st, &c);
	return c.n ? lookup(table, &c, NULL, dir, out) : -ENOENT;
}

int mnt_lookup_dev(const char *table, dev_t dev, const char *dir, struct mnt_entry *out)
{
	struct candidates c = { .dev = { dev }, .n = 1 };

	memset(out, 0, sizeof(*out));
	return lookup(table, &c, NULL, dir, out);
}

void mnt_free(struct mnt_entry *m)
{
	free(m->mountpoint);
	free(m->source);
	free(m->fstype);
	m->mountpoint = m->source = m->fstype = NULL;
}

int mnt_list(const char *table, const char *fstype, struct mnt_entry **out, size_t *n)
{
	struct libmnt_cache *cache;
	struct libmnt_iter *it;
	struct libmnt_fs *fs;
	struct mnt_entry *v = NULL;
	size_t cap = 0, len = 0;
	int rc;
	struct libmnt_table *tb = load(table, &cache, &rc);

	*out = NULL;
	*n = 0;
	if (!tb)
		return rc;
	it = mnt_new_iter(MNT_ITER_FORWARD);
	rc = it ? 0 : -ENOMEM;
	while (!rc && mnt_table_next_fs(tb, it, &fs) == 0) {
		if (fstype && !mnt_fs_match_fstype(fs, fstype))
			continue;
		rc = CLI_GROW(v, cap, len + 1);
		if (!rc)
			rc = fill(&v[len], fs);
		if (!rc)
			len++;
	}
	mnt_free_iter(it);
	unload(tb, cache);
	if (rc) {
		mnt_list_free(v, len);
		return rc;
	}
	*out = v;
	*n = len;
	return 0;
}

void mnt_list_free(struct mnt_entry *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mnt_free(&m[i]);
	free(m);
}

bool mnt_path_mount(const char *path, struct mnt_entry *out)
{
	struct stat st;

	memset(out, 0, sizeof(*out));
	return stat(path, &st) == 0 && !S_ISDIR(st.st_mode) && !mnt_lookup(NULL, path, NULL, out);
}

bool mnt_path_mounted(const char *path)
{
	struct mnt_entry m;

	if (!mnt_path_mount(path, &m))
		return false;
	mnt_free(&m);
	return true;
}

int mnt_find_nilfs(const char *path, struct mnt_entry *out, char *msg, size_t len)
{
	return mnt_find_nilfs_at(path, NULL, out, msg, len);
}

int mnt_find_nilfs_at(const char *path, const char *dir, struct mnt_entry *out, char *msg,
		      size_t len)
{
	struct stat st;
	int rc;

	memset(out, 0, sizeof(*out));
	if (stat(path, &st) < 0)
		return -errno;
	rc = mnt_lookup(NULL, path, dir, out);
	if (rc || mnt_is_nilfs(out))
		return rc;
	if (S_ISDIR(st.st_mode))
		snprintf(msg, len, "a directory in the %s file system mounted on %s (%s), not NILFS2",
			 out->fstype, out->mountpoint, out->source);
	else if (S_ISREG(st.st_mode))
		snprintf(msg, len, "mounted through %s on %s as %s, not NILFS2", out->source,
			 out->mountpoint, out->fstype);
	else
		snprintf(msg, len, "mounted on %s as %s, not NILFS2", out->mountpoint, out->fstype);
	mnt_free(out);
	return -EMEDIUMTYPE;
}

int mnt_lookup_nilfs(const char *path, struct mnt_entry *out, char *msg, size_t len)
{
	int rc = mnt_find_nilfs(path, out, msg, len);

	return rc == -EMEDIUMTYPE ? rc : 0;
}

int mnt_check_nilfs(const char *path, char *msg, size_t len)
{
	struct mnt_entry m;
	int rc = mnt_lookup_nilfs(path, &m, msg, len);

	if (rc == -EMEDIUMTYPE)
		return rc;
	mnt_free(&m);
	return 0;
}

int cmd_mount_of(const char *path, struct mnt_entry *out)
{
	char msg[3 * PATH_MAX];
	int rc = mnt_find_nilfs(path, out, msg, sizeof(msg));

	if (rc == -EMEDIUMTYPE)
		cli_errx("%s: %s; nothing done", path, msg);
	return rc;
}

void cmd_refuse_foreign_mount(const char *path)
{
	struct mnt_entry m;

	if (!cmd_mount_of(path, &m))
		mnt_free(&m);
}
