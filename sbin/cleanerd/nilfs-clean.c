/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nilfs-clean: control the nilfs_cleanerd of a mounted NILFS2 volume: run
 * one cleaning pass now (the default), stop it, suspend or resume the
 * daemon, reload its configuration, show its status, shut it down.
 * Options follow nilfs-utils' nilfs-clean.  With --offline the pass runs
 * here, on an unmounted device or image file, through the library.
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
#include <time.h>
#include <unistd.h>

#include "closestream.h"
#include "cldconfig.h"
#include "ctl.h"
#include "devtag.h"
#include "mounts.h"
#include "offline.h"
#include "cli.h"

#define PROG "nilfs-clean"

enum cmd { CMD_RUN, CMD_STATUS, CMD_SUSPEND, CMD_RESUME, CMD_RELOAD, CMD_STOP, CMD_SHUTDOWN };

struct opts {
	enum cmd cmd;
	const char *target;
	const char *conffile;
	bool verbose, wait, offline, write_damaged;
	bool have_pp, have_speed, have_minrec;
	uint64_t pp;           /* seconds */
	unsigned nsegments;
	uint64_t interval;     /* ns */
	char minrec[32];
};

static void usage(FILE *f)
{
	fputs(CLI_USAGE_HEADER
		" " PROG " [options] [<device>|<mountpoint>]\n"
		" " PROG " --offline [-p PERIOD] [-m N[%]] <device>|<image>\n"
		"\nRun a cleaning pass on a mounted NILFS2 volume, or control its cleaner;\n"
		"with --offline, clean an unmounted volume here.\n"
		CLI_USAGE_OPTIONS
		" -b, --break, --stop             stop the running pass\n"
		" -c, --reload[=FILE]             make the daemon reload its (or this) configuration\n"
		" -l, --status                    show the cleaner's status\n"
		"     --offline                   one pass on the unmounted DEVICE or IMAGE, here\n"
		"     --write-damaged, --force    with --offline: even a volume that needs\n"
		"                                 fsck.nilfs2 first\n"
		" -m, --min-reclaimable-blocks=N[%]\n"
		"                                 for this pass: clean a segment only with at least\n"
		"                                 N reclaimable blocks (needs use_set_suinfo)\n"
		" -p, --protection-period=PERIOD  for this pass: protect checkpoints younger than\n"
		"                                 PERIOD (seconds, or a number and s m h d w M Y)\n"
		" -q, --quit                      shut the daemon down\n"
		" -r, --resume                    resume cleaning\n"
		" -s, --suspend                   suspend cleaning until resumed\n"
		" -S, --speed=COUNT[/SECONDS]     for this pass: COUNT segments per SECONDS (default 1)\n"
		"     --wait                      wait until the pass has finished\n"
		" -v, --verbose                   verbose\n", f);
	cli_usage_tail(f, 33);
}

static void parse_speed(struct opts *o, const char *arg)
{
	char buf[64], *slash;
	uint64_t n;
	struct cld_size s;

	if (strlen(arg) >= sizeof(buf))
		cli_errx("invalid speed: %s", arg);
	strcpy(buf, arg);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (cld_parse_size(buf, &s) || s.unit != CLD_UNIT_COUNT)
		cli_errx("invalid speed: %s", arg);
	n = s.num;
	if (n == 0 || n > CLD_NSEGMENTS_PER_CLEAN_MAX)
		cli_errx("invalid speed: %s: 1 to %u segments per step", arg, CLD_NSEGMENTS_PER_CLEAN_MAX);
	o->nsegments = (unsigned)n;
	o->interval = NS_PER_SEC;
	if (slash && cld_parse_time(slash + 1, &o->interval))
		cli_errx("invalid speed: %s", arg);
	o->have_speed = true;
}

static void parse_minrec(struct opts *o, const char *arg)
{
	struct cld_size s;

	if (cld_parse_size(arg, &s) || s.unit == CLD_UNIT_BYTES)
		cli_errx("invalid number of reclaimable blocks: %s", arg);
	snprintf(o->minrec, sizeof(o->minrec), "%s", arg);
	o->have_minrec = true;
}

/* the device number of the volume and a name for messages */
static dev_t find_volume(const char *target, char *name, size_t len)
{
	struct mnt_entry m, *all;
	size_t n, i;
	dev_t dev;
	int rc;

	if (!target) {
		rc = mnt_list(NULL, "nilfs2", &all, &n);
		if (rc)
			cli_errx("cannot read the mount table: %s", strerror(-rc));
		for (i = 0; i < n && !all[i].rw; i++)
			;
		if (i == n) {
			mnt_list_free(all, n);
			cli_errx("no NILFS2 volume is mounted read-write");
		}
		snprintf(name, len, "%s", all[i].source);
		dev = all[i].dev;
		mnt_list_free(all, n);
		return dev;
	}
	snprintf(name, len, "%s", target);
	rc = cmd_mount_of(target, &m);
	if (rc == -ENOENT)
		cli_errx("%s: not a mounted NILFS2 volume", target);
	if (rc)
		cli_errx("%s: %s", target, strerror(-rc));
	dev = m.dev;
	mnt_free(&m);
	return dev;
}

