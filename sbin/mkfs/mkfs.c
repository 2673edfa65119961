/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mkfs.nilfs2: make a NILFS2 volume, optionally populated from a directory. */
#define _GNU_SOURCE /* SEEK_DATA */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <blkid.h>
#include <uuid.h>

#include <nlfs/endian.h>
#include <nlfs/writer.h>
#include "io_open.h"
#include "closestream.h"
#include "populate.h"
#include "holder.h"
#include "mounts.h"
#include "cli.h"

#define PROG "mkfs.nilfs2"

struct opts {
	struct nlfs_mkfs_params p;
	const char *device, *source;
	bool nodiscard, dry_run, quiet, have_uuid, have_time;
	int force;              /* -f: overwrite; -f -f: also an unmountable block size */
	int verbose;
};

static void usage(FILE *f)
{
	fputs(CLI_USAGE_HEADER
	      " " PROG " [options] <device>|<image>\n"
	      "\nMake a NILFS2 volume, optionally filled with a copy of a directory tree.\n"
	      CLI_USAGE_OPTIONS
	      " -b <size>          block size in bytes (1024..65536, default 4096)\n"
	      " -B <blocks>        blocks per segment (default 2048)\n"
	      " -L <label>         volume label (up to 80 bytes)\n"
	      " -m <percent>       reserved segments percentage (1..99, default 5)\n"
	      " -O <features>      comma-separated features: block_count, none\n"
	      " -U <uuid>          volume UUID (default: random)\n"
	      " -T <seconds>       creation time (default: $SOURCE_DATE_EPOCH or now)\n"
	      " -d <dir>           copy the tree at <dir> into the new volume\n"
	      " -f                 overwrite an existing filesystem or partition table\n"
	      "                    (twice: also a block size this kernel cannot mount)\n"
	      " -K                 do not discard the device's blocks\n"
	      " -n                 show what would be done, write nothing\n"
	      " -q                 quiet\n"
	      " -v                 verbose\n", f);
	cli_usage_tail(f, 20);
}

static void parse_features(struct opts *o, const char *list)
{
	char *copy = strdup(list), *save = NULL;

	if (!copy)
		cli_errx("out of memory");
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		bool off = *t == '^';

		if (off)
			t++;
		if (!strcmp(t, "block_count")) {
			if (off)
				o->p.feature_compat_ro &= ~(uint64_t)NLFS_FEATURE_COMPAT_RO_BLOCK_COUNT;
			else
				o->p.feature_compat_ro |= NLFS_FEATURE_COMPAT_RO_BLOCK_COUNT;
		} else if (!strcmp(t, "none")) {
			o->p.feature_compat_ro = 0;
		} else {
			cli_errx("unknown feature: %s", t);
		}
	}
	free(copy);
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->p.blocksize = NLFS_DEF_BLOCKSIZE;
	o->p.blocks_per_segment = NLFS_DEF_BLOCKS_PER_SEGMENT;
	o->p.r_segments_percentage = NLFS_DEF_RESERVED_PERCENT;
	while ((c = getopt_long(argc, argv, "b:B:cd:fhKL:m:nO:P:qT:U:vV", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o->p.blocksize = (uint32_t)cli_strtou64_or_err(optarg, 65536, "block size"); break;
		case 'B':
			o->p.blocks_per_segment =
				(uint32_t)cli_strtou64_or_err(optarg, UINT32_MAX, "blocks per segment");
			break;
		case 'c': cli_errx("-c (bad block check) is not supported");
		case 'd': o->source = optarg; break;
		case 'f': o->force++; break;
		case 'h': usage(stdout); exit(0);
		case 'K': o->nodiscard = true; break;
		case 'L':
			if (strlen(optarg) > sizeof(o->p.label))
				cli_errx("volume label too long (at most %zu bytes)", sizeof(o->p.label));
			strncpy(o->p.label, optarg, sizeof(o->p.label));
			break;
		case 'm':
			o->p.r_segments_percentage =
				(uint32_t)cli_strtou64_or_err(optarg, 99, "reserved segments percentage");
			break;
		case 'n': o->dry_run = true; break;
		case 'O': parse_features(o, optarg); break;
		case 'P': /* nilfs-utils' spelling of the creation time */
		case 'T':
			o->p.ctime = cli_strtou64_or_err(optarg, UINT64_MAX, "time");
			o->have_time = true;
			break;
		case 'q': o->quiet = true; break;
		case 'U':
			if (uuid_parse(optarg, o->p.uuid))
				cli_errx("invalid UUID: %s", optarg);
			o->have_uuid = true;
			break;
		case 'v': o->verbose++; break;
		case 'V': cli_print_version(); exit(0);
		default: cli_bad_option(argv);
		}
	}
	if (optind == argc)
		cli_usage_error("no device given");
	if (optind < argc - 1)
		cli_usage_error("too many arguments");
	o->device = argv[optind];
	if (!o->have_time) {
		const char *sde = getenv("SOURCE_DATE_EPOCH");

		o->p.ctime = sde ? cli_strtou64_or_err(sde, UINT64_MAX, "SOURCE_DATE_EPOCH")
				 : (uint64_t)time(NULL);
	}
	if (!o->have_uuid)
		uuid_generate(o->p.uuid);
}

