/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main.c - fsck.nilfs2: check a NILFS2 volume without changing it.
 *
 * Options and exit status follow fsck(8) and e2fsck.  The passes, run from
 * the table check_steps[] below:
 *   1 superblocks (pass_sb.c)
 *   2 segment usage, the DAT's own map and bitmaps (pass_sufile.c, pass_dat.c)
 *   3 every log of every segment in use (pass_log.c)
 *   4 every DAT entry (pass_dat.c); the superblocks' free blocks against
 *     the clean segments (pass_sb.c)
 *   5 the cpfile and the sufile's map (pass_cpfile.c)
 *   6 for each checkpoint checked: ifile, inodes, block maps, directories,
 *     link counts (pass_checkpoint.c, pass_dir.c, pass_inode.c, check_map.c;
 *     after the first, by difference with the one before: cpdiff.c);
 *     after the latest, unused live DAT entries (pass_dat.c)
 * With -y or -p, errors a repair exists for are repaired after the check
 * (repair.h says how), and the volume is checked again: the exit status
 * and the report are those of the second check.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nlfs/endian.h>
#include <nlfs/repair.h>
#include <nlfs/undo.h>
#include "cli.h"
#include "fsck.h"
#include "io_open.h"
#include "devtag.h"
#include "volerr.h"
#include "readahead.h"
#include "repair.h"
#include "stats.h"

static void on_cancel(int sig)
{
	(void)sig;
	fsck_cancel_requested = 1;
}

static void on_usr(int sig)
{
	fsck_progress_toggle = sig == SIGUSR1 ? 1 : 2;
}

static void usage(FILE *out)
{
	fputs(CLI_USAGE_HEADER
	      " " FSCK_PROG " [options] <device>\n"
	      "\nCheck a NILFS2 volume for consistency.\n"
	      CLI_USAGE_OPTIONS
	      " -n, --no                 open read-only and answer no to every repair\n"
	      " -y, --yes                answer yes to every repair\n"
	      " -p, -a, --preen          repair what is safe without asking\n"
	      " -f, --force              check even if the volume looks clean (always done)\n"
	      " -v, --verbose            say more\n"
	      " -C, --progress <fd>      write progress lines to file descriptor fd\n"
	      "     --checkpoints <which>\n"
	      "                          check the latest checkpoint, every snapshot too,\n"
	      "                          or every checkpoint: latest|snapshots|all\n"
	      "     --check-data         verify the data checksum of every log, which\n"
	      "                          reads every block in use (by default only the\n"
	      "                          logs the kernel's recovery reads are verified)\n"
	      "     --json               print a JSON summary on standard output\n"
	      "     --stats              print each pass's time and reads at the end\n"
	      " -z, --undo-file <file>   save every block a repair overwrites to <file>\n"
	      "                          first (nilfs-undo(8) puts them back)\n"
	      "     --rollback           point the superblocks back at the newest super\n"
	      "                          root that holds up (with -y)\n", out);
	cli_usage_tail(out, 26);
}

static int set_mode(struct fsck_opts *o, enum fsck_mode m)
{
	if (o->mode_set && o->mode != m)
		return -1;
	o->mode = m;
	o->mode_set = true;
	return 0;
}

