/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Directory records as the kernel checks them while reading (its
 * nilfs_check_folio), what of a damaged block can be kept, the file type a
 * record carries for its inode's mode, and the two names every directory
 * holds for itself and its parent.
 */
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "../nlfsP.h"

static unsigned rec_len_of(nlfs_le16_t raw)
{
	unsigned len = nlfs_le16(raw);

	return len == 65535 ? 65536 : len;  /* 64 KiB blocks */
}

/* the file_type byte of a record naming an inode of MODE, as the kernel's
 * nilfs_set_de_type sets it (its fs_ftype_table); 0 for a mode of no type */
uint8_t nlfs_file_type_of_mode(uint32_t mode)
{
	switch (mode & NLFS_S_IFMT) {
	case NLFS_S_IFREG: return 1;
	case NLFS_S_IFDIR: return 2;
	case NLFS_S_IFCHR: return 3;
	case NLFS_S_IFBLK: return 4;
	case NLFS_S_IFIFO: return 5;
	case NLFS_S_IFSOCK: return 6;
	case NLFS_S_IFLNK: return 7;
	default: return 0;
	}
}

bool nlfs_dir_name_is_dots(const char *name, size_t len)
{
	return (len == 1 || len == 2) && name[0] == '.' && name[len - 1] == '.';
}

bool nlfs_dir_private_ino(uint64_t ino)
{
	return ino < NLFS_FIRST_INO_MIN && ino != NLFS_ROOT_INO && ino != NLFS_SKETCH_INO;
}

/* NULL if the record's lengths hold up, else why not */
static const char *record_shape(const uint8_t *buf, uint32_t blocksize, unsigned off,
				struct nlfs_dir_rec *rec)
{
	struct nlfs_dir_entry de;

	memset(rec, 0, sizeof(*rec));
	if (off >= blocksize || blocksize - off < NLFS_DIR_ENTRY_HEADER)
		return "record header crosses the block end";
	memcpy(&de, buf + off, NLFS_DIR_ENTRY_HEADER);   /* sizeof pads it to 16 */
	rec->ino = nlfs_le64(de.inode);
	rec->rec_len = rec_len_of(de.rec_len);
	rec->name_len = de.name_len;
	rec->file_type = de.file_type;
	rec->name = (const char *)buf + off + NLFS_DIR_ENTRY_HEADER;
	/* the checks and their order are the kernel's (nilfs_check_folio) */
	if (rec->rec_len < NLFS_DIR_REC_LEN(1))
		return "rec_len smaller than the minimum record";
	if (rec->rec_len % 4)
		return "rec_len not a multiple of 4";
	if (rec->rec_len < NLFS_DIR_REC_LEN(rec->name_len))
		return "rec_len too small for name_len";
	if (rec->rec_len > blocksize - off)
		return "record crosses the block end";
	return NULL;
}

const char *nlfs_dir_record_why(const uint8_t *buf, uint32_t blocksize, unsigned off,
				struct nlfs_dir_rec *rec)
{
	const char *why = record_shape(buf, blocksize, off, rec);

	if (!why && rec->ino && nlfs_dir_private_ino(rec->ino))
		return "entry names a reserved inode";
	return why;
}

int nlfs_dir_record(const void *block, uint32_t blocksize, unsigned off,
		    struct nlfs_dir_rec *rec, struct nlfs_err *err)
{
	const char *why = nlfs_dir_record_why(block, blocksize, off, rec);

	if (!why)
		return 0;
	return nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE, "directory record at byte %u: %s",
			    off, why);
}

/* Does a chain of records whose lengths hold up run from OFF to the block
 * end?  Filled from the end backwards, one flag per 4-byte offset. */
static void chains(const uint8_t *buf, uint32_t bs, unsigned from, bool *ok)
{
	struct nlfs_dir_rec r;

	ok[bs / 4] = true;
	for (unsigned q = bs - 4; q >= from; q -= 4)
		ok[q / 4] = !record_shape(buf, bs, q, &r) && ok[(q + r.rec_len) / 4];
}

/* a name as long as the bytes before its NUL padding */
static unsigned padded_name_len(const char *name, unsigned room)
{
	unsigned n = 0;

	while (n < room && n < NLFS_NAME_LEN && name[n])
		n++;
	return n;
}

enum nlfs_dir_salvage nlfs_dir_salvage(const void *block, uint32_t blocksize, unsigned off,
				       struct nlfs_dir_rec *rec, unsigned *next, const char **why)
{
	const uint8_t *buf = block;
	unsigned room = blocksize - off;
	bool *ok;
	unsigned p;

	*why = nlfs_dir_record_why(buf, blocksize, off, rec);
	if (!*why) {
		*next = off + rec->rec_len;
		return NLFS_DIR_SOUND;
	}
	*next = blocksize;
	if (off >= blocksize || room < NLFS_DIR_ENTRY_HEADER || off % 4)
		return NLFS_DIR_DROPPED;
	ok = calloc(blocksize / 4 + 1, sizeof(*ok));
	if (!ok)
		return NLFS_DIR_DROPPED;   /* the rest of the block: never more than that */
	chains(buf, blocksize, off + 4, ok);
	/* its own rec_len leads to sound records: only the entry is wrong */
	if (rec->rec_len >= NLFS_DIR_REC_LEN(1) && rec->rec_len % 4 == 0 &&
	    rec->rec_len <= room && ok[(off + rec->rec_len) / 4]) {
		*next = off + rec->rec_len;
		free(ok);
		if (rec->ino && nlfs_dir_private_ino(rec->ino))
			return NLFS_DIR_DROPPED;
		/* name_len too long for the record: the name ends at its padding */
		rec->name_len = padded_name_len(rec->name, rec->rec_len - NLFS_DIR_ENTRY_HEADER);
		return rec->name_len ? NLFS_DIR_MENDED : NLFS_DIR_DROPPED;
	}
	/* the next record from which sound ones run to the block end */
	for (p = off + 4; p < blocksize && !ok[p / 4]; p += 4)
		;
	*next = p;
	free(ok);
	/* a wrong rec_len, but an entry whose name ends before that record:
	 * it reaches up to there (the bytes between are slack) */
	if (rec->name_len && off + NLFS_DIR_REC_LEN(rec->name_len) <= p &&
	    !(rec->ino && nlfs_dir_private_ino(rec->ino))) {
		rec->rec_len = p - off;
		return NLFS_DIR_MENDED;
	}
	return NLFS_DIR_DROPPED;   /* nothing to keep up to there */
}
