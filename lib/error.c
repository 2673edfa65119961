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

/* does WHAT hold ITEM ("block 12") whole, not as the start of "block 123"? */
static int holds(const char *what, const char *item)
{
	size_t n = strlen(item);

	for (const char *p = strstr(what, item); p; p = strstr(p + 1, item))
		if (p[n] < '0' || p[n] > '9')
			return 1;
	return 0;
}

/* append ", NAME N" to WHERE unless WHAT already says "NAME N" */
static size_t add_where(char *where, size_t size, size_t n, const char *what, const char *name,
			uint64_t v)
{
	char item[48];

	if (v == NLFS_NOWHERE || n >= size)
		return n;
	snprintf(item, sizeof(item), "%s %llu", name, (unsigned long long)v);
	if (holds(what, item))
		return n;
	return n + (size_t)snprintf(where + n, size - n, "%s%s", n ? ", " : "", item);
}

void nlfs_err_format(const struct nlfs_err *e, char *buf, size_t len)
{
	char where[96] = "";
	const char *what = e->what[0] ? e->what : "error";
	const char *reason = nlfs_strerror(e->code);
	size_t n = 0;

	/* a location or a reason the message already names is not repeated */
	n = add_where(where, sizeof(where), n, what, "block", e->block);
	n = add_where(where, sizeof(where), n, what, "inode", e->ino);
	add_where(where, sizeof(where), n, what, "checkpoint", e->cno);
	if (strstr(what, reason))
		reason = NULL;
	snprintf(buf, len, "%s%s%s%s%s%s", what, where[0] ? " (" : "", where, where[0] ? ")" : "",
		 reason ? ": " : "", reason ? reason : "");
}