/* 0 to go on, else the exit status */
static int parse_args(int argc, char **argv, struct fsck_opts *o, bool *done)
{
	enum { OPT_JSON = CHAR_MAX + 1, OPT_CHECKPOINTS, OPT_ROLLBACK, OPT_CHECK_DATA, OPT_STATS };
	static const struct option longopts[] = {
		{ "no", no_argument, NULL, 'n' },
		{ "yes", no_argument, NULL, 'y' },
		{ "preen", no_argument, NULL, 'p' },
		{ "force", no_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "progress", required_argument, NULL, 'C' },
		{ "checkpoints", required_argument, NULL, OPT_CHECKPOINTS },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "check-data", no_argument, NULL, OPT_CHECK_DATA },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "undo-file", required_argument, NULL, 'z' },
		{ "rollback", no_argument, NULL, OPT_ROLLBACK },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	*done = false;
	while ((ch = getopt_long(argc, argv, "nypafvC:z:hV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n':
		case 'y':
		case 'p':
		case 'a':
			if (set_mode(o, ch == 'n' ? MODE_NO : ch == 'y' ? MODE_YES : MODE_PREEN))
				cli_usage_error("only one of the options -n, -y and -p/-a may be given");
			break;
		case 'f': o->force = true; break;
		case 'v': o->verbose = true; break;
		case 'C': {
			int fd;

			if (cli_strtoint(optarg, &fd))
				cli_usage_error("invalid progress file descriptor '%s'", optarg);
			o->progress_fd = fd;
			o->progress_on = fd >= 0;
			o->progress_set = true;
			break;
		}
		case OPT_CHECKPOINTS:
			if (!strcmp(optarg, "latest"))
				o->cps = CPS_LATEST;
			else if (!strcmp(optarg, "snapshots"))
				o->cps = CPS_SNAPSHOTS;
			else if (!strcmp(optarg, "all"))
				o->cps = CPS_ALL;
			else
				cli_usage_error("--checkpoints takes latest, snapshots or all, not '%s'", optarg);
			break;
		case OPT_JSON: o->json = true; break;
		case OPT_CHECK_DATA: o->check_data = true; break;
		case OPT_STATS: o->stats = true; break;
		case 'z': o->undo_file = optarg; break;
		case OPT_ROLLBACK: o->rollback = true; break;
		case 'h':
			usage(stdout);
			*done = true;
			return FSCK_EXIT_OK;
		case 'V':
			cli_print_version();
			*done = true;
			return FSCK_EXIT_OK;
		default:
			cli_bad_option(argv);
		}
	}
	if (optind != argc - 1)
		cli_usage_error("%s", optind >= argc ? "no device given" : "more than one device given");
	o->device = dev_resolve(argv[optind]);
	if (!o->device)
		return FSCK_EXIT_OPERATIONAL;
	if (o->undo_file && o->mode == MODE_NO)
		cli_usage_error("-z saves what a repair overwrites: it needs -y or -p");
	if (o->rollback && o->mode != MODE_YES)
		cli_usage_error("--rollback discards the newest logs: it needs -y");
	return 0;
}

static int allocate_maps(struct fsck *c)
{
	uint64_t nblocks = c->devsize / c->g->blocksize;

	if (fsck_bitmap_init(&c->datphys, nblocks) ||
	    fsck_bitmap_init(&c->datblk, nblocks) || fsck_bitmap_init(&c->unverified, nblocks) ||
	    fsck_bitmap_init(&c->baddata, nblocks)) {
		fsck_problem(c, MSG_OOM_BLOCK_MAPS, (unsigned long long)nblocks);
		return -ENOMEM;
	}
	return 0;
}

static void free_all(struct fsck *c)
{
	struct fsck_bitmap *maps[] = { &c->datphys, &c->datblk, &c->unverified, &c->baddata };
	struct fsck_vbitmap *vmaps[] = { &c->valloc, &c->vconfirmed, &c->vref };

	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		fsck_bitmap_free(maps[i]);
	for (size_t i = 0; i < sizeof(vmaps) / sizeof(vmaps[0]); i++)
		fsck_vbitmap_free(vmaps[i]);
	fsck_dattable_free(&c->dat);
	free(c->segs);
	free(c->cplogs);
	if (c->fs)
		nlfs_fs_close(c->fs);
	fsck_report_free(c);
}

/* Forget what a check found, to check again after a repair. */
static void reset_results(struct fsck *c)
{
	struct fsck_opts o = c->o;
	bool changed = c->changed, corrected = c->corrected;
	uint64_t repair_cno = c->repair_cno;

	free_all(c);
	fix_free(&c->fix);

	memset(c, 0, sizeof(*c));
	c->o = o;
	c->changed = changed;
	c->corrected = corrected;
	c->repair_cno = repair_cno;
	if (fsck_report_init(c))
		c->op_error = true;
}

/* What the steps of a check hand on that struct fsck does not hold. */
struct check_run {
	struct nlfs_io *io;            /* the device, until the volume owns it */
	struct fsck_readahead *ra;
	bool maps_ready;               /* the block bitmaps are allocated */
	bool cps_ready;                /* pass 5 chose the checkpoints */
	uint64_t *cnos, ncnos;         /* ... these, for pass 6 */
	int exit;                      /* 0, or an operational failure's exit status */
	struct fsck_stats stats;       /* --stats */
};

