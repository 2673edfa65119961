/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * incremental.c - what turns the parent checkpoint's tree into the
 * checkpoint's (nilfs-send -p), from the library's nlfs_diff: created,
 * removed, modified and renamed links by inode.  The commands go in five
 * phases that keep every one applicable on a plain directory tree:
 *
 *  1. names that go away, deepest old path first: unlink, rmdir, and
 *     orphan (moved aside) for a rename whose old path lies below another
 *     that moves or goes, or is a path something else is put at;
 *  2. names that come, shallowest new path first (each parent is in
 *     place by then): new files, renames, orphans adopted;
 *  3. new links of files that exist by then;
 *  4. contents of files that stayed, by their blocks that differ;
 *  5. attributes of every changed file, in path order (nothing changes a
 *     directory's times after them).
 *
 * A directory renamed is one rename and nothing below it is named; a file
 * renamed keeps its inode, hence its links.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "array.h"
#include "cli.h"
#include "send.h"

struct chg {
	enum nlfs_diff_kind kind;
	uint64_t ino;
	char *path, *to;            /* relative ("" for the root) */
	bool contents;
	bool old_dir;               /* REMOVED: a directory */
};

struct chgs {
	struct chg *v;
	size_t n, cap;
};

static int collect(const struct nlfs_diff_change *c, void *arg)
{
	struct chgs *l = arg;
	struct chg ch = { .kind = c->kind, .ino = c->ino, .contents = c->contents };

	if (c->old_inode)
		ch.old_dir = (nlfs_le16(c->old_inode->i_mode) & NLFS_S_IFMT) == NLFS_S_IFDIR;
	ch.path = strdup(send_rel(c->path));
	ch.to = c->new_path ? strdup(send_rel(c->new_path)) : NULL;
	if (!ch.path || (c->new_path && !ch.to) || CLI_GROW(l->v, l->cap, l->n + 1)) {
		free(ch.path);
		free(ch.to);
		return -ENOMEM;
	}
	l->v[l->n++] = ch;
	return 0;
}

/* components of P: 0 for the root, 1 for a name in it ... */
static unsigned depth(const char *p)
{
	unsigned d = *p != 0;

	for (; *p; p++)
		d += *p == '/';
	return d;
}

/* a set of paths: sorted, looked up by bsearch */
struct pathset {
	const char **v;
	size_t n, cap;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool has(const struct pathset *s, const char *p)
{
	return s->n && bsearch(&p, s->v, s->n, sizeof(*s->v), cmp_str);
}

/* does a proper ancestor of P lie in S */
static bool ancestor_in(const struct pathset *s, const char *p)
{
	char *copy = strdup(p);
	bool found = false;

	if (!copy)
		return true;   /* the safe answer: the entry goes through an orphan */
	for (char *slash = strchr(copy, '/'); slash && !found; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		found = has(s, copy);
		*slash = '/';
	}
	free(copy);
	return found;
}

enum op_kind { OP_UNLINK, OP_RMDIR, OP_ORPHAN, OP_NEW, OP_RENAME, OP_ADOPT };
struct op {
	enum op_kind kind;
	unsigned depth;
	const char *path, *to;      /* RENAME: path to TO; NEW: TO is the new path */
	uint64_t id, ino;
};
struct ops {
	struct op *v;
	size_t n, cap;
};

static int cmp_deepest(const void *a, const void *b)
{
	const struct op *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	return strcmp(x->path, y->path);
}

static const char *op_target(const struct op *o)
{
	return o->kind == OP_RENAME || o->kind == OP_ADOPT || o->kind == OP_NEW ? o->to : o->path;
}

static int cmp_shallowest(const void *a, const void *b)
{
	const struct op *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return strcmp(op_target(x), op_target(y));
}

/* per inode: whether it lives on (a kept or renamed link), and its path now */
struct file {
	uint64_t ino;
	bool survives, alive_new, contents;
	bool attrs_sent;            /* with its contents */
	const char *present;        /* a path of it in the new tree, in place after phase 2 */
};

struct plan {
	struct send *s;
	struct chgs c;
	struct file *files;
	size_t nfiles;
	struct ops detach, attach;
	struct pathset moved_old, new_paths;
};

static int push_op(struct ops *l, struct op o)
{
	return CLI_PUSH(l->v, l->n, l->cap, o);
}

/* one struct file per inode the changes name (they come in inode order) */
static int group(struct plan *p)
{
	p->files = calloc(p->c.n ? p->c.n : 1, sizeof(*p->files));
	if (!p->files)
		return -ENOMEM;
	for (size_t i = 0; i < p->c.n;) {
		struct file *f = &p->files[p->nfiles++];
		size_t j = i;

		f->ino = p->c.v[i].ino;
		for (; j < p->c.n && p->c.v[j].ino == f->ino; j++) {
			const struct chg *ch = &p->c.v[j];

			if (ch->kind == NLFS_DIFF_MODIFIED || ch->kind == NLFS_DIFF_RENAMED) {
				f->survives = f->alive_new = true;
				f->contents |= ch->contents;
				if (!f->present)
					f->present = ch->kind == NLFS_DIFF_MODIFIED ? ch->path : ch->to;
			}
		}
		/* a file that is new has only created names: the first is made,
		 * the others linked to it */
		for (size_t k = i; !f->survives && k < j; k++)
			if (p->c.v[k].kind == NLFS_DIFF_CREATED && !f->present) {
				f->present = p->c.v[k].path;
				f->alive_new = true;
			}
		i = j;
	}
	return 0;
}

/* by path, the files not in the new tree last */
static int cmp_file_path(const void *a, const void *b)
{
	const struct file *x = a, *y = b;

	if (!x->present || !y->present)
		return !x->present - !y->present;
	return strcmp(x->present, y->present);
}

static struct file *file_of(struct plan *p, uint64_t ino)
{
	size_t lo = 0, hi = p->nfiles;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->files[mid].ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &p->files[lo];
}

static int build(struct plan *p)
{
	uint64_t next_id = 1;
	int rc = 0;

	for (size_t i = 0; !rc && i < p->c.n; i++) {
		const struct chg *ch = &p->c.v[i];

		if (ch->kind == NLFS_DIFF_REMOVED || ch->kind == NLFS_DIFF_RENAMED)
			rc = CLI_PUSH(p->moved_old.v, p->moved_old.n, p->moved_old.cap, ch->path);
		if (!rc && ch->kind == NLFS_DIFF_CREATED)
			rc = CLI_PUSH(p->new_paths.v, p->new_paths.n, p->new_paths.cap, ch->path);
		if (!rc && ch->kind == NLFS_DIFF_RENAMED)
			rc = CLI_PUSH(p->new_paths.v, p->new_paths.n, p->new_paths.cap, ch->to);
	}
	if (rc)
		return rc;
	nlfs_sort(p->moved_old.v, p->moved_old.n, sizeof(char *), cmp_str);
	nlfs_sort(p->new_paths.v, p->new_paths.n, sizeof(char *), cmp_str);
	for (size_t i = 0; !rc && i < p->c.n; i++) {
		const struct chg *ch = &p->c.v[i];
		const struct file *f = file_of(p, ch->ino);

		switch (ch->kind) {
		case NLFS_DIFF_REMOVED:
			rc = push_op(&p->detach, (struct op){ .kind = ch->old_dir ? OP_RMDIR : OP_UNLINK,
							     .depth = depth(ch->path), .path = ch->path });
			break;
		case NLFS_DIFF_RENAMED:
			if (ancestor_in(&p->moved_old, ch->path) || has(&p->new_paths, ch->path)) {
				struct op o = { .kind = OP_ORPHAN, .depth = depth(ch->path),
						.path = ch->path, .id = next_id++ };

				rc = push_op(&p->detach, o);
				o.kind = OP_ADOPT;
				o.depth = depth(ch->to);
				o.to = ch->to;
				if (!rc)
					rc = push_op(&p->attach, o);
			} else {
				rc = push_op(&p->attach, (struct op){ .kind = OP_RENAME, .depth = depth(ch->to),
								     .path = ch->path, .to = ch->to });
			}
			break;
		case NLFS_DIFF_CREATED:
			if (!f->survives && f->present == ch->path)
				rc = push_op(&p->attach, (struct op){ .kind = OP_NEW, .depth = depth(ch->path),
								     .path = ch->path, .to = ch->path,
								     .ino = ch->ino });
			break;
		default:
			break;
		}
	}
	if (!rc) {
		nlfs_sort(p->detach.v, p->detach.n, sizeof(struct op), cmp_deepest);
		nlfs_sort(p->attach.v, p->attach.n, sizeof(struct op), cmp_shallowest);
	}
	return rc;
}

static int read_file(struct send *s, const struct nlfs_file *ifile, uint64_t ino, struct nlfs_file *f,
		     const char *path)
{
	struct nlfs_err err;
	int rc;

	nlfs_err_clear(&err);
	rc = nlfs_ifile_read(s->fs, ifile, ino, f, &err);
	return rc ? send_lib_fail(s, rc, &err, path) : 0;
}

static int run_op(struct plan *p, const struct op *o)
{
	struct send *s = p->s;
	struct sstream_cmd c = { .path = o->path, .id = o->id };
	struct nlfs_file f;

	switch (o->kind) {
	case OP_UNLINK: c.kind = SS_UNLINK; break;
	case OP_RMDIR: c.kind = SS_RMDIR; break;
	case OP_ORPHAN: c.kind = SS_ORPHAN; break;
	case OP_RENAME: c.kind = SS_RENAME; c.path2 = o->to; break;
	case OP_ADOPT: c.kind = SS_ADOPT; c.path = o->to; break;
	case OP_NEW:
		return read_file(s, &s->ifile, o->ino, &f, o->path) ? -1 : send_new(s, o->path, &f);
	}
	return send_cmd(s, &c);
}

static int is_reg(const struct nlfs_file *f)
{
	return (nlfs_le16(f->inode.i_mode) & NLFS_S_IFMT) == NLFS_S_IFREG;
}

static int is_dir(const struct nlfs_file *f)
{
	return (nlfs_le16(f->inode.i_mode) & NLFS_S_IFMT) == NLFS_S_IFDIR;
}

/* the attributes send_attrs sends, the same in both */
static bool same_attrs(const struct nlfs_inode *a, const struct nlfs_inode *b)
{
	return a->i_mode == b->i_mode && a->i_uid == b->i_uid && a->i_gid == b->i_gid &&
	       a->i_mtime == b->i_mtime && a->i_mtime_nsec == b->i_mtime_nsec;
}

static int emit(struct plan *p)
{
	struct send *s = p->s;

	for (size_t i = 0; i < p->detach.n; i++)
		if (run_op(p, &p->detach.v[i]))
			return -1;
	for (size_t i = 0; i < p->attach.n; i++)
		if (run_op(p, &p->attach.v[i]))
			return -1;
	/* new links, to a name in place by now */
	for (size_t i = 0; i < p->c.n; i++) {
		const struct chg *ch = &p->c.v[i];
		const struct file *f = file_of(p, ch->ino);
		struct sstream_cmd ln = { .kind = SS_LINK, .path = ch->path, .path2 = f->present };

		if (ch->kind != NLFS_DIFF_CREATED || f->present == ch->path)
			continue;
		if (!f->present) {
			cli_warnx("%s: /%s: inode %" PRIu64 " has no other name to link to", s->name,
				  ch->path, ch->ino);
			return -1;
		}
		if (send_cmd(s, &ln))
			return -1;
	}
	/* the rest by path, so that the receiver walks down each directory
	 * once (file_of's lookups by inode are done) */
	nlfs_sort(p->files, p->nfiles, sizeof(*p->files), cmp_file_path);
	for (size_t i = 0; i < p->nfiles; i++) {
		struct file *f = &p->files[i];
		struct nlfs_file old, cur;

		if (!f->survives || !f->contents)
			continue;
		if (read_file(s, &s->old_ifile, f->ino, &old, f->present) ||
		    read_file(s, &s->ifile, f->ino, &cur, f->present))
			return -1;
		if (!is_reg(&old) || !is_reg(&cur))
			continue;
		/* a file's attributes right after its contents, which the
		 * receiver still has open (they change no directory) */
		if (send_changed_blocks(s, f->present, &old, &cur) ||
		    send_attrs(s, f->present, &cur.inode))
			return -1;
		f->attrs_sent = true;
	}
	/* the other attributes last: setting them changes no directory, so
	 * nothing changes a directory's times after its own are set */
	for (size_t i = 0; i < p->nfiles; i++) {
		struct file *f = &p->files[i];
		struct nlfs_file old, cur;

		if (!f->alive_new || !f->present || f->attrs_sent)
			continue;
		if (read_file(s, &s->ifile, f->ino, &cur, f->present))
			return -1;
		/* a file that only moved or gained a link: renaming and linking
		 * on the receiver change none of the attributes sent (a
		 * directory's times, they do) */
		if (f->survives && !f->contents && !is_dir(&cur)) {
			if (read_file(s, &s->old_ifile, f->ino, &old, f->present))
				return -1;
			if (same_attrs(&old.inode, &cur.inode))
				continue;
		}
		if (send_attrs(s, f->present, &cur.inode))
			return -1;
	}
	return 0;
}

int send_incremental(struct send *s)
{
	struct plan p = { .s = s };
	struct nlfs_err err;
	/* the changed files' blocks, like the diff's, are scattered and prefetched */
	bool scattered = nlfs_io_scattered(nlfs_fs_io(s->fs), true);
	int rc;

	nlfs_err_clear(&err);
	rc = nlfs_diff(s->fs, s->parent, s->cno, collect, &p.c, NULL, &err);
	if (rc) {
		rc = send_lib_fail(s, rc, &err, NULL);
	} else {
		rc = group(&p);
		if (!rc)
			rc = build(&p);
		if (rc) {
			cli_warnc(rc, "%s", s->name);
			rc = -1;
		} else {
			rc = emit(&p);
		}
	}
	for (size_t i = 0; i < p.c.n; i++) {
		free(p.c.v[i].path);
		free(p.c.v[i].to);
	}
	free(p.c.v);
	free(p.files);
	free(p.detach.v);
	free(p.attach.v);
	free(p.moved_old.v);
	free(p.new_paths.v);
	nlfs_io_scattered(nlfs_fs_io(s->fs), scattered);
	return rc;
}
