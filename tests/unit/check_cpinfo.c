/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's view of the cpfile and sufile (GET_CPINFO, GET_SUINFO and
 * their stat calls), the segment walk and the liveness rule, on a volume
 * made by nilfs-tools' mkfs.nilfs2, patched and resealed where a case
 * needs a snapshot or a stale ACTIVE bit. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include <nlfs/endian.h>
#include <nlfs/nlfs.h>
#include <nlfs/gc.h>

/* the liveness rule, in the argument order these cases were written in */
static bool vblock_live(uint64_t fi_cno, uint64_t start, uint64_t end, uint64_t protcno,
			const uint64_t *ss, size_t nss)
{
	struct nlfs_gc_protect p = { ss, nss, protcno };

	return nlfs_gc_block_live(&p, fi_cno, start, end);
}

static char img[] = "/tmp/nlfs-cpinfo-XXXXXX";
static int have_image;

#define NEED_IMAGE() do { if (!have_image) { fputs("no mkfs image: skipped\n", stderr); return; } } while (0)

static void make_image(void)
{
	const char *mkfs = access("/sbin/mkfs.nilfs2", X_OK) == 0 ? "/sbin/mkfs.nilfs2" :
			   access("/usr/sbin/mkfs.nilfs2", X_OK) == 0 ? "/usr/sbin/mkfs.nilfs2" : NULL;
	char cmd[256];
	int fd = mkstemp(img);

	if (fd < 0 || !mkfs) {
		fprintf(stderr, "mkfs.nilfs2 not installed: cpinfo cases check nothing\n");
		return;
	}
	if (ftruncate(fd, 256 << 20) == 0) {
		snprintf(cmd, sizeof(cmd), "%s -q -f -b 4096 %s >/dev/null 2>&1", mkfs, img);
		have_image = system(cmd) == 0;
	}
	close(fd);
}

static struct nlfs_fs *open_image(void)
{
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	struct nlfs_err err;

	ck_assert_int_eq(nlfs_io_open_unix(img, NLFS_IO_RDONLY, &io), 0);
	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	return fs;
}

/* the disk address of block BLKOFF of root metadata file INO */
static uint64_t mdt_block(struct nlfs_fs *fs, unsigned ino, uint64_t blkoff)
{
	struct nlfs_file f;
	struct nlfs_err err;
	uint64_t ptr, blk;

	nlfs_fs_mdt_file(fs, ino, &f);
	ck_assert_int_eq(nlfs_bmap_lookup(fs, &f, blkoff, &ptr, &err), 0);
	ck_assert_int_eq(nlfs_file_block_addr(fs, &f, ptr, &blk, &err), 0);
	return blk;
}

static void put32_at(int fd, uint64_t off, uint32_t v)
{
	nlfs_le32_t le = nlfs_cpu_to_le32(v);

	ck_assert_int_eq(pwrite(fd, &le, 4, (off_t)off), 4);
}

static void put64_at(int fd, uint64_t off, uint64_t v)
{
	nlfs_le64_t le = nlfs_cpu_to_le64(v);

	ck_assert_int_eq(pwrite(fd, &le, 8, (off_t)off), 8);
}

/* recompute ss_datasum of the log at START after its blocks were edited */
static void reseal(int fd, uint32_t seed, uint64_t start, uint32_t bs)
{
	uint8_t *buf = malloc(bs);
	uint32_t nblocks, crc;

	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(pread(fd, buf, bs, (off_t)(start * bs)), (ssize_t)bs);
	nblocks = nlfs_get_le32(buf + 0x28);
	crc = nlfs_crc32(seed, buf + 4, bs - 4);
	for (uint32_t i = 1; i < nblocks; i++) {
		ck_assert_int_eq(pread(fd, buf, bs, (off_t)((start + i) * bs)), (ssize_t)bs);
		crc = nlfs_crc32(crc, buf, bs);
	}
	put32_at(fd, start * bs, crc);
	free(buf);
}

