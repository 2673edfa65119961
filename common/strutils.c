/* SPDX-License-Identifier: GPL-2.0-or-later */
/* strutils.c - numbers, checkpoint numbers and ranges, periods and sizes
 * on the command line, read by one rule (strutils.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include <nlfs/nlfs.h>
#include "strutils.h"

int cli_strtou64_prefix(const char *s, uint64_t *v, const char **end)
{
	uint64_t n = 0;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '+')
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');

		if (n > (UINT64_MAX - d) / 10)
			return -ERANGE;
		n = n * 10 + d;
	}
	*v = n;
	*end = s;
	return 0;
}

int cli_strtou64(const char *s, uint64_t *v)
{
	return cli_strtou64_max(s, UINT64_MAX, v);
}

int cli_strtou64_max(const char *s, uint64_t max, uint64_t *v)
{
	const char *end;
	uint64_t n;
	int rc = cli_strtou64_prefix(s, &n, &end);

	if (rc)
		return rc;
	if (*end)
		return -EINVAL;
	if (n > max)
		return -ERANGE;
	*v = n;
	return 0;
}

int cli_strtoint(const char *s, int *v)
{
	const char *p = s;
	uint64_t n;
	bool neg;
	int rc;

	while (isspace((unsigned char)*p))
		p++;
	neg = *p == '-';
	rc = cli_strtou64_max(neg ? p + 1 : p, neg ? (uint64_t)INT_MAX + 1 : INT_MAX, &n);
	if (rc)
		return rc;
	if (neg && (p[1] == '+' || isspace((unsigned char)p[1])))
		return -EINVAL;
	*v = neg ? (int)-(int64_t)n : (int)n;
	return 0;
}

int cli_strtocno(const char *s, uint64_t *cno)
{
	return cli_strtou64_max(s, NLFS_CNO_MAX - 1, cno);
}

/* one end of a range: all of [S, LIMIT) a checkpoint number */
static int range_end(const char *s, const char *limit, uint64_t *cno)
{
	const char *end;
	uint64_t n;
	int rc = cli_strtou64_prefix(s, &n, &end);

	if (rc)
		return rc;
	if (end != limit)
		return -EINVAL;
	if (n >= NLFS_CNO_MAX)
		return -ERANGE;
	*cno = n;
	return 0;
}

int cli_strtocno_range(const char *s, uint64_t *start, uint64_t *end)
{
	const char *dots = strstr(s, ".."), *stop = s + strlen(s);
	uint64_t a = 1, b = NLFS_CNO_MAX;
	int rc;

	if (!dots) {                                    /* CNO */
		rc = range_end(s, stop, &a);
		b = a;
	} else if (dots == s && !dots[2]) {             /* ".." alone */
		rc = -EINVAL;
	} else {                                        /* A..B, ..B, A.. */
		rc = dots == s ? 0 : range_end(s, dots, &a);
		if (!rc && dots[2])
			rc = range_end(dots + 2, stop, &b);
	}
	if (rc)
		return rc;
	*start = a;
	*end = b;
	return 0;
}

int cli_strtoperiod(const char *s, uint64_t *seconds)
{
	static const struct { char c; uint64_t mult; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 604800 },
		{ 'M', 2678400 }, { 'Y', 31536000 },
	};
	const char *p;
	uint64_t n, mult = 0;
	int rc = cli_strtou64_prefix(s, &n, &p);

	if (rc)
		return rc;
	if (!*p)
		mult = 1;
	else if (!p[1])
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (units[i].c == *p)
				mult = units[i].mult;
	if (!mult)
		return -EINVAL;
	if (n > UINT64_MAX / mult)
		return -ERANGE;
	*seconds = n * mult;
	return 0;
}

int cli_size_unit(const char *sfx, uint64_t *mult)
{
	static const char units[] = "KMGTPE";
	const char *u;
	unsigned power;
	bool si;

	if (!*sfx) {
		*mult = 1;
		return 0;
	}
	if (!strcmp(sfx, "kB")) {
		*mult = 1000;
		return 0;
	}
	if (!(u = strchr(units, sfx[0])))
		return -EINVAL;
	power = (unsigned)(u - units) + 1;
	if (!sfx[1])
		si = false;
	else if (!strcmp(sfx + 1, "B"))
		si = true;
	else if (!strcmp(sfx + 1, "iB"))
		si = false;
	else
		return -EINVAL;
	*mult = 1;
	for (unsigned i = 0; i < power; i++)
		*mult *= si ? 1000 : 1024;
	return 0;
}

int cli_strtosize(const char *s, uint64_t *bytes)
{
	const char *p;
	uint64_t n, mult;
	int rc = cli_strtou64_prefix(s, &n, &p);

	if (rc)
		return rc;
	if (cli_size_unit(p, &mult))
		return -EINVAL;
	if (n > UINT64_MAX / mult)
		return -ERANGE;
	*bytes = n * mult;
	return 0;
}
