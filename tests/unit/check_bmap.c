/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Block maps and palloc geometry. */
#include <errno.h>
#include <string.h>

#include "check_main.h"
#include <nlfs/endian.h>
#include "testimg.h"

START_TEST(palloc_layout_matches_format_reference)
{
	uint64_t blkoff;
	uint32_t byteoff;

	/* 4 KiB DAT: 128 entries a block, 32768 a group, 257 blocks a group */
	ck_assert_uint_eq(nlfs_palloc_bitmap_blkoff(4096, 32, 0), 1);
	ck_assert_uint_eq(nlfs_palloc_bitmap_blkoff(4096, 32, 1), 1 + 257);
	ck_assert_uint_eq(nlfs_palloc_bitmap_blkoff(4096, 32, 1024), 263169 + 1);
	nlfs_palloc_locate(4096, 32, 0, &blkoff, &byteoff);
	ck_assert_uint_eq(blkoff, 2);
	ck_assert_uint_eq(byteoff, 0);
	nlfs_palloc_locate(4096, 32, 129, &blkoff, &byteoff);
	ck_assert_uint_eq(blkoff, 3);
	ck_assert_uint_eq(byteoff, 32);
	nlfs_palloc_locate(4096, 32, 32768, &blkoff, &byteoff);
	ck_assert_uint_eq(blkoff, 1 + 257 + 1);
	/* 4 KiB ifile: 32 inodes a block, 1025 blocks a group, 1049601 per descriptor */
	nlfs_palloc_locate(4096, 128, 11, &blkoff, &byteoff);
	ck_assert_uint_eq(blkoff, 2);
	ck_assert_uint_eq(byteoff, 11 * 128);
	ck_assert_uint_eq(nlfs_palloc_bitmap_blkoff(4096, 128, 1024), 1049601 + 1);
	/* against the layout's definition, sizes that are no power of two too */
	static const uint32_t sizes[][2] = { { 1024, 32 }, { 4096, 32 }, { 4096, 128 },
					     { 4096, 96 }, { 65536, 256 }, { 2048, 200 } };
	for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint32_t b = sizes[k][0], e = sizes[k][1];
		const uint64_t epg = (uint64_t)b * 8, epb = b / e;   /* entries a group, a block */
		uint64_t nr = 1;

		for (unsigned i = 0; i < 200; i++, nr = nr * 6364136223846793005ull + 1442695040888963407ull) {
			uint64_t x = i < 100 ? i * 977u : nr >> (i % 40);

			nlfs_palloc_locate(b, e, x, &blkoff, &byteoff);
			ck_assert_uint_eq(blkoff, nlfs_palloc_bitmap_blkoff(b, e, x / epg) + 1 +
							  x % epg / epb);
			ck_assert_uint_eq(byteoff, x % epg % epb * e);
		}
	}
}
END_TEST

static void set_root(struct nlfs_file *f, unsigned level, unsigned n, const uint64_t *keys,
		     const uint64_t *ptrs)
{
	uint8_t *b = (uint8_t *)f->inode.i_bmap;
	nlfs_le16_t nch = nlfs_cpu_to_le16((uint16_t)n);

	memset(f, 0, sizeof(*f));
	f->ino = 20;
	b[0] = NLFS_BMAP_LARGE;
	b[1] = (uint8_t)level;
	memcpy(b + 2, &nch, 2);
	for (unsigned i = 0; i < n; i++) {
		nlfs_le64_t k = nlfs_cpu_to_le64(keys[i]), p = nlfs_cpu_to_le64(ptrs[i]);

		memcpy(b + 8 + 8 * i, &k, 8);
		memcpy(b + 32 + 8 * i, &p, 8);
	}
}

struct seen {
	unsigned n;
	uint64_t keys[8], ptrs[8];
};

static int record(uint64_t blkoff, uint64_t ptr, unsigned level, void *arg)
{
	struct seen *s = arg;

	ck_assert_uint_eq(level, 0);
	s->keys[s->n] = blkoff;
	s->ptrs[s->n++] = ptr;
	return 0;
}