START_TEST(cpstat_and_the_one_checkpoint_mkfs_writes)
{
	struct nlfs_fs *fs;
	struct nlfs_cpstat st;
	struct nlfs_cpinfo ci[4];
	struct nlfs_err err;
	uint64_t cno;
	size_t got;

	NEED_IMAGE();
	fs = open_image();
	ck_assert_int_eq(nlfs_cpfile_stat(fs, &st, &err), 0);
	ck_assert_uint_eq(st.cno, 2);
	ck_assert_uint_eq(st.ncps, 1);
	ck_assert_uint_eq(st.nsss, 0);
	cno = 1;
	ck_assert_int_eq(nlfs_cpfile_list(fs, &cno, NLFS_CPINFO_CHECKPOINTS, ci, 4, &got, &err), 0);
	ck_assert_uint_eq(got, 1);
	ck_assert_uint_eq(ci[0].cno, 1);
	ck_assert_uint_eq(ci[0].flags, 0);
	ck_assert_uint_eq(ci[0].blocks_count, 4);
	ck_assert_uint_eq(ci[0].nblk_inc, 11);
	ck_assert_uint_gt(ci[0].create, 0);
	ck_assert_uint_eq(cno, 2);                    /* where to continue */
	ck_assert_int_eq(nlfs_cpfile_list(fs, &cno, NLFS_CPINFO_CHECKPOINTS, ci, 4, &got, &err), 0);
	ck_assert_uint_eq(got, 0);
	cno = 0;                                      /* there is no checkpoint 0 */
	ck_assert_int_eq(nlfs_cpfile_list(fs, &cno, NLFS_CPINFO_CHECKPOINTS, ci, 4, &got, &err),
			 -EINVAL);
	ck_assert_int_eq(nlfs_cpfile_list(fs, &cno, NLFS_CPINFO_SNAPSHOTS, ci, 4, &got, &err), 0);
	ck_assert_uint_eq(got, 0);
	ck_assert_int_eq(nlfs_cpfile_list(fs, &cno, (enum nlfs_cpinfo_mode)7, ci, 4, &got, &err),
			 -EINVAL);
	nlfs_fs_close(fs);
}
END_TEST

START_TEST(sufile_view_masks_the_disk_active_bit)
{
	struct nlfs_fs *fs;
	struct nlfs_sustat st;
	struct nlfs_suinfo si[8];
	struct nlfs_err err;
	uint64_t seg[2], nsegs, blk, log;
	uint32_t bs, seed;
	size_t got;
	int fd;

	NEED_IMAGE();
	fs = open_image();
	nsegs = nlfs_fs_geometry(fs)->nsegments;
	ck_assert_int_eq(nlfs_fs_active_segments(fs, seg, &err), 0);
	ck_assert_uint_eq(seg[0], 0);                 /* mkfs's log */
	ck_assert_uint_eq(seg[1], 1);                 /* its ss_next */
	ck_assert_int_eq(nlfs_sufile_stat(fs, &st, &err), 0);
	ck_assert_uint_eq(st.nsegs, nsegs);
	ck_assert_uint_eq(st.ncleansegs, nsegs - 2);
	ck_assert_uint_eq(st.ndirtysegs, 2);
	ck_assert_uint_eq(st.prot_seq, 0);
	ck_assert_uint_gt(st.ctime, 0);
	ck_assert_int_eq(nlfs_sufile_list(fs, 0, si, 4, &got, &err), 0);
	ck_assert_uint_eq(got, 4);
	ck_assert_uint_eq(si[0].flags, NLFS_SEGMENT_USAGE_ACTIVE | NLFS_SEGMENT_USAGE_DIRTY);
	ck_assert_uint_eq(si[0].nblocks, 11);
	ck_assert_uint_eq(si[0].lastmod, st.ctime);
	ck_assert_uint_eq(si[1].flags, NLFS_SEGMENT_USAGE_ACTIVE | NLFS_SEGMENT_USAGE_DIRTY);
	ck_assert_uint_eq(si[2].flags, 0);
	ck_assert_int_eq(nlfs_sufile_list(fs, nsegs - 1, si, 8, &got, &err), 0);
	ck_assert_uint_eq(got, 1);                    /* never past the last segment */
	ck_assert_int_eq(nlfs_sufile_list(fs, nsegs, si, 8, &got, &err), 0);
	ck_assert_uint_eq(got, 0);
	/* segment 5 marked ACTIVE|DIRTY on disk is only dirty for the kernel */
	bs = nlfs_fs_geometry(fs)->blocksize;
	seed = nlfs_le32(nlfs_fs_sb(fs, NLFS_SB_PRIMARY)->s_crc_seed);
	blk = mdt_block(fs, NLFS_SUFILE_INO, 0);
	log = nlfs_fs_recovery(fs)->sr_log;
	nlfs_fs_close(fs);
	fd = open(img, O_RDWR);
	ck_assert_int_ge(fd, 0);
	put32_at(fd, blk * bs + (5 + 2) * 16 + 12, NLFS_SEGMENT_USAGE_ACTIVE | NLFS_SEGMENT_USAGE_DIRTY);
	reseal(fd, seed, log, bs);
	close(fd);
	fs = open_image();
	ck_assert_int_eq(nlfs_sufile_list(fs, 5, si, 1, &got, &err), 0);
	ck_assert_uint_eq(si[0].flags, NLFS_SEGMENT_USAGE_DIRTY);
	nlfs_fs_close(fs);
}
END_TEST

