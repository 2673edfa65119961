/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Write the unit tests' minimal image to a file: the fuzzers' seed. */
#include <stdio.h>

#include "../unit/testimg.h"

int main(int argc, char **argv)
{
	struct nlfs_io *io = testimg_create();
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "wb")))
		return 2;
	fwrite(nlfs_io_mem_data(io), 1, TESTIMG_DEVSIZE, f);
	nlfs_io_close(io);
	return fclose(f) ? 1 : 0;
}
