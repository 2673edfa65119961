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
#include <nlfs/writer.h>
#include "fsck.h"
#include "names.h"
#include "array.h"

/* the blocks of a directory whose names are made room for at once, and
 * the bytes a record takes with a typical name */
#define NAMES_AHEAD 4
#define NAME_REC_TYPICAL 24

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
	bool names_only;           /* the block is the old version's (diff_walk): its names alone */
	bool rebuild;              /* the repair rewrites it from what holds up */
	struct fsck_names names;
};

struct walk {
	struct fsck *c;
	struct fsck_cp *cp;
	struct frame *st;
	size_t n, cap;
	char *path;
	size_t pathcap;
};

static bool set_path(struct walk *w, size_t at, const char *name, unsigned len)
{
	size_t need = at + 1 + len + 1;

	if (CLI_GROW(w->path, w->pathcap, need))
		return false;
	w->path[at] = '/';
	for (unsigned i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)name[i];

		w->path[at + 1 + i] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
	}
	w->path[at + 1 + len] = 0;
	return true;
}

static void count_ref(struct fsck_cp *cp, uint64_t ino)
{
	uint32_t n;

	if (ino == 0 || ino >= cp->max_ino)
		return;
	/* as far as an on-disk link count (16 bits) can follow */
	n = fsck_icount_get(&cp->nref, ino);
	if (n < UINT16_MAX) {
		fsck_icount_set(&cp->nref, ino, n + 1);
		if (cp->diff_walk)
			cp->diff->dirty(cp->diff_arg, ino);
	}
}

static int push(struct walk *w, const struct nlfs_file *f, uint64_t parent, size_t pathlen)
{
	uint32_t bs = w->c->g->blocksize;
	struct frame *fr;

	if (CLI_GROW(w->st, w->cap, w->n + 1))
		return -ENOMEM;
	fr = &w->st[w->n];
	memset(fr, 0, sizeof(*fr));
	fr->buf = malloc(bs);
	if (!fr->buf)
		return -ENOMEM;
	fr->ino = f->ino;
	fr->parent = parent;
	fr->f = *f;
	fr->off = bs;
	fr->pathlen = pathlen;
	w->n++;
	/* walk the blocks the map holds, not every offset below i_size: a
	 * corrupt size or key must not mean a walk over endless holes */
	if (nlfs_bmap_keys(w->c->fs, f, &fr->keys, &fr->nkeys, NULL) == -ENOMEM)
		return -ENOMEM;
	fr->nblocks = dir_nblocks(fr->keys, fr->nkeys);
	/* a changed directory of a check by difference (the only frame of
	 * its walk): room for as many names as records of a short name fill
	 * its first blocks, so that most never grow the set (a hint, nothing
	 * lost if it cannot be had).  Not in a walk down the tree, where a
	 * frame is kept for each directory of a path however deep */
	if (w->cp->diff_walk)
		(void)fsck_names_reserve(&fr->names,
					 (fr->nblocks < NAMES_AHEAD ? fr->nblocks : NAMES_AHEAD) *
					 bs / NAME_REC_TYPICAL,
					 NAME_REC_TYPICAL - NLFS_DIR_ENTRY_HEADER);
	/* a size other than its blocks': the rewrite sets it */
	if (nlfs_le64(f->inode.i_size) != fr->nblocks * bs)
		fr->rebuild = true;
	if (w->cp->cno == w->c->latest_cno)
		w->c->ndirs++;
	return 0;
}

static void pop(struct walk *w)
{
	struct frame *fr = &w->st[w->n - 1];
	char what[PATH_MAX_NAME];

	w->path[fr->pathlen] = 0;
	/* the rewrite puts in what is missing: count it as there */
	if (!fr->dot || !fr->dotdot)
		cp_name(w->cp, fr->ino, w->path, what, sizeof(what));
	if (!fr->dot) {
		fsck_problem(w->c, MSG_DIR_NO_DOT, what);
		count_ref(w->cp, fr->ino);
		fr->rebuild = true;
	}
	if (!fr->dotdot) {
		fsck_problem(w->c, MSG_DIR_NO_DOTDOT, what);
		count_ref(w->cp, fr->parent);
		fr->rebuild = true;
	}
	if (fr->rebuild)
		fix_note_dir(w->c, w->cp->cno, fr->ino, fr->parent, w->path);
	free(fr->buf);
	free(fr->keys);
	fsck_names_free(&fr->names);
	w->n--;
}