/* cpfile block 0, which holds the header and checkpoint 1's entry (slot
 * 1, 192 bytes each), and what a patch of it needs to reseal its log */
struct cp_block {
	uint64_t blk, log;
	uint32_t bs, seed;
};

static void find_cp_block(struct cp_block *cb)
{
	struct nlfs_fs *fs = open_image();

	cb->bs = nlfs_fs_geometry(fs)->blocksize;
	cb->seed = nlfs_le32(nlfs_fs_sb(fs, NLFS_SB_PRIMARY)->s_crc_seed);
	cb->blk = mdt_block(fs, NLFS_CPFILE_INO, 0);
	cb->log = nlfs_fs_recovery(fs)->sr_log;
	nlfs_fs_close(fs);
}

/* checkpoint 1 the only snapshot: the header's count and both ends of its
 * list, the entry's flag (not resealed) */
static void make_only_snapshot(int fd, const struct cp_block *cb)
{
	uint64_t at = cb->blk * cb->bs;

	put64_at(fd, at + 8, 1);
	put64_at(fd, at + 16, 1);
	put64_at(fd, at + 24, 1);
	put32_at(fd, at + 192, NLFS_CHECKPOINT_SNAPSHOT);
}

/* A listing goes on where its walk stopped, whatever number a damaged
 * entry gives itself: from its own cp_cno a caller that lists until no
 * more come (fsck's read-ahead, lscp) went back to it for ever, and the
 * snapshot list's links were held against it */
