/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The filesystem handle: geometry, log reading, open and close. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "nlfsP.h"

uint64_t nlfs_seg_start(const struct nlfs_geometry *g, uint64_t segnum)
{
	return segnum == 0 ? g->first_data_block : segnum * g->blocks_per_segment;
}

uint64_t nlfs_seg_end(const struct nlfs_geometry *g, uint64_t segnum)
{
	return segnum * g->blocks_per_segment + g->blocks_per_segment - 1;
}

static void geometry_from_sb(struct nlfs_geometry *g, const struct nlfs_super_block *sb,
			     uint64_t devsize)
{
	g->blocksize = NLFS_MIN_BLOCK_SIZE << nlfs_le32(sb->s_log_block_size);
	g->blocks_per_segment = nlfs_le32(sb->s_blocks_per_segment);
	g->nsegments = nlfs_le64(sb->s_nsegments);
	g->first_data_block = nlfs_le64(sb->s_first_data_block);
	g->inode_size = nlfs_le16(sb->s_inode_size);
	g->devsize = devsize;
}

/* bytes of a log read with one call: a log of small files' blocks is
 * read in a few large reads, not one per block (cold caches, syscalls) */
#define LOG_READ_CHUNK (1u << 20)

/* Blocks FIRST.. of the log at START, as many as fit in LEN bytes; on a
 * failure the blocks are read one by one, so the error names the block. */
static int read_log_blocks(struct nlfs_fs *fs, uint64_t start, uint32_t first, uint32_t n,
			   uint8_t *buf, struct nlfs_err *err)
{
	uint32_t bs = fs->geo.blocksize;
	int rc = nlfs_io_read(fs->io, buf, (size_t)n * bs, (start + first) * bs);

	if (!rc)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		rc = nlfs_io_read(fs->io, buf + (size_t)i * bs, bs, (start + first + i) * bs);
		if (rc)
			return nlfs_err_set(err, rc, start + first + i, "%s: reading log block",
					    nlfs_io_name(fs->io));
	}
	return 0;
}

int nlfs_log_read(struct nlfs_fs *fs, uint64_t start, struct nlfs_log *log,
		  void **summary, struct nlfs_err *err)
{
	return nlfs_log_read_flags(fs, start, log, summary, 0, err);
}

int nlfs_log_read_flags(struct nlfs_fs *fs, uint64_t start, struct nlfs_log *log,
			void **summary, unsigned flags, struct nlfs_err *err)
{
	const struct nlfs_geometry *g = &fs->geo;
	uint32_t bs = g->blocksize;
	uint64_t seg = start / g->blocks_per_segment;
	uint32_t chunk_blocks = LOG_READ_CHUNK / bs ? LOG_READ_CHUNK / bs : 1;
	bool whole = !(flags & NLFS_LOG_READ_SUMMARY_ONLY);
	uint8_t *buf, *big = NULL;
	uint32_t crc = 0, sumcrc, nread;
	size_t sumlen;
	int rc;

	if (seg >= g->nsegments || start < g->first_data_block)
		return nlfs_err_set(err, NLFS_ECORRUPT, start, "log start outside the segments");
	buf = malloc(bs);
	if (!buf)
		return -ENOMEM;
	rc = nlfs_io_read(fs->io, buf, bs, start * bs);
	if (rc) {
		free(buf);
		return nlfs_err_set(err, rc, start, "%s: reading segment summary",
				    nlfs_io_name(fs->io));
	}
	rc = nlfs_summary_decode(buf, bs, start, log, err);
	if (rc)
		goto out;
	if (log->nblocks > g->blocks_per_segment ||
	    start + log->nblocks - 1 > nlfs_seg_end(g, seg)) {
		rc = nlfs_err_set(err, NLFS_ECORRUPT, start,
				  "log of %u blocks overruns segment %llu", log->nblocks,
				  (unsigned long long)seg);
		goto out;
	}
	/* one pass over the log: ss_datasum covers it all after its first 4
	 * bytes, ss_sumsum the summary area [8, ss_sumbytes) */
	sumlen = log->sumbytes;
	if (whole)
		crc = nlfs_crc32(fs->crc_seed, buf + 4, bs - 4);
	sumcrc = nlfs_crc32(fs->crc_seed, buf + 8, (sumlen < bs ? sumlen : bs) - 8);
	if (summary) {
		uint8_t *s = malloc(nlfs_summary_blocks(log, bs) * (size_t)bs);

		if (!s) {
			rc = -ENOMEM;
			goto out;
		}
		memcpy(s, buf, bs);
		*summary = s;
	}
	/* without the data checksum only the summary blocks are needed */
	nread = whole ? log->nblocks : nlfs_summary_blocks(log, bs);
	if (chunk_blocks > nread - 1)
		chunk_blocks = nread - 1;
	if (chunk_blocks > 1) {
		big = malloc((size_t)chunk_blocks * bs);
		if (!big)
			chunk_blocks = 1;   /* one block at a time still works */
	}
	for (uint32_t i = 1; i < nread;) {
		uint32_t n = nread - i < chunk_blocks ? nread - i : chunk_blocks;
		uint8_t *p = big ? big : buf;

		rc = read_log_blocks(fs, start, i, n, p, err);
		if (rc)
			goto out;
		if (whole)
			crc = nlfs_crc32(crc, p, (size_t)n * bs);
		for (uint32_t j = 0; j < n; j++) {
			size_t at = (size_t)(i + j) * bs;

			if (at >= sumlen)
				break;
			sumcrc = nlfs_crc32(sumcrc, p + (size_t)j * bs,
					    sumlen - at < bs ? sumlen - at : bs);
			if (summary)
				memcpy((uint8_t *)*summary + at, p + (size_t)j * bs, bs);
		}
		i += n;
	}
	log->datasum_checked = whole;
	log->datasum_ok = whole && crc == log->datasum;
	log->sumsum_ok = sumcrc == log->sumsum;
	rc = 0;
out:
	if (rc && summary && *summary) {
		free(*summary);
		*summary = NULL;
	}
	free(big);
	free(buf);
	return rc;
}