static void call(int fd, const char *name, const char *req, char *reply, size_t len)
{
	char msg[256];
	uint64_t err;
	int rc = cld_ctl_call(fd, req, reply, len, 30000);

	if (rc)
		cli_errx("%s: no reply from nilfs_cleanerd: %s", name, strerror(-rc));
	if (cld_msg_is(reply, "ok"))
		return;
	if (!cld_msg_get(reply, "msg", msg, sizeof(msg)))
		snprintf(msg, sizeof(msg), "%s", reply);
	if (cld_msg_get_u64(reply, "errno", &err) == 0 && err == EPERM)
		cli_errx("%s: %s (only root may control the cleaner)", name, msg);
	cli_errx("%s: nilfs_cleanerd refused '%s': %s", name, req, msg);
}

static void print_status(const char *reply, bool verbose)
{
	static const char *const fields[][2] = {
		{ "pid", "pid" }, { "device", "device" }, { "mountpoint", "mount point" },
		{ "policy", "selection policy" }, { "level", "pressure" },
		{ "nsegments", "segments" }, { "ncleansegs", "clean segments" },
		{ "passes", "passes" }, { "cleaned", "segments cleaned" },
		{ "deferred", "segments deferred" }, { "moved", "blocks moved" },
		{ "moved_dat", "DAT blocks moved" }, { "freed", "virtual blocks freed" },
		{ "periods", "checkpoint ranges deleted" },
		{ "protected", "segments held for recovery" }, { "errors", "errors" },
	};
	char v[PATH_MAX];

	if (cld_msg_get(reply, "state", v, sizeof(v)))
		puts(v);
	if (!verbose)
		return;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (cld_msg_get(reply, fields[i][0], v, sizeof(v)))
			printf("%s: %s\n", fields[i][1], v);
}

static void report_conf(void *arg, const char *file, unsigned line, const char *msg)
{
	(void)arg;
	cli_warnx("%s:%u: %s", file, line, msg);
}

/* --offline: the pass, with the configuration file's policy and the
 * options' protection period and threshold */