/* the record at byte OFF of the current block goes, or changes, in the rewrite */
static void note_entry(struct walk *w, const struct nlfs_dir_rec *rec, unsigned off,
		       enum fsck_dirent_act act, uint8_t type, const char *why)
{
	struct frame *fr = &w->st[w->n - 1];
	struct fsck_dirent_fix f = { .dir = fr->ino, .blk = fr->blk, .off = off, .act = (uint8_t)act,
				     .type = type, .ino = rec->ino, .why = why };

	fr->rebuild = true;
	fix_note_dirent(w->c, w->cp->cno, &f);
}

static bool bad_name(const struct nlfs_dir_rec *rec)
{
	return memchr(rec->name, '/', rec->name_len) || memchr(rec->name, 0, rec->name_len);
}

/* the record's file type against the inode's (w->path names the entry) */
static void check_type(struct walk *w, const struct nlfs_dir_rec *rec, unsigned off, uint16_t mode)
{
	char child[PATH_MAX_NAME];
	unsigned want = nlfs_file_type_of_mode(mode);

	if (rec->file_type <= 7 && (!rec->file_type || !want || rec->file_type == want))
		return;
	fsck_problem(w->c, MSG_DIR_ENTRY_TYPE,
		     cp_name(w->cp, rec->ino, w->path, child, sizeof(child)), rec->file_type,
		     rec->ino, mode);
	note_entry(w, rec, off, DIRENT_RETYPE, (uint8_t)want, NULL);
}

/* the directory's name, built only for a message: records are many */
#define WHAT cp_name(cp, fr->ino, w->path, what, sizeof(what))

/* '.' and '..' where they belong (IDX: the record's place in the
 * directory, 2 past the first block), and anywhere else: true if REC was
 * one of them or took their place, and is done with */
static bool record_dots(struct walk *w, const struct nlfs_dir_rec *rec, unsigned idx)
{
	struct fsck *c = w->c;
	struct fsck_cp *cp = w->cp;
	struct frame *fr = &w->st[w->n - 1];
	bool dots = nlfs_dir_name_is_dots(rec->name, rec->name_len);
	bool is_dot = dots && rec->name_len == 1, is_dotdot = dots && rec->name_len == 2;
	char what[PATH_MAX_NAME];

	if (idx == 0) {
		if (is_dot) {
			fr->dot = true;
			if (rec->ino != fr->ino) {
				fsck_problem(c, MSG_DIR_DOT_INODE, WHAT, rec->ino);
				fr->rebuild = true;
			}
			count_ref(cp, fr->ino);
			return true;
		}
		fsck_problem(c, MSG_DIR_FIRST_NOT_DOT, WHAT, (int)rec->name_len, rec->name);
		fr->rebuild = true;
	} else if (idx == 1) {
		if (is_dotdot && cp->diff_walk) {
			/* the parent is known once every changed directory is read */
			fr->dotdot = true;
			count_ref(cp, rec->ino);
			cp->diff->note_dotdot(cp->diff_arg, fr->ino, rec->ino);
			return true;
		}
		if (is_dotdot) {
			fr->dotdot = true;
			if (fr->parent && rec->ino != fr->parent) {
				fsck_problem(c, MSG_DIR_DOTDOT_INODE, WHAT, rec->ino, fr->parent);
				fr->rebuild = true;
			}
			/* a directory no other reaches gets /lost+found's */
			count_ref(cp, fr->parent);
			return true;
		}
		fsck_problem(c, MSG_DIR_SECOND_NOT_DOTDOT, WHAT, (int)rec->name_len, rec->name);
		fr->rebuild = true;
	}
	if (is_dot || is_dotdot) {
		fsck_problem(c, MSG_DIR_NAME_EXTRA_DOT, WHAT, fr->blk, is_dot ? "." : "..",
			     rec->ino);
		fr->rebuild = true;   /* the rewrite writes '.' and '..' once */
		return true;
	}
	return false;
}

