/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsck.nilfs2's problem table: every code has a unique name that matches
 * it, a description, a severity and a pass (e2fsck's tst_problem). */
#include <string.h>

#include "check_main.h"
#include "../../sbin/fsck/fsck.h"

/* problem.c reports through these; the table test needs none of them */
void fsck_report_add(struct fsck *c, enum fsck_pr code, const char *msg)
{
	(void)c; (void)code; (void)msg;
}

START_TEST(table_is_complete_and_unique)
{
	for (int i = 0; i < PR_COUNT; i++) {
		const struct fsck_problem_def *d = &fsck_problems[i];

		ck_assert_ptr_nonnull(d->name);
		ck_assert(!strncmp(d->name, "PR_", 3));
		ck_assert_ptr_nonnull(d->desc);
		ck_assert(strlen(d->desc) > 10);
		ck_assert(d->severity == SEV_ERROR || d->severity == SEV_WARNING ||
			  d->severity == SEV_INFO);
		ck_assert(d->pass >= 0 && d->pass <= 6);
		/* a repair says what it does; a problem left as found says nothing */
		ck_assert_ptr_nonnull(d->action);
		ck_assert_int_eq(d->fix == FIX_NONE, d->action[0] == '\0');
		for (int j = 0; j < i; j++) {
			ck_assert_str_ne(d->name, fsck_problems[j].name);
			ck_assert_str_ne(d->desc, fsck_problems[j].desc);
		}
	}
	ck_assert_str_eq(fsck_problems[PR_SB_CRC].name, "PR_SB_CRC");
	ck_assert_str_eq(fsck_problems[PR_IO].name, "PR_IO");
}
END_TEST

/* every message belongs to one problem, under a unique name, and says
 * something; every problem but one no check finds has a message */
START_TEST(messages_belong_to_their_problem)
{
	unsigned nmsgs[PR_COUNT] = { 0 };

	ck_assert_uint_gt(fsck_nmessages, PR_COUNT);
	for (unsigned i = 0; i < fsck_nmessages; i++) {
		const struct fsck_message_def *m = &fsck_messages[i];

		ck_assert(!strncmp(m->name, "MSG_", 4));
		ck_assert(strlen(m->fmt) > 4);
		ck_assert_int_lt(fsck_msg_code(m->id), PR_COUNT);
		nmsgs[fsck_msg_code(m->id)]++;
		for (unsigned j = 0; j < i; j++) {
			ck_assert_str_ne(m->name, fsck_messages[j].name);
			ck_assert_int_ne(m->id, fsck_messages[j].id);
		}
	}
	ck_assert_int_eq(fsck_msg_code(MSG_SB_CRC), PR_SB_CRC);
	ck_assert_int_eq(fsck_msg_code(MSG_OOM_DAT), PR_IO);
	for (int i = 0; i < PR_COUNT; i++)
		ck_assert(nmsgs[i] > 0 || i == PR_SB_FREE);
}
END_TEST

START_TEST(problems_are_counted_by_severity)
{
	struct fsck c;

	memset(&c, 0, sizeof(c));
	fsck_problem(&c, MSG_SB_CRC, "primary superblock", 1024ull, 1u, 2u);
	fsck_problem(&c, MSG_SB_FEATURES, "primary superblock", 1ull, 2ull);
	fsck_problem(&c, MSG_ROLL_FORWARD, (uint64_t)1, (uint64_t)2, (uint64_t)3);
	fsck_problem(&c, MSG_OOM_DAT);
	ck_assert_uint_eq(c.nerrors, 2);
	ck_assert_uint_eq(c.nwarnings, 1);
	ck_assert(c.op_error);
	ck_assert_uint_eq(c.pr_count[PR_SB_CRC], 1);
	ck_assert(fsck_is_format_error(-NLFS_EBADCRC));
	ck_assert(!fsck_is_format_error(-5));
}
END_TEST

/* the sets of virtual blocks span the 64-bit space, 2^64 - 1 included,
 * with memory for the chunks used only */
START_TEST(vbitmap_spans_the_64_bit_space)
{
	static const uint64_t v[] = { 0, 1, 4095, 4096, (1ull << 40) + 12345, UINT64_MAX - 64,
				      UINT64_MAX - 1, UINT64_MAX };
	const size_t n = sizeof(v) / sizeof(v[0]);
	struct fsck_vbitmap b;
	struct fsck_viter it = { 0 };
	uint64_t got;
	size_t i = 0;

	fsck_vbitmap_init(&b);
	for (size_t k = n; k-- > 0;)
		fsck_vbit_set(&b, v[k]);
	ck_assert(!b.oom);
	ck_assert_uint_eq(b.nchunks, 4);
	ck_assert_uint_eq(fsck_vbitmap_count(&b), n);
	ck_assert(!fsck_vbit_test(&b, 2) && !fsck_vbit_test(&b, UINT64_MAX - 2));
	while (fsck_vbitmap_next(&b, &it, &got)) {
		ck_assert_uint_lt(i, n);
		ck_assert_uint_eq(got, v[i++]);
	}
	ck_assert_uint_eq(i, n);
	/* the walk from FROM, and after bit 2^64 - 1 it ends (no wrap to 0) */
	it = (struct fsck_viter){ .from = 4097 };
	ck_assert(fsck_vbitmap_next(&b, &it, &got));
	ck_assert_uint_eq(got, (1ull << 40) + 12345);
	it = (struct fsck_viter){ .from = UINT64_MAX };
	ck_assert(fsck_vbitmap_next(&b, &it, &got) && got == UINT64_MAX);
	ck_assert(!fsck_vbitmap_next(&b, &it, &got));
	ck_assert(fsck_vbit_test_set(&b, UINT64_MAX));
	fsck_vbit_clear(&b, UINT64_MAX);
	ck_assert(!fsck_vbit_test_set(&b, UINT64_MAX));
	fsck_vbitmap_clear_all(&b);
	ck_assert_uint_eq(fsck_vbitmap_count(&b), 0);
	it = (struct fsck_viter){ 0 };
	ck_assert(!fsck_vbitmap_next(&b, &it, &got));
	/* many chunks: the hash grows, the order is kept */
	for (uint64_t k = 0; k < 5000; k++)
		fsck_vbit_set(&b, (k * 0x9E3779B97F4A7C15ull) | 1);
	ck_assert_uint_eq(fsck_vbitmap_count(&b), 5000);
	it = (struct fsck_viter){ 0 };
	for (uint64_t last = 0, k = 0; fsck_vbitmap_next(&b, &it, &got); last = got, k++)
		ck_assert(k == 0 || got > last);
	fsck_vbitmap_free(&b);
}
END_TEST

/* the sweeps' view: words set at once, the chunks in ascending order of
 * key whatever order they were made in, each with its index, and the bits
 * of a chunk another set shares */
START_TEST(vbitmap_chunks_in_order)
{
	struct fsck_vbitmap a, o;
	const struct fsck_vchunk *ch;
	uint64_t prev = 0, total = 0;
	size_t idx1, i;

	fsck_vbitmap_init(&a);
	fsck_vbitmap_init(&o);
	fsck_vbit_set_word(&a, UINT64_MAX - 63, 0x8000000000000001ull);
	fsck_vbit_set_word(&a, 4096 * 7 + 64, 0);   /* nothing: no chunk */
	fsck_vbit_set_word(&a, 128, 0xf0);
	fsck_vbit_set(&a, 4096 * 3 + 5);
	fsck_vbit_set(&o, 4096 * 3 + 6);
	ck_assert(fsck_vbit_test(&a, 132) && fsck_vbit_test(&a, UINT64_MAX) &&
		  fsck_vbit_test(&a, UINT64_MAX - 63) && !fsck_vbit_test(&a, 136));
	for (i = 0; (ch = fsck_vbitmap_sorted(&a, i, &idx1)); i++) {
		ck_assert(i == 0 || ch->key > prev);
		ck_assert_ptr_eq(&a.chunks[idx1 - 1], ch);
		ck_assert_uint_eq(fsck_vbitmap_chunk_of(&a, ch->key << FSCK_VCHUNK_SHIFT), idx1);
		for (unsigned w = 0; w < FSCK_VCHUNK_BITS / 64; w++)
			total += (uint64_t)__builtin_popcountll(ch->words[w]);
		prev = ch->key;
	}
	ck_assert_uint_eq(i, 3);
	ck_assert_uint_eq(total, 7);
	ck_assert_ptr_null(fsck_vbitmap_words(&o, 0));
	ck_assert_uint_eq(fsck_vbitmap_words(&o, 3)[0], 1u << 6);
	fsck_vbitmap_free(&a);
	fsck_vbitmap_free(&o);
}
END_TEST

/* counts per inode in four bits each: small ones inline, from 15 on
 * aside (through the hash's growth), back inline when they fall, the
 * neighbour in the same byte untouched, and room grown with zeros */
START_TEST(icount_keeps_every_count)
{
	struct fsck_icount ic;
	const uint64_t n = 10001;
	size_t aside = 0;

	ck_assert_int_eq(fsck_icount_init(&ic, n), 0);
	for (uint64_t i = 0; i < n; i++) {
		uint32_t v = (uint32_t)(i % 40 == 0 ? 70000 + i : i % 17);

		fsck_icount_set(&ic, i, v);
		aside += v >= 15;
	}
	ck_assert(!ic.nomem);
	for (uint64_t i = 0; i < n; i++)
		ck_assert_uint_eq(fsck_icount_get(&ic, i), i % 40 == 0 ? 70000 + i : i % 17);
	ck_assert_uint_eq(ic.bigused, aside);
	/* down below 15 and up again: the stale entry is taken again */
	fsck_icount_set(&ic, 80, 3);
	ck_assert_uint_eq(fsck_icount_get(&ic, 80), 3);
	ck_assert_uint_eq(fsck_icount_get(&ic, 81), 81 % 17);
	fsck_icount_set(&ic, 80, 15);
	ck_assert_uint_eq(fsck_icount_get(&ic, 80), 15);
	ck_assert_uint_eq(ic.bigused, aside);
	for (uint32_t k = 0; k < 300; k++)
		fsck_icount_set(&ic, 7, fsck_icount_get(&ic, 7) + 1);
	ck_assert_uint_eq(fsck_icount_get(&ic, 7), 307);
	ck_assert_uint_eq(fsck_icount_get(&ic, 6), 6);
	ck_assert_uint_eq(fsck_icount_get(&ic, 8), 8);
	/* past the end: nothing kept, 0 read */
	fsck_icount_set(&ic, n, 5);
	ck_assert_uint_eq(fsck_icount_get(&ic, n), 0);
	ck_assert_int_eq(fsck_icount_grow(&ic, 3 * n), 0);
	ck_assert_uint_eq(fsck_icount_get(&ic, n - 1), 70000 + n - 1);
	ck_assert_uint_eq(fsck_icount_get(&ic, n - 2), (n - 2) % 17);
	for (uint64_t i = n; i < 3 * n; i++)
		ck_assert_uint_eq(fsck_icount_get(&ic, i), 0);
	fsck_icount_set(&ic, 3 * n - 1, 9);
	ck_assert_uint_eq(fsck_icount_get(&ic, 3 * n - 1), 9);
	ck_assert_uint_eq(fsck_icount_get(&ic, 3 * n - 2), 0);
	fsck_icount_free(&ic);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fsck-problem");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, table_is_complete_and_unique);
	tcase_add_test(tc, messages_belong_to_their_problem);
	tcase_add_test(tc, problems_are_counted_by_severity);
	tcase_add_test(tc, vbitmap_spans_the_64_bit_space);
	tcase_add_test(tc, vbitmap_chunks_in_order);
	tcase_add_test(tc, icount_keeps_every_count);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
