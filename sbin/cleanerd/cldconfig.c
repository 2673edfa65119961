/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cldconfig.c - nilfs_cleanerd.conf parser.
 *
 * The format is nilfs-utils': one "keyword [argument]" per line, '#'
 * starts a comment (also after the argument), keywords and arguments are
 * case-sensitive.  Every key of nilfs-utils is understood; selection_policy
 * also takes greedy and cost-benefit.  An invalid line leaves its key as
 * it was and is reported with its file and line number.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "cldconfig.h"
#include "strutils.h"

void cld_defaults(struct cld_config *c)
{
	*c = (struct cld_config){
		.protection_period = 3600 * NS_PER_SEC,
		.min_clean_segments = { 10, CLD_UNIT_PERCENT },
		.max_clean_segments = { 20, CLD_UNIT_PERCENT },
		.clean_check_interval = 10 * NS_PER_SEC,
		.selection_policy = NLFS_GC_TIMESTAMP,
		.nsegments_per_clean = 2,
		.mc_nsegments_per_clean = 4,
		.cleaning_interval = 5 * NS_PER_SEC,
		.mc_cleaning_interval = 1 * NS_PER_SEC,
		.retry_interval = 60 * NS_PER_SEC,
		.use_mmap = true,
		.use_set_suinfo = false,
		.log_priority = LOG_INFO,
		.min_reclaimable_blocks = { 10, CLD_UNIT_PERCENT },
		.mc_min_reclaimable_blocks = { 1, CLD_UNIT_PERCENT },
	};
}

int cld_parse_time(const char *s, uint64_t *ns)
{
	uint64_t sec, frac = 0, scale = NS_PER_SEC;
	const char *p;
	int rc = cli_strtou64_prefix(s, &sec, &p);

	if (rc)
		return rc;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		/* nanoseconds: the first nine digits count, the rest is dropped */
		for (; isdigit((unsigned char)*p); p++)
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*p - '0') * scale;
			}
	}
	if (*p)
		return -EINVAL;
	if (sec > (UINT64_MAX - frac) / NS_PER_SEC)
		return -ERANGE;
	*ns = sec * NS_PER_SEC + frac;
	return 0;
}

int cld_parse_size(const char *s, struct cld_size *out)
{
	uint64_t n, mult;
	const char *p;
	int rc = cli_strtou64_prefix(s, &n, &p);

	if (rc)
		return rc;
	if (!*p) {
		*out = (struct cld_size){ n, CLD_UNIT_COUNT };
		return 0;
	}
	if (!strcmp(p, "%")) {
		if (n > 100)
			return -ERANGE;
		*out = (struct cld_size){ n, CLD_UNIT_PERCENT };
		return 0;
	}
	if (cli_size_unit(p, &mult))
		return -EINVAL;
	if (n > UINT64_MAX / mult)
		return -ERANGE;
	*out = (struct cld_size){ n * mult, CLD_UNIT_BYTES };
	return 0;
}

