/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * DAT: virtual block number to physical block, and a file's pointer to a
 * disk address.  Its blocks are read as a file's (mdt.c): the one loop of
 * the reader, mdt.c -> bmap.c -> dat.c -> mdt.c, named in mdt.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

/* may a slot get a buffer for DAT block BLKOFF (see dat_last)? */
static bool dat_may_grow(const struct nlfs_fs *fs, uint64_t blkoff)
{
	if (fs->dat_max && fs->dat_nalloc >= fs->dat_max)
		return false;
	if (fs->dat_nalloc < NLFS_DAT_FREE || !fs->dat_last)
		return true;
	if (blkoff >= fs->dat_last_n || !fs->dat_last[blkoff])
		return false;
	return fs->dat_reads - fs->dat_last[blkoff] < (uint32_t)fs->dat_sets * NLFS_DAT_WAYS;
}

static void dat_note_read(struct nlfs_fs *fs, uint64_t blkoff)
{
	if (++fs->dat_reads == 0)
		fs->dat_reads = 1;   /* 0 means never; a wrap only misjudges a few */
	if (blkoff < fs->dat_last_n)
		fs->dat_last[blkoff] = fs->dat_reads;
}

int nlfs_dat_lookup(struct nlfs_fs *fs, uint64_t vblocknr, struct nlfs_datinfo *out,
		    struct nlfs_err *err)
{
	struct nlfs_dat_entry de;
	uint32_t bs = fs->geo.blocksize;
	uint32_t esz = nlfs_le16(fs->sb[fs->choice.used].s_dat_entry_size);
	struct nlfs_file dat;
	struct nlfs_cache_slot *set;
	uint64_t blkoff;
	uint32_t byteoff;
	uint8_t *buf = NULL;
	unsigned slot;
	bool hole;
	int rc;

	if (vblocknr - fs->dat_hot_first < fs->dat_hot_n) {
		buf = fs->dat_hot;
		byteoff = (uint32_t)(vblocknr - fs->dat_hot_first) * esz;
		goto found;
	}
	nlfs_palloc_locate(bs, esz, vblocknr, &blkoff, &byteoff);
	set = fs->dat_cache + (blkoff & (fs->dat_sets - 1)) * NLFS_DAT_WAYS;
	if (nlfs_cache_find(set, NLFS_DAT_WAYS, blkoff, &fs->dat_cache_clock, &slot))
		buf = set[slot].data;
	else if (fs->dat_scratch && fs->dat_scratch_key == blkoff)
		buf = fs->dat_scratch;
	if (!buf) {
		uint64_t *key = &fs->dat_scratch_key;
		bool grow = dat_may_grow(fs, blkoff);

		if (!set[slot].data && !grow) {
			/* the least recently used slot that has a buffer, or none */
			unsigned best = NLFS_DAT_WAYS;

			for (unsigned i = 0; i < NLFS_DAT_WAYS; i++)
				if (set[i].data && (best == NLFS_DAT_WAYS || set[i].used < set[best].used))
					best = i;
			if (best < NLFS_DAT_WAYS) {
				slot = best;
				set[slot].used = fs->dat_cache_clock;
			}
		}
		if (set[slot].data || grow) {
			if (!set[slot].data) {
				if (!(set[slot].data = malloc(bs)))
					return -ENOMEM;
				fs->dat_nalloc++;
			}
			buf = set[slot].data;
			key = &set[slot].key;
		} else {
			if (!fs->dat_scratch && !(fs->dat_scratch = malloc(bs)))
				return -ENOMEM;
			buf = fs->dat_scratch;
		}
		fs->dat_hot_n = 0;   /* its buffer may be the one read into */
		dat_note_read(fs, blkoff);
		nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
		*key = UINT64_MAX;
		rc = nlfs_file_read_block(fs, &dat, blkoff, buf, &hole, err);
		if (rc)
			return rc;
		if (hole)
			return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
					    "virtual block %llu: its DAT block %llu is a hole",
					    (unsigned long long)vblocknr, (unsigned long long)blkoff);
		*key = blkoff;
	}
	/* the block's entries, where they are all of one group (a group's
	 * last block may hold fewer than a block's worth) */
	{
		uint64_t first = vblocknr - byteoff / esz, epg = (uint64_t)bs * 8;
		uint64_t left = epg - first % epg;

		fs->dat_hot = buf;
		fs->dat_hot_first = first;
		fs->dat_hot_n = (uint32_t)(left < bs / esz ? left : bs / esz);
	}
found:
	memcpy(&de, buf + byteoff, sizeof(de));
	out->blocknr = nlfs_le64(de.de_blocknr);
	out->start = nlfs_le64(de.de_start);
	out->end = nlfs_le64(de.de_end);
	return 0;
}

int nlfs_dat_translate(struct nlfs_fs *fs, uint64_t vblocknr, uint64_t *blocknr,
		       struct nlfs_err *err)
{
	struct nlfs_datinfo de;
	int rc;

	if (fs->known && fs->known(fs->known_arg, vblocknr, blocknr))
		return 0;
	rc = nlfs_dat_lookup(fs, vblocknr, &de, err);
	if (rc)
		return rc;
	if (de.blocknr == 0)
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				    "virtual block %llu has no disk address in the DAT",
				    (unsigned long long)vblocknr);
	*blocknr = de.blocknr;
	return 0;
}

void nlfs_dat_prefetch(struct nlfs_fs *fs, const uint64_t *vblocknrs, size_t n)
{
	uint32_t bs = fs->geo.blocksize;
	uint32_t esz = nlfs_le16(fs->sb[fs->choice.used].s_dat_entry_size);
	uint64_t last = UINT64_MAX, blkoff, ptr;
	struct nlfs_file dat;
	uint32_t byteoff;

	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	for (size_t i = 0; i < n; i++) {
		nlfs_palloc_locate(bs, esz, vblocknrs[i], &blkoff, &byteoff);
		if (blkoff == last)
			continue;
		last = blkoff;
		/* the DAT maps itself physically: its pointer is the address */
		if (!nlfs_bmap_lookup(fs, &dat, blkoff, &ptr, NULL) && ptr)
			nlfs_io_prefetch(fs->io, ptr * bs, bs);
	}
}

int nlfs_file_block_addr(struct nlfs_fs *fs, const struct nlfs_file *f, uint64_t ptr,
			 uint64_t *blocknr, struct nlfs_err *err)
{
	const struct nlfs_geometry *g = &fs->geo;
	int rc;

	*blocknr = 0;
	if (ptr == 0)
		return 0;
	if (f->ino == NLFS_DAT_INO) {
		*blocknr = ptr;   /* the DAT maps itself physically */
	} else {
		rc = nlfs_dat_translate(fs, ptr, blocknr, err);
		if (rc) {
			if (err && err->ino == NLFS_NOWHERE)
				err->ino = f->ino;
			return rc;
		}
	}
	if (*blocknr < g->first_data_block || *blocknr / g->blocks_per_segment >= g->nsegments) {
		rc = nlfs_err_set(err, NLFS_ECORRUPT, *blocknr,
				  "block address outside the segments (pointer %llu)",
				  (unsigned long long)ptr);
		if (err)
			err->ino = f->ino;
		return rc;
	}
	return 0;
}