START_TEST(listings_move_on_past_a_damaged_number)
{
	static const uint64_t damaged[] = { 0, 5, UINT64_MAX };
	uint8_t head[32], entry[48];   /* the cpfile header's counts and list, entry 1's start */
	struct cp_block cb;
	struct nlfs_fs *fs;
	struct nlfs_cpinfo ci[4];
	struct nlfs_err err;
	uint64_t at, cno;   /* AT: cpfile block 0, in bytes */
	size_t got;
	int fd;

	NEED_IMAGE();
	find_cp_block(&cb);
	at = cb.blk * cb.bs;
	fd = open(img, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, head, sizeof(head), (off_t)at), (ssize_t)sizeof(head));
	ck_assert_int_eq(pread(fd, entry, sizeof(entry), (off_t)(at + 192)),
			 (ssize_t)sizeof(entry));
	close(fd);
	for (size_t i = 0; i < sizeof(damaged) / sizeof(damaged[0]); i++) {
		/* checkpoint 1's entry (slot 1 of block 0) calls itself another */
		fd = open(img, O_RDWR);
		ck_assert_int_ge(fd, 0);
		put64_at(fd, at + 192 + offsetof(struct nlfs_checkpoint, cp_cno),
			 damaged[i]);
		reseal(fd, cb.seed, cb.log, cb.bs);
		close(fd);
		fs = open_image();
		cno = 1;
		ck_assert_int_eq(nlfs_cpfile_list(fs, &cno, NLFS_CPINFO_CHECKPOINTS, ci, 4, &got,
						  &err), 0);
		ck_assert_uint_eq(got, 1);
		ck_assert_uint_eq(cno, 2);   /* past the latest: the listing has ended */
		ck_assert_int_eq(nlfs_cpfile_list(fs, &cno, NLFS_CPINFO_CHECKPOINTS, ci, 4, &got,
						  &err), 0);
		ck_assert_uint_eq(got, 0);
		nlfs_fs_close(fs);
	}
	/* the same entry a snapshot whose link leads back to itself (the
	 * header's list to it, its number damaged to 0 so that the link
	 * looks ascending from it): an error, not a walk round for ever */
	fd = open(img, O_RDWR);
	ck_assert_int_ge(fd, 0);
	make_only_snapshot(fd, &cb);
	put64_at(fd, at + 192 + offsetof(struct nlfs_checkpoint, cp_snapshot_next), 1);
	put64_at(fd, at + 192 + offsetof(struct nlfs_checkpoint, cp_cno), 0);
	reseal(fd, cb.seed, cb.log, cb.bs);
	close(fd);
	fs = open_image();
	cno = 0;
	ck_assert_int_eq(nlfs_cpfile_list(fs, &cno, NLFS_CPINFO_SNAPSHOTS, ci, 4, &got, &err),
			 -NLFS_ECORRUPT);
	ck_assert_msg(strstr(err.what, "not ascending: 1 after 1"), "%s", err.what);
	nlfs_fs_close(fs);
	/* and back as mkfs wrote it, for the cases after */
	fd = open(img, O_RDWR);
	ck_assert_int_eq(pwrite(fd, head, sizeof(head), (off_t)at), (ssize_t)sizeof(head));
	ck_assert_int_eq(pwrite(fd, entry, sizeof(entry), (off_t)(at + 192)),
			 (ssize_t)sizeof(entry));
	reseal(fd, cb.seed, cb.log, cb.bs);
	close(fd);
}
END_TEST

START_TEST(snapshot_list_follows_the_cpfile_links)
{
	struct cp_block cb;
	struct nlfs_fs *fs;
	struct nlfs_cpstat st;
	struct nlfs_cpinfo ci[4];
	struct nlfs_err err;
	uint64_t at, cno;   /* AT: cpfile block 0, in bytes */
	size_t got;
	int fd;

	NEED_IMAGE();
	find_cp_block(&cb);
	at = cb.blk * cb.bs;
	fd = open(img, O_RDWR);
	ck_assert_int_ge(fd, 0);
	make_only_snapshot(fd, &cb);
	reseal(fd, cb.seed, cb.log, cb.bs);
	close(fd);

	fs = open_image();
	ck_assert_int_eq(nlfs_cpfile_stat(fs, &st, &err), 0);
	ck_assert_uint_eq(st.nsss, 1);
	cno = 0;
	ck_assert_int_eq(nlfs_cpfile_list(fs, &cno, NLFS_CPINFO_SNAPSHOTS, ci, 4, &got, &err), 0);
	ck_assert_uint_eq(got, 1);
	ck_assert_uint_eq(ci[0].cno, 1);
	ck_assert_uint_eq(ci[0].flags, NLFS_CHECKPOINT_SNAPSHOT);
	ck_assert_uint_eq(ci[0].next, 0);
	ck_assert_uint_eq(cno, UINT64_MAX);           /* the list has ended */
	ck_assert_int_eq(nlfs_cpfile_list(fs, &cno, NLFS_CPINFO_SNAPSHOTS, ci, 4, &got, &err), 0);
	ck_assert_uint_eq(got, 0);
	nlfs_fs_close(fs);

	/* an invalid entry is neither listed nor followed */
	fd = open(img, O_RDWR);
	put32_at(fd, at + 192, NLFS_CHECKPOINT_SNAPSHOT | NLFS_CHECKPOINT_INVALID);
	reseal(fd, cb.seed, cb.log, cb.bs);
	close(fd);
	fs = open_image();
	cno = 1;
	ck_assert_int_eq(nlfs_cpfile_list(fs, &cno, NLFS_CPINFO_CHECKPOINTS, ci, 4, &got, &err), 0);
	ck_assert_uint_eq(got, 0);
	cno = 0;
	ck_assert_int_eq(nlfs_cpfile_list(fs, &cno, NLFS_CPINFO_SNAPSHOTS, ci, 4, &got, &err), 0);
	ck_assert_uint_eq(got, 0);
	nlfs_fs_close(fs);
}
END_TEST

