/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mnt.c - mountinfo lookup.  A line reads
 *   ID PARENT MAJ:MIN ROOT MOUNTPOINT MOUNTOPTS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTS
 * with spaces, tabs, newlines and backslashes in paths written as \ooo.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "mnt.h"

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

static int fill(struct cld_mount *out, const struct mi_line *m)
{
	out->mountpoint = strdup(m->mountpoint);
	out->source = strdup(m->source);
	out->dev = m->dev;
	out->rw = m->rw;
	if (!out->mountpoint || !out->source) {
		cld_mount_free(out);
		return -ENOMEM;
	}
	return 0;
}

static int find(const char *path, bool any, dev_t dev, const char *dir, struct cld_mount *out)
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

		if (!parse_line(line, &m) || strcmp(m.fstype, "nilfs2"))
			continue;
		if (!any && m.dev != dev)
			continue;
		if (canon && strcmp(canon, m.mountpoint))
			continue;
		if (any && !m.rw)
			continue;
		if (m.rw) {
			cld_mount_free(out);
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

int cld_find_mount(const char *path, dev_t dev, const char *dir, struct cld_mount *out)
{
	return find(path, false, dev, dir, out);
}

int cld_find_any_mount(const char *path, struct cld_mount *out)
{
	return find(path, true, 0, NULL, out);
}

void cld_mount_free(struct cld_mount *m)
{
	free(m->mountpoint);
	free(m->source);
	m->mountpoint = m->source = NULL;
}
