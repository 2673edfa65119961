/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Directories: records checked as the kernel checks them while reading. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include "nlfsP.h"

static unsigned rec_len_of(uint16_t raw)
{
	unsigned len = nlfs_le16(raw);

	return len == 65535 ? 65536 : len;  /* 64 KiB blocks */
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
	memcpy(&de, buf + off, sizeof(de));
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

/* NULL if the record is sound, else why not */
static const char *record_check(const uint8_t *buf, uint32_t blocksize, unsigned off,
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
	const char *why = record_check(block, blocksize, off, rec);

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

	*why = record_check(buf, blocksize, off, rec);
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

int nlfs_dir_iterate(struct nlfs_fs *fs, const struct nlfs_file *dir, nlfs_dir_cb cb,
		     void *arg, struct nlfs_err *err)
{
	uint32_t bs = fs->geo.blocksize;
	uint64_t size = nlfs_le64(dir->inode.i_size);
	uint64_t nblocks = size / bs + (size % bs != 0), end;
	uint8_t *buf;
	int rc = nlfs_file_mapped_end(fs, dir, &end, err);

	if (rc)
		return rc;
	if (nblocks > end)
		nblocks = end;   /* past the last mapped block lie only holes */
	buf = malloc(bs);
	if (!buf)
		return -ENOMEM;
	for (uint64_t b = 0; b < nblocks && !rc; b++) {
		bool hole;

		rc = nlfs_file_read_block(fs, dir, b, buf, &hole, err);
		if (rc || hole)
			continue;
		for (unsigned off = 0; off < bs;) {
			struct nlfs_dir_rec de;

			const char *why = record_check(buf, bs, off, &de);

			if (why) {
				rc = nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
						  "directory block %llu, byte %u: %s",
						  (unsigned long long)b, off, why);
				if (err) {
					err->ino = dir->ino;
					err->cno = dir->cno;
				}
				break;
			}
			if (de.ino && de.name_len) {
				rc = cb(de.name, de.name_len, de.ino, de.file_type & 7, arg);
				if (rc)
					break;
			}
			off += de.rec_len;
		}
	}
	free(buf);
	return rc;
}

struct find_name {
	const char *name;
	size_t len;
	uint64_t ino;
};

static int match_name(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct find_name *f = arg;

	(void)type;
	if (len == f->len && !memcmp(name, f->name, len)) {
		f->ino = ino;
		return 1;
	}
	return 0;
}

int nlfs_path_lookup(struct nlfs_fs *fs, const struct nlfs_file *ifile, const char *path,
		     struct nlfs_file *out, struct nlfs_err *err)
{
	int rc = nlfs_ifile_read(fs, ifile, NLFS_ROOT_INO, out, err);

	while (!rc && *path) {
		struct find_name f = { path, 0, 0 };

		while (*f.name == '/')
			f.name++;
		f.len = strcspn(f.name, "/");
		path = f.name + f.len;
		if (f.len == 0)
			break;
		if ((nlfs_le16(out->inode.i_mode) & NLFS_S_IFMT) != NLFS_S_IFDIR) {
			rc = nlfs_err_set(err, ENOTDIR, NLFS_NOWHERE, "%.*s",
					  (int)(f.name - path + f.len), f.name);
			break;
		}
		rc = nlfs_dir_iterate(fs, out, match_name, &f, err);
		if (rc < 0)
			break;
		if (!f.ino) {
			rc = nlfs_err_set(err, ENOENT, NLFS_NOWHERE, "%.*s", (int)f.len, f.name);
			if (err)
				err->cno = ifile->cno;
			break;
		}
		rc = nlfs_ifile_read(fs, ifile, f.ino, out, err);
	}
	return rc;
}
