/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * problem.h - every problem the checker can report, in one table.
 *
 * Each entry: code, severity, pass, what a repair may do (FIX_PREEN: -p
 * and -y repair it, nothing a user stored can be lost; FIX_YES: only -y,
 * since the repair changes what the user sees or drops something it names;
 * FIX_NONE: left as found), a description used in --json and in the man
 * page, and what -y does about it.  The message printed is built by the
 * caller, so it can name the structure, block, inode, path and checkpoint
 * involved.  ERROR problems make the exit status 4; WARNING problems are
 * printed but do not change it; INFO lines are notes (some shown only
 * with -v).
 */
#ifndef FSCK_PROBLEM_H
#define FSCK_PROBLEM_H

enum fsck_severity { SEV_ERROR, SEV_WARNING, SEV_INFO };
enum fsck_fix { FIX_NONE, FIX_YES, FIX_PREEN };

#define FSCK_PROBLEMS(X) \
	/* pass 1: superblocks */ \
	X(PR_SB_READ, SEV_ERROR, 1, FIX_PREEN, \
	  "a superblock copy cannot be read", \
	  "both copies rewritten from the one the kernel uses") \
	X(PR_SB_MAGIC, SEV_ERROR, 1, FIX_PREEN, \
	  "a superblock copy has a bad magic number", \
	  "both copies rewritten from the one the kernel uses") \
	X(PR_SB_BYTES, SEV_ERROR, 1, FIX_PREEN, \
	  "a superblock copy has s_bytes out of range", \
	  "both copies rewritten from the one the kernel uses") \
	X(PR_SB_CRC, SEV_ERROR, 1, FIX_PREEN, \
	  "a superblock copy has a bad checksum", \
	  "both copies rewritten from the one the kernel uses") \
	X(PR_SB_REVISION, SEV_ERROR, 1, FIX_PREEN, \
	  "a superblock copy has an unsupported revision", \
	  "both copies rewritten from the one the kernel uses") \
	X(PR_SB_GEOMETRY, SEV_ERROR, 1, FIX_PREEN, \
	  "a superblock copy has impossible geometry or sizes", \
	  "both copies rewritten from the one the kernel uses") \
	X(PR_SB_DEVSIZE, SEV_ERROR, 1, FIX_NONE, \
	  "the device is smaller than the superblock says", \
	  "") \
	/* the kernel would align the other copy at its next superblock write */ \
	X(PR_SB_MISMATCH, SEV_ERROR, 1, FIX_YES, \
	  "the two superblock copies disagree on a fixed field", \
	  "both copies rewritten from the one the kernel uses") \
	X(PR_SB_STATE, SEV_ERROR, 1, FIX_NONE, \
	  "the superblock records a kernel-detected error", \
	  "") \
	X(PR_SB_STATE_BITS, SEV_WARNING, 1, FIX_NONE, \
	  "the superblock state has unknown or resize bits", \
	  "") \
	X(PR_SB_FEATURE, SEV_WARNING, 1, FIX_NONE, \
	  "the superblock has unknown feature bits", \
	  "") \
	X(PR_SB_CURSOR, SEV_ERROR, 1, FIX_PREEN, \
	  "the superblock's log cursor does not lead to a valid super root", \
	  "both copies rewritten from the one the kernel uses") \
	X(PR_SB_OTHER_CURSOR, SEV_WARNING, 1, FIX_NONE, \
	  "the other superblock copy's cursor is not usable for fallback", \
	  "") \
	X(PR_SB_NEWER_LOGS, SEV_WARNING, 1, FIX_NONE, \
	  "valid logs follow the cursor of a cleanly unmounted volume", \
	  "") \
	X(PR_SB_FREE, SEV_INFO, 1, FIX_NONE, \
	  "s_free_blocks_count differs from the clean segments", \
	  "") \
	X(PR_SB_UNCLEAN, SEV_INFO, 1, FIX_NONE, \
	  "the volume was not cleanly unmounted", \
	  "") \
	X(PR_FS_OPEN, SEV_ERROR, 1, FIX_NONE, \
	  "the volume cannot be opened as the kernel would mount it", \
	  "") \
	/* pass 2: segment usage; pass 3: logs */ \
	X(PR_SU_FLAGS, SEV_ERROR, 2, FIX_NONE, \
	  "segment usage flags are impossible", \
	  "") \
	X(PR_SU_NBLOCKS, SEV_ERROR, 2, FIX_NONE, \
	  "segment usage block count exceeds the segment", \
	  "") \
	X(PR_SU_CLEAN, SEV_ERROR, 2, FIX_PREEN, \
	  "a clean segment has a block count or time", \
	  "the clean entry zeroed") \
	X(PR_SU_ERRSEG, SEV_WARNING, 2, FIX_NONE, \
	  "a segment is marked as failed (ERROR)", \
	  "") \
	X(PR_SU_NCLEAN, SEV_ERROR, 2, FIX_PREEN, \
	  "sufile header: wrong count of clean segments", \
	  "recounted from the segment usage entries") \
	X(PR_SU_NDIRTY, SEV_ERROR, 2, FIX_PREEN, \
	  "sufile header: wrong count of dirty segments", \
	  "recounted from the segment usage entries") \
	X(PR_SU_LAST_ALLOC, SEV_ERROR, 2, FIX_PREEN, \
	  "sufile header: last allocated segment out of range", \
	  "reset to a segment in use") \
	X(PR_SU_CURRENT, SEV_ERROR, 2, FIX_NONE, \
	  "the super root's segment is not in use up to that log", \
	  "") \
	X(PR_SU_NEXT, SEV_ERROR, 2, FIX_NONE, \
	  "the segment the kernel writes next is not allocated", \
	  "") \
	/* not repaired on purpose: cutting the count would let a cleaner \
	 * free the segment with whatever live blocks lie past the break */ \
	X(PR_SU_SHORT, SEV_ERROR, 2, FIX_NONE, \
	  "the logs of a segment end before its usage count", \
	  "") \
	X(PR_LOG_HEADER, SEV_ERROR, 3, FIX_NONE, \
	  "a segment summary header is invalid", \
	  "") \
	X(PR_LOG_OVERRUN, SEV_ERROR, 3, FIX_NONE, \
	  "a log runs past its segment's usage count", \
	  "") \
	X(PR_LOG_SUMSUM, SEV_ERROR, 3, FIX_NONE, \
	  "a segment summary checksum (ss_sumsum) is wrong", \
	  "") \
	X(PR_LOG_DATASUM, SEV_ERROR, 3, FIX_NONE, \
	  "a log data checksum (ss_datasum) is wrong", \
	  "") \
	X(PR_LOG_SEQ, SEV_ERROR, 3, FIX_NONE, \
	  "a log's sequence number differs from its segment's", \
	  "") \
	X(PR_LOG_NEXT, SEV_ERROR, 3, FIX_NONE, \
	  "a log's ss_next is inconsistent", \
	  "") \
	X(PR_LOG_FLAGS, SEV_ERROR, 3, FIX_NONE, \
	  "log flags are inconsistent", \
	  "") \
	X(PR_LOG_CNO, SEV_ERROR, 3, FIX_NONE, \
	  "log checkpoint numbers go backwards", \
	  "") \
	X(PR_LOG_SR, SEV_ERROR, 3, FIX_NONE, \
	  "the super root of a log is invalid", \
	  "") \
	X(PR_LOG_FINFO, SEV_ERROR, 3, FIX_NONE, \
	  "the file records of a summary are inconsistent", \
	  "") \
	X(PR_LOG_BINFO, SEV_ERROR, 3, FIX_NONE, \
	  "a block record of a summary is invalid", \
	  "") \
	X(PR_LOG_VFREE, SEV_ERROR, 3, FIX_NONE, \
	  "a summary claims a virtual block the DAT does not allocate", \
	  "") \
	X(PR_LOG_VSTALE, SEV_ERROR, 3, FIX_NONE, \
	  "a summary claims a virtual block the DAT maps elsewhere", \
	  "") \
	X(PR_SEG_SEQ_DUP, SEV_ERROR, 3, FIX_NONE, \
	  "two segments carry the same sequence number", \
	  "") \
	X(PR_SEG_CHAIN, SEV_ERROR, 3, FIX_NONE, \
	  "a segment's ss_next does not name the segment of the next sequence", \
	  "") \
	X(PR_SEG_SEQ_NEWER, SEV_ERROR, 3, FIX_NONE, \
	  "a segment in use is newer than the latest super root", \
	  "") \
	X(PR_RECOVERY, SEV_INFO, 3, FIX_PREEN, \
	  "logs after the latest super root (roll-forward at mount)", \
	  "the kernel's roll-forward done offline") \
	/* pass 2: metadata-file inodes; pass 4: DAT */ \
	X(PR_MDT_INODE, SEV_ERROR, 2, FIX_NONE, \
	  "a metadata file's inode is invalid", \
	  "") \
	X(PR_MDT_SIZE, SEV_ERROR, 2, FIX_NONE, \
	  "a palloc file reaches far past what the volume can hold", \
	  "") \
	X(PR_DAT_PTR, SEV_ERROR, 4, FIX_NONE, \
	  "a DAT block lies outside the segments in use", \
	  "") \
	X(PR_DAT_UNCLAIMED_BLOCK, SEV_ERROR, 4, FIX_NONE, \
	  "a DAT block is not described as one by any summary", \
	  "") \
	X(PR_DAT_DESC, SEV_ERROR, 4, FIX_PREEN, \
	  "a DAT group descriptor's free count disagrees with its bitmap", \
	  "recounted from the bitmap") \
	X(PR_DAT_HOLE, SEV_ERROR, 4, FIX_NONE, \
	  "allocated DAT entries sit in a missing block", \
	  "") \
	X(PR_DAT_ENTRY0, SEV_ERROR, 4, FIX_NONE, \
	  "DAT entry 0 is not reserved", \
	  "") \
	X(PR_DAT_RANGE, SEV_ERROR, 4, FIX_NONE, \
	  "a DAT entry's checkpoint period is impossible", \
	  "") \
	X(PR_DAT_NOADDR, SEV_ERROR, 4, FIX_NONE, \
	  "an allocated DAT entry has no block address", \
	  "") \
	X(PR_DAT_OUTSIDE, SEV_ERROR, 4, FIX_NONE, \
	  "a DAT entry points outside the segments in use", \
	  "") \
	X(PR_DAT_UNCLAIMED, SEV_ERROR, 4, FIX_NONE, \
	  "a DAT entry points to a block no summary claims for it", \
	  "") \
	X(PR_DAT_SHARED, SEV_ERROR, 4, FIX_NONE, \
	  "two DAT entries (or a DAT block) share a physical block", \
	  "") \
	X(PR_DAT_LEAK, SEV_ERROR, 4, FIX_YES, \
	  "a live DAT entry is used by no file of the latest checkpoint", \
	  "the entry freed") \
	/* pass 5: cpfile */ \
	X(PR_CP_NCHECKPOINTS, SEV_ERROR, 5, FIX_PREEN, \
	  "cpfile header: wrong number of checkpoints", \
	  "recounted from the checkpoint entries") \
	X(PR_CP_NSNAPSHOTS, SEV_ERROR, 5, FIX_PREEN, \
	  "cpfile header: wrong number of snapshots", \
	  "recounted from the checkpoint entries") \
	X(PR_CP_SNAPLIST, SEV_ERROR, 5, FIX_NONE, \
	  "the snapshot list is broken", \
	  "") \
	X(PR_CP_BLKCOUNT, SEV_ERROR, 5, FIX_PREEN, \
	  "a cpfile block's count of valid checkpoints is wrong", \
	  "recounted from the checkpoint entries") \
	X(PR_CP_ENTRY, SEV_ERROR, 5, FIX_NONE, \
	  "a checkpoint entry is invalid", \
	  "") \
	X(PR_CP_LATEST, SEV_ERROR, 5, FIX_NONE, \
	  "the latest checkpoint is missing from the cpfile", \
	  "") \
	X(PR_CP_IFILE, SEV_ERROR, 5, FIX_NONE, \
	  "a checkpoint's ifile inode is invalid", \
	  "") \
	X(PR_CP_NINODES, SEV_ERROR, 5, FIX_PREEN, \
	  "a checkpoint's inode count is wrong", \
	  "set to the count the check made") \
	X(PR_CP_NBLOCKS, SEV_ERROR, 5, FIX_PREEN, \
	  "a checkpoint's block count is wrong", \
	  "set to the count the check made") \
	/* pass 6: inodes and block maps */ \
	X(PR_IFILE_DESC, SEV_ERROR, 6, FIX_PREEN, \
	  "an ifile group descriptor's free count disagrees with its bitmap", \
	  "recounted from the bitmap") \
	X(PR_IFILE_RESERVED, SEV_ERROR, 6, FIX_PREEN, \
	  "a reserved inode is not marked in use", \
	  "the reserved inodes marked in use") \
	X(PR_IFILE_HOLE, SEV_ERROR, 6, FIX_NONE, \
	  "inodes in use sit in a missing ifile block", \
	  "") \
	X(PR_BMAP_STRUCT, SEV_ERROR, 6, FIX_NONE, \
	  "a block map is malformed", \
	  "") \
	X(PR_BMAP_ORDER, SEV_ERROR, 6, FIX_NONE, \
	  "block map keys are out of order", \
	  "") \
	X(PR_BMAP_DIRECT, SEV_WARNING, 6, FIX_NONE, \
	  "a direct block map has unknown flag bits", \
	  "") \
	X(PR_BMAP_VBLOCK, SEV_ERROR, 6, FIX_NONE, \
	  "a block map points to an unallocated virtual block", \
	  "") \
	X(PR_BMAP_PERIOD, SEV_ERROR, 6, FIX_NONE, \
	  "a block is not alive in the checkpoint that uses it", \
	  "") \
	X(PR_BMAP_SHARED, SEV_ERROR, 6, FIX_NONE, \
	  "a virtual block is used twice in one checkpoint", \
	  "") \
	X(PR_INO_BLOCKS, SEV_ERROR, 6, FIX_PREEN, \
	  "an inode's i_blocks disagrees with its block map", \
	  "set to the blocks the map holds") \
	X(PR_INO_MODE, SEV_ERROR, 6, FIX_NONE, \
	  "an inode has an invalid file type", \
	  "") \
	X(PR_INO_SIZE, SEV_ERROR, 6, FIX_NONE, \
	  "an inode's size disagrees with its blocks", \
	  "") \
	X(PR_INO_ORPHAN, SEV_ERROR, 6, FIX_YES, \
	  "an inode with no links is still allocated", \
	  "linked into /lost+found as #INO") \
	X(PR_INO_UNATTACHED, SEV_ERROR, 6, FIX_YES, \
	  "an inode in use is not reachable from the root", \
	  "linked into /lost+found as #INO") \
	X(PR_INO_LINKS, SEV_ERROR, 6, FIX_YES, \
	  "an inode's link count is wrong", \
	  "set to the entries that name it") \
	/* pass 6: directories */ \
	X(PR_DIR_ROOT, SEV_ERROR, 6, FIX_NONE, \
	  "the root directory is missing or invalid", \
	  "") \
	X(PR_DIR_RECORD, SEV_ERROR, 6, FIX_NONE, \
	  "a directory record is malformed", \
	  "") \
	X(PR_DIR_HOLE, SEV_ERROR, 6, FIX_NONE, \
	  "a directory has a missing block", \
	  "") \
	X(PR_DIR_DOT, SEV_ERROR, 6, FIX_NONE, \
	  "a directory's '.' entry is missing or wrong", \
	  "") \
	X(PR_DIR_DOTDOT, SEV_ERROR, 6, FIX_NONE, \
	  "a directory's '..' entry is missing or wrong", \
	  "") \
	X(PR_DIR_NAME, SEV_ERROR, 6, FIX_NONE, \
	  "a directory entry has an invalid name", \
	  "") \
	X(PR_DIR_DUP, SEV_ERROR, 6, FIX_NONE, \
	  "a directory has two entries of one name", \
	  "") \
	X(PR_DIR_FREE_INODE, SEV_ERROR, 6, FIX_YES, \
	  "a directory entry names an inode not in use", \
	  "the entry removed") \
	X(PR_DIR_TYPE, SEV_ERROR, 6, FIX_YES, \
	  "a directory entry's file type disagrees with the inode", \
	  "set to the inode's type") \
	X(PR_DIR_LINKED, SEV_ERROR, 6, FIX_NONE, \
	  "a directory is linked from more than one place", \
	  "") \
	/* any pass */ \
	X(PR_IO, SEV_ERROR, 0, FIX_NONE, \
	  "an I/O or memory error stopped part of the check", \
	  "")

enum fsck_pr {
#define FSCK_PR_ENUM(code, sev, pass, fix, desc, action) code,
	FSCK_PROBLEMS(FSCK_PR_ENUM)
#undef FSCK_PR_ENUM
	PR_COUNT
};

struct fsck_problem_def {
	const char *name;          /* "PR_SB_CRC" */
	enum fsck_severity severity;
	int pass;
	enum fsck_fix fix;
	const char *desc;
	const char *action;        /* what -y does ("" for FIX_NONE) */
};

extern const struct fsck_problem_def fsck_problems[PR_COUNT];

#endif /* FSCK_PROBLEM_H */
