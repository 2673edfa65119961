/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Segment summaries: header decoding and the finfo/binfo walk. */
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>

int nlfs_summary_decode(const void *block, uint32_t blocksize, uint64_t start,
			struct nlfs_log *log, struct nlfs_err *err)
{
	struct nlfs_segment_summary ss;

	memcpy(&ss, block, sizeof(ss));
	memset(log, 0, sizeof(*log));
	log->start = start;
	if (nlfs_le32(ss.ss_magic) != NLFS_SEGSUM_MAGIC)
		return nlfs_err_set(err, NLFS_EBADMAGIC, start, "segment summary");
	log->seq = nlfs_le64(ss.ss_seq);
	log->create = nlfs_le64(ss.ss_create);
	log->next = nlfs_le64(ss.ss_next);
	log->cno = nlfs_le64(ss.ss_cno);
	log->nblocks = nlfs_le32(ss.ss_nblocks);
	log->nfinfo = nlfs_le32(ss.ss_nfinfo);
	log->sumbytes = nlfs_le32(ss.ss_sumbytes);
	log->flags = nlfs_le16(ss.ss_flags);
	log->datasum = nlfs_le32(ss.ss_datasum);
	log->sumsum = nlfs_le32(ss.ss_sumsum);
	if (nlfs_le16(ss.ss_bytes) < sizeof(ss) || nlfs_le16(ss.ss_bytes) > blocksize)
		return nlfs_err_set(err, NLFS_ECORRUPT, start,
				    "segment summary: ss_bytes %u", nlfs_le16(ss.ss_bytes));
	if (log->sumbytes < nlfs_le16(ss.ss_bytes) ||
	    (uint64_t)log->sumbytes > (uint64_t)log->nblocks * blocksize)
		return nlfs_err_set(err, NLFS_ECORRUPT, start,
				    "segment summary: ss_sumbytes %u for %u blocks",
				    log->sumbytes, log->nblocks);
	if (log->nblocks == 0)
		return nlfs_err_set(err, NLFS_ECORRUPT, start, "segment summary: ss_nblocks 0");
	return 0;
}

uint32_t nlfs_summary_blocks(const struct nlfs_log *log, uint32_t blocksize)
{
	return (log->sumbytes + blocksize - 1) / blocksize;
}

/* Size of one binfo: DAT data blocks carry only blkoff, other nodes only vblocknr. */
static size_t binfo_size(uint64_t ino, bool is_data)
{
	if (ino == NLFS_DAT_INO)
		return is_data ? sizeof(uint64_t) : sizeof(struct nlfs_binfo_dat);
	return is_data ? sizeof(struct nlfs_binfo_v) : sizeof(uint64_t);
}

/* Records never straddle a block: skip to the next block when one would. */
static bool take_record(size_t *off, size_t len, uint32_t blocksize, uint32_t sumbytes)
{
	size_t in_block = *off % blocksize;

	if (in_block + len > blocksize)
		*off += blocksize - in_block;
	return *off + len <= sumbytes;
}

int nlfs_summary_walk(const struct nlfs_log *log, const void *summary,
		      uint32_t blocksize, nlfs_finfo_cb cb, void *arg,
		      struct nlfs_err *err)
{
	const uint8_t *p = summary;
	struct nlfs_segment_summary ss;
	size_t off;
	uint64_t block = log->start + nlfs_summary_blocks(log, blocksize);
	uint64_t log_end = log->start + log->nblocks;

	memcpy(&ss, summary, sizeof(ss));
	off = nlfs_le16(ss.ss_bytes);
	for (uint32_t i = 0; i < log->nfinfo; i++) {
		struct nlfs_finfo fi;
		struct nlfs_finfo_rec fr;

		if (!take_record(&off, sizeof(fi), blocksize, log->sumbytes))
			return nlfs_err_set(err, NLFS_ECORRUPT, log->start,
					    "segment summary: finfo %u of %u past ss_sumbytes",
					    i, log->nfinfo);
		memcpy(&fi, p + off, sizeof(fi));
		off += sizeof(fi);
		fr.ino = nlfs_le64(fi.fi_ino);
		fr.cno = nlfs_le64(fi.fi_cno);
		fr.nblocks = nlfs_le32(fi.fi_nblocks);
		fr.ndatablk = nlfs_le32(fi.fi_ndatablk);
		fr.first_block = block;
		if (fr.ndatablk > fr.nblocks || fr.nblocks > log_end - block)
			return nlfs_err_set(err, NLFS_ECORRUPT, log->start,
					    "segment summary: inode %llu claims %u blocks (%u data), %llu left in the log",
					    (unsigned long long)fr.ino, fr.nblocks, fr.ndatablk,
					    (unsigned long long)(log_end - block));
		for (uint32_t j = 0; j < fr.nblocks; j++) {
			struct nlfs_binfo_rec br = { .index = j, .is_data = j < fr.ndatablk,
						     .block = block + j };
			size_t len = binfo_size(fr.ino, br.is_data);
			nlfs_le64_t a, b = 0;

			if (!take_record(&off, len, blocksize, log->sumbytes))
				return nlfs_err_set(err, NLFS_ECORRUPT, log->start,
						    "segment summary: binfo %u of inode %llu past ss_sumbytes",
						    j, (unsigned long long)fr.ino);
			memcpy(&a, p + off, sizeof(a));
			if (len > sizeof(a))
				memcpy(&b, p + off + sizeof(a), sizeof(b));
			off += len;
			if (fr.ino == NLFS_DAT_INO) {
				br.blkoff = nlfs_le64(a);
				br.level = br.is_data ? 0 : (uint8_t)(nlfs_le64(b) & 0xFF);
			} else {
				br.vblocknr = nlfs_le64(a);
				br.blkoff = br.is_data ? nlfs_le64(b) : 0;
			}
			if (cb) {
				int rc = cb(&fr, &br, arg);

				if (rc)
					return rc;
			}
		}
		if (fr.nblocks == 0 && cb) {
			int rc = cb(&fr, NULL, arg);

			if (rc)
				return rc;
		}
		block += fr.nblocks;
	}
	return 0;
}
