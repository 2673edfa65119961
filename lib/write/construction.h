/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The construction as the layers above the writer (gc/, repair/) work on
 * it: its metadata files' blocks and entries, by inode number, and the
 * few facts of its state they decide by.  Internal to the library (not a
 * public header), and not private to write/ either: the writer's private
 * header (writerP.h, its fields) stays inside write/.  Every function is
 * in construction.c.
 */
#ifndef NLFS_CONSTRUCTION_H
#define NLFS_CONSTRUCTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nlfs/writer.h>

/* The volume the construction continues (NULL for a new one). */
struct nlfs_fs *nlfs_writer_fs(const struct nlfs_writer *w);
/* The segments kept in reserve (s_r_segments_percentage of the volume). */
uint64_t nlfs_writer_reserved_segments(const struct nlfs_writer *w);
/* The segment the construction's logs name as the next after theirs. */
uint64_t nlfs_writer_next_segment(const struct nlfs_writer *w);
/* A checkpoint change (an entry of the cpfile set right) the commit
 * must write even if nothing else changes (nlfs_writer_cp_changes). */
void nlfs_writer_note_cp_change(struct nlfs_writer *w);

/* The metadata files of the construction, INO one of NLFS_DAT_INO,
 * NLFS_CPFILE_INO, NLFS_SUFILE_INO and NLFS_IFILE_INO (any other is a
 * caller's bug: -EINVAL, and NULL or 0 where nothing is returned). */
/* The size of INO's entries. */
uint32_t nlfs_writer_entry_size(const struct nlfs_writer *w, uint64_t ino);
/* INO's inode as the construction will write it (into the super root or
 * the checkpoint), for changing. */
struct nlfs_inode *nlfs_writer_mdt_inode(struct nlfs_writer *w, uint64_t ino);
/* Block BLKOFF of INO as the construction has it (*BLK NULL: a hole),
 * and for writing (a hole becomes a zeroed block).  0; as
 * nlfs_file_read_block; -ENOMEM. */
int nlfs_writer_mdt_read(struct nlfs_writer *w, uint64_t ino, uint64_t blkoff, uint8_t **blk,
			 struct nlfs_err *err);
int nlfs_writer_mdt_write(struct nlfs_writer *w, uint64_t ino, uint64_t blkoff, uint8_t **blk,
			  struct nlfs_err *err);
/* Block BLKOFF of INO written again as it is (the cleaner moving it); a
 * hole, or a block the construction dropped, stays one: *REWRITTEN says
 * which.  0; as nlfs_writer_mdt_read. */
int nlfs_writer_mdt_rewrite(struct nlfs_writer *w, uint64_t ino, uint64_t blkoff,
			    bool *rewritten, struct nlfs_err *err);
/* Block BLKOFF of INO dropped (it becomes a hole).  0; as
 * nlfs_writer_mdt_read. */
int nlfs_writer_mdt_punch(struct nlfs_writer *w, uint64_t ino, uint64_t blkoff,
			  struct nlfs_err *err);
/* INO's block map before this construction: *N data blocks, their offsets
 * ascending in *KEYS and their pointers in *PTRS (the writer's, valid
 * until it is freed).  0; as nlfs_bmap_iterate; -ENOMEM. */
int nlfs_writer_mdt_old_map(struct nlfs_writer *w, uint64_t ino, const uint64_t **keys,
			    const uint64_t **ptrs, size_t *n, struct nlfs_err *err);
/* The pointer block BLKOFF of INO had before this construction (0: a
 * hole).  0; as nlfs_writer_mdt_old_map. */
int nlfs_writer_mdt_old_ptr(struct nlfs_writer *w, uint64_t ino, uint64_t blkoff, uint64_t *ptr,
			    struct nlfs_err *err);

/* VBN's DAT entry as the construction has it, read-only and on-disk
 * (little-endian); *E is NULL when VBN is not allocated.  0; as
 * nlfs_writer_mdt_read. */
int nlfs_writer_dat_peek(struct nlfs_writer *w, uint64_t vbn, const struct nlfs_dat_entry **e,
			 struct nlfs_err *err);

/* The construction is a cleaner's from now on (its logs carry
 * NLFS_SS_GC), to give up segment SEGNUM (nlfs_writer_release_segment
 * once its blocks are moved); *DONE if it was given up already, and
 * nothing changes then.  0; -EINVAL for a writer of a new volume or while
 * a file is open; -EBUSY for a segment the writer uses. */
int nlfs_writer_gc_begin(struct nlfs_writer *w, uint64_t segnum, bool *done,
			 struct nlfs_err *err);

#endif /* NLFS_CONSTRUCTION_H */
