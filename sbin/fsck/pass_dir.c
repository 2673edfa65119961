/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pass_dir.c - pass 6, the tree: directories from the root down.
 *
 * Depth first with an explicit stack, so memory is one block buffer and
 * one name set per directory on the current path ("the current
 * directory"), never the whole tree.  For every directory: each record as
 * the kernel checks it (library), '.' first naming itself, '..' second
 * naming the parent we came from, names non-empty without '/' or NUL and
 * unique, the inode named in use and of the type the record says.  Every
 * inode reached for the first time is checked (pass_inode.c) with its
 * path; a directory reached a second time is a second link (or a cycle).
 * The records naming each inode are counted for the link-count check.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "fsck.h"

/* the names of one directory, for the duplicate check */
struct names {
	char *arena;
	size_t len, cap;
	uint32_t *slots;   /* offset + 1 into arena, 0 = empty */
	size_t nslots, n;
};

struct frame {
	uint64_t ino, parent;
	struct nlfs_file f;
	uint64_t nblocks;          /* blocks i_size covers */
	uint64_t *keys;            /* its mapped blocks, in order */
	size_t nkeys, next_key;
	uint64_t expect;           /* the next block, if there is no hole */
	uint64_t blk;
	unsigned off, nrec;
	uint8_t *buf;
	size_t pathlen;
	bool dot, dotdot;
	struct names names;
};

struct walk {
	struct fsck *c;
	struct fsck_cp *cp;
	struct frame *st;
	size_t n, cap;
	char *path;
	size_t pathcap;
};

static uint64_t name_hash(const char *s, unsigned len)
{
	uint64_t h = 1469598103934665603ull;

	for (unsigned i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
	return h;
}

/* add NAME; true if it was there already (false also when out of memory) */
static bool names_add(struct names *ns, const char *name, unsigned len)
{
	uint64_t h;
	size_t i;

	if (ns->n * 2 >= ns->nslots) {
		size_t nn = ns->nslots ? ns->nslots * 2 : 64;
		uint32_t *sl = calloc(nn, sizeof(*sl));

		if (!sl)
			return false;
		for (size_t k = 0; k < ns->nslots; k++) {
			uint32_t o = ns->slots[k];

			if (!o)
				continue;
			h = name_hash(ns->arena + o, (uint8_t)ns->arena[o - 1]);
			for (i = h & (nn - 1); sl[i]; i = (i + 1) & (nn - 1))
				;
			sl[i] = o;
		}
		free(ns->slots);
		ns->slots = sl;
		ns->nslots = nn;
	}
	h = name_hash(name, len);
	for (i = h & (ns->nslots - 1); ns->slots[i]; i = (i + 1) & (ns->nslots - 1)) {
		uint32_t o = ns->slots[i];

		if ((uint8_t)ns->arena[o - 1] == len && !memcmp(ns->arena + o, name, len))
			return true;
	}
	if (ns->len + len + 1 > ns->cap) {
		size_t nc = ns->cap ? ns->cap * 2 : 4096;
		char *a;

		while (nc < ns->len + len + 1)
			nc *= 2;
		if (nc > UINT32_MAX || !(a = realloc(ns->arena, nc)))
			return false;
		ns->arena = a;
		ns->cap = nc;
	}
	ns->arena[ns->len] = (char)len;
	memcpy(ns->arena + ns->len + 1, name, len);
	ns->slots[i] = (uint32_t)(ns->len + 1);
	ns->len += len + 1;
	ns->n++;
	return false;
}

static void names_free(struct names *ns)
{
	free(ns->arena);
	free(ns->slots);
	memset(ns, 0, sizeof(*ns));
}

/* the directory record's file type for an inode mode */
static unsigned type_of_mode(uint16_t mode)
{
	switch (mode & 0170000) {
	case 0100000: return 1;
	case 0040000: return 2;
	case 0020000: return 3;
	case 0060000: return 4;
	case 0010000: return 5;
	case 0140000: return 6;
	case 0120000: return 7;
	default: return 0;
	}
}

static bool set_path(struct walk *w, size_t at, const char *name, unsigned len)
{
	size_t need = at + 1 + len + 1;

	if (need > w->pathcap) {
		size_t nc = w->pathcap ? w->pathcap * 2 : 256;
		char *p;

		while (nc < need)
			nc *= 2;
		p = realloc(w->path, nc);
		if (!p)
			return false;
		w->path = p;
		w->pathcap = nc;
	}
	w->path[at] = '/';
	for (unsigned i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)name[i];

		w->path[at + 1 + i] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
	}
	w->path[at + 1 + len] = 0;
	return true;
}

static int collect_key(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	struct frame *fr = arg;

	(void)ptr;
	if (level)
		return 0;
	if (fr->nkeys % 256 == 0) {
		uint64_t *k = realloc(fr->keys, (fr->nkeys + 256) * sizeof(*k));

		if (!k)
			return -ENOMEM;
		fr->keys = k;
	}
	fr->keys[fr->nkeys++] = key;
	return 0;
}

static int push(struct walk *w, const struct nlfs_file *f, uint64_t parent, size_t pathlen)
{
	uint32_t bs = w->c->g->blocksize;
	struct frame *fr;

	if (w->n == w->cap) {
		size_t nc = w->cap ? w->cap * 2 : 16;
		struct frame *st = realloc(w->st, nc * sizeof(*st));

		if (!st)
			return -ENOMEM;
		w->st = st;
		w->cap = nc;
	}
	fr = &w->st[w->n];
	memset(fr, 0, sizeof(*fr));
	fr->buf = malloc(bs);
	if (!fr->buf)
		return -ENOMEM;
	fr->ino = f->ino;
	fr->parent = parent;
	fr->f = *f;
	fr->nblocks = (nlfs_le64(f->inode.i_size) + bs - 1) / bs;
	fr->off = bs;
	fr->pathlen = pathlen;
	w->n++;
	/* walk the blocks the map holds, not every offset below i_size: a
	 * corrupt size or key must not mean a walk over endless holes */
	if (nlfs_bmap_iterate(w->c->fs, f, collect_key, fr, NULL) == -ENOMEM)
		return -ENOMEM;
	if (w->cp->cno == w->c->latest_cno)
		w->c->ndirs++;
	return 0;
}

static void pop(struct walk *w)
{
	struct frame *fr = &w->st[w->n - 1];
	char what[PATH_MAX_NAME];

	w->path[fr->pathlen] = 0;
	cp_name(w->cp, fr->ino, w->path, what, sizeof(what));
	if (!fr->dot)
		fsck_problem(w->c, PR_DIR_DOT, "%s: directory has no '.' entry first", what);
	if (!fr->dotdot)
		fsck_problem(w->c, PR_DIR_DOTDOT, "%s: directory has no '..' entry second", what);
	free(fr->buf);
	free(fr->keys);
	names_free(&fr->names);
	w->n--;
}

/* one record of the directory on top of the stack; may push a child */
static void record(struct walk *w, const struct nlfs_dir_rec *rec)
{
	struct fsck *c = w->c;
	struct fsck_cp *cp = w->cp;
	struct frame *fr = &w->st[w->n - 1];
	unsigned idx = fr->blk == 0 ? fr->nrec : 2;
	bool is_dot = rec->name_len == 1 && rec->name[0] == '.';
	bool is_dotdot = rec->name_len == 2 && rec->name[0] == '.' && rec->name[1] == '.';
	char what[PATH_MAX_NAME], child[PATH_MAX_NAME];
	/* the directory's name, built only for a message: records are many */
#define WHAT cp_name(cp, fr->ino, w->path, what, sizeof(what))
	struct nlfs_file f;
	uint16_t mode;
	size_t pathlen = fr->pathlen;

	fr->nrec++;
	w->path[pathlen] = 0;
	if (rec->ino == 0)
		return;   /* an unused record */
	if (rec->name_len == 0) {
		fsck_problem(c, PR_DIR_NAME, "%s: block %" PRIu64 ": entry for inode %" PRIu64 " has an empty name",
			     WHAT, fr->blk, rec->ino);
		return;
	}
	if (idx == 0) {
		if (is_dot) {
			fr->dot = true;
			if (rec->ino != fr->ino)
				fsck_problem(c, PR_DIR_DOT, "%s: '.' names inode %" PRIu64, WHAT, rec->ino);
			else if (cp->nref[fr->ino] < UINT16_MAX)
				cp->nref[fr->ino]++;
			return;
		}
		fsck_problem(c, PR_DIR_DOT, "%s: first entry is '%.*s', not '.'", WHAT,
			     (int)rec->name_len, rec->name);
	} else if (idx == 1) {
		if (is_dotdot) {
			uint64_t to = fr->parent ? fr->parent : rec->ino;

			fr->dotdot = true;
			if (fr->parent && rec->ino != fr->parent)
				fsck_problem(c, PR_DIR_DOTDOT,
					     "%s: '..' names inode %" PRIu64 ", but the directory is in inode %" PRIu64,
					     WHAT, rec->ino, fr->parent);
			if (to < cp->max_ino && cp->nref[to] < UINT16_MAX)
				cp->nref[to]++;
			return;
		}
		fsck_problem(c, PR_DIR_DOTDOT, "%s: second entry is '%.*s', not '..'", WHAT,
			     (int)rec->name_len, rec->name);
	}
	if (is_dot || is_dotdot) {
		fsck_problem(c, PR_DIR_NAME, "%s: block %" PRIu64 ": another '%s' entry (inode %" PRIu64 ")",
			     WHAT, fr->blk, is_dot ? "." : "..", rec->ino);
		return;
	}
	if (memchr(rec->name, '/', rec->name_len) || memchr(rec->name, 0, rec->name_len))
		fsck_problem(c, PR_DIR_NAME, "%s: entry '%.*s' (inode %" PRIu64 ") has '/' or NUL in its name",
			     WHAT, (int)rec->name_len, rec->name, rec->ino);
	if (names_add(&fr->names, rec->name, rec->name_len))
		fsck_problem(c, PR_DIR_DUP, "%s: a second entry named '%.*s' (inode %" PRIu64 ")", WHAT,
			     (int)rec->name_len, rec->name, rec->ino);
	if (rec->ino >= cp->max_ino || !fsck_bit_test(&cp->alloc, rec->ino)) {
		fsck_problem(c, PR_DIR_FREE_INODE, "%s: entry '%.*s' names inode %" PRIu64 ", which is not in use",
			     WHAT, (int)rec->name_len, rec->name, rec->ino);
		fix_note_dirent(c, cp->cno, fr->ino, rec->ino, 0);
		return;
	}
	if (cp->nref[rec->ino] < UINT16_MAX)
		cp->nref[rec->ino]++;
	if (cp_read_inode(c, cp, rec->ino, &f))
		return;
	mode = nlfs_le16(f.inode.i_mode);
	if (!set_path(w, pathlen, rec->name, rec->name_len))
		return;
	if (rec->file_type > 7 || (rec->file_type && type_of_mode(mode) &&
				   rec->file_type != type_of_mode(mode)))
		fsck_problem(c, PR_DIR_TYPE, "%s: entry type %u, but inode %" PRIu64 " has mode 0%o",
			     cp_name(cp, rec->ino, w->path, child, sizeof(child)), rec->file_type,
			     rec->ino, mode);
	if (rec->file_type > 7 || (rec->file_type && type_of_mode(mode) &&
				   rec->file_type != type_of_mode(mode)))
		fix_note_dirent(c, cp->cno, fr->ino, rec->ino, type_of_mode(mode));
	if (fsck_bit_test(&cp->visited, rec->ino)) {
		if (fsck_bit_test(&cp->isdir, rec->ino))
			fsck_problem(c, PR_DIR_LINKED,
				     "%s: directory is also linked from elsewhere (a second link or a cycle)",
				     cp_name(cp, rec->ino, w->path, child, sizeof(child)));
		return;
	}
	fsck_bit_set(&cp->visited, rec->ino);
	if (check_inode(c, cp, &f, w->path) && (mode & 0170000) == 0040000) {
		if (push(w, &f, fr->ino, strlen(w->path)))
			fsck_problem(c, PR_IO, "%s: out of memory",
				     cp_name(cp, rec->ino, w->path, child, sizeof(child)));
	}
}
#undef WHAT

void walk_tree(struct fsck *c, struct fsck_cp *cp, uint64_t ino, uint64_t parent,
	       const char *path)
{
	uint32_t bs = c->g->blocksize;
	struct walk w = { c, cp, NULL, 0, 0, NULL, 0 };
	struct nlfs_file f;

	if (cp_read_inode(c, cp, ino, &f))
		return;
	if (!set_path(&w, 0, "", 0) ||
	    (path[0] && !set_path(&w, 0, path[0] == '/' ? path + 1 : path,
				  (unsigned)strlen(path[0] == '/' ? path + 1 : path))))
		goto oom;
	if (!path[0])
		w.path[0] = 0;
	if (push(&w, &f, parent, strlen(w.path)))
		goto oom;
	while (w.n && !fsck_cancelled(c)) {
		struct frame *fr = &w.st[w.n - 1];
		struct nlfs_dir_rec rec;
		struct nlfs_err err;
		char what[PATH_MAX_NAME];

		if (fr->off >= bs) {
			bool hole;
			uint64_t next = fr->next_key < fr->nkeys ? fr->keys[fr->next_key] : UINT64_MAX;

			if (next > fr->nblocks)
				next = fr->nblocks;
			w.path[fr->pathlen] = 0;
			cp_name(cp, fr->ino, w.path, what, sizeof(what));
			if (next == fr->expect + 1)
				fsck_problem(c, PR_DIR_HOLE, "%s: directory block %" PRIu64 " is missing",
					     what, fr->expect);
			else if (next > fr->expect)
				fsck_problem(c, PR_DIR_HOLE, "%s: directory blocks %" PRIu64 "..%" PRIu64
					     " are missing", what, fr->expect, next - 1);
			if (next >= fr->nblocks) {
				pop(&w);
				continue;
			}
			fr->next_key++;
			fr->blk = next;
			fr->expect = next + 1;
			if (nlfs_file_read_block(c->fs, &fr->f, fr->blk, fr->buf, &hole, &err)) {
				fsck_lib_problem(c, PR_DIR_RECORD, &err, "%s: directory block %" PRIu64,
						 what, fr->blk);
				continue;
			}
			if (hole) {
				fsck_problem(c, PR_DIR_HOLE, "%s: directory block %" PRIu64 " is missing",
					     what, fr->blk);
				continue;
			}
			fr->off = 0;
		}
		if (nlfs_dir_record(fr->buf, bs, fr->off, &rec, &err)) {
			w.path[fr->pathlen] = 0;
			cp_name(cp, fr->ino, w.path, what, sizeof(what));
			fsck_problem(c, PR_DIR_RECORD, "%s: block %" PRIu64 ": %s", what, fr->blk, err.what);
			/* a sound record naming a reserved inode: the next one is still found */
			if (rec.ino && nlfs_dir_private_ino(rec.ino) && rec.rec_len >= NLFS_DIR_REC_LEN(rec.name_len) &&
			    rec.rec_len % 4 == 0 && rec.rec_len <= bs - fr->off)
				fr->off += rec.rec_len;
			else
				fr->off = bs;
			continue;
		}
		fr->off += rec.rec_len;
		record(&w, &rec);
	}
	while (w.n)
		pop(&w);
	free(w.st);
	free(w.path);
	return;
oom:
	fsck_problem(c, PR_IO, "checkpoint %" PRIu64 ": out of memory walking the tree", cp->cno);
	while (w.n)
		pop(&w);
	free(w.st);
	free(w.path);
}
