/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The filesystem handle: open (superblocks, then the kernel's super-root
 * search, recovery.c, and roll-forward, rollforward.c), close, and what it
 * holds.  Logs are read by log.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

static void dat_cache_free(struct nlfs_fs *fs)
{
	fs->dat_hot_n = 0;
	for (size_t i = 0; i < (size_t)fs->dat_sets * NLFS_DAT_WAYS; i++)
		free(fs->dat_cache[i].data);
	free(fs->dat_cache);
	fs->dat_cache = NULL;
	fs->dat_sets = 0;
	fs->dat_nalloc = 0;
	free(fs->dat_last);
	fs->dat_last = NULL;
	fs->dat_last_n = 0;
	free(fs->dat_scratch);
	fs->dat_scratch = NULL;
}

/* an empty DAT cache of SETS sets, or of as many as the super root's DAT
 * has blocks for (SETS 0) */
static int dat_cache_fit(struct nlfs_fs *fs, unsigned sets)
{
	uint64_t nblocks = 0;

	if (!sets) {
		struct nlfs_file dat;

		/* the kernel leaves the DAT's i_size 0; i_blocks counts 512-byte
		 * units (nodes too), a hint that needs no walk of the map */
		nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
		nblocks = nlfs_le64(dat.inode.i_size) / fs->geo.blocksize;
		if (nlfs_le64(dat.inode.i_blocks) / (fs->geo.blocksize / 512) > nblocks)
			nblocks = nlfs_le64(dat.inode.i_blocks) / (fs->geo.blocksize / 512);
		sets = NLFS_DAT_SETS_MIN;
		while (sets < NLFS_DAT_SETS_MAX && (uint64_t)sets * NLFS_DAT_WAYS < nblocks)
			sets *= 2;
	}
	if (sets != fs->dat_sets) {
		struct nlfs_cache_slot *c = calloc((size_t)sets * NLFS_DAT_WAYS, sizeof(*c));

		if (!c)
			return -ENOMEM;
		dat_cache_free(fs);
		fs->dat_cache = c;
		fs->dat_sets = sets;
	}
	for (size_t i = 0; i < (size_t)sets * NLFS_DAT_WAYS; i++) {
		/* blocks of another DAT: these slots are the first reused */
		fs->dat_cache[i].key = UINT64_MAX;
		fs->dat_cache[i].used = 0;
	}
	fs->dat_scratch_key = UINT64_MAX;
	fs->dat_hot_n = 0;
	if (nblocks != fs->dat_last_n) {
		uint32_t *last = nblocks && nblocks < SIZE_MAX / 8 ?
					 malloc((size_t)nblocks * sizeof(*last)) : NULL;

		free(fs->dat_last);
		fs->dat_last = last;
		fs->dat_last_n = last ? nblocks : 0;
	}
	if (fs->dat_last)
		memset(fs->dat_last, 0, (size_t)fs->dat_last_n * sizeof(*fs->dat_last));
	fs->dat_reads = 0;
	return 0;
}

int nlfs_fs_load_root(struct nlfs_fs *fs, struct nlfs_err *err)
{
	uint32_t bs = fs->geo.blocksize;
	uint64_t blk = fs->rec.sr_block;
	int rc;

	/* what an earlier super root left behind belongs to other files */
	free(fs->rf);
	fs->rf = NULL;
	fs->nrf = 0;
	fs->known = NULL;
	fs->cursor_known = false;
	if (!fs->sr && !(fs->sr = malloc(bs)))
		return -ENOMEM;
	rc = nlfs_io_read(fs->io, fs->sr, bs, blk * bs);
	if (rc)
		return nlfs_err_set(err, rc, blk, "%s: reading super root", nlfs_io_name(fs->io));
	rc = nlfs_super_root_check(fs->sr, bs, fs->crc_seed, fs->geo.inode_size, blk, err);
	if (!rc)
		rc = dat_cache_fit(fs, 0);
	if (!rc && fs->rec.nlogs_after_sr)
		rc = nlfs_rollforward_scan(fs, err);
	return rc;
}

/* the superblocks, geometry and CRC seed */
static int open_sb(struct nlfs_io *io, struct nlfs_fs **out, struct nlfs_err *err)
{
	struct nlfs_fs *fs = calloc(1, sizeof(*fs));
	uint64_t devsize;
	int rc;

	nlfs_err_clear(err);
	if (!fs)
		return -ENOMEM;
	fs->io = io;
	rc = dat_cache_fit(fs, NLFS_DAT_SETS_MIN);
	if (!rc)
		rc = nlfs_sb_read_both(io, fs->sb, &fs->choice, err);
	if (!rc)
		rc = nlfs_io_size(io, &devsize);
	if (rc) {
		dat_cache_free(fs);
		free(fs);
		return rc;
	}
	nlfs_geometry_from_sb(&fs->geo, &fs->sb[fs->choice.used], devsize);
	fs->crc_seed = nlfs_le32(fs->sb[fs->choice.used].s_crc_seed);
	*out = fs;
	return 0;
}

int nlfs_fs_open_sb(struct nlfs_io *io, struct nlfs_fs **out, struct nlfs_err *err)
{
	return open_sb(io, out, err);
}

