/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ops.c - what nilfs-fuse answers the kernel.  The tree:
 *
 *   /@CNO/...            checkpoint CNO's tree, for every checkpoint
 *   /latest              -> @CNO of the latest checkpoint
 *   /snapshots/@CNO      -> ../@CNO for every snapshot
 *
 * A checkpoint's tree never changes, so its entries and attributes are
 * cached by the kernel for long; the mount's own entries are not cached,
 * and looking at them refreshes the list of checkpoints (vol_refresh).
 * One thread answers (the library's handle is not shared).
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

#include <nlfs/endian.h>
#include "ops.h"
#include "array.h"
#include "strutils.h"

#define TREE_TIMEOUT 86400.0   /* a checkpoint's tree is immutable */
#define ST_INO_SNAPDIR 2
#define ST_INO_LATEST 3
#define MAX_SYMLINK 4096

struct dent {
	uint64_t ino;
	const char *name;      /* in the list's names, set once they are all in */
	size_t name_off;
	uint16_t name_len;
	uint8_t type;          /* DT_* */
};

/* a directory's entries, by name: for readdir and lookups */
struct dirlist {
	uint64_t cno, ino;     /* NODE_FILE directories; 0, 0 for the mount's own */
	unsigned refs;         /* the cache's and each open handle's */
	uint64_t used;
	struct dent *e;
	size_t n, cap;
	char *names;
	size_t nlen, ncap;
};

uint64_t nfuse_st_ino(uint64_t cno, uint64_t ino)
{
	uint64_t h;

	if (cno <= UINT32_MAX && ino <= UINT32_MAX)
		return (cno << 32) | ino;
	h = (cno * NLFS_HASH_MULT) ^ ino;
	return h | (1ULL << 63);
}

static struct nfuse *ctx(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static void dirlist_put(struct dirlist *d)
{
	if (d && --d->refs == 0) {
		free(d->e);
		free(d->names);
		free(d);
	}
}

void nfuse_free(struct nfuse *nf)
{
	for (unsigned i = 0; i < DIR_CACHE; i++)
		dirlist_put(nf->dcache[i]);
	nodes_free(&nf->nodes);
	vol_close(&nf->vol);
	free(nf->bufv);
	free(nf->zeros);
}

static int dirlist_add(struct dirlist *d, const char *name, size_t len, uint64_t ino,
		       uint8_t type)
{
	struct dent e = { ino, NULL, d->nlen, (uint16_t)len, type };

	if (CLI_GROW(d->names, d->ncap, d->nlen + len + 1))
		return -ENOMEM;
	memcpy(d->names + d->nlen, name, len);
	d->names[d->nlen + len] = '\0';
	d->nlen += len + 1;
	return CLI_PUSH(d->e, d->n, d->cap, e);
}

/* NILFS's file types 1..7 are Linux's: regular, dir, chr, blk, fifo, sock, lnk */
static uint8_t dt_of(unsigned ft)
{
	static const uint8_t dt[8] = { DT_UNKNOWN, DT_REG, DT_DIR, DT_CHR, DT_BLK, DT_FIFO,
				       DT_SOCK, DT_LNK };

	return dt[ft & 7];
}

static int collect_dirent(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	return dirlist_add(arg, name, len, ino, dt_of(type));
}

/* the names' places, once the names have stopped moving */
static void dirlist_seal(struct dirlist *d)
{
	for (size_t i = 0; i < d->n; i++)
		d->e[i].name = d->names + d->e[i].name_off;
}

static int cmp_dent(const void *a, const void *b)
{
	const struct dent *x = a, *y = b;

	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	return memcmp(x->name, y->name, x->name_len);
}

/* directory node N's entries, from the cache or read; one reference for
 * the caller */
static int dirlist_get(struct nfuse *nf, const struct node *n, struct dirlist **out)
{
	struct dirlist *d;
	unsigned victim = 0;
	int rc;

	for (unsigned i = 0; i < DIR_CACHE; i++) {
		d = nf->dcache[i];
		if (d && d->cno == n->cno && d->ino == n->ino) {
			d->used = ++nf->dclock;
			d->refs++;
			*out = d;
			return 0;
		}
		if (!d || (nf->dcache[victim] && d->used < nf->dcache[victim]->used))
			victim = i;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->cno = n->cno;
	d->ino = n->ino;
	d->refs = 1;
	rc = nlfs_dir_iterate(nf->vol.fs, &n->f, collect_dirent, d, &nf->vol.err);
	if (rc) {
		dirlist_put(d);
		return rc;
	}
	dirlist_seal(d);
	nlfs_sort(d->e, d->n, sizeof(*d->e), cmp_dent);
	d->used = ++nf->dclock;
	dirlist_put(nf->dcache[victim]);
	nf->dcache[victim] = d;
	d->refs++;
	*out = d;
	return 0;
}

static const struct dent *dirlist_find(const struct dirlist *d, const char *name)
{
	size_t len = strlen(name);
	struct dent key = { .name = name, .name_len = (uint16_t)len };

	if (!d->n || len > UINT16_MAX)
		return NULL;
	return bsearch(&key, d->e, d->n, sizeof(*d->e), cmp_dent);
}

static void fill_file_attr(const struct nfuse *nf, const struct node *n, struct stat *st)
{
	const struct nlfs_inode *in = &n->f.inode;
	uint16_t mode = nlfs_le16(in->i_mode);

	st->st_ino = nfuse_st_ino(n->cno, n->ino);
	st->st_mode = mode;
	st->st_nlink = nlfs_le16(in->i_links_count);
	st->st_uid = nlfs_le32(in->i_uid);
	st->st_gid = nlfs_le32(in->i_gid);
	st->st_size = (off_t)nlfs_le64(in->i_size);
	st->st_blocks = (blkcnt_t)nlfs_le64(in->i_blocks);
	st->st_blksize = (blksize_t)nlfs_fs_geometry(nf->vol.fs)->blocksize;
	if (S_ISCHR(mode) || S_ISBLK(mode)) {
		uint32_t ma, mi;

		nlfs_dev_decode(nlfs_le64(in->i_bmap[0]), &ma, &mi);
		st->st_rdev = makedev(ma, mi);
	}
	/* NILFS keeps no access time: the kernel shows the modification time */
	st->st_mtim.tv_sec = (time_t)nlfs_le64(in->i_mtime);
	st->st_mtim.tv_nsec = (long)nlfs_le32(in->i_mtime_nsec);
	st->st_ctim.tv_sec = (time_t)nlfs_le64(in->i_ctime);
	st->st_ctim.tv_nsec = (long)nlfs_le32(in->i_ctime_nsec);
	st->st_atim = st->st_mtim;
}

static void set_time(struct stat *st, uint64_t t)
{
	st->st_mtim.tv_sec = st->st_ctim.tv_sec = st->st_atim.tv_sec = (time_t)t;
}

/* "@CNO" (or "../@CNO" with UP) into BUF */
static void cp_name(char *buf, size_t len, uint64_t cno, bool up)
{
	snprintf(buf, len, "%s@%" PRIu64, up ? "../" : "", cno);
}

static void fill_attr(struct nfuse *nf, const struct node *n, struct stat *st)
{
	const struct volume *v = &nf->vol;
	const struct vol_cp *latest = vol_cp_find(v, v->latest);
	char target[48];

	memset(st, 0, sizeof(*st));
	if (n->kind == NODE_FILE) {
		fill_file_attr(nf, n, st);
		return;
	}
	st->st_uid = nf->uid;
	st->st_gid = nf->gid;
	set_time(st, latest ? latest->create : 0);
	switch (n->kind) {
	case NODE_ROOT:
		st->st_ino = 1;
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = (nlink_t)(3 + v->ncps);
		break;
	case NODE_SNAPDIR:
		st->st_ino = ST_INO_SNAPDIR;
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
		break;
	case NODE_LATEST:
		st->st_ino = ST_INO_LATEST;
		st->st_mode = S_IFLNK | 0777;
		st->st_nlink = 1;
		cp_name(target, sizeof(target), v->latest, false);
		st->st_size = (off_t)strlen(target);
		break;
	default: {
		const struct vol_cp *cp = vol_cp_find(v, n->cno);

		/* inode 1 is never a file's: a link of its own per checkpoint */
		st->st_ino = nfuse_st_ino(n->cno, 1);
		st->st_mode = S_IFLNK | 0777;
		st->st_nlink = 1;
		cp_name(target, sizeof(target), n->cno, true);
		st->st_size = (off_t)strlen(target);
		set_time(st, cp ? cp->create : 0);
		break;
	}
	}
}

static void reply_err(fuse_req_t req, struct nfuse *nf, const char *what, int rc)
{
	int e = vol_errno(rc);

	if (e == EIO || e == ENOMEM)
		vol_report(&nf->vol, what, rc);
	fuse_reply_err(req, e);
}

/* reply to a lookup with node N (one lookup counted already); a name in
 * a checkpoint's tree is cached for long, @CNO in the root only briefly
 * (a plain checkpoint may be deleted) */
static void reply_entry(fuse_req_t req, struct nfuse *nf, struct node *n, bool in_root)
{
	struct fuse_entry_param e;

	memset(&e, 0, sizeof(e));
	e.ino = nodes_id(&nf->nodes, n);
	fill_attr(nf, n, &e.attr);
	if (n->kind == NODE_FILE) {
		e.attr_timeout = TREE_TIMEOUT;
		e.entry_timeout = in_root ? 1.0 : TREE_TIMEOUT;
	}
	if (fuse_reply_entry(req, &e))
		nodes_forget(&nf->nodes, n, 1);
}

/* "@CNO" of a checkpoint in the list (with SNAPSHOT: of a snapshot) */
static bool parse_cp(struct nfuse *nf, const char *name, bool snapshot, uint64_t *cno)
{
	const struct vol_cp *cp;

	if (name[0] != '@' || name[1] < '0' || name[1] > '9' || cli_strtocno(name + 1, cno))
		return false;
	cp = vol_cp_find(&nf->vol, *cno);
	return cp && (!snapshot || cp->snapshot);
}

static void nfuse_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct nfuse *nf = ctx(req);
	struct node *p = nodes_get(&nf->nodes, parent), *n = NULL;
	uint64_t cno;
	int rc;

	switch (p->kind) {
	case NODE_ROOT:
		vol_refresh(&nf->vol);
		if (!strcmp(name, "latest"))
			n = nodes_ref(&nf->nodes, NODE_LATEST, 0, 0);
		else if (!strcmp(name, "snapshots"))
			n = nodes_ref(&nf->nodes, NODE_SNAPDIR, 0, 0);
		else if (parse_cp(nf, name, false, &cno)) {
			struct nlfs_file f;

			rc = vol_inode(&nf->vol, cno, NLFS_ROOT_INO, &f);
			if (rc)
				return reply_err(req, nf, name, rc);
			n = nodes_ref(&nf->nodes, NODE_FILE, cno, NLFS_ROOT_INO);
			if (n)
				n->f = f;
		} else
			return (void)fuse_reply_err(req, ENOENT);
		break;
	case NODE_SNAPDIR:
		vol_refresh(&nf->vol);
		if (!parse_cp(nf, name, true, &cno))
			return (void)fuse_reply_err(req, ENOENT);
		n = nodes_ref(&nf->nodes, NODE_SNAPLINK, cno, 0);
		break;
	case NODE_FILE: {
		struct dirlist *d;
		const struct dent *e;
		struct nlfs_file f;

		if (!S_ISDIR(nlfs_le16(p->f.inode.i_mode)))
			return (void)fuse_reply_err(req, ENOTDIR);
		rc = dirlist_get(nf, p, &d);
		if (rc)
			return reply_err(req, nf, name, rc);
		e = dirlist_find(d, name);
		cno = e ? e->ino : 0;
		dirlist_put(d);
		if (!e)
			return (void)fuse_reply_err(req, ENOENT);
		rc = vol_inode(&nf->vol, p->cno, cno, &f);
		if (rc)
			return reply_err(req, nf, name, rc);
		n = nodes_ref(&nf->nodes, NODE_FILE, p->cno, cno);
		if (n)
			n->f = f;
		break;
	}
	default:
		return (void)fuse_reply_err(req, ENOTDIR);
	}
	if (!n)
		return (void)fuse_reply_err(req, ENOMEM);
	reply_entry(req, nf, n, p->kind == NODE_ROOT);
}

static void nfuse_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	struct nfuse *nf = ctx(req);

	nodes_forget(&nf->nodes, nodes_get(&nf->nodes, ino), nlookup);
	fuse_reply_none(req);
}

static void nfuse_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	struct nfuse *nf = ctx(req);

	for (size_t i = 0; i < count; i++)
		nodes_forget(&nf->nodes, nodes_get(&nf->nodes, forgets[i].ino), forgets[i].nlookup);
	fuse_reply_none(req);
}