static int step_superblocks(struct fsck *c, struct check_run *r)
{
	int rc = pass_sb(c, r->io);

	if (!rc)
		return 0;
	if (rc > 0) {
		char type[64];

		if (cmd_foreign_type(c->o.device, type, sizeof(type)))
			fprintf(stderr, "%s: %s: formatted as %s, not NILFS2\n", FSCK_PROG,
				c->o.device, type);
		else
			fprintf(stderr, "%s: %s: no NILFS2 superblock found (is this a NILFS2 "
				"volume?)\n", FSCK_PROG, c->o.device);
	}
	r->exit = FSCK_EXIT_OPERATIONAL;
	return -1;
}

/* How the check's handles read: without the kernel's read-ahead where the
 * check asks ahead for all it reads, as for the latest checkpoint.  Pass 6
 * of older checkpoints reads their versions of the ifile and of B-tree
 * nodes that nothing asks for ahead, which the kernel's read-ahead around
 * the logs serves (--checkpoints=all, bench/fsck.sh CASE=checkpoints with
 * 20,000 files, cold, 7 runs in turn: median 315 ms with it, 361 ms
 * without, best 224 and 305). */
static int read_flags(const struct fsck *c)
{
	return c->o.cps == CPS_LATEST ? NLFS_IO_NO_READAHEAD : 0;
}

/* the volume as the kernel mounts it: what every later pass reads */
static int step_open(struct fsck *c, struct check_run *r)
{
	struct nlfs_err err;
	int rc = nlfs_fs_open(r->io, &c->fs, &err);

	if (rc) {
		nlfs_io_close(r->io);
		r->io = NULL;
		fsck_lib_problem(c, MSG_FS_OPEN, &err);
		c->aborted = true;
		return -1;
	}
	r->io = NULL;   /* the volume's now */
	c->g = nlfs_fs_geometry(c->fs);
	c->sb = nlfs_fs_sb(c->fs, nlfs_fs_sb_choice(c->fs)->used);
	c->latest_cno = nlfs_fs_recovery(c->fs)->cno;
	/* the DAT blocks read again: 3 MiB hold what the passes come back
	 * to.  bench/fsck.sh, CPU time and max RSS of fsck -fn against the
	 * library's bound of 4096 blocks: CASE=checkpoints with 100,000
	 * files 105 ms and 8.3 MiB against 104 ms and 9.3 MiB; CASE=aged
	 * 30 ms and 7.5 MiB against 30 ms and 8.9 MiB (2 MiB: 100,000
	 * files took 122 ms) */
	nlfs_fs_limit_dat_cache(c->fs, (3u << 20) / c->g->blocksize);
	if (!fsck_readahead_whole(nlfs_fs_io(c->fs), c->devsize))
		fsck_readahead_start(c->o.device, read_flags(c), &r->ra);
	return 0;
}

static int step_cursor(struct fsck *c)
{
	pass_sb_cursor(c);
	return 0;
}

static int step_recovery(struct fsck *c)
{
	pass_recovery(c);
	return 0;
}

/* the latest checkpoint's map: its files, plus the cpfile and sufile */
static int step_cpfile(struct fsck *c, struct check_run *r)
{
	int rc;

	fsck_vbitmap_clear_all(&c->vref);
	rc = pass_cpfile(c, &r->cnos, &r->ncnos);
	r->cps_ready = !rc;
	return rc;
}

/* The read-ahead threads allocate little (DAT blocks they cache for all):
 * in the main arena, not in one of their own that keeps its free pages. */
static void one_malloc_arena(void)
{
#ifdef __GLIBC__
	(void)mallopt(M_ARENA_MAX, 1);
#endif
}

/* Before pass 6 (its inode cache is the peak): the pages passes 1 to 5
 * freed handed back, and glibc's thresholds held at their defaults from
 * then on.  Once a large block was freed (a log's summaries) glibc raised
 * them to its size, keeping up to twice as much free at the heap's top;
 * raised, they spare passes 3 and 4 a fresh mapping per large log. */
#define FSCK_MALLOC_THRESHOLD (128 * 1024)

