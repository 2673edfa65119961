/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mount.nilfs2's pieces that need no mount: the userspace options taken out
 * of -o and the utab attributes (nilfs-tools' names and forms), and the
 * command line walked with options after the positional arguments. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "../../sbin/mount/args.h"
#include "../../sbin/mount/attrs.h"
#include "../../sbin/mount/cleaner.h"

static int split(const char *opts, enum attrs_source from, struct nilfs_attrs *a, char **rest,
		 char *bad)
{
	memset(a, 0, sizeof(*a));
	return attrs_split(opts, from, a, rest, bad, 64);
}

START_TEST(test_split_user_options)
{
	struct nilfs_attrs a;
	char bad[64], *rest;

	ck_assert_int_eq(split("noatime,pp=600,nogc,cp=3,ro", ATTRS_FROM_USER, &a, &rest, bad), 0);
	ck_assert_str_eq(rest, "noatime,cp=3,ro");
	ck_assert(a.have_pp);
	ck_assert_uint_eq(a.pp, 600);
	ck_assert(a.nogc);
	ck_assert_int_eq(a.gcpid, 0);
	free(rest);

	/* only userspace options: nothing left for the kernel */
	ck_assert_int_eq(split("pp=0", ATTRS_FROM_USER, &a, &rest, bad), 0);
	ck_assert_ptr_null(rest);
	ck_assert(a.have_pp);
	ck_assert_uint_eq(a.pp, 0);

	/* a quoted value passes through whole; names are matched whole */
	ck_assert_int_eq(split("context=\"a,b\",ppx=1,nogcx", ATTRS_FROM_USER, &a, &rest, bad), 0);
	ck_assert_str_eq(rest, "context=\"a,b\",ppx=1,nogcx");
	ck_assert(!a.have_pp && !a.nogc);
	free(rest);

	ck_assert_int_eq(split("", ATTRS_FROM_USER, &a, &rest, bad), 0);
	ck_assert_ptr_null(rest);
}
END_TEST

START_TEST(test_split_refuses)
{
	static const char *const bad_opts[] = {
		"pp=", "pp", "pp=1h", "pp=-1", "pp=18446744074", "nogc=1", "gcpid=12", "none",
	};
	struct nilfs_attrs a;
	char bad[64], *rest;

	for (size_t i = 0; i < sizeof(bad_opts) / sizeof(bad_opts[0]); i++) {
		char opts[64];

		snprintf(opts, sizeof(opts), "noatime,%s,ro", bad_opts[i]);
		ck_assert_msg(split(opts, ATTRS_FROM_USER, &a, &rest, bad) == -EINVAL, "%s", opts);
		ck_assert_ptr_null(rest);
		ck_assert_str_eq(bad, bad_opts[i]);
	}
	/* the largest period nilfs_cleanerd -p takes */
	ck_assert_int_eq(split("pp=18446744073", ATTRS_FROM_USER, &a, &rest, bad), 0);
	ck_assert_uint_eq(a.pp, ATTR_PP_MAX);
}
END_TEST

START_TEST(test_utab_attrs)
{
	struct nilfs_attrs a;
	char bad[64], *rest;

	/* as nilfs-tools' mount.nilfs2 records them */
	ck_assert_int_eq(split("gcpid=4242,pp=60", ATTRS_FROM_UTAB, &a, &rest, bad), 0);
	ck_assert_ptr_null(rest);
	ck_assert_int_eq(a.gcpid, 4242);
	ck_assert(a.have_pp);
	ck_assert_uint_eq(a.pp, 60);
	ck_assert_int_eq(split("none", ATTRS_FROM_UTAB, &a, &rest, bad), 0);
	ck_assert(!a.gcpid && !a.have_pp && !a.nogc);
	ck_assert_int_eq(split("gcpid=x", ATTRS_FROM_UTAB, &a, &rest, bad), -EINVAL);
	ck_assert_str_eq(bad, "gcpid=x");
}
END_TEST

START_TEST(test_format)
{
	struct nilfs_attrs a = { .gcpid = 77, .have_pp = true, .pp = 30 };
	char buf[64], small[8];

	ck_assert_int_eq(attrs_format(&a, buf, sizeof(buf)), 14);
	ck_assert_str_eq(buf, "gcpid=77,pp=30");
	ck_assert_int_eq(attrs_format(&a, small, sizeof(small)), -ENOSPC);
	a.have_pp = false;
	attrs_format(&a, buf, sizeof(buf));
	ck_assert_str_eq(buf, "gcpid=77");
	a = (struct nilfs_attrs){ .have_pp = true, .pp = 5 };
	attrs_format(&a, buf, sizeof(buf));
	ck_assert_str_eq(buf, "pp=5");
	a = (struct nilfs_attrs){ .nogc = true, .have_pp = true, .pp = 5 };
	attrs_format(&a, buf, sizeof(buf));
	ck_assert_str_eq(buf, "nogc");
	a = (struct nilfs_attrs){ 0 };
	attrs_format(&a, buf, sizeof(buf));
	ck_assert_str_eq(buf, "none");

	/* what we write reads back */
	{
		struct nilfs_attrs b, c = { .gcpid = 9, .have_pp = true, .pp = 3600 };
		char bad[64], *rest;

		attrs_format(&c, buf, sizeof(buf));
		ck_assert_int_eq(split(buf, ATTRS_FROM_UTAB, &b, &rest, bad), 0);
		ck_assert(b.gcpid == 9 && b.have_pp && b.pp == 3600 && !b.nogc);
	}
}
END_TEST

struct seen {
	char log[256];
};

static int record_opt(void *ctx, int c, const char *arg)
{
	struct seen *s = ctx;
	size_t n = strlen(s->log);

	snprintf(s->log + n, sizeof(s->log) - n, "%c%s%s;", c, arg ? "=" : "", arg ? arg : "");
	return c == 'x' ? 42 : 0;
}

static int walk(struct seen *s, char **pos, size_t *npos, const char **bad, int argc, ...)
{
	char *argv[16];
	va_list ap;

	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	memset(s, 0, sizeof(*s));
	return args_walk(argc, argv, "fno:rt:vx", record_opt, s, pos, 2, npos, bad);
}

START_TEST(test_args_after_positionals)
{
	struct seen s;
	char *pos[2];
	const char *bad = NULL;
	size_t n;

	/* mount(8)'s order: SOURCE DIR -o OPTS */
	ck_assert_int_eq(walk(&s, pos, &n, &bad, 5, "mount.nilfs2", "/dev/vda", "/mnt", "-o",
			      "rw,pp=5"), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(pos[0], "/dev/vda");
	ck_assert_str_eq(pos[1], "/mnt");
	ck_assert_str_eq(s.log, "o=rw,pp=5;");
	/* before, between, glued, clustered */
	ck_assert_int_eq(walk(&s, pos, &n, &bad, 7, "m", "-vn", "/dev/vda", "-onogc", "/mnt",
			      "-ft", "nilfs2"), 0);
	ck_assert_str_eq(s.log, "v;n;o=nogc;f;t=nilfs2;");
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(pos[1], "/mnt");
	/* "--" ends the options, "-" is an argument */
	ck_assert_int_eq(walk(&s, pos, &n, &bad, 4, "m", "--", "-v", "-"), 0);
	ck_assert_str_eq(s.log, "");
	ck_assert_str_eq(pos[0], "-v");
	ck_assert_str_eq(pos[1], "-");
	/* --help and --version */
	ck_assert_int_eq(walk(&s, pos, &n, &bad, 3, "m", "--version", "--help"), 0);
	ck_assert_str_eq(s.log, "V;h;");
}
END_TEST

START_TEST(test_args_errors)
{
	struct seen s;
	char *pos[2];
	const char *bad = NULL;
	size_t n;

	ck_assert_int_eq(walk(&s, pos, &n, &bad, 3, "m", "a", "-q"), ARGS_ERR_UNKNOWN);
	ck_assert_str_eq(bad, "-q");
	ck_assert_int_eq(walk(&s, pos, &n, &bad, 3, "m", "a", "--nope"), ARGS_ERR_UNKNOWN);
	ck_assert_int_eq(walk(&s, pos, &n, &bad, 3, "m", "a", "-o"), ARGS_ERR_MISSING);
	ck_assert_str_eq(bad, "-o");
	ck_assert_int_eq(walk(&s, pos, &n, &bad, 4, "m", "a", "b", "c"), ARGS_ERR_TOO_MANY);
	ck_assert_str_eq(bad, "c");
	/* the callback stops the walk with its value */
	ck_assert_int_eq(walk(&s, pos, &n, &bad, 4, "m", "-x", "-v", "a"), 42);
	ck_assert_str_eq(s.log, "x;");
}
END_TEST

/* a child that calls itself NAME and waits for a signal */
static pid_t child_named(const char *name)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_NAME, name, 0, 0, 0);
		/* not Check's handler, which signals the whole process group */
		signal(SIGTERM, SIG_DFL);
		for (;;)
			pause();
	}
	/* until the child has its name */
	for (int i = 0; i < 200; i++) {
		char path[64], comm[32] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = 0;
			fclose(f);
		}
		if (!strncmp(comm, name, strlen(name)))
			break;
		usleep(5000);
	}
	return pid;
}

