/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The diff walk (nlfs_diff) on a volume the library's writer builds in
 * memory through five checkpoints (diffimg.c): a file rewritten, one
 * renamed (its record untouched), one removed, one created, a hard link
 * added; then only a file created, whose path the changed directory names
 * without a walk of the tree; then files changed in place, named by the
 * search near their numbers or, for one numbered below its directory, by
 * the scan.  A second volume puts the directory many ifile blocks below
 * its files, and past the search's window for the last of them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/io_test.h>
#include <nlfs/repair.h>
#include <nlfs/writer.h>

#include "check_main.h"
#include "diffimg.h"

#define SIZE (48ull << 20)

static struct nlfs_io *build(void)
{
	struct nlfs_io *io;
	struct nlfs_err err;

	ck_assert_msg(diffimg_build(SIZE, 64, &io, &err) == 0, "%s", err.what);
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
	static const char *const three_four[] = { "M /d/b2 contents", NULL };
	static const char *const four_five[] = {
		"M /d/h2 contents", "M /d/keep contents", "M /h contents", NULL };
	static const char *const none[] = { NULL };

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	expect(fs, 1, 2, one_two, &st);
	ck_assert_uint_gt(st.ifile_blocks_differ, 0);
	ck_assert_uint_eq(st.inodes_changed, 7);   /* /, a, b (renamed), c, d, e, h */
	/* a, changed in place, is found by the search near its number (no
	 * directory below it: the root), and h's old name (its new one d
	 * names) in d, numbered just below it: not by a scan of every
	 * directory; a's old name follows from the new one */
	ck_assert_uint_eq(st.dirs_sought, 2);
	ck_assert_uint_eq(st.dirs_walked, 0);
	expect(fs, 2, 1, two_one, &st);
	expect(fs, 2, 3, two_three, &st);
	/* d's new entry names f: no walk of the tree was needed */
	ck_assert_uint_eq(st.dirs_walked, 0);
	ck_assert_uint_eq(st.inodes_changed, 2);
	ck_assert_uint_ge(st.dir_blocks_differ, 1);
	/* b2's directory d is numbered above it: the search gives up, the
	 * scan of both directories finds it */
	expect(fs, 3, 4, three_four, &st);
	ck_assert_uint_eq(st.inodes_changed, 1);
	ck_assert_uint_eq(st.dirs_walked, 2);
	/* keep is in d, numbered just below it, and h's two names are in d
	 * and in d's parent: the search finds all three names */
	expect(fs, 4, 5, four_five, &st);
	ck_assert_uint_eq(st.inodes_changed, 2);
	ck_assert_uint_eq(st.dirs_sought, 2);
	ck_assert_uint_eq(st.dirs_walked, 0);
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

/* / {p/ {f0 .. f(NF-1)}}, the files numbered after p, in order; then the
 * files WHICH rewritten in place */
#define NF 600
static const unsigned far_files[] = { 3, 7, 8, 150, 599 };

static int far_file(struct nlfs_writer *w, uint64_t ino, uint8_t fill, struct nlfs_err *err)
{
	uint8_t buf[DIFFIMG_BS];
	struct nlfs_inode i;
	int rc = nlfs_writer_file_begin(w, ino, err);

	memset(buf, fill, sizeof(buf));
	if (!rc)
		rc = nlfs_writer_file_block(w, 0, buf, err);
	memset(&i, 0, sizeof(i));
	i.i_mode = nlfs_cpu_to_le16(0100644);
	i.i_links_count = nlfs_cpu_to_le16(1);
	i.i_size = nlfs_cpu_to_le64(DIFFIMG_BS);
	return rc ? rc : nlfs_writer_file_end(w, &i, err);
}

static int far_dir(struct nlfs_writer *w, uint64_t ino, const char *const *names,
		   const uint64_t *inos, size_t n, uint8_t type, struct nlfs_err *err)
{
	struct nlfs_dirw *dw = NULL;
	struct nlfs_inode i;
	int rc = nlfs_dirw_begin(w, ino, NLFS_ROOT_INO, &dw, err);

	for (size_t k = 0; !rc && k < n; k++)
		rc = nlfs_dirw_add(dw, names[k], strlen(names[k]), inos[k], type, err);
	if (rc) {
		nlfs_dirw_free(dw);
		return rc;
	}
	memset(&i, 0, sizeof(i));
	i.i_mode = nlfs_cpu_to_le16(040755);
	i.i_links_count = nlfs_cpu_to_le16(type == 2 ? 3 : 2);
	return nlfs_dirw_end(dw, &i, err);
}

static struct nlfs_io *build_far(void)
{
	struct nlfs_mkfs_params p = { .blocksize = DIFFIMG_BS, .blocks_per_segment = 64,
				      .r_segments_percentage = 5, .devsize = SIZE,
				      .ctime = 1700000000, .uuid = { 4, 5, 6 } };
	static char names[NF][8];
	const char *np[NF], *pn[] = { "p" };
	uint64_t ino[NF], pino;
	struct nlfs_super_block sb;
	struct nlfs_writer *w;
	struct nlfs_io *io;
	struct nlfs_fs *fs;
	struct nlfs_err err;

