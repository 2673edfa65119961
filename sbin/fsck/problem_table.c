/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * problem_table.c - the problem table (problem.h) made data: per code its
 * severity, pass, repair and description, and every message; what the
 * counting (problem.c), the printing (report.c) and the repairs read.
 */
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
