/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Write the unit tests' minimal image to a file, the fuzzers' seed, and
 * (with a second name) the diff walk's five-checkpoint volume. */
#include <stdio.h>

#include "../unit/diffimg.h"
#include "../unit/testimg.h"

#define DIFF_SEED_SIZE (1024u * 1024u)

static int write_image(const char *name, struct nlfs_io *io, size_t size)
{
	FILE *f = fopen(name, "wb");

	if (!f)
		return 2;
	fwrite(nlfs_io_mem_data(io), 1, size, f);
	nlfs_io_close(io);
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct nlfs_err err;
	struct nlfs_io *io;
	int rc;

	if (argc < 2 || argc > 3)
		return 2;
	rc = write_image(argv[1], testimg_create(), TESTIMG_DEVSIZE);
	if (rc || argc == 2)
		return rc;
	if (diffimg_build(DIFF_SEED_SIZE, 16, &io, &err)) {
		fprintf(stderr, "mkseed: %s\n", err.what);
		return 1;
	}
	return write_image(argv[2], io, DIFF_SEED_SIZE);
}
