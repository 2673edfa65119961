/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vol.c - find the volume a command names: the mounted NILFS2 file systems
 * come from /proc/self/mountinfo and are matched by device number, so a
 * device, its mount point, a directory inside it, or a loop-mounted image
 * all lead to the same mount.  What is not mounted is read offline.  A
 * device may be named by a tag (UUID=, LABEL=; common/devtag.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "devtag.h"
#include "vol.h"

struct mnt {
	dev_t dev;
	char *dir, *src;
	bool rw;
};

struct mnt_list {
	struct mnt *m;
	size_t n;
};

/* mountinfo escapes blanks, tabs, newlines and backslashes as \ooo */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = 0;
}

static bool has_opt(const char *opts, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *p = opts; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, opt, n) && (p[n] == ',' || p[n] == 0))
			return true;
	return false;
}

/* the NILFS2 mounts, in mountinfo order */
static int read_mounts(struct mnt_list *l)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;

	l->m = NULL;
	l->n = 0;
	if (!f)
		return 0;   /* no /proc: nothing is mounted as far as we can tell */
	while (getline(&line, &cap, f) > 0) {
		char *fld[12], *save = NULL, *tok, *fstype = NULL, *src = NULL, *sopts = NULL;
		unsigned nf = 0, maj, min;
		struct mnt *m;

		for (tok = strtok_r(line, " \n", &save); tok && nf < 12;
		     tok = strtok_r(NULL, " \n", &save)) {
			if (!strcmp(tok, "-") && nf >= 6) {
				fstype = strtok_r(NULL, " \n", &save);
				src = strtok_r(NULL, " \n", &save);
				sopts = strtok_r(NULL, " \n", &save);
				break;
			}
			fld[nf++] = tok;
		}
		if (nf < 6 || !fstype || !src || strcmp(fstype, "nilfs2") ||
		    sscanf(fld[2], "%u:%u", &maj, &min) != 2)
			continue;
		m = realloc(l->m, (l->n + 1) * sizeof(*m));
		if (!m)
			break;
		l->m = m;
		m = &l->m[l->n];
		unescape(fld[4]);
		unescape(src);
		m->dev = makedev(maj, min);
		m->dir = strdup(fld[4]);
		m->src = strdup(src);
		m->rw = has_opt(fld[5], "rw") && !(sopts && has_opt(sopts, "ro"));
		if (!m->dir || !m->src) {
			free(m->dir);
			free(m->src);
			break;
		}
		l->n++;
	}
	free(line);
	fclose(f);
	return 0;
}

static void free_mounts(struct mnt_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->m[i].dir);
		free(l->m[i].src);
	}
	free(l->m);
}

/* a mount of DEV, read-write ones first, as nilfs-utils prefers them */
static const struct mnt *find_mount(const struct mnt_list *l, dev_t dev)
{
	const struct mnt *ro = NULL;

	for (size_t i = 0; i < l->n; i++) {
		if (l->m[i].dev != dev)
			continue;
		if (l->m[i].rw)
			return &l->m[i];
		if (!ro)
			ro = &l->m[i];
	}
	return ro;
}

/* the device number of the loop device backing regular file PATH, if any */
static bool loop_of(const char *path, dev_t *dev)
{
	char real[PATH_MAX], buf[PATH_MAX + 2], p[PATH_MAX];
	DIR *d;
	struct dirent *e;
	bool found = false;

	if (!realpath(path, real) || !(d = opendir("/sys/block")))
		return false;
	while (!found && (e = readdir(d))) {
		FILE *f;
		unsigned maj, min;

		if (strncmp(e->d_name, "loop", 4))
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", e->d_name);
		if (!(f = fopen(p, "re")))
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			buf[strcspn(buf, "\n")] = 0;
			found = !strcmp(buf, real);
		}
		fclose(f);
		if (!found)
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/dev", e->d_name);
		found = false;
		if ((f = fopen(p, "re"))) {
			if (fscanf(f, "%u:%u", &maj, &min) == 2) {
				*dev = makedev(maj, min);
				found = true;
			}
			fclose(f);
		}
	}
	closedir(d);
	return found;
}