struct files {
	unsigned nfinfo, nblocks;
	uint64_t inos;                                /* bit per inode number < 64 */
};

static int count_blocks(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi,
			void *arg)
{
	struct files *f = arg;

	if (!bi || bi->index == 0)
		f->nfinfo++;
	if (bi)
		f->nblocks++;
	if (fi->ino < 64)
		f->inos |= 1ull << fi->ino;
	return 0;
}

START_TEST(segment_walk_sees_the_mkfs_log)
{
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct files f = { 0 };
	uint64_t seq = 99;

	NEED_IMAGE();
	fs = open_image();
	ck_assert_int_eq(nlfs_segment_walk(fs, 0, 11, 0, &seq, count_blocks, &f, &err), 0);
	ck_assert_uint_eq(seq, 0);
	/* root dir, DAT, cpfile, sufile, ifile (and mkfs 2.2.9's .nilfs file) */
	ck_assert_uint_ge(f.nfinfo, 5);
	ck_assert_uint_eq(f.inos & 0x7c, 0x7c);
	ck_assert_uint_ge(f.nblocks, 5);
	memset(&f, 0, sizeof(f));
	ck_assert_int_eq(nlfs_segment_walk(fs, 0, 0, 0, &seq, count_blocks, &f, &err), 0);
	ck_assert_uint_eq(f.nfinfo, 0);               /* nothing written there */
	ck_assert_int_eq(nlfs_segment_walk(fs, 1, 0, 0, NULL, count_blocks, &f, &err), 0);
	ck_assert_int_eq(nlfs_segment_walk(fs, nlfs_fs_geometry(fs)->nsegments, 1, 0, NULL,
					   count_blocks, &f, &err), -ERANGE);
	nlfs_fs_close(fs);
}
END_TEST

START_TEST(liveness_rule_of_the_cleaner)
{
	const uint64_t ss[] = { 10, 20, 30 };
	const uint64_t MAX = NLFS_CNO_MAX;

	/* cpfile/sufile blocks: current or dead, whatever the snapshots */
	ck_assert(vblock_live(0, 5, MAX, 7, ss, 3));
	ck_assert(!vblock_live(0, 5, 25, MAX, ss, 3));
	/* overwritten inside its own checkpoint */
	ck_assert(!vblock_live(12, 12, 12, MAX, ss, 3));
	/* current, or seen by a protected checkpoint */
	ck_assert(vblock_live(3, 3, MAX, MAX, ss, 3));
	ck_assert(vblock_live(3, 3, 9, 8, ss, 3));
	ck_assert(!vblock_live(3, 3, 8, 8, ss, 3));
	/* else only a snapshot in [start, end) keeps it */
	ck_assert(vblock_live(11, 11, 21, MAX, ss, 3));
	ck_assert(vblock_live(20, 20, 21, MAX, ss, 3));
	ck_assert(!vblock_live(11, 11, 20, MAX, ss, 3));
	ck_assert(!vblock_live(31, 31, 40, MAX, ss, 3));
	ck_assert(!vblock_live(1, 1, 10, MAX, ss, 3));
	ck_assert(vblock_live(1, 1, 11, MAX, ss, 3));
	ck_assert(!vblock_live(1, 1, 11, MAX, NULL, 0));
	ck_assert(nlfs_seq_ge(5, 5) && nlfs_seq_ge(6, 5) && !nlfs_seq_ge(4, 5));
	ck_assert(nlfs_seq_ge(1, UINT64_MAX));        /* across the wrap */
}
END_TEST

