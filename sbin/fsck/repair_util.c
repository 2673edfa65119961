/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * repair_util.c - what every part of the repair (repair.c, repair_dir.c,
 * repair_inode.c) says and asks the same way: whether a problem was
 * found, a library failure named, a repair counted and told.
 */
#include <stdarg.h>
#include <stdio.h>

#include "repairP.h"

bool repair_found(const struct fsck *c, enum fsck_pr code)
{
	return c->pr_count[code] != 0;
}

int repair_lib_failed(struct repair *r, int rc, const char *what)
{
	char msg[512];

	nlfs_err_format(&r->err, msg, sizeof(msg));
	fprintf(stderr, "%s: %s: repair failed while %s: %s\n", FSCK_PROG, r->c->o.device, what,
		r->err.code ? msg : nlfs_strerror(rc));
	return rc;
}

void repair_done(struct repair *r, uint64_t n, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!n)
		return;
	r->nfixes += n;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fsck_info(r->c, "repair: %s", msg);
}
