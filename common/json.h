/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The commands' --json output: a minimal streaming writer (dump.nilfs2,
 * fsck.nilfs2) and, on top of it, the one-record-per-line lists of lscp and
 * lssu.  Strings are written as UTF-8: valid UTF-8 passes through, '"' and
 * '\\' and control characters are escaped, and a byte that is not part of
 * valid UTF-8 becomes U+FFFD, so that every JSON parser accepts the text.
 * Where a member's string is not UTF-8, a member KEY_bytes follows it with
 * the exact bytes in hex ("name":"bad\ufffd","name_bytes":"626164ff"):
 * the bytes of any name can be recovered, and a UTF-8 one is unchanged.
 */
#ifndef NLFS_COMMON_JSON_H
#define NLFS_COMMON_JSON_H

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
/* a quoted, escaped string (U+FFFD for each byte that is not UTF-8) */
void json_put_string(FILE *out, const char *s);
/* after member KEY's string S: ,"KEY_bytes":"HEX" if S is not UTF-8 */
void json_put_bytes(FILE *out, const char *key, const char *s);

/* {"NAME":[\n{record},\n...\n]} */
struct json_list {
	struct json j;
	bool any;
};
void json_list_begin(struct json_list *l, FILE *out, const char *name);
void json_list_end(struct json_list *l);
void json_record_begin(struct json_list *l);
void json_record_end(struct json_list *l);
void json_field_u64(struct json_list *l, const char *key, uint64_t v);
void json_field_str(struct json_list *l, const char *key, const char *s);
void json_field_bool(struct json_list *l, const char *key, bool v);

#endif