/* The kernel's nilfs2 needs a block to fit in a page: a larger block size
 * makes a volume this machine cannot mount.  nilfs-utils refuses it.  -f
 * means "overwrite" in every mkfs, so it takes -f twice (as mke2fs -F -F)
 * to make one anyway (for another machine with larger pages), and a
 * warning says what was made. */
static void check_page_size(const struct opts *o)
{
	long page = sysconf(_SC_PAGESIZE);

	if (page <= 0 || o->p.blocksize <= (unsigned long)page)
		return;
	if (o->force < 2)
		cli_errx("block size %u is larger than this kernel's page size (%ld): the running "
		    "kernel could not mount the volume; use -f twice to make it anyway",
		    o->p.blocksize, page);
	cli_warnx("warning: block size %u is larger than this kernel's page size (%ld): only a "
		  "kernel with pages of %u bytes or more can mount %s", o->p.blocksize, page,
		  o->p.blocksize, o->device);
}

/* Whether FD is a regular file without a byte of data (a new sparse image):
 * it reads as zeros throughout, so it holds no signature of any kind, and
 * probing its superblock areas (some at the end of a 1 TiB image) was most
 * of the time mkfs spent beyond nilfs-tools' (bench/mkfs.sh).  Where the
 * file system cannot tell (no SEEK_DATA), the device is probed. */
static bool holds_no_data(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISREG(st.st_mode) && lseek(fd, 0, SEEK_DATA) < 0 &&
	       errno == ENXIO;
}

/* Refuse to overwrite a filesystem or partition table blkid recognises;
 * with -f, erase every signature found (as wipefs does) so that no stale
 * one is detected next to ours later. */
static void check_existing(const struct opts *o)
{
	int fd = open(o->device, (o->dry_run ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	blkid_probe pr;
	const char *type = NULL, *what = "filesystem";
	int rc;

	if (fd >= 0 && holds_no_data(fd)) {
		close(fd);
		return;
	}
	pr = blkid_new_probe();
	if (fd < 0 || !pr || blkid_probe_set_device(pr, fd, 0, 0))
		cli_errx("%s: cannot probe the device: %s", o->device, strerror(errno));
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_enable_superblocks(pr, 1);
	rc = blkid_do_fullprobe(pr);
	if (rc == 0) {
		if (blkid_probe_lookup_value(pr, "TYPE", &type, NULL) != 0) {
			if (blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL) == 0)
				what = "partition table";
			else
				type = "unknown";
		}
		if (!o->force) {
			cli_warnx("%s contains an existing %s %s; use -f to overwrite it",
				  o->device, type, what);
			exit(1);
		}
		if (!o->quiet)
			printf("Overwriting the %s %s on %s\n", type, what, o->device);
	} else if (rc < 0 && !o->force) {
		cli_errx("%s: probing for existing filesystems failed (ambiguous signatures?); "
		    "use -f to overwrite", o->device);
	}
	/* a device where the full probe found no signature at all (1) has
	 * none to erase: not probed again, nor synced (a fresh image) */
	if (o->force && !o->dry_run && rc != 1) {
		bool wiped = false;

		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_TYPE);
		blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
		while (blkid_do_probe(pr) == 0) {
			if (blkid_do_wipe(pr, 0))
				cli_errx("%s: erasing an old signature: %s", o->device, strerror(errno));
			wiped = true;
		}
		if (wiped && fsync(fd))
			cli_errx("%s: %s", o->device, strerror(errno));
	}
	blkid_free_probe(pr);
	close(fd);
}

