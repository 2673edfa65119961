/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nilfs-tune: list or change a NILFS2 volume's superblock, with
 * nilfs-utils' options and listing (partition editors run it).
 *
 * Nothing is trusted before it checks out: both copies are read, checked
 * as the kernel checks them (magic, size, CRC, revision, block size and
 * geometry within the format), and the kernel's choice is listed.  Changes
 * go to both copies through nlfs_sb_rewrite(), crash-safe.  A mounted
 * volume's label is set through the kernel (FS_IOC_SETFSLABEL) where it
 * can; anything else on a mounted volume needs -f.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <uuid.h>

#include <nlfs/endian.h>
#include <nlfs/repair.h>
#include "devtag.h"
#include "volerr.h"
#include "io_open.h"
#include "ioc.h"
#include "mounts.h"
#include "tune.h"
#include "cli.h"

#define PROG "nilfs-tune"

enum {
	SET_LABEL = 1u << 0,
	SET_UUID = 1u << 1,
	SET_INTERVAL = 1u << 2,
	SET_BLOCK_MAX = 1u << 3,
	SET_FEATURES = 1u << 4,
};

struct tune_opts {
	unsigned set;             /* SET_* */
	bool list, force;
	char label[NLFS_VOLUME_NAME_LEN];
	uint8_t uuid[16];
	uint32_t interval, block_max;
	const char *features;
	const char *device;
};

static void usage(FILE *f)
{
	fputs(CLI_USAGE_HEADER
	      " " PROG " -l <device>\n"
	      " " PROG " [options] <device>\n"
	      "\nList or change the superblock of a NILFS2 volume.\n"
	      CLI_USAGE_OPTIONS
	      " -l                        list the superblock's contents\n"
	      " -f, --force               change a mounted volume's superblocks anyway; with\n"
	      "                           -O block_count, recount a damaged volume anyway\n"
	      " -i <interval>             commit interval of the segment constructor (seconds)\n"
	      " -m <block_max>            most blocks in one construction\n"
	      " -L <volume-name>          volume label (up to 80 bytes)\n"
	      " -O [^]<feature>[,...]     set or clear features\n"
	      " -U <UUID>|random|time|clear\n"
	      "                           volume UUID\n", f);
	cli_usage_tail(f, 27);
}

static void parse_uuid(const char *s, uint8_t uuid[16])
{
	char bare[37];

	/* KDE Partition Manager passes QUuid::toString(): "{8-4-4-4-12}" */
	if (strlen(s) == 38 && s[0] == '{' && s[37] == '}') {
		memcpy(bare, s + 1, 36);
		bare[36] = '\0';
		if (!uuid_parse(bare, uuid))
			return;
	}
	if (!strcasecmp(s, "clear"))
		memset(uuid, 0, 16);
	else if (!strcasecmp(s, "random"))
		uuid_generate_random(uuid);
	else if (!strcasecmp(s, "time"))
		uuid_generate_time(uuid);
	else if (strlen(s) != 36 || uuid_parse(s, uuid))
		cli_errx("Invalid UUID format: %s", s);
}

static void parse(int argc, char **argv, struct tune_opts *o)
{
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "fhi:lL:m:O:U:V", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': o->force = true; break;
		case 'h': usage(stdout); exit(EXIT_SUCCESS);
		case 'i':
			o->interval = (uint32_t)cli_strtou64_or_err(optarg, UINT32_MAX, "commit interval");
			o->set |= SET_INTERVAL;
			break;
		case 'l': o->list = true; break;
		case 'L':
			if (strlen(optarg) > sizeof(o->label))
				cli_errx("volume name too long: %zu bytes, at most %zu", strlen(optarg),
				    sizeof(o->label));
			strncpy(o->label, optarg, sizeof(o->label));
			o->set |= SET_LABEL;
			break;
		case 'm':
			o->block_max = (uint32_t)cli_strtou64_or_err(optarg, UINT32_MAX, "block_max");
			o->set |= SET_BLOCK_MAX;
			break;
		case 'O':
			if (o->features)
				cli_errx("-O may only be specified once");
			o->features = optarg;
			o->set |= SET_FEATURES;
			break;
		case 'U':
			parse_uuid(optarg, o->uuid);
			o->set |= SET_UUID;
			break;
		case 'V': cli_print_version(); exit(EXIT_SUCCESS);
		default: cli_bad_option(argv);
		}
	}
	if (optind == argc)
		cli_usage_error("no device given");
	if (optind < argc - 1)
		cli_usage_error("too many arguments");
	if (!o->set && !o->list)
		cli_usage_error("nothing to do: -l lists the superblock, the other options change it");
	o->device = dev_resolve(argv[optind]);
	if (!o->device)
		exit(EXIT_FAILURE);
}

