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
	X(PR_SB_DEVSIZE, SEV_ERROR, 1, FIX_YES, \
	  "the device is smaller than the superblock says", \
	  "s_dev_size set to the device size if every segment fits in it") \
	/* the kernel would align the other copy at its next superblock write */ \
	X(PR_SB_MISMATCH, SEV_ERROR, 1, FIX_YES, \
	  "the two superblock copies disagree on a fixed field", \
	  "both copies rewritten from the one the kernel uses") \
	X(PR_SB_STATE, SEV_ERROR, 1, FIX_YES, \
	  "the superblock records a kernel-detected error", \
	  "the error flag cleared once no error is left that a repair cannot fix") \
	X(PR_SB_STATE_BITS, SEV_WARNING, 1, FIX_PREEN, \
	  "the superblock state has unknown or resize bits", \
	  "unknown bits cleared (an unfinished resize is left)") \
	X(PR_SB_FEATURE, SEV_WARNING, 1, FIX_NONE, \
	  "the superblock has unknown feature bits", \
	  "") \
	X(PR_SB_CURSOR, SEV_ERROR, 1, FIX_PREEN, \
	  "the superblock's log cursor does not lead to a valid super root", \
	  "both copies rewritten from the one the kernel uses, the cursor at the newest super root") \
	X(PR_SB_OTHER_CURSOR, SEV_WARNING, 1, FIX_PREEN, \
	  "the other superblock copy's cursor is not usable for fallback", \
	  "both copies rewritten from the one the kernel uses") \
	X(PR_SB_NEWER_LOGS, SEV_WARNING, 1, FIX_YES, \
	  "valid logs follow the cursor of a cleanly unmounted volume", \
	  "the cursor moved to the newest super root when the logs continue its history; stale ones (left by a writer cut before its superblocks, where a later one went on from the cursor) ended by zeroing the first one's summary block") \
	X(PR_SB_FREE, SEV_INFO, 1, FIX_NONE, \
	  "s_free_blocks_count differs from the clean segments", \
	  "") \
	X(PR_SB_UNCLEAN, SEV_INFO, 1, FIX_PREEN, \
	  "the volume was not cleanly unmounted", \
	  "the kernel's recovery done offline, then marked clean: logs after the latest super root replayed as a new checkpoint, else the cursor set to the latest super root; left unclean if errors remain or files unlinked while open are in use") \
	X(PR_FS_OPEN, SEV_ERROR, 1, FIX_NONE, \
	  "the volume cannot be opened as the kernel would mount it", \
	  "") \
	/* pass 2: segment usage; pass 3: logs */ \
	X(PR_SU_FLAGS, SEV_ERROR, 2, FIX_PREEN, \
	  "segment usage flags are impossible", \
	  "unknown bits cleared; a segment not dirty is made clean, or dirty if DAT entries point into its logs") \
	X(PR_SU_NBLOCKS, SEV_ERROR, 2, FIX_PREEN, \
	  "segment usage block count exceeds the segment", \
	  "set to where its logs end (never below a block in use)") \
	X(PR_SU_CLEAN, SEV_ERROR, 2, FIX_PREEN, \
	  "a clean segment has a block count or time", \
	  "the clean entry zeroed, or the segment made dirty if DAT entries point into its logs") \
	X(PR_SU_ERRSEG, SEV_WARNING, 2, FIX_PREEN, \
	  "a segment is marked as failed (ERROR)", \
	  "the flag cleared if the segment's logs check clean") \
	X(PR_SU_NCLEAN, SEV_ERROR, 2, FIX_PREEN, \
	  "sufile header: wrong count of clean segments", \
	  "recounted from the segment usage entries") \
	X(PR_SU_NDIRTY, SEV_ERROR, 2, FIX_PREEN, \
	  "sufile header: wrong count of dirty segments", \
	  "recounted from the segment usage entries") \
	X(PR_SU_LAST_ALLOC, SEV_ERROR, 2, FIX_PREEN, \
	  "sufile header: last allocated segment out of range", \
	  "reset to a segment in use") \
	X(PR_SU_CURRENT, SEV_ERROR, 2, FIX_PREEN, \
	  "the super root's segment is not in use up to that log", \
	  "marked dirty up to the super root") \
	X(PR_SU_NEXT, SEV_ERROR, 2, FIX_PREEN, \
	  "the segment the kernel writes next is not allocated", \
	  "marked dirty (allocated)") \
	/* cut only where no DAT entry points past the break: else a cleaner \
	 * would free the segment with the live blocks that lie there */ \
	X(PR_SU_SHORT, SEV_ERROR, 2, FIX_PREEN, \
	  "the logs of a segment end before its usage count", \
	  "cut to where the logs end if no block in use lies past that, else (-y) the segment given up, every block a checkpoint maps moved") \
	X(PR_LOG_HEADER, SEV_ERROR, 3, FIX_YES, \
	  "a segment summary header is invalid", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept") \
	X(PR_LOG_OVERRUN, SEV_ERROR, 3, FIX_PREEN, \
	  "a log runs past its segment's usage count", \
	  "su_nblocks grown to cover the log") \
	X(PR_LOG_SUMSUM, SEV_ERROR, 3, FIX_YES, \
	  "a segment summary checksum (ss_sumsum) is wrong", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept") \
	X(PR_LOG_DATASUM, SEV_ERROR, 3, FIX_YES, \
	  "a log data checksum (ss_datasum) is wrong", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept") \
	X(PR_LOG_SEQ, SEV_ERROR, 3, FIX_YES, \
	  "a log's sequence number differs from its segment's", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept") \
	X(PR_LOG_NEXT, SEV_ERROR, 3, FIX_YES, \
	  "a log's ss_next is inconsistent", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept") \
	X(PR_LOG_FLAGS, SEV_ERROR, 3, FIX_YES, \
	  "log flags are inconsistent", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept") \
	X(PR_LOG_CNO, SEV_ERROR, 3, FIX_YES, \
	  "log checkpoint numbers go backwards", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept") \
	X(PR_LOG_SR, SEV_ERROR, 3, FIX_YES, \
	  "the super root of a log is invalid", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept") \
	X(PR_LOG_FINFO, SEV_ERROR, 3, FIX_YES, \
	  "the file records of a summary are inconsistent", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept") \
	X(PR_LOG_BINFO, SEV_ERROR, 3, FIX_YES, \
	  "a block record of a summary is invalid", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept") \
	X(PR_LOG_VFREE, SEV_ERROR, 3, FIX_YES, \
	  "a summary claims a virtual block the DAT does not allocate", \
	  "the DAT entry set from the summary where the block is still there, else the segment given up") \
	X(PR_LOG_VSTALE, SEV_ERROR, 3, FIX_YES, \
	  "a summary claims a virtual block the DAT maps elsewhere", \
	  "the DAT entry set from the newest summary, else the segment of the stale one given up") \
	X(PR_SEG_SEQ_DUP, SEV_ERROR, 3, FIX_YES, \
	  "two segments carry the same sequence number", \
	  "both segments emptied as the cleaner would (blocks in use moved to new logs)") \
	X(PR_SEG_CHAIN, SEV_ERROR, 3, FIX_YES, \
	  "a segment's ss_next does not name the segment of the next sequence", \
	  "the segment emptied as the cleaner would (blocks in use moved to new logs)") \
	X(PR_SEG_SEQ_NEWER, SEV_ERROR, 3, FIX_YES, \
	  "a segment in use is newer than the latest super root", \
	  "the segment emptied as the cleaner would (blocks in use moved to new logs)") \
	X(PR_RECOVERY, SEV_INFO, 3, FIX_PREEN, \
	  "logs after the latest super root (roll-forward at mount)", \
	  "the kernel's roll-forward done offline") \
	/* pass 2: metadata-file inodes; pass 4: DAT */ \
	X(PR_MDT_INODE, SEV_ERROR, 2, FIX_PREEN, \
	  "a metadata file's inode is invalid", \
	  "made a regular file with a link in the super root") \
	X(PR_MDT_SIZE, SEV_ERROR, 2, FIX_YES, \
	  "a palloc file reaches far past what the volume can hold (the ifile), or past its 64-bit entry space (the DAT, whose entries may lie anywhere in it)", \
	  "the ifile's blocks out there dropped from its map (named; older checkpoints keep them); the DAT's left as found") \
	X(PR_DAT_PTR, SEV_ERROR, 4, FIX_YES, \
	  "a DAT block lies outside the segments in use", \
	  "the DAT written anew in the repair checkpoint") \
	X(PR_DAT_UNCLAIMED_BLOCK, SEV_ERROR, 4, FIX_YES, \
	  "a DAT block is not described as one by any summary", \
	  "the DAT written anew in the repair checkpoint") \
	X(PR_DAT_DESC, SEV_ERROR, 4, FIX_PREEN, \
	  "a DAT group descriptor's free count disagrees with its bitmap", \
	  "recounted from the bitmap") \
	X(PR_DAT_HOLE, SEV_ERROR, 4, FIX_YES, \
	  "allocated DAT entries sit in a missing block", \
	  "the entries rebuilt from the segment summaries") \
	X(PR_DAT_ENTRY0, SEV_ERROR, 4, FIX_YES, \
	  "DAT entry 0 is not reserved", \
	  "entry 0 reset and marked in use") \
	X(PR_DAT_RANGE, SEV_ERROR, 4, FIX_YES, \
	  "a DAT entry's checkpoint period is impossible", \
	  "the period set from the summary; open if the latest checkpoint maps the block") \
	X(PR_DAT_NOADDR, SEV_ERROR, 4, FIX_YES, \
	  "an allocated DAT entry has no block address", \
	  "the address taken from the summary that claims it, else the entry freed") \
	X(PR_DAT_OUTSIDE, SEV_ERROR, 4, FIX_YES, \
	  "a DAT entry points outside the segments in use", \
	  "a segment marked free whose valid logs hold the block made dirty again, else the address taken from the summary that claims it; else left") \
	X(PR_DAT_UNCLAIMED, SEV_ERROR, 4, FIX_YES, \
	  "a DAT entry points to a block no summary claims for it", \
	  "the address taken from the newest summary that claims the virtual block") \
	X(PR_DAT_SHARED, SEV_ERROR, 4, FIX_YES, \
	  "two DAT entries (or a DAT block) share a physical block", \
	  "the address taken from the newest summary that claims the virtual block") \
	X(PR_DAT_LEAK, SEV_ERROR, 4, FIX_YES, \
	  "a live DAT entry is used by no file of the latest checkpoint", \
	  "the entry ended at the repair's checkpoint (older checkpoints keep the block)") \
	/* pass 5: cpfile */ \
	X(PR_CP_NCHECKPOINTS, SEV_ERROR, 5, FIX_PREEN, \
	  "cpfile header: wrong number of checkpoints", \
	  "recounted from the checkpoint entries") \
	X(PR_CP_NSNAPSHOTS, SEV_ERROR, 5, FIX_PREEN, \
	  "cpfile header: wrong number of snapshots", \
	  "recounted from the checkpoint entries") \
	X(PR_CP_SNAPLIST, SEV_ERROR, 5, FIX_PREEN, \
	  "the snapshot list is broken", \
	  "rebuilt from the snapshot flags; a listed checkpoint stays a snapshot") \
	X(PR_CP_BLKCOUNT, SEV_ERROR, 5, FIX_PREEN, \
	  "a cpfile block's count of valid checkpoints is wrong", \
	  "recounted from the checkpoint entries") \
	X(PR_CP_ENTRY, SEV_ERROR, 5, FIX_PREEN, \
	  "a checkpoint entry is invalid", \
	  "cp_cno and flags set right; a checkpoint past the latest invalidated") \
	X(PR_CP_LATEST, SEV_ERROR, 5, FIX_PREEN, \
	  "the latest checkpoint is missing from the cpfile", \
	  "its entry made valid again if it is whole") \
	X(PR_CP_IFILE, SEV_ERROR, 5, FIX_PREEN, \
	  "a checkpoint's ifile inode is invalid", \
	  "the ifile inode's type and link count set to a regular file's") \
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
	X(PR_IFILE_FREE_BIT, SEV_ERROR, 6, FIX_PREEN, \
	  "an inode no directory names is marked in use, but its record is empty or a deleted file's", \
	  "its bit cleared in the ifile bitmap (the inode is free)") \
	X(PR_IFILE_HOLE, SEV_ERROR, 6, FIX_YES, \
	  "inodes in use sit in a missing ifile block", \
	  "the inodes there freed (named, older checkpoints keep them), the entries naming them removed (paths named); the rest of the ifile kept") \
	X(PR_BMAP_STRUCT, SEV_ERROR, 6, FIX_YES, \
	  "a block map is malformed", \
	  "the map rebuilt from its entries that hold up and the segment summaries; lost blocks named") \
	X(PR_BMAP_ORDER, SEV_ERROR, 6, FIX_YES, \
	  "block map keys are out of order", \
	  "the map rebuilt from its entries that hold up and the segment summaries; lost blocks named") \
	X(PR_BMAP_DIRECT, SEV_WARNING, 6, FIX_YES, \
	  "a direct block map has unknown flag bits", \
	  "the map written anew with a clean flags byte") \
	X(PR_BMAP_VBLOCK, SEV_ERROR, 6, FIX_YES, \
	  "a block map points to an unallocated virtual block", \
	  "the block taken from the segment summaries, else a hole (named)") \
	X(PR_BMAP_PERIOD, SEV_ERROR, 6, FIX_YES, \
	  "a block is not alive in the checkpoint that uses it", \
	  "the DAT entry reopened if the summary names the block there, else the newest live version") \
	X(PR_BMAP_SHARED, SEV_ERROR, 6, FIX_YES, \
	  "a virtual block is used twice in one checkpoint", \
	  "the block taken from the segment summaries, else a hole (named)") \
	/* the check after a repair: what no repair may ever do */ \
	X(PR_REPAIR_LIVE, SEV_ERROR, 6, FIX_NONE, \
	  "a repair left a live block with an ended DAT entry or outside the segments in use", \
	  "") \
	X(PR_INO_BLOCKS, SEV_ERROR, 6, FIX_PREEN, \
	  "an inode's i_blocks disagrees with its block map", \
	  "set to the blocks the map holds") \
	X(PR_INO_MODE, SEV_ERROR, 6, FIX_YES, \
	  "an inode has an invalid file type", \
	  "the inode cleared, the entries naming it removed (older checkpoints keep it)") \
	X(PR_INO_SIZE, SEV_ERROR, 6, FIX_YES, \
	  "an inode's size disagrees with its blocks", \
	  "a file's size set to cover its blocks, a symbolic link's to its target (none: cleared), a directory rewritten") \
	X(PR_INO_ORPHAN, SEV_WARNING, 6, FIX_YES, \
	  "an inode with no links is still allocated: a file unlinked while open when the volume crashed, which the kernel never releases (NILFS2 keeps no orphan list); its blocks stay in use", \
	  "released: the inode cleared and its blocks freed, as the last close would have done (older checkpoints keep it)") \
	X(PR_INO_UNATTACHED, SEV_ERROR, 6, FIX_YES, \
	  "an inode in use is not reachable from the root", \
	  "released: the inode cleared and its blocks freed, as the last close would have done (older checkpoints keep it)") \
	X(PR_INO_LINKS, SEV_ERROR, 6, FIX_YES, \
	  "an inode's link count is wrong", \
	  "set to the entries that name it") \
	/* pass 6: directories */ \
	X(PR_DIR_ROOT, SEV_ERROR, 6, FIX_YES, \
	  "the root directory is missing or invalid", \
	  "a new root directory made; what the old one named goes to /lost+found") \
	X(PR_DIR_RECORD, SEV_ERROR, 6, FIX_YES, \
	  "a directory record is malformed", \
	  "the directory rewritten from the records that hold up; what is lost is named") \
	X(PR_DIR_HOLE, SEV_ERROR, 6, FIX_YES, \
	  "a directory has a missing block", \
	  "the directory rewritten without it; inodes only it named go to /lost+found") \
	X(PR_DIR_DOT, SEV_ERROR, 6, FIX_YES, \
	  "a directory's '.' entry is missing or wrong", \
	  "the directory rewritten with '.' naming itself") \
	X(PR_DIR_DOTDOT, SEV_ERROR, 6, FIX_YES, \
	  "a directory's '..' entry is missing or wrong", \
	  "the directory rewritten with '..' naming the parent it is found in") \
	X(PR_DIR_NAME, SEV_ERROR, 6, FIX_YES, \
	  "a directory entry has an invalid name", \
	  "'/' and NUL become '.'; an empty name or another '.' or '..' entry removed") \
	X(PR_DIR_DUP, SEV_ERROR, 6, FIX_YES, \
	  "a directory has two entries of one name", \
	  "the second renamed NAME~N (removed if it names the same inode)") \
	X(PR_DIR_FREE_INODE, SEV_ERROR, 6, FIX_YES, \
	  "a directory entry names an inode not in use", \
	  "the inode marked in use again if its slot still holds it, else the entry removed") \
	X(PR_DIR_TYPE, SEV_ERROR, 6, FIX_YES, \
	  "a directory entry's file type disagrees with the inode", \
	  "set to the inode's type") \
	X(PR_DIR_LINKED, SEV_ERROR, 6, FIX_YES, \
	  "a directory is linked from more than one place", \
	  "the entries after the first one found removed") \
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
