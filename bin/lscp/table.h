/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * table.h - lscp's and lssu's output in util-linux's conventions, through
 * libsmartcols: columns chosen with -o/--output, --raw, --noheadings and
 * -J/--json.  The default output is not made here: it is nilfs-tools'
 * fixed layout, byte for byte, printed directly (faster, and libsmartcols
 * cannot reproduce its irregular spacing).
 */
#ifndef LSCP_TABLE_H
#define LSCP_TABLE_H

#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct libscols_table;

struct table_column {
	const char *name;       /* as -o takes it; lower-cased, the JSON key */
	const char *help;       /* for --help */
	bool number;            /* right-aligned, a JSON number */
};

#define TABLE_MAX_COLUMNS 16

/* one cell: the text of column COL of ROW; NULL for none (JSON null) */
typedef const char *(*table_cell_fn)(const void *row, int col, char *buf, size_t len);

struct table {
	const struct table_column *cols;   /* indexed by column id */
	size_t ncols;
	table_cell_fn cell;
	/* the options */
	const char *output;
	bool raw, json, noheadings;
	bool on;                           /* a table is printed: -o, --raw or -J */
	int sel[TABLE_MAX_COLUMNS];        /* the ids shown, in order */
	size_t nsel;
	struct libscols_table *tb;
};

/* the options, for getopt_long */
enum { TABLE_OPT_RAW = CHAR_MAX + 1, TABLE_OPT_NOHEADINGS };
#define TABLE_SHORTOPTS "o:J"
#define TABLE_LONGOPTS                                                     \
	{ "output", required_argument, NULL, 'o' },                        \
	{ "raw", no_argument, NULL, TABLE_OPT_RAW },                       \
	{ "noheadings", no_argument, NULL, TABLE_OPT_NOHEADINGS },         \
	{ "json", no_argument, NULL, 'J' }
/* OPT from getopt: true if it is one of the table's (then taken) */
bool table_option(struct table *t, int opt, const char *arg);
/* their lines in --help */
void table_usage_options(FILE *out);

/* After the options: the columns shown when -o names none (IDS), or that
 * "-o +COLS" extends, then -o's choice.  False after a message naming an
 * unknown column. */
bool table_setup(struct table *t, const int *ids, size_t n);
bool table_shows(const struct table *t, int id);

/* start a table named NAME (the JSON object's array); 0 or -ENOMEM */
int table_begin(struct table *t, const char *name);
/* one row; 0 or -ENOMEM */
int table_add(struct table *t, const void *row);
/* print what was added and free it; 0 or a negative errno */
int table_end(struct table *t);

/* "Available output columns:" and one line per column, for --help */
void table_usage(FILE *out, const struct table_column *cols, size_t n);

/* the DATE (or TIME) cell of time T, local time; NULL for T == 0 if
 * UNSET_NULL */
const char *table_date_cell(uint64_t t, bool date, bool unset_null, char *buf, size_t len);

#endif