START_TEST(direct_map_lookup_and_holes)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_file f;
	struct seen s = { 0 };
	uint64_t ptr;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	memset(&f, 0, sizeof(f));
	f.inode.i_bmap[1] = nlfs_cpu_to_le64(100);   /* block 0 */
	f.inode.i_bmap[4] = nlfs_cpu_to_le64(103);   /* block 3 */
	ck_assert_int_eq(nlfs_bmap_lookup(fs, &f, 0, &ptr, &err), 0);
	ck_assert_uint_eq(ptr, 100);
	ck_assert_int_eq(nlfs_bmap_lookup(fs, &f, 1, &ptr, &err), 0);
	ck_assert_uint_eq(ptr, 0);
	ck_assert_int_eq(nlfs_bmap_lookup(fs, &f, 6, &ptr, &err), 0);
	ck_assert_uint_eq(ptr, 0);
	ck_assert_int_eq(nlfs_bmap_iterate(fs, &f, record, &s, &err), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_uint_eq(s.keys[1], 3);
	ck_assert_uint_eq(s.ptrs[1], 103);
	nlfs_fs_close(fs);
}
END_TEST

START_TEST(btree_root_lookup_is_exact_at_level_one)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_file f;
	struct seen s = { 0 };
	const uint64_t keys[] = { 2, 9, 1000 }, ptrs[] = { 50, 51, 52 };
	uint64_t ptr;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	set_root(&f, 1, 3, keys, ptrs);
	ck_assert_int_eq(nlfs_bmap_lookup(fs, &f, 9, &ptr, &err), 0);
	ck_assert_uint_eq(ptr, 51);
	ck_assert_int_eq(nlfs_bmap_lookup(fs, &f, 10, &ptr, &err), 0);
	ck_assert_uint_eq(ptr, 0);                   /* a hole, not key 9's block */
	ck_assert_int_eq(nlfs_bmap_lookup(fs, &f, 1, &ptr, &err), 0);
	ck_assert_uint_eq(ptr, 0);
	ck_assert_int_eq(nlfs_bmap_iterate(fs, &f, record, &s, &err), 0);
	ck_assert_uint_eq(s.n, 3);
	ck_assert_uint_eq(s.keys[2], 1000);
	nlfs_fs_close(fs);
}
END_TEST

START_TEST(btree_corruption_is_reported_with_the_inode)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_file f;
	struct seen s = { 0 };
	const uint64_t unsorted[] = { 9, 2, 30 }, ptrs[] = { 1, 2, 3 };
	uint64_t ptr;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	set_root(&f, 1, 3, unsorted, ptrs);
	ck_assert_int_eq(nlfs_bmap_iterate(fs, &f, record, &s, &err), -NLFS_ECORRUPT);
	ck_assert_uint_eq(err.ino, 20);
	set_root(&f, 14, 1, ptrs, ptrs);              /* level too high */
	ck_assert_int_eq(nlfs_bmap_lookup(fs, &f, 1, &ptr, &err), -NLFS_ECORRUPT);
	set_root(&f, 1, 3, ptrs, ptrs);               /* more children than the root holds */
	((uint8_t *)f.inode.i_bmap)[2] = 4;
	ck_assert_int_eq(nlfs_bmap_lookup(fs, &f, 1, &ptr, &err), -NLFS_ECORRUPT);
	/* a level-2 root whose child has no DAT entry: an error, not a crash */
	set_root(&f, 2, 1, ptrs, ptrs);
	ck_assert_int_lt(nlfs_bmap_lookup(fs, &f, 1, &ptr, &err), 0);
	nlfs_fs_close(fs);
}
END_TEST

