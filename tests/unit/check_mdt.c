/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Metadata files on a volume made by nilfs-tools' mkfs.nilfs2: cpfile,
 * sufile, ifile and the root directory, read through the DAT. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include <nlfs/endian.h>
#include <nlfs/nlfs.h>

static char img[] = "/tmp/nlfs-mdt-XXXXXX";
static int have_image;

static void make_image(void)
{
	const char *mkfs = access("/sbin/mkfs.nilfs2", X_OK) == 0 ? "/sbin/mkfs.nilfs2" :
			   access("/usr/sbin/mkfs.nilfs2", X_OK) == 0 ? "/usr/sbin/mkfs.nilfs2" : NULL;
	char cmd[256];
	int fd = mkstemp(img);

	if (fd < 0 || !mkfs) {
		fprintf(stderr, "mkfs.nilfs2 not installed: mdt cases check nothing\n");
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

START_TEST(sufile_shows_the_two_segments_mkfs_allocates)
{
	struct nlfs_fs *fs;
	struct nlfs_suhead h;
	struct nlfs_suinfo su;
	struct nlfs_err err;
	uint64_t nsegs;

	if (!have_image)
		return;
	fs = open_image();
	nsegs = nlfs_fs_geometry(fs)->nsegments;
	ck_assert_int_eq(nlfs_sufile_header(fs, &h, &err), 0);
	ck_assert_uint_eq(h.ncleansegs, nsegs - 2);
	ck_assert_uint_eq(h.ndirtysegs, 2);
	ck_assert_int_eq(nlfs_sufile_get(fs, 0, &su, &err), 0);
	ck_assert(su.flags & NLFS_SEGMENT_USAGE_DIRTY);
	ck_assert_uint_eq(su.nblocks, 11);   /* the initial log, counted from block 1 */
	ck_assert_int_eq(nlfs_sufile_get(fs, 2, &su, &err), 0);
	ck_assert_uint_eq(su.flags, 0);
	ck_assert_int_eq(nlfs_sufile_get(fs, nsegs, &su, &err), -ERANGE);
	nlfs_fs_close(fs);
}
END_TEST

static int collect(const struct nlfs_file *f, void *arg)
{
	uint64_t *seen = arg;

	seen[seen[0]++ + 1] = f->ino;
	return seen[0] >= 7;
}

START_TEST(ifile_iteration_and_checkpoint_one)
{
	struct nlfs_fs *fs;
	struct nlfs_file ifile, root;
	struct nlfs_cpinfo cp;
	struct nlfs_cphead h;
	struct nlfs_err err;
	uint64_t seen[8] = { 0 };

	if (!have_image)
		return;
	fs = open_image();
	ck_assert_int_eq(nlfs_cpfile_header(fs, &h, &err), 0);
	ck_assert_uint_eq(h.ncheckpoints, 1);
	ck_assert_uint_eq(h.nsnapshots, 0);
	ck_assert_int_eq(nlfs_cpfile_info(fs, 1, &cp, &err), 0);
	ck_assert_int_eq(nlfs_cpfile_info(fs, 2, &cp, &err), -ENOENT);
	ck_assert_uint_eq(err.cno, 2);
	ck_assert_int_eq(nlfs_fs_ifile(fs, 0, &ifile, &err), 0);
	ck_assert_uint_eq(ifile.cno, 1);
	/* mkfs 2.2.9 makes the root (2) and .nilfs (11) */
	ck_assert_int_eq(nlfs_ifile_iterate(fs, &ifile, collect, seen, &err), 0);
	ck_assert_uint_eq(seen[0], 2);
	ck_assert_uint_eq(seen[1], 2);
	ck_assert_uint_eq(seen[2], 11);
	ck_assert_int_eq(nlfs_path_lookup(fs, &ifile, "/", &root, &err), 0);
	ck_assert_uint_eq(nlfs_le16(root.inode.i_mode) & 0170000, 0040000);
	ck_assert_int_eq(nlfs_path_lookup(fs, &ifile, "/.nilfs", &root, &err), 0);
	ck_assert_uint_eq(root.ino, 11);
	ck_assert_int_eq(nlfs_path_lookup(fs, &ifile, "/missing", &root, &err), -ENOENT);
	ck_assert_int_eq(nlfs_ifile_read(fs, &ifile, 12, &root, &err), -ENOENT);
	ck_assert_uint_eq(err.ino, 12);
	nlfs_fs_close(fs);
}
END_TEST

struct known_calls {
	unsigned n;
	uint64_t last, answer;   /* answer 0: not known */
};

static bool known_cb(void *arg, uint64_t vblocknr, uint64_t *blocknr)
{
	struct known_calls *k = arg;

	k->n++;
	k->last = vblocknr;
	*blocknr = k->answer;
	return k->answer != 0;
}

/* nlfs_fs_known_addresses: asked first; where it does not know, the DAT
 * gives the address as before, and none is asked once it is cleared */
START_TEST(known_addresses_come_before_the_dat)
{
	struct nlfs_fs *fs;
	struct nlfs_file ifile, root;
	struct nlfs_err err;
	struct known_calls k = { 0 };
	uint64_t ptr = 0, addr = 0, again = 0;

	if (!have_image)
		return;
	fs = open_image();
	ck_assert_int_eq(nlfs_fs_ifile(fs, 0, &ifile, &err), 0);
	ck_assert_int_eq(nlfs_path_lookup(fs, &ifile, "/", &root, &err), 0);
	ck_assert_int_eq(nlfs_bmap_lookup(fs, &root, 0, &ptr, &err), 0);
	ck_assert_int_eq(nlfs_dat_translate(fs, ptr, &addr, &err), 0);
	ck_assert_uint_ne(addr, 0);
	nlfs_fs_known_addresses(fs, known_cb, &k);
	ck_assert_int_eq(nlfs_dat_translate(fs, ptr, &again, &err), 0);
	ck_assert_uint_eq(again, addr);
	ck_assert_uint_eq(k.n, 1);
	ck_assert_uint_eq(k.last, ptr);
	k.answer = addr + 1;
	ck_assert_int_eq(nlfs_dat_translate(fs, ptr, &again, &err), 0);
	ck_assert_uint_eq(again, addr + 1);
	ck_assert_uint_eq(k.n, 2);
	nlfs_fs_known_addresses(fs, NULL, NULL);
	ck_assert_int_eq(nlfs_dat_translate(fs, ptr, &again, &err), 0);
	ck_assert_uint_eq(again, addr);
	ck_assert_uint_eq(k.n, 2);
	nlfs_fs_close(fs);
}
END_TEST

START_TEST(palloc_groups_of_the_dat_and_ifile)
{
	struct nlfs_fs *fs;
	struct nlfs_file dat, ifile;
	struct nlfs_err err;
	uint8_t desc[4096], bitmap[4096];
	struct nlfs_palloc_group pg = { desc, bitmap, 0, false, false, UINT64_MAX };
	struct nlfs_suinfo su[4];

	/* layout: 4 KiB blocks, DAT entries of 32 bytes: 257 blocks a group */
	ck_assert_uint_eq(nlfs_palloc_desc_blkoff(4096, 32, 0), 0);
	ck_assert_uint_eq(nlfs_palloc_desc_blkoff(4096, 32, 1024), 263169);
	ck_assert_uint_eq(nlfs_palloc_ngroups(4096, 32, 0), 0);
	ck_assert_uint_eq(nlfs_palloc_ngroups(4096, 32, 2), 1);
	ck_assert_uint_eq(nlfs_palloc_ngroups(4096, 32, 258), 2);
	ck_assert_uint_eq(nlfs_palloc_ngroups(4096, 32, 263169), 1024);
	if (!have_image)
		return;
	fs = open_image();
	nlfs_fs_mdt_file(fs, NLFS_DAT_INO, &dat);
	/* mkfs: DAT entries 0..6 in use, ifile inodes 0..11 */
	ck_assert_int_eq(nlfs_palloc_read_group(fs, &dat, 32, 0, &pg, &err), 0);
	ck_assert(!pg.desc_hole && !pg.bitmap_hole);
	ck_assert_uint_eq(pg.nfrees, 32768 - 7);
	ck_assert_uint_eq(bitmap[0], 0x7f);
	ck_assert_uint_eq(pg.desc_blkoff, 0);
	ck_assert_int_eq(nlfs_fs_ifile(fs, 0, &ifile, &err), 0);
	pg.desc_blkoff = UINT64_MAX;
	ck_assert_int_eq(nlfs_palloc_read_group(fs, &ifile, 128, 0, &pg, &err), 0);
	ck_assert_uint_eq(pg.nfrees, 32768 - 12);
	ck_assert_uint_eq(bitmap[0], 0xff);
	ck_assert_uint_eq(bitmap[1], 0x0f);
	/* group 1 lies past the ifile's last block: both blocks are holes */
	ck_assert_int_eq(nlfs_palloc_read_group(fs, &ifile, 128, 1, &pg, &err), 0);
	ck_assert(pg.bitmap_hole);
	ck_assert_uint_eq(bitmap[0], 0);
	/* several segments in one call */
	ck_assert_int_eq(nlfs_sufile_get_many(fs, 0, 4, su, &err), 0);
	ck_assert_uint_eq(su[0].nblocks, 11);
	ck_assert(su[1].flags & NLFS_SEGMENT_USAGE_DIRTY);
	ck_assert_uint_eq(su[2].flags, 0);
	ck_assert_int_eq(nlfs_sufile_get_many(fs, nlfs_fs_geometry(fs)->nsegments - 1, 2, su, &err),
			 -ERANGE);
	nlfs_fs_close(fs);
}
END_TEST

static int count_entry(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	(void)name, (void)len, (void)ino, (void)type;
	++*(unsigned *)arg;
	return 0;
}

/* a damaged i_size far past the map: the walk ends at the last mapped block
 * (it used to visit 2^54 holes, a hang the fuzzer found) */
START_TEST(huge_directory_size_ends_at_the_map)
{
	struct nlfs_fs *fs;
	struct nlfs_file ifile, root;
	struct nlfs_err err;
	unsigned n = 0, n_huge = 0;
	uint64_t end;

	if (!have_image)
		return;
	fs = open_image();
	ck_assert_int_eq(nlfs_fs_ifile(fs, 0, &ifile, &err), 0);
	ck_assert_int_eq(nlfs_ifile_read(fs, &ifile, NLFS_ROOT_INO, &root, &err), 0);
	ck_assert_int_eq(nlfs_dir_iterate(fs, &root, count_entry, &n, &err), 0);
	ck_assert_uint_ge(n, 2);   /* '.' and '..' at least */
	ck_assert_int_eq(nlfs_file_mapped_end(fs, &root, &end, &err), 0);
	ck_assert_uint_ge(end, 1);
	root.inode.i_size = nlfs_cpu_to_le64(UINT64_MAX - 7);
	ck_assert_int_eq(nlfs_dir_iterate(fs, &root, count_entry, &n_huge, &err), 0);
	ck_assert_uint_eq(n_huge, n);
	nlfs_fs_close(fs);
}
END_TEST

/* every inode read asks its group's bitmap: a reader that goes from inode
 * to inode (nilfs-send -p, the diff) reads the bitmap block and a block of
 * records once, not once an inode */
START_TEST(ifile_blocks_are_read_once)
{
	struct nlfs_fs *fs;
	struct nlfs_file ifile, root;
	struct nlfs_err err;
	struct nlfs_io_stats before, after;

	if (!have_image)
		return;
	fs = open_image();
	ck_assert_int_eq(nlfs_fs_ifile(fs, 0, &ifile, &err), 0);
	ck_assert_int_eq(nlfs_ifile_read(fs, &ifile, NLFS_ROOT_INO, &root, &err), 0);
	nlfs_io_get_stats(nlfs_fs_io(fs), &before);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(nlfs_ifile_read(fs, &ifile, NLFS_ROOT_INO, &root, &err), 0);
		ck_assert_uint_eq(root.ino, NLFS_ROOT_INO);
		/* a free inode of the same group: its bit says so */
		ck_assert_int_eq(nlfs_ifile_read(fs, &ifile, 12, &root, &err), -ENOENT);
	}
	nlfs_io_get_stats(nlfs_fs_io(fs), &after);
	ck_assert_uint_eq(after.reads, before.reads);
	nlfs_fs_close(fs);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mdt");
	TCase *tc = tcase_create("mkfs-image");
	int rc;

	make_image();
	tcase_add_test(tc, sufile_shows_the_two_segments_mkfs_allocates);
	tcase_add_test(tc, ifile_iteration_and_checkpoint_one);
	tcase_add_test(tc, known_addresses_come_before_the_dat);
	tcase_add_test(tc, palloc_groups_of_the_dat_and_ifile);
	tcase_add_test(tc, huge_directory_size_ends_at_the_map);
	tcase_add_test(tc, ifile_blocks_are_read_once);
	suite_add_tcase(s, tc);
	rc = run_suite(s);
	unlink(img);
	return rc;
}