/* the header counts' rules (read/counts.c), as the kernel keeps them */
START_TEST(header_counts_follow_the_kernels_rules)
{
	uint8_t desc[8] = { 0 };
	struct nlfs_palloc_group pg = { .desc = desc, .nfrees = 7 };

	ck_assert(nlfs_su_flags_clean(0) && !nlfs_su_flags_dirty(0));
	ck_assert(nlfs_su_flags_dirty(NLFS_SEGMENT_USAGE_DIRTY | NLFS_SEGMENT_USAGE_ACTIVE));
	ck_assert(nlfs_su_flags_dirty(NLFS_SEGMENT_USAGE_DIRTY | NLFS_SEGMENT_USAGE_ERROR));
	/* neither: counted in no header field */
	ck_assert(!nlfs_su_flags_clean(NLFS_SEGMENT_USAGE_ERROR) &&
		  !nlfs_su_flags_dirty(NLFS_SEGMENT_USAGE_ERROR));
	ck_assert(!nlfs_su_flags_clean(NLFS_SEGMENT_USAGE_ACTIVE));

	ck_assert(nlfs_cp_flags_valid(0) && !nlfs_cp_flags_snapshot(0));
	ck_assert(nlfs_cp_flags_valid(NLFS_CHECKPOINT_MINOR));
	ck_assert(nlfs_cp_flags_snapshot(NLFS_CHECKPOINT_SNAPSHOT));
	ck_assert(!nlfs_cp_flags_valid(NLFS_CHECKPOINT_INVALID | NLFS_CHECKPOINT_SNAPSHOT));
	ck_assert(!nlfs_cp_flags_snapshot(NLFS_CHECKPOINT_INVALID | NLFS_CHECKPOINT_SNAPSHOT));

	ck_assert_uint_eq(nlfs_palloc_group_nfree(&pg, 32768), 7);
	pg.desc_hole = true;   /* every group the hole covers is empty */
	ck_assert_uint_eq(nlfs_palloc_group_nfree(&pg, 32768), 32768);
}
END_TEST

/* a cpfile block's count is the checkpoints valid in it (snapshots among
 * them); block 0, whose first slot is the header, keeps none */
