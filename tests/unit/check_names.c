/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Names from images printed for people and as JSON (common/names.c,
 * common/json.c): control characters and invalid UTF-8 never reach a
 * terminal raw; valid UTF-8 passes through JSON unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "json.h"
#include "names.h"

/* what F(out, ...) wrote, as a string (freed by the caller) */
static char *human(const char *name, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	ck_assert_ptr_nonnull(f);
	fput_name(f, name, len);
	fclose(f);
	return buf;
}

static char *json(const char *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	ck_assert_ptr_nonnull(f);
	json_put_string(f, s);
	fclose(f);
	return buf;
}

#define HUMAN(in, want) do { char *o = human(in, sizeof(in) - 1); \
	ck_assert_str_eq(o, want); free(o); } while (0)
#define JSON(in, want) do { char *o = json(in); ck_assert_str_eq(o, want); free(o); } while (0)

START_TEST(utf8_sequences)
{
	uint32_t cp;

	ck_assert_uint_eq(utf8_sequence((const unsigned char *)"a", 1, &cp), 1);
	ck_assert_uint_eq(cp, 'a');
	ck_assert_uint_eq(utf8_sequence((const unsigned char *)"\xc3\xa9", 2, &cp), 2);
	ck_assert_uint_eq(cp, 0xe9);
	ck_assert_uint_eq(utf8_sequence((const unsigned char *)"\xf0\x9f\x98\x80", 4, &cp), 4);
	ck_assert_uint_eq(cp, 0x1f600);
	/* cut short, overlong, a surrogate, past U+10FFFF, a lone continuation */
	ck_assert_uint_eq(utf8_sequence((const unsigned char *)"\xc3\xa9", 1, &cp), 0);
	ck_assert_uint_eq(utf8_sequence((const unsigned char *)"\xc0\xaf", 2, &cp), 0);
	ck_assert_uint_eq(utf8_sequence((const unsigned char *)"\xed\xa0\x80", 3, &cp), 0);
	ck_assert_uint_eq(utf8_sequence((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp), 0);
	ck_assert_uint_eq(utf8_sequence((const unsigned char *)"\x80", 1, &cp), 0);
}
END_TEST

START_TEST(human_names_cannot_drive_a_terminal)
{
	HUMAN("plain.txt", "plain.txt");
	HUMAN("caf\xc3\xa9", "caf\xc3\xa9");
	HUMAN("a\x1b[2Jb", "a\\033[2Jb");
	HUMAN("two\nlines\tx", "two\\nlines\\tx");
	HUMAN("back\\slash", "back\\\\slash");
	HUMAN("del\x7f", "del\\177");
	/* U+009B, a C1 control (CSI), and a raw 0x9b byte */
	HUMAN("c1\xc2\x9b", "c1\\302\\233");
	HUMAN("raw\x9b", "raw\\233");
	HUMAN("bad\xff\xfe", "bad\\377\\376");
	/* a name may hold a NUL byte on a damaged image: escaped, not cut */
	HUMAN("nul\0x", "nul\\000x");
}
END_TEST

START_TEST(json_keeps_utf8_and_recovers_bytes)
{
	JSON("caf\xc3\xa9", "\"caf\xc3\xa9\"");
	JSON("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");
	JSON("q\"b\\", "\"q\\\"b\\\\\"");
	JSON("esc\x1b", "\"esc\\u001b\"");
	JSON("c1\xc2\x9b", "\"c1\\u009b\"");
	/* what is not UTF-8 is U+FFFD, valid for every parser ... */
	JSON("bad\xff", "\"bad\\ufffd\"");
	JSON("\xc3", "\"\\ufffd\"");
}
END_TEST

/* ... and a member KEY_bytes, only then, gives the bytes back */
START_TEST(json_member_bytes)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_init(&j, f);
	json_open(&j, NULL, '{');
	json_str(&j, "name", "bad\xff");
	json_str(&j, "ok", "caf\xc3\xa9");
	json_close(&j, '}');
	fclose(f);
	ck_assert_str_eq(buf, "{\"name\":\"bad\\ufffd\",\"name_bytes\":\"626164ff\","
			      "\"ok\":\"caf\xc3\xa9" "\"}\n");
	free(buf);
}
END_TEST

START_TEST(bidi_controls_are_escaped)
{
	/* U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LRI, U+200F RLM, U+061C ALM */
	HUMAN("evil\xe2\x80\xae" "cod.exe", "evil\\342\\200\\256cod.exe");
	HUMAN("a\xe2\x81\xa6" "b", "a\\342\\201\\246b");
	HUMAN("\xe2\x80\x8f", "\\342\\200\\217");
	HUMAN("\xd8\x9c", "\\330\\234");
	/* U+2010 HYPHEN beside them is printable */
	HUMAN("a\xe2\x80\x90" "b", "a\xe2\x80\x90" "b");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("names");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, utf8_sequences);
	tcase_add_test(tc, human_names_cannot_drive_a_terminal);
	tcase_add_test(tc, json_keeps_utf8_and_recovers_bytes);
	tcase_add_test(tc, json_member_bytes);
	tcase_add_test(tc, bidi_controls_are_escaped);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
