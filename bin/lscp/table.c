/* SPDX-License-Identifier: GPL-2.0-or-later */
/* table.c - util-linux's table output for lscp and lssu (table.h). */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include <libsmartcols.h>

#include "cli.h"
#include "table.h"

bool table_option(struct table *t, int opt, const char *arg)
{
	switch (opt) {
	case 'o': t->output = arg; return true;
	case TABLE_OPT_RAW: t->raw = true; return true;
	case TABLE_OPT_NOHEADINGS: t->noheadings = true; return true;
	case 'J': t->json = true; return true;
	default: return false;
	}
}

void table_usage_options(FILE *out)
{
	fputs(" -o, --output <list>      the columns to show (+list: after the default)\n"
	      "     --raw                a table in raw form\n"
	      "     --noheadings         no header line\n"
	      " -J, --json               a table in JSON\n", out);
}

static int column_id(const struct table *t, const char *name, size_t len)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (strlen(t->cols[i].name) == len && !strncasecmp(t->cols[i].name, name, len))
			return (int)i;
	return -1;
}

/* -o's argument: COL,... in place of the defaults, +COL,... after them */
static bool table_select(struct table *t, const char *arg)
{
	const char *p = arg;

	if (*p == '+')
		p++;
	else
		t->nsel = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		int id = column_id(t, p, len);

		if (id < 0) {
			cli_warnx("unknown column: %.*s", (int)len, p);
			return false;
		}
		if (t->nsel == TABLE_MAX_COLUMNS) {
			cli_warnx("too many columns: %s", arg);
			return false;
		}
		t->sel[t->nsel++] = id;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!t->nsel) {
		cli_warnx("no columns: '%s'", arg);
		return false;
	}
	return true;
}

bool table_setup(struct table *t, const int *ids, size_t n)
{
	t->on = t->output || t->raw || t->json;
	memcpy(t->sel, ids, n * sizeof(ids[0]));
	t->nsel = n;
	return !t->output || table_select(t, t->output);
}

bool table_shows(const struct table *t, int id)
{
	for (size_t i = 0; i < t->nsel; i++)
		if (t->sel[i] == id)
			return true;
	return false;
}

int table_begin(struct table *t, const char *name)
{
	t->tb = scols_new_table();
	if (!t->tb)
		return -ENOMEM;
	scols_table_enable_raw(t->tb, t->raw);
	scols_table_enable_json(t->tb, t->json);
	scols_table_enable_noheadings(t->tb, t->noheadings);
	if (scols_table_set_name(t->tb, name))
		return -ENOMEM;
	for (size_t i = 0; i < t->nsel; i++) {
		const struct table_column *c = &t->cols[t->sel[i]];
		struct libscols_column *cl =
			scols_table_new_column(t->tb, c->name, 0, c->number ? SCOLS_FL_RIGHT : 0);

		if (!cl)
			return -ENOMEM;
		scols_column_set_json_type(cl, c->number ? SCOLS_JSON_NUMBER : SCOLS_JSON_STRING);
	}
	return 0;
}

int table_add(struct table *t, const void *row)
{
	struct libscols_line *ln = scols_table_new_line(t->tb, NULL);
	char buf[64];

	if (!ln)
		return -ENOMEM;
	for (size_t i = 0; i < t->nsel; i++) {
		const char *s = t->cell(row, t->sel[i], buf, sizeof(buf));

		if (s && scols_line_set_data(ln, i, s))
			return -ENOMEM;
	}
	return 0;
}

int table_end(struct table *t)
{
	int rc = scols_print_table(t->tb);

	scols_unref_table(t->tb);
	t->tb = NULL;
	return rc < 0 ? rc : 0;
}

void table_usage(FILE *out, const struct table_column *cols, size_t n)
{
	fputs("\nAvailable output columns:\n", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, " %11s  %s\n", cols[i].name, cols[i].help);
}

const char *table_date_cell(uint64_t t, bool date, bool unset_null, char *buf, size_t len)
{
	if (!t && unset_null)
		return NULL;
	cli_format_time(t, buf, len);
	if (strlen(buf) != 19)   /* not a date: the number, as DATE */
		return date ? buf : NULL;
	buf[10] = 0;
	return date ? buf : buf + 11;
}