static void trim_malloc_for_walk(void)
{
#ifdef __GLIBC__
	(void)mallopt(M_MMAP_THRESHOLD, FSCK_MALLOC_THRESHOLD);
	(void)mallopt(M_TRIM_THRESHOLD, FSCK_MALLOC_THRESHOLD);
	(void)malloc_trim(0);
#endif
}

/* each checkpoint pass 5 chose (its header names it); after the latest,
 * the live DAT entries no file of it uses */
static int step_checkpoints(struct fsck *c, struct check_run *r)
{
	trim_malloc_for_walk();
	pass_checkpoints(c, r->cnos, r->ncnos, pass_dat_leaks);
	if (c->valloc.oom || c->vconfirmed.oom || c->vref.oom)
		fsck_problem(c, MSG_OOM_VIRTUAL_SETS);
	return 0;
}

/* what a step needs */
#define NEEDS_DEVICE      0x1   /* the device, read raw (run->io) */
#define NEEDS_VOLUME      0x2   /* the volume opened as the kernel mounts it */
#define NEEDS_MAPS        0x4   /* the block bitmaps of fsck.h, made on first need */
#define NEEDS_CHECKPOINTS 0x8   /* the checkpoints pass 5 chose */
/* when the check stops after a step */
#define STOP_FAILED       0x1   /* the step returned nonzero */
#define STOP_CANCELLED    0x2   /* the user asked (SIGINT, SIGTERM) */

/* A pass is one or more steps: each runs a pass's function on struct
 * fsck alone (RUN) or with what the steps hand on (RUN_WITH). */
static const struct check_step {
	int pass;
	const char *title;     /* the pass's header; NULL: none (pass 6 prints one per checkpoint) */
	int (*run)(struct fsck *c);
	int (*run_with)(struct fsck *c, struct check_run *r);
	unsigned needs, stops;
} check_steps[] = {
	{ 1, "checking superblocks", NULL, step_superblocks, NEEDS_DEVICE, STOP_FAILED },
	{ 1, NULL, NULL, step_open, NEEDS_DEVICE, STOP_FAILED },
	{ 1, NULL, step_cursor, NULL, NEEDS_VOLUME, 0 },
	{ 2, "checking segment usage and the DAT's block map", pass_sufile, NULL,
	  NEEDS_VOLUME | NEEDS_MAPS, STOP_FAILED | STOP_CANCELLED },
	{ 2, NULL, pass_dat_map, NULL, NEEDS_VOLUME | NEEDS_MAPS, STOP_FAILED | STOP_CANCELLED },
	/* what a log or a DAT entry holds is reported there: passes 3 and 4 go on */
	{ 3, "checking logs", pass_logs, NULL, NEEDS_VOLUME | NEEDS_MAPS, 0 },
	{ 3, NULL, step_recovery, NULL, NEEDS_VOLUME | NEEDS_MAPS, STOP_CANCELLED },
	{ 4, "checking DAT entries", pass_dat_entries, NULL, NEEDS_VOLUME | NEEDS_MAPS,
	  STOP_CANCELLED },
	{ 4, NULL, pass_sb_free, NULL, NEEDS_VOLUME | NEEDS_MAPS, 0 },
	{ 5, "checking checkpoints", NULL, step_cpfile, NEEDS_VOLUME | NEEDS_MAPS, STOP_FAILED },
	{ 6, NULL, NULL, step_checkpoints, NEEDS_VOLUME | NEEDS_MAPS | NEEDS_CHECKPOINTS, 0 },
};

/* false if what STEP needs is not there (a step before it failed) */
static bool step_ready(struct fsck *c, struct check_run *r, const struct check_step *step)
{
	if ((step->needs & NEEDS_DEVICE && !r->io) || (step->needs & NEEDS_VOLUME && !c->fs) ||
	    (step->needs & NEEDS_CHECKPOINTS && !r->cps_ready))
		return false;
	if (step->needs & NEEDS_MAPS && !r->maps_ready) {
		if (allocate_maps(c))
			return false;
		r->maps_ready = true;
	}
	return true;
}

/* the device as the steps read it: raw, then the volume's */
static const struct nlfs_io *step_io(const struct fsck *c, const struct check_run *r)
{
	return r->io ? r->io : c->fs ? nlfs_fs_io(c->fs) : NULL;
}