START_TEST(lookup_at_a_level_finds_nodes_by_their_key)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_file f;
	const uint64_t rkeys[] = { 5 }, rptrs[] = { 40 };
	unsigned ncmax = (TESTIMG_BS - 16) / 16;
	uint8_t *node;
	uint64_t ptr;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	/* a level-1 node at block 40 holding keys 5 and 7 */
	node = nlfs_io_mem_data(nlfs_fs_io(fs)) + 40 * TESTIMG_BS;
	memset(node, 0, TESTIMG_BS);
	node[1] = 1;
	node[2] = 2;
	nlfs_put_le64(node + 16, 5);
	nlfs_put_le64(node + 24, 7);
	nlfs_put_le64(node + 16 + 8 * ncmax, 200);
	nlfs_put_le64(node + 24 + 8 * ncmax, 201);
	set_root(&f, 2, 1, rkeys, rptrs);
	f.ino = NLFS_DAT_INO;                         /* physical pointers */
	ck_assert_int_eq(nlfs_bmap_lookup_level(fs, &f, 5, 1, &ptr, &err), 0);
	ck_assert_uint_eq(ptr, 40);                   /* the node itself */
	ck_assert_int_eq(nlfs_bmap_lookup_level(fs, &f, 7, 1, &ptr, &err), 0);
	ck_assert_uint_eq(ptr, 0);                    /* no node has key 7 */
	ck_assert_int_eq(nlfs_bmap_lookup_level(fs, &f, 7, 0, &ptr, &err), 0);
	ck_assert_uint_eq(ptr, 201);
	ck_assert_int_eq(nlfs_bmap_lookup_level(fs, &f, 6, 0, &ptr, &err), 0);
	ck_assert_uint_eq(ptr, 0);
	ck_assert_int_eq(nlfs_bmap_lookup_level(fs, &f, 5, 2, &ptr, &err), 0);
	ck_assert_uint_eq(ptr, 0);                    /* nothing points at the root */
	/* a direct map has data pointers only */
	memset(&f, 0, sizeof(f));
	f.ino = NLFS_DAT_INO;
	f.inode.i_bmap[1] = nlfs_cpu_to_le64(100);
	ck_assert_int_eq(nlfs_bmap_lookup_level(fs, &f, 0, 0, &ptr, &err), 0);
	ck_assert_uint_eq(ptr, 100);
	ck_assert_int_eq(nlfs_bmap_lookup_level(fs, &f, 0, 1, &ptr, &err), 0);
	ck_assert_uint_eq(ptr, 0);
	nlfs_fs_close(fs);
}
END_TEST

/* ---- nlfs_bmap_diff ---- */

struct dseen {
	unsigned n;
	uint64_t key[32], ptr[32];
	unsigned level[32];
	enum nlfs_bmap_side side[32];
};

static int drecord(uint64_t key, uint64_t ptr, unsigned level, enum nlfs_bmap_side side,
		   void *arg)
{
	struct dseen *s = arg;

	ck_assert_uint_lt(s->n, 32);
	s->key[s->n] = key;
	s->ptr[s->n] = ptr;
	s->level[s->n] = level;
	s->side[s->n++] = side;
	return 0;
}

static void expect(const struct dseen *s, unsigned i, uint64_t key, uint64_t ptr, unsigned level,
		   enum nlfs_bmap_side side)
{
	ck_assert_uint_lt(i, s->n);
	ck_assert_uint_eq(s->key[i], key);
	ck_assert_uint_eq(s->ptr[i], ptr);
	ck_assert_uint_eq(s->level[i], level);
	ck_assert_int_eq(s->side[i], side);
}

/* a node of LEVEL at block BLK of the memory image */
static void put_node(struct nlfs_fs *fs, uint64_t blk, unsigned level, unsigned n,
		     const uint64_t *keys, const uint64_t *ptrs)
{
	uint8_t *node = nlfs_io_mem_data(nlfs_fs_io(fs)) + blk * TESTIMG_BS;
	unsigned ncmax = (TESTIMG_BS - 16) / 16;

	memset(node, 0, TESTIMG_BS);
	node[1] = (uint8_t)level;
	node[2] = (uint8_t)n;
	for (unsigned i = 0; i < n; i++) {
		nlfs_put_le64(node + 16 + 8 * i, keys[i]);
		nlfs_put_le64(node + 16 + 8 * (ncmax + i), ptrs[i]);
	}
}

/* a B-tree root on the DAT's inode number: its pointers are disk blocks */
static void set_phys_root(struct nlfs_file *f, unsigned level, unsigned n, const uint64_t *keys,
			  const uint64_t *ptrs)
{
	set_root(f, level, n, keys, ptrs);
	f->ino = NLFS_DAT_INO;
}

