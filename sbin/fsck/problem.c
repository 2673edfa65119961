/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * problem.c - the one place problems are counted (the table they are
 * counted by is problem_table.c).
 */
#include <stdarg.h>
#include <stdio.h>

#include "fsck.h"

/* a flood of one kind says nothing more after a while; -v shows all */
#define PR_PRINT_LIMIT 50

static void count_and_add(struct fsck *c, enum fsck_pr code, const char *msg)
{
	if (c->probing) {
		c->probe_failed = true;   /* the checkpoint is walked whole and says it */
		return;
	}
	c->nreported++;
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

void fsck_problem_fmt(struct fsck *c, enum fsck_msg id, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	count_and_add(c, fsck_msg_code(id), msg);
}

bool fsck_is_format_error(int rc)
{
	if (rc < 0)
		rc = -rc;
	return rc >= NLFS_EBADMAGIC && rc <= NLFS_ENOSR;
}

void fsck_lib_problem_fmt(struct fsck *c, enum fsck_msg id, const struct nlfs_err *err,
			  const char *fmt, ...)
{
	enum fsck_pr code = fsck_msg_code(id);
	char prefix[512], what[400], msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	nlfs_err_format(err, what, sizeof(what));
	if (!fsck_is_format_error(err->code))
		code = PR_IO;
	snprintf(msg, sizeof(msg), "%s: %s", prefix, what);
	count_and_add(c, code, msg);
}
