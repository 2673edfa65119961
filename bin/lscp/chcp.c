/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * chcp.c - turn checkpoints of a NILFS2 volume into snapshots or back.
 *
 * As nilfs-utils' chcp: "chcp cp|ss [device] cno...", each number changed
 * with NILFS_IOCTL_CHANGE_CPMODE under the cleaner's lock, a failure
 * reported and the rest still tried.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "vol.h"

static void usage(void)
{
	printf(CLI_USAGE_HEADER
	       " %s [options] cp|ss [device|mountpoint|image] cno...\n"
	       "\nMake checkpoints of a NILFS2 volume plain checkpoints (cp) or snapshots (ss).\n"
	       CLI_USAGE_OPTIONS
	       CLI_USAGE_WRITE_DAMAGED_FORCE, cli_progname);
	cli_usage_tail(stdout, 26);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "write-damaged", no_argument, NULL, CLI_OPT_WRITE_DAMAGED },
		{ "force", no_argument, NULL, CLI_OPT_WRITE_DAMAGED },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev = NULL, *modestr;
	struct vol *v;
	sigset_t block, old;
	char msg[512];
	int opt, mode, rc, status = 0, force = 0;

	cli_init(argv[0]);
	while ((opt = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (opt) {
		case CLI_OPT_WRITE_DAMAGED: force = VOL_FORCE; break;
		case 'h': usage(); return 0;
		case 'V': cli_print_version(); return 0;
		default: cli_bad_option(argv);
		}
	}
	if (optind > argc - 2)
		cli_usage_error("too few arguments");
	modestr = argv[optind++];
	if (optind < argc - 1) {
		/* a device comes first unless that argument is a number */
		uint64_t cno;

		if (cli_strtocno(argv[optind], &cno))
			dev = argv[optind++];
	}
	if (!strcmp(modestr, "cp"))
		mode = NILFS_CHECKPOINT;
	else if (!strcmp(modestr, "ss"))
		mode = NILFS_SNAPSHOT;
	else
		cli_errx("%s: invalid checkpoint mode", modestr);

	rc = vol_open(dev, VOL_RDWR | VOL_LOCK | force, &v, msg, sizeof(msg));
	if (rc)
		cli_errx("cannot open NILFS on %s: %s", dev ? dev : "device", msg);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &block, &old) < 0) {
		cli_warnc(errno, "cannot block signals");
		vol_close(v);
		return CLI_EXIT_FAILURE;
	}
	if (v->ops->lock(v)) {
		cli_warnx("cannot lock NILFS");
		status = CLI_EXIT_FAILURE;
		goto out;
	}
	for (; optind < argc; optind++) {
		sigset_t pending;
		uint64_t cno;

		if (sigpending(&pending) < 0) {
			cli_warnc(errno, "cannot test signals");
			status = CLI_EXIT_FAILURE;
			break;
		}
		if (sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM)) {
			cli_warnx("interrupted");
			status = CLI_EXIT_FAILURE;
			break;
		}
		if (cli_strtocno(argv[optind], &cno)) {
			cli_warnx("%s: invalid checkpoint number", argv[optind]);
			status = CLI_EXIT_FAILURE;
			continue;
		}
		rc = v->ops->change_cpmode(v, cno, mode);
		if (rc == -ENOENT) {
			cli_warnx("%llu: no checkpoint", (unsigned long long)cno);
			status = CLI_EXIT_FAILURE;
		} else if (rc) {
			cli_warnx("%s", vol_strerror(v, rc));
			status = CLI_EXIT_FAILURE;
		}
	}
	v->ops->unlock(v);
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	rc = vol_commit(v);
	if (rc) {
		cli_warnx("%s", vol_strerror(v, rc));
		status = CLI_EXIT_FAILURE;
	}
	vol_close(v);
	return status;
}
