/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The superblock of a new volume, with the geometry rules of
 * nilfs-utils' mkfs.nilfs2 so that the same options give the same layout:
 * segments start after the first 4 KiB, end before the secondary
 * superblock, and at least the reserved segments plus eight user segments
 * must fit.
 */
#include <errno.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/writer.h>

#define DISK_HEADER_BYTES   4096u   /* boot area and primary superblock */
#define MIN_USER_SEGMENTS   8u
#define SB_BYTES            0x118u  /* fields through s_feature_incompat */
#define DEF_MAX_MNT_COUNT   50u
#define DEF_CHECK_INTERVAL  (60u * 60u * 24u * 180u)

static bool power_of_two(uint64_t v)
{
	return v && !(v & (v - 1));
}

int nlfs_mkfs_superblock(const struct nlfs_mkfs_params *p, struct nlfs_super_block *sb,
			 uint64_t *min_bytes, struct nlfs_err *err)
{
	uint32_t bs = p->blocksize, bps = p->blocks_per_segment, logbs = 0;
	uint64_t first, nsegs, rsv, min_segs;

	if (!power_of_two(bs) || bs < NLFS_MIN_BLOCK_SIZE ||
	    bs > (NLFS_MIN_BLOCK_SIZE << NLFS_MAX_LOG_BLOCK_SIZE))
		return nlfs_err_set(err, EINVAL, NLFS_NOWHERE,
				    "invalid block size %u: a power of two from 1024 to 65536", bs);
	while ((NLFS_MIN_BLOCK_SIZE << logbs) < bs)
		logbs++;
	first = (DISK_HEADER_BYTES + bs - 1) / bs;
	if (bps < NLFS_MIN_BLOCKS_PER_SEG || bps < first + 2 || !power_of_two(bps))
		return nlfs_err_set(err, EINVAL, NLFS_NOWHERE,
				    "invalid blocks per segment %u: a power of two, at least %u",
				    bps, (unsigned)(first + 2 > NLFS_MIN_BLOCKS_PER_SEG ?
						    first + 2 : NLFS_MIN_BLOCKS_PER_SEG));
	if (p->r_segments_percentage < 1 || p->r_segments_percentage > 99)
		return nlfs_err_set(err, EINVAL, NLFS_NOWHERE,
				    "invalid reserved segments percentage %u: 1 to 99",
				    p->r_segments_percentage);
	if (p->feature_compat_ro & ~(uint64_t)NLFS_FEATURE_COMPAT_RO_SUPP)
		return nlfs_err_set(err, EINVAL, NLFS_NOWHERE, "unsupported feature bits");
	nsegs = nlfs_nsegments_for(p->devsize, bs, bps);
	rsv = nlfs_nrsvsegs(p->r_segments_percentage, nsegs);
	min_segs = rsv + MIN_USER_SEGMENTS;
	if (nsegs < min_segs) {
		/* room for the segments plus the 4 KiB that hold the secondary superblock */
		uint64_t need = min_segs * bps * (uint64_t)bs + 8192;

		if (min_bytes)
			*min_bytes = need;
		return nlfs_err_set(err, ENOSPC, NLFS_NOWHERE,
				    "device too small: %llu bytes, %llu needed for %llu segments "
				    "of %llu bytes",
				    (unsigned long long)p->devsize, (unsigned long long)need,
				    (unsigned long long)min_segs,
				    (unsigned long long)bps * bs);
	}
	memset(sb, 0, sizeof(*sb));
	sb->s_rev_level = nlfs_cpu_to_le32(NLFS_CURRENT_REV);
	sb->s_magic = nlfs_cpu_to_le16(NLFS_SB_MAGIC);
	sb->s_bytes = nlfs_cpu_to_le16(SB_BYTES);
	/* one seed for every checksum; derived from the UUID so -U makes images repeatable */
	sb->s_crc_seed = nlfs_cpu_to_le32(nlfs_crc32(0, p->uuid, sizeof(p->uuid)));
	sb->s_log_block_size = nlfs_cpu_to_le32(logbs);
	sb->s_nsegments = nlfs_cpu_to_le64(nsegs);
	sb->s_dev_size = nlfs_cpu_to_le64(p->devsize);
	sb->s_first_data_block = nlfs_cpu_to_le64(first);
	sb->s_blocks_per_segment = nlfs_cpu_to_le32(bps);
	sb->s_r_segments_percentage = nlfs_cpu_to_le32(p->r_segments_percentage);
	sb->s_ctime = nlfs_cpu_to_le64(p->ctime);
	sb->s_wtime = nlfs_cpu_to_le64(p->ctime);
	sb->s_max_mnt_count = nlfs_cpu_to_le16(DEF_MAX_MNT_COUNT);
	sb->s_state = nlfs_cpu_to_le16(NLFS_STATE_VALID_FS);
	sb->s_errors = nlfs_cpu_to_le16(1);
	sb->s_lastcheck = nlfs_cpu_to_le64(p->ctime);
	sb->s_checkinterval = nlfs_cpu_to_le32(DEF_CHECK_INTERVAL);
	sb->s_first_ino = nlfs_cpu_to_le32(NLFS_FIRST_INO_MIN);
	sb->s_inode_size = nlfs_cpu_to_le16(sizeof(struct nlfs_inode));
	sb->s_dat_entry_size = nlfs_cpu_to_le16(sizeof(struct nlfs_dat_entry));
	sb->s_checkpoint_size = nlfs_cpu_to_le16(sizeof(struct nlfs_checkpoint));
	sb->s_segment_usage_size = nlfs_cpu_to_le16(sizeof(struct nlfs_segment_usage));
	memcpy(sb->s_uuid, p->uuid, sizeof(sb->s_uuid));
	memcpy(sb->s_volume_name, p->label, sizeof(sb->s_volume_name));
	sb->s_feature_compat_ro = nlfs_cpu_to_le64(p->feature_compat_ro);
	nlfs_sb_update_crc(sb);
	return 0;
}
