/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The on-disk little-endian integer types and their explicit conversions.
 * To a compiler nlfs_le16_t, nlfs_le32_t and nlfs_le64_t are plain
 * integers; to sparse (tests/unit/t-sparse.sh) each is a type of its own
 * that only the conversions below turn into a number and back, so a field
 * read or written without its conversion is a warning, as in the kernel.
 */
#ifndef NLFS_ENDIAN_H
#define NLFS_ENDIAN_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

#ifdef __CHECKER__
#define NLFS_BITWISE __attribute__((bitwise))
#define NLFS_FORCE __attribute__((force))
#else
#define NLFS_BITWISE
#define NLFS_FORCE
#endif

typedef uint16_t NLFS_BITWISE nlfs_le16_t;
typedef uint32_t NLFS_BITWISE nlfs_le32_t;
typedef uint64_t NLFS_BITWISE nlfs_le64_t;

static inline uint16_t nlfs_le16(nlfs_le16_t v) { return le16toh((NLFS_FORCE uint16_t)v); }
static inline uint32_t nlfs_le32(nlfs_le32_t v) { return le32toh((NLFS_FORCE uint32_t)v); }
static inline uint64_t nlfs_le64(nlfs_le64_t v) { return le64toh((NLFS_FORCE uint64_t)v); }
static inline nlfs_le16_t nlfs_cpu_to_le16(uint16_t v) { return (NLFS_FORCE nlfs_le16_t)htole16(v); }
static inline nlfs_le32_t nlfs_cpu_to_le32(uint32_t v) { return (NLFS_FORCE nlfs_le32_t)htole32(v); }
static inline nlfs_le64_t nlfs_cpu_to_le64(uint64_t v) { return (NLFS_FORCE nlfs_le64_t)htole64(v); }
/* nlfs_get_le16/32/64(P) and nlfs_put_le16/32/64(P, V): the little-endian
 * integer at P (any alignment), read and written, for buffers whose layout
 * no struct describes (node keys, counters, checksums) */
#define NLFS_LE_ACCESS(bits)                                                    \
	static inline uint##bits##_t nlfs_get_le##bits(const void *p)           \
	{                                                                       \
		nlfs_le##bits##_t v;                                            \
		memcpy(&v, p, sizeof(v));                                       \
		return nlfs_le##bits(v);                                        \
	}                                                                       \
	static inline void nlfs_put_le##bits(void *p, uint##bits##_t v)         \
	{                                                                       \
		nlfs_le##bits##_t le = nlfs_cpu_to_le##bits(v);                 \
		memcpy(p, &le, sizeof(le));                                     \
	}
NLFS_LE_ACCESS(16)
NLFS_LE_ACCESS(32)
NLFS_LE_ACCESS(64)
#undef NLFS_LE_ACCESS
/* add DELTA to the little-endian u64 at P (any alignment): on-disk counters */
static inline void nlfs_le64_add(void *p, int64_t delta)
{
	nlfs_put_le64(p, nlfs_get_le64(p) + (uint64_t)delta);
}

#endif /* NLFS_ENDIAN_H */
