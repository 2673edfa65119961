/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The send stream (common/sendstream.c, common/crc32c.c): CRC-32C's check
 * values, a golden stream whose bytes were computed apart from this code
 * (a bitwise CRC-32C in Python, the layout of man5/nilfs-stream.5), a
 * round trip of every command, and refusals: each bit flipped, each
 * length cut, an unknown version and command, paths that leave the
 * receiving directory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "crc32c.h"
#include "sendstream.h"

static const char golden_hex[] =
	"4e494c4653534e440100000048000000000102030405060708090a0b0c0d0e0f0500000000000000"
	"e8030000000000000900000000000000d00700000000000000000000ce0daee50500000001000000"
	"010000006190d54310120000000b00000003000000612f62001000000000000078797abda698120c"
	"0000001100000002000000000000002f6c24e377395e21";

static size_t unhex(const char *h, uint8_t *out)
{
	size_t n = 0;

	for (; h[0] && h[1]; h += 2) {
		unsigned v;

		sscanf(h, "%2x", &v);
		out[n++] = (uint8_t)v;
	}
	return n;
}

static const struct sstream_header golden_header = {
	.uuid = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	.parent_cno = 5, .parent_ctime = 1000, .cno = 9, .ctime = 2000,
};

START_TEST(crc32c_values)
{
	static uint8_t zeros[32], big[100003];

	ck_assert_uint_eq(crc32c(0, "123456789", 9), 0xe3069283u);
	ck_assert_uint_eq(crc32c(0, zeros, 32), 0x8a9136aau);
	ck_assert_uint_eq(crc32c(0, "", 0), 0);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + (i >> 9));
	/* in pieces of every alignment as in one go */
	uint32_t whole = crc32c(0, big, sizeof(big));

	for (size_t cut = 0; cut < 20; cut++)
		ck_assert_uint_eq(crc32c(crc32c(0, big, cut * 13 + 1), big + cut * 13 + 1,
					 sizeof(big) - cut * 13 - 1), whole);
}
END_TEST

/* the stream of golden_hex, written by the writer */
static char *write_golden(size_t *n)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, n);
	struct sstream_writer w;
	struct sstream_cmd mk = { .kind = SS_MKDIR, .path = "a" };
	struct sstream_cmd wr = { .kind = SS_WRITE, .path = "a/b", .offset = 4096, .data = "xyz", .len = 3 };

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(sstream_write_header(&w, f, &golden_header), 0);
	ck_assert_int_eq(sstream_write(&w, &mk), 0);
	ck_assert_int_eq(sstream_write(&w, &wr), 0);
	ck_assert_int_eq(sstream_write_end(&w), 0);
	fclose(f);
	return buf;
}

START_TEST(golden_bytes)
{
	uint8_t want[256];
	size_t nwant = unhex(golden_hex, want), n;
	char *got = write_golden(&n);

	ck_assert_uint_eq(n, nwant);
	ck_assert_mem_eq(got, want, n);
	free(got);
}
END_TEST

/* read all of BUF (LEN bytes): 1 for a good stream, -1 refused (WHY) */
static int read_all(const void *buf, size_t len, struct sstream_cmd *cmds, size_t *ncmds,
		    char *why)
{
	FILE *f = fmemopen((void *)buf, len ? len : 1, "r");
	struct sstream_reader r;
	struct sstream_header h;
	int rc;

	ck_assert_ptr_nonnull(f);
	if (!len)
		fgetc(f);   /* fmemopen wants a size; an empty stream is at its end */
	*ncmds = 0;
	rc = sstream_read_header(&r, f, &h);
	while (!rc) {
		struct sstream_cmd c;

		rc = sstream_read(&r, &c);
		if (!rc && cmds)
			cmds[*ncmds] = c;
		if (!rc)
			(*ncmds)++;
	}
	if (why)
		snprintf(why, 200, "%s", r.why);
	sstream_reader_free(&r);
	fclose(f);
	return rc;
}

START_TEST(golden_reads)
{
	uint8_t b[256];
	size_t n = unhex(golden_hex, b), nc;
	struct sstream_cmd c[4];
	FILE *f = fmemopen(b, n, "r");
	struct sstream_reader r;
	struct sstream_header h;

	ck_assert_int_eq(sstream_read_header(&r, f, &h), 0);
	ck_assert_mem_eq(h.uuid, golden_header.uuid, 16);
	ck_assert_uint_eq(h.parent_cno, 5);
	ck_assert_uint_eq(h.parent_ctime, 1000);
	ck_assert_uint_eq(h.cno, 9);
	ck_assert_uint_eq(h.ctime, 2000);
	ck_assert_int_eq(sstream_read(&r, &c[0]), 0);
	ck_assert_int_eq(c[0].kind, SS_MKDIR);
	ck_assert_str_eq(c[0].path, "a");
	ck_assert_int_eq(sstream_read(&r, &c[1]), 0);
	ck_assert_int_eq(c[1].kind, SS_WRITE);
	ck_assert_str_eq(c[1].path, "a/b");
	ck_assert_uint_eq(c[1].offset, 4096);
	ck_assert_uint_eq(c[1].len, 3);
	ck_assert_mem_eq(c[1].data, "xyz", 3);
	ck_assert_int_eq(sstream_read(&r, &c[2]), 1);
	sstream_reader_free(&r);
	fclose(f);
	ck_assert_int_eq(read_all(b, n, NULL, &nc, NULL), 1);
	ck_assert_uint_eq(nc, 2);
}
END_TEST

