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

int nlfs_dat_lookup(struct nlfs_fs *fs, uint64_t vblocknr, struct nlfs_dat_entry *out,
		    struct nlfs_err *err)
{
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

	nlfs_palloc_locate(bs, esz, vblocknr, &blkoff, &byteoff);
	set = fs->dat_cache + (blkoff & (fs->dat_sets - 1)) * NLFS_DAT_WAYS;
	if (nlfs_cache_find(set, NLFS_DAT_WAYS, blkoff, &fs->dat_cache_clock, &slot))
		buf = set[slot].data;
	if (!buf) {
		if (!set[slot].data && !(set[slot].data = malloc(bs)))
			return -ENOMEM;
		buf = set[slot].data;
		nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
		set[slot].key = UINT64_MAX;
		rc = nlfs_file_read_block(fs, &dat, blkoff, buf, &hole, err);
		if (rc)
			return rc;
		if (hole)
			return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
					    "virtual block %llu: its DAT block %llu is a hole",
					    (unsigned long long)vblocknr, (unsigned long long)blkoff);
		set[slot].key = blkoff;
	}
	memcpy(out, buf + byteoff, sizeof(*out));
	out->de_blocknr = nlfs_le64(out->de_blocknr);
	out->de_start = nlfs_le64(out->de_start);
	out->de_end = nlfs_le64(out->de_end);
	out->de_rsv = nlfs_le64(out->de_rsv);
	return 0;
}

int nlfs_dat_translate(struct nlfs_fs *fs, uint64_t vblocknr, uint64_t *blocknr,
		       struct nlfs_err *err)
{
	struct nlfs_dat_entry de;
	int rc = nlfs_dat_lookup(fs, vblocknr, &de, err);

	if (rc)
		return rc;
	if (de.de_blocknr == 0)
		return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				    "virtual block %llu has no disk address in the DAT",
				    (unsigned long long)vblocknr);
	*blocknr = de.de_blocknr;
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