START_TEST(test_stop)
{
	pid_t cleaner = child_named(CLEANERD_NAME);
	pid_t other = child_named("not_a_cleaner");
	int status;

	ck_assert(cleaner_running(cleaner));
	ck_assert(!cleaner_running(other));
	ck_assert(!cleaner_running(0));
	/* a pid some other program holds now is left alone */
	ck_assert_int_eq(cleaner_stop("/dev/x", other, false), 0);
	ck_assert_int_eq(waitpid(other, &status, WNOHANG), 0);
	/* SIGTERM, and the stop waits until it is gone (a zombie counts) */
	ck_assert_int_eq(cleaner_stop("/dev/x", cleaner, false), 0);
	ck_assert(!cleaner_running(cleaner));
	ck_assert_int_eq(waitpid(cleaner, &status, 0), cleaner);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	/* gone: nothing to do */
	ck_assert_int_eq(cleaner_stop("/dev/x", cleaner, false), 0);
	kill(other, SIGKILL);
	waitpid(other, &status, 0);
}
END_TEST

/* cleaner_start runs the nilfs_cleanerd beside the running program: a
 * script there stands in for it.  It is made there before cleaner_path
 * is asked, which otherwise names the one in $(sbindir): the test must
 * never write into the installed (or the distcheck) sbin. */