static void run_steps(struct fsck *c, struct check_run *r)
{
	for (size_t i = 0; i < sizeof(check_steps) / sizeof(check_steps[0]); i++) {
		const struct check_step *step = &check_steps[i];
		struct fsck_step_mark mark;
		int rc;

		if (!step_ready(c, r, step))
			return;
		if (step->title)
			fsck_pass_begin(c, step->pass, step->title);
		fsck_step_begin(&mark, step_io(c, r));
		rc = step->run ? step->run(c) : step->run_with(c, r);
		fsck_step_end(&r->stats, step->pass, &mark, step_io(c, r));
		if ((rc && step->stops & STOP_FAILED) ||
		    (step->stops & STOP_CANCELLED && fsck_cancelled(c)))
			return;
	}
}

/* Passes 1 to 6 on IO (owned from now on).  0 when the check ran (whatever
 * it found), else the exit status. */
static int check_volume(struct fsck *c, struct nlfs_io *io)
{
	struct check_run r = { .io = io };
	struct nlfs_io_stats ra;

	fsck_stats_start(&r.stats);
	run_steps(c, &r);
	if (r.io)
		nlfs_io_close(r.io);
	fsck_readahead_stop(r.ra, &ra);
	if (c->o.stats)
		fsck_stats_print(c, &r.stats, &ra);
	free(r.cnos);
	return r.exit;
}

/* Did the check find errors a repair exists for, in this mode?  *ALL tells
 * whether every error found is one of them.  A volume that could not be
 * opened as the kernel mounts it has none but --rollback: every other
 * repair works on that view. */
static bool repairable(const struct fsck *c, bool *all)
{
	bool any = false;

	*all = true;
	for (int i = 0; i < PR_COUNT; i++) {
		/* an unclean volume is marked clean after the rounds (main) */
		if (!c->pr_count[i] || i == PR_SB_UNCLEAN)
			continue;
		/* a warning a repair exists for is repaired along (a cursor the
		 * kernel's fallback could not use, an error flag) */
		if (fix_is_repairable((enum fsck_pr)i, c->o.mode == MODE_PREEN))
			any = true;
		else if (fsck_problems[i].severity == SEV_ERROR)
			*all = false;
	}
	return (any && !c->aborted) || c->o.rollback;
}

/* The device for checking, read-only.  0 or the exit status of an
 * operational failure (reported). */
static int open_for_check(struct fsck *c, struct nlfs_io **out)
{
	int rc = nlfs_io_open_unix(c->o.device, NLFS_IO_RDONLY | read_flags(c), out);

	if (rc) {
		char why[640];

		fprintf(stderr, "%s: %s: %s\n", FSCK_PROG, c->o.device,
			cmd_volume_reason(c->o.device, rc, NULL, why, sizeof(why)));
		return FSCK_EXIT_OPERATIONAL;
	}
	return 0;
}

/* The device for writing, through the undo file if -z names one; kept
 * open across repair rounds (the undo file saves each block once). */
static int open_for_repair(struct fsck *c, struct nlfs_io **out)
{
	struct nlfs_io *io, *uio;
	struct nlfs_err err;
	int rc = cmd_io_open(c->o.device, NLFS_IO_RDWR, &io);

	if (rc) {
		char why[640];

		fflush(stdout);   /* what was said before comes before this */
		fprintf(stderr, "%s: %s: cannot open it to repair: %s\n", FSCK_PROG, c->o.device,
			cmd_volume_reason(c->o.device, rc, NULL, why, sizeof(why)));
		return FSCK_EXIT_OPERATIONAL;
	}
	if (c->o.undo_file) {
		memset(&err, 0, sizeof(err));
		rc = nlfs_io_open_undo(io, c->o.undo_file, &uio, &err);
		if (rc) {
			char msg[512];

			nlfs_err_format(&err, msg, sizeof(msg));
			fprintf(stderr, "%s: %s\n", FSCK_PROG, msg);
			nlfs_io_close(io);
			return FSCK_EXIT_OPERATIONAL;
		}
		fsck_info(c, "blocks the repairs overwrite are saved to %s first "
			  "(nilfs-undo %s %s puts them back)", c->o.undo_file, c->o.undo_file,
			  c->o.device);
		io = uio;
	}
	*out = io;
	return 0;
}

