/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Build a minimal valid volume: superblocks plus one super-root log. */
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "testimg.h"

static void put16(uint8_t *p, uint16_t v) { nlfs_put_le16(p, v); }
static void put32(uint8_t *p, uint32_t v) { nlfs_put_le32(p, v); }
static void put64(uint8_t *p, uint64_t v) { nlfs_put_le64(p, v); }

void testimg_reseal_log(struct nlfs_io *io, uint64_t start)
{
	uint8_t *d = nlfs_io_mem_data(io) + start * TESTIMG_BS;
	uint32_t nblocks = nlfs_get_le32(d + 0x28), sumbytes = nlfs_get_le32(d + 0x30);
	uint16_t srbytes;

	if (d[0x0E] & NLFS_SS_SR) {
		uint8_t *sr = d + (nblocks - 1) * TESTIMG_BS;

		srbytes = nlfs_get_le16(sr + 4);
		put32(sr, nlfs_crc32(TESTIMG_SEED, sr + 4, srbytes - 4u));
	}
	put32(d + 4, nlfs_crc32(TESTIMG_SEED, d + 8, sumbytes - 8));
	put32(d, nlfs_crc32(TESTIMG_SEED, d + 4, (size_t)nblocks * TESTIMG_BS - 4));
}

void testimg_reseal_sb(struct nlfs_io *io, uint64_t offset)
{
	nlfs_sb_update_crc((struct nlfs_super_block *)(void *)(nlfs_io_mem_data(io) + offset));
}

struct nlfs_io *testimg_create(void)
{
	struct nlfs_io *io;
	struct nlfs_super_block sb;
	uint8_t *d, *ss, *sr;
	size_t off;

	if (nlfs_io_open_mem(TESTIMG_DEVSIZE, &io))
		abort();
	d = nlfs_io_mem_data(io);
	memset(&sb, 0, sizeof(sb));
	sb.s_rev_level = nlfs_cpu_to_le32(2);
	sb.s_magic = nlfs_cpu_to_le16(NLFS_SB_MAGIC);
	sb.s_bytes = nlfs_cpu_to_le16(offsetof(struct nlfs_super_block, s_reserved));
	sb.s_crc_seed = nlfs_cpu_to_le32(TESTIMG_SEED);
	sb.s_log_block_size = 0;
	sb.s_nsegments = nlfs_cpu_to_le64(TESTIMG_NSEGS);
	sb.s_dev_size = nlfs_cpu_to_le64(TESTIMG_DEVSIZE);
	sb.s_first_data_block = nlfs_cpu_to_le64(TESTIMG_FIRST);
	sb.s_blocks_per_segment = nlfs_cpu_to_le32(TESTIMG_BPS);
	sb.s_r_segments_percentage = nlfs_cpu_to_le32(5);
	sb.s_last_cno = nlfs_cpu_to_le64(1);
	sb.s_last_pseg = nlfs_cpu_to_le64(TESTIMG_LOG);
	sb.s_last_seq = 0;
	sb.s_state = nlfs_cpu_to_le16(NLFS_STATE_VALID_FS);
	sb.s_first_ino = nlfs_cpu_to_le32(11);
	sb.s_inode_size = nlfs_cpu_to_le16(128);
	sb.s_dat_entry_size = nlfs_cpu_to_le16(32);
	sb.s_checkpoint_size = nlfs_cpu_to_le16(192);
	sb.s_segment_usage_size = nlfs_cpu_to_le16(16);
	nlfs_sb_update_crc(&sb);
	memcpy(d + NLFS_SB_OFFSET_BYTES, &sb, sizeof(sb));
	memcpy(d + nlfs_sb2_offset(TESTIMG_DEVSIZE), &sb, sizeof(sb));

	ss = d + TESTIMG_LOG * TESTIMG_BS;
	put32(ss + 0x08, NLFS_SEGSUM_MAGIC);
	put16(ss + 0x0C, 64);
	put16(ss + 0x0E, NLFS_SS_LOGBGN | NLFS_SS_LOGEND | NLFS_SS_SR);
	put64(ss + 0x10, 0);                       /* seq */
	put64(ss + 0x18, 1700000000);              /* create */
	put64(ss + 0x20, TESTIMG_BPS);             /* next: segment 1 */
	put32(ss + 0x28, TESTIMG_NBLOCKS);
	put32(ss + 0x2C, 1);                       /* one finfo */
	put64(ss + 0x38, 1);                       /* cno */
	off = 64;
	put64(ss + off, NLFS_IFILE_INO);           /* finfo */
	put64(ss + off + 8, 1);
	put32(ss + off + 16, 1);
	put32(ss + off + 20, 1);
	off += 24;
	put64(ss + off, 7);                        /* binfo_v: vblocknr, blkoff */
	put64(ss + off + 8, 0);
	off += 16;
	put32(ss + 0x30, (uint32_t)off);           /* sumbytes */
	memset(ss + TESTIMG_BS, 0xAB, TESTIMG_BS); /* the ifile block */
	sr = ss + 2 * TESTIMG_BS;
	put16(sr + 4, (uint16_t)NLFS_SR_BYTES(128));
	put64(sr + 8, 1700000000);
	for (unsigned i = 0; i < 3; i++)
		put16(sr + NLFS_SR_INODES_OFFSET + i * 128 + 0x30, 0100600);
	testimg_reseal_log(io, TESTIMG_LOG);
	return io;
}
