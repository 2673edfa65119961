/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Error codes and the error context callers print. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <nlfs/nlfs.h>

const char *nlfs_strerror(int code)
{
	if (code < 0)
		code = -code;
	switch (code) {
	case 0: return "success";
	case NLFS_EBADMAGIC: return "bad magic number";
	case NLFS_EBADCRC: return "checksum mismatch";
	case NLFS_ECORRUPT: return "corrupt structure";
	case NLFS_EREVISION: return "unsupported revision";
	case NLFS_EFEATURE: return "unsupported features";
	case NLFS_ENOSR: return "no valid super root";
	case NLFS_EDAMAGED: return "the volume is damaged; run fsck.nilfs2 before writing to it";
	default: return strerror(code);
	}
}

void nlfs_err_clear(struct nlfs_err *e)
{
	if (!e)
		return;
	memset(e, 0, sizeof(*e));
	e->block = e->ino = e->cno = NLFS_NOWHERE;
}

int nlfs_err_set(struct nlfs_err *e, int code, uint64_t block, const char *fmt, ...)
{
	va_list ap;

	if (code > 0)
		code = -code;
	if (!e)
		return code;
	nlfs_err_clear(e);
	e->code = code;
	e->block = block;
	va_start(ap, fmt);
	vsnprintf(e->what, sizeof(e->what), fmt, ap);
	va_end(ap);
	return code;
}

void nlfs_err_format(const struct nlfs_err *e, char *buf, size_t len)
{
	char where[96] = "";
	size_t n = 0;

	if (e->block != NLFS_NOWHERE)
		n += (size_t)snprintf(where + n, sizeof(where) - n, "%sblock %llu",
				      n ? ", " : "", (unsigned long long)e->block);
	if (e->ino != NLFS_NOWHERE && n < sizeof(where))
		n += (size_t)snprintf(where + n, sizeof(where) - n, "%sinode %llu",
				      n ? ", " : "", (unsigned long long)e->ino);
	if (e->cno != NLFS_NOWHERE && n < sizeof(where))
		snprintf(where + n, sizeof(where) - n, "%scheckpoint %llu",
			 n ? ", " : "", (unsigned long long)e->cno);
	snprintf(buf, len, "%s%s%s%s: %s", e->what[0] ? e->what : "error",
		 where[0] ? " (" : "", where, where[0] ? ")" : "",
		 nlfs_strerror(e->code));
}
