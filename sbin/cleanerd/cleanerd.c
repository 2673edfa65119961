/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nilfs_cleanerd: the NILFS2 garbage collector of one mounted volume.
 *
 * Each pass: GET_SUSTAT; decide from the clean-segment thresholds (or a
 * manual run from nilfs-clean) whether to clean; list the reclaimable
 * segments (GET_SUINFO), rank them by the selection policy, and for the
 * first ones read their logs from the raw device and build the arrays of
 * NILFS_IOCTL_CLEAN_SEGMENTS (see common/clean_plan.c).  Segments with too few
 * reclaimable blocks are deferred with SET_SUINFO instead.
 *
 * Pressure levels: "normal" uses nsegments_per_clean / cleaning_interval /
 * min_reclaimable_blocks; "urgent" (clean segments below min_clean_segments
 * plus the reserved segments, nilfs-utils' rule) the mc_ values;
 * "emergency" (clean segments within max(2, min(mc_nsegments_per_clean,
 * min_clean_segments / 2)) of the reserved segments, near where the kernel
 * refuses writes) also ignores
 * the max/min pause and min_reclaimable_blocks, ranks greedily on exact
 * live counts and considers segments the cleaner itself wrote after the
 * last user write, so the volume does not stay full while reclaimable
 * blocks exist.  At every level a segment whose blocks are all live is
 * left where it is: copying it would free nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#include <nlfs/gc.h>
#include <nlfs/nlfs.h>
#include "cleanerd.h"
#include "offline.h"
#include "ctl.h"
#include "devtag.h"
#include "ioc.h"
#include "mounts.h"
#include "cli.h"

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* configuration */

static void report_conf(void *arg, const char *file, unsigned line, const char *msg)
{
	struct cleanerd *d = arg;

	if (d->startup && !d->log_stderr)
		cli_warnx("%s:%u: %s", file, line, msg);
	say(LOG_WARNING, "%s:%u: %s", file, line, msg);
}

/* 0, or -errno with the old configuration kept */
static int load_config(struct cleanerd *d, const char *path, bool must_exist)
{
	struct cld_config c;
	int rc;

	cld_defaults(&c);
	rc = cld_parse_file(&c, path, report_conf, d);
	if (rc < 0 && (must_exist || rc != -ENOENT))
		return rc;
	if (rc == -ENOENT)
		say(LOG_NOTICE, "%s: no such file, using the built-in defaults", path);
	if (d->pp_override)
		c.protection_period = d->pp_override_ns;
	d->cfg = c;
	setlogmask(LOG_UPTO(c.log_priority));
	if (rc > 0)
		say(LOG_WARNING, "%s: %d invalid line%s ignored", path, rc, rc == 1 ? "" : "s");
	return 0;
}

int cld_reload_config(struct cleanerd *d, const char *path)
{
	char *p = path ? strdup(path) : strdup(d->conffile);
	int rc;

	if (!p)
		return -ENOMEM;
	rc = load_config(d, p, path != NULL || d->conf_explicit);
	if (rc) {
		say(LOG_ERR, "%s: cannot read: %s; keeping the current configuration", p,
		    strerror(-rc));
		free(p);
		return rc;
	}
	free(d->conffile);
	d->conffile = p;
	say(LOG_INFO, "configuration reloaded from %s (policy %s, protection period %.3g s)", p,
	    nlfs_gc_policy_name(d->cfg.selection_policy),
	    (double)d->cfg.protection_period / NS_PER_SEC);
	d->step_cap = CLD_NSEGMENTS_PER_CLEAN_MAX;
	d->next_run = mono_ns();
	return 0;
}

/* ------------------------------------------------------------------ */
/* the mounted volume */

/* the volume at mount M (freed here), as open_volume */
static int open_mount(struct cleanerd *d, struct mnt_entry *m)
{
	struct stat st;
	int fd, rc = 0;

	if (!mnt_is_nilfs(m)) {
		rc = -ENOENT;   /* replaced by another file system */
	} else if (!m->rw) {
		rc = 1;
	} else if ((fd = ioc_open(m->mountpoint)) < 0) {
		rc = fd == -EMEDIUMTYPE ? -ENOENT : fd;
	} else if (fstat(fd, &st) || st.st_dev != d->rdev) {
		close(fd);
		rc = -ENOENT;   /* replaced under our feet */
	} else {
		d->iocfd = fd;
		if (!d->mountpoint || strcmp(d->mountpoint, m->mountpoint)) {
			free(d->mountpoint);
			d->mountpoint = strdup(m->mountpoint);
		}
	}
	mnt_free(m);
	return rc;
}

/* 0: open; 1: only mounted read-only (try later); -ENOENT: gone */
static int open_volume(struct cleanerd *d)
{
	struct mnt_entry m;
	int rc = mnt_lookup_dev(NULL, d->rdev, d->dir_arg, &m);

	return rc ? rc : open_mount(d, &m);
}

static void close_volume(struct cleanerd *d)
{
	if (d->iocfd >= 0)
		close(d->iocfd);
	d->iocfd = -1;
}

/* ------------------------------------------------------------------ */
/* the state machine around the passes */

static void iteration(struct cleanerd *d)
{
	struct nilfs_sustat sus;
	struct cld_limits lim;
	struct pass_result res;
	struct params p;
	uint64_t t0 = mono_ns(), rsv, ncl, margin;
	enum level lvl;
	bool retry;
	int rc = open_volume(d);

	if (rc == -ENOENT) {
		say(LOG_NOTICE, "no longer mounted; exiting");
		d->stop = true;
		return;
	}
	if (rc == 1) {
		say(LOG_DEBUG, "mounted read-only; waiting");
		d->next_run = t0 + d->cfg.clean_check_interval;
		return;
	}
	if (rc) {
		say(LOG_ERR, "cannot open the mount point: %s", strerror(-rc));
		d->next_run = t0 + d->cfg.retry_interval;
		return;
	}
	rc = ioc_get_sustat(d->iocfd, &sus);
	if (rc) {
		say(LOG_ERR, "cannot get segment usage (GET_SUSTAT): %s", strerror(-rc));
		d->next_run = t0 + d->cfg.retry_interval;
		goto out;
	}
	d->nsegs = sus.ss_nsegs;
	d->ncleansegs = sus.ss_ncleansegs;
	cld_resolve(&d->cfg, sus.ss_nsegs, d->rd.blocks_per_segment, d->rd.blocksize, &lim);
	rsv = cld_reserved_segments(d, sus.ss_nsegs);
	/* before the pass: it must not reclaim what the timeline keeps, and it
	 * reclaims at once what the timeline gives up (nilfs_cleanerd(8));
	 * the cleaner's minimum as its urgent level counts it */
	cld_timeline(d, t0, lim.min_clean_segments + rsv);
	ncl = sus.ss_ncleansegs;
	/* emergency: within one urgent step of the reserve, but below the
	 * urgent threshold */
	margin = d->cfg.mc_nsegments_per_clean;
	if (margin > lim.min_clean_segments / 2)
		margin = lim.min_clean_segments / 2;
	if (margin < EMERGENCY_MARGIN)
		margin = EMERGENCY_MARGIN;
	lvl = ncl <= rsv + margin ? LVL_EMERGENCY
	      : ncl < lim.min_clean_segments + rsv ? LVL_URGENT : LVL_NORMAL;
	if (lvl != d->level) {
		/* a level reached again within a minute is not news */
		bool again = d->level_logged[lvl] && t0 - d->level_logged[lvl] < 60 * NS_PER_SEC;

		d->level_logged[lvl] = t0;
		say(again ? LOG_DEBUG : lvl == LVL_EMERGENCY ? LOG_WARNING : LOG_NOTICE,
		    "%s: %llu clean segments (reserved %llu, min_clean_segments %llu)",
		    lvl == LVL_EMERGENCY ? "volume nearly full, cleaning as fast as possible"
		    : lvl == LVL_URGENT ? "clean segments low, using the mc_ settings"
		    : "clean segments back to normal", (unsigned long long)ncl,
		    (unsigned long long)rsv, (unsigned long long)lim.min_clean_segments);
		d->level = lvl;
	}
	/* a manual run has its own parameters (manual.c) */
	if (!cld_manual_params(d, sus.ss_nsegs, lvl == LVL_NORMAL ? lim.min_reclaimable_blocks
								  : lim.mc_min_reclaimable_blocks, &p)) {
		if (d->suspended) {
			if (lvl == LVL_EMERGENCY && !d->emerg_suspended_warned) {
				say(LOG_WARNING, "volume nearly full but cleaning is suspended "
				    "(nilfs-clean -r resumes it)");
				d->emerg_suspended_warned = true;
			}
			d->next_run = t0 + d->cfg.clean_check_interval;
			goto out;
		}
		d->emerg_suspended_warned = false;
		if (lim.min_clean_segments > 0 && lvl != LVL_EMERGENCY) {
			if (d->paused && ncl < lim.min_clean_segments + rsv) {
				d->paused = false;
				say(LOG_INFO, "resume: %llu clean segments, fewer than %llu",
				    (unsigned long long)ncl,
				    (unsigned long long)(lim.min_clean_segments + rsv));
			} else if (!d->paused && ncl > lim.max_clean_segments + rsv) {
				d->paused = true;
				say(LOG_INFO, "pause: %llu clean segments, more than %llu",
				    (unsigned long long)ncl,
				    (unsigned long long)(lim.max_clean_segments + rsv));
			}
			if (d->paused) {
				d->last_busy = false;
				d->next_run = t0 + d->cfg.clean_check_interval;
				goto out;
			}
		} else {
			d->paused = false;
		}
		p = (struct params){
			.protection_period = d->cfg.protection_period,
			.policy = d->cfg.selection_policy,
		};
		if (lvl == LVL_NORMAL) {
			p.nsegments = d->cfg.nsegments_per_clean;
			p.interval = d->cfg.cleaning_interval;
			p.min_reclaimable = lim.min_reclaimable_blocks;
		} else {
			p.nsegments = d->cfg.mc_nsegments_per_clean;
			p.interval = d->cfg.mc_cleaning_interval;
			p.min_reclaimable = lim.mc_min_reclaimable_blocks;
		}
	}
	if (lvl == LVL_EMERGENCY) {
		p.emergency = true;
		p.policy = NLFS_GC_GREEDY;
		if (p.nsegments < d->cfg.mc_nsegments_per_clean)
			p.nsegments = d->cfg.mc_nsegments_per_clean;
	}
	if (p.nsegments > d->step_cap)
		p.nsegments = d->step_cap;
	/* the cleaner's own writes need clean segments too */
	if (p.nsegments > ncl)
		p.nsegments = (unsigned)ncl;
	if (p.nsegments == 0) {
		d->next_run = t0 + d->cfg.retry_interval;
		goto out;
	}

	d->st.passes++;
	cld_run_pass(d, &sus, &p, &res);
	d->last_busy = res.cleaned + res.deferred > 0;
	retry = !d->last_busy && !res.error && res.protected_seq &&
		(d->last_sb_write == 0 || t0 - d->last_sb_write > d->cfg.retry_interval);
	cld_manual_account(d, &res, retry);
	if (res.error == -ENOMEM || res.error == -ENOSPC) {
		/* fewer segments at a time, soon; the same again only later */
		if (p.nsegments > 1) {
			d->step_cap = p.nsegments / 2;
			d->next_run = t0 + p.interval;
		} else {
			d->next_run = t0 + d->cfg.retry_interval;
		}
	} else if (res.error) {
		d->next_run = t0 + d->cfg.retry_interval;
	} else if (d->last_busy) {
		d->step_cap = CLD_NSEGMENTS_PER_CLEAN_MAX;
		d->next_run = t0 + p.interval;
	} else if (retry) {
		say(LOG_DEBUG, "segments held for recovery (protseq); asking for a superblock write");
		d->last_sb_write = t0;
		rc = cld_shrink_protected_region(d);
		if (rc)
			say(LOG_NOTICE, "cannot sync the volume to write its superblocks: %s",
			    strerror(-rc));
		d->next_run = t0 + (p.interval < NS_PER_SEC ? p.interval : NS_PER_SEC);
	} else {
		uint64_t wait = d->cfg.clean_check_interval;

		if (res.next_eligible && !res.ncand) {
			uint64_t now = (uint64_t)time(NULL);
			uint64_t until = res.next_eligible > now
				? (res.next_eligible - now) * NS_PER_SEC : NS_PER_SEC;

			if (until > wait)
				wait = until;
		}
		d->next_run = t0 + wait;
	}
out:
	if (cld_timeline_due(d) < d->next_run)
		d->next_run = cld_timeline_due(d);
	close_volume(d);
}

/* ------------------------------------------------------------------ */
/* start-up */

static int setup_rundir(struct cleanerd *d)
{
	const char *dir = cld_rundir();
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char pidbuf[32] = "";
	int fd, rc;

	if (mkdir(dir, 0700) && errno != EEXIST)
		cli_errx("%s: cannot create %s: %s", d->device, dir, strerror(errno));
	if (cld_ctl_path(d->rdev, "lock", d->lockpath, sizeof(d->lockpath)) ||
	    cld_ctl_path(d->rdev, "sock", d->sockpath, sizeof(d->sockpath)))
		cli_errx("%s: run directory path too long: %s", d->device, dir);
	fd = open(d->lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		cli_errx("%s: cannot open %s: %s", d->device, d->lockpath, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ssize_t n = pread(fd, pidbuf, sizeof(pidbuf) - 1, 0);

		if (n > 0)
			pidbuf[strcspn(pidbuf, "\n")] = '\0';
		cli_errx("%s: another nilfs_cleanerd%s%s is already cleaning this volume (lock %s)",
		    d->device, *pidbuf ? ", pid " : "", pidbuf, d->lockpath);
	}
	d->lockfd = fd;
	d->sockfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (d->sockfd < 0)
		cli_errx("%s: socket: %s", d->device, strerror(errno));
	memcpy(sa.sun_path, d->sockpath, sizeof(sa.sun_path));
	unlink(d->sockpath);   /* a stale one: we hold the lock */
	rc = bind(d->sockfd, (struct sockaddr *)&sa, sizeof(sa));
	if (rc || chmod(d->sockpath, 0600) || listen(d->sockfd, 4))
		cli_errx("%s: cannot listen on %s: %s", d->device, d->sockpath, strerror(errno));
	return 0;
}

static void write_pid(struct cleanerd *d)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());

	if (ftruncate(d->lockfd, 0) == 0 && pwrite(d->lockfd, buf, (size_t)n, 0) != n)
		say(LOG_WARNING, "cannot write the pid to %s", d->lockpath);
}

