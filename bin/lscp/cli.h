/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli.h - what the checkpoint tools (lscp, lssu, mkcp, chcp, rmcp) share on
 * the command-line side: messages in the nilfs-utils form, number and
 * checkpoint-range parsing, dates, and the help/version boilerplate.
 */
#ifndef LSCP_CLI_H
#define LSCP_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Every failure exits 1, as nilfs-utils does (usage errors included). */
#define CLI_EXIT_FAILURE 1

extern const char *cli_progname;

/* Set the program name from argv[0] and arrange that a failed write to
 * standard output (lscp > /dev/full) ends in an error and exit 1. */
void cli_init(const char *argv0);

/* "prog: message" */
void cli_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: message: strerror(code)"; a NULL FMT prints only the reason */
void cli_warnc(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void cli_errx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* getopt's '?': the unknown or incomplete option, then a pointer to --help */
_Noreturn void cli_bad_option(int optopt, const char *arg);

void cli_print_version(void);
/* the common tail of every --help: the -h and -V lines, then the manual
 * page (section 8; lscp and lssu, which need no privilege, are in 1) */
void cli_usage_tail(FILE *out);
void cli_usage_help(FILE *out);
void cli_usage_man(FILE *out, int section);

/* A plain decimal number, all of S; false if it is not one */
bool cli_parse_u64(const char *s, uint64_t *v);
/* A checkpoint number as nilfs-utils reads one: leading blanks skipped, no
 * sign, decimal; *END points after the digits.  NLFS_CNO_MAX if negative
 * or too large. */
uint64_t cli_parse_cno(const char *s, const char **end);
/* CNO, A..B, ..B or A..; false if S is none of these */
bool cli_parse_cno_range(const char *s, uint64_t *start, uint64_t *end);

/* "YYYY-MM-DD HH:MM:SS" in local time */
void cli_format_time(uint64_t t, char *buf, size_t len);

#endif