/* REC's name: no '/' or NUL, unique in the directory; true if the
 * record goes (*RENAMED: the repair gives it another name) */
static bool record_name(struct walk *w, const struct nlfs_dir_rec *rec, unsigned off,
			bool *renamed)
{
	struct fsck *c = w->c;
	struct fsck_cp *cp = w->cp;
	struct frame *fr = &w->st[w->n - 1];
	char what[PATH_MAX_NAME];
	uint64_t prev;
	int rc;

	*renamed = false;
	if (bad_name(rec)) {
		fsck_problem(c, MSG_DIR_NAME_SLASH_NUL, WHAT, (int)rec->name_len, rec->name,
			     rec->ino);
		note_entry(w, rec, off, DIRENT_RENAME, 0, NULL);
		*renamed = true;
	}
	rc = fsck_names_add(&fr->names, rec->name, rec->name_len, rec->ino, &prev);
	if (rc == 1 && prev == rec->ino) {
		fsck_problem(c, MSG_DIR_DUP_SAME_INODE, WHAT, (int)rec->name_len, rec->name,
			     rec->ino);
		if (!*renamed)
			note_entry(w, rec, off, DIRENT_DROP, 0, "a second entry of that name for that inode");
		return true;
	}
	if (rc == 1) {
		fsck_problem(c, MSG_DIR_DUP_NAME, WHAT, (int)rec->name_len, rec->name, rec->ino);
		if (!*renamed)
			note_entry(w, rec, off, DIRENT_RENAME, 0, NULL);
	}
	return false;
}

/* REC names inode F (of MODE), in use: checked the first time it is
 * reached, a child directory pushed; reached again, a second link */
static void record_inode(struct walk *w, const struct nlfs_dir_rec *rec, unsigned off,
			 const struct nlfs_file *f, uint16_t mode)
{
	struct fsck *c = w->c;
	struct fsck_cp *cp = w->cp;
	struct frame *fr = &w->st[w->n - 1];
	char child[PATH_MAX_NAME];

	if (!fsck_bit_test(&cp->visited, rec->ino)) {
		bool usable;

		fsck_bit_set(&cp->visited, rec->ino);
		usable = check_inode(c, cp, f, w->path);
		if (fsck_bit_test(&cp->cleared, rec->ino)) {
			note_entry(w, rec, off, DIRENT_DROP, 0, "the inode it names is cleared");
			return;
		}
		check_type(w, rec, off, mode);
		count_ref(cp, rec->ino);
		if (usable && (mode & NLFS_S_IFMT) == NLFS_S_IFDIR) {
			if (cp->parent)
				cp->parent[rec->ino] = fr->ino;
			if (push(w, f, fr->ino, strlen(w->path)))
				fsck_problem(c, MSG_OOM_DIR_ENTRY,
					     cp_name(cp, rec->ino, w->path, child, sizeof(child)));
		}
		return;
	}
	if (fsck_bit_test(&cp->cleared, rec->ino)) {
		note_entry(w, rec, off, DIRENT_DROP, 0, "the inode it names is cleared");
		return;
	}
	if (fsck_bit_test(&cp->isdir, rec->ino)) {
		fsck_problem(c, MSG_DIR_LINKED_TWICE,
			     cp_name(cp, rec->ino, w->path, child, sizeof(child)));
		note_entry(w, rec, off, DIRENT_DROP,
			   0, "a second link to a directory (it keeps the one found first)");
		return;
	}
	check_type(w, rec, off, mode);
	count_ref(cp, rec->ino);
}