static int use_mount(struct vol *v, const struct mnt *m, int mode, char *msg, size_t len)
{
	if ((mode & VOL_RDWR) && !m->rw) {
		snprintf(msg, len, "%s", strerror(EROFS));
		return -EROFS;
	}
	v->mounted = true;
	v->dev = strdup(m->src);
	v->mnt = strdup(m->dir);
	if (!v->dev || !v->mnt) {
		snprintf(msg, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return vol_mount_open(v, mode, msg, len);
}

/* ARG is NULL: the only mounted volume */
static int open_default(struct vol *v, const struct mnt_list *l, int mode, char *msg,
			size_t len)
{
	const struct mnt *first = NULL;
	size_t distinct = 0, at = 0;

	for (size_t i = 0; i < l->n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= l->m[j].dev == l->m[i].dev;
		if (seen)
			continue;
		if (!first)
			first = &l->m[i];
		distinct++;
	}
	if (distinct == 0) {
		snprintf(msg, len, "%s", strerror(ENOENT));
		return -ENOENT;
	}
	if (distinct == 1)
		return use_mount(v, find_mount(l, first->dev), mode, msg, len);
	at = (size_t)snprintf(msg, len, "%zu NILFS2 volumes are mounted, name one of", distinct);
	for (size_t i = 0; i < l->n && at < len; i++) {
		bool seen = false;

		for (size_t j = 0; j < i; j++)
			seen |= l->m[j].dev == l->m[i].dev;
		if (!seen)
			at += (size_t)snprintf(msg + at, len - at, "%s %s on %s",
					       i == (size_t)(first - l->m) ? ":" : ",",
					       l->m[i].src, l->m[i].dir);
	}
	return -EINVAL;
}

int vol_open(const char *arg, int mode, struct vol **out, char *msg, size_t len)
{
	struct vol *v = calloc(1, sizeof(*v));
	struct mnt_list l;
	const struct mnt *m = NULL;
	struct stat st;
	dev_t dev;
	int rc;

	if (!v) {
		snprintf(msg, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	read_mounts(&l);
	if (!arg) {
		rc = open_default(v, &l, mode, msg, len);
		goto done;
	}
	rc = dev_lookup(arg, &arg);     /* UUID=, LABEL=: the device */
	if (rc) {
		snprintf(msg, len, "%s", dev_lookup_reason(arg, rc));
		goto done;
	}
	if (stat(arg, &st) < 0) {
		rc = -errno;
		snprintf(msg, len, "%s", strerror(errno));
		goto done;
	}
	if (S_ISBLK(st.st_mode))
		m = find_mount(&l, st.st_rdev);
	else if (S_ISDIR(st.st_mode))
		m = find_mount(&l, st.st_dev);
	else if (S_ISREG(st.st_mode) && loop_of(arg, &dev))
		m = find_mount(&l, dev);
	if (m) {
		rc = use_mount(v, m, mode, msg, len);
	} else if (S_ISDIR(st.st_mode)) {
		snprintf(msg, len, "no NILFS2 file system is mounted there");
		rc = -ENOENT;
	} else {
		v->dev = strdup(arg);
		rc = v->dev ? vol_image_open(v, mode, msg, len) : -ENOMEM;
	}
done:
	free_mounts(&l);
	if (rc) {
		vol_close(v);
		return rc;
	}
	*out = v;
	return 0;
}

int vol_commit(struct vol *v)
{
	return v && v->ops && v->ops->commit ? v->ops->commit(v) : 0;
}

void vol_close(struct vol *v)
{
	if (!v)
		return;
	if (v->ops && v->ops->close)
		v->ops->close(v);
	free(v->dev);
	free(v->mnt);
	free(v);
}

const char *vol_strerror(struct vol *v, int code)
{
	if (v && v->detail[0])
		return v->detail;
	return nlfs_strerror(code);
}
