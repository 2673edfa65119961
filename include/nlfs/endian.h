/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Explicit little-endian conversions for on-disk fields. */
#ifndef NLFS_ENDIAN_H
#define NLFS_ENDIAN_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t nlfs_le16(uint16_t v) { return le16toh(v); }
static inline uint32_t nlfs_le32(uint32_t v) { return le32toh(v); }
static inline uint64_t nlfs_le64(uint64_t v) { return le64toh(v); }
static inline uint16_t nlfs_cpu_to_le16(uint16_t v) { return htole16(v); }
static inline uint32_t nlfs_cpu_to_le32(uint32_t v) { return htole32(v); }
static inline uint64_t nlfs_cpu_to_le64(uint64_t v) { return htole64(v); }
/* add DELTA to the little-endian u64 at P (any alignment): on-disk counters */
static inline void nlfs_le64_add(void *p, int64_t delta)
{
	uint64_t v;

	memcpy(&v, p, 8);
	v = htole64(le64toh(v) + (uint64_t)delta);
	memcpy(p, &v, 8);
}

#endif /* NLFS_ENDIAN_H */
