/* Minimal streaming JSON writer: keys and string values are escaped. */
#include "json.h"

static void put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

static void member(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->out);
	j->need_comma[j->depth] = true;
	if (key) {
		put_string(j->out, key);
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
	put_string(j->out, s);
}

void json_bool(struct json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->out);
}
