/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nilfs-undo: put back the blocks "fsck.nilfs2 -z FILE" saved before its
 * repairs overwrote them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <nlfs/undo.h>
#include "cli.h"
#include "devtag.h"
#include "volerr.h"
#include "io_open.h"
#include "mounts.h"

#define PROG "nilfs-undo"

/* exit status; a usage error is the suite's (cli.h) */
#define UNDO_OK    0
#define UNDO_FAIL  1   /* the file or the device could not be used */

static void usage(FILE *out)
{
	fputs(CLI_USAGE_HEADER
	      " " PROG " [options] <undo-file> <device>\n"
	      "\nPut back the blocks fsck.nilfs2 -z saved before repairing <device>.\n"
	      CLI_USAGE_OPTIONS
	      " -n, --dry-run   check the undo file and count its blocks, write nothing\n"
	      " -f, --force     even if the device's size or UUID differ from the file's\n"
	      " -v, --verbose   say what was done\n", out);
	cli_usage_tail(out, 17);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "force", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned flags = 0;
	bool verbose = false;
	struct nlfs_undo_stats st;
	struct nlfs_err err;
	struct nlfs_io *io;
	const char *device;
	int ch, rc;

	cli_init(argv[0]);
	while ((ch = getopt_long(argc, argv, "nfvhV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n': flags |= NLFS_UNDO_DRY_RUN; break;
		case 'f': flags |= NLFS_UNDO_FORCE; break;
		case 'v': verbose = true; break;
		case 'h': usage(stdout); return UNDO_OK;
		case 'V': cli_print_version(); return UNDO_OK;
		default: cli_bad_option(argv);
		}
	}
	if (argc - optind < 2)
		cli_usage_error("an undo file and a device are needed");
	if (argc - optind > 2)
		cli_usage_error("too many arguments");
	device = dev_resolve(argv[optind + 1]);
	if (!device)
		return UNDO_FAIL;
	cmd_refuse_foreign_mount(device);
	/* cmd_io_open refuses a mounted device or image for writing */
	rc = cmd_io_open(device, flags & NLFS_UNDO_DRY_RUN ? NLFS_IO_RDONLY : NLFS_IO_RDWR, &io);
	if (rc) {
		char why[640];

		cli_warnx("%s: %s", device, cmd_volume_reason(device, rc, NULL, why, sizeof(why)));
		return UNDO_FAIL;
	}
	if (!(flags & NLFS_UNDO_DRY_RUN)) {
		char type[64];

		/* reformatted since the undo file was made: not ours to write,
		 * even with -f (a NILFS2 volume whose superblocks the undo file
		 * puts back shows no type at all) */
		if (cmd_foreign_type(device, type, sizeof(type))) {
			cli_warnx("%s: formatted as %s, not NILFS2; nothing done", device, type);
			nlfs_io_close(io);
			return UNDO_FAIL;
		}
	}
	memset(&err, 0, sizeof(err));
	rc = nlfs_undo_apply(argv[optind], io, flags, &st, &err);
	nlfs_io_close(io);
	if (rc) {
		char msg[512];

		nlfs_err_format(&err, msg, sizeof(msg));
		cli_warnx("%s%s", msg, rc == -EXDEV ? " (use -f to restore anyway)" : "");
		if (st.nblocks && !(flags & NLFS_UNDO_DRY_RUN))
			cli_warnx("%llu block(s) were put back before that; run it again",
				  (unsigned long long)st.nblocks);
		return UNDO_FAIL;
	}
	if (st.torn)
		cli_warnx("%s ends in a record a crash cut short; the write it was "
			  "saved for never happened, so nothing is missing", argv[optind]);
	if (verbose || (flags & NLFS_UNDO_DRY_RUN))
		printf("%s: %llu block(s) %s %s\n", argv[optind + 1], (unsigned long long)st.nblocks,
		       flags & NLFS_UNDO_DRY_RUN ? "would be put back from" : "put back from",
		       argv[optind]);
	return UNDO_OK;
}
