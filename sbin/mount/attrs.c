/* SPDX-License-Identifier: GPL-2.0-or-later */
/* attrs.c - pp=, nogc and gcpid= out of an option string, and back. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmount.h>

#include "attrs.h"

static bool name_is(const char *name, size_t len, const char *want)
{
	return strlen(want) == len && !memcmp(name, want, len);
}

/* a plain decimal number (as nilfs-tools writes and reads it), at most MAX */
static bool parse_decimal(const char *val, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!val || len == 0 || len > 20)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(val[i] - '0');

		if (d > 9 || v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

static int invalid(const char *name, size_t len, char *bad, size_t badsz)
{
	/* name and value: the value follows the name in the same string */
	if (bad && badsz)
		snprintf(bad, badsz, "%.*s", (int)len, name);
	return -EINVAL;
}

int attrs_split(const char *opts, enum attrs_source from, struct nilfs_attrs *a,
		char **rest, char *bad, size_t badsz)
{
	char *copy = strdup(opts ? opts : ""), *p = copy, *name, *val;
	size_t namesz, valsz;
	int rc = 0;

	*rest = NULL;
	if (!copy)
		return -ENOMEM;
	while (rc == 0 && mnt_optstr_next_option(&p, &name, &namesz, &val, &valsz) == 0) {
		size_t whole = val ? (size_t)(val + valsz - name) : namesz;
		uint64_t n;

		if (name_is(name, namesz, ATTR_PP)) {
			if (!parse_decimal(val, valsz, ATTR_PP_MAX, &n)) {
				rc = invalid(name, whole, bad, badsz);
			} else {
				a->have_pp = true;
				a->pp = n;
			}
		} else if (name_is(name, namesz, ATTR_NOGC)) {
			if (val)
				rc = invalid(name, whole, bad, badsz);
			a->nogc = true;
		} else if (name_is(name, namesz, ATTR_GCPID)) {
			if (from != ATTRS_FROM_UTAB || !parse_decimal(val, valsz, INT32_MAX, &n))
				rc = invalid(name, whole, bad, badsz);
			else
				a->gcpid = (pid_t)n;
		} else if (name_is(name, namesz, ATTR_NONE)) {
			if (from != ATTRS_FROM_UTAB || val)
				rc = invalid(name, whole, bad, badsz);
		} else {
			char saved = name[whole];

			/* the option as it was written, value and all */
			name[whole] = '\0';
			if (mnt_optstr_append_option(rest, name, NULL))
				rc = -ENOMEM;
			name[whole] = saved;
		}
	}
	free(copy);
	if (rc) {
		free(*rest);
		*rest = NULL;
	}
	return rc;
}

int attrs_format(const struct nilfs_attrs *a, char *buf, size_t bufsz)
{
	int n;

	if (a->nogc)
		n = snprintf(buf, bufsz, "%s", ATTR_NOGC);
	else if (a->gcpid && a->have_pp)
		n = snprintf(buf, bufsz, "%s=%ld,%s=%" PRIu64, ATTR_GCPID, (long)a->gcpid,
			     ATTR_PP, a->pp);
	else if (a->gcpid)
		n = snprintf(buf, bufsz, "%s=%ld", ATTR_GCPID, (long)a->gcpid);
	else if (a->have_pp)
		n = snprintf(buf, bufsz, "%s=%" PRIu64, ATTR_PP, a->pp);
	else
		n = snprintf(buf, bufsz, "%s", ATTR_NONE);
	return n < 0 || (size_t)n >= bufsz ? -ENOSPC : n;
}