/* The repairs on IO.  0 or the exit status of an operational failure. */
static int run_repairs(struct fsck *c, struct nlfs_io *io, bool *changed_out)
{
	bool changed = false;
	int rc = c->o.rollback ? repair_rollback(c, io, &changed) :
		 c->pr_count[PR_SB_CURSOR] || c->pr_count[PR_SB_NEWER_LOGS] ?
		 repair_cursor(c, io, &changed) : 0;

	if (changed)
		c->corrected = true;
	/* after a rollback the check's notes describe discarded logs: the
	 * check runs again first; a rollback that found nothing to give up
	 * leaves a volume the other repairs cannot open */
	if (!rc && !changed && !c->aborted)
		rc = repair_volume(c, io, &changed);
	if (changed)
		c->changed = true;
	*changed_out = changed;
	if (!rc) {
		rc = nlfs_io_flush(io);
		if (rc)
			fprintf(stderr, "%s: %s: flushing the repairs: %s\n", FSCK_PROG,
				c->o.device, nlfs_strerror(rc));
	}
	return rc ? FSCK_EXIT_OPERATIONAL : 0;
}

/* The kernel's recovery, offline, on a volume that was not cleanly
 * unmounted.  Logs after the latest super root were rolled forward by a
 * construction (repair.c), whose superblocks say clean; this is the rest:
 * nothing follows the latest super root, but the superblocks still name an
 * older one (the kernel writes them lazily) and say unclean.  Marking them
 * clean alone would make the kernel stop at that older super root and lose
 * what came after it: they are pointed at the latest one first, as the
 * kernel's mount does. */
static bool recovery_left(struct fsck *c)
{
	return c->o.mode != MODE_NO && c->fs && !fsck_cancelled(c) && !c->op_error &&
	       !c->aborted && !c->nerrors && c->pr_count[PR_SB_UNCLEAN] &&
	       !c->pr_count[PR_RECOVERY] && !repair_meta_refused(c);
}

/* Files unlinked while still open are kept on an unclean volume; on a
 * clean one they are orphans (PR_INO_ORPHAN).  Marking the volume clean
 * would turn them into errors: it is left as the kernel will find it. */
static bool open_unlinked_left(struct fsck *c)
{
	if (!c->nopen_unlinked)
		return false;
	fsck_info(c, "not marked cleanly unmounted: %llu inode(s) of checkpoint %llu were unlinked "
		  "while still open (-v names them); a clean volume must not hold such inodes",
		  (unsigned long long)c->nopen_unlinked, (unsigned long long)c->latest_cno);
	return true;
}

static int mark_clean(struct fsck *c, struct nlfs_io *io)
{
	const struct nlfs_super_block *sb = nlfs_fs_sb(c->fs, nlfs_fs_sb_choice(c->fs)->used);
	uint64_t from = nlfs_le64(sb->s_last_cno);
	struct nlfs_fs *fs = NULL;
	struct nlfs_err err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = nlfs_fs_open(io, &fs, &err);
	if (!rc)
		rc = nlfs_recovery_mark_clean(fs, (uint64_t)time(NULL), &err);
	if (!rc)
		rc = nlfs_io_flush(io);
	if (rc) {
		char msg[512];

		nlfs_err_format(&err, msg, sizeof(msg));
		fprintf(stderr, "%s: %s: marking the volume cleanly unmounted: %s\n", FSCK_PROG,
			c->o.device, err.code ? msg : nlfs_strerror(rc));
	} else {
		const struct nlfs_recovery *rec = nlfs_fs_recovery(fs);

		c->changed = true;
		if (rec->cno != from)
			fsck_info(c, "recovery: the superblocks moved from checkpoint %llu to the latest "
				  "super root the kernel's mount finds (block %llu, checkpoint %llu) "
				  "and marked cleanly unmounted",
				  (unsigned long long)from, (unsigned long long)rec->sr_log,
				  (unsigned long long)rec->cno);
		else
			fsck_info(c, "recovery: nothing to roll forward after checkpoint %llu; the "
				  "superblocks marked cleanly unmounted", (unsigned long long)rec->cno);
	}
	if (fs)
		nlfs_fs_release(fs);
	return rc ? FSCK_EXIT_OPERATIONAL : 0;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_cancel;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_usr;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
}

