/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * problem.c - the problem table and the one place problems are counted.
 */
#include <stdarg.h>
#include <stdio.h>

#include "fsck.h"

const struct fsck_problem_def fsck_problems[PR_COUNT] = {
#define FSCK_PR_DEF(code, sev, pass, fix, desc, action, msgs) \
	[code] = { #code, sev, pass, fix, desc, action },
	FSCK_PROBLEMS(FSCK_PR_DEF, FSCK_PR_NO_MSG)
#undef FSCK_PR_DEF
};

const struct fsck_message_def fsck_messages[] = {
#define FSCK_MSG_DEF(id, fmt) { id, #id, fmt },
	FSCK_PROBLEMS(FSCK_MSG_ROWS, FSCK_MSG_DEF)
#undef FSCK_MSG_DEF
};

const unsigned fsck_nmessages = sizeof(fsck_messages) / sizeof(fsck_messages[0]);

bool fix_is_repairable(enum fsck_pr code, bool preen)
{
	enum fsck_fix fix = fsck_problems[code].fix;

	return fix == FIX_PREEN || (fix == FIX_YES && !preen);
}

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