/* REC, at byte OFF of a changed directory (diff_walk), names an inode of
 * MODE in use: what it names was checked as itself */
static void changed_dir_names(struct walk *w, const struct nlfs_dir_rec *rec, unsigned off,
			      uint16_t mode)
{
	struct fsck_cp *cp = w->cp;

	check_type(w, rec, off, mode);
	count_ref(cp, rec->ino);
	if ((mode & NLFS_S_IFMT) == NLFS_S_IFDIR)
		cp->diff->note_child(cp->diff_arg, w->st[w->n - 1].ino, rec->ino);
}

/* one record (at byte OFF) of the directory on top of the stack; may push
 * a child.  What it counts is what the repaired tree holds: records the
 * repair removes name nothing, '.' and '..' name what the rewrite puts. */
static void record(struct walk *w, const struct nlfs_dir_rec *rec, unsigned off)
{
	struct fsck *c = w->c;
	struct fsck_cp *cp = w->cp;
	struct frame *fr = &w->st[w->n - 1];
	unsigned idx = fr->blk == 0 ? fr->nrec : 2;
	bool renamed;
	char what[PATH_MAX_NAME];
	struct nlfs_file f;
	uint16_t mode;
	size_t pathlen = fr->pathlen;

	fr->nrec++;
	w->path[pathlen] = 0;
	if (rec->ino == 0)
		return;   /* an unused record */
	if (fr->names_only) {
		/* a block of the last checkpoint, clean there: its '.' and
		 * '..' in place, and names that a record of a block that
		 * changed must not repeat */
		if (idx == 0)
			fr->dot = true;
		else if (idx == 1)
			fr->dotdot = true;
		else
			(void)record_name(w, rec, off, &renamed);
		return;
	}
	if (rec->name_len == 0) {
		fsck_problem(c, MSG_DIR_NAME_EMPTY, WHAT, fr->blk, rec->ino);
		note_entry(w, rec, off, DIRENT_DROP, 0, "its name is empty");
		return;
	}
	if (record_dots(w, rec, idx) || record_name(w, rec, off, &renamed))
		return;
	if (rec->ino >= cp->max_ino || !fsck_bit_test(&cp->alloc, rec->ino)) {
		fsck_problem(c, MSG_DIR_ENTRY_FREE_INODE, WHAT, (int)rec->name_len, rec->name,
			     rec->ino);
		note_entry(w, rec, off, DIRENT_FREE, 0, NULL);
		return;
	}
	if (cp->diff_walk &&
	    cp->diff->record_known(cp->diff_arg, fr->ino, fr->blk, off, rec->ino, rec->file_type)) {
		/* a record checked as it is, naming an inode as it was */
		bool dir = fsck_bit_test(&cp->isdir, rec->ino);

		count_ref(cp, rec->ino);
		if (dir)
			cp->diff->note_child(cp->diff_arg, fr->ino, rec->ino);
		return;
	}
	if (cp->diff_walk && cp->diff->checked_mode(cp->diff_arg, rec->ino, &mode)) {
		changed_dir_names(w, rec, off, mode);
		return;
	}
	if (cp_read_inode(c, cp, rec->ino, &f)) {
		if (fsck_bit_test(&cp->cleared, rec->ino)) {
			fsck_problem(c, MSG_DIR_ENTRY_LOST_INODE, WHAT, (int)rec->name_len,
				     rec->name, rec->ino);
			if (set_path(w, pathlen, rec->name, rec->name_len))
				note_entry(w, rec, off, DIRENT_DROP, 0,
					   "the inode it names is lost with its ifile block");
		}
		else
			count_ref(cp, rec->ino);
		return;
	}
	mode = nlfs_le16(f.inode.i_mode);
	if (cp->diff_walk) {
		changed_dir_names(w, rec, off, mode);
		return;
	}
	if (set_path(w, pathlen, rec->name, rec->name_len))
		record_inode(w, rec, off, &f, mode);
}
#undef WHAT

