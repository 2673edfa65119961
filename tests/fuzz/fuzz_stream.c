/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the send stream's reader (common/sendstream.c):
 * nothing may crash, and every command it accepts the writer must accept
 * too and encode to the very bytes read (one layout, one set of checks).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sendstream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f, *out;
	struct sstream_reader r;
	struct sstream_writer w;
	struct sstream_header h;
	char *obuf = NULL;
	size_t olen = 0;
	bool writing = false;
	int rc;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	out = open_memstream(&obuf, &olen);
	if (!f || !out)
		abort();
	rc = sstream_read_header(&r, f, &h);
	if (!rc) {
		if (sstream_write_header(&w, out, &h))
			abort();
		writing = true;
	}
	while (!rc) {
		struct sstream_cmd c;

		rc = sstream_read(&r, &c);
		if (rc == 0 && sstream_write(&w, &c))
			abort();
	}
	if (rc == 1) {
		if (sstream_write_end(&w))
			abort();
		fflush(out);
		if (olen != r.offset || memcmp(obuf, data, olen))
			abort();
	} else if (!r.why[0]) {
		abort();   /* a refusal always says why */
	}
	if (writing)
		sstream_writer_free(&w);
	sstream_reader_free(&r);
	fclose(f);
	fclose(out);
	free(obuf);
	return 0;
}

#ifdef FUZZ_STREAM_SEED
/* the seed: a stream with every command (cc -DFUZZ_STREAM_SEED, run with
 * the file to write) */
int main(int argc, char **argv)
{
	static const struct sstream_header h = { .uuid = "0123456789abcdef", .parent_cno = 3,
						  .parent_ctime = 1, .cno = 4, .ctime = 2 };
	const struct sstream_cmd cmds[] = {
		{ .kind = SS_MKDIR, .path = "d" },
		{ .kind = SS_CREATE, .path = "d/f" },
		{ .kind = SS_MKNOD, .path = "d/c", .mode = 020000, .major = 1, .minor = 3 },
		{ .kind = SS_SYMLINK, .path = "d/s", .target = "../x" },
		{ .kind = SS_LINK, .path = "d/g", .path2 = "d/f" },
		{ .kind = SS_UNLINK, .path = "d/g" },
		{ .kind = SS_RMDIR, .path = "e" },
		{ .kind = SS_RENAME, .path = "d/f", .path2 = "d/f2" },
		{ .kind = SS_ORPHAN, .path = "d/x", .id = 1 },
		{ .kind = SS_ADOPT, .path = "d/y", .id = 1 },
		{ .kind = SS_WRITE, .path = "d/f2", .offset = 10, .data = "data", .len = 4 },
		{ .kind = SS_HOLE, .path = "d/f2", .offset = 4096, .len = 8192 },
		{ .kind = SS_TRUNCATE, .path = "d/f2", .len = 20000 },
		{ .kind = SS_CHMOD, .path = "", .mode = 0755 },
		{ .kind = SS_CHOWN, .path = "d", .uid = 1, .gid = 2 },
		{ .kind = SS_UTIMES, .path = "d/s", .atime = 5, .mtime = 6, .mtime_nsec = 7 },
	};
	struct sstream_writer w;
	FILE *f = argc == 2 ? fopen(argv[1], "w") : NULL;

	if (!f || sstream_write_header(&w, f, &h))
		return 1;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (sstream_write(&w, &cmds[i]))
			return 1;
	return sstream_write_end(&w) || fclose(f) ? 1 : 0;
}
#endif
