/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The diff walk (nlfs_diff) on volumes the library's writer builds in
 * memory through three checkpoints: a file rewritten, one renamed (its
 * record untouched), one removed, one created, a hard link added; then
 * only a file created, whose path the changed directory names without a
 * walk of the tree. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include <nlfs/endian.h>
#include <nlfs/writer.h>

#define BS 1024u
#define SIZE (48ull << 20)

enum { A, B, C, D, E, F, H, K, NINO };
static uint64_t ino[NINO];

static void mk_inode(struct nlfs_inode *i, uint16_t mode, uint16_t links, uint64_t t)
{
	memset(i, 0, sizeof(*i));
	i->i_mode = nlfs_cpu_to_le16(mode);
	i->i_links_count = nlfs_cpu_to_le16(links);
	i->i_mtime = i->i_ctime = nlfs_cpu_to_le64(t);
	i->i_generation = nlfs_cpu_to_le32(7);
}

static void put_file(struct nlfs_writer *w, uint64_t n, unsigned nblocks, uint8_t fill,
		     uint16_t links, uint64_t t)
{
	uint8_t buf[BS];
	struct nlfs_inode i;
	struct nlfs_err err;

	memset(buf, fill, sizeof(buf));
	ck_assert_int_eq(nlfs_writer_file_begin(w, n, &err), 0);
	for (unsigned b = 0; b < nblocks; b++)
		ck_assert_int_eq(nlfs_writer_file_block(w, b, buf, &err), 0);
	mk_inode(&i, 0100644, links, t);
	i.i_size = nlfs_cpu_to_le64((uint64_t)nblocks * BS);
	ck_assert_msg(nlfs_writer_file_end(w, &i, &err) == 0, "%s", err.what);
}

struct dent {
	const char *name;
	int which;
	uint8_t type;
};

static void put_dir(struct nlfs_writer *w, uint64_t n, uint64_t parent, const struct dent *d,
		    size_t nd, uint16_t links, uint64_t t, bool replace)
{
	struct nlfs_dirw dw;
	struct nlfs_inode i;
	struct nlfs_err err;

	if (replace)
		ck_assert_int_eq(nlfs_writer_file_replace(w, n, &err), 0);
	ck_assert_int_eq(nlfs_dirw_begin(&dw, w, n, parent, &err), 0);
	for (size_t k = 0; k < nd; k++)
		ck_assert_int_eq(nlfs_dirw_add(&dw, d[k].name, strlen(d[k].name), ino[d[k].which],
					       d[k].type, &err), 0);
	mk_inode(&i, 040755, links, t);
	ck_assert_msg(nlfs_dirw_end(&dw, &i, &err) == 0, "%s", err.what);
}

static struct nlfs_writer *next_cp(struct nlfs_io *io, struct nlfs_fs **fs, uint64_t t)
{
	struct nlfs_writer *w;
	struct nlfs_err err;

	ck_assert_int_eq(nlfs_fs_open(io, fs, &err), 0);
	ck_assert_msg(nlfs_writer_open(*fs, t, &w, &err) == 0, "%s", err.what);
	return w;
}

static void commit(struct nlfs_writer *w, struct nlfs_fs *fs)
{
	struct nlfs_err err;

	ck_assert_msg(nlfs_writer_commit(w, &err) == 0, "%s", err.what);
	nlfs_writer_free(w);
	if (fs)
		nlfs_fs_release(fs);
}

/* checkpoint 1: / {a, c, h, d/ {b, keep}}; 2: a rewritten, d/b renamed
 * d/b2, c removed, e created, h linked as d/h2; 3: d/f created */
static struct nlfs_io *build(void)
{
	struct nlfs_mkfs_params p = { .blocksize = BS, .blocks_per_segment = 64,
				      .r_segments_percentage = 5, .devsize = SIZE,
				      .ctime = 1700000000, .uuid = { 1, 2, 3 } };
	struct nlfs_super_block sb;
	struct nlfs_io *io;
	struct nlfs_writer *w;
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_inode in;

	ck_assert_int_eq(nlfs_io_open_mem(SIZE, &io), 0);
	ck_assert_int_eq(nlfs_mkfs_superblock(&p, &sb, NULL, &err), 0);
	ck_assert_int_eq(nlfs_writer_create(io, &sb, &w, &err), 0);
	for (int k = A; k < NINO; k++)
		if (k != E && k != F)
			ck_assert_int_eq(nlfs_writer_new_ino(w, &ino[k], &err), 0);
	{
		const struct dent root[] = { { "a", A, 1 }, { "c", C, 1 }, { "d", D, 2 }, { "h", H, 1 } };
		const struct dent d[] = { { "b", B, 1 }, { "keep", K, 1 } };

		put_dir(w, NLFS_ROOT_INO, NLFS_ROOT_INO, root, 4, 3, 1700000000, false);
		put_dir(w, ino[D], NLFS_ROOT_INO, d, 2, 2, 1700000000, false);
	}
	for (int k = A; k < NINO; k++)
		if (k != D && k != E && k != F)
			put_file(w, ino[k], k == A ? 2 : 1, (uint8_t)k, 1, 1700000000);
	commit(w, NULL);

