/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * problem.c - the problem table and the one place problems are counted.
 */
#include <stdarg.h>
#include <stdio.h>

#include "fsck.h"

const struct fsck_problem_def fsck_problems[PR_COUNT] = {
#define FSCK_PR_DEF(code, sev, pass, fix, desc, action) \
	[code] = { #code, sev, pass, fix, desc, action },
	FSCK_PROBLEMS(FSCK_PR_DEF)
#undef FSCK_PR_DEF
};

/* a flood of one kind says nothing more after a while; -v shows all */
#define PR_PRINT_LIMIT 50

static void vproblem(struct fsck *c, enum fsck_pr code, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	c->pr_count[code]++;
	switch (fsck_problems[code].severity) {
	case SEV_ERROR: c->nerrors++; break;
	case SEV_WARNING: c->nwarnings++; break;
	case SEV_INFO: break;
	}
	if (code == PR_IO)
		c->op_error = true;
	if (c->pr_count[code] > PR_PRINT_LIMIT && !c->o.verbose)
		return;
	fsck_report_add(c, code, msg);
}

void fsck_problem(struct fsck *c, enum fsck_pr code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vproblem(c, code, fmt, ap);
	va_end(ap);
}

bool fsck_is_format_error(int rc)
{
	if (rc < 0)
		rc = -rc;
	return rc >= NLFS_EBADMAGIC && rc <= NLFS_ENOSR;
}

void fsck_lib_problem(struct fsck *c, enum fsck_pr code, const struct nlfs_err *err,
		      const char *fmt, ...)
{
	char prefix[512], what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	nlfs_err_format(err, what, sizeof(what));
	if (!fsck_is_format_error(err->code))
		code = PR_IO;
	fsck_problem(c, code, "%s: %s", prefix, what);
}
