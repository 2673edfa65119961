/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * NILFS2 revision 2 on-disk structures.  All integers are little-endian,
 * of the types of <nlfs/endian.h>: read them with nlfs_le16/32/64(), write
 * them with nlfs_cpu_to_le16/32/64().  Field names follow
 * the kernel's so they grep against fs/nilfs2 and nilfs2-format.md.
 */
#ifndef NLFS_ONDISK_H
#define NLFS_ONDISK_H

#include <stddef.h>
#include <stdint.h>

#include <nlfs/endian.h>

#define NLFS_SB_MAGIC            0x3434u
#define NLFS_SEGSUM_MAGIC        0x1EAFFA11u
#define NLFS_SB_OFFSET_BYTES     1024u
#define NLFS_SB_SIZE             1024u
#define NLFS_SB_MIN_BYTES        20u
#define NLFS_CURRENT_REV         2u
#define NLFS_MIN_BLOCK_SIZE      1024u
#define NLFS_MAX_LOG_BLOCK_SIZE  6u
#define NLFS_MIN_BLOCKS_PER_SEG  16u
#define NLFS_MIN_INODE_SIZE      128u
#define NLFS_MIN_DAT_ENTRY_SIZE  32u
#define NLFS_MIN_CHECKPOINT_SIZE 192u
#define NLFS_MIN_SEGUSAGE_SIZE   16u
#define NLFS_MIN_NRSVSEGS        8u
#define NLFS_FIRST_INO_MIN       11u
#define NLFS_CNO_MAX             UINT64_MAX
#define NLFS_INODE_BMAP_SIZE     7
#define NLFS_VOLUME_NAME_LEN     80

/* s_state */
#define NLFS_STATE_VALID_FS  0x0001u
#define NLFS_STATE_ERROR_FS  0x0002u
#define NLFS_STATE_RESIZE_FS 0x0004u

/* s_feature_compat_ro */
#define NLFS_FEATURE_COMPAT_RO_BLOCK_COUNT 0x1ull
#define NLFS_FEATURE_COMPAT_SUPP    0ull
#define NLFS_FEATURE_COMPAT_RO_SUPP NLFS_FEATURE_COMPAT_RO_BLOCK_COUNT
#define NLFS_FEATURE_INCOMPAT_SUPP  0ull

/* ss_flags */
#define NLFS_SS_LOGBGN 0x0001u
#define NLFS_SS_LOGEND 0x0002u
#define NLFS_SS_SR     0x0004u
#define NLFS_SS_SYNDT  0x0008u
#define NLFS_SS_GC     0x0010u

/* reserved inode numbers */
#define NLFS_ROOT_INO   2u
#define NLFS_DAT_INO    3u
#define NLFS_CPFILE_INO 4u
#define NLFS_SUFILE_INO 5u
#define NLFS_IFILE_INO  6u
#define NLFS_SKETCH_INO 10u

struct nlfs_super_block {
	nlfs_le32_t s_rev_level;
	nlfs_le16_t s_minor_rev_level;
	nlfs_le16_t s_magic;
	nlfs_le16_t s_bytes;
	nlfs_le16_t s_flags;
	nlfs_le32_t s_crc_seed;
	nlfs_le32_t s_sum;
	nlfs_le32_t s_log_block_size;
	nlfs_le64_t s_nsegments;
	nlfs_le64_t s_dev_size;
	nlfs_le64_t s_first_data_block;
	nlfs_le32_t s_blocks_per_segment;
	nlfs_le32_t s_r_segments_percentage;
	nlfs_le64_t s_last_cno;
	nlfs_le64_t s_last_pseg;
	nlfs_le64_t s_last_seq;
	nlfs_le64_t s_free_blocks_count;
	nlfs_le64_t s_ctime;
	nlfs_le64_t s_mtime;
	nlfs_le64_t s_wtime;
	nlfs_le16_t s_mnt_count;
	nlfs_le16_t s_max_mnt_count;
	nlfs_le16_t s_state;
	nlfs_le16_t s_errors;
	nlfs_le64_t s_lastcheck;
	nlfs_le32_t s_checkinterval;
	nlfs_le32_t s_creator_os;
	nlfs_le16_t s_def_resuid;
	nlfs_le16_t s_def_resgid;
	nlfs_le32_t s_first_ino;
	nlfs_le16_t s_inode_size;
	nlfs_le16_t s_dat_entry_size;
	nlfs_le16_t s_checkpoint_size;
	nlfs_le16_t s_segment_usage_size;
	uint8_t  s_uuid[16];
	char     s_volume_name[NLFS_VOLUME_NAME_LEN];
	nlfs_le32_t s_c_interval;
	nlfs_le32_t s_c_block_max;
	nlfs_le64_t s_feature_compat;
	nlfs_le64_t s_feature_compat_ro;
	nlfs_le64_t s_feature_incompat;
	nlfs_le32_t s_reserved[186];
};

