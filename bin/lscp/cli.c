/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.c - messages, parsing and boilerplate shared by the checkpoint tools. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nlfs/nlfs.h>
#include "cli.h"
#include "closestream.h"

const char *cli_progname = "nilfsprogs";

void cli_init(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');

	cli_progname = slash ? slash + 1 : argv0;
	close_stdout_at_exit(cli_progname, CLI_EXIT_FAILURE);
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
	exit(CLI_EXIT_FAILURE);
}

void cli_bad_option(int opt, const char *arg)
{
	if (opt)   /* the wording of nilfs-utils, for a missing argument too */
		cli_warnx("invalid option -- %c", opt);
	else
		cli_warnx("unrecognized option '%s'", arg ? arg : "");
	exit(CLI_EXIT_FAILURE);
}

void cli_print_version(void)
{
	printf("%s (nilfsprogs) %s\n", cli_progname, PACKAGE_VERSION);
}

void cli_usage_help(FILE *out)
{
	fputs("  -h, --help               display this help and exit\n"
	      "  -V, --version            display the version and exit\n", out);
}

void cli_usage_man(FILE *out, int section)
{
	fprintf(out, "\nFor more details see %s(%d).\n", cli_progname, section);
}

void cli_usage_tail(FILE *out)
{
	cli_usage_help(out);
	cli_usage_man(out, 8);
}

bool cli_parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno == 0 && *end == '\0';
}

uint64_t cli_parse_cno(const char *s, const char **end)
{
	unsigned long long v;
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	*end = s;
	if (*s == '-')
		return NLFS_CNO_MAX;
	errno = 0;
	v = strtoull(s, &e, 10);
	*end = e;
	if (errno == ERANGE)
		return NLFS_CNO_MAX;
	return v;
}

bool cli_parse_cno_range(const char *s, uint64_t *start, uint64_t *end)
{
	const char *dots = strstr(s, ".."), *e;
	uint64_t a, b;

	if (!*s)
		return false;
	if (!dots) {                        /* CNO */
		a = cli_parse_cno(s, &e);
		if (a == NLFS_CNO_MAX || *e)
			return false;
		*start = *end = a;
		return true;
	}
	if (dots == s) {                    /* ..B */
		b = cli_parse_cno(s + 2, &e);
		if (!s[2] || b == NLFS_CNO_MAX || *e)
			return false;
		*start = 1;
		*end = b;
		return true;
	}
	a = cli_parse_cno(s, &e);
	if (a == NLFS_CNO_MAX || e != dots)
		return false;
	if (!dots[2]) {                     /* A.. */
		*start = a;
		*end = NLFS_CNO_MAX;
		return true;
	}
	b = cli_parse_cno(dots + 2, &e);    /* A..B */
	if (b == NLFS_CNO_MAX || *e)
		return false;
	*start = a;
	*end = b;
	return true;
}

void cli_format_time(uint64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) || !strftime(buf, len, "%F %T", &tm))
		snprintf(buf, len, "%llu", (unsigned long long)t);
}
