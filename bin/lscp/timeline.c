/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline.c - nilfs-timeline: keep hourly, daily, weekly, monthly and
 * yearly states of a NILFS2 volume as snapshots, once.
 *
 * The rule is common/timeline.c's, the state file and the order of the
 * changes common/timeline_state.c's; this is the front end: the volume
 * through the checkpoint tools' backends (the kernel's ioctls on a mounted
 * volume, under the cleaner's lock; the library's writer on an unmounted
 * device or image, all changes one checkpoint), the options, and what it
 * says.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nlfs/endian.h>
#include <nlfs/gc.h>
#include <nlfs/nlfs.h>
#include "cli.h"
#include "timeline_state.h"
#include "vol.h"

static void usage(void)
{
	printf(CLI_USAGE_HEADER
	       " %s [options] [device|mountpoint|image]\n"
	       "\nKeep the last checkpoint of each recent hour, day, week, month and year\n"
	       "of a NILFS2 volume as a snapshot; turn back the timeline's own snapshots\n"
	       "that no bucket keeps any more.\n"
	       CLI_USAGE_OPTIONS
	       " -H, --hourly <n>         hours to keep (default 24)\n"
	       " -d, --daily <n>          days to keep (default 7)\n"
	       " -w, --weekly <n>         weeks to keep (default 4)\n"
	       " -m, --monthly <n>        months to keep (default 12)\n"
	       " -y, --yearly <n>         years to keep (default 0)\n"
	       " -n, --dry-run            say what would change, change nothing\n"
	       " -l, --list               list every checkpoint the timeline keeps, and why\n"
	       " -q, --quiet              do not report the changes\n"
	       " -M, --max-space <size>   what the timeline's snapshots alone may hold:\n"
	       "                            a share of the volume (30%%) or a size (20G);\n"
	       "                            over it the oldest go first\n"
	       " -F, --min-free <n|n%%|size>\n"
	       "                          clean space the cleaner must be able to keep\n"
	       "                            (segments, a share of them, or a size; its\n"
	       "                            min_clean_segments); under it the timeline\n"
	       "                            gives up snapshots as over the budget\n"
	       " -p, --protection-period <seconds>\n"
	       "                          the cleaner's (default 3600), for the budget\n"
	       " -S, --state-dir <dir>    where the timeline's state files are (default\n"
	       "                            $NILFS_TIMELINE_STATE_DIR or " TL_STATE_DIR ")\n"
	       "     --now <seconds>      the time to decide at (default: now)\n",
	       cli_progname);
	cli_usage_tail(stdout, 26);
}

static long t_cpinfo(void *ctx, uint64_t cno, struct nilfs_cpinfo *ci, size_t n)
{
	struct vol *v = ctx;

	return v->ops->cpinfo(v, cno, NILFS_CHECKPOINT, ci, n);
}

static int t_set_snapshot(void *ctx, uint64_t cno, bool snapshot)
{
	struct vol *v = ctx;

	return v->ops->change_cpmode(v, cno, snapshot ? NILFS_SNAPSHOT : NILFS_CHECKPOINT);
}

/* a dry run changes nothing, not even by a sync */
static bool dry_run;

/* the space budget's count (nlfs_gc_held_count): offline on the image's
 * reader; mounted on the device read afresh (uncached) after a sync, so
 * that the DAT on disk is the latest checkpoint's (a dry run counts the
 * last one written) */
static int t_held(void *ctx, const struct nlfs_gc_protect *others, const uint64_t *snaps,
		  size_t n, struct nlfs_gc_held *h)
{
	struct vol *v = ctx;
	struct nlfs_fs *fs;
	struct nlfs_err err;
	uint64_t cno;
	int rc;

	nlfs_err_clear(&err);
	if (!v->mounted) {
		rc = v->ops->segments(v, &fs);
		if (!rc)
			rc = nlfs_gc_held_count(fs, others, snaps, n, h, &err);
	} else {
		rc = dry_run ? 0 : v->ops->sync(v, &cno);
		if (!rc)
			rc = tl_held_on_device(v->dev, others, snaps, n, h, &err);
	}
	if (rc)
		nlfs_err_format(&err, v->detail, sizeof(v->detail));
	return rc;
}