/* a device another file system is on, or a mounted one to repair, is
 * refused (false); a mounted one to check is warned about */
static bool may_check(struct fsck *c)
{
	bool mounted, ro;
	char where[4096];

	if (fsck_check_mounted(c->o.device, &mounted, &ro, where, sizeof(where))) {
		/* another file system: not ours to read, let alone repair */
		fprintf(stderr, "%s: %s: %s; nothing done\n", FSCK_PROG, c->o.device, where);
		return false;
	}
	if (mounted) {
		if (c->o.mode != MODE_NO) {
			fprintf(stderr, "%s: %s is mounted on %s; refusing to repair a mounted volume (use -n to check it)\n",
				FSCK_PROG, c->o.device, where);
			return false;
		}
		fprintf(stderr, "%s: warning: %s is mounted %s on %s; checking it read-only, %s\n",
			FSCK_PROG, c->o.device, ro ? "read-only" : "read-write", where,
			ro ? "the result holds as of the last log written" :
			     "logs written meanwhile may show up as problems");
	}
	return true;
}

/* the repairs after the check (IO) and the checks again after them, the
 * device opened for writing in *RW when first needed; an exit status */
static int repair_rounds(struct fsck *c, struct nlfs_io *io, struct nlfs_io **rw)
{
	bool all = true;
	int ex = 0;

	/* a repair can uncover more (a directory linked into lost+found
	 * changes its old parent's link count): a few rounds at most */
	/* a repair that left a live block unprotected (PR_REPAIR_LIVE) is
	 * not covered up by another round: that check's report stands */
	for (int round = 0; round < 3 && !ex && c->o.mode != MODE_NO && !fsck_cancelled(c) &&
	     !c->op_error && !c->pr_count[PR_REPAIR_LIVE] && repairable(c, &all) &&
	     (all || c->o.mode == MODE_YES); round++) {
		bool changed = false;

		/* said once the device is ours to write: a busy one ends in
		 * its refusal, not in "repairing" */
		ex = *rw ? 0 : open_for_repair(c, rw);
		if (!ex)
			fsck_info(c, "repairing");
		if (!ex)
			ex = run_repairs(c, *rw, &changed);
		c->o.rollback = false;   /* once */
		if (!ex && !changed)
			break;   /* the check's findings stand */
		reset_results(c);
		if (!ex) {
			fsck_info(c, "checking again after the repairs");
			ex = open_for_check(c, &io);
			if (!ex)
				ex = check_volume(c, io);
		}
	}
	return ex;
}

/* a volume left unclean with nothing else wrong: marked clean, or with
 * -n, what -p or -y would do said; an exit status */
static int settle_unclean(struct fsck *c, struct nlfs_io **rw)
{
	int ex = 0;

	if (recovery_left(c) && !open_unlinked_left(c)) {
		ex = *rw ? 0 : open_for_repair(c, rw);
		if (!ex)
			ex = mark_clean(c, *rw);
	} else if (c->o.mode == MODE_NO && c->pr_count[PR_SB_UNCLEAN] && !c->nerrors &&
		   c->fs && !c->aborted) {
		if (c->pr_count[PR_RECOVERY])
			fsck_info(c, "not cleanly unmounted: -p or -y would replay the logs after the "
				  "latest super root as a new checkpoint, as the kernel's mount does "
				  "(nothing changed, -n)");
		else if (!open_unlinked_left(c))
			fsck_info(c, "not cleanly unmounted: -p or -y would point the superblocks at the "
				  "latest super root and mark the volume clean, as the kernel's mount "
				  "does (nothing changed, -n)");
	}
	return ex;
}

