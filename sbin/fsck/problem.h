/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * problem.h - every problem the checker can report, in one table.
 *
 * One row per problem code: code, severity, pass, what a repair may do
 * (FIX_PREEN: -p and -y repair it, nothing a user stored can be lost;
 * FIX_YES: only -y, since the repair changes what the user sees or drops
 * something it names; FIX_NONE: left as found), a description used in the
 * man page, what -y does about it, and the messages that report it: each
 * M(id, template) a printf template the caller fills in with the
 * structure, block, inode, path and checkpoint involved.  ERROR problems
 * make the exit status 4; WARNING problems are printed but do not change
 * it; INFO lines are notes (some shown only with -v).
 *
 * A caller reports a message by its id, fsck_problem(c, MSG_..., args):
 * the compiler checks ARGS against the template (fsck.h).  A message
 * reported with fsck_lib_problem() is followed by ": " and the library's
 * account of the failure.
 */
#ifndef FSCK_PROBLEM_H
#define FSCK_PROBLEM_H

#include <inttypes.h>
#include <stdbool.h>

enum fsck_severity { SEV_ERROR, SEV_WARNING, SEV_INFO };
enum fsck_fix { FIX_NONE, FIX_YES, FIX_PREEN };

#define FSCK_PROBLEMS(X, M) \
	/* pass 1: superblocks */ \
	X(PR_SB_READ, SEV_ERROR, 1, FIX_PREEN, \
	  "a superblock copy cannot be read", \
	  "both copies rewritten from the one the kernel uses", \
	  M(MSG_SB_READ, "%s (byte %llu): cannot be read: %s")) \
	X(PR_SB_MAGIC, SEV_ERROR, 1, FIX_PREEN, \
	  "a superblock copy has a bad magic number", \
	  "both copies rewritten from the one the kernel uses", \
	  M(MSG_SB_MAGIC, "%s (byte %llu): bad magic number 0x%04x")) \
	X(PR_SB_BYTES, SEV_ERROR, 1, FIX_PREEN, \
	  "a superblock copy has s_bytes out of range", \
	  "both copies rewritten from the one the kernel uses", \
	  M(MSG_SB_BYTES, "%s (byte %llu): s_bytes %u out of range")) \
	X(PR_SB_CRC, SEV_ERROR, 1, FIX_PREEN, \
	  "a superblock copy has a bad checksum", \
	  "both copies rewritten from the one the kernel uses", \
	  M(MSG_SB_CRC, "%s (byte %llu): checksum 0x%08x, computed 0x%08x")) \
	X(PR_SB_REVISION, SEV_ERROR, 1, FIX_PREEN, \
	  "a superblock copy has an unsupported revision", \
	  "both copies rewritten from the one the kernel uses", \
	  M(MSG_SB_REVISION, "%s (byte %llu): %s")) \
	X(PR_SB_GEOMETRY, SEV_ERROR, 1, FIX_PREEN, \
	  "a superblock copy has impossible geometry or sizes", \
	  "both copies rewritten from the one the kernel uses", \
	  M(MSG_SB_GEOMETRY, "%s (byte %llu): %s") \
	  M(MSG_SB_IN_SEGMENTS, "%s (byte %llu): lies inside the segment area")) \
	X(PR_SB_DEVSIZE, SEV_ERROR, 1, FIX_YES, \
	  "the device is smaller than the superblock says", \
	  "s_dev_size set to the device size if every segment fits in it", \
	  M(MSG_SB_DEVSIZE, "%s: s_dev_size %llu but the device has %llu bytes")) \
	/* the kernel would align the other copy at its next superblock write */ \
	X(PR_SB_MISMATCH, SEV_ERROR, 1, FIX_YES, \
	  "the two superblock copies disagree on a fixed field", \
	  "both copies rewritten from the one the kernel uses", \
	  M(MSG_SB_COPIES_DIFFER, "superblocks: the primary and secondary copies differ in %s")) \
	/* a crash between the two writes of an update in place: the kernel \
	 * itself mends it at its next mount (e2fsck does not report stale \
	 * backup superblocks at all) */ \
	X(PR_SB_STALE_COPY, SEV_WARNING, 1, FIX_PREEN, \
	  "the two superblock copies differ in a field updated in place (an interrupted update)", \
	  "both copies rewritten from the one the kernel uses", \
	  M(MSG_SB_COPY_STALE, "superblocks: the copies differ in %s, an update interrupted between them")) \
	X(PR_SB_STATE, SEV_ERROR, 1, FIX_YES, \
	  "the superblock records a kernel-detected error", \
	  "the error flag cleared once no error is left that a repair cannot fix", \
	  M(MSG_SB_ERROR_STATE, "%s: s_state 0x%04x: the kernel recorded an error")) \
	X(PR_SB_STATE_BITS, SEV_WARNING, 1, FIX_PREEN, \
	  "the superblock state has unknown or resize bits", \
	  "unknown bits cleared (an unfinished resize is left)", \
	  M(MSG_SB_STATE_BITS, "%s: s_state 0x%04x has %s")) \
	X(PR_SB_FEATURE, SEV_WARNING, 1, FIX_NONE, \
	  "the superblock has unknown feature bits", \
	  "", \
	  M(MSG_SB_FEATURES, "%s: unknown features (compat 0x%llx, read-only compat 0x%llx)")) \
	X(PR_SB_CURSOR, SEV_ERROR, 1, FIX_PREEN, \
	  "the superblock's log cursor does not lead to a valid super root", \
	  "both copies rewritten from the one the kernel uses, the cursor at the newest super root", \
	  M(MSG_SB_CURSOR, "%s: log cursor (block %llu, sequence %llu): %s; the kernel falls " \
	    "back to the %s") \
	  M(MSG_SB_LAST_CNO, "%s: s_last_cno %llu but the log at block %llu commits checkpoint " \
	    "%llu")) \
	X(PR_SB_OTHER_CURSOR, SEV_WARNING, 1, FIX_PREEN, \
	  "the other superblock copy's cursor is not usable for fallback", \
	  "both copies rewritten from the one the kernel uses", \
	  M(MSG_SB_OTHER_CURSOR, "%s: log cursor (block %llu, sequence %llu): %s")) \
	X(PR_SB_NEWER_LOGS, SEV_WARNING, 1, FIX_YES, \
	  "valid logs follow the cursor of a cleanly unmounted volume", \
	  "the cursor moved to the newest super root when the logs continue its history; stale ones (left by a writer cut before its superblocks, where a later one went on from the cursor) ended by zeroing the first one's summary block", \
	  M(MSG_SB_NEWER_LOGS, "%" PRIu64 " valid log(s) follow the super root at block %" PRIu64 \
	    ", but the volume is marked clean: the kernel ignores and overwrites them%s")) \
	/* as e2fsck's free-block counts: printed, but -n still exits 0 (the \
	 * kernel sets it again at its next superblock write; nilfs-tune -l \
	 * and the partition editors show it) */ \
	X(PR_SB_FREE, SEV_WARNING, 4, FIX_PREEN, \
	  "s_free_blocks_count differs from the clean segments", \
	  "set as the kernel counts it: the clean segments times the blocks per segment", \
	  M(MSG_SB_FREE, "%s: s_free_blocks_count %llu, but the %llu clean segments hold %llu " \
	    "blocks")) \
	X(PR_SB_UNCLEAN, SEV_INFO, 1, FIX_PREEN, \
	  "the volume was not cleanly unmounted", \
	  "the kernel's recovery done offline, then marked clean: logs after the latest super root replayed as a new checkpoint, else the cursor set to the latest super root; left unclean if errors remain or files unlinked while open are in use", \
	  M(MSG_SB_UNCLEAN, "%s: not cleanly unmounted; the kernel will look for logs newer " \
	    "than its cursor")) \
	X(PR_FS_OPEN, SEV_ERROR, 1, FIX_NONE, \
	  "the volume cannot be opened as the kernel would mount it", \
	  "", \
	  M(MSG_FS_OPEN, "cannot open the volume as the kernel mounts it")) \
	/* pass 2: segment usage; pass 3: logs */ \
	X(PR_SU_FLAGS, SEV_ERROR, 2, FIX_PREEN, \
	  "segment usage flags are impossible", \
	  "unknown bits cleared; a segment not dirty is made clean, or dirty if DAT entries point into its logs", \
	  M(MSG_SUFILE_READ, "sufile: segments from %llu") \
	  M(MSG_SU_FLAGS_UNKNOWN, "segment %llu: unknown flags 0x%x") \
	  M(MSG_SU_ACTIVE_ALONE, "segment %llu: flags ACTIVE alone (neither clean nor dirty)")) \
	X(PR_SU_NBLOCKS, SEV_ERROR, 2, FIX_PREEN, \
	  "segment usage block count exceeds the segment", \
	  "set to where its logs end (never below a block in use)", \
	  M(MSG_SU_NBLOCKS, "segment %llu: su_nblocks %u exceeds its %llu blocks")) \
	X(PR_SU_CLEAN, SEV_ERROR, 2, FIX_PREEN, \
	  "a clean segment has a block count or time", \
	  "the clean entry zeroed, or the segment made dirty if DAT entries point into its logs", \
	  M(MSG_SU_CLEAN_USED, "segment %llu: clean but su_nblocks %u, su_lastmod %llu")) \
	X(PR_SU_ERRSEG, SEV_WARNING, 2, FIX_PREEN, \
	  "a segment is marked as failed (ERROR)", \
	  "the flag cleared if the segment's logs check clean", \
	  M(MSG_SU_ERROR, "segment %llu: marked as failed (ERROR)")) \
	X(PR_SU_NCLEAN, SEV_ERROR, 2, FIX_PREEN, \
	  "sufile header: wrong count of clean segments", \
	  "recounted from the segment usage entries", \
	  M(MSG_SUFILE_HEADER_READ, "sufile header") \
	  M(MSG_SU_NCLEAN, "sufile header: sh_ncleansegs %llu, but %llu segments are clean")) \
	X(PR_SU_NDIRTY, SEV_ERROR, 2, FIX_PREEN, \
	  "sufile header: wrong count of dirty segments", \
	  "recounted from the segment usage entries", \
	  M(MSG_SU_NDIRTY, "sufile header: sh_ndirtysegs %llu, but %llu segments are dirty")) \
	X(PR_SU_LAST_ALLOC, SEV_ERROR, 2, FIX_PREEN, \
	  "sufile header: last allocated segment out of range", \
	  "reset to a segment in use", \
	  M(MSG_SU_LAST_ALLOC, "sufile header: sh_last_alloc %llu, but the volume has %llu segments")) \
	X(PR_SU_CURRENT, SEV_ERROR, 2, FIX_PREEN, \
	  "the super root's segment is not in use up to that log", \
	  "marked dirty up to the super root", \
	  M(MSG_SU_CURRENT, "segment %" PRIu64 ": holds the latest super root (block %" PRIu64 \
	    "), but its usage is flags 0x%x, su_nblocks %u")) \
	X(PR_SU_NEXT, SEV_ERROR, 2, FIX_PREEN, \
	  "the segment the kernel writes next is not allocated", \
	  "marked dirty (allocated)", \
	  M(MSG_SU_NEXT, "segment %" PRIu64 \
	    ": the kernel writes there next (ss_next of the log at block %" PRIu64 \
	    "), but it is not allocated")) \
	/* cut only where no DAT entry points past the break: else a cleaner \
	 * would free the segment with the live blocks that lie there */ \
	X(PR_SU_SHORT, SEV_ERROR, 2, FIX_PREEN, \
	  "the logs of a segment end before its usage count", \
	  "cut to where the logs end if no block in use lies past that, else (-y) the segment given up, every block a checkpoint maps moved", \
	  M(MSG_SU_LOGS_SHORT, "segment %" PRIu64 ": su_nblocks %u, but the logs end at block %" \
	    PRIu64 " (%" PRIu64 " blocks in): %s")) \
	X(PR_LOG_HEADER, SEV_ERROR, 3, FIX_YES, \
	  "a segment summary header is invalid", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept", \
	  M(MSG_LOG_HEADER, "segment %" PRIu64 ": log at block %" PRIu64 ": %s")) \
	X(PR_LOG_OVERRUN, SEV_ERROR, 3, FIX_PREEN, \
	  "a log runs past its segment's usage count", \
	  "su_nblocks grown to cover the log", \
	  M(MSG_LOG_OVERRUN, "segment %" PRIu64 ": log at block %" PRIu64 \
	    " of %u blocks runs past su_nblocks %u")) \
	X(PR_LOG_SUMSUM, SEV_ERROR, 3, FIX_YES, \
	  "a segment summary checksum (ss_sumsum) is wrong", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept", \
	  M(MSG_LOG_SUMSUM, "segment %" PRIu64 ": log at block %" PRIu64 \
	    ": summary checksum 0x%08x is wrong")) \
	X(PR_LOG_DATASUM, SEV_ERROR, 3, FIX_YES, \
	  "a log data checksum (ss_datasum) is wrong", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept", \
	  M(MSG_LOG_DATASUM, "segment %" PRIu64 ": log at block %" PRIu64 \
	    ": data checksum 0x%08x is wrong")) \
	X(PR_LOG_SEQ, SEV_ERROR, 3, FIX_YES, \
	  "a log's sequence number differs from its segment's", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept", \
	  M(MSG_LOG_SEQ_STALE, "segment %" PRIu64 ": log at block %" PRIu64 ": sequence %" \
	    PRIu64 " in a segment of sequence %" PRIu64 " (su_nblocks %u counts a stale log)")) \
	X(PR_LOG_NEXT, SEV_ERROR, 3, FIX_YES, \
	  "a log's ss_next is inconsistent", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept", \
	  M(MSG_LOG_NEXT_DIFFERS, "segment %" PRIu64 ": log at block %" PRIu64 ": ss_next %" \
	    PRIu64 ", but the segment's first log says %" PRIu64) \
	  M(MSG_LOG_NEXT_NOT_SEGMENT, "segment %" PRIu64 ": log at block %" PRIu64 ": ss_next %" \
	    PRIu64 " is not the start of another segment")) \
	X(PR_LOG_FLAGS, SEV_ERROR, 3, FIX_YES, \
	  "log flags are inconsistent", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept", \
	  M(MSG_LOG_FLAGS_UNKNOWN, "segment %" PRIu64 ": log at block %" PRIu64 \
	    ": unknown flags 0x%x") \
	  M(MSG_LOG_SR_NOT_LAST, "segment %" PRIu64 ": log at block %" PRIu64 \
	    ": a super root in a log that does not end its logical segment") \
	  M(MSG_LOG_SR_IN_DSYNC, "segment %" PRIu64 ": log at block %" PRIu64 \
	    ": a data-sync log with a super root") \
	  M(MSG_LOG_SR_TOO_SMALL, "segment %" PRIu64 ": log at block %" PRIu64 \
	    ": a super root in a log of %u block") \
	  M(MSG_LOG_LSEG_UNENDED, "segment %" PRIu64 ": log at block %" PRIu64 \
	    ": begins a logical segment before the one at block %" PRIu64 " ended") \
	  M(MSG_LOG_LSEG_ENDED, "segment %" PRIu64 ": log at block %" PRIu64 \
	    ": continues a logical segment that ended at block %" PRIu64) \
	  M(MSG_SEG_CHAIN_FLAGS, "segment %" PRIu64 " (sequence %" PRIu64 "): %s, but segment %" \
	    PRIu64 " %s") \
	  M(MSG_DSYNC_SERIES_BROKEN, "log at block %" PRIu64 \
	    ": a log that is not data-sync inside the data-sync series from " "block %" PRIu64 \
	    "; the kernel's roll-forward stops with an error")) \
	X(PR_LOG_CNO, SEV_ERROR, 3, FIX_YES, \
	  "log checkpoint numbers go backwards", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept", \
	  M(MSG_LOG_CNO_BACKWARDS, "segment %" PRIu64 ": log at block %" PRIu64 ": checkpoint %" \
	    PRIu64 " after checkpoint %" PRIu64 " at block %" PRIu64) \
	  M(MSG_LOG_CNO_IN_LSEG, "segment %" PRIu64 ": log at block %" PRIu64 ": checkpoint %" \
	    PRIu64 " inside a logical segment of checkpoint %" PRIu64)) \
	X(PR_LOG_SR, SEV_ERROR, 3, FIX_YES, \
	  "the super root of a log is invalid", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept", \
	  M(MSG_SR_INVALID, "segment %" PRIu64 ": log at block %" PRIu64 ": super root block %" \
	    PRIu64 ": %s")) \
	X(PR_LOG_FINFO, SEV_ERROR, 3, FIX_YES, \
	  "the file records of a summary are inconsistent", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept", \
	  M(MSG_FINFO_INODE0, "segment %" PRIu64 ": log at block %" PRIu64 \
	    ": a file record for inode 0") \
	  M(MSG_FINFO_CNO, "segment %" PRIu64 ": log at block %" PRIu64 ": inode %" PRIu64 \
	    " has fi_cno %" PRIu64 " in a log of checkpoint %" PRIu64) \
	  M(MSG_FINFO_MDT_CNO, "segment %" PRIu64 ": log at block %" PRIu64 ": metadata file %" \
	    PRIu64 " has fi_cno %" PRIu64 " in a log of checkpoint %" PRIu64) \
	  M(MSG_FINFO_NODES_IN_DSYNC, "segment %" PRIu64 ": log at block %" PRIu64 ": inode %" \
	    PRIu64 " has B-tree node blocks in a data-sync log") \
	  M(MSG_FINFO_READ, "segment %" PRIu64 ": log at block %" PRIu64) \
	  M(MSG_FINFO_NBLOCKS, "segment %" PRIu64 ": log at block %" PRIu64 \
	    ": its file records claim %" PRIu64 " blocks, the log holds %u")) \
	X(PR_LOG_BINFO, SEV_ERROR, 3, FIX_YES, \
	  "a block record of a summary is invalid", \
	  "its segment given up: every block a checkpoint maps moved, virtual block and period kept", \
	  M(MSG_BINFO_DAT_LEVEL, "segment %" PRIu64 ": log at block %" PRIu64 \
	    ": DAT node block %" PRIu64 " has level %u") \
	  M(MSG_BINFO_VBLOCK0, "segment %" PRIu64 ": log at block %" PRIu64 ": block %" PRIu64 \
	    " of inode %" PRIu64 " has virtual block number 0")) \
	X(PR_LOG_VFREE, SEV_ERROR, 3, FIX_YES, \
	  "a summary claims a virtual block the DAT does not allocate", \
	  "the DAT entry set from the summary where the block is still there, else the segment given up", \
	  M(MSG_LOG_VBLOCK_FREE, "segment %" PRIu64 ": log at block %" PRIu64 ": block %" PRIu64 \
	    " (inode %" PRIu64 ", %s) claims virtual block %" PRIu64 \
	    ", which the DAT does not allocate") \
	  M(MSG_LOG_VBLOCK_READ, "segment %" PRIu64 ": log at block %" PRIu64 \
	    ": virtual block %" PRIu64)) \
	X(PR_LOG_VSTALE, SEV_ERROR, 3, FIX_YES, \
	  "a summary claims a virtual block the DAT maps elsewhere", \
	  "the DAT entry set from the newest summary, else the segment of the stale one given up", \
	  M(MSG_LOG_VBLOCK_STALE, "segment %" PRIu64 ": log at block %" PRIu64 ": block %" \
	    PRIu64 " (inode %" PRIu64 ") claims virtual block %" PRIu64 \
	    ", which the DAT maps to block %" PRIu64)) \
	X(PR_SEG_SEQ_DUP, SEV_ERROR, 3, FIX_YES, \
	  "two segments carry the same sequence number", \
	  "both segments emptied as the cleaner would (blocks in use moved to new logs)", \
	  M(MSG_SEG_SEQ_DUP, "segments %" PRIu64 " and %" PRIu64 " both carry sequence number %" \
	    PRIu64)) \
	X(PR_SEG_CHAIN, SEV_ERROR, 3, FIX_YES, \
	  "a segment's ss_next does not name the segment of the next sequence", \
	  "the segment emptied as the cleaner would (blocks in use moved to new logs)", \
	  M(MSG_SEG_CHAIN, "segment %" PRIu64 " (sequence %" PRIu64 "): ss_next %" PRIu64 \
	    ", but sequence %" PRIu64 " is in segment %" PRIu64)) \
	X(PR_SEG_SEQ_NEWER, SEV_ERROR, 3, FIX_YES, \
	  "a segment in use is newer than the latest super root", \
	  "the segment emptied as the cleaner would (blocks in use moved to new logs)", \
	  M(MSG_SEG_SEQ_NEWER, "segment %" PRIu64 ": sequence %" PRIu64 \
	    " is newer than the latest super root's (%" PRIu64 ")")) \
	X(PR_RECOVERY, SEV_INFO, 3, FIX_PREEN, \
	  "logs after the latest super root (roll-forward at mount)", \
	  "the kernel's roll-forward done offline", \
	  M(MSG_ROLL_FORWARD, "roll-forward: at mount the kernel replays %" PRIu64 \
	    " data-sync log(s) written after checkpoint %" PRIu64 " (%" PRIu64 " data blocks)") \
	  M(MSG_ROLL_FORWARD_DISCARDED, "roll-forward: %" PRIu64 " log(s) after checkpoint %" \
	    PRIu64 " are not complete data-sync logs; the kernel discards them")) \
	/* pass 2: metadata-file inodes; pass 4: DAT */ \
	X(PR_MDT_INODE, SEV_ERROR, 2, FIX_PREEN, \
	  "a metadata file's inode is invalid", \
	  "made a regular file with a link in the super root", \
	  M(MSG_MDT_INODE_MODE, "super root: %s inode (%u) has mode 0%o and %u links") \
	  M(MSG_DAT_MAP_UNWALKABLE, "DAT: its block map cannot be walked; virtual blocks are not checked")) \
	X(PR_MDT_LOST, SEV_ERROR, 2, FIX_NONE, \
	  "a metadata file's inode in the super root maps none of the file's blocks (its map is lost); nothing else is repaired, since a construction would write the volume's state without the file, but an older super root may still have it (see the rollback option)", \
	  "", \
	  M(MSG_MDT_INODE_NO_BLOCKS, "super root: %s inode (%u) maps no block (i_size %" PRIu64 \
	    "): the file is lost with its map")) \
	X(PR_MDT_SIZE, SEV_ERROR, 2, FIX_YES, \
	  "a palloc file reaches far past what the volume can hold (the ifile), or past its 64-bit entry space (the DAT, whose entries may lie anywhere in it)", \
	  "the ifile's blocks out there dropped from its map (named; older checkpoints keep them); the DAT's left as found", \
	  M(MSG_PALLOC_TOO_FAR, "%s: its block map reaches file block %" PRIu64 " (%" PRIu64 \
	    " groups); only the first %" PRIu64 " groups are checked") \
	  M(MSG_DAT_PAST_ENTRY_SPACE, "DAT: %" PRIu64 \
	    " of its blocks lie past the last group of the 64-bit " "entry space")) \
	X(PR_DAT_PTR, SEV_ERROR, 4, FIX_YES, \
	  "a DAT block lies outside the segments in use", \
	  "the DAT written anew in the repair checkpoint", \
	  M(MSG_DAT_BLOCK_OUTSIDE, "DAT: block %" PRIu64 " (%s %" PRIu64 \
	    ") is not in a segment in use")) \
	X(PR_DAT_UNCLAIMED_BLOCK, SEV_ERROR, 4, FIX_YES, \
	  "a DAT block is not described as one by any summary", \
	  "the DAT written anew in the repair checkpoint", \
	  M(MSG_DAT_BLOCK_UNCLAIMED, "DAT: block %" PRIu64 \
	    " is part of the DAT, but no segment summary describes it as a DAT " "block")) \
	X(PR_DAT_DESC, SEV_ERROR, 4, FIX_PREEN, \
	  "a DAT group descriptor's free count disagrees with its bitmap", \
	  "recounted from the bitmap", \
	  M(MSG_DAT_GROUP_READ, "DAT: group %" PRIu64) \
	  M(MSG_DAT_DESC_NFREES, "DAT: group %" PRIu64 \
	    ": descriptor says %u free entries, its bitmap %" PRIu64) \
	  M(MSG_DAT_DESC_MISSING, "DAT: group %" PRIu64 ": %" PRIu64 \
	    " entries in use but its descriptor block is missing")) \
	X(PR_DAT_HOLE, SEV_ERROR, 4, FIX_YES, \
	  "allocated DAT entries sit in a missing block", \
	  "the entries rebuilt from the segment summaries", \
	  M(MSG_DAT_ENTRY_BLOCK_READ, "DAT: entry block %" PRIu64) \
	  M(MSG_DAT_ENTRY_BLOCK_MISSING, "DAT: entry block %" PRIu64 \
	    " is missing but holds allocated entries (first: virtual block %" PRIu64 ")")) \
	X(PR_DAT_ENTRY0, SEV_ERROR, 4, FIX_YES, \
	  "DAT entry 0 is not reserved", \
	  "entry 0 reset and marked in use", \
	  M(MSG_DAT_ENTRY0_NOT_ZERO, "DAT: entry 0 is not zero (block %" PRIu64 ")") \
	  M(MSG_DAT_ENTRY0_FREE, "DAT: entry 0 is not marked in use in its bitmap")) \
	X(PR_DAT_RANGE, SEV_ERROR, 4, FIX_YES, \
	  "a DAT entry's checkpoint period is impossible", \
	  "the period set from the summary; open if the latest checkpoint maps the block", \
	  M(MSG_DAT_PERIOD_IMPOSSIBLE, "DAT: virtual block %" PRIu64 " (block %" PRIu64 \
	    "): period [%" PRIu64 ", %s) is impossible with checkpoints 1..%" PRIu64)) \
	X(PR_DAT_NOADDR, SEV_ERROR, 4, FIX_YES, \
	  "an allocated DAT entry has no block address", \
	  "the address taken from the summary that claims it, else the entry freed", \
	  M(MSG_DAT_NO_ADDRESS, "DAT: virtual block %" PRIu64 " is allocated but has no address")) \
	X(PR_DAT_OUTSIDE, SEV_ERROR, 4, FIX_YES, \
	  "a DAT entry points outside the segments in use", \
	  "a segment marked free whose valid logs hold the block made dirty again, else the address taken from the summary that claims it; else left", \
	  M(MSG_DAT_ADDRESS_OUTSIDE, "DAT: virtual block %" PRIu64 " points to block %" PRIu64 \
	    ", which is not in a segment in use")) \
	X(PR_DAT_UNCLAIMED, SEV_ERROR, 4, FIX_YES, \
	  "a DAT entry points to a block no summary claims for it", \
	  "the address taken from the newest summary that claims the virtual block", \
	  M(MSG_DAT_ADDRESS_UNCLAIMED, "DAT: virtual block %" PRIu64 " points to block %" PRIu64 \
	    ", which no segment summary claims for it")) \
	X(PR_DAT_SHARED, SEV_ERROR, 4, FIX_YES, \
	  "two DAT entries (or a DAT block) share a physical block", \
	  "the address taken from the newest summary that claims the virtual block", \
	  M(MSG_DAT_ADDRESS_SHARED, "DAT: virtual block %" PRIu64 " points to block %" PRIu64 \
	    ", which another entry or a DAT block uses too") \
	  M(MSG_DAT_BLOCK_TWICE, "DAT: block %" PRIu64 " is mapped twice")) \
	X(PR_DAT_LEAK, SEV_ERROR, 4, FIX_YES, \
	  "a live DAT entry is used by no file of the latest checkpoint", \
	  "the entry ended at the repair's checkpoint (older checkpoints keep the block)", \
	  M(MSG_DAT_LEAK, "DAT: virtual block %" PRIu64 " (block %" PRIu64 \
	    ", since checkpoint %" PRIu64 ") is live, but no file of checkpoint %" PRIu64 \
	    " uses it")) \
	/* pass 5: cpfile */ \
	X(PR_CP_NCHECKPOINTS, SEV_ERROR, 5, FIX_PREEN, \
	  "cpfile header: wrong number of checkpoints", \
	  "recounted from the checkpoint entries", \
	  M(MSG_CPFILE_HEADER_READ, "cpfile header") \
	  M(MSG_CP_NCHECKPOINTS, "cpfile header: ch_ncheckpoints %" PRIu64 \
	    ", but %zu checkpoints are valid")) \
	X(PR_CP_NSNAPSHOTS, SEV_ERROR, 5, FIX_PREEN, \
	  "cpfile header: wrong number of snapshots", \
	  "recounted from the checkpoint entries", \
	  M(MSG_CP_NSNAPSHOTS, "cpfile header: ch_nsnapshots %" PRIu64 \
	    ", but %zu checkpoints are snapshots")) \
	X(PR_CP_SNAPLIST, SEV_ERROR, 5, FIX_PREEN, \
	  "the snapshot list is broken", \
	  "rebuilt from the snapshot flags; a listed checkpoint stays a snapshot", \
	  M(MSG_SNAPLIST_TOO_LONG, "snapshot list: links to checkpoint %" PRIu64 " after %" \
	    PRIu64 ", but there are no more snapshots") \
	  M(MSG_SNAPLIST_WRONG_NEXT, "snapshot list: links to checkpoint %" PRIu64 " after %" \
	    PRIu64 ", but the next snapshot is %" PRIu64) \
	  M(MSG_SNAPLIST_WRONG_FIRST, "snapshot list: the header links to checkpoint %" PRIu64 \
	    ", but the first snapshot is %" PRIu64) \
	  M(MSG_SNAPLIST_READ, "snapshot list") \
	  M(MSG_SNAPLIST_WRONG_PREV, "snapshot list: checkpoint %" PRIu64 " links back to %" \
	    PRIu64 ", not %" PRIu64) \
	  M(MSG_SNAPLIST_TOO_SHORT, "snapshot list: ends after %" PRIu64 \
	    " snapshot(s); snapshot %" PRIu64 " is not in it") \
	  M(MSG_SNAPLIST_WRONG_LAST, "snapshot list: the header's last snapshot is %" PRIu64 \
	    ", the list ends at %" PRIu64)) \
	X(PR_CP_BLKCOUNT, SEV_ERROR, 5, FIX_PREEN, \
	  "a cpfile block's count of valid checkpoints is wrong", \
	  "recounted from the checkpoint entries", \
	  M(MSG_CP_BLOCK_COUNT, "cpfile block %" PRIu64 " (checkpoints %" PRIu64 "..%" PRIu64 \
	    "): count %u, but %" PRIu64 " are valid")) \
	X(PR_CP_ENTRY, SEV_ERROR, 5, FIX_PREEN, \
	  "a checkpoint entry is invalid", \
	  "cp_cno and flags set right; a checkpoint past the latest invalidated", \
	  M(MSG_CP_PAST_LATEST, "checkpoint %" PRIu64 ": valid, but the latest checkpoint is %" \
	    PRIu64) \
	  M(MSG_CP_CNO_FIELD, "checkpoint %" PRIu64 ": its entry says cp_cno %" PRIu64) \
	  M(MSG_CP_FLAGS_UNKNOWN, "checkpoint %" PRIu64 ": unknown flags 0x%x") \
	  M(MSG_CPFILE_BLOCK_READ, "cpfile block %" PRIu64) \
	  M(MSG_CP_READ, "checkpoint %" PRIu64)) \
	X(PR_CP_LATEST, SEV_ERROR, 5, FIX_PREEN, \
	  "the latest checkpoint is missing from the cpfile", \
	  "its entry made valid again if it is whole", \
	  M(MSG_CP_LATEST_INVALID, "checkpoint %" PRIu64 \
	    ": committed by the latest super root, but not valid in the cpfile")) \
	X(PR_CP_IFILE, SEV_ERROR, 5, FIX_PREEN, \
	  "a checkpoint's ifile inode is invalid", \
	  "the ifile inode's type and link count set to a regular file's", \
	  M(MSG_CP_IFILE_MODE, "checkpoint %" PRIu64 ": ifile inode has mode 0%o and %u links") \
	  M(MSG_CP_IFILE_UNREADABLE, "checkpoint %" PRIu64 \
	    ": the ifile cannot be read; its inodes are not checked")) \
	X(PR_CP_NINODES, SEV_ERROR, 5, FIX_PREEN, \
	  "a checkpoint's inode count is wrong", \
	  "set to the count the check made", \
	  M(MSG_CP_NINODES, "checkpoint %" PRIu64 ": cp_inodes_count %" PRIu64 ", but %" PRIu64 \
	    " inodes are in use")) \
	X(PR_CP_NBLOCKS, SEV_ERROR, 5, FIX_PREEN, \
	  "a checkpoint's block count is wrong", \
	  "set to the count the check made", \
	  M(MSG_CP_NBLOCKS, "checkpoint %" PRIu64 ": cp_blocks_count %" PRIu64 \
	    ", but its files hold %" PRIu64 " blocks")) \
	/* pass 6: inodes and block maps */ \
	X(PR_IFILE_DESC, SEV_ERROR, 6, FIX_PREEN, \
	  "an ifile group descriptor's free count disagrees with its bitmap", \
	  "recounted from the bitmap", \
	  M(MSG_IFILE_GROUP_READ, "checkpoint %" PRIu64 ": ifile group %" PRIu64) \
	  M(MSG_IFILE_DESC_NFREES, "checkpoint %" PRIu64 ": ifile group %" PRIu64 \
	    ": descriptor says %u free inodes, its bitmap %" PRIu64) \
	  M(MSG_IFILE_DESC_MISSING, "checkpoint %" PRIu64 ": ifile group %" PRIu64 ": %" PRIu64 \
	    " inodes in use but its descriptor block is missing")) \
	X(PR_IFILE_RESERVED, SEV_ERROR, 6, FIX_PREEN, \
	  "a reserved inode is not marked in use", \
	  "the reserved inodes marked in use", \
	  M(MSG_IFILE_RESERVED_FREE, "checkpoint %" PRIu64 ": reserved inode %" PRIu64 \
	    " is not marked in use in the ifile bitmap")) \
	X(PR_IFILE_FREE_BIT, SEV_ERROR, 6, FIX_PREEN, \
	  "an inode no directory names is marked in use, but its record is empty or a deleted file's", \
	  "its bit cleared in the ifile bitmap (the inode is free)", \
	  M(MSG_IFILE_BIT_EMPTY_RECORD, "checkpoint %" PRIu64 ": inode %" PRIu64 \
	    " is marked in use in the " \
	    "ifile bitmap, but its record is %s and no directory names it")) \
	X(PR_IFILE_HOLE, SEV_ERROR, 6, FIX_YES, \
	  "inodes in use sit in a missing ifile block", \
	  "the inodes there freed (named, older checkpoints keep them), the entries naming them removed (paths named); the rest of the ifile kept", \
	  M(MSG_DIR_ENTRY_LOST_INODE, "%s: entry '%.*s' names inode %" PRIu64 \
	    ", whose record is lost with its ifile block") \
	  M(MSG_IFILE_BLOCK_READ, "checkpoint %" PRIu64 ": ifile block %" PRIu64 " (inode %" \
	    PRIu64 ")") \
	  M(MSG_IFILE_BLOCK_MISSING, "checkpoint %" PRIu64 ": ifile block %" PRIu64 \
	    " is missing but holds inodes in use (first: %" PRIu64 ")")) \
	X(PR_BMAP_STRUCT, SEV_ERROR, 6, FIX_YES, \
	  "a block map is malformed", \
	  "the map rebuilt from its entries that hold up and the segment summaries; lost blocks named", \
	  M(MSG_CPFILE_MAP, "cpfile: block map") \
	  M(MSG_BMAP_WALK, "%s: block map") \
	  M(MSG_BMAP_NULL_PTR, "%s: block map: B-tree entry for file block %" PRIu64 \
	    " has no pointer (0); the kernel fails reads of it")) \
	X(PR_BMAP_ORDER, SEV_ERROR, 6, FIX_YES, \
	  "block map keys are out of order", \
	  "the map rebuilt from its entries that hold up and the segment summaries; lost blocks named", \
	  M(MSG_BMAP_KEY_ORDER, "%s: block map: data key %" PRIu64 " follows key %" PRIu64)) \
	X(PR_BMAP_DIRECT, SEV_WARNING, 6, FIX_YES, \
	  "a direct block map has unknown flag bits", \
	  "the map written anew with a clean flags byte", \
	  M(MSG_BMAP_DIRECT_FLAGS, "%s: direct block map has unknown flags 0x%02x")) \
	X(PR_BMAP_VBLOCK, SEV_ERROR, 6, FIX_YES, \
	  "a block map points to an unallocated virtual block", \
	  "the block taken from the segment summaries, else a hole (named)", \
	  M(MSG_BMAP_VBLOCK_FREE, "%s: block map: %s %" PRIu64 " points to virtual block %" \
	    PRIu64 ", which the DAT does not allocate") \
	  M(MSG_BMAP_VBLOCK_READ, "%s: block map: virtual block %" PRIu64) \
	  M(MSG_BMAP_VBLOCK_NO_ADDRESS, "%s: block map: %s %" PRIu64 ": virtual block %" PRIu64 \
	    " has no disk address")) \
	X(PR_BMAP_PERIOD, SEV_ERROR, 6, FIX_YES, \
	  "a block is not alive in the checkpoint that uses it", \
	  "the DAT entry reopened if the summary names the block there, else the newest live version", \
	  M(MSG_BMAP_VBLOCK_PERIOD, "%s: block map: %s %" PRIu64 " (virtual block %" PRIu64 \
	    ") has the DAT period [%" PRIu64 ", %s), which %s")) \
	X(PR_BMAP_SHARED, SEV_ERROR, 6, FIX_YES, \
	  "a virtual block is used twice in one checkpoint", \
	  "the block taken from the segment summaries, else a hole (named)", \
	  M(MSG_BMAP_VBLOCK_TWICE, "%s: block map: virtual block %" PRIu64 " (%s %" PRIu64 \
	    ") is also used by another block of this checkpoint")) \
	/* the check after a repair: what no repair may ever do */ \
	X(PR_REPAIR_LIVE, SEV_ERROR, 6, FIX_NONE, \
	  "a repair left a live block with an ended DAT entry or outside the segments in use", \
	  "", \
	  M(MSG_REPAIR_LEFT_LIVE, "%s: block map: %s %" PRIu64 " (virtual block %" PRIu64 \
	    "): %s after the repairs " "(checkpoint %" PRIu64 \
	    " on): a repair left a live block unprotected")) \
	X(PR_INO_BLOCKS, SEV_ERROR, 6, FIX_PREEN, \
	  "an inode's i_blocks disagrees with its block map", \
	  "set to the blocks the map holds", \
	  M(MSG_INO_BLOCKS, "%s: i_blocks %" PRIu64 ", but its map holds %" PRIu64 " blocks (%" \
	    PRIu64 " in 512-byte units)")) \
	X(PR_INO_MODE, SEV_ERROR, 6, FIX_YES, \
	  "an inode has an invalid file type", \
	  "the inode cleared, the entries naming it removed (older checkpoints keep it)", \
	  M(MSG_INO_FILE_TYPE, "%s: invalid file type in mode 0%o")) \
	X(PR_INO_SIZE, SEV_ERROR, 6, FIX_YES, \
	  "an inode's size disagrees with its blocks, or exceeds the largest file size", \
	  "a file's size set to cover its blocks, a symbolic link's to its target (none: cleared), a directory rewritten", \
	  M(MSG_FILE_PAST_SIZE, "%s: file block %" PRIu64 " lies beyond i_size %" PRIu64) \
	  M(MSG_FILE_SIZE_MAX, "%s: i_size %" PRIu64 " exceeds the largest file size, %" PRIu64) \
	  M(MSG_DIR_SIZE_UNALIGNED, "%s: directory i_size %" PRIu64 \
	    " is not a positive multiple of the block size") \
	  M(MSG_DIR_PAST_SIZE, "%s: directory block %" PRIu64 " lies beyond i_size %" PRIu64) \
	  M(MSG_DIR_SIZE_PAST_BLOCKS, "%s: directory i_size %" PRIu64 \
	    " reaches past its last block (%" PRIu64 ")") \
	  M(MSG_SYMLINK_SIZE, "%s: symbolic link i_size %" PRIu64 " (must be 1..%u)") \
	  M(MSG_SYMLINK_BLOCKS, "%s: symbolic link of %" PRIu64 " bytes has %" PRIu64 \
	    " blocks (block 0 only expected)")) \
	X(PR_INO_ORPHAN, SEV_WARNING, 6, FIX_PREEN, \
	  "an inode with no links is still allocated: a file unlinked, or an empty directory removed, while open when the volume crashed, which the kernel never releases (NILFS2 keeps no orphan list); its blocks stay in use", \
	  "released: the inode cleared and its blocks freed, as the last close would have done (older checkpoints keep it)", \
	  M(MSG_INO_ORPHAN, "checkpoint %" PRIu64 ": inode %" PRIu64 \
	    " has no links but is still in use (orphan, mode 0%o, %" PRIu64 " bytes): " \
	    "unlinked while open at a crash, its blocks are never freed")) \
	X(PR_INO_UNATTACHED, SEV_ERROR, 6, FIX_YES, \
	  "an inode in use is not reachable from the root", \
	  "linked into /lost+found as #INO", \
	  M(MSG_DIR_UNREACHABLE, "checkpoint %" PRIu64 ": directory inode %" PRIu64 \
	    " (%u links) is not reachable from the root") \
	  M(MSG_INO_IN_NO_DIR, "checkpoint %" PRIu64 ": inode %" PRIu64 \
	    " (mode 0%o, %u links) is in no directory")) \
	X(PR_INO_LINKS, SEV_ERROR, 6, FIX_YES, \
	  "an inode's link count is wrong", \
	  "set to the entries that name it", \
	  M(MSG_INO_LINKS, "%s: i_links_count %u, but %u directory entries name it")) \
	/* pass 6: directories */ \
	X(PR_DIR_ROOT, SEV_ERROR, 6, FIX_YES, \
	  "the root directory is missing or invalid", \
	  "a new root directory made; what the old one named goes to /lost+found", \
	  M(MSG_ROOT_FREE, "checkpoint %" PRIu64 ": the root directory (inode 2) is not in use") \
	  M(MSG_ROOT_MODE, "checkpoint %" PRIu64 ": the root inode has mode 0%o and %u links")) \
	X(PR_DIR_RECORD, SEV_ERROR, 6, FIX_YES, \
	  "a directory record is malformed", \
	  "the directory rewritten from the records that hold up; what is lost is named", \
	  M(MSG_DIR_BLOCK_READ, "%s: directory block %" PRIu64) \
	  M(MSG_DIR_RECORD_KEPT, "%s: block %" PRIu64 ": directory record at " \
	    "byte %u: %s (entry '%.*s' for inode %" PRIu64 " can be kept)") \
	  M(MSG_DIR_RECORD_ENTRY_LOST, "%s: block %" PRIu64 ": directory record at " \
	    "byte %u: %s (entry '%.*s' for inode %" PRIu64 " is lost)") \
	  M(MSG_DIR_RECORD_BYTES_LOST, "%s: block %" PRIu64 ": directory record at " \
	    "byte %u: %s (bytes %u..%u are lost)")) \
	X(PR_DIR_HOLE, SEV_ERROR, 6, FIX_YES, \
	  "a directory has a missing block", \
	  "the directory rewritten without it; inodes only it named go to /lost+found", \
	  M(MSG_DIR_BLOCK_MISSING, "%s: directory block %" PRIu64 " is missing") \
	  M(MSG_DIR_BLOCKS_MISSING, "%s: directory blocks %" PRIu64 "..%" PRIu64 " are missing")) \
	X(PR_DIR_DOT, SEV_ERROR, 6, FIX_YES, \
	  "a directory's '.' entry is missing or wrong", \
	  "the directory rewritten with '.' naming itself", \
	  M(MSG_DIR_NO_DOT, "%s: directory has no '.' entry first") \
	  M(MSG_DIR_DOT_INODE, "%s: '.' names inode %" PRIu64) \
	  M(MSG_DIR_FIRST_NOT_DOT, "%s: first entry is '%.*s', not '.'")) \
	X(PR_DIR_DOTDOT, SEV_ERROR, 6, FIX_YES, \
	  "a directory's '..' entry is missing or wrong", \
	  "the directory rewritten with '..' naming the parent it is found in", \
	  M(MSG_DIR_NO_DOTDOT, "%s: directory has no '..' entry second") \
	  M(MSG_DIR_DOTDOT_INODE, "%s: '..' names inode %" PRIu64 \
	    ", but the directory is in inode %" PRIu64) \
	  M(MSG_DIR_SECOND_NOT_DOTDOT, "%s: second entry is '%.*s', not '..'")) \
	X(PR_DIR_NAME, SEV_ERROR, 6, FIX_YES, \
	  "a directory entry has an invalid name", \
	  "'/' and NUL become '.'; an empty name or another '.' or '..' entry removed", \
	  M(MSG_DIR_NAME_EMPTY, "%s: block %" PRIu64 ": entry for inode %" PRIu64 \
	    " has an empty name") \
	  M(MSG_DIR_NAME_EXTRA_DOT, "%s: block %" PRIu64 ": another '%s' entry (inode %" PRIu64 \
	    ")") \
	  M(MSG_DIR_NAME_SLASH_NUL, "%s: entry '%.*s' (inode %" PRIu64 \
	    ") has '/' or NUL in its name")) \
	X(PR_DIR_DUP, SEV_ERROR, 6, FIX_YES, \
	  "a directory has two entries of one name", \
	  "the second renamed NAME~N (removed if it names the same inode)", \
	  M(MSG_DIR_DUP_SAME_INODE, "%s: a second entry named '%.*s' for the same inode %" PRIu64) \
	  M(MSG_DIR_DUP_NAME, "%s: a second entry named '%.*s' (inode %" PRIu64 ")")) \
	X(PR_DIR_FREE_INODE, SEV_ERROR, 6, FIX_YES, \
	  "a directory entry names an inode not in use", \
	  "the inode marked in use again if its slot still holds it, else the entry removed", \
	  M(MSG_DIR_ENTRY_FREE_INODE, "%s: entry '%.*s' names inode %" PRIu64 \
	    ", which is not in use")) \
	X(PR_DIR_TYPE, SEV_ERROR, 6, FIX_YES, \
	  "a directory entry's file type disagrees with the inode", \
	  "set to the inode's type", \
	  M(MSG_DIR_ENTRY_TYPE, "%s: entry type %u, but inode %" PRIu64 " has mode 0%o")) \
	X(PR_DIR_LINKED, SEV_ERROR, 6, FIX_YES, \
	  "a directory is linked from more than one place", \
	  "the entries after the first one found removed", \
	  M(MSG_DIR_LINKED_TWICE, "%s: directory is also linked from elsewhere (a second link or a " \
	    "cycle)")) \
	/* any pass */ \
	X(PR_IO, SEV_ERROR, 0, FIX_NONE, \
	  "an I/O or memory error stopped part of the check", \
	  "", \
	  M(MSG_OOM_BLOCK_MAPS, "out of memory for the block maps of %llu blocks") \
	  M(MSG_OOM_VIRTUAL_SETS, "out of memory for the sets of virtual blocks: the check is " \
	    "incomplete") \
	  M(MSG_OOM_CPFILE, "cpfile: out of memory") \
	  M(MSG_OOM_DAT, "DAT: out of memory") \
	  M(MSG_OOM_DIR_ENTRY, "%s: out of memory") \
	  M(MSG_OOM_TREE_WALK, "checkpoint %" PRIu64 ": out of memory walking the tree") \
	  M(MSG_OOM_INODES, "checkpoint %" PRIu64 ": out of memory for %" PRIu64 " inodes") \
	  M(MSG_SR_READ, "segment %" PRIu64 ": super root block %" PRIu64 ": %s") \
	  M(MSG_SEGMENT_READ, "segment %" PRIu64) \
	  M(MSG_OOM_SEGMENTS, "segments: out of memory") \
	  M(MSG_DEVICE_SIZE, "cannot get the device size: %s") \
	  M(MSG_SB_NONE_READ, "cannot read either superblock: %s") \
	  M(MSG_OOM_SEGMENT_USAGE, "sufile: out of memory for %llu segments"))