static void fake_daemon_path(char *buf, size_t bufsz)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	slash = strrchr(self, '/');
	ck_assert_ptr_nonnull(slash);
	*slash = '\0';
	ck_assert_int_lt(snprintf(buf, bufsz, "%s/%s", self, CLEANERD_NAME), (int)bufsz);
}

static void fake_daemon(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	ck_assert_int_eq(chmod(path, 0755), 0);
}

START_TEST(test_start)
{
	char path[PATH_MAX], args[PATH_MAX + 8], line[256] = "", body[PATH_MAX + 128];
	struct nilfs_attrs a = { .have_pp = true, .pp = 42 };
	FILE *f;
	pid_t pid;

	char found[PATH_MAX];

	fake_daemon_path(path, sizeof(path));
	snprintf(args, sizeof(args), "%s.args", path);
	/* the detached daemon's line on stdout, after other output */
	snprintf(body, sizeof(body), "echo \"$*\" >'%s'\necho hello\necho NILFS_CLEANERD_PID=4242\n"
		 "exit 0", args);
	fake_daemon(path, body);
	cleaner_path(found, sizeof(found));
	ck_assert_str_eq(found, path);
	ck_assert_int_eq(cleaner_start("/dev/x", "/mnt/y", &a, &pid), 0);
	ck_assert_int_eq(pid, 4242);
	f = fopen(args, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	fclose(f);
	ck_assert_str_eq(line, "-p 42 /dev/x /mnt/y\n");
	/* no pp=: no -p */
	a.have_pp = false;
	ck_assert_int_eq(cleaner_start("/dev/x", "/mnt/y", &a, &pid), 0);
	f = fopen(args, "r");
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	fclose(f);
	ck_assert_str_eq(line, "/dev/x /mnt/y\n");
	/* refused (another daemon, not mounted ...): its exit status */
	fake_daemon(path, "echo refused >&2; exit 1");
	ck_assert_int_eq(cleaner_start("/dev/x", "/mnt/y", &a, &pid), -ECHILD);
	ck_assert_int_eq(pid, 0);
	/* started, but no pid line (an old daemon) */
	fake_daemon(path, "exit 0");
	ck_assert_int_eq(cleaner_start("/dev/x", "/mnt/y", &a, &pid), 0);
	ck_assert_int_eq(pid, 0);
	unlink(args);
	unlink(path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mount");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_split_user_options);
	tcase_add_test(tc, test_split_refuses);
	tcase_add_test(tc, test_utab_attrs);
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_args_after_positionals);
	tcase_add_test(tc, test_args_errors);
	tcase_add_test(tc, test_stop);
	tcase_add_test(tc, test_start);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
