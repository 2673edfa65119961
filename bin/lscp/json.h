/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json.h - the --json output of lscp and lssu: one object holding one array,
 * one record per line, e.g. {"checkpoints":[\n{"cno":1,...},\n...]}.
 */
#ifndef LSCP_JSON_H
#define LSCP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_list {
	FILE *out;
	bool need_comma;        /* between records */
	bool in_record, need_field_comma;
};

void json_list_begin(struct json_list *j, FILE *out, const char *name);
void json_list_end(struct json_list *j);
void json_record_begin(struct json_list *j);
void json_record_end(struct json_list *j);
void json_field_u64(struct json_list *j, const char *key, uint64_t v);
void json_field_str(struct json_list *j, const char *key, const char *s);
void json_field_bool(struct json_list *j, const char *key, bool v);

#endif
