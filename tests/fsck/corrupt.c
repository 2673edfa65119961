/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * corrupt - make one damaged image from a good one, for the fsck tests.
 *
 *   corrupt --list            print "NAME BASE OPTIONS LOST" for every case
 *   corrupt NAME IMAGE        damage IMAGE in place as case NAME says
 *   corrupt --links PATH N IMAGE
 *                             set the link count of PATH's inode to N
 *   corrupt --random SEED IMAGE
 *                             one fault drawn from SEED (corrupt_random.c)
 *   corrupt --cp-count CNO N IMAGE
 *                             set the checkpoint count of the cpfile block
 *                             that holds checkpoint CNO to N
 *
 * BASE is "mkfs" (nilfs-tools' mkfs.nilfs2, 4 KiB blocks), "kernel"
 * (tests/fsck/images/kernel-1k.img.xz, written by the real kernel with 1 KiB
 * blocks) or "rich" (tests/fsck/images/kernel-rich.img.xz, written by the
 * real kernel with 1 KiB blocks by images/make-rich.sh: 69 checkpoints,
 * snapshots 11, 28 and 41, /big a three-level B-tree, /medium two levels,
 * /sparse-far a root that holds data blocks (keys 0, 5000, 30000), hard links, symlinks, nested
 * and empty directories; kernel-rich.manifest and kernel-rich.snapN.manifest
 * describe its trees).  The library locates the structures; each case then changes a
 * few bytes and, unless the fault is a checksum, recomputes the checksums
 * of the log (or superblock) it touched, the way a buggy writer would
 * have left it.  One case, one fault.  A case named good_* damages
 * nothing: it writes a valid volume of an unusual shape through the
 * library's writer, which must check clean.  OPTIONS are extra fsck options the
 * case needs, separated by commas ("-" for none).  LOST is what
 * "fsck.nilfs2 -y" may take away from the latest tree to repair the damage:
 * comma-separated absolute paths of the base's tree, each with everything
 * below it ("-" for none; a file moved to /lost+found counts as lost from
 * its path).  Every other file of the base's manifest must read back the
 * same after -y (tests/kernel/t-fsck-repair.sh); tests/fsck/lost-paths.sh
 * lists what -y takes away in each case, read back by dump.nilfs2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>
#include <nlfs/repair.h>

#include "corrupt.h"

const char *img;
int fd;
struct nlfs_fs *fs;
const struct nlfs_geometry *g;
uint32_t bs;
static uint32_t seed;

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "corrupt: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

uint64_t get(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

void put(uint8_t *p, int n, uint64_t v)
{
	for (int i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

void rd(uint64_t off, void *buf, size_t n)
{
	if (pread(fd, buf, n, (off_t)off) != (ssize_t)n)
		die("read at %llu failed", (unsigned long long)off);
}

void wr(uint64_t off, const void *buf, size_t n)
{
	if (pwrite(fd, buf, n, (off_t)off) != (ssize_t)n)
		die("write at %llu failed", (unsigned long long)off);
}

static void open_fs(void)
{
	struct nlfs_io *io;
	struct nlfs_err err;
	char msg[320];

	if (fs)
		nlfs_fs_close(fs);
	if (nlfs_io_open_unix(img, NLFS_IO_RDONLY, &io))
		die("cannot open %s", img);
	if (nlfs_fs_open(io, &fs, &err)) {
		nlfs_err_format(&err, msg, sizeof(msg));
		die("%s: %s", img, msg);
	}
	g = nlfs_fs_geometry(fs);
	bs = g->blocksize;
	seed = nlfs_le32(nlfs_fs_sb(fs, NLFS_SB_PRIMARY)->s_crc_seed);
}

/* ---- logs: where a block lives, and resealing after an edit ---- */

uint64_t log_of(uint64_t b)
{
	uint64_t seg = b / g->blocks_per_segment, p = nlfs_seg_start(g, seg);
	uint8_t hdr[64];

	while (p <= nlfs_seg_end(g, seg)) {
		uint32_t n;

		rd(p * bs, hdr, sizeof(hdr));
		n = (uint32_t)get(hdr + 0x28, 4);
		if (get(hdr + 8, 4) != NLFS_SEGSUM_MAGIC || n == 0)
			break;
		if (b < p + n)
			return p;
		p += n;
	}
	die("block %llu is in no log", (unsigned long long)b);
	return 0;
}

static uint64_t peek_raw(uint64_t b, uint32_t off)
{
	uint8_t buf[4];

	rd(b * bs + off, buf, 4);
	return get(buf, 4);
}

/* recompute the super root's, the summary's and the data checksum of the log at START */
void reseal_log(uint64_t start)
{
	uint8_t hdr[64];
	uint32_t n, sumbytes;
	uint8_t *buf;

	rd(start * bs, hdr, sizeof(hdr));
	n = (uint32_t)get(hdr + 0x28, 4);
	sumbytes = (uint32_t)get(hdr + 0x30, 4);
	buf = malloc((size_t)n * bs);
	if (!buf)
		die("out of memory");
	rd(start * bs, buf, (size_t)n * bs);
	if (get(buf + 0x0E, 2) & NLFS_SS_SR) {
		uint8_t *sr = buf + (size_t)(n - 1) * bs;
		uint32_t srb = (uint32_t)get(sr + 4, 2);

		if (srb >= 4 && srb <= bs)
			put(sr, 4, nlfs_crc32(seed, sr + 4, srb - 4));
	}
	if (sumbytes >= 8 && sumbytes <= (size_t)n * bs)
		put(buf + 4, 4, nlfs_crc32(seed, buf + 8, sumbytes - 8));
	put(buf, 4, nlfs_crc32(seed, buf + 4, (size_t)n * bs - 4));
	wr(start * bs, buf, (size_t)n * bs);
	free(buf);
}

/* only ss_datasum of the log at START: to leave another checksum wrong */
static void reseal_data_only(uint64_t start)
{
	uint32_t n = (uint32_t)peek_raw(start, 0x28);
	uint8_t *buf = malloc((size_t)n * bs);

	if (!buf)
		die("out of memory");
	rd(start * bs, buf, (size_t)n * bs);
	put(buf, 4, nlfs_crc32(seed, buf + 4, (size_t)n * bs - 4));
	wr(start * bs, buf, 4);
	free(buf);
}

/* change N bytes at byte OFF of block B; reseal its log if SEAL */
static void edit(uint64_t b, uint32_t off, int n, uint64_t v, int seal)
{
	uint8_t buf[8];

	put(buf, n, v);
	wr(b * bs + off, buf, (size_t)n);
	if (seal)
		reseal_log(log_of(b));
}

static uint64_t peek(uint64_t b, uint32_t off, int n)
{
	uint8_t buf[8];

	rd(b * bs + off, buf, (size_t)n);
	return get(buf, n);
}

/* ---- files of the latest checkpoint ---- */

static uint64_t phys_of(const struct nlfs_file *f, uint64_t blkoff)
{
	struct nlfs_err err;
	uint64_t ptr, b;

	if (nlfs_bmap_lookup(fs, f, blkoff, &ptr, &err) || nlfs_file_block_addr(fs, f, ptr, &b, &err) ||
	    b == 0)
		die("inode %llu has no block %llu", (unsigned long long)f->ino,
		    (unsigned long long)blkoff);
	return b;
}

static void ifile(struct nlfs_file *f)
{
	struct nlfs_err err;

	if (nlfs_fs_ifile(fs, 0, f, &err))
		die("no ifile");
}

static void lookup(const char *path, struct nlfs_file *f)
{
	struct nlfs_file ifl;
	struct nlfs_err err;

	ifile(&ifl);
	if (nlfs_path_lookup(fs, &ifl, path, f, &err))
		die("%s not found", path);
}

/* block and byte of inode INO in the latest ifile */
static void inode_at(uint64_t ino, uint64_t *b, uint32_t *off)
{
	struct nlfs_file ifl;
	uint64_t blkoff;

	ifile(&ifl);
	nlfs_palloc_locate(bs, g->inode_size, ino, &blkoff, off);
	*b = phys_of(&ifl, blkoff);
}

static void inode_edit(uint64_t ino, uint32_t field, int n, uint64_t v)
{
	uint64_t b;
	uint32_t off;

	inode_at(ino, &b, &off);
	edit(b, off + field, n, v, 1);
}

static uint64_t inode_peek(uint64_t ino, uint32_t field, int n)
{
	uint64_t b;
	uint32_t off;

	inode_at(ino, &b, &off);
	return peek(b, off + field, n);
}

static uint64_t path_ino(const char *path)
{
	struct nlfs_file f;

	lookup(path, &f);
	return f.ino;
}

/* a palloc file's group 0: descriptor and bitmap blocks */
static void palloc0(const struct nlfs_file *f, uint32_t esz, uint64_t *desc, uint64_t *bitmap)
{
	*desc = phys_of(f, nlfs_palloc_desc_blkoff(bs, esz, 0));
	*bitmap = phys_of(f, nlfs_palloc_bitmap_blkoff(bs, esz, 0));
}

static void dat_at(uint64_t v, uint64_t *b, uint32_t *off)
{
	struct nlfs_file dat;
	uint64_t blkoff;

	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	nlfs_palloc_locate(bs, 32, v, &blkoff, off);
	*b = phys_of(&dat, blkoff);
}

static void dat_edit(uint64_t v, uint32_t field, int n, uint64_t val)
{
	uint64_t b;
	uint32_t off;

	dat_at(v, &b, &off);
	edit(b, off + field, n, val, 1);
}

/* the virtual block of file block BLKOFF of PATH */
static uint64_t vblock_of(const char *path, uint64_t blkoff)
{
	struct nlfs_file f;
	struct nlfs_err err;
	uint64_t ptr;

	lookup(path, &f);
	if (nlfs_bmap_lookup(fs, &f, blkoff, &ptr, &err) || !ptr)
		die("%s has no block %llu", path, (unsigned long long)blkoff);
	return ptr;
}

static void mdt_slot(unsigned ino, uint32_t esz, uint64_t slot, uint64_t *b, uint32_t *off)
{
	struct nlfs_file f;

	nlfs_fs_mdt_file(fs, ino, &f);
	*b = phys_of(&f, slot / (bs / esz));
	*off = (uint32_t)(slot % (bs / esz)) * esz;
}

static void cp_edit(uint64_t cno, uint32_t field, int n, uint64_t v)
{
	uint64_t b;
	uint32_t off;

	mdt_slot(NLFS_CPFILE_INO, 192, cno, &b, &off);
	edit(b, off + field, n, v, 1);
}

static uint64_t cp_peek(uint64_t cno, uint32_t field, int n)
{
	uint64_t b;
	uint32_t off;

	mdt_slot(NLFS_CPFILE_INO, 192, cno, &b, &off);
	return peek(b, off + field, n);
}

/* sufile slot: 0 = header, segment s at s + 2 */
static void su_edit(uint64_t slot, uint32_t field, int n, uint64_t v)
{
	uint64_t b;
	uint32_t off;

	mdt_slot(NLFS_SUFILE_INO, 16, slot, &b, &off);
	edit(b, off + field, n, v, 1);
}

static uint64_t su_peek(uint64_t slot, uint32_t field, int n)
{
	uint64_t b;
	uint32_t off;

	mdt_slot(NLFS_SUFILE_INO, 16, slot, &b, &off);
	return peek(b, off + field, n);
}

/* the record named NAME in directory DIR: its block and byte */
static void dirent_at(const char *dir, const char *name, uint64_t *b, uint32_t *off)
{
	struct nlfs_file d;
	uint8_t *buf = malloc(bs);
	size_t len = strlen(name);

	lookup(dir, &d);
	for (uint64_t k = 0; k * bs < nlfs_le64(d.inode.i_size); k++) {
		uint64_t p = phys_of(&d, k);

		rd(p * bs, buf, bs);
		for (unsigned o = 0; o < bs;) {
			struct nlfs_dir_rec r;

			if (nlfs_dir_record(buf, bs, o, &r, NULL))
				break;
			if (r.ino && r.name_len == len && !memcmp(r.name, name, len)) {
				*b = p;
				*off = o;
				free(buf);
				return;
			}
			o += r.rec_len;
		}
	}
	die("%s/%s not found", dir, name);
}

/* ---- superblocks ---- */

uint64_t sb_off(int copy)
{
	uint64_t size = (uint64_t)lseek(fd, 0, SEEK_END);

	return copy == 0 ? NLFS_SB_OFFSET_BYTES : nlfs_sb2_offset(size);
}

static void sb_edit(int copy, uint32_t field, int n, uint64_t v, int seal)
{
	struct nlfs_super_block sb;

	rd(sb_off(copy), &sb, sizeof(sb));
	put((uint8_t *)&sb + field, n, v);
	if (seal)
		nlfs_sb_update_crc(&sb);
	wr(sb_off(copy), &sb, sizeof(sb));
}

static void sb_both(uint32_t field, int n, uint64_t v)
{
	sb_edit(0, field, n, v, 1);
	sb_edit(1, field, n, v, 1);
}

/* ---- logs of the kernel image ---- */

/* the Nth log (0-based) of segment SEG */
static uint64_t nth_log(uint64_t seg, int nth)
{
	uint64_t p = nlfs_seg_start(g, seg);

	for (int i = 0; i < nth; i++)
		p += peek(p, 0x28, 4);
	if (peek(p, 8, 4) != NLFS_SEGSUM_MAGIC)
		die("segment %llu has no log %d", (unsigned long long)seg, nth);
	return p;
}

/* the first SR log of segment SEG that is not the latest */
static uint64_t old_sr_log(uint64_t seg)
{
	uint64_t p = nlfs_seg_start(g, seg);

	while (peek(p, 8, 4) == NLFS_SEGSUM_MAGIC) {
		if (peek(p, 0x0E, 2) & NLFS_SS_SR && p != nlfs_fs_recovery(fs)->sr_log)
			return p;
		p += peek(p, 0x28, 4);
	}
	die("no old super-root log in segment %llu", (unsigned long long)seg);
	return 0;
}

#define SS_FLAGS 0x0E
#define SS_SEQ   0x10
#define SS_NEXT  0x20
#define SS_NBLK  0x28
#define SS_CNO   0x38
#define I_BLOCKS 0x00
#define I_SIZE   0x08
#define I_MODE   0x30
#define I_LINKS  0x32
#define I_BMAP   0x38
#define SB(f) ((uint32_t)offsetof(struct nlfs_super_block, f))

/* ---- the cases ---- */

static void c_sb_primary_magic(void) { sb_edit(0, SB(s_magic), 2, 0, 1); }
static void c_sb_primary_crc(void) { sb_edit(0, SB(s_volume_name), 1, 'X', 0); }
static void c_sb_secondary_crc(void) { sb_edit(1, SB(s_volume_name), 1, 'X', 0); }
static void c_sb_both_magic(void) { sb_edit(0, SB(s_magic), 2, 0x1234, 1); sb_edit(1, SB(s_magic), 2, 0x1234, 1); }
static void c_sb_bytes(void) { sb_edit(1, SB(s_bytes), 2, 2000, 1); }
static void c_sb_revision(void) { sb_edit(1, SB(s_rev_level), 4, 1, 1); }
static void c_sb_geometry(void) { sb_edit(1, SB(s_blocks_per_segment), 4, 8, 1); }
/* a byte of the secondary's UUID flipped (a fixed value would match the
 * byte of one random UUID in 256) */
static void c_sb_uuid(void)
{
	struct nlfs_super_block sb;

	rd(sb_off(1), &sb, sizeof(sb));
	sb_edit(1, SB(s_uuid) + 3, 1, sb.s_uuid[3] ^ 0x5a, 1);
}
static void c_sb_devsize(void) { sb_both(SB(s_dev_size), 8, 1ull << 40); }
/* both copies' free blocks far off what the clean segments hold (what a
 * writer that lost its sufile header's count would leave) */
static void c_sb_free(void) { sb_both(SB(s_free_blocks_count), 8, 1ull << 54); }
static void c_sb_error_state(void) { sb_both(SB(s_state), 2, NLFS_STATE_VALID_FS | NLFS_STATE_ERROR_FS); }
static void c_sb_feature(void) { sb_both(SB(s_feature_compat_ro), 8, 0x100); }
static void c_sb_cursor_seq(void) { sb_edit(0, SB(s_last_seq), 8, 5, 1); }
/* the copy the kernel does not use: its cursor before the first segment */
static void c_sb_other_cursor(void)
{
	sb_edit(!nlfs_fs_sb_choice(fs)->used, SB(s_last_pseg), 8, g->first_data_block - 1, 1);
}

/* the copy in use: a checkpoint number one below its log's */
static void c_sb_cursor_cno(void)
{
	int used = nlfs_fs_sb_choice(fs)->used;
	uint64_t cno = nlfs_le64(nlfs_fs_sb(fs, (enum nlfs_sb_slot)used)->s_last_cno);

	sb_edit(used, SB(s_last_cno), 8, cno + 1, 1);
}

static void c_log_magic(void) { edit(nth_log(0, 2), 8, 4, 0xdeadbeef, 0); }
/* a header's ss_bytes too small for a header, both checksums resealed */
static void c_log_rich_header(void) { edit(nth_log(3, 1), 12, 2, 16, 1); }
static void c_log_sumsum(void) { uint64_t p = nth_log(0, 1); edit(p, 4, 4, peek(p, 4, 4) ^ 1, 0); reseal_data_only(p); }
/* an old log's data checksum: only --check-data reads its data */
static void c_log_datasum(void) { uint64_t p = nth_log(0, 1); edit(p, 0, 4, peek(p, 0, 4) ^ 0x10, 0); }
/* the latest super root's log: the kernel's recovery reads it, so does every check */
static void c_log_datasum_latest(void)
{
	uint64_t p = nlfs_fs_recovery(fs)->sr_log;

	edit(p, 0, 4, peek(p, 0, 4) ^ 0x10, 0);
}
static void c_log_seq(void) { uint64_t p = nth_log(0, 2); edit(p, SS_SEQ, 8, peek(p, SS_SEQ, 8) + 7, 1); }
static void c_log_next(void) { uint64_t p = nth_log(0, 2); edit(p, SS_NEXT, 8, 5 * g->blocks_per_segment, 1); }
static void c_log_flags_unknown(void) { uint64_t p = nth_log(0, 1); edit(p, SS_FLAGS, 2, peek(p, SS_FLAGS, 2) | 0x100, 1); }
static void c_log_sr_noend(void) { uint64_t p = old_sr_log(0); edit(p, SS_FLAGS, 2, peek(p, SS_FLAGS, 2) & ~NLFS_SS_LOGEND, 1); }
static void c_log_cno(void) { uint64_t p = nth_log(0, 2); edit(p, SS_CNO, 8, 1, 1); }

static void c_log_sr_crc(void)
{
	uint64_t p = old_sr_log(0), sr = p + peek(p, SS_NBLK, 4) - 1;

	edit(sr, 0, 4, peek(sr, 0, 4) ^ 0x1, 0);
	reseal_data_only(p);   /* only the super root's own checksum is wrong */
}

/* first finfo of the second log of segment 0 */
static void c_log_finfo_nblocks(void) { uint64_t p = nth_log(0, 1); edit(p, 64 + 16, 4, peek(p, 64 + 16, 4) + 1, 1); }
static void c_log_finfo_cno(void) { uint64_t p = nth_log(0, 1); edit(p, 64 + 8, 8, peek(p, 64 + 8, 8) + 3, 1); }
static void c_log_binfo_zero(void) { uint64_t p = nth_log(0, 1); edit(p, 64 + 24, 8, 0, 1); }
static void c_log_binfo_stale(void) { uint64_t p = nth_log(0, 1); edit(p, 64 + 24, 8, peek(p, 64 + 24, 8) + 1, 1); }

/* su_nblocks of segment 0 one short: its last log runs past it */
static void c_log_overrun(void) { su_edit(2, 8, 4, su_peek(2, 8, 4) - 1); }
static void c_su_short(void) { su_edit(2, 8, 4, 20); }
static void c_su_nclean(void) { su_edit(0, 0, 8, su_peek(0, 0, 8) + 1); }
static void c_su_ndirty(void) { su_edit(0, 8, 8, su_peek(0, 8, 8) - 1); }
static void c_su_last_alloc(void) { su_edit(0, 16, 8, g->nsegments + 4); }
static void c_su_active_only(void) { su_edit(2 + 20, 12, 4, NLFS_SEGMENT_USAGE_ACTIVE); su_edit(0, 0, 8, su_peek(0, 0, 8) - 1); }
static void c_su_clean_nblocks(void) { su_edit(2 + 20, 8, 4, 9); }
static void c_su_error(void) { su_edit(2 + 20, 12, 4, NLFS_SEGMENT_USAGE_ERROR); su_edit(0, 0, 8, su_peek(0, 0, 8) - 1); }

static void c_su_next_clean(void)
{
	/* free the segment the kernel writes next, and keep the counters true */
	su_edit(2 + 1, 12, 4, 0);
	su_edit(0, 0, 8, su_peek(0, 0, 8) + 1);
	su_edit(0, 8, 8, su_peek(0, 8, 8) - 1);
}

static void c_dat_desc(void)
{
	struct nlfs_file dat;
	uint64_t d, bm;

	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	palloc0(&dat, 32, &d, &bm);
	edit(d, 0, 4, peek(d, 0, 4) - 1, 1);
}

static void dat_bitmap_flip(uint64_t v, int delta)
{
	struct nlfs_file dat;
	uint64_t d, bm;

	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	palloc0(&dat, 32, &d, &bm);
	edit(bm, (uint32_t)(v / 8), 1, peek(bm, (uint32_t)(v / 8), 1) ^ (1u << (v % 8)), 0);
	edit(d, 0, 4, peek(d, 0, 4) + (uint64_t)(int64_t)delta, 1);
	if (log_of(bm) != log_of(d))
		reseal_log(log_of(bm));
}

static void c_dat_bit_clear(void) { dat_bitmap_flip(vblock_of("/dir1/f1", 0), 1); }

static void c_dat_bit_set(void)
{
	struct nlfs_file dat;
	uint64_t d, bm, v = 0;

	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	palloc0(&dat, 32, &d, &bm);
	/* the first free entry of group 0 */
	while (peek(bm, (uint32_t)(v / 8), 1) & (1u << (v % 8)))
		v++;
	dat_bitmap_flip(v, -1);
}

static void c_dat_entry0(void) { dat_edit(0, 0, 8, 5); }
static void c_dat_range(void) { dat_edit(vblock_of("/dir1/f3", 0), 8, 8, 6); dat_edit(vblock_of("/dir1/f3", 0), 16, 8, 4); }
static void c_dat_outside(void) { dat_edit(vblock_of("/dir1/f4", 0), 0, 8, 40 * g->blocks_per_segment + 3); }
static void c_dat_noaddr(void) { dat_edit(vblock_of("/dir1/f8", 0), 0, 8, 0); }

static void c_dat_shared(void)
{
	uint64_t b;
	uint32_t off;

	dat_at(vblock_of("/dir1/f9", 0), &b, &off);
	dat_edit(vblock_of("/dir1/f10", 0), 0, 8, peek(b, off, 8));
}

static void c_dat_unclaimed(void)
{
	/* another block of the same log: the summary block itself */
	uint64_t b;
	uint32_t off;

	dat_at(vblock_of("/dir1/f11", 0), &b, &off);
	dat_edit(vblock_of("/dir1/f11", 0), 0, 8, log_of(peek(b, off, 8)));
}

static void c_dat_leak(void)
{
	/* reopen a dead version: the entry of an overwritten block of /big */
	struct nlfs_file dat;
	uint64_t v, b;
	uint32_t off;

	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	for (v = 1;; v++) {
		dat_at(v, &b, &off);
		if (peek(b, off + 16, 8) != UINT64_MAX && peek(b, off + 8, 8) < peek(b, off + 16, 8) &&
		    peek(b, off, 8))
			break;
	}
	dat_edit(v, 16, 8, UINT64_MAX);
}

static void c_dat_period_end(void)
{
	/* end the period of a live block of the latest checkpoint */
	uint64_t cno = nlfs_fs_recovery(fs)->cno;

	dat_edit(vblock_of("/dir1/f12", 0), 16, 8, cno);
}

/* Not damage: PATH written anew by the library's writer in a new
 * checkpoint, its first block given virtual number HINT0 and the next ones
 * numbers from HINT1 on, as the kernel's allocator may choose (its guess
 * wraps; torture seed 2006 got 2^64 - 1). */
static void rewrite_at(const char *path, uint64_t hint0, uint64_t hint1)
{
	struct nlfs_io *io;
	struct nlfs_fs *wfs;
	struct nlfs_writer *w;
	struct nlfs_inode inode;
	struct nlfs_file f;
	struct nlfs_err err;
	uint64_t *keys = NULL, now;
	size_t n = 0;
	uint8_t *buf = malloc(bs);
	char msg[320];
	int rc;

	lookup(path, &f);
	if (!buf || nlfs_bmap_keys(fs, &f, &keys, &n, &err))
		die("%s: its map cannot be read", path);
	now = nlfs_le64(nlfs_fs_sb(fs, NLFS_SB_PRIMARY)->s_wtime) + 60;
	if (nlfs_io_open_unix(img, NLFS_IO_RDWR, &io))
		die("cannot open %s for writing", img);
	rc = nlfs_fs_open(io, &wfs, &err);
	if (!rc)
		rc = nlfs_writer_open(wfs, now, 0, &w, &err);
	if (!rc)
		rc = nlfs_writer_file_replace(w, f.ino, &err);
	if (!rc)
		rc = nlfs_writer_file_begin(w, f.ino, &err);
	for (size_t i = 0; !rc && i < n; i++) {
		bool hole;

		if (i < 2)
			nlfs_writer_dat_hint(w, i == 0 ? hint0 : hint1);
		rc = nlfs_file_read_block(fs, &f, keys[i], buf, &hole, &err);
		if (!rc)
			rc = nlfs_writer_file_block(w, keys[i], buf, &err);
	}
	if (!rc)
		rc = nlfs_writer_get_inode(w, f.ino, &inode, &err);
	if (!rc)
		rc = nlfs_writer_file_end(w, &inode, &err);
	if (!rc)
		rc = nlfs_writer_commit(w, &err);
	if (rc) {
		nlfs_err_format(&err, msg, sizeof(msg));
		die("rewriting %s: %s", path, msg);
	}
	nlfs_fs_close(wfs);
	free(keys);
	free(buf);
	open_fs();
}

#define VBLOCK_TOP UINT64_MAX
#define VBLOCK_FAR ((1ull << 40) + 12345)

/* a DAT entry at 2^64 - 1 and others far from 0, mapped by /sparse-far */
static void c_good_dat_sparse(void)
{
	rewrite_at("/sparse-far", VBLOCK_TOP, VBLOCK_FAR);
	if (vblock_of("/sparse-far", 0) != VBLOCK_TOP)
		die("/sparse-far block 0 did not get virtual block 2^64 - 1");
}

/* ...then rewritten again low, and the ended entry at 2^64 - 1 reopened:
 * a leak the repair must end at the top of the 64-bit space */
static void c_dat_sparse_leak(void)
{
	rewrite_at("/sparse-far", VBLOCK_TOP, VBLOCK_FAR);
	rewrite_at("/sparse-far", 1, 1);
	dat_edit(VBLOCK_TOP, 16, 8, NLFS_CNO_MAX);
}

static void c_cp_ncheckpoints(void) { cp_edit(0, 0, 8, cp_peek(0, 0, 8) + 1); }
static void c_cp_nsnapshots(void) { cp_edit(0, 8, 8, cp_peek(0, 8, 8) + 1); }
static void c_cp_snaplist(void) { uint64_t last = cp_peek(0, 24, 8); cp_edit(last, 16, 8, 0); }
static void c_cp_snapflag(void) { uint64_t first = cp_peek(0, 16, 8); cp_edit(first, 0, 4, cp_peek(first, 0, 4) & ~1u); }
static void c_cp_blkcount(void) { uint64_t epb = bs / 192; cp_edit(epb, 4, 4, cp_peek(epb, 4, 4) + 1); }
static void c_cp_cno(void) { cp_edit(2, 24, 8, 99); }
static void c_cp_future(void) { uint64_t c = nlfs_fs_recovery(fs)->cno + 1; cp_edit(c, 0, 4, 0); cp_edit(c, 24, 8, c); }
static void c_cp_ifile_mode(void) { cp_edit(nlfs_fs_recovery(fs)->cno, 64 + I_MODE, 2, 040755); }
static void c_cp_inodes(void) { uint64_t c = nlfs_fs_recovery(fs)->cno; cp_edit(c, 48, 8, cp_peek(c, 48, 8) + 2); }
static void c_cp_blocks(void) { uint64_t c = nlfs_fs_recovery(fs)->cno; cp_edit(c, 56, 8, cp_peek(c, 56, 8) - 1); }
static void c_cp_latest_invalid(void) { uint64_t c = nlfs_fs_recovery(fs)->cno; cp_edit(c, 0, 4, cp_peek(c, 0, 4) | 2); cp_edit(0, 0, 8, cp_peek(0, 0, 8) - 1); }

static void ifile_group0(uint64_t *d, uint64_t *bm)
{
	struct nlfs_file ifl;

	ifile(&ifl);
	palloc0(&ifl, g->inode_size, d, bm);
}

static void c_ifile_desc(void) { uint64_t d, bm; ifile_group0(&d, &bm); edit(d, 0, 4, peek(d, 0, 4) + 1, 1); }

static void ifile_bit_flip(uint64_t ino, int delta)
{
	uint64_t d, bm;

	ifile_group0(&d, &bm);
	edit(bm, (uint32_t)(ino / 8), 1, peek(bm, (uint32_t)(ino / 8), 1) ^ (1u << (ino % 8)), 0);
	edit(d, 0, 4, peek(d, 0, 4) + (uint64_t)(int64_t)delta, 1);
	if (log_of(bm) != log_of(d))
		reseal_log(log_of(bm));
}

static void c_ifile_reserved(void) { ifile_bit_flip(1, 1); }
static void c_ifile_bit_clear(void) { ifile_bit_flip(path_ino("/.nilfs"), 1); }

/* a copy of inode FROM put into free slot TO with LINKS links, and in use */
static void clone_inode(uint64_t from, uint64_t to, unsigned links)
{
	uint64_t b1, b2;
	uint32_t o1, o2;
	uint8_t in[128];

	inode_at(from, &b1, &o1);
	inode_at(to, &b2, &o2);
	rd(b1 * bs + o1, in, sizeof(in));
	put(in + I_LINKS, 2, links);
	wr(b2 * bs + o2, in, sizeof(in));
	ifile_bit_flip(to, -1);
	{
		/* keep the checkpoint's inode count true */
		uint64_t c = nlfs_fs_recovery(fs)->cno;

		cp_edit(c, 48, 8, cp_peek(c, 48, 8) + 1);
	}
}

static uint64_t free_ino(void)
{
	uint64_t d, bm, ino = nlfs_le32(nlfs_fs_sb(fs, NLFS_SB_PRIMARY)->s_first_ino);

	ifile_group0(&d, &bm);
	while (peek(bm, (uint32_t)(ino / 8), 1) & (1u << (ino % 8)))
		ino++;
	return ino;
}

/* a bit set for a free inode whose record is empty: a lost free */
static void c_ifile_rich_bit_set(void)
{
	uint64_t ino = free_ino();

	while (inode_peek(ino, I_MODE, 2) || inode_peek(ino, I_LINKS, 2))
		ino++;   /* past the records deleted files left */
	ifile_bit_flip(ino, -1);
}
/* a bit set for the record a deleted file left (links 0, its old map) */
static void c_ifile_rich_bit_stale(void) { ifile_bit_flip(free_ino(), -1); }
static void c_ino_orphan(void) { clone_inode(path_ino("/.nilfs"), free_ino(), 0); }
static void c_ino_unattached(void) { clone_inode(path_ino("/.nilfs"), free_ino(), 1); }
static void c_ino_mode(void) { inode_edit(path_ino("/.nilfs"), I_MODE, 2, 0170644); }
static void c_ino_links(void) { uint64_t i = path_ino("/dir1/f13"); inode_edit(i, I_LINKS, 2, inode_peek(i, I_LINKS, 2) + 1); }
static void c_ino_blocks(void) { uint64_t i = path_ino("/big"); inode_edit(i, I_BLOCKS, 8, inode_peek(i, I_BLOCKS, 8) + 2); }
static void c_ino_size(void) { inode_edit(path_ino("/small"), I_SIZE, 8, 100); }
/* random bytes in i_size: past the largest file size, a negative loff_t */
static void c_ino_size_max(void) { inode_edit(path_ino("/small"), I_SIZE, 8, 0xc3a5c3a5c3a5c3a5ull); }
static void c_dir_size(void) { inode_edit(NLFS_ROOT_INO, I_SIZE, 8, 100); }
static void c_symlink_size(void) { inode_edit(path_ino("/link"), I_SIZE, 8, 0); }
/* a direct map's flags byte with a bit the kernel does not know */
static void c_bmap_direct(void) { inode_edit(path_ino("/dir1/f14"), I_BMAP, 1, 0x80); }
static void c_bmap_vblock(void) { inode_edit(path_ino("/dir1/f15"), I_BMAP + 8, 8, 900000); }

static void c_bmap_shared(void)
{
	uint64_t a = path_ino("/dir1/f16"), b = path_ino("/dir1/f17");

	inode_edit(b, I_BMAP + 8, 8, inode_peek(a, I_BMAP + 8, 8));
}

static void c_bmap_period(void)
{
	/* point the root's block 0 at a dead version of another block */
	struct nlfs_file dat;
	uint64_t v, b;
	uint32_t off;

	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	for (v = 1;; v++) {
		dat_at(v, &b, &off);
		if (peek(b, off + 16, 8) != UINT64_MAX && peek(b, off, 8) &&
		    peek(b, off + 8, 8) < peek(b, off + 16, 8))
			break;
	}
	inode_edit(path_ino("/dir1/f18"), I_BMAP + 8, 8, v);
}

/* /big is a B-tree file: its root in the inode, nodes below */
static void c_bmap_root_level(void) { inode_edit(path_ino("/big"), I_BMAP + 1, 1, 0); }
static int first_leaf(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	(void)key;
	if (level == 1) {
		*(uint64_t *)arg = ptr;
		return 1;
	}
	return 0;
}

/* swap the second and third keys of /big's first level-1 node */
static void c_bmap_key_order(void)
{
	struct nlfs_file f;
	struct nlfs_err err;
	uint64_t ptr = 0, b, k1, k2;

	lookup("/big", &f);
	nlfs_bmap_iterate(fs, &f, first_leaf, &ptr, &err);
	if (!ptr || nlfs_file_block_addr(fs, &f, ptr, &b, &err))
		die("/big has no level-1 node");
	k1 = peek(b, 16 + 8, 8);
	k2 = peek(b, 16 + 16, 8);
	edit(b, 16 + 8, 8, k2, 0);
	edit(b, 16 + 16, 8, k1, 1);
}

static void c_bmap_node_level(void)
{
	struct nlfs_file f;
	struct nlfs_err err;
	uint64_t b;

	lookup("/big", &f);
	/* the root's first child */
	if (nlfs_file_block_addr(fs, &f, nlfs_le64(f.inode.i_bmap[4]), &b, &err))
		die("no node");
	edit(b, 1, 1, peek(b, 1, 1) + 1, 1);
}

/* ---- rich base: B-tree nodes, snapshots' old versions, the DAT's map ---- */

struct node_find {
	unsigned level, n, seen;
	uint64_t key, ptr;
	bool found;
};

static int find_node(uint64_t key, uint64_t ptr, unsigned level, void *arg)
{
	struct node_find *nf = arg;

	if (level != nf->level || nf->seen++ != nf->n)
		return 0;
	nf->key = key;
	nf->ptr = ptr;
	nf->found = true;
	return 1;
}

/* the Nth node (from 0) of LEVEL in F's map: its block; *KEY and *VBN if asked */
static uint64_t node_of(const struct nlfs_file *f, unsigned level, unsigned n, uint64_t *key,
			uint64_t *vbn)
{
	struct node_find nf = { .level = level, .n = n };
	struct nlfs_err err;
	uint64_t b;

	nlfs_bmap_iterate(fs, f, find_node, &nf, &err);
	if (!nf.found || nlfs_file_block_addr(fs, f, nf.ptr, &b, &err) || !b)
		die("inode %llu has no node %u of level %u", (unsigned long long)f->ino, n, level);
	if (key)
		*key = nf.key;
	if (vbn)
		*vbn = nf.ptr;
	return b;
}

static uint64_t node_at(const char *path, unsigned level, unsigned n)
{
	struct nlfs_file f;

	lookup(path, &f);
	return node_of(&f, level, n, NULL, NULL);
}

/* a B-tree node block: header (8 bytes) and 8 spare, keys, then pointers */
#define NODE_KEY(i) (16 + 8 * (uint32_t)(i))
#define NODE_PTR(i) (16 + 8 * ((bs - 16) / 16) + 8 * (uint32_t)(i))

/* /big's level-2 node claims level 3: the whole tree below the root is hidden */
static void c_bmap_rich_l2_level(void) { uint64_t b = node_at("/big", 2, 0); edit(b, 1, 1, 3, 1); }
/* a leaf of /big with more children than a node holds */
static void c_bmap_rich_nchildren(void) { edit(node_at("/big", 1, 1), 2, 2, (bs - 16) / 16 + 1, 1); }

/* the last key of /big's second leaf beyond the first key of the third */
static void c_bmap_rich_key_range(void)
{
	uint64_t b = node_at("/big", 1, 1);
	uint32_t n = (uint32_t)peek(b, 2, 2);

	edit(b, NODE_KEY(n - 1), 8, peek(node_at("/big", 1, 2), NODE_KEY(0), 8) + 7, 1);
}

/* /big's level-2 node: the third leaf's pointer to a virtual block the DAT does not have */
static void c_bmap_rich_node_vblock(void) { edit(node_at("/big", 2, 0), NODE_PTR(2), 8, 900000, 1); }

/* /big's level-2 node: the second leaf's pointer resolves into /medium's leaf */
static void c_bmap_rich_node_foreign(void)
{
	struct nlfs_file m;
	uint64_t v;

	lookup("/medium", &m);
	node_of(&m, 1, 0, NULL, &v);
	edit(node_at("/big", 2, 0), NODE_PTR(1), 8, v, 1);
}

/* /sparse-far's root holds its data blocks: its last two keys swapped */
static void c_bmap_rich_root_keys(void)
{
	uint64_t ino = path_ino("/sparse-far");
	uint64_t k1 = inode_peek(ino, I_BMAP + 16, 8), k2 = inode_peek(ino, I_BMAP + 24, 8);

	inode_edit(ino, I_BMAP + 16, 8, k2);
	inode_edit(ino, I_BMAP + 24, 8, k1);
}

/* a virtual block only snapshot 11 still uses: the first block of /big
 * overwritten since */
static uint64_t snap_only_vblock(void)
{
	struct nlfs_file ifl, f, now;
	struct nlfs_err err;
	uint64_t then, cur;

	lookup("/big", &now);
	if (nlfs_fs_ifile(fs, 11, &ifl, &err) || nlfs_path_lookup(fs, &ifl, "/big", &f, &err))
		die("snapshot 11 has no /big");
	for (uint64_t k = 0; k < 4096; k++) {
		if (nlfs_bmap_lookup(fs, &f, k, &then, &err) || nlfs_bmap_lookup(fs, &now, k, &cur, &err))
			die("/big: no block %llu", (unsigned long long)k);
		if (then && then != cur)
			return then;
	}
	die("no block of /big was overwritten after snapshot 11");
	return 0;
}

static void c_dat_rich_snap_range(void)
{
	uint64_t v = snap_only_vblock();
	uint64_t b;
	uint32_t off;

	dat_at(v, &b, &off);
	/* [end + 3, start): impossible */
	dat_edit(v, 8, 8, peek(b, off + 16, 8) + 3);
}

static void c_dat_rich_snap_noaddr(void) { dat_edit(snap_only_vblock(), 0, 8, 0); }
static void c_dat_rich_snap_bitclear(void) { dat_bitmap_flip(snap_only_vblock(), 1); }

/* a DAT entry block gone from the DAT's map: its pointer in a DAT leaf is 0 */
static void c_dat_rich_hole(void)
{
	struct nlfs_file dat;

	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	/* the DAT maps itself physically: the node's pointer is its block */
	{
		struct node_find nf = { .level = 1, .n = 0 };
		struct nlfs_err err;
		uint64_t b;

		nlfs_bmap_iterate(fs, &dat, find_node, &nf, &err);
		if (!nf.found)
			die("the DAT is not a B-tree");
		b = nf.ptr;
		/* its third entry: a block of entries, past the descriptor and bitmap */
		edit(b, NODE_PTR(2), 8, 0, 1);
	}
}

/* /src/lib/one-block's block points to a virtual block the DAT does not
 * have: its true block looks like a leak no file uses, and a repair that
 * ended it would end a block the rebuilt map takes back (the check after
 * the repairs reports that as PR_REPAIR_LIVE) */
static void c_bmap_rich_hidden_leak(void) { inode_edit(path_ino("/src/lib/one-block"), I_BMAP + 8, 8, 900000); }

/* the latest ifile's block 4 (inodes in use there) gone from its map */
static void c_ifile_rich_hole(void)
{
	uint64_t cno = nlfs_fs_recovery(fs)->cno, key;
	struct nlfs_file ifl;

	ifile(&ifl);
	if (!(nlfs_le64(ifl.inode.i_bmap[0]) & NLFS_BMAP_LARGE)) {
		cp_edit(cno, 64 + I_BMAP + 8 * (1 + 4), 8, 0);
		return;
	}
	for (unsigned n = 0;; n++) {
		uint64_t b = node_of(&ifl, 1, n, &key, NULL);

		if (key <= 4 && 4 - key < peek(b, 2, 2)) {
			edit(b, NODE_PTR(4 - key), 8, 0, 1);
			return;
		}
	}
}

/* the latest ifile's last block keyed far past what the volume can hold */
static void c_ifile_rich_far(void)
{
	struct nlfs_file ifl;
	uint64_t b = 0, key;

	ifile(&ifl);
	if (!(nlfs_le64(ifl.inode.i_bmap[0]) & NLFS_BMAP_LARGE))
		die("the ifile is not a B-tree");
	for (unsigned n = 0;; n++) {
		struct node_find nf = { .level = 1, .n = n };
		struct nlfs_err err;

		nlfs_bmap_iterate(fs, &ifl, find_node, &nf, &err);
		if (!nf.found)
			break;
		b = node_of(&ifl, 1, n, &key, NULL);
	}
	edit(b, 16 + 8 * (uint32_t)(peek(b, 2, 2) - 1), 8, 1ull << 40, 1);
}

/* rich base: damaged logs in segments snapshots still use */
/* the second log from segment 3's start: a block record names the next virtual block */
static void c_log_rich_binfo_stale(void) { uint64_t p = nth_log(3, 1); edit(p, 64 + 24, 8, peek(p, 64 + 24, 8) + 1, 1); }
/* the log at segment 2's start: its first file claims one block more than it has */
static void c_log_rich_finfo_count(void) { uint64_t p = nth_log(2, 0); edit(p, 64 + 16, 4, peek(p, 64 + 16, 4) + 1, 1); }
/* the second log from segment 1's start: its summary checksum (left wrong) */
static void c_log_rich_sumsum(void) { uint64_t p = nth_log(1, 1); edit(p, 4, 4, peek(p, 4, 4) ^ 1, 0); reseal_data_only(p); }

/* the super root's cpfile inode loses its file type */
static void c_dat_mdt_mode(void)
{
	uint64_t sr = nlfs_fs_recovery(fs)->sr_block;
	uint32_t off = NLFS_SR_INODES_OFFSET + g->inode_size + I_MODE;

	edit(sr, off, 2, peek(sr, off, 2) & 07777, 1);
}

static void c_dir_reclen(void)
{
	uint64_t b;
	uint32_t o;

	dirent_at("/", "..", &b, &o);
	edit(b, o + 8, 2, 10, 1);
}

static void c_dir_dot(void) { uint64_t b; uint32_t o; dirent_at("/dir1", ".", &b, &o); edit(b, o, 8, path_ino("/dir2"), 1); }
static void c_dir_dotdot(void) { uint64_t b; uint32_t o; dirent_at("/dir1", "..", &b, &o); edit(b, o, 8, path_ino("/dir2"), 1); }
static void c_dir_free_inode(void) { uint64_t b; uint32_t o; dirent_at("/dir1", "f19", &b, &o); edit(b, o, 8, free_ino(), 1); }
static void c_dir_type(void) { uint64_t b; uint32_t o; dirent_at("/dir1", "f0", &b, &o); edit(b, o + 11, 1, 2, 1); }
static void c_dir_dup(void) { uint64_t b; uint32_t o; dirent_at("/dir1", "f11", &b, &o); edit(b, o + 12 + 2, 1, '2', 1); }
static void c_dir_name_slash(void) { uint64_t b; uint32_t o; dirent_at("/dir1", "f10", &b, &o); edit(b, o + 12 + 1, 1, '/', 1); }
static void c_dir_reserved(void) { uint64_t b; uint32_t o; dirent_at("/dir1", "f9", &b, &o); edit(b, o, 8, 5, 1); }
static void c_dir_hardlink(void) { uint64_t b; uint32_t o; dirent_at("/", "small", &b, &o); edit(b, o, 8, path_ino("/dir2"), 1); edit(b, o + 11, 1, 2, 1); }
static void c_dir_root_mode(void) { inode_edit(NLFS_ROOT_INO, I_MODE, 2, 0100755); }
static void c_dir_unlinked(void) { uint64_t b; uint32_t o; dirent_at("/", "dir2", &b, &o); edit(b, o, 8, 0, 1); }

static void c_dir_hole(void)
{
	/* /many spans several blocks; drop the pointer to its second block */
	uint64_t i = path_ino("/many");

	if (inode_peek(i, I_BMAP, 1) & NLFS_BMAP_LARGE)
		die("/many is not a direct map");
	inode_edit(i, I_BMAP + 16, 8, 0);
}

static void c_dir_empty_name(void) { uint64_t b; uint32_t o; dirent_at("/dir1", "f8", &b, &o); edit(b, o + 10, 1, 0, 1); }

/* FIELD of every log the sufile counts in segment SEG */
static void seg_logs_edit(uint64_t seg, uint32_t field, int n, uint64_t v)
{
	uint64_t p = nlfs_seg_start(g, seg), end = p + su_peek(2 + seg, 8, 4);

	while (p < end && peek(p, 8, 4) == NLFS_SEGSUM_MAGIC) {
		uint64_t next = p + peek(p, SS_NBLK, 4);

		edit(p, field, n, v, 1);
		p = next;
	}
}

static void c_seg_chain(void) { seg_logs_edit(0, SS_NEXT, 8, 3 * g->blocks_per_segment); }
static void c_seg_seq_dup(void) { seg_logs_edit(0, SS_SEQ, 8, 1); }
static void c_seg_seq_newer(void) { seg_logs_edit(0, SS_SEQ, 8, 9); }

/* the cursor of the copy in use back at the super-root log before the
 * latest, with the volume marked clean: the kernel ignores the newer logs */
static void c_sb_cursor_old(void)
{
	int used = nlfs_fs_sb_choice(fs)->used;
	uint64_t last = nlfs_fs_recovery(fs)->sr_log, seg = last / g->blocks_per_segment;
	uint64_t p = nlfs_seg_start(g, seg), prev = 0;

	for (; p < last; p += peek(p, SS_NBLK, 4))
		if (peek(p, SS_FLAGS, 2) & NLFS_SS_SR)
			prev = p;
	if (!prev)
		die("no earlier super-root log in segment %llu", (unsigned long long)seg);
	sb_edit(used, SB(s_last_pseg), 8, prev, 0);
	sb_edit(used, SB(s_last_cno), 8, peek(prev, SS_CNO, 8), 1);
}

/* both copies' cursors at the latest super-root log, whose data checksum
 * then breaks (the end of its super root block, past sr_bytes): the
 * kernel's search fails from either copy, so the volume does not mount;
 * fsck.nilfs2 -y --rollback goes back to the super root before it */
static void c_sr_latest_datasum(void)
{
	const struct nlfs_recovery *r = nlfs_fs_recovery(fs);
	uint64_t sr = r->sr_block;

	for (int i = 0; i < 2; i++) {
		sb_edit(i, SB(s_last_pseg), 8, r->sr_log, 0);
		sb_edit(i, SB(s_last_seq), 8, r->sr_seq, 0);
		sb_edit(i, SB(s_last_cno), 8, r->cno, 1);
	}
	edit(sr, bs - 4, 4, peek(sr, bs - 4, 4) ^ 0x1, 0);
}

/* /many's i_size ten blocks past its last block */
static void c_dir_size_long(void)
{
	uint64_t i = path_ino("/many");

	inode_edit(i, I_SIZE, 8, inode_peek(i, I_SIZE, 8) + 10 * bs);
}

/* a fault only the first snapshot shows: the link count of a file deleted
 * since, in that checkpoint's own ifile block */
static void c_snapshot_links(void)
{
	struct nlfs_file ifl, f;
	struct nlfs_err err;
	uint64_t snap = cp_peek(0, 16, 8), blkoff, b;
	uint32_t off;

	if (nlfs_fs_ifile(fs, snap, &ifl, &err) || nlfs_path_lookup(fs, &ifl, "/dir1/f5", &f, &err))
		die("snapshot %llu has no /dir1/f5", (unsigned long long)snap);
	nlfs_palloc_locate(bs, g->inode_size, f.ino, &blkoff, &off);
	b = phys_of(&ifl, blkoff);
	edit(b, off + I_LINKS, 2, nlfs_le16(f.inode.i_links_count) + 1, 1);
}

/* ---- directories and inodes on the rich base: a buggy writer's records ---- */

/* a record whose rec_len runs past its block end (the entry is sound) */
static void c_dir_rec_cross(void) { uint64_t b; uint32_t o; dirent_at("/docs/old", "note12", &b, &o); edit(b, o + 8, 2, peek(b, o + 8, 2) + bs, 1); }
/* a name_len too long for its record */
static void c_dir_namelen(void) { uint64_t b; uint32_t o; dirent_at("/docs/old", "note14", &b, &o); edit(b, o + 10, 1, 200, 1); }

/* a record's header overwritten (inode, rec_len, name_len, type): that
 * entry is lost, the records after it are not */
static void c_dir_rec_garbage(void)
{
	uint64_t b;
	uint32_t o;

	dirent_at("/docs/old", "note13", &b, &o);
	edit(b, o, 8, 0xa5a5a5a5a5a5a5a5ull, 1);
	edit(b, o + 8, 4, 0xa5a5a5a5u, 1);
}

/* the '..' record of /docs/renamed renamed '.x' */
static void c_dir_dotdot_name(void) { uint64_t b; uint32_t o; dirent_at("/docs/renamed", "..", &b, &o); edit(b, o + 12 + 1, 1, 'x', 1); }
/* the deepest directory's file entry made a link to an ancestor: a cycle */
static void c_dir_cycle(void)
{
	uint64_t b;
	uint32_t o;

	dirent_at("/deep/d1/d2/d3/d4/d5/d6/d7", "leaf", &b, &o);
	edit(b, o, 8, path_ino("/deep/d1"), 1);
	edit(b, o + 11, 1, 2, 1);
}

/* a cycle no directory reaches: /deep's entry gone, and its deepest
 * directory's file entry made a link back to /deep/d1 */
static void c_dir_cycle_detached(void)
{
	uint64_t b;
	uint32_t o;

	c_dir_cycle();
	dirent_at("/", "deep", &b, &o);
	edit(b, o, 8, 0, 1);
}

/* a second entry 'empty0' for empty0's inode (it was empty1) */
static void c_dir_dup_same(void)
{
	uint64_t b;
	uint32_t o;

	dirent_at("/docs/renamed", "empty1", &b, &o);
	edit(b, o, 8, path_ino("/docs/renamed/empty0"), 1);
	edit(b, o + 12 + 5, 1, '0', 1);
}

static void c_dir_type_unknown(void) { uint64_t b; uint32_t o; dirent_at("/docs", "seven-link", &b, &o); edit(b, o + 11, 1, 9, 1); }
static void c_dir_size_rich(void) { uint64_t i = path_ino("/docs"); inode_edit(i, I_SIZE, 8, inode_peek(i, I_SIZE, 8) + 100); }

/* /many's block 0, with '.' and '..', gone from its map */
static void c_dir_hole_first(void)
{
	uint64_t i = path_ino("/many");

	if (inode_peek(i, I_BMAP, 1) & NLFS_BMAP_LARGE)
		die("/many is not a direct map");
	inode_edit(i, I_BMAP + 8, 8, 0);
}

/* the root's entry NAME for a directory dropped and the directory's links
 * set to 0; its inode number */
static uint64_t root_dir_unlink(const char *name)
{
	char path[64];
	uint64_t b, i;
	uint32_t o;

	snprintf(path, sizeof(path), "/%s", name);
	i = path_ino(path);
	dirent_at("/", name, &b, &o);
	edit(b, o, 8, 0, 1);
	inode_edit(i, I_LINKS, 2, 0);
	return i;
}

/* a half-done rmdir of a directory that is not empty: its entry gone, its
 * links 0, the inode still in use with its file inside */
static void c_dir_orphan(void) { root_dir_unlink("dir2"); }

/* an rmdir whose directory was still open at a crash (a process's working
 * directory): its entry gone, links 0, size 0 as the kernel's rmdir leaves
 * it, its block kept; the inode is never released */
static void c_dir_orphan_rmdir(void)
{
	inode_edit(root_dir_unlink("empty-dir"), I_SIZE, 8, 0);
	inode_edit(NLFS_ROOT_INO, I_LINKS, 2, inode_peek(NLFS_ROOT_INO, I_LINKS, 2) - 1);
}

/* a rename over an empty directory still open at a crash: its entry names
 * another inode now (here: gone), links 0, its size and block kept */
static void c_dir_orphan_renamed_over(void)
{
	root_dir_unlink("empty-dir");
	inode_edit(NLFS_ROOT_INO, I_LINKS, 2, inode_peek(NLFS_ROOT_INO, I_LINKS, 2) - 1);
}

/* the root's bit cleared in the ifile bitmap (the checkpoint's count kept true) */
static void c_dir_root_unused(void)
{
	uint64_t c = nlfs_fs_recovery(fs)->cno;

	ifile_bit_flip(NLFS_ROOT_INO, 1);
	cp_edit(c, 48, 8, cp_peek(c, 48, 8) - 1);
}

/* a file with two links and an invalid file type */
static void c_ino_mode_linked(void) { inode_edit(path_ino("/src/lib/seven"), I_MODE, 2, 0170644); }
static void c_ino_size_btree(void) { inode_edit(path_ino("/medium"), I_SIZE, 8, 1000); }
static void c_symlink_size_long(void) { inode_edit(path_ino("/long-link"), I_SIZE, 8, 2 * bs); }

/* a symbolic link written with no target: size 0, its block zeroed */
static void c_symlink_empty(void)
{
	struct nlfs_file f;
	uint64_t b;

	lookup("/dangling", &f);
	b = phys_of(&f, 0);
	for (uint32_t o = 0; o < bs; o += 8)
		edit(b, o, 8, 0, 0);
	reseal_log(log_of(b));
	inode_edit(f.ino, I_SIZE, 8, 0);
}

/* ---- a fault only an old checkpoint holds ---- */
/* the byte offset in directory block B of its first entry after '.' and
 * '..' that names an inode and that WANT (if given) accepts for checkpoint
 * CNO, its record in *REC; bs if none.  B must be sound. */
static unsigned find_entry(uint64_t b, uint64_t cno,
			   bool (*want)(const struct nlfs_dir_rec *rec, uint64_t cno),
			   struct nlfs_dir_rec *rec)
{
	uint8_t *buf = malloc(bs);
	unsigned off = 0, next, nrec = 0;

	if (!buf)
		die("out of memory");
	rd(b * bs, buf, bs);
	while (off < bs) {
		const char *why;

		if (nlfs_dir_salvage(buf, bs, off, rec, &next, &why) != NLFS_DIR_SOUND)
			die("checkpoint %llu: directory block %llu is not sound",
			    (unsigned long long)cno, (unsigned long long)b);
		if (nrec++ >= 2 && rec->ino && (!want || want(rec, cno)))
			break;
		off = next;
	}
	free(buf);
	return off;
}

/* The root directory's block 0 as the newest checkpoint before the latest
 * whose copy of it no later checkpoint shares (its DAT period has ended)
 * had it: its first entry's name gets a '/', the log resealed.  Only a
 * check of every checkpoint finds it (the check by difference must read
 * that directory again); the latest checkpoint is sound. */
static void c_dir_rich_old_cp(void)
{
	uint64_t latest = nlfs_fs_recovery(fs)->cno;

	for (uint64_t cno = latest - 1; cno >= 1; cno--) {
		struct nlfs_file ifl, root;
		struct nlfs_datinfo de;
		struct nlfs_dir_rec rec;
		struct nlfs_err err;
		uint64_t ptr, b;
		unsigned off;

		if (nlfs_fs_ifile(fs, cno, &ifl, &err) ||
		    nlfs_ifile_read(fs, &ifl, NLFS_ROOT_INO, &root, &err) ||
		    nlfs_bmap_lookup(fs, &root, 0, &ptr, &err) || !ptr ||
		    nlfs_dat_lookup(fs, ptr, &de, &err) || de.end == NLFS_CNO_MAX ||
		    nlfs_dat_translate(fs, ptr, &b, &err))
			continue;
		off = find_entry(b, cno, NULL, &rec);
		if (off < bs) {
			edit(b, off + 12, 1, '/', 1);
			return;
		}
	}
	die("no checkpoint has a root directory block of its own");
}

/* the same damage: the latest checkpoint alone checks clean */
static void c_good_rich_old_cp_latest(void) { c_dir_rich_old_cp(); }

/* does REC name, with a file type, an inode that changed from checkpoint
 * CNO - 1 to CNO (or is new in it)? */
static bool names_changed_inode(const struct nlfs_dir_rec *rec, uint64_t cno)
{
	struct nlfs_file ifl, a, b;
	struct nlfs_err err;

	if (!rec->file_type)
		return false;
	if (nlfs_fs_ifile(fs, cno - 1, &ifl, &err) || nlfs_ifile_read(fs, &ifl, rec->ino, &a, &err))
		return true;
	if (nlfs_fs_ifile(fs, cno, &ifl, &err) || nlfs_ifile_read(fs, &ifl, rec->ino, &b, &err))
		return false;
	return memcmp(&a.inode, &b.inode, sizeof(a.inode)) != 0;
}

/* An old checkpoint's directory block written in that checkpoint, whose
 * entry names an inode that changed in it too (a new file, as a kernel
 * writes one): the entry's file type byte made another.  The check by
 * difference knows such an inode from its own check (cpdiff's
 * checked_mode), not from the ifile: it must still say the type is wrong,
 * in each checkpoint that shares the block. */
static void c_dir_rich_old_cp_newtype(void)
{
	uint64_t latest = nlfs_fs_recovery(fs)->cno;

	for (uint64_t cno = latest - 1; cno >= 2; cno--) {
		struct nlfs_file ifl, dir;
		struct nlfs_err err;

		if (nlfs_fs_ifile(fs, cno, &ifl, &err))
			continue;
		for (uint64_t ino = NLFS_ROOT_INO; ino < 256; ino++) {
			struct nlfs_datinfo de;
			struct nlfs_dir_rec rec;
			uint64_t ptr, b;
			unsigned off;

			if (nlfs_ifile_read(fs, &ifl, ino, &dir, &err) ||
			    (nlfs_le16(dir.inode.i_mode) & NLFS_S_IFMT) != NLFS_S_IFDIR ||
			    nlfs_bmap_lookup(fs, &dir, 0, &ptr, &err) || !ptr ||
			    nlfs_dat_lookup(fs, ptr, &de, &err) || de.start != cno ||
			    de.end == NLFS_CNO_MAX || nlfs_dat_translate(fs, ptr, &b, &err))
				continue;
			off = find_entry(b, cno, names_changed_inode, &rec);
			if (off < bs) {
				edit(b, off + 11, 1, rec.file_type == 1 ? 7 : 1, 1);
				return;
			}
		}
	}
	die("no old checkpoint's directory block names an inode new in it");
}

/* The ifile block holding the root's record, as an old checkpoint has it
 * in common with the one before (the check by difference passes over it):
 * its DAT period is ended at that checkpoint, so the checkpoint holds a
 * block that is dead in it.  The latest checkpoint does not use it. */
static void c_ifile_rich_old_cp_period(void)
{
	uint64_t latest = nlfs_fs_recovery(fs)->cno, blkoff;
	uint32_t off;

	nlfs_palloc_locate(bs, g->inode_size, NLFS_ROOT_INO, &blkoff, &off);
	for (uint64_t cno = latest - 1; cno >= 2; cno--) {
		struct nlfs_file ifl;
		struct nlfs_datinfo de;
		struct nlfs_err err;
		uint64_t ptr;

		if (nlfs_fs_ifile(fs, cno, &ifl, &err) ||
		    nlfs_bmap_lookup(fs, &ifl, blkoff, &ptr, &err) || !ptr ||
		    nlfs_dat_lookup(fs, ptr, &de, &err) || de.end == NLFS_CNO_MAX ||
		    de.start >= cno)
			continue;
		dat_edit(ptr, 16, 8, cno);
		return;
	}
	die("no old checkpoint shares an ifile block with the one before");
}

/* ---- shared metadata on the rich base (fsckmeta's cases) ---- */

/* a valid entry whose cp_cno a writer left at 0 */
static void c_cp_cno_zero(void) { cp_edit(33, 24, 8, 0); }
/* a flag no kernel defines */
static void c_cp_flags_unknown(void) { cp_edit(50, 0, 4, cp_peek(50, 0, 4) | 0x100); }
/* a checkpoint flagged a snapshot that the list does not name */
static void c_cp_snap_unlisted(void)
{
	cp_edit(20, 0, 4, cp_peek(20, 0, 4) | NLFS_CHECKPOINT_SNAPSHOT);
	cp_edit(0, 8, 8, cp_peek(0, 8, 8) + 1);
}
/* the middle snapshot's flag lost, the list and the count kept */
static void c_cp_snapflag_mid(void)
{
	uint64_t mid = cp_peek(cp_peek(0, 16, 8), 8, 8);

	cp_edit(mid, 0, 4, cp_peek(mid, 0, 4) & ~NLFS_CHECKPOINT_SNAPSHOT);
}
/* the last snapshot links on to the first: a loop */
static void c_cp_snap_loop(void) { uint64_t last = cp_peek(0, 24, 8); cp_edit(last, 8, 8, cp_peek(0, 16, 8)); }
/* an old checkpoint's ifile inode with no links */
static void c_cp_ifile_links(void) { cp_edit(30, 64 + I_LINKS, 2, 0); }
/* a cpfile block's count of valid checkpoints two too high */
static void c_cp_blkcount_rich(void) { uint64_t epb = bs / 192; cp_edit(6 * epb, 4, 4, cp_peek(6 * epb, 4, 4) + 2); }

/* the oldest segment, full of blocks in use, marked clean (counts kept true) */
static void c_su_clean_live(void)
{
	su_edit(2 + 0, 0, 8, 0);
	su_edit(2 + 0, 8, 4, 0);
	su_edit(2 + 0, 12, 4, 0);
	su_edit(0, 0, 8, su_peek(0, 0, 8) + 1);
	su_edit(0, 8, 8, su_peek(0, 8, 8) - 1);
}
/* a segment in use whose logs are sound marked as failed */
static void c_su_error_dirty(void) { su_edit(2 + 0, 12, 4, su_peek(2 + 0, 12, 4) | NLFS_SEGMENT_USAGE_ERROR); }
/* su_nblocks past the end of the segment */
static void c_su_nblocks_big(void) { su_edit(2 + 0, 8, 4, g->blocks_per_segment + 40); }
/* a flag bit no kernel defines on a segment in use */
static void c_su_flags_unknown(void) { su_edit(2 + 0, 12, 4, su_peek(2 + 0, 12, 4) | 0x10); }
/* the segment of the latest super root marked clean (counts kept true) */
static void c_su_current_clean(void)
{
	uint64_t seg = nlfs_fs_recovery(fs)->sr_log / g->blocks_per_segment;

	su_edit(2 + seg, 0, 8, 0);
	su_edit(2 + seg, 8, 4, 0);
	su_edit(2 + seg, 12, 4, 0);
	su_edit(0, 0, 8, su_peek(0, 0, 8) + 1);
	su_edit(0, 8, 8, su_peek(0, 8, 8) - 1);
}

struct kase {
	const char *name, *base, *opts, *lost;
	void (*fn)(void);
};

/* K: no options, nothing lost; KO: options; KL: options and lost paths */
#define K(name, base) { #name, base, "-", "-", c_##name }
#define KO(name, base, opts) { #name, base, opts, "-", c_##name }
#define KL(name, base, opts, lost) { #name, base, opts, lost, c_##name }
/* an entry of the kernel base's /many, for lists of what a lost block held */
#define MANY(n) "/many/a-fairly-long-file-name-number-" #n
static const struct kase cases[] = {
	K(sb_primary_magic, "mkfs"), K(sb_primary_crc, "mkfs"), K(sb_secondary_crc, "mkfs"),
	K(sb_both_magic, "mkfs"), K(sb_bytes, "mkfs"), K(sb_revision, "mkfs"),
	K(sb_geometry, "mkfs"), K(sb_uuid, "mkfs"), K(sb_devsize, "mkfs"), K(sb_free, "mkfs"),
	K(sb_error_state, "mkfs"), K(sb_feature, "mkfs"), K(sb_cursor_seq, "mkfs"),
	K(sb_other_cursor, "kernel"), K(sb_cursor_cno, "kernel"), K(sb_cursor_old, "kernel"),
	K(sr_latest_datasum, "kernel"),
	K(log_magic, "kernel"), K(log_sumsum, "kernel"), KO(log_datasum, "kernel", "--check-data"),
	KL(log_datasum_latest, "kernel", "-", "/last"),
	K(log_seq, "kernel"), K(log_next, "kernel"), K(log_flags_unknown, "kernel"),
	K(log_sr_noend, "kernel"), K(log_cno, "kernel"), K(log_sr_crc, "kernel"),
	K(log_finfo_nblocks, "kernel"), K(log_finfo_cno, "kernel"), K(log_binfo_zero, "kernel"),
	K(log_binfo_stale, "kernel"), K(log_overrun, "kernel"),
	K(seg_chain, "kernel"), K(seg_seq_dup, "kernel"), K(seg_seq_newer, "kernel"),
	K(su_short, "mkfs"), K(su_nclean, "mkfs"), K(su_ndirty, "mkfs"),
	K(su_last_alloc, "mkfs"), K(su_active_only, "mkfs"), K(su_clean_nblocks, "mkfs"),
	K(su_error, "mkfs"), K(su_next_clean, "mkfs"),
	K(dat_desc, "mkfs"), K(dat_bit_clear, "kernel"), K(dat_bit_set, "mkfs"),
	K(dat_entry0, "mkfs"), K(dat_range, "kernel"), K(dat_outside, "kernel"),
	K(dat_noaddr, "kernel"), K(dat_shared, "kernel"), K(dat_unclaimed, "kernel"),
	K(dat_leak, "kernel"), K(dat_period_end, "kernel"),
	K(good_dat_sparse, "rich"), KO(dir_rich_old_cp, "rich", "--checkpoints=all"),
	K(good_rich_old_cp_latest, "rich"), K(dat_sparse_leak, "rich"),
	KO(dir_rich_old_cp_newtype, "rich", "--checkpoints=all"),
	KO(ifile_rich_old_cp_period, "rich", "--checkpoints=all"),
	K(cp_ncheckpoints, "kernel"), K(cp_nsnapshots, "kernel"), K(cp_snaplist, "kernel"),
	K(cp_snapflag, "kernel"), K(cp_blkcount, "kernel"), K(cp_cno, "kernel"),
	K(cp_future, "kernel"), K(cp_ifile_mode, "kernel"), K(cp_inodes, "kernel"),
	K(cp_blocks, "kernel"), K(cp_latest_invalid, "kernel"),
	K(ifile_desc, "mkfs"), K(ifile_reserved, "mkfs"), K(ifile_bit_clear, "mkfs"),
	K(ino_orphan, "mkfs"), K(ino_unattached, "mkfs"), KL(ino_mode, "mkfs", "-", "/.nilfs"),
	K(ino_links, "kernel"), K(ino_blocks, "kernel"), KL(ino_size, "kernel", "-", "/small"),
	KL(ino_size_max, "kernel", "-", "/small"),
	K(dir_size, "mkfs"), K(symlink_size, "kernel"),
	K(bmap_direct, "kernel"), K(bmap_vblock, "kernel"), K(bmap_shared, "kernel"),
	K(bmap_period, "kernel"), K(bmap_root_level, "kernel"), K(bmap_key_order, "kernel"),
	K(bmap_node_level, "kernel"),
	K(bmap_rich_l2_level, "rich"), K(bmap_rich_nchildren, "rich"),
	K(bmap_rich_key_range, "rich"), K(bmap_rich_node_vblock, "rich"),
	K(bmap_rich_node_foreign, "rich"), K(bmap_rich_root_keys, "rich"),
	K(bmap_rich_hidden_leak, "rich"),
	KO(dat_rich_snap_range, "rich", "--checkpoints=snapshots"),
	KO(dat_rich_snap_noaddr, "rich", "--checkpoints=snapshots"),
	KO(dat_rich_snap_bitclear, "rich", "--checkpoints=snapshots"),
	K(dat_rich_hole, "rich"), K(dat_mdt_mode, "kernel"),
	KO(log_rich_binfo_stale, "rich", "--checkpoints=snapshots"),
	KO(log_rich_finfo_count, "rich", "--checkpoints=snapshots"),
	KO(log_rich_sumsum, "rich", "--checkpoints=snapshots"),
	K(dir_reclen, "mkfs"), K(dir_dot, "kernel"), K(dir_dotdot, "kernel"),
	KL(dir_free_inode, "kernel", "-", "/dir1/f19"), K(dir_type, "kernel"), KL(dir_dup, "kernel", "-", "/dir1/f11,/dir1/f12"),
	KL(dir_name_slash, "kernel", "-", "/dir1/f10"), KL(dir_reserved, "kernel", "-", "/dir1/f9"),
	KL(dir_hardlink, "kernel", "-", "/small"),
	KL(dir_root_mode, "mkfs", "-", "/.nilfs"), KL(dir_unlinked, "kernel", "-", "/dir2"), KL(dir_hole, "kernel", "-",
	   MANY(20) "," MANY(21) "," MANY(22) "," MANY(23) "," MANY(24) "," MANY(25) ","
	   MANY(26) "," MANY(27) "," MANY(28) "," MANY(29) "," MANY(30) "," MANY(31) ","
	   MANY(32) "," MANY(33) "," MANY(34) "," MANY(35) "," MANY(36) "," MANY(37) ","
	   MANY(38) "," MANY(39) "," MANY(40)),
	KL(dir_empty_name, "kernel", "-", "/dir1/f8"), K(dir_size_long, "kernel"),
	KO(snapshot_links, "kernel", "--checkpoints=snapshots"),
	K(dir_rec_cross, "rich"), K(dir_namelen, "rich"),
	KL(dir_rec_garbage, "rich", "-", "/docs/old/note13"),
	K(dir_dotdot_name, "rich"),
	KL(dir_cycle, "rich", "-", "/deep/d1/d2/d3/d4/d5/d6/d7/leaf"),
	KL(dir_dup_same, "rich", "-", "/docs/renamed/empty1"),
	K(dir_type_unknown, "rich"), K(dir_size_rich, "rich"),
	KL(dir_hole_first, "kernel", "-",
	   MANY(0) "," MANY(1) "," MANY(2) "," MANY(3) "," MANY(4) "," MANY(5) ","
	   MANY(6) "," MANY(7) "," MANY(8) "," MANY(9) "," MANY(10) "," MANY(11) ","
	   MANY(12) "," MANY(13) "," MANY(14) "," MANY(15) "," MANY(16) "," MANY(17) ","
	   MANY(18) "," MANY(19)),
	KL(ino_mode_linked, "rich", "-", "/docs/seven-link,/src/lib/seven"),
	KL(ino_size_btree, "rich", "-", "/medium"),
	K(symlink_size_long, "rich"),
	KL(symlink_empty, "rich", "-", "/dangling"),
	KL(dir_root_unused, "mkfs", "-", "/.nilfs"),
	KL(dir_orphan, "kernel", "-", "/dir2"),   /* its entry is gone: to /lost+found */
	/* released by -p and -y, like an unlinked file; its name was gone before */
	KL(dir_orphan_rmdir, "rich", "-", "/empty-dir"),
	KL(dir_orphan_renamed_over, "rich", "-", "/empty-dir"),
	/* the cycle's top goes to /lost+found whole: its paths change */
	KL(dir_cycle_detached, "rich", "-", "/deep"),
	K(cp_cno_zero, "rich"), K(cp_flags_unknown, "rich"), K(cp_snap_unlisted, "rich"),
	K(cp_snapflag_mid, "rich"), K(cp_snap_loop, "rich"), K(cp_ifile_links, "rich"),
	K(cp_blkcount_rich, "rich"), K(su_clean_live, "rich"), K(su_error_dirty, "rich"),
	K(su_nblocks_big, "rich"), K(su_flags_unknown, "mkfs"), K(su_current_clean, "mkfs"),
	K(ifile_rich_bit_set, "rich"), K(log_rich_header, "rich"), K(ifile_rich_bit_stale, "rich"),
	K(ifile_rich_far, "rich"),
	KL(ifile_rich_hole, "rich", "-", "/docs,/src,/deep/d1/d2/d3/d4,/deep/d1/hard-b"),
};

/* Not a case (no base has logs after its super root), for
 * t-fsck-recovery-fault: the last log after the latest super root, a
 * data-sync one, loses LOGEND, as if the machine had died before the
 * series it ends was written whole. */
static void open_dsync_series(void)
{
	const struct nlfs_recovery *rec = nlfs_fs_recovery(fs);
	uint64_t p = rec->next_pseg, last = 0, seg = p / g->blocks_per_segment;

	while (p + 1 <= nlfs_seg_end(g, seg) && peek(p, 8, 4) == NLFS_SEGSUM_MAGIC &&
	       peek(p, SS_SEQ, 8) == rec->next_seq) {
		last = p;
		p += peek(p, SS_NBLK, 4);
	}
	if (!last || !(peek(last, SS_FLAGS, 2) & NLFS_SS_SYNDT))
		die("no data-sync log after the super root");
	edit(last, SS_FLAGS, 2, peek(last, SS_FLAGS, 2) & ~NLFS_SS_LOGEND, 1);
}

/* --dup-across PATH: directory PATH as a checkpoint before the latest has
 * it, where one of its blocks is the one the checkpoint before had (the
 * same virtual block) and another is new and holds no later checkpoint:
 * a record of the new block renamed to a name of the other (same length),
 * so the checkpoint holds one name twice, in two blocks.  A check by
 * difference that reads only what changed must still find it.  Prints
 * the checkpoint's number. */
static const char *dup_path;

/* directory inode INO's records at checkpoint CNO: its map's keys and
 * pointers (at most MAX); 0 if it is not there */
static size_t dir_blocks_at(uint64_t cno, uint64_t ino, uint64_t *keys, uint64_t *ptrs,
			    size_t max)
{
	struct nlfs_file ifl, f;
	struct nlfs_err err;
	uint64_t *k = NULL;
	size_t n = 0;

	if (nlfs_fs_ifile(fs, cno, &ifl, &err) || nlfs_ifile_read(fs, &ifl, ino, &f, &err) ||
	    nlfs_bmap_keys(fs, &f, &k, &n, &err)) {
		free(k);
		return 0;
	}
	if (n > max)
		n = max;
	for (size_t i = 0; i < n; i++) {
		keys[i] = k[i];
		if (nlfs_bmap_lookup(fs, &f, k[i], &ptrs[i], &err))
			die("%s: its map at checkpoint %llu cannot be read", dup_path,
			    (unsigned long long)cno);
	}
	free(k);
	return n;
}

/* the first record (not '.' or '..') of the block at B: its byte offset
 * and name length, named differently from NOT (LEN bytes; NULL: any) */
static bool pick_record(uint64_t b, bool first_block, const uint8_t *not, unsigned len,
			unsigned *at, unsigned *name_len)
{
	uint8_t *buf = malloc(bs);
	unsigned off = 0, nrec = 0;
	bool found = false;

	if (!buf)
		die("out of memory");
	rd(b * bs, buf, bs);
	while (off < bs && !found) {
		struct nlfs_dir_rec rec;
		const char *why;
		unsigned next;

		if (nlfs_dir_salvage(buf, bs, off, &rec, &next, &why) != NLFS_DIR_SOUND)
			break;
		if (rec.ino && !(first_block && nrec < 2) &&
		    (!not || (rec.name_len == len && memcmp(rec.name, not, len)))) {
			*at = off;
			*name_len = rec.name_len;
			found = true;
		}
		nrec++;
		off = next;
	}
	free(buf);
	return found;
}

static void dup_across(void)
{
	enum { MAXB = 64 };
	uint64_t ino = path_ino(dup_path), latest = nlfs_fs_recovery(fs)->cno, prev = 0;
	uint64_t pk[MAXB], pp[MAXB], k[MAXB], p[MAXB];
	size_t np = 0;

	for (uint64_t cno = 1; cno < latest; cno++) {
		size_t n = dir_blocks_at(cno, ino, k, p, MAXB);
		size_t same = n, changed = n;

		if (!n)
			continue;
		for (size_t i = 0; i < n; i++) {
			bool shared = i < np && pk[i] == k[i] && pp[i] == p[i];
			struct nlfs_datinfo de;
			struct nlfs_err err;

			if (shared && same == n)
				same = i;
			if (!shared && prev && changed == n && !nlfs_dat_lookup(fs, p[i], &de, &err) &&
			    de.end != NLFS_CNO_MAX)
				changed = i;
		}
		if (same < n && changed < n) {
			uint64_t sb_, cb;
			struct nlfs_err err;
			unsigned soff, slen, coff, clen;
			uint8_t name[255];

			if (nlfs_dat_translate(fs, p[same], &sb_, &err) ||
			    nlfs_dat_translate(fs, p[changed], &cb, &err))
				die("%s: checkpoint %llu: a block cannot be found", dup_path,
				    (unsigned long long)cno);
			if (pick_record(sb_, k[same] == 0, NULL, 0, &soff, &slen)) {
				rd(sb_ * bs + soff + NLFS_DIR_ENTRY_HEADER, name, slen);
				if (pick_record(cb, k[changed] == 0, name, slen, &coff, &clen)) {
					wr(cb * bs + coff + NLFS_DIR_ENTRY_HEADER, name, slen);
					reseal_log(log_of(cb));
					printf("%llu\n", (unsigned long long)cno);
					return;
				}
			}
		}
		memcpy(pk, k, n * sizeof(*k));
		memcpy(pp, p, n * sizeof(*p));
		np = n;
		prev = cno;
	}
	die("%s: no checkpoint shares one block of it with the one before and has another of its own",
	    dup_path);
}

/* --links: the inode and the count it gets */
static const char *links_path;
static unsigned links_count;

static void set_links(void) { inode_edit(path_ino(links_path), I_LINKS, 2, links_count); }

/* --cp-count: a checkpoint of the block, and the count it gets */
static uint64_t count_cno;
static uint32_t count_value;

static void set_cp_count(void)
{
	uint64_t epb = bs / 192;

	if (count_cno < epb)
		die("checkpoint %llu is in block 0, which keeps no count",
		    (unsigned long long)count_cno);
	cp_edit(count_cno / epb * epb, 4, 4, count_value);
}

/* --random: the seed of the draw */
static uint64_t random_seed;

static void draw_random(void) { random_fault(random_seed); }

static int run_on(const char *path, void (*fn)(void))
{
	img = path;
	fd = open(img, O_RDWR);
	if (fd < 0)
		die("cannot open %s: %s", img, strerror(errno));
	open_fs();
	fn();
	nlfs_fs_close(fs);
	return close(fd) ? 2 : 0;
}

int main(int argc, char **argv)
{
	size_t n = sizeof(cases) / sizeof(cases[0]);

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < n; i++)
			printf("%s %s %s %s\n", cases[i].name, cases[i].base, cases[i].opts,
			       cases[i].lost);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "--links")) {
		links_path = argv[2];
		links_count = (unsigned)strtoul(argv[3], NULL, 10);
		return run_on(argv[4], set_links);
	}
	if (argc == 5 && !strcmp(argv[1], "--cp-count")) {
		count_cno = strtoull(argv[2], NULL, 10);
		count_value = (uint32_t)strtoul(argv[3], NULL, 10);
		return run_on(argv[4], set_cp_count);
	}
	if (argc == 4 && !strcmp(argv[1], "--dup-across")) {
		dup_path = argv[2];
		return run_on(argv[3], dup_across);
	}
	if (argc == 4 && !strcmp(argv[1], "--random")) {
		random_seed = strtoull(argv[2], NULL, 10);
		return run_on(argv[3], draw_random);
	}
	if (argc != 3) {
		fprintf(stderr, "usage: corrupt --list | corrupt CASE IMAGE | corrupt --open-dsync IMAGE\n"
			"       corrupt --links PATH N IMAGE | corrupt --random SEED IMAGE\n"
			"       corrupt --cp-count CNO N IMAGE | corrupt --dup-across DIR IMAGE\n");
		return 2;
	}
	if (!strcmp(argv[1], "--open-dsync"))
		return run_on(argv[2], open_dsync_series);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(cases[i].name, argv[1]))
			return run_on(argv[2], cases[i].fn);
	die("no case named %s", argv[1]);
	return 2;
}