static int apply(struct nlfs_super_block *sb, void *arg, struct nlfs_err *err)
{
	const struct tune_opts *o = arg;

	if (o->set & SET_FEATURES) {
		uint64_t f[3] = { nlfs_le64(sb->s_feature_compat), nlfs_le64(sb->s_feature_compat_ro),
				  nlfs_le64(sb->s_feature_incompat) };
		char why[128];

		if (tune_edit_features(o->features, f, why, sizeof(why)))
			return nlfs_err_set(err, EINVAL, NLFS_NOWHERE, "%s", why);
		sb->s_feature_compat = nlfs_cpu_to_le64(f[0]);
		sb->s_feature_compat_ro = nlfs_cpu_to_le64(f[1]);
		sb->s_feature_incompat = nlfs_cpu_to_le64(f[2]);
	}
	if (o->set & SET_LABEL)
		memcpy(sb->s_volume_name, o->label, sizeof(sb->s_volume_name));
	if (o->set & SET_UUID)
		memcpy(sb->s_uuid, o->uuid, sizeof(sb->s_uuid));
	if (o->set & SET_INTERVAL)
		sb->s_c_interval = nlfs_cpu_to_le32(o->interval);
	if (o->set & SET_BLOCK_MAX)
		sb->s_c_block_max = nlfs_cpu_to_le32(o->block_max);
	return 0;
}

static const char *slot_name(int slot)
{
	return slot == NLFS_SB_PRIMARY ? "primary" : "secondary";
}

/* Which copy was trusted, when that is news: one copy is bad, or the
 * secondary is the newer. */
static void report_choice(const char *dev, const struct nlfs_sb_choice *c, bool wrote)
{
	for (int i = 0; i < 2; i++)
		if (!c->status[i].valid)
			cli_warnx("%s: the %s superblock is not valid (%s)%s", dev,
				  slot_name(i), nlfs_strerror(c->status[i].error),
				  wrote ? "; left unchanged (fsck.nilfs2 -y mends it)" : "");
	if (!c->status[0].valid || !c->status[1].valid || c->used != NLFS_SB_PRIMARY)
		cli_warnx("%s: using the %s superblock: %s", dev, slot_name(c->used),
			  c->reason);
}

/* The label of a mounted volume, through the kernel: 0 when set, else the
 * reason it could not be, in words. */
static const char *set_label_online(const char *where, const char *label)
{
	char buf[FSLABEL_MAX] = { 0 };
	int rc, fd = ioc_open(where);

	if (fd < 0)
		return strerror(-fd);
	memcpy(buf, label, strnlen(label, NLFS_VOLUME_NAME_LEN));
	rc = ioc_set_label(fd, buf);
	close(fd);
	if (rc == -ENOTTY || rc == -EOPNOTSUPP)
		return "this kernel's nilfs2 cannot change the label of a mounted volume "
		       "(no FS_IOC_SETFSLABEL)";
	return rc ? strerror(-rc) : NULL;
}

static int list_volume(const struct tune_opts *o)
{
	struct nlfs_super_block sb[2];
	struct nlfs_sb_choice c;
	struct nlfs_err err;
	struct nlfs_io *io;
	char msg[512];
	int rc = nlfs_io_open_unix(o->device, NLFS_IO_RDONLY, &io);

	if (rc)
		cli_errx("%s: %s", o->device, cmd_volume_reason(o->device, rc, NULL, msg, sizeof(msg)));
	rc = nlfs_sb_read_both(io, sb, &c, &err);
	nlfs_io_close(io);
	if (rc)
		cli_errx("%s: %s", o->device, cmd_volume_reason(o->device, rc, &err, msg, sizeof(msg)));
	report_choice(o->device, &c, false);
	tune_list(stdout, &sb[c.used]);
	return EXIT_SUCCESS;
}

/* the volume opened for the recount closes its io with it */
static void close_volume(struct nlfs_fs *fs, struct nlfs_io *io)
{
	if (fs)
		nlfs_fs_close(fs);
	else
		nlfs_io_close(io);
}

/* -O turns block_count on (whatever the volume has now) */
static bool sets_block_count(const struct tune_opts *o)
{
	uint64_t f[3] = { 0, 0, 0 };
	char why[128];

	return (o->set & SET_FEATURES) && !tune_edit_features(o->features, f, why, sizeof(why)) &&
	       (f[TUNE_COMPAT_RO] & NLFS_FEATURE_COMPAT_RO_BLOCK_COUNT);
}