START_TEST(every_command_round_trips)
{
	static const char data[] = "some data";
	const struct sstream_cmd in[] = {
		{ .kind = SS_MKDIR, .path = "d" },
		{ .kind = SS_CREATE, .path = "d/f" },
		{ .kind = SS_MKNOD, .path = "d/c", .mode = 020000, .major = 4095, .minor = 1048575 },
		{ .kind = SS_MKNOD, .path = "d/p", .mode = 010000 },
		{ .kind = SS_SYMLINK, .path = "d/s", .target = "../../anywhere/..//x" },
		{ .kind = SS_LINK, .path = "d/g", .path2 = "d/f" },
		{ .kind = SS_UNLINK, .path = "d/g" },
		{ .kind = SS_RMDIR, .path = "e" },
		{ .kind = SS_RENAME, .path = "d/f", .path2 = "d/f2" },
		{ .kind = SS_ORPHAN, .path = "d/x", .id = 77 },
		{ .kind = SS_ADOPT, .path = "d/y", .id = 77 },
		{ .kind = SS_WRITE, .path = "d/f2", .offset = 1ull << 40, .data = data, .len = 9 },
		{ .kind = SS_HOLE, .path = "d/f2", .offset = 4096, .len = 8192 },
		{ .kind = SS_TRUNCATE, .path = "d/f2", .len = 123456789 },
		{ .kind = SS_CHMOD, .path = "", .mode = 07755 },
		{ .kind = SS_CHOWN, .path = "d", .uid = 4000000000u, .gid = 7 },
		{ .kind = SS_UTIMES, .path = "d/s", .atime = -5, .atime_nsec = 999999999,
		  .mtime = 1700000000, .mtime_nsec = 1 },
	};
	size_t n = sizeof(in) / sizeof(in[0]), len, got;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, &len);
	struct sstream_writer w;
	struct sstream_cmd out[32];

	ck_assert_int_eq(sstream_write_header(&w, f, &golden_header), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(sstream_write(&w, &in[i]), 0);
	ck_assert_int_eq(sstream_write_end(&w), 0);
	fclose(f);
	/* read back from a copy that stays put (the reader's strings live in
	 * its buffer, overwritten by the next command: compare one at a time) */
	FILE *rf = fmemopen(buf, len, "r");
	struct sstream_reader r;
	struct sstream_header h;

	ck_assert_int_eq(sstream_read_header(&r, rf, &h), 0);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(sstream_read(&r, &out[0]), 0);
		const struct sstream_cmd *a = &in[i], *b = &out[0];

		ck_assert_int_eq(a->kind, b->kind);
		ck_assert_str_eq(a->path, b->path);
		if (a->path2)
			ck_assert_str_eq(a->path2, b->path2);
		if (a->target)
			ck_assert_str_eq(a->target, b->target);
		ck_assert_uint_eq(a->mode, b->mode);
		ck_assert_uint_eq(a->major, b->major);
		ck_assert_uint_eq(a->minor, b->minor);
		ck_assert_uint_eq(a->uid, b->uid);
		ck_assert_uint_eq(a->gid, b->gid);
		ck_assert_uint_eq(a->id, b->id);
		ck_assert_uint_eq(a->offset, b->offset);
		ck_assert_uint_eq(a->len, b->len);
		ck_assert_int_eq(a->atime, b->atime);
		ck_assert_int_eq(a->mtime, b->mtime);
		ck_assert_uint_eq(a->atime_nsec, b->atime_nsec);
		ck_assert_uint_eq(a->mtime_nsec, b->mtime_nsec);
		if (a->data)
			ck_assert_mem_eq(a->data, b->data, a->len);
	}
	ck_assert_int_eq(sstream_read(&r, &out[0]), 1);
	sstream_reader_free(&r);
	fclose(rf);
	ck_assert_int_eq(read_all(buf, len, out, &got, NULL), 1);
	ck_assert_uint_eq(got, n);
	free(buf);
}
END_TEST

