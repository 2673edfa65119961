/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * problems-man - the PROBLEMS section of fsck.nilfs2(8), made from the
 * problem table (sbin/fsck/problem.h), so the man page says what the code
 * does about each problem.
 *
 *   problems-man               print the section (roff)
 *   problems-man --check FILE  exit 1 if FILE's section is not that
 *   problems-man --update FILE replace FILE's section with it
 *
 * The section sits between the lines MARK_BEGIN and MARK_END in FILE.
 */
#define _GNU_SOURCE   /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"

#define MARK_BEGIN ".\\\" BEGIN PROBLEMS: made by tests/fsck/problems-man from sbin/fsck/problem.h"
#define MARK_END ".\\\" END PROBLEMS"

struct row {
	const char *code;
	enum fsck_severity sev;
	int pass;
	enum fsck_fix fix;
	const char *desc, *action;
};

static const struct row rows[] = {
#define ROW(code, sev, pass, fix, desc, action, msgs) { #code, sev, pass, fix, desc, action },
	FSCK_PROBLEMS(ROW, FSCK_PR_NO_MSG)
#undef ROW
};

/* TEXT as roff running text (an option's dash as a minus), its first
 * letter upper case if CAP */
static void put_text(FILE *out, const char *text, int cap)
{
	for (const char *p = text; *p; p++) {
		char ch = cap && p == text && *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;

		if (ch == '\\')
			fputs("\\e", out);
		else if (ch == '-' && (p == text || p[-1] == ' ' || p[-1] == '-'))
			fputs("\\-", out);
		else
			fputc(ch, out);
	}
}

static void section(FILE *out)
{
	static const char *const sevname[] = { "error", "warning", "note" };

	fputs(MARK_BEGIN "\n"
	      ".SH PROBLEMS\n"
	      "Every problem\n.B fsck.nilfs2\n"
	      "reports, by the code\n.B \\-\\-json\n"
	      "counts it under, with its severity (an error sets bit 4 of the exit status;\n"
	      "a warning and a note do not), the pass that finds it, and what a repair\n"
	      "does about it.\n"
	      "Repaired by \\-p means safe to preen: nothing a user stored can be lost.\n", out);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];

		fprintf(out, ".TP\n.B %s\n", r->code);
		fprintf(out, "(%s, pass %d) ", sevname[r->sev], r->pass);
		put_text(out, r->desc, 1);
		fputs(".\n.br\n", out);
		switch (r->fix) {
		case FIX_PREEN:
			fputs("Repaired by \\-p and \\-y: ", out);
			break;
		case FIX_YES:
			fputs("Repaired by \\-y only: ", out);
			break;
		case FIX_NONE:
			fputs(r->sev == SEV_ERROR ? "Not repaired.\n" : "Nothing to repair.\n", out);
			continue;
		}
		put_text(out, r->action, 0);
		fputs(".\n", out);
	}
	fputs(MARK_END "\n", out);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f) {
		perror(path);
		return NULL;
	}
	do {
		char *nb;

		if (*len + 4096 + 1 > cap) {
			cap = cap * 2 + 8192;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + *len, 1, 4096, f);
		*len += n;
	} while (n > 0);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	char *page, *gen = NULL, *begin, *end;
	size_t len, genlen = 0;
	FILE *mem;
	int rc = 0;

	if (argc == 1) {
		section(stdout);
		return 0;
	}
	if (argc != 3 || (strcmp(argv[1], "--check") && strcmp(argv[1], "--update"))) {
		fprintf(stderr, "usage: problems-man [--check FILE | --update FILE]\n");
		return 2;
	}
	page = slurp(argv[2], &len);
	if (!page)
		return 2;
	begin = strstr(page, MARK_BEGIN "\n");
	end = begin ? strstr(begin, MARK_END "\n") : NULL;
	if (!end) {
		fprintf(stderr, "problems-man: %s has no '%s' ... '%s' lines\n", argv[2],
			MARK_BEGIN, MARK_END);
		free(page);
		return 2;
	}
	end += strlen(MARK_END "\n");
	mem = open_memstream(&gen, &genlen);
	if (!mem) {
		free(page);
		return 2;
	}
	section(mem);
	fclose(mem);
	if (!strcmp(argv[1], "--check")) {
		rc = (size_t)(end - begin) != genlen || memcmp(begin, gen, genlen);
	} else {
		FILE *out = fopen(argv[2], "wb");

		if (!out || fwrite(page, 1, (size_t)(begin - page), out) != (size_t)(begin - page) ||
		    fwrite(gen, 1, genlen, out) != genlen ||
		    fwrite(end, 1, len - (size_t)(end - page), out) != len - (size_t)(end - page) ||
		    fclose(out)) {
			perror(argv[2]);
			rc = 2;
		}
	}
	free(gen);
	free(page);
	return rc;
}