/* the clean segments' blocks, for the free-space limit */
static int t_clean_blocks(void *ctx, uint64_t *blocks)
{
	struct vol *v = ctx;
	const struct nlfs_geometry *g;
	struct nilfs_sustat st;
	struct nlfs_fs *fs;
	int rc = v->ops->segments(v, &fs);

	if (!rc)
		rc = v->ops->sustat(v, &st);
	if (rc)
		return rc;
	g = nlfs_fs_geometry(fs);
	*blocks = st.ss_ncleansegs * g->blocks_per_segment;
	return 0;
}

/* a share of TOTAL ("30%"), or -1 if ARG is not one; WHAT for messages */
static int64_t share_of(const char *arg, uint64_t total, const char *what)
{
	size_t len = strlen(arg);
	char num[32];
	uint64_t n;

	if (len < 2 || arg[len - 1] != '%')
		return -1;
	if (len - 1 >= sizeof(num))
		cli_usage_error("invalid %s: %s", what, arg);
	memcpy(num, arg, len - 1);
	num[len - 1] = '\0';
	n = cli_strtou64_or_err(num, 100, what);
	return (int64_t)(total / 100 * n + total % 100 * n / 100);
}

static const struct nlfs_geometry *geometry(struct vol *v)
{
	struct nlfs_fs *fs;

	if (v->ops->segments(v, &fs))
		cli_errx("%s: cannot read the superblock", v->dev);
	return nlfs_fs_geometry(fs);
}

/* blocks of a budget: "30%" of the volume's blocks, or a size */
static uint64_t budget_blocks(struct vol *v, const char *arg)
{
	const struct nlfs_geometry *g = geometry(v);
	int64_t share = share_of(arg, g->nsegments * g->blocks_per_segment, "space budget");
	uint64_t n;

	if (share >= 0)
		return (uint64_t)share;
	if (cli_strtosize(arg, &n))
		cli_usage_error("invalid space budget: %s", arg);
	return n / g->blocksize;
}

/* blocks of the free-space limit: segments, a share of them, or a size
 * (nilfs_cleanerd.conf's min_clean_segments), rounded up to segments, and
 * the segments the volume reserves, as the cleaner counts them */
static uint64_t min_free_blocks(struct vol *v, const char *arg)
{
	const struct nlfs_geometry *g = geometry(v);
	uint64_t segbytes = (uint64_t)g->blocks_per_segment * g->blocksize, n;
	struct nlfs_fs *fs;
	int64_t share;
	char *end;

	share = share_of(arg, g->nsegments * 100, "minimum of free space");
	if (share >= 0) {
		n = ((uint64_t)share + 99) / 100;
	} else {
		errno = 0;
		n = strtoull(arg, &end, 10);
		if (errno || end == arg || *end) {
			if (cli_strtosize(arg, &n))
				cli_usage_error("invalid minimum of free space: %s", arg);
			n = (n + segbytes - 1) / segbytes;
		}
	}
	v->ops->segments(v, &fs);
	n += nlfs_nrsvsegs(nlfs_le32(nlfs_fs_sb(fs, nlfs_fs_sb_choice(fs)->used)
				     ->s_r_segments_percentage), g->nsegments);
	return n * g->blocks_per_segment;
}

/* mounted: a sync writes the cpfile; offline: the construction */
static int t_commit(void *ctx)
{
	struct vol *v = ctx;
	uint64_t cno;

	return v->mounted ? v->ops->sync(v, &cno) : vol_commit(v);
}

static void fmt_time(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "@%lld", (long long)t);
}

