/* SPDX-License-Identifier: GPL-2.0-or-later */
/* linefmt.c - fast fixed layouts for listings (linefmt.h). */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "linefmt.h"

#define WINDOW 900      /* seconds: 15 minutes */

char *lf_u64(char *p, uint64_t v, unsigned width)
{
	char tmp[20];
	unsigned n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (width > n) {
		*p++ = ' ';
		width--;
	}
	while (n)
		*p++ = tmp[--n];
	return p;
}

char *lf_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

static char *two(char *p, unsigned v)
{
	p[0] = (char)('0' + v / 10);
	p[1] = (char)('0' + v % 10);
	return p + 2;
}

/* days since 1970-01-01 to a civil date (proleptic Gregorian) */
static void civil(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	uint64_t doe = (uint64_t)(z - era * 146097);
	uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	uint64_t mp = (5 * doy + 2) / 153;

	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* the UTC offset at T, if localtime_r gives a four-digit year there */
static bool offset_at(int64_t t, int64_t *off)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) || tm.tm_year < 1000 - 1900 || tm.tm_year > 9999 - 1900)
		return false;
	*off = tm.tm_gmtoff;
	return true;
}

char *lf_time(struct lf_time_cache *c, uint64_t t, char *p)
{
	int64_t s = (int64_t)t, local, days, sec, y;
	unsigned mo, d;

	if (t > (uint64_t)INT64_MAX / 2)
		goto slow;
	if (!c->valid || s < c->lo || s >= c->hi) {
		int64_t lo = s - s % WINDOW, a, b;

		c->valid = false;
		if (!offset_at(lo, &a) || !offset_at(lo + WINDOW - 1, &b) || a != b)
			goto slow;
		c->lo = lo;
		c->hi = lo + WINDOW;
		c->off = a;
		c->valid = true;
	}
	local = s + c->off;
	days = local / 86400;
	sec = local % 86400;
	if (sec < 0) {
		sec += 86400;
		days--;
	}
	civil(days, &y, &mo, &d);
	p = two(p, (unsigned)(y / 100));
	p = two(p, (unsigned)(y % 100));
	*p++ = '-';
	p = two(p, mo);
	*p++ = '-';
	p = two(p, d);
	*p++ = ' ';
	p = two(p, (unsigned)(sec / 3600));
	*p++ = ':';
	p = two(p, (unsigned)(sec / 60 % 60));
	*p++ = ':';
	return two(p, (unsigned)(sec % 60));
slow: {
		char buf[64];

		cli_format_time(t, buf, sizeof(buf));
		buf[LF_TIME_MAX] = '\0';
		return lf_str(p, buf);
	}
}

void lf_buffer_stdout(size_t bytes)
{
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOFBF, bytes);
}