static int run_offline(const struct opts *o)
{
	struct cld_config c;
	struct cld_size minrec;
	int rc;

	if (o->cmd != CMD_RUN || o->have_speed)
		cli_errx("--offline runs a cleaning pass only: -b, -c, -l, -q, -r, -s and -S need a "
		    "nilfs_cleanerd");
	if (!o->target)
		cli_errx("--offline needs the device or image file to clean");
	cld_defaults(&c);
	rc = cld_parse_file(&c, DEFAULT_CONF, report_conf, NULL);
	if (rc < 0 && rc != -ENOENT)
		cli_errx("%s: %s", DEFAULT_CONF, strerror(-rc));
	if (o->have_pp) {
		if (o->pp > UINT64_MAX / NS_PER_SEC)
			cli_errx("too large protection period: %" PRIu64, o->pp);
		c.protection_period = o->pp * NS_PER_SEC;
	}
	if (o->have_minrec && cld_parse_size(o->minrec, &minrec))
		cli_errx("invalid number of reclaimable blocks: %s", o->minrec);
	return cleanerd_offline_manual(o->target, &c, o->have_minrec ? &minrec : NULL,
				       o->write_damaged, stdout, stderr) ? EXIT_FAILURE
									  : EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	enum { OPT_WAIT = CHAR_MAX + 1, OPT_OFFLINE, OPT_WRITE_DAMAGED };
	static const struct option longopts[] = {
		{ "break", no_argument, NULL, 'b' },
		{ "stop", no_argument, NULL, 'b' },
		{ "reload", optional_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "status", no_argument, NULL, 'l' },
		{ "min-reclaimable-blocks", required_argument, NULL, 'm' },
		{ "offline", no_argument, NULL, OPT_OFFLINE },
		{ "protection-period", required_argument, NULL, 'p' },
		{ "quit", no_argument, NULL, 'q' },
		{ "resume", no_argument, NULL, 'r' },
		{ "suspend", no_argument, NULL, 's' },
		{ "speed", required_argument, NULL, 'S' },
		{ "wait", no_argument, NULL, OPT_WAIT },
		{ "write-damaged", no_argument, NULL, OPT_WRITE_DAMAGED },
		{ "force", no_argument, NULL, OPT_WRITE_DAMAGED },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .cmd = CMD_RUN };
	char name[PATH_MAX], req[CLD_MSG_MAX], reply[CLD_MSG_MAX];
	dev_t dev;
	int c, fd, rc;

	cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "bc::hlm:p:qrsS:vV", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o.cmd = CMD_STOP; break;
		case 'c':
			o.cmd = CMD_RELOAD;
			o.conffile = optarg;
			break;
		case 'h': usage(stdout); return EXIT_SUCCESS;
		case 'l': o.cmd = CMD_STATUS; break;
		case 'm': parse_minrec(&o, optarg); break;
		case 'p':
			rc = cli_strtoperiod(optarg, &o.pp);
			if (rc)
				cli_usage_error("%s protection period: %s", rc == -ERANGE ? "too large" : "invalid",
				    optarg);
			o.have_pp = true;
			break;
		case 'q': o.cmd = CMD_SHUTDOWN; break;
		case 'r': o.cmd = CMD_RESUME; break;
		case 's': o.cmd = CMD_SUSPEND; break;
		case 'S': parse_speed(&o, optarg); break;
		case OPT_WAIT: o.wait = true; break;
		case OPT_OFFLINE: o.offline = true; break;
		case OPT_WRITE_DAMAGED: o.write_damaged = true; break;
		case 'v': o.verbose = true; break;
		case 'V': cli_print_version(); return EXIT_SUCCESS;
		default: cli_bad_option(argv);
		}
	}
	if (argc - optind > 1)
		cli_usage_error("too many arguments");
	o.target = optind < argc ? dev_resolve(argv[optind]) : NULL;
	if (optind < argc && !o.target)
		return EXIT_FAILURE;
	if (o.write_damaged && !o.offline)
		cli_usage_error("--write-damaged (--force) goes with --offline");
	if (o.offline)
		return run_offline(&o);   /* a failed write to stdout: close_stdout_at_exit */
	dev = find_volume(o.target, name, sizeof(name));
	rc = cld_ctl_connect(dev, &fd);
	if (rc) {
		char path[PATH_MAX];

		cld_ctl_path(dev, "sock", path, sizeof(path));
		if (rc == -ENOENT || rc == -ECONNREFUSED)
			cli_errx("%s: no nilfs_cleanerd is running for this volume (%s)", name, path);
		cli_errx("%s: cannot connect to nilfs_cleanerd (%s): %s", name, path, strerror(-rc));
	}

	switch (o.cmd) {
	case CMD_STATUS:
		call(fd, name, "status", reply, sizeof(reply));
		print_status(reply, o.verbose);
		break;
	case CMD_SUSPEND:
		call(fd, name, "suspend", reply, sizeof(reply));
		break;
	case CMD_RESUME:
		call(fd, name, "resume", reply, sizeof(reply));
		break;
	case CMD_STOP:
		call(fd, name, "stop", reply, sizeof(reply));
		break;
	case CMD_SHUTDOWN:
		call(fd, name, "shutdown", reply, sizeof(reply));
		break;
	case CMD_RELOAD: {
		char *abs = NULL;

		snprintf(req, sizeof(req), "reload");
		if (o.conffile) {
			abs = realpath(o.conffile, NULL);
			if (!abs)
				cli_errx("%s: %s", o.conffile, strerror(errno));
			if (cld_msg_add(req, sizeof(req), "conf", abs))
				cli_errx("%s: path too long", o.conffile);
		}
		free(abs);
		call(fd, name, req, reply, sizeof(reply));
		break;
	}
	case CMD_RUN: {
		uint64_t job = 0, done;

		snprintf(req, sizeof(req), "run");
		if (o.have_pp)
			cld_msg_addf(req, sizeof(req), "protection_period", "%" PRIu64, o.pp);
		if (o.have_speed) {
			cld_msg_addf(req, sizeof(req), "nsegments", "%u", o.nsegments);
			cld_msg_addf(req, sizeof(req), "interval_ns", "%" PRIu64, o.interval);
		}
		if (o.have_minrec)
			cld_msg_add(req, sizeof(req), "min_reclaimable", o.minrec);
		call(fd, name, req, reply, sizeof(reply));
		cld_msg_get_u64(reply, "job", &job);
		if (o.verbose)
			printf("%s: cleaning pass %" PRIu64 " started\n", name, job);
		if (!o.wait)
			break;
		for (;;) {
			struct timespec ts = { 0, 200000000 };

			call(fd, name, "status", reply, sizeof(reply));
			if (cld_msg_get_u64(reply, "done", &done) == 0 && done >= job)
				break;
			nanosleep(&ts, NULL);
		}
		if (o.verbose) {
			printf("%s: cleaning pass %" PRIu64 " finished\n", name, job);
			print_status(reply, true);
		}
		break;
	}
	}
	close(fd);
	if (fflush(stdout) || ferror(stdout))
		cli_errx("write error on standard output");
	return EXIT_SUCCESS;
}
