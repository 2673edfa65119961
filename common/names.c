/* SPDX-License-Identifier: GPL-2.0-or-later */
/* names.c - printing names from images safely (see names.h). */
#include "names.h"

size_t utf8_sequence(const unsigned char *p, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c, min;

	if (!n)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2, c = p[0] & 0x1f, min = 0x80;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3, c = p[0] & 0x0f, min = 0x800;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4, c = p[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

bool utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;

	for (size_t i = 0, n; i < len; i += n)
		if (!(n = utf8_sequence(p + i, len - i, &cp)))
			return false;
	return true;
}

/* Unicode's explicit bidirectional formatting characters (LRM, RLM, ALM,
 * the embeddings and overrides, the isolates): shown raw they reorder what
 * a terminal shows around them (a name could look like another: U+202E,
 * "Trojan Source") */
static bool bidi_control(uint32_t cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

void fput_name(FILE *out, const char *name, size_t len)
{
	const unsigned char *p = (const unsigned char *)name;

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_sequence(p + i, len - i, &cp);

		if (n && cp == '\\') {
			fputs("\\\\", out);
		} else if (n && cp == '\n') {
			fputs("\\n", out);
		} else if (n && cp == '\t') {
			fputs("\\t", out);
		} else if (n && cp >= 0x20 && cp != 0x7f && (cp < 0x80 || cp >= 0xa0) &&
			   !bidi_control(cp)) {
			fwrite(p + i, 1, n, out);
		} else {
			/* a control character (bidirectional ones too) or a byte
			 * that is not UTF-8: each of its bytes in octal */
			if (!n)
				n = 1;
			for (size_t k = 0; k < n; k++)
				fprintf(out, "\\%03o", p[i + k]);
		}
		i += n;
	}
}