static void daemonize(void)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0)
		cli_errx("fork: %s", strerror(errno));
	if (pid > 0) {
		int status;

		waitpid(pid, &status, 0);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_FAILURE);
	}
	if (setsid() < 0)
		_exit(EXIT_FAILURE);
	pid = fork();
	if (pid < 0)
		_exit(EXIT_FAILURE);
	if (pid > 0)
		_exit(EXIT_SUCCESS);
	if (chdir("/"))
		_exit(EXIT_FAILURE);
	/* the mount helpers (ours and nilfs-tools') read the detached pid here */
	printf("NILFS_CLEANERD_PID=%ld\n", (long)getpid());
	fflush(stdout);
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
}

/* the kernel's OOM killer spares the daemon that keeps the volume writable */
static void spare_from_oom_killer(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, "-1000\n", 6) != 6)
		say(LOG_WARNING, "cannot lower the OOM score (/proc/self/oom_score_adj): %s",
		    strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void usage(FILE *f)
{
	fputs(CLI_USAGE_HEADER
	      " " PROG " [options] <device> [<mountpoint>]\n"
	      "\nReclaim the space of the mounted NILFS2 volume on <device>.\n"
	      CLI_USAGE_OPTIONS
	      " -c, --conf=FILE                configuration file (default " DEFAULT_CONF ")\n"
	      "                                (--conffile=FILE as well)\n"
	      " -p, --protection-period=PERIOD protect checkpoints younger than PERIOD\n"
	      "                                (seconds, or a number and s, m, h, d, w, M, Y)\n"
	      " -n, --no-daemon, --nofork      stay in the foreground\n"
	      "     --offline                  clean the unmounted <device> (or image file)\n"
	      "                                once, up to max_clean_segments, and exit\n"
	      "     --write-damaged, --force   with --offline: even a volume that needs\n"
	      "                                fsck.nilfs2 first\n"
	      "     --stderr                   log to standard error as well\n", f);
	cli_usage_tail(f, 32);
}

enum { OPT_STDERR = CHAR_MAX + 1, OPT_OFFLINE, OPT_WRITE_DAMAGED };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "conf", required_argument, NULL, 'c' },
		{ "conffile", required_argument, NULL, 'c' },   /* nilfs-tools' spelling */
		{ "protection-period", required_argument, NULL, 'p' },
		{ "no-daemon", no_argument, NULL, 'n' },
		{ "nofork", no_argument, NULL, 'n' },
		{ "stderr", no_argument, NULL, OPT_STDERR },
		{ "offline", no_argument, NULL, OPT_OFFLINE },
		{ "write-damaged", no_argument, NULL, OPT_WRITE_DAMAGED },
		{ "force", no_argument, NULL, OPT_WRITE_DAMAGED },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct cleanerd d = { .iocfd = -1, .lockfd = -1, .sockfd = -1, .sigfd = -1,
			      .startup = true, .step_cap = CLD_NSEGMENTS_PER_CLEAN_MAX };
	bool foreground = false, offline = false, write_damaged = false;
	const char *dev;
	char msg[3 * PATH_MAX];
	struct mnt_entry m;
	struct stat st;
	sigset_t mask;
	uint64_t secs;
	int c, rc;

	cli_init(argv[0]);
	for (int i = 0; i < MAX_CLIENTS; i++)
		d.clients[i] = -1;
	while ((c = getopt_long(argc, argv, "c:hnp:V", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			d.conffile = strdup(optarg);
			d.conf_explicit = true;
			break;
		case 'p':
			rc = cli_strtoperiod(optarg, &secs);
			if (rc || secs > UINT64_MAX / NS_PER_SEC)
				cli_usage_error("invalid protection period: %s", optarg);
			d.pp_override = true;
			d.pp_override_ns = secs * NS_PER_SEC;
			break;
		case 'n': foreground = true; break;
		case OPT_STDERR: d.log_stderr = true; break;
		case OPT_OFFLINE: offline = true; break;
		case OPT_WRITE_DAMAGED: write_damaged = true; break;
		case 'h': usage(stdout); return EXIT_SUCCESS;
		case 'V': cli_print_version(); return EXIT_SUCCESS;
		default: cli_bad_option(argv);
		}
	}
	if (write_damaged && !offline)
		cli_usage_error("--write-damaged (--force) goes with --offline");
	if (argc - optind < 1)
		cli_usage_error("no device given");
	if (argc - optind > 2)
		cli_usage_error("too many arguments");
	if (!d.conffile)
		d.conffile = strdup(DEFAULT_CONF);
	dev = dev_resolve(argv[optind]);
	if (!dev)
		return EXIT_FAILURE;
	d.device = realpath(dev, NULL);
	if (!d.device)
		cli_errx("%s: %s", dev, strerror(errno));
	if (offline) {
		/* one run through the library's writer on the unmounted volume */
		d.log_stderr = true;
		cld_log_device(d.device);
		openlog(PROG, LOG_PERROR, LOG_DAEMON);
		/* a run at a terminal: the built-in defaults standing in for a
		 * missing default file are no news (a daemon's log says it) */
		setlogmask(LOG_UPTO(LOG_WARNING));
		if (load_config(&d, d.conffile, d.conf_explicit))
			cli_errx("%s: %s", d.conffile, strerror(errno));
		return cleanerd_offline_conf(d.device, &d.cfg, write_damaged, stdout, stderr) ?
			       EXIT_FAILURE : EXIT_SUCCESS;
	}
	if (argc - optind == 2)
		d.dir_arg = argv[optind + 1];
	/* the one lookup: whatever DEV names mounted as another file system
	 * is refused, else it is the volume's mount (the offline run's is
	 * conf_params') */
	rc = mnt_find_nilfs_at(dev, d.dir_arg, &m, msg, sizeof(msg));
	if (rc == -EMEDIUMTYPE)
		cli_errx("%s: %s; nothing done", dev, msg);
	if (stat(d.device, &st))
		cli_errx("%s: %s", d.device, strerror(errno));
	if (!S_ISBLK(st.st_mode))
		cli_errx("%s: not a block device", d.device);
	d.rdev = st.st_rdev;
	cld_log_device(d.device);

	openlog(PROG, LOG_PID | (d.log_stderr ? LOG_PERROR : 0), LOG_DAEMON);
	if (rc == -ENOENT)
		cli_errx("%s: not mounted%s%s", d.device, d.dir_arg ? " on " : "",
			 d.dir_arg ? d.dir_arg : "");
	if (rc)
		cli_errx("%s: cannot read the mount table: %s", d.device, strerror(-rc));
	if (!m.rw)
		cli_errx("%s: mounted read-only on %s", d.device, m.mountpoint);
	d.mountpoint = strdup(m.mountpoint);
	rc = cld_reader_open(&d.rd, d.device);
	if (rc)
		cli_errx("%s: cannot read the superblock: %s", d.device,
		    nlfs_strerror(rc));
	d.r_pct = d.rd.r_segments_percentage;
	rc = open_mount(&d, &m);
	if (rc)
		cli_errx("%s: cannot open the mount point %s: %s", d.device, d.mountpoint,
		    rc == 1 ? "mounted read-only" : strerror(-rc));
	close_volume(&d);
	rc = load_config(&d, d.conffile, d.conf_explicit);
	if (rc)
		cli_errx("%s: %s", d.conffile, strerror(-rc));
	setup_rundir(&d);

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!foreground)
		daemonize();
	d.startup = false;
	d.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (d.sigfd < 0) {
		say(LOG_ERR, "signalfd: %s", strerror(errno));
		return EXIT_FAILURE;
	}
	write_pid(&d);
	spare_from_oom_killer();
	say(LOG_INFO, "start on %s (policy %s, protection period %.3g s, config %s)",
	    d.mountpoint, nlfs_gc_policy_name(d.cfg.selection_policy),
	    (double)d.cfg.protection_period / NS_PER_SEC, d.conffile);
	d.next_run = mono_ns();

	while (!d.stop) {
		struct pollfd pfd[2 + MAX_CLIENTS];
		uint64_t now = mono_ns();
		int nfd = 0, timeout;

		if (now >= d.next_run) {
			iteration(&d);
			if (d.stop)
				break;
			now = mono_ns();
		}
		timeout = d.next_run > now ? (int)((d.next_run - now + 999999) / 1000000) : 0;
		if (d.next_run > now && d.next_run - now > (uint64_t)INT_MAX * 1000000)
			timeout = INT_MAX;
		pfd[nfd++] = (struct pollfd){ .fd = d.sigfd, .events = POLLIN };
		pfd[nfd++] = (struct pollfd){ .fd = d.sockfd, .events = POLLIN };
		for (int i = 0; i < MAX_CLIENTS; i++)
			pfd[nfd++] = (struct pollfd){ .fd = d.clients[i], .events = POLLIN };
		rc = poll(pfd, (nfds_t)nfd, timeout);
		if (rc < 0 && errno != EINTR) {
			say(LOG_ERR, "poll: %s", strerror(errno));
			break;
		}
		if (rc <= 0)
			continue;
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(d.sigfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP) {
					say(LOG_INFO, "SIGHUP: reloading %s", d.conffile);
					cld_reload_config(&d, NULL);
				} else {
					say(LOG_INFO, "%s: stopping", strsignal((int)si.ssi_signo));
					d.stop = true;
				}
			}
		}
		if (pfd[1].revents & POLLIN)
			cld_accept_client(&d);
		for (int i = 0; i < MAX_CLIENTS; i++)
			if (d.clients[i] >= 0 && (pfd[2 + i].revents & (POLLIN | POLLHUP | POLLERR)))
				cld_serve_client(&d, i);
	}

	say(LOG_INFO, "shutdown: %" PRIu64 " passes, %" PRIu64 " segments cleaned, %" PRIu64
	    " deferred, %" PRIu64 " blocks moved, %" PRIu64 " virtual blocks freed", d.st.passes,
	    d.st.cleaned, d.st.deferred, d.st.moved, d.st.freed);
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (d.clients[i] >= 0)
			close(d.clients[i]);
	unlink(d.sockpath);
	unlink(d.lockpath);
	close(d.sockfd);
	close(d.lockfd);
	cld_reader_close(&d.rd);
	cld_descs_free(&d.descs);
	cld_plan_free(&d.tmp);
	cld_plan_free(&d.plan);
	free(d.vinfo.vi);
	free(d.snapshots);
	free(d.seg);
	free(d.mountpoint);
	free(d.conffile);
	free(d.device);
	closelog();
	return EXIT_SUCCESS;
}