static const char *const verdict_name[] = {
	[TL_PROMOTE] = "promote", [TL_HOLD] = "hold", [TL_USER] = "user",
	[TL_DEMOTE] = "demote", [TL_FORGET] = "forget", [TL_OVER] = "over",
};

static void list(const struct tl_plan *plan)
{
	printf("%10s  %-19s  %-7s  %s\n", "CNO", "DATE", "ACTION", "KEPT BY");
	for (size_t i = 0; i < plan->n; i++) {
		char when[32], why[512];

		fmt_time(plan->d[i].create, when, sizeof(when));
		tl_reason(&plan->d[i], why, sizeof(why));
		printf("%10llu  %-19s  %-7s  %s\n", (unsigned long long)plan->d[i].cno, when,
		       verdict_name[plan->d[i].verdict], why);
	}
}

/* one line per change made (or, DRY, to be made), and per checkpoint a
 * bucket keeps that the space budget leaves a checkpoint */
static void report(const struct tl_plan *plan, bool dry)
{
	for (size_t i = 0; i < plan->n; i++) {
		const struct tl_decision *d = &plan->d[i];
		char why[512];

		if (d->verdict != TL_PROMOTE && d->verdict != TL_DEMOTE && d->verdict != TL_OVER)
			continue;
		tl_reason(d, why, sizeof(why));
		if (d->verdict == TL_OVER)
			printf("not promoting checkpoint %llu (%s)\n", (unsigned long long)d->cno, why);
		else if (d->verdict == TL_PROMOTE)
			printf("%s checkpoint %llu to a snapshot (%s)\n",
			       dry ? "would promote" : "promoted", (unsigned long long)d->cno, why);
		else
			printf("%s snapshot %llu to a checkpoint (%s)\n",
			       dry ? "would demote" : "demoted", (unsigned long long)d->cno, why);
	}
}

static unsigned count_or_err(const char *s, const char *what)
{
	return (unsigned)cli_strtou64_or_err(s, 1000000, what);
}