/* What block_count promises, made true before the bit is set: each
 * checkpoint's block count as its files hold it.  Wrong counts (a volume
 * written by a kernel older than the count) are set right in one new
 * checkpoint.  A volume the library's quick check calls damaged is refused
 * first, whether or not a count is wrong (-f: anyway), as every offline
 * writer refuses it: counts read from damaged metadata promise nothing. */
static void recount_blocks(const struct tune_opts *o, struct nlfs_io *io, struct nlfs_fs **fs)
{
	struct nlfs_recount rs;
	struct nlfs_err err;
	char msg[1024];
	int rc = nlfs_fs_open(io, fs, &err);

	if (!rc && o->force)
		nlfs_fs_vet_skip(*fs);
	else if (!rc)
		rc = nlfs_fs_vet(*fs, &err);
	if (rc == -NLFS_EDAMAGED) {
		close_volume(*fs, io);
		cli_errx("%s: %s", o->device, cmd_volume_reason(o->device, rc, &err, msg, sizeof(msg)));
	}
	if (!rc)
		rc = nlfs_recount_blocks(*fs, (uint64_t)time(NULL), &rs, &err);
	if (rc) {
		close_volume(*fs, io);
		cli_errx("%s: cannot count the blocks of the checkpoints for block_count: %s",
		    o->device, cmd_volume_reason(o->device, rc, &err, msg, sizeof(msg)));
	}
	if (rs.nwrong)
		printf("Block counts of %" PRIu64 " of %" PRIu64 " checkpoints set to what their "
		       "files hold (the latest: %" PRIu64 " -> %" PRIu64 "), written as "
		       "checkpoint %" PRIu64 "\n", rs.nwrong, rs.ncheckpoints, rs.latest_was,
		       rs.latest_counted, rs.written_cno);
}

int main(int argc, char **argv)
{
	struct tune_opts o = { 0 };
	struct nlfs_sb_choice c;
	struct nlfs_err err;
	struct nlfs_io *io;
	struct nlfs_fs *fs = NULL;
	bool mounted = false;
	struct mnt_entry m;
	char where[PATH_MAX], msg[1024];
	int rc, mode = NLFS_IO_RDWR;

	cli_init(argv[0]);
	parse(argc, argv, &o);
	rc = cmd_mount_of(o.device, &m);
	printf(PROG " %s\n", PACKAGE_VERSION);   /* nilfs-utils' banner */
	fflush(stdout);
	if (!o.set) {
		mnt_free(&m);
		return list_volume(&o);
	}
	if (rc && rc != -ENOENT)
		cli_errx("%s: %s", o.device, strerror(-rc));
	if (!rc) {
		mounted = true;
		snprintf(where, sizeof(where), "%s", m.mountpoint);
		mnt_free(&m);
	}
	if (mounted && o.set == SET_LABEL) {
		const char *why = set_label_online(where, o.label);

		if (!why) {
			printf("Label of %s (mounted on %s) set through the kernel\n", o.device, where);
			return o.list ? list_volume(&o) : EXIT_SUCCESS;
		}
		if (!o.force)
			cli_errx("%s is mounted on %s and %s; unmount it first, or use -f to write the "
			    "superblocks under the mounted filesystem", o.device, where, why);
		cli_warnx("%s: %s; writing the superblocks directly (-f)",
			  o.device, why);
	} else if (mounted && !o.force) {
		cli_errx("%s is mounted on %s; will not change it.\n"
		    "  Changing the superblocks of a mounted volume may cause SEVERE damage: the\n"
		    "  kernel keeps its own copy and writes it back.  Use -f to do it anyway.",
		    o.device, where);
	}
	if (mounted) {
		cli_warnx("warning: %s is mounted on %s: the superblocks are "
			  "written under the kernel (-f); a crash before its next write-back may "
			  "leave them older than the logs", o.device, where);
		mode = NLFS_IO_RDWR_SHARED;
	}
	rc = cmd_io_open(o.device, mode | (mounted ? 0 : CMD_IO_UNMOUNTED), &io);
	if (rc)
		cli_errx("%s: %s", o.device, cmd_volume_reason(o.device, rc, NULL, msg, sizeof(msg)));
	if (sets_block_count(&o) && mounted)
		cli_warnx("%s: block counts not checked under the mounted kernel "
			  "(it keeps them)", o.device);
	else if (sets_block_count(&o))
		recount_blocks(&o, io, &fs);
	rc = nlfs_sb_rewrite(io, apply, &o, &c, &err);
	if (rc) {
		close_volume(fs, io);
		cli_errx("%s: %s", o.device, cmd_volume_reason(o.device, rc, &err, msg, sizeof(msg)));
	}
	report_choice(o.device, &c, true);
	close_volume(fs, io);
	return o.list ? list_volume(&o) : EXIT_SUCCESS;
}
