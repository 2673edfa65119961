/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vol.c - find the volume a command names: common/mounts.c's lookup
 * (libmount) leads a device, its mount point, a directory inside it, or a
 * loop-mounted image to the same mount, which must be nilfs2.  What is
 * not mounted is read offline.  A device may be named by a tag (UUID=,
 * LABEL=; common/devtag.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devtag.h"
#include "vol.h"
#include "mounts.h"

struct mnt_list {
	struct mnt_entry *m;
	size_t n;
};

/* a mount of DEV, read-write ones first, as nilfs-utils prefers them */
static const struct mnt_entry *find_mount(const struct mnt_list *l, dev_t dev)
{
	const struct mnt_entry *ro = NULL;

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

static int use_mount(struct vol *v, const struct mnt_entry *m, int mode, char *msg, size_t len)
{
	if ((mode & VOL_RDWR) && !m->rw) {
		snprintf(msg, len, "%s", strerror(EROFS));
		return -EROFS;
	}
	v->mounted = true;
	v->dev = strdup(m->source);
	v->mnt = strdup(m->mountpoint);
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
	const struct mnt_entry *first = NULL;
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
					       l->m[i].source, l->m[i].mountpoint);
	}
	return -EINVAL;
}

int vol_open(const char *arg, int mode, struct vol **out, char *msg, size_t len)
{
	struct vol *v = calloc(1, sizeof(*v));
	struct mnt_list l = { NULL, 0 };
	struct mnt_entry m;
	int rc;

	if (!v) {
		snprintf(msg, len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	if (!arg) {
		/* no /proc: nothing is mounted as far as we can tell */
		if (mnt_list(NULL, "nilfs2", &l.m, &l.n) == -ENOMEM) {
			free(v);
			snprintf(msg, len, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
		rc = open_default(v, &l, mode, msg, len);
		mnt_list_free(l.m, l.n);
		goto done;
	}
	rc = dev_lookup(arg, &arg);     /* UUID=, LABEL=: the device */
	if (rc) {
		snprintf(msg, len, "%s", dev_lookup_reason(arg, rc));
		goto done;
	}
	rc = mnt_find_nilfs(arg, &m, msg, len);
	if (rc == 0) {
		rc = use_mount(v, &m, mode, msg, len);
		mnt_free(&m);
	} else if (rc == -ENOENT) {
		v->dev = strdup(arg);
		rc = v->dev ? vol_image_open(v, mode, msg, len) : -ENOMEM;
	} else if (rc != -EMEDIUMTYPE) {
		snprintf(msg, len, "%s", strerror(-rc));
	}
done:
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

int vol_uuid(struct vol *v, uint8_t uuid[16])
{
	struct nlfs_fs *fs;
	int rc = v->ops->segments(v, &fs);

	if (rc)
		return rc;
	memcpy(uuid, nlfs_fs_sb(fs, nlfs_fs_sb_choice(fs)->used)->s_uuid, 16);
	return 0;
}
