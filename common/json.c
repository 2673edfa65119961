/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The commands' JSON writer (see json.h). */
#include <string.h>

#include "json.h"
#include "names.h"

void json_put_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);

	fputc('"', out);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_sequence(p + i, len - i, &cp);

		if (!n) {
			/* not UTF-8: the replacement character; json_put_bytes()
			 * gives the bytes (a lone surrogate, \udcXX, would round-trip
			 * too, but strict parsers reject it) */
			fputs("\\ufffd", out);
			n = 1;
		} else if (cp == '"' || cp == '\\') {
			fprintf(out, "\\%c", (int)cp);
		} else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
			fprintf(out, "\\u%04x", (unsigned)cp);
		} else {
			fwrite(p + i, 1, n, out);
		}
		i += n;
	}
	fputc('"', out);
}

void json_put_bytes(FILE *out, const char *key, const char *s)
{
	size_t len = strlen(s);

	if (utf8_valid(s, len))
		return;
	fputc(',', out);
	fputc('"', out);
	fputs(key, out);
	fputs("_bytes\":\"", out);
	for (size_t i = 0; i < len; i++)
		fprintf(out, "%02x", (unsigned char)s[i]);
	fputc('"', out);
}

static void member(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->out);
	j->need_comma[j->depth] = true;
	if (key) {
		json_put_string(j->out, key);
		fputc(':', j->out);
	}
}

void json_init(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->need_comma[0] = false;
}

void json_open(struct json *j, const char *key, char bracket)
{
	member(j, key);
	fputc(bracket, j->out);
	if (j->depth < 31)
		j->depth++;
	j->need_comma[j->depth] = false;
}

void json_close(struct json *j, char bracket)
{
	if (j->depth > 0)
		j->depth--;
	fputc(bracket, j->out);
	if (j->depth == 0)
		fputc('\n', j->out);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->out, "%llu", (unsigned long long)v);
}

void json_str(struct json *j, const char *key, const char *s)
{
	member(j, key);
	json_put_string(j->out, s);
	if (key)
		json_put_bytes(j->out, key, s);
}

void json_bool(struct json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->out);
}

void json_list_begin(struct json_list *l, FILE *out, const char *name)
{
	json_init(&l->j, out);
	l->any = false;
	json_open(&l->j, NULL, '{');
	json_open(&l->j, name, '[');
}

void json_list_end(struct json_list *l)
{
	if (l->any)
		fputc('\n', l->j.out);
	json_close(&l->j, ']');
	json_close(&l->j, '}');
}

void json_record_begin(struct json_list *l)
{
	/* each record on a line of its own */
	if (l->j.need_comma[l->j.depth])
		fputc(',', l->j.out);
	l->j.need_comma[l->j.depth] = false;
	fputc('\n', l->j.out);
	l->any = true;
	json_open(&l->j, NULL, '{');
}

void json_record_end(struct json_list *l)
{
	json_close(&l->j, '}');
	l->j.need_comma[l->j.depth] = true;
}

void json_field_u64(struct json_list *l, const char *key, uint64_t v)
{
	json_u64(&l->j, key, v);
}

void json_field_str(struct json_list *l, const char *key, const char *s)
{
	json_str(&l->j, key, s);
}

void json_field_bool(struct json_list *l, const char *key, bool v)
{
	json_bool(&l->j, key, v);
}