static void nfuse_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct nfuse *nf = ctx(req);
	struct node *n = nodes_get(&nf->nodes, ino);
	struct stat st;

	(void)fi;
	if (n->kind == NODE_ROOT)
		vol_refresh(&nf->vol);
	fill_attr(nf, n, &st);
	fuse_reply_attr(req, &st, n->kind == NODE_FILE ? TREE_TIMEOUT : 0);
}

static void nfuse_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct nfuse *nf = ctx(req);
	struct node *n = nodes_get(&nf->nodes, ino);
	char target[MAX_SYMLINK + 1];
	uint64_t size;
	size_t got;
	int rc;

	if (n->kind == NODE_LATEST || n->kind == NODE_SNAPLINK) {
		cp_name(target, sizeof(target), n->kind == NODE_LATEST ? nf->vol.latest : n->cno,
			n->kind == NODE_SNAPLINK);
		return (void)fuse_reply_readlink(req, target);
	}
	if (n->kind != NODE_FILE || !S_ISLNK(nlfs_le16(n->f.inode.i_mode)))
		return (void)fuse_reply_err(req, EINVAL);
	size = nlfs_le64(n->f.inode.i_size);
	if (size == 0 || size > MAX_SYMLINK)
		return (void)fuse_reply_err(req, EIO);
	rc = nlfs_file_pread(nf->vol.fs, &n->f, target, (size_t)size, 0, &got, &nf->vol.err);
	if (rc)
		return reply_err(req, nf, "readlink", rc);
	target[got] = '\0';
	if (got != size || strlen(target) != got)
		return (void)fuse_reply_err(req, EIO);
	fuse_reply_readlink(req, target);
}

