/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nilfs-receive's file operations (bin/send/apply.c) against streams that
 * try to leave the receiving directory: through a symbolic link the stream
 * made (as a directory on the way, as the file written, chmod'ed, timed
 * or truncated), through a device node or FIFO it made, or by naming the
 * receiver's own directory.  Each is refused and nothing outside changes;
 * the ordinary commands work. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "../../bin/send/apply.h"

static char base[64], top[80], outside[80];
static struct apply a;
static int topfd;

static void setup(void)
{
	strcpy(base, "/tmp/check-apply-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(top, sizeof(top), "%s/top", base);
	snprintf(outside, sizeof(outside), "%s/outside", base);
	ck_assert_int_eq(mkdir(top, 0700), 0);
	ck_assert_int_eq(mkdir(outside, 0700), 0);
	topfd = open(top, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(topfd, 0);
	apply_init(&a, topfd);
}

static void teardown(void)
{
	char cmd[200];

	apply_finish(&a);
	close(topfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	ck_assert_int_eq(system(cmd), 0);
}

static int run(struct sstream_cmd c)
{
	return apply_cmd(&a, &c);
}

static bool exists(const char *dir, const char *name)
{
	char p[200];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !lstat(p, &st);
}

START_TEST(ordinary_commands)
{
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_MKDIR, .path = "d" }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_CREATE, .path = "d/f" }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_WRITE, .path = "d/f", .offset = 3,
						   .data = "abc", .len = 3 }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_LINK, .path = "g", .path2 = "d/f" }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_ORPHAN, .path = "d", .id = 5 }), 0);
	ck_assert(!exists(top, "d"));
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_ADOPT, .path = "e", .id = 5 }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_RENAME, .path = "e/f", .path2 = "h" }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_RMDIR, .path = "e" }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_CHMOD, .path = "h", .mode = 0640 }), 0);
	ck_assert_int_eq(apply_finish(&a), 0);
	struct stat st;
	char p[200];

	snprintf(p, sizeof(p), "%s/g", top);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_size, 6);
	ck_assert_uint_eq(st.st_nlink, 2);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	/* a rename onto a name that exists is refused */
	apply_init(&a, topfd);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_RENAME, .path = "g", .path2 = "h" }), -1);
	ck_assert_ptr_nonnull(strstr(a.why, "rename g"));
}
END_TEST

/* a file's attributes right after its contents go through the descriptor
 * still open from them, and land on that file, not on a link beside it */
START_TEST(attributes_of_the_file_written)
{
	struct stat st;
	char p[200];

	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_CREATE, .path = "f" }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_WRITE, .path = "f", .data = "abc",
						   .len = 3 }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_CHOWN, .path = "f", .uid = getuid(),
						   .gid = getgid() }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_CHMOD, .path = "f", .mode = 0604 }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_UTIMES, .path = "f", .atime = 1000,
						   .mtime = 2000, .mtime_nsec = 5 }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_SYMLINK, .path = "l", .target = "f" }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_UTIMES, .path = "l", .mtime = 7 }), 0);
	ck_assert_int_eq(apply_finish(&a), 0);
	snprintf(p, sizeof(p), "%s/f", top);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0604);
	ck_assert_int_eq(st.st_atim.tv_sec, 1000);
	ck_assert_int_eq(st.st_mtim.tv_sec, 2000);
	ck_assert_int_eq(st.st_mtim.tv_nsec, 5);
	ck_assert_uint_eq(st.st_size, 3);
}
END_TEST

START_TEST(symlink_is_never_followed)
{
	char target[100];

	snprintf(target, sizeof(target), "%s", outside);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_SYMLINK, .path = "l", .target = target }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_CREATE, .path = "l/x" }), -1);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_MKDIR, .path = "l/y" }), -1);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_WRITE, .path = "l", .data = "z", .len = 1 }), -1);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_TRUNCATE, .path = "l", .len = 5 }), -1);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_CHMOD, .path = "l", .mode = 0777 }), -1);
	/* nor when the owner before it was already so (its look is kept) */
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_CHOWN, .path = "l", .uid = getuid(),
						   .gid = getgid() }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_CHMOD, .path = "l", .mode = 0777 }), -1);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_UTIMES, .path = "l" }), 0);   /* the link's own */
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_LINK, .path = "m", .path2 = "l/z" }), -1);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_RENAME, .path = "l/z", .path2 = "n" }), -1);
	ck_assert(!exists(outside, "x") && !exists(outside, "y") && !exists(outside, "z"));
	struct stat st;

	ck_assert_int_eq(stat(outside, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
}
END_TEST

START_TEST(no_write_through_special_files)
{
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_MKNOD, .path = "p", .mode = 010000 }), 0);
	/* a FIFO: refused, and the open never waits for a reader */
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_WRITE, .path = "p", .data = "z", .len = 1 }), -1);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_MKDIR, .path = "d" }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_HOLE, .path = "d", .len = 1 }), -1);
}
END_TEST

START_TEST(private_name_refused)
{
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_MKDIR, .path = RECV_PRIVATE }), -1);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_CREATE, .path = RECV_PRIVATE "/state" }), -1);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_CREATE, .path = "f" }), 0);
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_RENAME, .path = "f",
						   .path2 = RECV_PRIVATE "/x" }), -1);
	ck_assert_ptr_nonnull(strstr(a.why, "the receiver's own"));
	/* a name that only begins like it is an ordinary one */
	ck_assert_int_eq(run((struct sstream_cmd){ .kind = SS_MKDIR, .path = RECV_PRIVATE "x" }), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("apply");
	TCase *tc = tcase_create("apply");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ordinary_commands);
	tcase_add_test(tc, attributes_of_the_file_written);
	tcase_add_test(tc, symlink_is_never_followed);
	tcase_add_test(tc, no_write_through_special_files);
	tcase_add_test(tc, private_name_refused);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