START_TEST(diff_of_direct_maps)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_file a, b;
	struct dseen s = { 0 };

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.ino = b.ino = 20;
	a.inode.i_bmap[1] = b.inode.i_bmap[1] = nlfs_cpu_to_le64(100);   /* block 0 kept */
	a.inode.i_bmap[4] = nlfs_cpu_to_le64(103);                       /* 3 rewritten */
	b.inode.i_bmap[4] = nlfs_cpu_to_le64(113);
	a.inode.i_bmap[5] = nlfs_cpu_to_le64(104);                       /* 4 removed */
	b.inode.i_bmap[6] = nlfs_cpu_to_le64(105);                       /* 5 added */
	ck_assert_int_eq(nlfs_bmap_diff(fs, &a, &b, drecord, &s, &err), 0);
	ck_assert_uint_eq(s.n, 5);
	expect(&s, 0, 0, 100, 0, NLFS_BMAP_SHARED);
	expect(&s, 1, 3, 103, 0, NLFS_BMAP_OLD);
	expect(&s, 2, 3, 113, 0, NLFS_BMAP_NEW);
	expect(&s, 3, 4, 104, 0, NLFS_BMAP_OLD);
	expect(&s, 4, 5, 105, 0, NLFS_BMAP_NEW);
	/* a direct map that became a B-tree */
	s.n = 0;
	set_phys_root(&b, 1, 2, (const uint64_t[]){ 0, 7 }, (const uint64_t[]){ 100, 107 });
	ck_assert_int_eq(nlfs_bmap_diff(fs, &a, &b, drecord, &s, &err), 0);
	ck_assert_uint_eq(s.n, 4);
	expect(&s, 0, 0, 100, 0, NLFS_BMAP_SHARED);
	expect(&s, 1, 3, 103, 0, NLFS_BMAP_OLD);
	expect(&s, 2, 4, 104, 0, NLFS_BMAP_OLD);
	expect(&s, 3, 7, 107, 0, NLFS_BMAP_NEW);
	nlfs_fs_close(fs);
}
END_TEST

START_TEST(diff_passes_over_a_shared_node_unread)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_file a, b;
	struct dseen s = { 0 };

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	/* block 60, shared, is no node at all: reading it would fail */
	memset(nlfs_io_mem_data(nlfs_fs_io(fs)) + 60 * TESTIMG_BS, 0xa5, TESTIMG_BS);
	put_node(fs, 61, 1, 2, (const uint64_t[]){ 10, 11 }, (const uint64_t[]){ 210, 211 });
	put_node(fs, 62, 1, 3, (const uint64_t[]){ 10, 11, 12 }, (const uint64_t[]){ 210, 311, 312 });
	set_phys_root(&a, 2, 2, (const uint64_t[]){ 0, 10 }, (const uint64_t[]){ 60, 61 });
	set_phys_root(&b, 2, 2, (const uint64_t[]){ 0, 10 }, (const uint64_t[]){ 60, 62 });
	ck_assert_int_eq(nlfs_bmap_diff(fs, &a, &b, drecord, &s, &err), 0);
	ck_assert_uint_eq(s.n, 7);
	expect(&s, 0, 0, 60, 1, NLFS_BMAP_SHARED);
	expect(&s, 1, 10, 61, 1, NLFS_BMAP_OLD);
	expect(&s, 2, 10, 62, 1, NLFS_BMAP_NEW);
	expect(&s, 3, 10, 210, 0, NLFS_BMAP_SHARED);
	expect(&s, 4, 11, 211, 0, NLFS_BMAP_OLD);
	expect(&s, 5, 11, 311, 0, NLFS_BMAP_NEW);
	expect(&s, 6, 12, 312, 0, NLFS_BMAP_NEW);
	/* the same map: one entry per root pointer, nothing read */
	s.n = 0;
	ck_assert_int_eq(nlfs_bmap_diff(fs, &b, &b, drecord, &s, &err), 0);
	ck_assert_uint_eq(s.n, 2);
	expect(&s, 1, 10, 62, 1, NLFS_BMAP_SHARED);
	nlfs_fs_close(fs);
}
END_TEST

/* the entries two leaves share are passed in runs (shared_run): each
 * still goes to the callback, in order, and a run ends at the first entry
 * that differs, at a leaf's end and at an unmapped slot */
