/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * NILFS uses the kernel's crc32_le(seed, ...): reflected polynomial
 * 0xEDB88320 without the usual pre- and post-inversion.  zlib's crc32()
 * inverts on entry and exit, so undo both.
 */
#include <zlib.h>

#include <nlfs/nlfs.h>

uint32_t nlfs_crc32(uint32_t seed, const void *buf, size_t len)
{
	uLong crc = seed ^ 0xFFFFFFFFu;
	const Bytef *p = buf;

	while (len > 0) {
		uInt chunk = len > 0x40000000u ? 0x40000000u : (uInt)len;

		crc = crc32(crc, p, chunk);
		p += chunk;
		len -= chunk;
	}
	return (uint32_t)crc ^ 0xFFFFFFFFu;
}