/* the mount's own directories, as a list made now */
static int own_dirlist(struct nfuse *nf, const struct node *n, struct dirlist **out)
{
	struct dirlist *d = calloc(1, sizeof(*d));
	const struct volume *v = &nf->vol;
	char name[32];
	int rc = 0;

	if (!d)
		return -ENOMEM;
	d->refs = 1;
	if (n->kind == NODE_ROOT) {
		rc = dirlist_add(d, "latest", 6, ST_INO_LATEST, DT_LNK);
		if (!rc)
			rc = dirlist_add(d, "snapshots", 9, ST_INO_SNAPDIR, DT_DIR);
	}
	for (size_t i = 0; !rc && i < v->ncps; i++) {
		if (n->kind == NODE_SNAPDIR && !v->cps[i].snapshot)
			continue;
		cp_name(name, sizeof(name), v->cps[i].cno, false);
		rc = dirlist_add(d, name, strlen(name),
				 nfuse_st_ino(v->cps[i].cno, n->kind == NODE_ROOT ? NLFS_ROOT_INO : 1),
				 n->kind == NODE_ROOT ? DT_DIR : DT_LNK);
	}
	if (rc) {
		dirlist_put(d);
		return rc;
	}
	dirlist_seal(d);
	*out = d;
	return 0;
}

