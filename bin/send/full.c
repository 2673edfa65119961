/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * full.c - a checkpoint's whole tree as a stream (nilfs-send without -p):
 * top down, each directory before what it holds and its attributes after
 * (what is made in it changes its times); a file with several names is
 * created at the first the walk meets and linked at the others.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "array.h"
#include "cli.h"
#include "send.h"

#define MAX_DEPTH 4096   /* deeper is a loop in a damaged volume */

struct dent {
	uint64_t ino;
	char *name;
};
struct dents {
	struct dent *v;
	size_t n, cap;
};

/* the first path of each file with several names: ino -> path */
struct seen {
	uint64_t *ino;
	char **path;
	size_t cap, used;
};

struct walk {
	struct send *s;
	struct seen links;
};

static size_t slot(const struct seen *m, uint64_t ino)
{
	size_t j = (size_t)(ino * 0x9e3779b97f4a7c15ULL) & (m->cap - 1);

	while (m->ino[j] && m->ino[j] != ino)
		j = (j + 1) & (m->cap - 1);
	return j;
}

static const char *seen_get(const struct seen *m, uint64_t ino)
{
	return m->cap && m->ino[slot(m, ino)] ? m->path[slot(m, ino)] : NULL;
}

static int seen_put(struct seen *m, uint64_t ino, const char *path)
{
	if ((m->used + 1) * 2 > m->cap) {
		struct seen n = { .cap = m->cap ? m->cap * 2 : 64, .used = m->used };

		n.ino = calloc(n.cap, sizeof(*n.ino));
		n.path = calloc(n.cap, sizeof(*n.path));
		if (!n.ino || !n.path) {
			free(n.ino);
			free(n.path);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->ino[i]) {
				size_t j = slot(&n, m->ino[i]);

				n.ino[j] = m->ino[i];
				n.path[j] = m->path[i];
			}
		free(m->ino);
		free(m->path);
		*m = n;
	}
	size_t j = slot(m, ino);

	if (!(m->path[j] = strdup(path)))
		return -ENOMEM;
	m->ino[j] = ino;
	m->used++;
	return 0;
}

static int collect(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct dents *d = arg;
	struct dent e = { .ino = ino };

	(void)type;
	if (nlfs_dir_name_is_dots(name, len))
		return 0;
	if (!(e.name = malloc(len + 1)))
		return -ENOMEM;
	memcpy(e.name, name, len);
	e.name[len] = 0;
	if (CLI_PUSH(d->v, d->n, d->cap, e)) {
		free(e.name);
		return -ENOMEM;
	}
	return 0;
}

static int walk_dir(struct walk *wk, const struct nlfs_file *dir, const char *path, unsigned depth);

static int walk_one(struct walk *wk, const struct dent *e, const char *path, unsigned depth)
{
	struct send *s = wk->s;
	struct nlfs_file f;
	struct nlfs_err err;
	const char *first;
	int rc;

	nlfs_err_clear(&err);
	rc = nlfs_ifile_read(s->fs, &s->ifile, e->ino, &f, &err);
	if (rc)
		return send_lib_fail(s, rc, &err, path);
	uint16_t type = nlfs_le16(f.inode.i_mode) & NLFS_S_IFMT;

	if (type == NLFS_S_IFDIR) {
		struct sstream_cmd mk = { .kind = SS_MKDIR, .path = path };

		if (depth >= MAX_DEPTH) {
			cli_warnx("%s: /%s: directories nested deeper than %u (a loop?)", s->name, path,
				  MAX_DEPTH);
			return -1;
		}
		if (send_cmd(s, &mk) || walk_dir(wk, &f, path, depth + 1))
			return -1;
		return send_attrs(s, path, &f.inode);
	}
	if (nlfs_le16(f.inode.i_links_count) > 1) {
		if ((first = seen_get(&wk->links, e->ino))) {
			struct sstream_cmd ln = { .kind = SS_LINK, .path = path, .path2 = first };

			return send_cmd(s, &ln);
		}
		if (seen_put(&wk->links, e->ino, path)) {
			cli_warnc(ENOMEM, "%s", s->name);
			return -1;
		}
	}
	if (send_new(s, path, &f))
		return -1;
	return send_attrs(s, path, &f.inode);
}

static int walk_dir(struct walk *wk, const struct nlfs_file *dir, const char *path, unsigned depth)
{
	struct send *s = wk->s;
	struct dents d = { 0 };
	struct nlfs_err err;
	size_t plen = strlen(path);
	char *child = NULL;
	int rc;

	nlfs_err_clear(&err);
	rc = nlfs_dir_iterate(s->fs, dir, collect, &d, &err);
	if (rc)
		rc = send_lib_fail(s, rc, &err, path);
	for (size_t i = 0; !rc && i < d.n; i++) {
		size_t nlen = strlen(d.v[i].name);
		char *p = realloc(child, plen + nlen + 2);

		if (!p) {
			rc = -1;
			cli_warnc(ENOMEM, "%s", s->name);
			break;
		}
		child = p;
		if (plen)
			sprintf(child, "%s/%s", path, d.v[i].name);
		else
			strcpy(child, d.v[i].name);
		rc = walk_one(wk, &d.v[i], child, depth);
	}
	for (size_t i = 0; i < d.n; i++)
		free(d.v[i].name);
	free(d.v);
	free(child);
	return rc;
}

int send_full(struct send *s)
{
	struct walk wk = { .s = s };
	struct nlfs_file root;
	struct nlfs_err err;
	int rc;

	nlfs_err_clear(&err);
	rc = nlfs_ifile_read(s->fs, &s->ifile, NLFS_ROOT_INO, &root, &err);
	if (rc)
		return send_lib_fail(s, rc, &err, NULL);
	rc = walk_dir(&wk, &root, "", 0);
	if (!rc)
		rc = send_attrs(s, "", &root.inode);
	for (size_t i = 0; i < wk.links.cap; i++)
		free(wk.links.path[i]);
	free(wk.links.ino);
	free(wk.links.path);
	return rc;
}
