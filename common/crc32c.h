/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * crc32c.h - CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, with the
 * usual pre- and post-inversion: crc32c("123456789") = 0xE3069283), the
 * checksum of the send stream (man5/nilfs-stream.5).  Not NILFS2's
 * checksum, which is nlfs_crc32 (crc32_le, seeded, no inversion).
 */
#ifndef NLFS_COMMON_CRC32C_H
#define NLFS_COMMON_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* CRC of LEN bytes at BUF continuing CRC (0 to start: the CRC of nothing). */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

#endif
