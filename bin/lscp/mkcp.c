/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mkcp.c - make a checkpoint (or a snapshot) of a NILFS2 volume now.
 *
 * As nilfs-utils' mkcp: the kernel writes what is dirty (NILFS_IOCTL_SYNC,
 * which makes no new checkpoint when nothing changed) and returns the
 * latest checkpoint, which -s turns into a snapshot under the cleaner's lock.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>

#include "cli.h"
#include "vol.h"
#include "vol_snapshot.h"

static void usage(void)
{
	printf(CLI_USAGE_HEADER
	       " %s [options] [device|mountpoint|image]\n"
	       "\nMake a checkpoint of a NILFS2 volume.\n"
	       CLI_USAGE_OPTIONS
	       " -s, --snapshot           make it a snapshot\n"
	       " -p, --print              print the checkpoint number\n"
	       CLI_USAGE_WRITE_DAMAGED_FORCE, cli_progname);
	cli_usage_tail(stdout, 26);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "snapshot", no_argument, NULL, 's' },
		{ "print", no_argument, NULL, 'p' },
		{ "write-damaged", no_argument, NULL, CLI_OPT_WRITE_DAMAGED },
		{ "force", no_argument, NULL, CLI_OPT_WRITE_DAMAGED },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool snapshot = false, print = false;
	int force = 0;
	const char *dev = NULL;
	struct vol *v;
	uint64_t cno = 0;
	char msg[512];
	int opt, rc, status = 0;

	cli_init(argv[0]);
	while ((opt = getopt_long(argc, argv, "sphV", longopts, NULL)) != -1) {
		switch (opt) {
		case 's': snapshot = true; break;
		case 'p': print = true; break;
		case CLI_OPT_WRITE_DAMAGED: force = VOL_FORCE; break;
		case 'h': usage(); return 0;
		case 'V': cli_print_version(); return 0;
		default: cli_bad_option(argv);
		}
	}
	if (optind < argc - 1)
		cli_usage_error("too many arguments");
	if (optind == argc - 1)
		dev = argv[optind];

	rc = vol_open(dev, VOL_RDWR | VOL_LOCK | force, &v, msg, sizeof(msg));
	if (rc)
		cli_errx("cannot open NILFS on %s: %s", dev ? dev : "device", msg);
	rc = v->ops->sync(v, &cno);
	if (rc) {
		cli_warnx("%s", vol_strerror(v, rc));
		status = CLI_EXIT_FAILURE;
		goto out;
	}
	if (snapshot && vol_snapshot(v, cno))
		status = CLI_EXIT_FAILURE;
out:
	rc = vol_commit(v);
	if (rc) {
		cli_warnx("%s", vol_strerror(v, rc));
		status = CLI_EXIT_FAILURE;
	}
	vol_close(v);
	if (!status && print)
		printf("%llu\n", (unsigned long long)cno);
	return status;
}