int nlfs_super_root_check(const void *block, uint32_t blocksize, uint32_t seed,
			  uint32_t inode_size, uint64_t blocknr, struct nlfs_err *err)
{
	const uint8_t *p = block;
	struct nlfs_super_root hdr;
	uint16_t bytes;

	memcpy(&hdr, p, sizeof(hdr));
	bytes = nlfs_le16(hdr.sr_bytes);
	if (bytes < NLFS_SR_BYTES(inode_size) || bytes > blocksize)
		return nlfs_err_set(err, NLFS_ECORRUPT, blocknr, "super root: sr_bytes %u", bytes);
	if (nlfs_crc32(seed, p + 4, bytes - 4u) != nlfs_le32(hdr.sr_sum))
		return nlfs_err_set(err, NLFS_EBADCRC, blocknr, "super root");
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
	for (unsigned i = 0; i < NLFS_DAT_CACHE; i++) {
		/* blocks of another DAT: these slots are the first reused */
		fs->dat_cache[i].key = UINT64_MAX;
		fs->dat_cache[i].used = 0;
	}
	fs->cursor_known = false;
	if (!fs->sr && !(fs->sr = malloc(bs)))
		return -ENOMEM;
	rc = nlfs_io_read(fs->io, fs->sr, bs, blk * bs);
	if (rc)
		return nlfs_err_set(err, rc, blk, "%s: reading super root", nlfs_io_name(fs->io));
	rc = nlfs_super_root_check(fs->sr, bs, fs->crc_seed, fs->geo.inode_size, blk, err);
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
	for (unsigned i = 0; i < NLFS_DAT_CACHE; i++)
		fs->dat_cache[i].key = UINT64_MAX;
	rc = nlfs_sb_read_both(io, fs->sb, &fs->choice, err);
	if (!rc)
		rc = nlfs_io_size(io, &devsize);
	if (rc) {
		free(fs);
		return rc;
	}
	geometry_from_sb(&fs->geo, &fs->sb[fs->choice.used], devsize);
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

void nlfs_fs_close(struct nlfs_fs *fs)
{
	if (!fs)
		return;
	nlfs_io_close(fs->io);
	free(fs->sr);
	for (unsigned i = 0; i < NLFS_DAT_CACHE; i++)
		free(fs->dat_cache[i].data);
	free(fs->rf);
	for (unsigned i = 0; i < NLFS_NODE_CACHE; i++)
		free(fs->node_cache[i].data);
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
