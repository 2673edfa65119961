/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mountinfo.c - mount lookup for the commands.  A line reads
 *   ID PARENT MAJ:MIN ROOT MOUNTPOINT MOUNTOPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS
 * with spaces, tabs, newlines and backslashes in paths written as \ooo.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "mountinfo.h"
#include "array.h"

/* loop devices of one image file looked at, at most */
#define MNT_LOOPS_MAX 16

static void unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; ) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)(((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

static bool has_opt(const char *opts, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *p = opts; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		if (!strncmp(p, opt, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
	}
	return false;
}

struct mi_line {
	dev_t dev;
	char *mountpoint, *fstype, *source;
	bool rw;
};

/* split LINE in place; false if it is not a well-formed mountinfo line */
static bool parse_line(char *line, struct mi_line *m)
{
	char *f[64], *save = NULL;
	int n = 0, sep = -1;
	unsigned maj, min;

	line[strcspn(line, "\n")] = '\0';
	for (char *t = strtok_r(line, " ", &save); t && n < 64; t = strtok_r(NULL, " ", &save)) {
		if (sep < 0 && n >= 6 && !strcmp(t, "-"))
			sep = n;
		f[n++] = t;
	}
	if (sep < 0 || n < sep + 4)
		return false;
	if (sscanf(f[2], "%u:%u", &maj, &min) != 2)
		return false;
	m->dev = makedev(maj, min);
	m->mountpoint = f[4];
	m->fstype = f[sep + 1];
	m->source = f[sep + 2];
	m->rw = has_opt(f[5], "rw") && !has_opt(f[sep + 3], "ro");
	unescape(m->mountpoint);
	unescape(m->source);
	return true;
}

static int fill(struct mnt_entry *out, const struct mi_line *m)
{
	out->mountpoint = strdup(m->mountpoint);
	out->source = strdup(m->source);
	out->dev = m->dev;
	out->rw = m->rw;
	if (!out->mountpoint || !out->source) {
		mnt_free(out);
		return -ENOMEM;
	}
	return 0;
}

int mnt_list(const char *path, const char *fstype, struct mnt_entry **out, size_t *n)
{
	FILE *f = fopen(path, "re");
	struct mnt_entry *v = NULL;
	size_t cap = 0, len = 0, lcap = 0;
	char *line = NULL;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!f)
		return -errno;
	while (!rc && getline(&line, &lcap, f) >= 0) {
		struct mi_line m;

		if (!parse_line(line, &m) || (fstype && strcmp(m.fstype, fstype)))
			continue;
		rc = CLI_GROW(v, cap, len + 1);
		if (!rc)
			rc = fill(&v[len], &m);
		if (!rc)
			len++;
	}
	free(line);
	fclose(f);
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

static int find(const char *path, const char *fstype, bool any, dev_t dev, const char *dir,
		struct mnt_entry *out)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, *canon = NULL;
	size_t cap = 0;
	int rc = -ENOENT;

	memset(out, 0, sizeof(*out));
	if (!f)
		return -errno;
	if (dir) {
		canon = realpath(dir, NULL);
		if (!canon) {
			rc = -errno;
			goto out;
		}
	}
	while (getline(&line, &cap, f) >= 0) {
		struct mi_line m;

		if (!parse_line(line, &m) || (fstype && strcmp(m.fstype, fstype)))
			continue;
		if (!any && m.dev != dev)
			continue;
		if (canon && strcmp(canon, m.mountpoint))
			continue;
		if (any && !m.rw)
			continue;
		if (m.rw) {
			mnt_free(out);
			rc = fill(out, &m);
			break;
		}
		if (rc == -ENOENT) {   /* remember the first read-only one */
			rc = fill(out, &m);
			if (rc == 0)
				rc = -EROFS;
		}
	}
out:
	free(line);
	free(canon);
	fclose(f);
	return rc;
}

int mnt_find(const char *path, dev_t dev, const char *dir, struct mnt_entry *out)
{
	return find(path, "nilfs2", false, dev, dir, out);
}

int mnt_find_any(const char *path, struct mnt_entry *out)
{
	return find(path, "nilfs2", true, 0, NULL, out);
}

void mnt_free(struct mnt_entry *m)
{
	free(m->mountpoint);
	free(m->source);
	m->mountpoint = m->source = NULL;
}

/* is DEV mounted at all (any file system)?  WHERE gets the mount point */
static bool dev_mounted(dev_t dev, bool *ro, char *where, size_t len)
{
	struct mnt_entry m;
	int rc = find(MNT_MOUNTINFO, NULL, false, dev, NULL, &m);

	if (rc && rc != -EROFS)
		return false;
	snprintf(where, len, "%s", m.mountpoint);
	*ro = rc == -EROFS;
	mnt_free(&m);
	return true;
}

size_t mnt_loops_of(const char *file, dev_t *devs, size_t max)
{
	char real[PATH_MAX];
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	size_t n = 0;

	if (!d || !realpath(file, real)) {
		if (d)
			closedir(d);
		return 0;
	}
	while (n < max && (e = readdir(d))) {
		char path[PATH_MAX], back[PATH_MAX];
		unsigned maj, min;
		FILE *f;

		if (strncmp(e->d_name, "loop", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(back, sizeof(back), f)) {
			fclose(f);
			continue;
		}
		fclose(f);
		back[strcspn(back, "\n")] = 0;
		if (strcmp(back, real))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dev", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%u:%u", &maj, &min) == 2)
			devs[n++] = makedev(maj, min);
		fclose(f);
	}
	closedir(d);
	return n;
}

/* is a loop device backed by FILE mounted? */
static bool loop_backed_by(const char *file, bool *ro, char *where, size_t len)
{
	dev_t devs[MNT_LOOPS_MAX];
	size_t n = mnt_loops_of(file, devs, MNT_LOOPS_MAX);

	for (size_t i = 0; i < n; i++)
		if (dev_mounted(devs[i], ro, where, len))
			return true;
	return false;
}

int mnt_in_use(const char *path, bool *mounted, bool *ro, char *where, size_t len)
{
	struct stat st;

	*mounted = *ro = false;
	where[0] = 0;
	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode))
		*mounted = dev_mounted(st.st_rdev, ro, where, len);
	else if (S_ISREG(st.st_mode))
		*mounted = loop_backed_by(path, ro, where, len);
	return 0;
}

bool mnt_path_mounted(const char *path)
{
	bool mounted, ro;
	char where[PATH_MAX];

	return mnt_in_use(path, &mounted, &ro, where, sizeof(where)) == 0 && mounted;
}
