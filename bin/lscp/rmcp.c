/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rmcp.c - remove checkpoints of a NILFS2 volume.
 *
 * As nilfs-utils' rmcp: each argument is a checkpoint or a range (A..B,
 * ..B, A..); a range is clipped to the checkpoints that exist and, if it
 * reaches past the latest one, stops before it; a single number is removed
 * as given.  Snapshots
 * are refused by the kernel (EBUSY) and reported unless -f.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "vol.h"

struct rmcp {
	bool force, interactive;
	struct vol *vol;
	uint64_t oldest;        /* no checkpoint below this one exists */
};

static void usage(void)
{
	printf(CLI_USAGE_HEADER
	       " %s [options] [device|mountpoint|image] range...\n"
	       "\nRemove checkpoints of a NILFS2 volume; a range is cno, start..end, ..end or start..\n"
	       CLI_USAGE_OPTIONS
	       " -f, --force              ignore snapshots and missing checkpoints\n"
	       " -i, --interactive        ask before each removal\n"
	       CLI_USAGE_WRITE_DAMAGED, cli_progname);
	cli_usage_tail(stdout, 26);
}

static bool confirm(const char *arg)
{
	char ans[256];

	fprintf(stderr, "%s: remove checkpoint %s? ", cli_progname, arg);
	return fgets(ans, sizeof(ans), stdin) && (ans[0] == 'y' || ans[0] == 'Y');
}

/* the oldest checkpoint, at or above the last one found */
static int oldest_cno(struct rmcp *r, uint64_t *cno)
{
	struct nilfs_cpinfo ci;
	long n = r->vol->ops->cpinfo(r->vol, r->oldest, NILFS_CHECKPOINT, &ci, 1);

	if (n < 0)
		return (int)n;
	if (n > 0 && ci.ci_cno > r->oldest)
		r->oldest = ci.ci_cno;
	*cno = r->oldest;
	return 0;
}

/* 0: all removed; 1: something was refused or missing; <0: stop */
static int remove_range(struct rmcp *r, uint64_t start, uint64_t end, uint64_t *ndel,
			uint64_t *nss)
{
	uint64_t nocp = 0;

	*ndel = *nss = 0;
	for (uint64_t cno = start; cno <= end; cno++) {
		int rc = r->vol->ops->delete_checkpoint(r->vol, cno);

		if (rc == 0) {
			(*ndel)++;
		} else if (rc == -EBUSY) {
			(*nss)++;
			if (!r->force)
				cli_warnx("%llu: cannot remove snapshot", (unsigned long long)cno);
		} else if (rc == -ENOENT) {
			nocp++;
		} else {
			cli_warnx("%llu: cannot remove checkpoint: %s", (unsigned long long)cno,
				  vol_strerror(r->vol, rc));
			return rc < 0 ? rc : -1;
		}
		if (cno == end)   /* end may be the largest number */
			break;
	}
	return !r->force && (*nss > 0 || (nocp > 0 && *ndel == 0)) ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "interactive", no_argument, NULL, 'i' },
		{ "write-damaged", no_argument, NULL, CLI_OPT_WRITE_DAMAGED },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct rmcp r = { .oldest = 1 };
	struct nilfs_cpstat st;
	const char *dev = NULL;
	uint64_t start, end, nsnapshots = 0;
	char msg[512];
	int opt, rc, status = 0, damaged_ok = 0;

	cli_init(argv[0]);
	while ((opt = getopt_long(argc, argv, "fihV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f': r.force = true; r.interactive = false; break;
		case 'i': r.force = false; r.interactive = true; break;
		case CLI_OPT_WRITE_DAMAGED: damaged_ok = VOL_FORCE; break;
		case 'h': usage(); return 0;
		case 'V': cli_print_version(); return 0;
		default: cli_bad_option(argv);
		}
	}
	if (optind > argc - 1)
		cli_usage_error("too few arguments");
	/* with two or more arguments the first is a device unless it is a range */
	if (optind < argc - 1 && cli_strtocno_range(argv[optind], &start, &end))
		dev = argv[optind++];

	rc = vol_open(dev, VOL_RDWR | damaged_ok, &r.vol, msg, sizeof(msg));
	if (rc)
		cli_errx("cannot open NILFS on %s: %s", dev ? dev : "device", msg);
	rc = r.vol->ops->cpstat(r.vol, &st);
	if (rc) {
		cli_warnx("%s: cannot get checkpoint status: %s", dev ? dev : "(null)",
			  vol_strerror(r.vol, rc));
		vol_close(r.vol);
		return CLI_EXIT_FAILURE;
	}
	for (; optind < argc; optind++) {
		const char *arg = argv[optind];
		uint64_t ndel, nss;

		if (cli_strtocno_range(arg, &start, &end) || start > end || start < 1) {
			cli_warnx("invalid checkpoint range: %s", arg);
			status = CLI_EXIT_FAILURE;
			continue;
		}
		if (r.interactive && !confirm(arg))
			continue;
		if (start != end) {
			uint64_t oldest = 1;

			rc = oldest_cno(&r, &oldest);
			if (rc) {
				cli_warnx("%s", vol_strerror(r.vol, rc));
				status = CLI_EXIT_FAILURE;
				break;
			}
			if (start < oldest)
				start = oldest;
			/* a range stops short of the latest checkpoint */
			if (end >= st.cs_cno)
				end = st.cs_cno - 2;
			if (start > end) {
				if (r.force)
					continue;
				status = CLI_EXIT_FAILURE;
				cli_warnx("no valid checkpoints found in %s", arg);
				continue;
			}
		}
		rc = remove_range(&r, start, end, &ndel, &nss);
		nsnapshots += nss;
		if (rc == 0)
			continue;
		status = CLI_EXIT_FAILURE;
		if (rc < 0) {
			/* a damaged volume is refused whole (vol_image.c) */
			cli_warnx(rc == -NLFS_EDAMAGED ? "no checkpoints were removed."
				  : "remaining checkpoints were not removed.");
			break;
		}
		if (r.force || ndel != 0 || end - start + 1 - nss == 0)
			continue;
		if (start == end)
			cli_warnx("invalid checkpoint: %s", arg);
		else
			cli_warnx("no valid checkpoints found in %s", arg);
	}
	if (!r.force && nsnapshots)
		fputs("\nTo delete snapshot(s), change them into checkpoints with\n"
		      "chcp command before removal.\n", stderr);
	rc = vol_commit(r.vol);
	if (rc) {
		cli_warnx("%s", vol_strerror(r.vol, rc));
		status = CLI_EXIT_FAILURE;
	}
	vol_close(r.vol);
	return status;
}
