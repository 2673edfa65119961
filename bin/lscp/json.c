/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json.c - records of lscp/lssu --json; keys are ours, strings are escaped. */
#include "json.h"

static void put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

void json_list_begin(struct json_list *j, FILE *out, const char *name)
{
	j->out = out;
	j->need_comma = false;
	j->in_record = false;
	fputc('{', out);
	put_string(out, name);
	fputs(":[", out);
}

void json_list_end(struct json_list *j)
{
	fputs(j->need_comma ? "\n]}\n" : "]}\n", j->out);
}

void json_record_begin(struct json_list *j)
{
	fputs(j->need_comma ? ",\n{" : "\n{", j->out);
	j->need_comma = true;
	j->in_record = true;
	j->need_field_comma = false;
}

void json_record_end(struct json_list *j)
{
	fputc('}', j->out);
	j->in_record = false;
}

static void key(struct json_list *j, const char *k)
{
	if (j->need_field_comma)
		fputc(',', j->out);
	j->need_field_comma = true;
	put_string(j->out, k);
	fputc(':', j->out);
}

void json_field_u64(struct json_list *j, const char *k, uint64_t v)
{
	key(j, k);
	fprintf(j->out, "%llu", (unsigned long long)v);
}

void json_field_str(struct json_list *j, const char *k, const char *s)
{
	key(j, k);
	put_string(j->out, s);
}

void json_field_bool(struct json_list *j, const char *k, bool v)
{
	key(j, k);
	fputs(v ? "true" : "false", j->out);
}
