/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nilfs-resize: grow or shrink a NILFS2 volume, with nilfs-utils' command
 * line, size syntax and messages (GParted, libblockdev and KDE Partition
 * Manager run it).  A mounted volume is resized by the kernel (online.c),
 * an unmounted device or image file by the library's writer (offline.c).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlfs/io.h>
#include <nlfs/nlfs.h>
#include <nlfs/resize.h>
#include "devtag.h"
#include "volerr.h"
#include "mounts.h"
#include "progress.h"
#include "resize.h"
#include "cli.h"

#define PROG "nilfs-resize"
#define SECTOR_SIZE 512u

static struct progress bar;
static bool bar_ready;

void say(const char *fmt, ...)
{
	va_list ap;

	if (bar_ready)
		progress_clear(&bar);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void say_unusable(const struct resize_opts *o, int rc, const struct nlfs_err *err)
{
	char msg[640];

	say("%s: %s: %s\n", cli_progname, o->device,
	    cmd_volume_reason(o->device, rc, err, msg, sizeof(msg)));
}

bool confirm(const struct resize_opts *o)
{
	int c;

	if (o->assume_yes)
		return true;
	say("Do you wish to proceed (y/N)? ");
	c = getchar();
	return c == 'y' || c == 'Y';
}

void progress_show(void *arg, uint64_t done, uint64_t total)
{
	(void)arg;
	if (!bar_ready) {
		progress_init(&bar, stderr, "progress");
		bar_ready = true;
	}
	progress_update(&bar, done, total);
}

int report_shrink(const struct resize_opts *o, const struct nlfs_resize_info *ri, bool nospace)
{
	if (nospace) {
		say("Error: the filesystem does not have enough free space.\n"
		    "       At least %" PRIu64 " more segments (%" PRIu64 " bytes) are required.\n"
		    "       The smallest size it can be shrunk to now is %" PRIu64 " bytes.\n",
		    ri->short_segments, ri->short_segments * ri->segment_bytes,
		    nlfs_resize_min_size(ri));
		return -1;
	}
	if (o->verbose)
		say("%" PRIu64 " free segments (%" PRIu64 " bytes) will be left after shrinkage.\n",
		    ri->free_after, ri->free_after * ri->segment_bytes);
	if (ri->new_nsegments < ri->old_nsegments)
		say("%" PRIu64 " segments will be truncated from segnum %" PRIu64 ".\n",
		    ri->old_nsegments - ri->new_nsegments, ri->new_nsegments);
	else
		say("No segments will be truncated.\n");
	return 0;
}

static void usage(FILE *f)
{
	fputs(CLI_USAGE_HEADER
	      " " PROG " [options] <device>|<image> [<size>]\n"
	      "\nGrow or shrink a NILFS2 volume to <size> (default: the device's size).\n"
	      CLI_USAGE_OPTIONS
	      " -v, --verbose             verbose mode\n"
	      " -y, --yes, --assume-yes   assume yes to all queries and do not prompt\n"
	      "     --write-damaged, --force\n"
	      "                           unmounted: even a volume that needs fsck.nilfs2 first\n", f);
	cli_usage_tail(f, 27);
}

/* nilfs-utils' size syntax: the suite's size (strutils.h), or a number
 * and s for 512-byte sectors */
static int parse_size(const char *arg, uint64_t *out)
{
	size_t n = strlen(arg);
	char num[32];
	uint64_t v;
	int rc;

	if (!n || arg[n - 1] != 's')
		return cli_strtosize(arg, out);
	if (n >= sizeof(num))
		return -ERANGE;
	memcpy(num, arg, n - 1);
	num[n - 1] = '\0';
	rc = cli_strtou64_max(num, UINT64_MAX / SECTOR_SIZE, &v);
	if (!rc)
		*out = v * SECTOR_SIZE;
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "yes", no_argument, NULL, 'y' },
		{ "assume-yes", no_argument, NULL, 'y' },
		{ "version", no_argument, NULL, 'V' },
		{ "write-damaged", no_argument, NULL, CLI_OPT_WRITE_DAMAGED },
		{ "force", no_argument, NULL, CLI_OPT_WRITE_DAMAGED },
		{ NULL, 0, NULL, 0 },
	};
	struct resize_opts o = { 0 };
	struct nlfs_io *io;
	struct stat st;
	struct mnt_entry m;
	int c, rc, mrc;

	cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "hvyV", longopts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return EXIT_SUCCESS;
		case 'v': o.verbose = true; break;
		case 'y': o.assume_yes = true; break;
		case CLI_OPT_WRITE_DAMAGED: o.write_damaged = true; break;
		case 'V': cli_print_version(); return EXIT_SUCCESS;
		default: cli_bad_option(argv);
		}
	}
	if (optind == argc)
		cli_usage_error("no device given");
	if (argc - optind > 2)
		cli_usage_error("too many arguments");
	o.device = dev_resolve(argv[optind++]);
	if (!o.device)
		return EXIT_FAILURE;
	mrc = cmd_mount_of(o.device, &m);   /* used once the size is known */
	if (stat(o.device, &st) < 0) {
		say_unusable(&o, -errno, NULL);
		return EXIT_FAILURE;
	}
	if (S_ISDIR(st.st_mode)) {
		say_unusable(&o, -EISDIR, NULL);
		return EXIT_FAILURE;
	}
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode)) {
		say("%s: %s: neither a block device nor an image file\n", cli_progname, o.device);
		return EXIT_FAILURE;
	}
	o.is_file = S_ISREG(st.st_mode);
	rc = nlfs_io_open_unix(o.device, NLFS_IO_RDONLY, &io);
	if (!rc) {
		rc = nlfs_io_size(io, &o.devsize);
		nlfs_io_close(io);
	}
	if (rc) {
		say_unusable(&o, rc, NULL);
		return EXIT_FAILURE;
	}
	o.size = o.devsize;
	if (optind < argc) {
		if (parse_size(argv[optind], &o.size)) {
			say("Error: bad size argument: %s\n", argv[optind]);
			return EXIT_FAILURE;
		}
		if (o.size > o.devsize && !o.is_file) {
			say("Error: size larger than partition size (%" PRIu64 " bytes).\n",
			    o.devsize);
			return EXIT_FAILURE;
		}
		if (o.size & (SECTOR_SIZE - 1)) {
			uint64_t down = o.size & ~(uint64_t)(SECTOR_SIZE - 1);

			say("size %" PRIu64 " is not aligned to sector size. truncated to %" PRIu64
			    ".\n", o.size, down);
			o.size = down;
		}
	}
	if (mrc == -ENOENT)
		return resize_offline(&o);
	if (mrc) {
		say("Error: cannot find %s: %s.\n", o.device, strerror(-mrc));
		return EXIT_FAILURE;
	}
	if (o.is_file) {
		say("Error: %s backs a loop device mounted on %s; resize the loop device "
		    "instead.\n", o.device, m.mountpoint);
		rc = EXIT_FAILURE;
	} else if (!m.rw) {
		say("Error: %s is mounted read-only on %s; the kernel resizes only a "
		    "read-write mount.\n", o.device, m.mountpoint);
		rc = EXIT_FAILURE;
	} else {
		rc = resize_online(&o, m.mountpoint);
	}
	mnt_free(&m);
	return rc;
}