/* i_mode's file type: the bits and values of Linux's S_IF* (the kernel
 * stores its mode as is); one definition for every reader and writer */
#define NLFS_S_IFMT   0170000
#define NLFS_S_IFSOCK 0140000
#define NLFS_S_IFLNK  0120000
#define NLFS_S_IFREG  0100000
#define NLFS_S_IFBLK  0060000
#define NLFS_S_IFDIR  0040000
#define NLFS_S_IFCHR  0020000
#define NLFS_S_IFIFO  0010000
/* The largest i_size a file may have: the kernel's s_maxbytes on a 64-bit
 * host (MAX_LFS_FILESIZE; the map's 64-bit block keys reach further).  A
 * larger one is a negative loff_t to the kernel. */
#define NLFS_MAX_FILE_SIZE ((uint64_t)INT64_MAX)
/* a directory entry's file_type for a directory (nlfs_file_type_of_mode) */
#define NLFS_FT_DIR   2

struct nlfs_inode {
	nlfs_le64_t i_blocks;
	nlfs_le64_t i_size;
	nlfs_le64_t i_ctime;
	nlfs_le64_t i_mtime;
	nlfs_le32_t i_ctime_nsec;
	nlfs_le32_t i_mtime_nsec;
	nlfs_le32_t i_uid;
	nlfs_le32_t i_gid;
	nlfs_le16_t i_mode;
	nlfs_le16_t i_links_count;
	nlfs_le32_t i_flags;
	nlfs_le64_t i_bmap[NLFS_INODE_BMAP_SIZE];
	nlfs_le64_t i_xattr;
	nlfs_le32_t i_generation;
	nlfs_le32_t i_pad;
};

struct nlfs_super_root {
	nlfs_le32_t sr_sum;
	nlfs_le16_t sr_bytes;
	nlfs_le16_t sr_flags;
	nlfs_le64_t sr_nongc_ctime;
	/* followed by the DAT, cpfile and sufile inodes, s_inode_size apart */
};
#define NLFS_SR_INODES_OFFSET 16u
#define NLFS_SR_BYTES(inode_size) (NLFS_SR_INODES_OFFSET + 3u * (inode_size))

struct nlfs_segment_summary {
	nlfs_le32_t ss_datasum;
	nlfs_le32_t ss_sumsum;
	nlfs_le32_t ss_magic;
	nlfs_le16_t ss_bytes;
	nlfs_le16_t ss_flags;
	nlfs_le64_t ss_seq;
	nlfs_le64_t ss_create;
	nlfs_le64_t ss_next;
	nlfs_le32_t ss_nblocks;
	nlfs_le32_t ss_nfinfo;
	nlfs_le32_t ss_sumbytes;
	nlfs_le32_t ss_pad;
	nlfs_le64_t ss_cno;
};

struct nlfs_finfo {
	nlfs_le64_t fi_ino;
	nlfs_le64_t fi_cno;
	nlfs_le32_t fi_nblocks;
	nlfs_le32_t fi_ndatablk;
};

struct nlfs_binfo_v {
	nlfs_le64_t bi_vblocknr;
	nlfs_le64_t bi_blkoff;
};

struct nlfs_binfo_dat {
	nlfs_le64_t bi_blkoff;
	uint8_t  bi_level;
	uint8_t  bi_pad[7];
};

/* The layout is fixed by the kernel: pin sizes and the offsets readers rely on. */
_Static_assert(sizeof(struct nlfs_super_block) == 1024, "superblock size");
_Static_assert(offsetof(struct nlfs_super_block, s_sum) == 0x10, "s_sum");
_Static_assert(offsetof(struct nlfs_super_block, s_last_cno) == 0x38, "s_last_cno");
_Static_assert(offsetof(struct nlfs_super_block, s_mnt_count) == 0x70, "s_mnt_count");
_Static_assert(offsetof(struct nlfs_super_block, s_inode_size) == 0x90, "s_inode_size");
_Static_assert(offsetof(struct nlfs_super_block, s_uuid) == 0x98, "s_uuid");
_Static_assert(offsetof(struct nlfs_super_block, s_volume_name) == 0xA8, "s_volume_name");
_Static_assert(offsetof(struct nlfs_super_block, s_c_interval) == 0xF8, "s_c_interval");
_Static_assert(offsetof(struct nlfs_super_block, s_reserved) == 0x118, "s_reserved");
_Static_assert(sizeof(struct nlfs_inode) == 128, "inode size");
_Static_assert(offsetof(struct nlfs_inode, i_mode) == 0x30, "i_mode");
_Static_assert(offsetof(struct nlfs_inode, i_bmap) == 0x38, "i_bmap");
_Static_assert(offsetof(struct nlfs_inode, i_generation) == 0x78, "i_generation");
_Static_assert(sizeof(struct nlfs_super_root) == NLFS_SR_INODES_OFFSET, "super root header");
_Static_assert(sizeof(struct nlfs_segment_summary) == 64, "summary header");
_Static_assert(offsetof(struct nlfs_segment_summary, ss_next) == 0x20, "ss_next");
_Static_assert(offsetof(struct nlfs_segment_summary, ss_cno) == 0x38, "ss_cno");
_Static_assert(sizeof(struct nlfs_finfo) == 24, "finfo size");
_Static_assert(sizeof(struct nlfs_binfo_v) == 16, "binfo_v size");
_Static_assert(sizeof(struct nlfs_binfo_dat) == 16, "binfo_dat size");

