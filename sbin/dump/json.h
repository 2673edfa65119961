/* Minimal streaming JSON writer for dump.nilfs2's --json views. */
#ifndef DUMP_JSON_H
#define DUMP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json {
	FILE *out;
	int depth;
	bool need_comma[32];
};

void json_init(struct json *j, FILE *out);
void json_open(struct json *j, const char *key, char bracket);
void json_close(struct json *j, char bracket);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_str(struct json *j, const char *key, const char *s);
void json_bool(struct json *j, const char *key, bool v);

#endif