static void discard_device(const struct opts *o, uint64_t size)
{
	struct stat st;
	int fd;

	if (o->nodiscard || stat(o->device, &st) || !S_ISBLK(st.st_mode))
		return;
	fd = open(o->device, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	{
		uint64_t range[2] = { 0, size };
		int rc = ioctl(fd, BLKDISCARD, &range);

		if (o->verbose)
			printf("Discarding %s: %s\n", o->device, rc ? strerror(errno) : "done");
	}
	close(fd);
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct nlfs_super_block sb;
	struct nlfs_writer *w = NULL;
	struct nlfs_io *io;
	struct nlfs_err err;
	struct populate_stats stats = { 0 };
	struct mnt_entry m;
	char msg[1024];
	uint64_t size, min_bytes = 0;
	bool mounted;
	int rc;

	cli_init(argv[0]);
	parse(argc, argv, &o);
	if (o.source) {
		struct stat st;

		if (stat(o.source, &st) || !S_ISDIR(st.st_mode))
			cli_errx("%s: not a directory", o.source);
	}
	/* one lookup (one scan of the loop devices): cmd_io_open's refusal
	 * to write, and the dry run's below */
	mounted = mnt_path_mount(o.device, &m);
	rc = cmd_io_open(o.device, (o.dry_run ? NLFS_IO_RDONLY : NLFS_IO_RDWR) |
			 (mounted ? 0 : CMD_IO_UNMOUNTED), &io);
	if (rc)
		cli_errx("cannot open %s: %s", o.device, dev_open_reason(o.device, rc, msg, sizeof(msg)));
	rc = nlfs_io_size(io, &size);
	if (rc)
		cli_errx("%s: cannot get the device size: %s", o.device, strerror(-rc));
	o.p.devsize = size;
	if (nlfs_mkfs_superblock(&o.p, &sb, &min_bytes, &err)) {
		if (min_bytes)
			cli_errx("%s: %s; enlarge the device or use smaller segments (-B)", o.device,
			    err.what);
		cli_errx("%s", err.what);
	}
	check_page_size(&o);
	if (mounted)
		cli_errx("%s is mounted on %s (%s); will not make a filesystem here",
		    o.device, m.mountpoint, m.fstype);
	mnt_free(&m);
	check_existing(&o);
	if (!o.quiet) {
		printf(PROG " (nilfsprogs %s)\n", PACKAGE_VERSION);
		printf("Device %s: %" PRIu64 " bytes, block size %u, %" PRIu64
		       " segments of %u blocks\n", o.device, size, o.p.blocksize,
		       nlfs_le64(sb.s_nsegments), o.p.blocks_per_segment);
	}
	if (o.dry_run) {
		nlfs_io_close(io);
		return 0;
	}
	discard_device(&o, size);
	rc = nlfs_writer_create(io, &sb, &w, &err);
	if (rc)
		cli_errx("%s", err.what);
	if (o.source)
		rc = populate_tree(w, o.source, &stats, !o.quiet, msg, sizeof(msg));
	else
		rc = populate_empty_root(w, o.p.ctime, msg, sizeof(msg));
	if (rc)
		cli_errx("%s", msg[0] ? msg : strerror(-rc));
	rc = nlfs_writer_commit(w, &err);
	if (rc) {
		nlfs_err_format(&err, msg, sizeof(msg));
		cli_errx("%s", msg);
	}
	if (o.verbose && o.source)
		printf("Copied %" PRIu64 " files, %" PRIu64 " directories, %" PRIu64
		       " symlinks, %" PRIu64 " special files, %" PRIu64 " data blocks\n",
		       stats.files, stats.dirs, stats.symlinks, stats.special, stats.data_blocks);
	if (!o.quiet)
		printf("Wrote %" PRIu64 " blocks; %s is ready\n", nlfs_writer_blocks_written(w),
		       o.device);
	nlfs_writer_free(w);
	nlfs_io_close(io);
	return 0;
}