START_TEST(cpfile_block_count_is_its_valid_checkpoints)
{
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_checkpoint *cp;
	uint32_t esz, bs;
	uint64_t n = 99;
	uint8_t *blk;

	NEED_IMAGE();
	fs = open_image();
	esz = nlfs_le16(nlfs_fs_sb(fs, nlfs_fs_sb_choice(fs)->used)->s_checkpoint_size);
	bs = nlfs_fs_geometry(fs)->blocksize;
	ck_assert_ptr_nonnull(blk = calloc(1, bs));
	for (uint32_t k = 0; k < bs / esz; k++)
		((struct nlfs_checkpoint *)(void *)(blk + k * esz))->cp_flags =
			nlfs_cpu_to_le32(NLFS_CHECKPOINT_INVALID);
	cp = (struct nlfs_checkpoint *)(void *)blk;
	ck_assert_int_eq(nlfs_cpfile_block_count_check(fs, 1, blk, &n, &err), 0);
	ck_assert_uint_eq(n, 0);
	/* entries 0, 3 and 5 valid, 5 a snapshot */
	cp->cp_flags = 0;
	((struct nlfs_checkpoint *)(void *)(blk + 3 * esz))->cp_flags = nlfs_cpu_to_le32(NLFS_CHECKPOINT_MINOR);
	((struct nlfs_checkpoint *)(void *)(blk + 5 * esz))->cp_flags = nlfs_cpu_to_le32(NLFS_CHECKPOINT_SNAPSHOT);
	cp->cp_checkpoints_count = nlfs_cpu_to_le32(3);
	ck_assert_int_eq(nlfs_cpfile_block_count_check(fs, 2, blk, &n, &err), 0);
	ck_assert_uint_eq(n, 3);
	/* too few for a deletion, or more than it holds: either is damage */
	for (uint32_t count = 0; count < 300; count += 299) {
		cp->cp_checkpoints_count = nlfs_cpu_to_le32(count);
		ck_assert_int_eq(nlfs_cpfile_block_count_check(fs, 2, blk, NULL, &err), -NLFS_EDAMAGED);
		ck_assert_msg(strstr(err.what, "cpfile block 2: count ") &&
			      strstr(err.what, ", but 3 checkpoints are valid"), "%s", err.what);
	}
	cp->cp_checkpoints_count = nlfs_cpu_to_le32(2);
	ck_assert_int_eq(nlfs_cpfile_block_count_check(fs, 2, blk, NULL, NULL), -NLFS_EDAMAGED);
	/* fsck's and the repair's count stops at the latest checkpoint: an
	 * entry past it is not one yet (block 2's entry 3 is checkpoint
	 * 2 * epb + 4 - first) */
	{
		uint64_t e3 = 2 * (bs / esz) + 4 - nlfs_cpfile_first_slot(esz);
		uint32_t count = 0;

		ck_assert(nlfs_cpfile_block_counts(esz, bs, 2, blk, e3, &count, &n));
		ck_assert_uint_eq(count, 2);
		ck_assert_uint_eq(n, 2);
		ck_assert(nlfs_cpfile_block_counts(esz, bs, 2, blk, e3 - 1, &count, &n));
		ck_assert_uint_eq(n, 1);
		ck_assert(!nlfs_cpfile_block_counts(esz, bs, 0, blk, UINT64_MAX, &count, &n));
	}
	/* block 0: the header's slots are not entries, and there is no count */
	ck_assert_int_eq(nlfs_cpfile_block_count_check(fs, 0, blk, &n, &err), 0);
	ck_assert_uint_eq(n, 2 + (nlfs_cpfile_first_slot(esz) == 0));
	/* the vet of a range reads each block's count: mkfs's one checkpoint */
	ck_assert_int_eq(nlfs_fs_vet_cp_range(fs, 1, 2, &err), 0);
	free(blk);
	nlfs_fs_close(fs);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cpinfo");
	TCase *tc = tcase_create("cpinfo");
	int rc;

	make_image();
	/* the patching cases edit the image: each runs after the clean ones */
	tcase_add_test(tc, cpstat_and_the_one_checkpoint_mkfs_writes);
	tcase_add_test(tc, segment_walk_sees_the_mkfs_log);
	tcase_add_test(tc, liveness_rule_of_the_cleaner);
	tcase_add_test(tc, header_counts_follow_the_kernels_rules);
	tcase_add_test(tc, cpfile_block_count_is_its_valid_checkpoints);
	tcase_add_test(tc, sufile_view_masks_the_disk_active_bit);
	tcase_add_test(tc, listings_move_on_past_a_damaged_number);
	tcase_add_test(tc, snapshot_list_follows_the_cpfile_links);
	suite_add_tcase(s, tc);
	rc = run_suite(s);
	unlink(img);
	return rc;
}