/* the exit status bits of what the check found, and its one-word status */
static int final_status(struct fsck *c, bool rollback_asked, const char **status)
{
	int ex = 0;

	if (c->nerrors)
		ex |= FSCK_EXIT_UNCORRECTED;
	/* the kernel's recovery alone corrects nothing (e2fsck exits 0 after
	 * replaying a journal) */
	if (c->corrected)
		ex |= FSCK_EXIT_CORRECTED;
	if (c->op_error)
		ex |= FSCK_EXIT_OPERATIONAL;
	if (fsck_cancelled(c)) {
		ex |= FSCK_EXIT_CANCELLED;
		*status = "cancelled";
		fsck_info(c, "check cancelled");
	} else if (c->aborted) {
		*status = "errors";
		fsck_info(c, "the check could not go on; the volume is not usable as it is");
		/* what users otherwise do by hand with a hex editor */
		if (c->pr_count[PR_FS_OPEN] && !rollback_asked && rollback_possible(c->o.device))
			fsck_info(c, "'%s -y --rollback -z FILE %s' would point the superblocks back at "
				  "the newest logs that validate (what was written after them is lost; "
				  "FILE keeps the blocks the repair overwrites)", FSCK_PROG, c->o.device);
	} else if (c->nerrors) {
		*status = "errors";
	} else {
		*status = c->op_error ? "incomplete" : c->corrected ? "repaired" : "clean";
	}
	return ex;
}

/* the closing lines: the summary, and what the status means */
static void say_result(struct fsck *c, const char *status)
{
	fsck_progress_done(c);
	if (c->fs && !c->aborted && !fsck_cancelled(c))
		fsck_info(c, "%llu inodes, %llu directories, %llu logs in %llu segments, %llu checkpoints (%llu snapshots), %llu checked",
			  (unsigned long long)c->ninodes, (unsigned long long)c->ndirs,
			  (unsigned long long)c->nlogs, (unsigned long long)c->nsegs_used,
			  (unsigned long long)c->ncheckpoints, (unsigned long long)c->nsnapshots,
			  (unsigned long long)c->ncps_checked);
	if (c->corrected)
		fsck_info(c, "***** the volume was modified *****");
	if (c->nerrors) {
		if (c->o.mode == MODE_PREEN)
			fprintf(c->o.json ? stderr : stdout,
				"%s: UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY.\n"
				"\t(i.e., without -a or -p options)\n", c->o.device);
		else if (c->o.mode == MODE_YES)
			fsck_info(c, "%llu error(s) left uncorrected", (unsigned long long)c->nerrors);
		else
			fsck_info(c, "%llu error(s) found, nothing changed (-n)", (unsigned long long)c->nerrors);
	} else if (!strcmp(status, "clean") || !strcmp(status, "repaired")) {
		if (c->o.mode == MODE_PREEN)
			fprintf(c->o.json ? stderr : stdout, "%s: %s, %llu inodes, %llu checkpoints\n",
				c->o.device, status, (unsigned long long)c->ninodes,
				(unsigned long long)c->ncheckpoints);
		else
			fsck_info(c, "%s%s", status, c->nwarnings ? " (with warnings)" : "");
	}
}

int main(int argc, char **argv)
{
	struct fsck c;
	struct nlfs_io *io, *rw = NULL;
	bool done, rollback_asked;
	const char *status;
	int ex;

	cli_init_codes(FSCK_PROG, FSCK_EXIT_OPERATIONAL, FSCK_EXIT_USAGE);
	one_malloc_arena();
	memset(&c, 0, sizeof(c));
	ex = parse_args(argc, argv, &c.o, &done);
	if (ex || done)
		return ex;
	if (fsck_report_init(&c)) {
		fprintf(stderr, "%s: out of memory\n", FSCK_PROG);
		return FSCK_EXIT_OPERATIONAL;
	}
	install_signals();
	if (!may_check(&c) || open_for_check(&c, &io)) {
		fsck_report_free(&c);
		return FSCK_EXIT_OPERATIONAL;
	}
	rollback_asked = c.o.rollback;
	ex = check_volume(&c, io);
	if (!ex)
		ex = repair_rounds(&c, io, &rw);
	if (!ex)
		ex = settle_unclean(&c, &rw);
	nlfs_io_close(rw);
	if (ex) {
		fsck_report_finish(&c, ex, "not checked");
		free_all(&c);
		fix_free(&c.fix);
		return ex;
	}
	ex = final_status(&c, rollback_asked, &status);
	say_result(&c, status);
	fsck_report_finish(&c, ex, status);
	free_all(&c);
	fix_free(&c.fix);
	return ex;
}