static const char *const prio_names[] = {
	[LOG_EMERG] = "emerg", [LOG_ALERT] = "alert", [LOG_CRIT] = "crit",
	[LOG_ERR] = "err", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

int cld_parse_priority(const char *s, int *prio)
{
	for (int i = 0; i < (int)(sizeof(prio_names) / sizeof(prio_names[0])); i++)
		if (!strcmp(s, prio_names[i])) {
			*prio = i;
			return 0;
		}
	return -EINVAL;
}

const char *cld_priority_name(int prio)
{
	return prio >= 0 && prio <= LOG_DEBUG ? prio_names[prio] : "unknown";
}

/* ------------------------------------------------------------------ */

struct parse_ctx {
	struct cld_config *c;
	const char *file;
	unsigned line;
	cld_report_fn report;
	void *arg;
	int nbad;
};

static void bad(struct parse_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bad(struct parse_ctx *x, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	x->nbad++;
	if (x->report)
		x->report(x->arg, x->file, x->line, msg);
}

/* a warning that does not make the line invalid */
static void warn_line(struct parse_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn_line(struct parse_ctx *x, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (x->report)
		x->report(x->arg, x->file, x->line, msg);
}

static const char *why(int rc)
{
	return rc == -ERANGE ? "number too large" : "invalid value";
}

enum kind { K_TIME, K_SIZE, K_NSEGS, K_POLICY, K_FLAG, K_PRIO, K_COUNT, K_PATH };

struct keyword {
	const char *name;
	enum kind kind;
	size_t off;
};

#define KW(n, k) { #n, k, offsetof(struct cld_config, n) }
static const struct keyword keywords[] = {
	KW(protection_period, K_TIME),
	KW(min_clean_segments, K_SIZE),
	KW(max_clean_segments, K_SIZE),
	KW(clean_check_interval, K_TIME),
	KW(selection_policy, K_POLICY),
	KW(nsegments_per_clean, K_NSEGS),
	KW(mc_nsegments_per_clean, K_NSEGS),
	KW(cleaning_interval, K_TIME),
	KW(mc_cleaning_interval, K_TIME),
	KW(retry_interval, K_TIME),
	KW(use_mmap, K_FLAG),
	KW(use_set_suinfo, K_FLAG),
	KW(log_priority, K_PRIO),
	KW(min_reclaimable_blocks, K_SIZE),
	KW(mc_min_reclaimable_blocks, K_SIZE),
	KW(timeline_hourly, K_COUNT),
	KW(timeline_daily, K_COUNT),
	KW(timeline_weekly, K_COUNT),
	KW(timeline_monthly, K_COUNT),
	KW(timeline_yearly, K_COUNT),
	KW(timeline_state_dir, K_PATH),
	KW(timeline_max_space, K_SIZE),
};

static int parse_flag(const char *s, bool *v)
{
	static const char *const yes[] = { "yes", "on", "true", "1" };
	static const char *const no[] = { "no", "off", "false", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcmp(s, yes[i])) {
			*v = true;
			return 0;
		}
		if (!strcmp(s, no[i])) {
			*v = false;
			return 0;
		}
	}
	return -EINVAL;
}

static void handle(struct parse_ctx *x, char **tok, int ntok)
{
	const struct keyword *kw = NULL;
	void *field;
	int rc;

	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (!strcmp(tok[0], keywords[i].name))
			kw = &keywords[i];
	if (!kw) {
		bad(x, "%s: unknown keyword", tok[0]);
		return;
	}
	field = (char *)x->c + kw->off;
	if (kw->kind == K_FLAG) {
		/* nilfs-utils: the keyword alone switches it on; we also take
		 * an explicit yes/no */
		bool v = true;

		if (ntok > 2) {
			bad(x, "%s: too many arguments", tok[0]);
			return;
		}
		if (ntok == 2 && parse_flag(tok[1], &v)) {
			bad(x, "%s: %s: expected yes or no", tok[0], tok[1]);
			return;
		}
		*(bool *)field = v;
		return;
	}
	if (ntok < 2) {
		bad(x, "%s: missing argument", tok[0]);
		return;
	}
	if (ntok > 2) {
		bad(x, "%s: too many arguments", tok[0]);
		return;
	}
	switch (kw->kind) {
	case K_TIME: {
		uint64_t ns;

		rc = cld_parse_time(tok[1], &ns);
		if (rc) {
			bad(x, "%s: %s: %s", tok[0], tok[1],
			    rc == -ERANGE ? "number too large" : "not a time in seconds");
			return;
		}
		*(uint64_t *)field = ns;
		break;
	}
	case K_SIZE: {
		struct cld_size s;

		rc = cld_parse_size(tok[1], &s);
		if (rc) {
			bad(x, "%s: %s: %s", tok[0], tok[1],
			    rc == -ERANGE ? (strchr(tok[1], '%') ? "ratio above 100%" : "number too large")
					  : "not a number with an optional % or size suffix");
			return;
		}
		*(struct cld_size *)field = s;
		break;
	}
	case K_NSEGS: {
		uint64_t n;
		const char *end;

		rc = cli_strtou64_prefix(tok[1], &n, &end);
		if (rc == 0 && *end)
			rc = -EINVAL;
		if (rc) {
			bad(x, "%s: %s: %s", tok[0], tok[1], why(rc));
			return;
		}
		if (n == 0) {
			bad(x, "%s: %s: must be at least 1", tok[0], tok[1]);
			return;
		}
		if (n > CLD_NSEGMENTS_PER_CLEAN_MAX) {
			warn_line(x, "%s: %s: too large, using the maximum %u", tok[0], tok[1],
				  CLD_NSEGMENTS_PER_CLEAN_MAX);
			n = CLD_NSEGMENTS_PER_CLEAN_MAX;
		}
		*(unsigned *)field = (unsigned)n;
		break;
	}
	case K_POLICY: {
		enum nlfs_gc_policy p;

		if (nlfs_gc_policy_parse(tok[1], &p)) {
			bad(x, "%s: %s: unknown policy (timestamp, greedy or cost-benefit)", tok[0],
			    tok[1]);
			return;
		}
		*(enum nlfs_gc_policy *)field = p;
		break;
	}
	case K_PRIO: {
		int prio;

		if (cld_parse_priority(tok[1], &prio)) {
			bad(x, "%s: %s: unknown log priority", tok[0], tok[1]);
			return;
		}
		*(int *)field = prio;
		break;
	}
	case K_COUNT: {
		uint64_t n;

		rc = cli_strtou64_max(tok[1], 1000000, &n);
		if (rc) {
			bad(x, "%s: %s: %s", tok[0], tok[1], why(rc));
			return;
		}
		*(unsigned *)field = (unsigned)n;
		break;
	}
	case K_PATH:
		if (tok[1][0] != '/' || strlen(tok[1]) >= sizeof(x->c->timeline_state_dir)) {
			bad(x, "%s: %s: not an absolute path of fewer than %zu bytes", tok[0], tok[1],
			    sizeof(x->c->timeline_state_dir));
			return;
		}
		strcpy(field, tok[1]);
		break;
	case K_FLAG:
		break;
	}
}

#define MAX_TOKENS 8

int cld_parse_stream(struct cld_config *c, FILE *f, const char *name, cld_report_fn report,
		     void *arg)
{
	struct parse_ctx x = { .c = c, .file = name, .report = report, .arg = arg };
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&buf, &cap, f)) >= 0) {
		char *tok[MAX_TOKENS], *p = buf;
		int ntok = 0;

		x.line++;
		if (memchr(buf, '\0', (size_t)len)) {
			bad(&x, "NUL byte in line");
			continue;
		}
		while (*p) {
			while (*p && isspace((unsigned char)*p))
				p++;
			if (!*p || *p == '#')
				break;
			if (ntok < MAX_TOKENS)
				tok[ntok] = p;
			ntok++;
			while (*p && !isspace((unsigned char)*p) && *p != '#')
				p++;
			if (*p == '#') {
				*p = '\0';
				break;
			}
			if (*p)
				*p++ = '\0';
		}
		if (ntok == 0)
			continue;
		handle(&x, tok, ntok < MAX_TOKENS ? ntok : MAX_TOKENS);
	}
	free(buf);
	if (ferror(f))
		return -EIO;
	return x.nbad;
}

