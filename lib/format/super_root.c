/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A super root block as the kernel checks it. */
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>

int nlfs_super_root_check(const void *block, uint32_t blocksize, uint32_t seed,
			  uint32_t inode_size, uint64_t blocknr, struct nlfs_err *err)
{
	const uint8_t *p = block;
	struct nlfs_super_root hdr;
	uint16_t bytes;

	memcpy(&hdr, p, sizeof(hdr));
	bytes = nlfs_le16(hdr.sr_bytes);
	if (bytes < NLFS_SR_BYTES(inode_size) || bytes > blocksize)
		return nlfs_err_set(err, NLFS_ECORRUPT, blocknr, "super root: sr_bytes %u", bytes);
	if (nlfs_crc32(seed, p + 4, bytes - 4u) != nlfs_le32(hdr.sr_sum))
		return nlfs_err_set(err, NLFS_EBADCRC, blocknr, "super root");
	return 0;
}