START_TEST(diff_passes_shared_runs_of_a_leaf)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_file a, b;
	struct dseen s = { 0 };

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	put_node(fs, 61, 1, 6, (const uint64_t[]){ 10, 11, 12, 13, 14, 15 },
		 (const uint64_t[]){ 210, 211, 212, 213, 214, 215 });
	put_node(fs, 62, 1, 6, (const uint64_t[]){ 10, 11, 12, 13, 15, 16 },
		 (const uint64_t[]){ 210, 211, 212, 313, 215, 216 });
	set_phys_root(&a, 2, 1, (const uint64_t[]){ 10 }, (const uint64_t[]){ 61 });
	set_phys_root(&b, 2, 1, (const uint64_t[]){ 10 }, (const uint64_t[]){ 62 });
	ck_assert_int_eq(nlfs_bmap_diff(fs, &a, &b, drecord, &s, &err), 0);
	ck_assert_uint_eq(s.n, 10);
	expect(&s, 0, 10, 61, 1, NLFS_BMAP_OLD);
	expect(&s, 1, 10, 62, 1, NLFS_BMAP_NEW);
	expect(&s, 2, 10, 210, 0, NLFS_BMAP_SHARED);
	expect(&s, 3, 11, 211, 0, NLFS_BMAP_SHARED);
	expect(&s, 4, 12, 212, 0, NLFS_BMAP_SHARED);
	expect(&s, 5, 13, 213, 0, NLFS_BMAP_OLD);
	expect(&s, 6, 13, 313, 0, NLFS_BMAP_NEW);
	expect(&s, 7, 14, 214, 0, NLFS_BMAP_OLD);
	expect(&s, 8, 15, 215, 0, NLFS_BMAP_SHARED);
	expect(&s, 9, 16, 216, 0, NLFS_BMAP_NEW);
	/* direct maps: an unmapped slot in both, passed over */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.ino = b.ino = 20;
	a.inode.i_bmap[1] = b.inode.i_bmap[1] = nlfs_cpu_to_le64(100);
	a.inode.i_bmap[3] = b.inode.i_bmap[3] = nlfs_cpu_to_le64(102);
	a.inode.i_bmap[4] = nlfs_cpu_to_le64(103);
	b.inode.i_bmap[4] = nlfs_cpu_to_le64(113);
	s.n = 0;
	ck_assert_int_eq(nlfs_bmap_diff(fs, &a, &b, drecord, &s, &err), 0);
	ck_assert_uint_eq(s.n, 4);
	expect(&s, 0, 0, 100, 0, NLFS_BMAP_SHARED);
	expect(&s, 1, 2, 102, 0, NLFS_BMAP_SHARED);
	expect(&s, 2, 3, 103, 0, NLFS_BMAP_OLD);
	expect(&s, 3, 3, 113, 0, NLFS_BMAP_NEW);
	nlfs_fs_close(fs);
}
END_TEST

START_TEST(diff_checks_new_keys_against_a_shared_subtree)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_file a, b;
	struct dseen s = { 0 };

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	put_node(fs, 60, 1, 2, (const uint64_t[]){ 0, 5 }, (const uint64_t[]){ 200, 205 });
	put_node(fs, 61, 1, 2, (const uint64_t[]){ 10, 11 }, (const uint64_t[]){ 210, 211 });
	put_node(fs, 63, 1, 1, (const uint64_t[]){ 6 }, (const uint64_t[]){ 306 });
	put_node(fs, 64, 1, 1, (const uint64_t[]){ 3 }, (const uint64_t[]){ 303 });
	set_phys_root(&a, 2, 2, (const uint64_t[]){ 0, 10 }, (const uint64_t[]){ 60, 61 });
	/* after the shared node's last key 5: in order */
	set_phys_root(&b, 2, 2, (const uint64_t[]){ 0, 6 }, (const uint64_t[]){ 60, 63 });
	ck_assert_int_eq(nlfs_bmap_diff(fs, &a, &b, drecord, &s, &err), 0);
	ck_assert_uint_eq(s.n, 6);
	expect(&s, 0, 0, 60, 1, NLFS_BMAP_SHARED);
	expect(&s, 1, 6, 63, 1, NLFS_BMAP_NEW);
	expect(&s, 2, 6, 306, 0, NLFS_BMAP_NEW);
	expect(&s, 3, 10, 61, 1, NLFS_BMAP_OLD);
	expect(&s, 5, 11, 211, 0, NLFS_BMAP_OLD);
	/* key 3 lies within the shared node's keys (0 to 5): a lookup of 5
	 * would go to the new node and miss */
	s.n = 0;
	set_phys_root(&b, 2, 2, (const uint64_t[]){ 0, 3 }, (const uint64_t[]){ 60, 64 });
	ck_assert_int_eq(nlfs_bmap_diff(fs, &a, &b, drecord, &s, &err), -NLFS_ECORRUPT);
	ck_assert_uint_eq(err.ino, NLFS_DAT_INO);
	/* a node whose first key is not its parent's */
	set_phys_root(&b, 2, 2, (const uint64_t[]){ 0, 7 }, (const uint64_t[]){ 60, 63 });
	ck_assert_int_eq(nlfs_bmap_diff(fs, &a, &b, drecord, &s, &err), -NLFS_ECORRUPT);
	nlfs_fs_close(fs);
}
END_TEST