/* bmap (i_bmap) */
#define NLFS_BMAP_LARGE        0x01u   /* B-tree (also the root node flag) */
#define NLFS_DIRECT_NBLOCKS    6u
#define NLFS_BTREE_ROOT_NCHILDREN 3u
#define NLFS_BTREE_LEVEL_DATA  0u
#define NLFS_BTREE_LEVEL_MAX   14u     /* exclusive */
#define NLFS_BTREE_NODE_EXTRA  8u      /* pad after a node block's header */

struct nlfs_btree_node {
	uint8_t  bn_flags;
	uint8_t  bn_level;
	nlfs_le16_t bn_nchildren;
	nlfs_le32_t bn_pad;
};

struct nlfs_dat_entry {
	nlfs_le64_t de_blocknr;
	nlfs_le64_t de_start;
	nlfs_le64_t de_end;
	nlfs_le64_t de_rsv;
};

struct nlfs_cpfile_header {
	nlfs_le64_t ch_ncheckpoints;
	nlfs_le64_t ch_nsnapshots;
	nlfs_le64_t ch_snapshot_next;
	nlfs_le64_t ch_snapshot_prev;
};

#define NLFS_CHECKPOINT_SNAPSHOT 0x1u
#define NLFS_CHECKPOINT_INVALID  0x2u
#define NLFS_CHECKPOINT_SKETCH   0x4u
#define NLFS_CHECKPOINT_MINOR    0x8u

struct nlfs_checkpoint {
	nlfs_le32_t cp_flags;
	nlfs_le32_t cp_checkpoints_count;
	nlfs_le64_t cp_snapshot_next;
	nlfs_le64_t cp_snapshot_prev;
	nlfs_le64_t cp_cno;
	nlfs_le64_t cp_create;
	nlfs_le64_t cp_nblk_inc;
	nlfs_le64_t cp_inodes_count;
	nlfs_le64_t cp_blocks_count;
	struct nlfs_inode cp_ifile_inode;
};

struct nlfs_sufile_header {
	nlfs_le64_t sh_ncleansegs;
	nlfs_le64_t sh_ndirtysegs;
	nlfs_le64_t sh_last_alloc;
};

#define NLFS_SEGMENT_USAGE_ACTIVE 0x1u
#define NLFS_SEGMENT_USAGE_DIRTY  0x2u
#define NLFS_SEGMENT_USAGE_ERROR  0x4u

struct nlfs_segment_usage {
	nlfs_le64_t su_lastmod;
	nlfs_le32_t su_nblocks;
	nlfs_le32_t su_flags;
};

struct nlfs_dir_entry {
	nlfs_le64_t inode;
	nlfs_le16_t rec_len;
	uint8_t  name_len;
	uint8_t  file_type;
	/* name follows */
};
#define NLFS_DIR_ENTRY_HEADER 12u
#define NLFS_NAME_LEN 255u
#define NLFS_DIR_REC_LEN(n) (((n) + NLFS_DIR_ENTRY_HEADER + 7u) & ~7u)

_Static_assert(sizeof(struct nlfs_btree_node) == 8, "btree node header");
_Static_assert(sizeof(struct nlfs_dat_entry) == 32, "DAT entry");
_Static_assert(sizeof(struct nlfs_cpfile_header) == 32, "cpfile header");
_Static_assert(sizeof(struct nlfs_checkpoint) == 192, "checkpoint");
_Static_assert(offsetof(struct nlfs_checkpoint, cp_ifile_inode) == 64, "cp_ifile_inode");
_Static_assert(sizeof(struct nlfs_sufile_header) == 24, "sufile header");
_Static_assert(sizeof(struct nlfs_segment_usage) == 16, "segment usage");
_Static_assert(offsetof(struct nlfs_dir_entry, name_len) == 10, "name_len");

#endif /* NLFS_ONDISK_H */
