/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * problem.h - every problem the checker can report, in one table.
 *
 * Each entry: code, severity, pass, and a description used in --json and
 * in the man page.  The message printed is built by the caller, so it can
 * name the structure, block, inode, path and checkpoint involved.
 * ERROR problems make the exit status 4; WARNING problems are printed but
 * do not change it; INFO lines are notes (some shown only with -v).
 */
#ifndef FSCK_PROBLEM_H
#define FSCK_PROBLEM_H

enum fsck_severity { SEV_ERROR, SEV_WARNING, SEV_INFO };

#define FSCK_PROBLEMS(X) \
	/* pass 1: superblocks */ \
	X(PR_SB_READ,        SEV_ERROR,   1, "a superblock copy cannot be read") \
	X(PR_SB_MAGIC,       SEV_ERROR,   1, "a superblock copy has a bad magic number") \
	X(PR_SB_BYTES,       SEV_ERROR,   1, "a superblock copy has s_bytes out of range") \
	X(PR_SB_CRC,         SEV_ERROR,   1, "a superblock copy has a bad checksum") \
	X(PR_SB_REVISION,    SEV_ERROR,   1, "a superblock copy has an unsupported revision") \
	X(PR_SB_GEOMETRY,    SEV_ERROR,   1, "a superblock copy has impossible geometry or sizes") \
	X(PR_SB_DEVSIZE,     SEV_ERROR,   1, "the device is smaller than the superblock says") \
	X(PR_SB_MISMATCH,    SEV_ERROR,   1, "the two superblock copies disagree on a fixed field") \
	X(PR_SB_STATE,       SEV_ERROR,   1, "the superblock records a kernel-detected error") \
	X(PR_SB_STATE_BITS,  SEV_WARNING, 1, "the superblock state has unknown or resize bits") \
	X(PR_SB_FEATURE,     SEV_WARNING, 1, "the superblock has unknown feature bits") \
	X(PR_SB_CURSOR,      SEV_ERROR,   1, "the superblock's log cursor does not lead to a valid super root") \
	X(PR_SB_OTHER_CURSOR, SEV_WARNING, 1, "the other superblock copy's cursor is not usable for fallback") \
	X(PR_SB_NEWER_LOGS,  SEV_WARNING, 1, "valid logs follow the cursor of a cleanly unmounted volume") \
	X(PR_SB_FREE,        SEV_INFO,    1, "s_free_blocks_count differs from the clean segments") \
	X(PR_SB_UNCLEAN,     SEV_INFO,    1, "the volume was not cleanly unmounted") \
	X(PR_FS_OPEN,        SEV_ERROR,   1, "the volume cannot be opened as the kernel would mount it") \
	/* pass 2: segment usage; pass 3: logs */ \
	X(PR_SU_FLAGS,       SEV_ERROR,   2, "segment usage flags are impossible") \
	X(PR_SU_NBLOCKS,     SEV_ERROR,   2, "segment usage block count exceeds the segment") \
	X(PR_SU_CLEAN,       SEV_ERROR,   2, "a clean segment has a block count or time") \
	X(PR_SU_ERRSEG,      SEV_WARNING, 2, "a segment is marked as failed (ERROR)") \
	X(PR_SU_NCLEAN,      SEV_ERROR,   2, "sufile header: wrong count of clean segments") \
	X(PR_SU_NDIRTY,      SEV_ERROR,   2, "sufile header: wrong count of dirty segments") \
	X(PR_SU_LAST_ALLOC,  SEV_ERROR,   2, "sufile header: last allocated segment out of range") \
	X(PR_SU_CURRENT,     SEV_ERROR,   2, "the super root's segment is not in use up to that log") \
	X(PR_SU_NEXT,        SEV_ERROR,   2, "the segment the kernel writes next is not allocated") \
	X(PR_SU_SHORT,       SEV_ERROR,   2, "the logs of a segment end before its usage count") \
	X(PR_LOG_HEADER,     SEV_ERROR,   3, "a segment summary header is invalid") \
	X(PR_LOG_OVERRUN,    SEV_ERROR,   3, "a log runs past its segment's usage count") \
	X(PR_LOG_SUMSUM,     SEV_ERROR,   3, "a segment summary checksum (ss_sumsum) is wrong") \
	X(PR_LOG_DATASUM,    SEV_ERROR,   3, "a log data checksum (ss_datasum) is wrong") \
	X(PR_LOG_SEQ,        SEV_ERROR,   3, "a log's sequence number differs from its segment's") \
	X(PR_LOG_NEXT,       SEV_ERROR,   3, "a log's ss_next is inconsistent") \
	X(PR_LOG_FLAGS,      SEV_ERROR,   3, "log flags are inconsistent") \
	X(PR_LOG_CNO,        SEV_ERROR,   3, "log checkpoint numbers go backwards") \
	X(PR_LOG_SR,         SEV_ERROR,   3, "the super root of a log is invalid") \
	X(PR_LOG_FINFO,      SEV_ERROR,   3, "the file records of a summary are inconsistent") \
	X(PR_LOG_BINFO,      SEV_ERROR,   3, "a block record of a summary is invalid") \
	X(PR_LOG_VFREE,      SEV_ERROR,   3, "a summary claims a virtual block the DAT does not allocate") \
	X(PR_LOG_VSTALE,     SEV_ERROR,   3, "a summary claims a virtual block the DAT maps elsewhere") \
	X(PR_SEG_SEQ_DUP,    SEV_ERROR,   3, "two segments carry the same sequence number") \
	X(PR_SEG_CHAIN,      SEV_ERROR,   3, "a segment's ss_next does not name the segment of the next sequence") \
	X(PR_SEG_SEQ_NEWER,  SEV_ERROR,   3, "a segment in use is newer than the latest super root") \
	X(PR_RECOVERY,       SEV_INFO,    3, "logs after the latest super root (roll-forward at mount)") \
	/* pass 2: metadata-file inodes; pass 4: DAT */ \
	X(PR_MDT_INODE,      SEV_ERROR,   2, "a metadata file's inode is invalid") \
	X(PR_MDT_SIZE,       SEV_ERROR,   2, "a palloc file reaches far past what the volume can hold") \
	X(PR_DAT_PTR,        SEV_ERROR,   4, "a DAT block lies outside the segments in use") \
	X(PR_DAT_UNCLAIMED_BLOCK, SEV_ERROR, 4, "a DAT block is not described as one by any summary") \
	X(PR_DAT_DESC,       SEV_ERROR,   4, "a DAT group descriptor's free count disagrees with its bitmap") \
	X(PR_DAT_HOLE,       SEV_ERROR,   4, "allocated DAT entries sit in a missing block") \
	X(PR_DAT_ENTRY0,     SEV_ERROR,   4, "DAT entry 0 is not reserved") \
	X(PR_DAT_RANGE,      SEV_ERROR,   4, "a DAT entry's checkpoint period is impossible") \
	X(PR_DAT_NOADDR,     SEV_ERROR,   4, "an allocated DAT entry has no block address") \
	X(PR_DAT_OUTSIDE,    SEV_ERROR,   4, "a DAT entry points outside the segments in use") \
	X(PR_DAT_UNCLAIMED,  SEV_ERROR,   4, "a DAT entry points to a block no summary claims for it") \
	X(PR_DAT_SHARED,     SEV_ERROR,   4, "two DAT entries (or a DAT block) share a physical block") \
	X(PR_DAT_LEAK,       SEV_ERROR,   4, "a live DAT entry is used by no file of the latest checkpoint") \
	/* pass 5: cpfile */ \
	X(PR_CP_NCHECKPOINTS, SEV_ERROR,  5, "cpfile header: wrong number of checkpoints") \
	X(PR_CP_NSNAPSHOTS,  SEV_ERROR,   5, "cpfile header: wrong number of snapshots") \
	X(PR_CP_SNAPLIST,    SEV_ERROR,   5, "the snapshot list is broken") \
	X(PR_CP_BLKCOUNT,    SEV_ERROR,   5, "a cpfile block's count of valid checkpoints is wrong") \
	X(PR_CP_ENTRY,       SEV_ERROR,   5, "a checkpoint entry is invalid") \
	X(PR_CP_LATEST,      SEV_ERROR,   5, "the latest checkpoint is missing from the cpfile") \
	X(PR_CP_IFILE,       SEV_ERROR,   5, "a checkpoint's ifile inode is invalid") \
	X(PR_CP_NINODES,     SEV_ERROR,   5, "a checkpoint's inode count is wrong") \
	X(PR_CP_NBLOCKS,     SEV_ERROR,   5, "a checkpoint's block count is wrong") \
	/* pass 6: inodes and block maps */ \
	X(PR_IFILE_DESC,     SEV_ERROR,   6, "an ifile group descriptor's free count disagrees with its bitmap") \
	X(PR_IFILE_RESERVED, SEV_ERROR,   6, "a reserved inode is not marked in use") \
	X(PR_IFILE_HOLE,     SEV_ERROR,   6, "inodes in use sit in a missing ifile block") \
	X(PR_BMAP_STRUCT,    SEV_ERROR,   6, "a block map is malformed") \
	X(PR_BMAP_ORDER,     SEV_ERROR,   6, "block map keys are out of order") \
	X(PR_BMAP_DIRECT,    SEV_WARNING,   6, "a direct block map has unknown flag bits") \
	X(PR_BMAP_VBLOCK,    SEV_ERROR,   6, "a block map points to an unallocated virtual block") \
	X(PR_BMAP_PERIOD,    SEV_ERROR,   6, "a block is not alive in the checkpoint that uses it") \
	X(PR_BMAP_SHARED,    SEV_ERROR,   6, "a virtual block is used twice in one checkpoint") \
	X(PR_INO_BLOCKS,     SEV_ERROR,   6, "an inode's i_blocks disagrees with its block map") \
	X(PR_INO_MODE,       SEV_ERROR,   6, "an inode has an invalid file type") \
	X(PR_INO_SIZE,       SEV_ERROR,   6, "an inode's size disagrees with its blocks") \
	X(PR_INO_ORPHAN,     SEV_ERROR,   6, "an inode with no links is still allocated") \
	X(PR_INO_UNATTACHED, SEV_ERROR,   6, "an inode in use is not reachable from the root") \
	X(PR_INO_LINKS,      SEV_ERROR,   6, "an inode's link count is wrong") \
	/* pass 6: directories */ \
	X(PR_DIR_ROOT,       SEV_ERROR,   6, "the root directory is missing or invalid") \
	X(PR_DIR_RECORD,     SEV_ERROR,   6, "a directory record is malformed") \
	X(PR_DIR_HOLE,       SEV_ERROR,   6, "a directory has a missing block") \
	X(PR_DIR_DOT,        SEV_ERROR,   6, "a directory's '.' entry is missing or wrong") \
	X(PR_DIR_DOTDOT,     SEV_ERROR,   6, "a directory's '..' entry is missing or wrong") \
	X(PR_DIR_NAME,       SEV_ERROR,   6, "a directory entry has an invalid name") \
	X(PR_DIR_DUP,        SEV_ERROR,   6, "a directory has two entries of one name") \
	X(PR_DIR_FREE_INODE, SEV_ERROR,   6, "a directory entry names an inode not in use") \
	X(PR_DIR_TYPE,       SEV_ERROR,   6, "a directory entry's file type disagrees with the inode") \
	X(PR_DIR_LINKED,     SEV_ERROR,   6, "a directory is linked from more than one place") \
	/* any pass */ \
	X(PR_IO,             SEV_ERROR,   0, "an I/O or memory error stopped part of the check")

enum fsck_pr {
#define FSCK_PR_ENUM(code, sev, pass, desc) code,
	FSCK_PROBLEMS(FSCK_PR_ENUM)
#undef FSCK_PR_ENUM
	PR_COUNT
};

struct fsck_problem_def {
	const char *name;          /* "PR_SB_CRC" */
	enum fsck_severity severity;
	int pass;
	const char *desc;
};

extern const struct fsck_problem_def fsck_problems[PR_COUNT];

#endif /* FSCK_PROBLEM_H */
