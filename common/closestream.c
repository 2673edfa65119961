/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * closestream.c - output that could not be written must not pass for
 * success: `dump.nilfs2 IMG cat /f > /dev/full` fails, as cat(1) does.
 * The program name and status live here because atexit() handlers take no
 * argument; this is the command layer, never lib/.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "closestream.h"

static const char *close_prog = "nilfsprogs";
static int close_status = EXIT_FAILURE;

static void close_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		int e = errno;

		if (e != EPIPE)
			fprintf(stderr, "%s: write error: %s\n", close_prog,
				e ? strerror(e) : "output lost");
		_exit(close_status);
	}
}

void close_stdout_at_exit(const char *prog, int status)
{
	static bool registered;
	const char *slash = strrchr(prog, '/');

	close_prog = slash ? slash + 1 : prog;
	close_status = status;
	/* once: a main() run again in one process (the fsck fuzz target runs
	 * it four times an input) would otherwise grow the list of handlers
	 * without end, an allocation that makes libFuzzer suspect a leak and
	 * run the input again */
	if (!registered)
		registered = atexit(close_stdout) == 0;
}
