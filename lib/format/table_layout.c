/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where the entries of the cpfile and the sufile lie: both are arrays of
 * fixed-size entries whose header takes the first slots of block 0 (as
 * the kernel's nilfs_cpfile_get_offset and nilfs_sufile_get_offset count
 * them), so checkpoint CNO is slot CNO - 1 + first and segment SEGNUM slot
 * SEGNUM + first.
 */
#include "../nlfsP.h"

static uint64_t first_slot(size_t header_size, uint32_t entry_size)
{
	return (header_size + entry_size - 1) / entry_size;
}

uint64_t nlfs_cpfile_first_slot(uint32_t entry_size)
{
	return first_slot(sizeof(struct nlfs_cpfile_header), entry_size);
}

uint64_t nlfs_sufile_first_slot(uint32_t entry_size)
{
	return first_slot(sizeof(struct nlfs_sufile_header), entry_size);
}