/* a row without its messages */
#define FSCK_PR_NO_MSG(id, fmt)

enum fsck_pr {
#define FSCK_PR_ENUM(code, sev, pass, fix, desc, action, msgs) code,
	FSCK_PROBLEMS(FSCK_PR_ENUM, FSCK_PR_NO_MSG)
#undef FSCK_PR_ENUM
	PR_COUNT
};

/* A message's number carries its problem's code above the low 8 bits
 * (the code of a message is a shift, not a second table). */
enum fsck_msg {
#define FSCK_MSG_ROW(code, sev, pass, fix, desc, action, msgs) \
	code##_MSGS = (code) << 8, msgs code##_MSGS_END,
#define FSCK_MSG_ENUM(id, fmt) id,
	FSCK_PROBLEMS(FSCK_MSG_ROW, FSCK_MSG_ENUM)
#undef FSCK_MSG_ROW
#undef FSCK_MSG_ENUM
};

#define FSCK_MSG_LIMIT(code, sev, pass, fix, desc, action, msgs) \
	_Static_assert(code##_MSGS_END <= ((code) + 1) << 8, #code ": too many messages");
FSCK_PROBLEMS(FSCK_MSG_LIMIT, FSCK_PR_NO_MSG)
#undef FSCK_MSG_LIMIT

/* the templates, as constants the compiler checks a call's arguments
 * against (fsck_problem() in fsck.h names fsck_fmt_ID) */
#define FSCK_MSG_ROWS(code, sev, pass, fix, desc, action, msgs) msgs
#define FSCK_MSG_FMT(id, fmt) static const char fsck_fmt_##id[] = fmt;
FSCK_PROBLEMS(FSCK_MSG_ROWS, FSCK_MSG_FMT)
#undef FSCK_MSG_FMT

static inline enum fsck_pr fsck_msg_code(enum fsck_msg msg)
{
	return (enum fsck_pr)(msg >> 8);
}

struct fsck_problem_def {
	const char *name;          /* "PR_SB_CRC" */
	enum fsck_severity severity;
	int pass;
	enum fsck_fix fix;
	const char *desc;
	const char *action;        /* what -y does ("" for FIX_NONE) */
};

extern const struct fsck_problem_def fsck_problems[PR_COUNT];

/* every message, for the table's tests */
struct fsck_message_def {
	enum fsck_msg id;
	const char *name;          /* "MSG_SB_CRC" */
	const char *fmt;
};

extern const struct fsck_message_def fsck_messages[];
extern const unsigned fsck_nmessages;

/* Can the problems found be repaired in this mode?  Preen (-p) repairs
 * only what needs no judgement; -y everything a repair exists for. */
bool fix_is_repairable(enum fsck_pr code, bool preen);

#endif /* FSCK_PROBLEM_H */
