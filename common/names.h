/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * names.h - file names from an image are untrusted bytes: printed for a
 * person, control characters and bytes that are not UTF-8 are escaped so
 * that a name cannot drive the terminal; written as JSON, valid UTF-8
 * passes through unchanged.
 */
#ifndef NLFS_COMMON_NAMES_H
#define NLFS_COMMON_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The length of the valid UTF-8 sequence at P (at most N bytes), its code
 * point in *CP; 0 if P does not start one (overlong, surrogate, too big,
 * cut short). */
size_t utf8_sequence(const unsigned char *p, size_t n, uint32_t *cp);

/* Is S (LEN bytes) valid UTF-8 throughout? */
bool utf8_valid(const char *s, size_t len);

/* NAME (LEN bytes) for a person: printable UTF-8 as is; backslash as \\,
 * newline as \n, tab as \t, every other control character (C0, DEL, C1,
 * and the bidirectional controls U+061C, U+200E/F, U+202A..E, U+2066..9)
 * and every byte that is not part of valid UTF-8 as \ooo (octal) */
void fput_name(FILE *out, const char *name, size_t len);

#endif
