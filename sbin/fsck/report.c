/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.c - what the checker prints: pass headers, problem lines, the
 * -C progress lines (or with -C 0 on a terminal, e2fsck's progress bar),
 * and the --json summary.
 *
 * Problem lines read "fsck.nilfs2: DEVICE: object: what" (in preen mode
 * "DEVICE: object: what", as fsck(8) runs several checkers at once).
 * With --json, standard output carries only the JSON document and the
 * human-readable lines go to standard error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "progress.h"
#include "fsck.h"
#include "array.h"

/* set by main.c's signal handlers, read here where the passes ask */
volatile sig_atomic_t fsck_cancel_requested;
volatile sig_atomic_t fsck_progress_toggle;

struct report_item {
	enum fsck_pr code;
	char *msg;
};

struct fsck_report {
	struct report_item *items;
	size_t n, cap;
	int last_pass;
	uint64_t last_permille;
	struct progress bar;       /* -C 0: drawn only if standard output is a terminal */
	bool bar_ready;
};

static FILE *human(const struct fsck *c)
{
	return c->o.json ? stderr : stdout;
}

int fsck_report_init(struct fsck *c)
{
	c->report = calloc(1, sizeof(*c->report));
	return c->report ? 0 : -ENOMEM;
}

void fsck_report_free(struct fsck *c)
{
	if (!c->report)
		return;
	for (size_t i = 0; i < c->report->n; i++)
		free(c->report->items[i].msg);
	free(c->report->items);
	free(c->report);
	c->report = NULL;
}

static void line(const struct fsck *c, const char *tag, const char *msg)
{
	FILE *out = human(c);

	if (c->report)
		progress_clear(&c->report->bar);
	if (c->o.mode == MODE_PREEN)
		fprintf(out, "%s: %s%s\n", c->o.device, tag, msg);
	else
		fprintf(out, "%s: %s: %s%s\n", FSCK_PROG, c->o.device, tag, msg);
}

void fsck_report_add(struct fsck *c, enum fsck_pr code, const char *msg)
{
	struct fsck_report *r = c->report;
	static const char *const tags[] = { "", "warning: ", "note: " };

	line(c, tags[fsck_problems[code].severity], msg);
	if (!c->o.json || !r)
		return;
	if (CLI_GROW(r->items, r->cap, r->n + 1))
		return;
	r->items[r->n].code = code;
	r->items[r->n].msg = strdup(msg);
	if (r->items[r->n].msg)
		r->n++;
}

void fsck_info(struct fsck *c, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (c->o.mode == MODE_PREEN && !c->o.verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	line(c, "", msg);
}

void fsck_verbose(struct fsck *c, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!c->o.verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	line(c, "", msg);
}

void fsck_pass_begin(struct fsck *c, int pass, const char *what)
{
	if (c->report)
		progress_clear(&c->report->bar);
	if (c->o.mode != MODE_PREEN)
		fprintf(human(c), "Pass %d: %s\n", pass, what);
	fsck_progress(c, pass, 0, 1);
}

/* The bar's share of the whole check at the start of each pass 1-6, in
 * percent: the logs and the inodes take most of the time. */
static const double pass_start[] = { 0, 0, 1, 6, 46, 56, 60, 100 };

/* -C 0 as e2fsck: one bar over all passes, labelled with the device */
static void bar_progress(struct fsck *c, int pass, uint64_t cur, uint64_t max)
{
	struct fsck_report *r = c->report;
	double share;

	if (!r->bar_ready) {
		progress_init_unless(&r->bar, stdout, c->o.device, c->o.json);
		r->bar_ready = true;
	}
	if (pass < 1 || pass > 6)
		return;
	share = cur >= max ? 1 : (double)cur / (double)max;
	progress_percent(&r->bar, pass_start[pass] + share * (pass_start[pass + 1] - pass_start[pass]));
}

void fsck_progress_done(struct fsck *c)
{
	if (c->report)
		progress_clear(&c->report->bar);
}

/* e2fsck's -C format: "pass current max device", at most 1000 lines a pass */
void fsck_progress(struct fsck *c, int pass, uint64_t cur, uint64_t max)
{
	struct fsck_report *r = c->report;
	uint64_t pm;
	char buf[256];
	int n;

	if (fsck_progress_toggle && c->o.progress_set) {
		c->o.progress_on = fsck_progress_toggle == 1;
		fsck_progress_toggle = 0;
	}
	if (!c->o.progress_on || !r)
		return;
	if (max == 0)
		max = 1;
	pm = cur >= max ? 1000 : cur * 1000 / max;
	if (pass == r->last_pass && pm == r->last_permille)
		return;
	r->last_pass = pass;
	r->last_permille = pm;
	/* -C 0: a terminal gets the bar, anything else nothing */
	if (c->o.progress_fd == 0) {
		bar_progress(c, pass, cur, max);
		return;
	}
	n = snprintf(buf, sizeof(buf), "%d %llu %llu %s\n", pass, (unsigned long long)cur,
		     (unsigned long long)max, c->o.device);
	if (n > 0 && write(c->o.progress_fd < 0 ? -c->o.progress_fd : c->o.progress_fd,
			   buf, (size_t)n) < 0)
		c->o.progress_on = false;
}

bool fsck_cancelled(struct fsck *c)
{
	(void)c;
	return fsck_cancel_requested != 0;
}

void fsck_report_finish(struct fsck *c, int exit_code, const char *status)
{
	struct fsck_report *r = c->report;
	FILE *out = stdout;
	static const char *const sev[] = { "error", "warning", "note" };
	bool first = true;

	for (int i = 0; i < PR_COUNT; i++) {
		if (c->pr_count[i] > 50 && !c->o.verbose)
			fsck_info(c, "%llu more problem(s) of the kind %s not shown (use -v)",
				  (unsigned long long)(c->pr_count[i] - 50), fsck_problems[i].name);
	}
	if (!c->o.json)
		return;
	fputs("{\"device\":", out);
	json_put_string(out, c->o.device);
	json_put_bytes(out, "device", c->o.device);
	fputs(",\"status\":", out);
	json_put_string(out, status);
	fprintf(out, ",\"exit_code\":%d,\"errors\":%llu,\"warnings\":%llu", exit_code,
		(unsigned long long)c->nerrors, (unsigned long long)c->nwarnings);
	fprintf(out, ",\"checkpoint\":%llu,\"checkpoints_checked\":%llu,\"checkpoints\":%llu,"
		"\"snapshots\":%llu,\"segments_in_use\":%llu,\"logs\":%llu,\"inodes\":%llu,"
		"\"directories\":%llu,\"logs_data_checksum_verified\":%llu",
		(unsigned long long)c->latest_cno, (unsigned long long)c->ncps_checked,
		(unsigned long long)c->ncheckpoints, (unsigned long long)c->nsnapshots,
		(unsigned long long)c->nsegs_used, (unsigned long long)c->nlogs,
		(unsigned long long)c->ninodes, (unsigned long long)c->ndirs,
		(unsigned long long)c->nlogs_datasum);
	fputs(",\"counts\":{", out);
	for (int i = 0; i < PR_COUNT; i++) {
		if (!c->pr_count[i])
			continue;
		fprintf(out, "%s\"%s\":%llu", first ? "" : ",", fsck_problems[i].name,
			(unsigned long long)c->pr_count[i]);
		first = false;
	}
	fputs("},\"problems\":[", out);
	for (size_t i = 0; r && i < r->n; i++) {
		const struct fsck_problem_def *d = &fsck_problems[r->items[i].code];

		fprintf(out, "%s{\"code\":\"%s\",\"severity\":\"%s\",\"pass\":%d,\"message\":",
			i ? "," : "", d->name, sev[d->severity], d->pass);
		json_put_string(out, r->items[i].msg);
		json_put_bytes(out, "message", r->items[i].msg);
		fputc('}', out);
	}
	fputs("]}\n", out);
}
