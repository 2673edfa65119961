/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli.h - the command layer every program of the suite shares, in the
 * manner of util-linux's libcommon: the program's name, messages and exits
 * ("prog: message[: reason]"), usage errors ("Try 'prog --help' ..."), and
 * the layout of --help and --version.
 *
 * A --help text is laid out as util-linux's:
 *
 *   Usage:
 *    prog [options] <device>
 *
 *   One line saying what prog does.
 *
 *   Options:
 *    -x, --xxx          ...
 *    -h, --help         display this help
 *    -V, --version      display version
 *
 *   For more details see prog(8).
 *
 * of which CLI_USAGE_HEADER, CLI_USAGE_OPTIONS and cli_usage_tail() (or
 * cli_usage_help() and cli_usage_man()) are the fixed parts.
 */
#ifndef NLFS_COMMON_CLI_H
#define NLFS_COMMON_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "strutils.h"

/* Every failure exits 1 unless the program chose other codes in
 * cli_init_codes() (fsck.nilfs2: fsck(8)'s 8 and 16). */
#define CLI_EXIT_FAILURE 1

#define CLI_USAGE_HEADER  "Usage:\n"
#define CLI_USAGE_OPTIONS "\nOptions:\n"
/* every offline writer's long option to write to a volume the library's
 * quick check calls damaged (no short one: rmcp's -f is nilfs-utils'), and
 * --force for it where that name is free (not rmcp's) */
#define CLI_OPT_WRITE_DAMAGED 0x1d0
#define CLI_USAGE_WRITE_DAMAGED \
	"     --write-damaged      write even to a volume that needs fsck.nilfs2 first\n"
#define CLI_USAGE_WRITE_DAMAGED_FORCE \
	"     --write-damaged, --force\n" \
	"                          write even to a volume that needs fsck.nilfs2 first\n"

extern const char *cli_progname;

/* The program's name from argv[0]; failures and usage errors exit 1; a
 * failed write to standard output (prog > /dev/full) ends in an error and
 * the failure code at exit. */
void cli_init(const char *argv0);
/* The same with the program's own exit codes for a failure and for a
 * usage error. */
void cli_init_codes(const char *argv0, int failure, int usage);
/* the codes cli_init_codes() set */
int cli_exit_failure(void);
int cli_exit_usage(void);

/* "prog: message" */
void cli_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: message: reason of CODE" (an errno or an NLFS_E* code, either
 * sign); a NULL FMT prints only the reason */
void cli_warnc(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* cli_warnx / cli_warnc, then exit with the failure code */
_Noreturn void cli_errx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void cli_errc(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A usage error: "prog: message" (none if FMT is NULL), then "Try 'prog
 * --help' for more information.", and exit with the usage code. */
_Noreturn void cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* getopt's '?' (cli_init turns getopt's own message off): "prog: invalid
 * option -- x" (a missing argument too, as nilfs-utils words it) or
 * "prog: unrecognized option '--xxx'", then as cli_usage_error. */
_Noreturn void cli_bad_option(char *const argv[]);
/* Only the "Try 'prog --help'" line, for callers that exit themselves. */
void cli_usage_hint(void);

/* An option's number (strutils.h's rule) up to MAX, or "prog: invalid
 * WHAT: S" and exit with the usage code. */
uint64_t cli_strtou64_or_err(const char *s, uint64_t max, const char *what);

/* "prog from nilfsprogs X.Y.Z" on standard output */
void cli_print_version(void);
/* The -h and -V lines, their descriptions at column MARGIN */
void cli_usage_help(FILE *out, int margin);
/* A blank line and "For more details see prog(SECTION)." (8 for most of the
 * suite; lscp and lssu, which need no privilege, are in section 1) */
void cli_usage_man(FILE *out, int section);
/* cli_usage_help, then cli_usage_man in section 8 */
void cli_usage_tail(FILE *out, int margin);

/* "YYYY-MM-DD HH:MM:SS" in local time */
void cli_format_time(uint64_t t, char *buf, size_t len);

#endif