/* can a dropped record's entry be named in the message? */
static bool dropped_entry(const struct nlfs_dir_rec *rec, unsigned room)
{
	return rec->ino && rec->name_len && NLFS_DIR_ENTRY_HEADER + rec->name_len <= room;
}

/* the top directory FR's next block read into its buffer (holes before
 * it reported): true if it has records to read, false if it was popped
 * (no block left) or the block cannot be read */
static bool next_block(struct walk *w, struct frame *fr)
{
	struct fsck *c = w->c;
	struct nlfs_err err;
	char what[PATH_MAX_NAME];
	bool hole;
	uint64_t next = fr->next_key < fr->nkeys ? fr->keys[fr->next_key] : UINT64_MAX;

	if (next > fr->nblocks)
		next = fr->nblocks;
	w->path[fr->pathlen] = 0;
	cp_name(w->cp, fr->ino, w->path, what, sizeof(what));
	if (next > fr->expect)
		fr->rebuild = true;   /* the rewrite leaves the hole out */
	if (next == fr->expect + 1)
		fsck_problem(c, MSG_DIR_BLOCK_MISSING, what, fr->expect);
	else if (next > fr->expect)
		fsck_problem(c, MSG_DIR_BLOCKS_MISSING, what, fr->expect, next - 1);
	if (next >= fr->nblocks) {
		pop(w);
		return false;
	}
	fr->next_key++;
	fr->blk = next;
	fr->expect = next + 1;
	if (nlfs_file_read_block(c->fs, &fr->f, fr->blk, fr->buf, &hole, &err)) {
		fsck_lib_problem(c, MSG_DIR_BLOCK_READ, &err, what, fr->blk);
		fr->rebuild = true;
		return false;
	}
	if (hole) {
		fsck_problem(c, MSG_DIR_BLOCK_MISSING, what, fr->blk);
		fr->rebuild = true;
		return false;
	}
	fr->off = 0;
	fr->names_only = w->cp->diff_walk &&
			 w->cp->diff->block_same(w->cp->diff_arg, fr->ino, fr->blk);
	return true;
}

/* the record at OFF to END of FR's block was not sound (ST, WHY): said */
static void salvaged(struct walk *w, struct frame *fr, const struct nlfs_dir_rec *rec,
		     unsigned off, unsigned end, enum nlfs_dir_salvage st, const char *why)
{
	struct fsck *c = w->c;
	uint32_t bs = c->g->blocksize;
	char what[PATH_MAX_NAME];

	w->path[fr->pathlen] = 0;
	cp_name(w->cp, fr->ino, w->path, what, sizeof(what));
	fr->rebuild = true;
	if (st == NLFS_DIR_MENDED)
		fsck_problem(c, MSG_DIR_RECORD_KEPT, what, fr->blk, off, why,
			     (int)rec->name_len, rec->name, rec->ino);
	else if (dropped_entry(rec, bs - off))
		fsck_problem(c, MSG_DIR_RECORD_ENTRY_LOST, what, fr->blk, off, why,
			     (int)rec->name_len, rec->name, rec->ino);
	else
		fsck_problem(c, MSG_DIR_RECORD_BYTES_LOST, what, fr->blk, off, why,
			     off, end - 1);
}

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
		enum nlfs_dir_salvage st;
		const char *why;
		unsigned off, end;

		if (fr->off >= bs && !next_block(&w, fr))
			continue;
		off = fr->off;
		st = nlfs_dir_salvage(fr->buf, bs, off, &rec, &end, &why);
		fr->off = end;
		if (st != NLFS_DIR_SOUND) {
			salvaged(&w, fr, &rec, off, end, st, why);
			if (st == NLFS_DIR_DROPPED)
				continue;
		}
		record(&w, &rec, off);
	}
	while (w.n)
		pop(&w);
	free(w.st);
	free(w.path);
	return;
oom:
	fsck_problem(c, MSG_OOM_TREE_WALK, cp->cno);
	while (w.n)
		pop(&w);
	free(w.st);
	free(w.path);
}