	ck_assert_int_eq(nlfs_io_open_mem(SIZE, &io), 0);
	ck_assert_int_eq(nlfs_mkfs_superblock(&p, &sb, NULL, &err), 0);
	ck_assert_msg(nlfs_writer_create(io, &sb, &w, &err) == 0, "%s", err.what);
	ck_assert_int_eq(nlfs_writer_new_ino(w, &pino, &err), 0);
	for (int k = 0; k < NF; k++) {
		snprintf(names[k], sizeof(names[k]), "f%d", k);
		np[k] = names[k];
		ck_assert_int_eq(nlfs_writer_new_ino(w, &ino[k], &err), 0);
		ck_assert_int_eq(far_file(w, ino[k], 1, &err), 0);
	}
	ck_assert_msg(far_dir(w, NLFS_ROOT_INO, pn, &pino, 1, 2, &err) == 0, "%s", err.what);
	ck_assert_msg(far_dir(w, pino, np, ino, NF, 1, &err) == 0, "%s", err.what);
	ck_assert_msg(nlfs_writer_commit(w, &err) == 0, "%s", err.what);
	nlfs_writer_free(w);

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	ck_assert_int_eq(nlfs_writer_open(fs, 1700000100, 0, &w, &err), 0);
	for (size_t k = 0; k < sizeof(far_files) / sizeof(far_files[0]); k++) {
		ck_assert_int_eq(nlfs_writer_file_replace(w, ino[far_files[k]], &err), 0);
		ck_assert_int_eq(far_file(w, ino[far_files[k]], 2, &err), 0);
	}
	ck_assert_msg(nlfs_writer_commit(w, &err) == 0, "%s", err.what);
	nlfs_writer_free(w);
	nlfs_fs_release(fs);
	return io;
}

/* the search looks down the ifile a block a round for every file at
 * once: p is found for files one, several and many blocks above it, and
 * for f599, past the window, through the root's subdirectories; no
 * directory is scanned */
START_TEST(test_diff_directory_far_below)
{
	static const char *const want[] = { "M /p/f150 contents", "M /p/f3 contents",
		"M /p/f599 contents", "M /p/f7 contents", "M /p/f8 contents", NULL };
	struct nlfs_io *io = build_far();
	struct nlfs_diff_stats st;
	struct nlfs_fs *fs;
	struct nlfs_err err;

	ck_assert_int_eq(nlfs_fs_open(io, &fs, &err), 0);
	expect(fs, 1, 2, want, &st);
	ck_assert_uint_eq(st.inodes_changed, 5);
	ck_assert_uint_eq(st.dirs_walked, 0);
	ck_assert_uint_eq(st.dirs_sought, 2);   /* p, and the root for f599 */
	nlfs_fs_close(fs);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("diff");
	TCase *tc = tcase_create("diff");

	tcase_add_test(tc, test_diff_changes);
	tcase_add_test(tc, test_diff_bad_checkpoint);
	tcase_add_test(tc, test_diff_directory_far_below);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