static void nfuse_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct nfuse *nf = ctx(req);
	struct node *n = nodes_get(&nf->nodes, ino);
	struct dirlist *d;
	int rc;

	if (n->kind == NODE_ROOT || n->kind == NODE_SNAPDIR) {
		vol_refresh(&nf->vol);
		rc = own_dirlist(nf, n, &d);
	} else if (n->kind == NODE_FILE && S_ISDIR(nlfs_le16(n->f.inode.i_mode))) {
		rc = dirlist_get(nf, n, &d);
	} else {
		return (void)fuse_reply_err(req, ENOTDIR);
	}
	if (rc)
		return reply_err(req, nf, "reading a directory", rc);
	fi->fh = (uint64_t)(uintptr_t)d;
	if (n->kind == NODE_FILE)
		fi->cache_readdir = 1;
	if (fuse_reply_open(req, fi))
		dirlist_put(d);
}

static void nfuse_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			  struct fuse_file_info *fi)
{
	struct nfuse *nf = ctx(req);
	struct node *n = nodes_get(&nf->nodes, ino);
	struct dirlist *d = (struct dirlist *)(uintptr_t)fi->fh;
	char *buf = malloc(size);
	size_t used = 0;

	if (!buf)
		return (void)fuse_reply_err(req, ENOMEM);
	/* offsets: 1 after ".", 2 after "..", 3 + i after entry i */
	for (off_t i = off; ; i++) {
		struct stat st = { 0 };
		const char *name;
		size_t len;

		if (i == 0 || i == 1) {
			if (n->kind == NODE_FILE)
				continue;   /* the directory holds its own "." and ".." */
			name = i == 0 ? "." : "..";
			st.st_ino = 1;
			st.st_mode = S_IFDIR;
		} else if ((size_t)(i - 2) < d->n) {
			const struct dent *e = &d->e[i - 2];

			name = e->name;
			st.st_ino = n->kind == NODE_FILE ? nfuse_st_ino(n->cno, e->ino) : e->ino;
			st.st_mode = (mode_t)e->type << 12;
		} else {
			break;
		}
		len = fuse_add_direntry(req, buf + used, size - used, name, &st, i + 1);
		if (len > size - used)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static void nfuse_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	dirlist_put((struct dirlist *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

static void nfuse_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct nfuse *nf = ctx(req);
	struct node *n = nodes_get(&nf->nodes, ino);

	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return (void)fuse_reply_err(req, EROFS);
	if (n->kind != NODE_FILE)
		return (void)fuse_reply_err(req, EISDIR);
	if (S_ISDIR(nlfs_le16(n->f.inode.i_mode)))
		return (void)fuse_reply_err(req, EISDIR);
	fi->keep_cache = 1;   /* the contents never change */
	/* each read straight into the reader's buffer: one copy fewer, no
	 * page cache to fill, but no readahead and no shared mappings */
	fi->direct_io = nf->direct_io;
	fuse_reply_open(req, fi);
}

/* one more piece of a read reply: LEN bytes of the device at POS, or of
 * zeros (POS UINT64_MAX); a piece that continues the last one joins it */
static int reply_piece(struct nfuse *nf, uint64_t pos, size_t len)
{
	struct fuse_bufvec *v = nf->bufv;
	struct fuse_buf *last = v->count ? &v->buf[v->count - 1] : NULL;

	if (last && pos != UINT64_MAX && (last->flags & FUSE_BUF_IS_FD) &&
	    (uint64_t)last->pos + last->size == pos) {
		last->size += len;
		return 0;
	}
	if (last && pos == UINT64_MAX && !(last->flags & FUSE_BUF_IS_FD)) {
		last->size += len;
		return 0;
	}
	if (v->count == nf->bufcap) {
		size_t cap = nf->bufcap * 2;
		struct fuse_bufvec *nv = realloc(v, sizeof(*v) + cap * sizeof(v->buf[0]));

		if (!nv)
			return -ENOMEM;
		nf->bufv = v = nv;
		nf->bufcap = cap;
	}
	last = &v->buf[v->count++];
	memset(last, 0, sizeof(*last));
	last->size = len;
	if (pos == UINT64_MAX) {
		last->mem = nf->zeros;
	} else {
		last->flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
		last->fd = nf->vol.fd;
		last->pos = (off_t)pos;
	}
	return 0;
}

/*
 * The file's bytes go to the kernel straight from the device: the library
 * says where each block lies, runs of adjacent blocks become one piece,
 * and libfuse splices the pieces from the device's page cache (or reads
 * them, where splicing is not to be had).
 */
static void nfuse_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct nfuse *nf = ctx(req);
	struct node *n = nodes_get(&nf->nodes, ino);
	const struct nlfs_geometry *g = nlfs_fs_geometry(nf->vol.fs);
	uint64_t isize = nlfs_le64(n->f.inode.i_size), pos = (uint64_t)off, end;
	uint32_t bs = g->blocksize;
	int rc = 0;

	(void)fi;
	if (off < 0)
		return (void)fuse_reply_err(req, EINVAL);
	end = pos >= isize ? pos : (isize - pos < size ? isize : pos + size);
	if (!nf->bufv) {
		nf->bufv = malloc(sizeof(*nf->bufv) + 16 * sizeof(nf->bufv->buf[0]));
		if (!nf->bufv)
			return (void)fuse_reply_err(req, ENOMEM);
		nf->bufcap = 17;
	}
	if (nf->zcap < size) {
		free(nf->zeros);
		nf->zeros = calloc(1, size);
		nf->zcap = nf->zeros ? size : 0;
		if (!nf->zeros)
			return (void)fuse_reply_err(req, ENOMEM);
	}
	*nf->bufv = FUSE_BUFVEC_INIT(0);
	nf->bufv->count = 0;
	while (!rc && pos < end) {
		uint64_t where[64], first = pos / bs, nblk = (end - 1) / bs - first + 1;
		size_t nwhere = 0;

		rc = nlfs_file_blocks_where(nf->vol.fs, &n->f, first, where,
					    nblk < 64 ? (size_t)nblk : 64, &nwhere, &nf->vol.err);
		for (size_t i = 0; !rc && i < nwhere && pos < end; i++) {
			uint64_t blocknr = where[i];
			uint32_t in = (uint32_t)(pos % bs);
			size_t len = bs - in < end - pos ? bs - in : (size_t)(end - pos);

			if (blocknr && blocknr >= g->devsize / bs)
				rc = nlfs_err_set(&nf->vol.err, NLFS_ECORRUPT, blocknr,
						  "inode %" PRIu64 " of checkpoint %" PRIu64
						  ": block %" PRIu64 " past the device's end",
						  n->ino, n->cno, first + i);
			else
				rc = reply_piece(nf, blocknr ? blocknr * bs + in : UINT64_MAX, len);
			pos += len;
		}
	}
	if (rc)
		return reply_err(req, nf, "read", rc);
	/* no FUSE_BUF_SPLICE_MOVE: the device's pages stay in its page cache */
	fuse_reply_data(req, nf->bufv, (enum fuse_buf_copy_flags)0);
}

static void nfuse_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct nfuse *nf = ctx(req);
	const struct nlfs_geometry *g = nlfs_fs_geometry(nf->vol.fs);
	const struct nlfs_super_block *sb =
		nlfs_fs_sb(nf->vol.fs, nlfs_fs_sb_choice(nf->vol.fs)->used);
	struct statvfs st;

	(void)ino;
	memset(&st, 0, sizeof(st));
	st.f_bsize = st.f_frsize = g->blocksize;
	st.f_blocks = g->nsegments * g->blocks_per_segment;
	st.f_bfree = st.f_bavail = nlfs_le64(sb->s_free_blocks_count);
	st.f_namemax = NLFS_NAME_LEN;
	st.f_flag = ST_RDONLY;
	fuse_reply_statfs(req, &st);
}

static void nfuse_init(void *userdata, struct fuse_conn_info *conn)
{
	const struct nfuse *nf = userdata;

	/* libfuse checks that init asks for the max_read of the options */
	if (nf->max_read)
		conn->max_read = nf->max_read;
	/* whole files stream through in big requests */
	if (conn->capable & FUSE_CAP_ASYNC_READ)
		conn->want |= FUSE_CAP_ASYNC_READ;
	if (conn->capable & FUSE_CAP_SPLICE_WRITE)
		conn->want |= FUSE_CAP_SPLICE_WRITE;
}

const struct fuse_lowlevel_ops nfuse_ops = {
	.init = nfuse_init,
	.lookup = nfuse_lookup,
	.forget = nfuse_forget,
	.forget_multi = nfuse_forget_multi,
	.getattr = nfuse_getattr,
	.readlink = nfuse_readlink,
	.open = nfuse_open,
	.read = nfuse_read,
	.opendir = nfuse_opendir,
	.readdir = nfuse_readdir,
	.releasedir = nfuse_releasedir,
	.statfs = nfuse_statfs,
};