START_TEST(writer_refuses_what_reader_would)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	struct sstream_writer w;
	const struct sstream_cmd bad[] = {
		{ .kind = SS_MKDIR, .path = "" },
		{ .kind = SS_MKDIR, .path = "/abs" },
		{ .kind = SS_MKDIR, .path = "a/../b" },
		{ .kind = SS_MKDIR, .path = ".." },
		{ .kind = SS_MKDIR, .path = "a//b" },
		{ .kind = SS_MKDIR, .path = "a/" },
		{ .kind = SS_MKDIR, .path = "./a" },
		{ .kind = SS_MKNOD, .path = "n", .mode = 0100000 },
		{ .kind = SS_CHMOD, .path = "a", .mode = 010644 },
		{ .kind = SS_SYMLINK, .path = "s", .target = "" },
		{ .kind = SS_UTIMES, .path = "a", .mtime_nsec = 1000000000 },
		{ .kind = SS_END },
	};

	ck_assert_int_eq(sstream_write_header(&w, f, &golden_header), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(sstream_write(&w, &bad[i]), -EINVAL);
	ck_assert_uint_eq(w.count, 0);
	sstream_writer_free(&w);
	fclose(f);
	free(buf);
	ck_assert(sstream_path_ok("a/b.c/..d/...", 13, false));
	ck_assert(sstream_path_ok("", 0, true));
	ck_assert(!sstream_path_ok("a\0b", 3, false));
}
END_TEST

START_TEST(every_flip_and_cut_refused)
{
	size_t n, nc;
	uint8_t *b = (uint8_t *)write_golden(&n);
	char why[200];

	for (size_t i = 0; i < n * 8; i++) {
		b[i / 8] ^= (uint8_t)(1u << (i % 8));
		ck_assert_msg(read_all(b, n, NULL, &nc, why) == -1, "bit %zu flipped: accepted", i);
		ck_assert(why[0]);
		b[i / 8] ^= (uint8_t)(1u << (i % 8));
	}
	for (size_t cut = 0; cut < n; cut++) {
		ck_assert_msg(read_all(b, cut, NULL, &nc, why) == -1, "cut at %zu: accepted", cut);
		ck_assert(why[0]);
	}
	/* what follows the end record is not read: another stream may */
	uint8_t *more = malloc(2 * n);

	memcpy(more, b, n);
	memcpy(more + n, b, n);
	ck_assert_int_eq(read_all(more, 2 * n, NULL, &nc, why), 1);
	free(more);
	free(b);
}
END_TEST

/* a command whose CRC holds, of an unknown kind or with a bad path */
static void put_cmd(uint8_t *s, size_t *n, unsigned kind, const void *pay, uint32_t len)
{
	uint8_t h[8] = { (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16), 0,
			 (uint8_t)kind, (uint8_t)(kind >> 8), 0, 0 };
	uint32_t crc = crc32c(crc32c(0, h, 8), pay, len);

	memcpy(s + *n, h, 8);
	memcpy(s + *n + 8, pay, len);
	for (int k = 0; k < 4; k++)
		s[*n + 8 + len + k] = (uint8_t)(crc >> (8 * k));
	*n += 12 + len;
}

START_TEST(unknown_version_and_command_refused)
{
	size_t n, nc;
	uint8_t *b = (uint8_t *)write_golden(&n), s[512];
	char why[200];

	b[8] = 2;   /* version 2: refused whatever the CRC says */
	ck_assert_int_eq(read_all(b, n, NULL, &nc, why), -1);
	ck_assert_str_eq(why, "stream version 2, this nilfs-receive reads version 1 only");
	b[8] = 1;
	memcpy(s, b, SSTREAM_HEADER_BYTES);
	n = SSTREAM_HEADER_BYTES;
	put_cmd(s, &n, 99, "\0\0\0\0", 4);
	ck_assert_int_eq(read_all(s, n, NULL, &nc, why), -1);
	ck_assert_str_eq(why, "unknown command 99");
	for (unsigned k = 0; k < 4; k++) {
		static const char *paths[] = { "\x02\0\0\0..", "\x04\0\0\0/etc", "\x04\0\0\0a/..",
					       "\x03\0\0\0a\0b" };

		n = SSTREAM_HEADER_BYTES;
		put_cmd(s, &n, SS_MKDIR, paths[k], 4 + paths[k][0]);
		ck_assert_int_eq(read_all(s, n, NULL, &nc, why), -1);
		ck_assert_str_eq(why, "mkdir: a path that is not a plain relative path");
	}
	free(b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sendstream");
	TCase *tc = tcase_create("stream");

	tcase_add_test(tc, crc32c_values);
	tcase_add_test(tc, golden_bytes);
	tcase_add_test(tc, golden_reads);
	tcase_add_test(tc, every_command_round_trips);
	tcase_add_test(tc, writer_refuses_what_reader_would);
	tcase_add_test(tc, every_flip_and_cut_refused);
	tcase_add_test(tc, unknown_version_and_command_refused);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
