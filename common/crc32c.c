/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CRC-32C (crc32c.h).  x86-64 CPUs with SSE 4.2 have an instruction for
 * this very polynomial, eight bytes a step; elsewhere a table built on
 * first use goes a byte at a time.
 */
#include <stdbool.h>
#include <string.h>

#include "crc32c.h"

#define POLY 0x82f63b78u

static uint32_t table[256];
static bool table_ready;

static void build_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
		table[i] = c;
	}
	table_ready = true;
}

static uint32_t crc_bytes(uint32_t c, const unsigned char *p, size_t len)
{
	if (!table_ready)
		build_table();
	while (len--)
		c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
	return c;
}

/* sparse (tests/unit/t-sparse.sh) knows no SSE builtins: it checks the portable path */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CHECKER__)
__attribute__((target("sse4.2")))
static uint32_t crc_sse42(uint32_t c, const unsigned char *p, size_t len)
{
	uint64_t c64 = c;

	for (; len >= 8; p += 8, len -= 8) {
		uint64_t v;

		memcpy(&v, p, 8);   /* the instruction takes the bytes in memory order */
		c64 = __builtin_ia32_crc32di(c64, v);
	}
	c = (uint32_t)c64;
	for (; len; p++, len--)
		c = __builtin_ia32_crc32qi(c, *p);
	return c;
}

static bool have_sse42(void)
{
	static int have = -1;

	if (have < 0) {
		__builtin_cpu_init();
		have = __builtin_cpu_supports("sse4.2") ? 1 : 0;
	}
	return have;
}
#endif

uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
	uint32_t c = ~crc;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CHECKER__)
	if (have_sse42())
		return ~crc_sse42(c, buf, len);
#endif
	return ~crc_bytes(c, buf, len);
}