START_TEST(lookup_run_follows_one_leaf)
{
	struct nlfs_io *io = testimg_create();
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_file f;
	uint64_t p[16];
	size_t n;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	put_node(fs, 40, 1, 2, (const uint64_t[]){ 5, 7 }, (const uint64_t[]){ 200, 201 });
	set_phys_root(&f, 2, 1, (const uint64_t[]){ 5 }, (const uint64_t[]){ 40 });
	/* before the first key: a hole up to it */
	ck_assert_int_eq(nlfs_bmap_lookup_run(fs, &f, 0, p, 10, &n, &err), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(p[0] | p[4], 0);
	/* the leaf's keys and the hole between them, up to its last key */
	ck_assert_int_eq(nlfs_bmap_lookup_run(fs, &f, 5, p, 10, &n, &err), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(p[0], 200);
	ck_assert_uint_eq(p[1], 0);
	ck_assert_uint_eq(p[2], 201);
	ck_assert_int_eq(nlfs_bmap_lookup_run(fs, &f, 6, p, 1, &n, &err), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(p[0], 0);
	/* past the last key: one hole */
	ck_assert_int_eq(nlfs_bmap_lookup_run(fs, &f, 9, p, 10, &n, &err), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(p[0], 0);
	/* every run agrees with lookups one at a time */
	for (uint64_t k = 0; k < 10; k++) {
		uint64_t one;

		ck_assert_int_eq(nlfs_bmap_lookup_run(fs, &f, k, p, 16, &n, &err), 0);
		ck_assert_uint_ge(n, 1);
		for (size_t i = 0; i < n; i++) {
			ck_assert_int_eq(nlfs_bmap_lookup(fs, &f, k + i, &one, &err), 0);
			ck_assert_uint_eq(p[i], one);
		}
	}
	/* a direct map: the six slots, then holes */
	memset(&f, 0, sizeof(f));
	f.inode.i_bmap[1] = nlfs_cpu_to_le64(100);
	f.inode.i_bmap[3] = nlfs_cpu_to_le64(102);
	ck_assert_int_eq(nlfs_bmap_lookup_run(fs, &f, 0, p, 8, &n, &err), 0);
	ck_assert_uint_eq(n, 8);
	ck_assert_uint_eq(p[0], 100);
	ck_assert_uint_eq(p[2], 102);
	ck_assert_uint_eq(p[1] | p[3] | p[6] | p[7], 0);
	nlfs_fs_close(fs);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bmap");
	TCase *tc = tcase_create("bmap");

	tcase_add_test(tc, palloc_layout_matches_format_reference);
	tcase_add_test(tc, direct_map_lookup_and_holes);
	tcase_add_test(tc, btree_root_lookup_is_exact_at_level_one);
	tcase_add_test(tc, btree_corruption_is_reported_with_the_inode);
	tcase_add_test(tc, lookup_at_a_level_finds_nodes_by_their_key);
	tcase_add_test(tc, diff_of_direct_maps);
	tcase_add_test(tc, diff_passes_over_a_shared_node_unread);
	tcase_add_test(tc, diff_passes_shared_runs_of_a_leaf);
	tcase_add_test(tc, diff_checks_new_keys_against_a_shared_subtree);
	tcase_add_test(tc, lookup_run_follows_one_leaf);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