	w = next_cp(io, &fs, 1700000100);
	ck_assert_int_eq(nlfs_writer_new_ino(w, &ino[E], &err), 0);
	{
		const struct dent root[] = { { "a", A, 1 }, { "d", D, 2 }, { "e", E, 1 }, { "h", H, 1 } };
		const struct dent d[] = { { "b2", B, 1 }, { "h2", H, 1 }, { "keep", K, 1 } };

		put_dir(w, NLFS_ROOT_INO, NLFS_ROOT_INO, root, 4, 3, 1700000100, true);
		put_dir(w, ino[D], NLFS_ROOT_INO, d, 3, 2, 1700000100, true);
	}
	ck_assert_int_eq(nlfs_writer_file_replace(w, ino[A], &err), 0);
	put_file(w, ino[A], 3, 0x55, 1, 1700000100);
	put_file(w, ino[E], 1, 0x66, 1, 1700000100);
	ck_assert_int_eq(nlfs_writer_get_inode(w, ino[H], &in, &err), 0);
	in.i_links_count = nlfs_cpu_to_le16(2);
	in.i_ctime = nlfs_cpu_to_le64(1700000100);
	ck_assert_int_eq(nlfs_writer_put_inode(w, ino[H], &in, &err), 0);
	ck_assert_int_eq(nlfs_writer_clear_inode(w, ino[C], &err), 0);
	commit(w, fs);

	w = next_cp(io, &fs, 1700000200);
	ck_assert_int_eq(nlfs_writer_new_ino(w, &ino[F], &err), 0);
	{
		const struct dent d[] = { { "b2", B, 1 }, { "f", F, 1 }, { "h2", H, 1 },
					  { "keep", K, 1 } };

		put_dir(w, ino[D], NLFS_ROOT_INO, d, 4, 2, 1700000200, true);
	}
	put_file(w, ino[F], 1, 0x77, 1, 1700000200);
	commit(w, fs);
	return io;
}

struct out {
	char lines[32][128];
	int n;
};

static int collect(const struct nlfs_diff_change *c, void *arg)
{
	struct out *o = arg;
	const char *k = "-+MR";

	ck_assert_int_lt(o->n, 32);
	if (c->new_path)
		snprintf(o->lines[o->n++], 128, "%c %s -> %s", k[c->kind], c->path, c->new_path);
	else
		snprintf(o->lines[o->n++], 128, "%c %s%s", k[c->kind], c->path,
			 c->kind == NLFS_DIFF_MODIFIED && c->contents ? " contents" : "");
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void expect(struct nlfs_fs *fs, uint64_t c1, uint64_t c2, const char *const *want,
		   struct nlfs_diff_stats *st)
{
	struct out o = { .n = 0 };
	struct nlfs_err err;
	int n = 0;

	ck_assert_msg(nlfs_diff(fs, c1, c2, collect, &o, st, &err) == 0, "%s", err.what);
	qsort(o.lines, (size_t)o.n, sizeof(o.lines[0]), cmp_line);
	while (want[n])
		n++;
	for (int i = 0; i < o.n || i < n; i++)
		ck_assert_msg(i < o.n && i < n && !strcmp(o.lines[i], want[i]),
			      "%d..%d: line %d: got '%s', want '%s'", c1 == c2 ? 0 : (int)c1, (int)c2, i,
			      i < o.n ? o.lines[i] : "(none)", i < n ? want[i] : "(none)");
}

START_TEST(test_diff_changes)
{
	struct nlfs_io *io = build();
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct nlfs_diff_stats st;
	static const char *const one_two[] = {
		"+ /d/h2", "+ /e", "- /c", "M / contents", "M /a contents", "M /d contents", "M /h",
		"R /d/b -> /d/b2", NULL };
	static const char *const two_one[] = {
		"+ /c", "- /d/h2", "- /e", "M / contents", "M /a contents", "M /d contents", "M /h",
		"R /d/b2 -> /d/b", NULL };
	static const char *const two_three[] = { "+ /d/f", "M /d contents", NULL };
	static const char *const none[] = { NULL };

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	expect(fs, 1, 2, one_two, &st);
	ck_assert_uint_gt(st.ifile_blocks_differ, 0);
	ck_assert_uint_eq(st.inodes_changed, 7);   /* /, a, b (renamed), c, d, e, h */
	expect(fs, 2, 1, two_one, &st);
	expect(fs, 2, 3, two_three, &st);
	/* d's new entry names f: no walk of the tree was needed */
	ck_assert_uint_eq(st.dirs_walked, 0);
	ck_assert_uint_eq(st.inodes_changed, 2);
	ck_assert_uint_ge(st.dir_blocks_differ, 1);
	expect(fs, 3, 3, none, &st);
	ck_assert_uint_eq(st.ifile_blocks_differ, 0);
	ck_assert_uint_eq(st.inodes_changed, 0);
	nlfs_fs_close(fs);
}
END_TEST

START_TEST(test_diff_bad_checkpoint)
{
	struct nlfs_io *io = build();
	struct nlfs_fs *fs;
	struct nlfs_err err;
	struct out o = { .n = 0 };

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_diff(fs, 1, 9, collect, &o, NULL, &err), -ENOENT);
	ck_assert_str_eq(err.what, "checkpoint 9");
	ck_assert_int_eq(nlfs_diff(fs, 0x7fffffffffff, 1, collect, &o, NULL, &err), -ENOENT);
	ck_assert_int_eq(o.n, 0);
	nlfs_fs_close(fs);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("diff");
	TCase *tc = tcase_create("diff");

	tcase_add_test(tc, test_diff_changes);
	tcase_add_test(tc, test_diff_bad_checkpoint);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