int main(int argc, char **argv)
{
	enum { OPT_NOW = 256 };
	static const struct option longopts[] = {
		{ "hourly", required_argument, NULL, 'H' },
		{ "daily", required_argument, NULL, 'd' },
		{ "weekly", required_argument, NULL, 'w' },
		{ "monthly", required_argument, NULL, 'm' },
		{ "yearly", required_argument, NULL, 'y' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "list", no_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "state-dir", required_argument, NULL, 'S' },
		{ "max-space", required_argument, NULL, 'M' },
		{ "min-free", required_argument, NULL, 'F' },
		{ "protection-period", required_argument, NULL, 'p' },
		{ "now", required_argument, NULL, OPT_NOW },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct tl_options o = { .cfg = { { 24, 7, 4, 12, 0 } }, .now = time(NULL),
				.budget = UINT64_MAX, .protection_period = 3600 };
	const char *dev = NULL, *state_dir = tl_state_dir(), *max_space = NULL, *min_free = NULL;
	bool show = false, quiet = false;
	char msg[512], uuid[TL_UUID_LEN], path[PATH_MAX], why[256];
	uint8_t raw[16];
	struct tl_outcome out;
	struct tl_plan plan;
	struct vol *v;
	sigset_t block, old;
	int opt, rc;

	cli_init(argv[0]);
	while ((opt = getopt_long(argc, argv, "H:d:w:m:y:nlqS:M:F:p:hV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'H': o.cfg.keep[TL_HOURLY] = count_or_err(optarg, "hourly count"); break;
		case 'd': o.cfg.keep[TL_DAILY] = count_or_err(optarg, "daily count"); break;
		case 'w': o.cfg.keep[TL_WEEKLY] = count_or_err(optarg, "weekly count"); break;
		case 'm': o.cfg.keep[TL_MONTHLY] = count_or_err(optarg, "monthly count"); break;
		case 'y': o.cfg.keep[TL_YEARLY] = count_or_err(optarg, "yearly count"); break;
		case 'n': o.dry_run = true; break;
		case 'l': show = true; break;
		case 'q': quiet = true; break;
		case 'S': state_dir = optarg; break;
		case 'M': max_space = optarg; break;
		case 'F': min_free = optarg; break;
		case 'p':
			if (cli_strtoperiod(optarg, &o.protection_period))
				cli_usage_error("invalid protection period: %s", optarg);
			break;
		case OPT_NOW: o.now = (time_t)cli_strtou64_or_err(optarg, INT64_MAX, "time"); break;
		case 'h': usage(); return 0;
		case 'V': cli_print_version(); return 0;
		default: cli_bad_option(argv);
		}
	}
	if (optind < argc)
		dev = argv[optind++];
	if (optind < argc)
		cli_usage_error("too many arguments");

	rc = vol_open(dev, o.dry_run ? VOL_RDONLY : VOL_RDWR | VOL_LOCK, &v, msg, sizeof(msg));
	if (rc)
		cli_errx("cannot open NILFS on %s: %s", dev ? dev : "device", msg);
	if (max_space)
		o.budget = budget_blocks(v, max_space);
	if (min_free)
		o.min_free = min_free_blocks(v, min_free);
	dry_run = o.dry_run;
	rc = vol_uuid(v, raw);
	if (rc) {
		cli_warnx("%s: cannot read the superblock: %s", v->dev, vol_strerror(v, rc));
		vol_close(v);
		return CLI_EXIT_FAILURE;
	}
	tl_uuid_name(raw, uuid);
	if (snprintf(path, sizeof(path), "%s/%s", state_dir, uuid) >= (int)sizeof(path)) {
		vol_close(v);
		cli_errx("%s: state directory name too long", state_dir);
	}
	/* a run is short: finish it rather than stop between the state file's
	 * two writes */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (!o.dry_run && v->ops->lock(v)) {
		cli_warnx("cannot lock NILFS");
		vol_close(v);
		return CLI_EXIT_FAILURE;
	}
	rc = tl_run(&(struct tl_vol){ v, t_cpinfo, t_set_snapshot, t_commit, t_held, t_clean_blocks,
				      !v->mounted },
		    path, uuid, &o, &plan, &out, why, sizeof(why));
	if (!o.dry_run)
		v->ops->unlock(v);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (show)
		list(&plan);
	else if (!quiet && (!rc || out.error))
		report(&plan, o.dry_run);
	if (!quiet && o.min_free && out.budgeted)
		printf("free space: %llu blocks clean, %llu more that nothing holds, the cleaner's "
		       "minimum %llu: the timeline's snapshots may hold %llu\n",
		       (unsigned long long)out.clean, (unsigned long long)out.dead,
		       (unsigned long long)o.min_free, (unsigned long long)out.allowed);
	if (!quiet && out.budgeted && o.budget != UINT64_MAX)
		printf("the timeline's snapshots alone hold %llu blocks%s, %llu after (budget %llu)\n",
		       (unsigned long long)out.held_before, o.dry_run ? " now" : "",
		       (unsigned long long)out.held_after, (unsigned long long)o.budget);
	else if (!quiet && out.budgeted)
		printf("the timeline's snapshots alone hold %llu blocks%s, %llu after\n",
		       (unsigned long long)out.held_before, o.dry_run ? " now" : "",
		       (unsigned long long)out.held_after);
	if (rc) {
		if (!out.failed)
			cli_warnc(rc, "%s", v->dev);
		else if (!strcmp(out.failed, "state"))
			cli_warnx("%s: %s", path, why[0] ? why : vol_strerror(v, out.error));
		else if (!strcmp(out.failed, "change"))
			cli_warnx("checkpoint %llu: %s", (unsigned long long)out.failed_cno,
				  vol_strerror(v, out.error));
		else
			cli_warnx("%s: %s", v->dev, vol_strerror(v, out.error));
	}
	tl_plan_free(&plan);
	vol_close(v);
	return rc ? CLI_EXIT_FAILURE : 0;
}