int nlfs_fs_open(struct nlfs_io *io, struct nlfs_fs **out, struct nlfs_err *err)
{
	struct nlfs_fs *fs;
	enum nlfs_sb_slot other;
	int rc = open_sb(io, &fs, err);

	if (rc)
		return rc;
	rc = nlfs_search_super_root(fs, &fs->sb[fs->choice.used], NULL, NULL, err);
	other = fs->choice.used == NLFS_SB_PRIMARY ? NLFS_SB_SECONDARY : NLFS_SB_PRIMARY;
	if (rc && fs->choice.status[other].valid) {
		/* the kernel retries once from the other copy */
		struct nlfs_err first = *err;

		rc = nlfs_search_super_root(fs, &fs->sb[other], NULL, NULL, err);
		if (rc) {
			*err = first;
			rc = first.code;
		} else {
			fs->rec.from_other_sb = true;
		}
	}
	if (rc)
		goto fail;
	rc = nlfs_fs_load_root(fs, err);
	if (rc)
		goto fail;
	*out = fs;
	return 0;
fail:
	fs->io = NULL;  /* the caller keeps the io on failure */
	nlfs_fs_close(fs);
	return rc;
}

void nlfs_fs_limit_dat_cache(struct nlfs_fs *fs, unsigned blocks)
{
	fs->dat_max = blocks;
}

void nlfs_fs_known_addresses(struct nlfs_fs *fs,
			     bool (*known)(void *arg, uint64_t vblocknr, uint64_t *blocknr),
			     void *arg)
{
	fs->known = known;
	fs->known_arg = arg;
}

int nlfs_cache_read(struct nlfs_fs *fs, struct nlfs_cache_slot *s, unsigned n, uint64_t *clock,
		    uint64_t blocknr, uint8_t *buf)
{
	uint32_t bs = fs->geo.blocksize;
	unsigned slot;
	int rc;

	if (nlfs_cache_find(s, n, blocknr, clock, &slot)) {
		memcpy(buf, s[slot].data, bs);
		return 0;
	}
	rc = nlfs_io_read(fs->io, buf, bs, blocknr * bs);
	if (rc)
		return rc;
	if (!s[slot].data && !(s[slot].data = malloc(bs)))
		return 0;   /* no room to remember it: not an error */
	memcpy(s[slot].data, buf, bs);
	s[slot].key = blocknr;
	return 0;
}

void nlfs_fs_close(struct nlfs_fs *fs)
{
	if (!fs)
		return;
	nlfs_io_close(fs->io);
	free(fs->sr);
	dat_cache_free(fs);
	free(fs->rf);
	for (unsigned i = 0; i < NLFS_NODE_CACHE; i++)
		free(fs->node_cache[i].data);
	for (unsigned i = 0; i < NLFS_IFILE_CACHE; i++)
		free(fs->ifile_cache[i].data);
	free(fs);
}

struct nlfs_io *nlfs_fs_release(struct nlfs_fs *fs)
{
	struct nlfs_io *io = fs->io;

	fs->io = NULL;
	nlfs_fs_close(fs);
	return io;
}

struct nlfs_io *nlfs_fs_io(struct nlfs_fs *fs) { return fs->io; }

const struct nlfs_super_block *nlfs_fs_sb(const struct nlfs_fs *fs, enum nlfs_sb_slot slot)
{
	return &fs->sb[slot];
}

const struct nlfs_sb_choice *nlfs_fs_sb_choice(const struct nlfs_fs *fs) { return &fs->choice; }
const struct nlfs_geometry *nlfs_fs_geometry(const struct nlfs_fs *fs) { return &fs->geo; }
const struct nlfs_recovery *nlfs_fs_recovery(const struct nlfs_fs *fs) { return &fs->rec; }
const uint8_t *nlfs_fs_super_root(const struct nlfs_fs *fs) { return fs->sr; }

const struct nlfs_inode *nlfs_fs_sr_inode(const struct nlfs_fs *fs, unsigned ino)
{
	if (ino < NLFS_DAT_INO || ino > NLFS_SUFILE_INO || !fs->sr)
		return NULL;
	return (const struct nlfs_inode *)(const void *)
		(fs->sr + NLFS_SR_INODES_OFFSET + (ino - NLFS_DAT_INO) * fs->geo.inode_size);
}

int nlfs_fs_walk_chain(struct nlfs_fs *fs, nlfs_log_cb cb, void *arg, struct nlfs_err *err)
{
	const struct nlfs_super_block *sb = &fs->sb[fs->choice.used];
	struct nlfs_super_block scan = *sb;

	/* walk forward past super roots, as a mount without VALID_FS would */
	scan.s_state = nlfs_cpu_to_le16(nlfs_le16(sb->s_state) & ~NLFS_STATE_VALID_FS);
	{
		struct nlfs_recovery saved = fs->rec;
		int rc = nlfs_search_super_root(fs, &scan, cb, arg, err);

		fs->rec = saved;
		return rc;
	}
}

struct tail_walk {
	struct nlfs_chain_tail *t;
	uint64_t cursor_cno, prev_create;
	bool at_cursor;
};

static int tail_log(const struct nlfs_log *log, const void *summary, void *arg)
{
	struct tail_walk *w = arg;
	struct nlfs_chain_tail *t = w->t;

	(void)summary;
	if (!w->at_cursor) {   /* the cursor's own log */
		w->at_cursor = true;
	} else {
		if (!t->nlogs++) {
			t->first = (struct nlfs_chain_pos){ log->start, log->seq };
			t->first_cno = log->cno;
			t->continues = log->cno > w->cursor_cno;
		}
		if (log->create < w->prev_create)
			t->continues = false;
	}
	w->prev_create = log->create;
	return 0;
}

int nlfs_fs_chain_tail(struct nlfs_fs *fs, struct nlfs_chain_tail *tail, struct nlfs_err *err)
{
	struct tail_walk w = { tail, nlfs_le64(fs->sb[fs->choice.used].s_last_cno), 0, false };

	memset(tail, 0, sizeof(*tail));
	return nlfs_fs_walk_chain(fs, tail_log, &w, err);
}
