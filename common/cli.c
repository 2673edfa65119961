/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.c - the program's name, messages, exits, usage errors and --version. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nlfs/nlfs.h>
#include "cli.h"
#include "closestream.h"

const char *cli_progname = "nilfsprogs";
static int exit_failure = CLI_EXIT_FAILURE, exit_usage = CLI_EXIT_FAILURE;

void cli_init_codes(const char *argv0, int failure, int usage)
{
	const char *slash = strrchr(argv0, '/');

	cli_progname = slash ? slash + 1 : argv0;
	exit_failure = failure;
	exit_usage = usage;
	opterr = 0;   /* cli_bad_option() words it, with the program's short name */
	close_stdout_at_exit(cli_progname, failure);
}

void cli_init(const char *argv0)
{
	cli_init_codes(argv0, CLI_EXIT_FAILURE, CLI_EXIT_FAILURE);
}

int cli_exit_failure(void)
{
	return exit_failure;
}

int cli_exit_usage(void)
{
	return exit_usage;
}

static void vmsg(int code, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", cli_progname);
	if (fmt) {
		vfprintf(stderr, fmt, ap);
		if (code)
			fputs(": ", stderr);
	}
	if (code)
		fputs(nlfs_strerror(code), stderr);
	fputc('\n', stderr);
}

void cli_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(0, fmt, ap);
	va_end(ap);
}

void cli_warnc(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(code ? code : EIO, fmt, ap);
	va_end(ap);
}

void cli_errx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(0, fmt, ap);
	va_end(ap);
	exit(exit_failure);
}

void cli_errc(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(code ? code : EIO, fmt, ap);
	va_end(ap);
	exit(exit_failure);
}

void cli_usage_hint(void)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", cli_progname);
}

void cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vmsg(0, fmt, ap);
		va_end(ap);
	}
	cli_usage_hint();
	exit(exit_usage);
}

uint64_t cli_strtou64_or_err(const char *s, uint64_t max, const char *what)
{
	uint64_t v;
	int rc = cli_strtou64_max(s, max, &v);

	if (rc == -ERANGE)
		cli_warnx("invalid %s: %s: %s", what, s, strerror(ERANGE));
	else if (rc)
		cli_warnx("invalid %s: %s", what, s);
	if (rc)
		exit(exit_usage);
	return v;
}

void cli_bad_option(char *const argv[])
{
	if (optopt)
		cli_warnx("invalid option -- %c", optopt);
	else
		cli_warnx("unrecognized option '%s'", optind > 0 ? argv[optind - 1] : "");
	cli_usage_hint();
	exit(exit_usage);
}

void cli_print_version(void)
{
	printf("%s from nilfsprogs %s\n", cli_progname, PACKAGE_VERSION);
}

void cli_usage_help(FILE *out, int margin)
{
	fprintf(out, " %-*s%s\n", margin - 1, "-h, --help", "display this help");
	fprintf(out, " %-*s%s\n", margin - 1, "-V, --version", "display version");
}

void cli_usage_man(FILE *out, int section)
{
	fprintf(out, "\nFor more details see %s(%d).\n", cli_progname, section);
}

void cli_usage_tail(FILE *out, int margin)
{
	cli_usage_help(out, margin);
	cli_usage_man(out, 8);
}

void cli_format_time(uint64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) || !strftime(buf, len, "%F %T", &tm))
		snprintf(buf, len, "%llu", (unsigned long long)t);
}