int cld_parse_file(struct cld_config *c, const char *path, cld_report_fn report, void *arg)
{
	FILE *f = fopen(path, "re");
	int rc;

	if (!f)
		return -errno;
	rc = cld_parse_stream(c, f, path, report, arg);
	fclose(f);
	return rc;
}

uint64_t cld_size_to_segments(const struct cld_size *s, uint64_t nsegments,
			      uint64_t segment_bytes)
{
	switch (s->unit) {
	case CLD_UNIT_PERCENT:
		return (nsegments * s->num + 99) / 100;
	case CLD_UNIT_BYTES:
		return segment_bytes ? s->num / segment_bytes + (s->num % segment_bytes != 0) : 0;
	case CLD_UNIT_COUNT:
	default:
		return s->num;
	}
}

uint32_t cld_size_to_blocks(const struct cld_size *s, uint32_t blocks_per_segment,
			    uint32_t blocksize, bool *clamped)
{
	uint64_t n;

	switch (s->unit) {
	case CLD_UNIT_PERCENT:
		n = ((uint64_t)blocks_per_segment * s->num + 99) / 100;
		break;
	case CLD_UNIT_BYTES:
		n = blocksize ? s->num / blocksize + (s->num % blocksize != 0) : 0;
		break;
	case CLD_UNIT_COUNT:
	default:
		n = s->num;
		break;
	}
	*clamped = n > blocks_per_segment;
	return *clamped ? blocks_per_segment : (uint32_t)n;
}

void cld_resolve(const struct cld_config *c, uint64_t nsegments, uint32_t blocks_per_segment,
		 uint32_t blocksize, struct cld_limits *out)
{
	uint64_t segbytes = (uint64_t)blocks_per_segment * blocksize;

	out->min_clean_segments = cld_size_to_segments(&c->min_clean_segments, nsegments, segbytes);
	out->max_clean_segments = cld_size_to_segments(&c->max_clean_segments, nsegments, segbytes);
	out->min_reclaimable_blocks = cld_size_to_blocks(&c->min_reclaimable_blocks,
							 blocks_per_segment, blocksize,
							 &out->min_reclaimable_clamped);
	out->mc_min_reclaimable_blocks = cld_size_to_blocks(&c->mc_min_reclaimable_blocks,
							    blocks_per_segment, blocksize,
							    &out->mc_min_reclaimable_clamped);
}

unsigned cld_manual_step(uint64_t segment_bytes, uint64_t interval)
{
	uint64_t n = segment_bytes ? (uint64_t)((double)MANUAL_SPEED * (double)interval /
						NS_PER_SEC / (double)segment_bytes) : 16;

	if (n < 1)
		n = 1;
	if (n > CLD_NSEGMENTS_PER_CLEAN_MAX)
		n = CLD_NSEGMENTS_PER_CLEAN_MAX;
	return (unsigned)n;
}
