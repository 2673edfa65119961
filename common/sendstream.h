/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sendstream.h - the stream nilfs-send writes and nilfs-receive reads
 * (man5/nilfs-stream.5): a header naming the volume and the checkpoints,
 * then commands, each length-prefixed and checked by a CRC-32C, then an
 * end record with the count of commands and the CRC-32C of every byte
 * before it.  One table (sendstream.c) says which fields each command
 * has, for the writer and the reader alike.  Paths in the stream are
 * relative to the receiving directory: components joined by '/', none
 * empty, "." or "..", no leading '/'; the empty path is the directory
 * itself (allowed only where attributes are set).
 */
#ifndef NLFS_COMMON_SENDSTREAM_H
#define NLFS_COMMON_SENDSTREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SSTREAM_MAGIC "NILFSSND"
#define SSTREAM_VERSION 1u
#define SSTREAM_HEADER_BYTES 72u
/* a command's payload at most, and a WRITE's data at most */
#define SSTREAM_MAX_PAYLOAD (2u << 20)
#define SSTREAM_MAX_DATA (1u << 20)

enum sstream_kind {
	SS_MKDIR = 1,   /* path */
	SS_CREATE,      /* path: an empty regular file */
	SS_MKNOD,       /* path, mode (file type bits), major, minor */
	SS_SYMLINK,     /* path, target */
	SS_LINK,        /* path, path2: a new name for the file at path2 */
	SS_UNLINK,      /* path (not a directory) */
	SS_RMDIR,       /* path (an empty directory) */
	SS_RENAME,      /* path to path2 (path2 does not exist) */
	SS_ORPHAN,      /* path moved aside as orphan ID */
	SS_ADOPT,       /* orphan ID moved to path */
	SS_WRITE,       /* path, offset, data */
	SS_HOLE,        /* path, offset, len: those bytes read as zeros, unallocated */
	SS_TRUNCATE,    /* path, len: the new size */
	SS_CHMOD,       /* path, mode (permission bits) */
	SS_CHOWN,       /* path, uid, gid */
	SS_UTIMES,      /* path, atime, mtime */
	SS_END,         /* count, crc */
	SS_NKINDS
};

struct sstream_header {
	uint8_t uuid[16];            /* the source volume's */
	uint64_t parent_cno, parent_ctime;   /* 0, 0: a full stream */
	uint64_t cno, ctime;
};

struct sstream_cmd {
	enum sstream_kind kind;
	const char *path, *path2;    /* path2: LINK's and RENAME's second path */
	const char *target;          /* SYMLINK */
	uint32_t mode, major, minor, uid, gid;
	uint64_t id, offset, len;
	const void *data;            /* WRITE: LEN bytes */
	int64_t atime, mtime;
	uint32_t atime_nsec, mtime_nsec;
	uint64_t count;              /* END */
	uint32_t crc;                /* END */
};

/* the command's name in messages and in the man page ("mkdir" ...) */
const char *sstream_kind_name(enum sstream_kind kind);

struct sstream_writer {
	FILE *f;
	uint32_t crc;                /* of every byte written so far */
	uint64_t count, bytes;       /* commands (the end record not counted) and bytes written */
	uint8_t *buf;
	size_t cap;
};
/* 0, or a negative errno (-EIO when the write failed: errno says why) */
int sstream_write_header(struct sstream_writer *w, FILE *f, const struct sstream_header *h);
/* C's fields for its kind (not END), checked as the reader checks them:
 * -EINVAL for a path or value the reader would refuse */
int sstream_write(struct sstream_writer *w, const struct sstream_cmd *c);
/* the end record; the writer's buffer is freed */
int sstream_write_end(struct sstream_writer *w);
void sstream_writer_free(struct sstream_writer *w);

struct sstream_reader {
	FILE *f;
	uint32_t crc;
	uint64_t count, offset;      /* commands read, bytes read */
	uint64_t cmd_offset;         /* where the last command began */
	uint8_t *buf;
	size_t cap;
	bool ended;
	char why[200];               /* what was wrong */
};
/* 0; -1 with the reason in R->why: not a stream, an unknown version, a
 * damaged or cut header */
int sstream_read_header(struct sstream_reader *r, FILE *f, struct sstream_header *h);
/* the next command into C (its strings and data in R's buffer, good until
 * the next call): 0; 1 after a good end record (what follows it, another
 * stream or nothing, is the caller's to read); -1 with the reason in
 * R->why (a cut stream, a bad checksum, an unknown command, a field out
 * of range) */
int sstream_read(struct sstream_reader *r, struct sstream_cmd *c);
void sstream_reader_free(struct sstream_reader *r);

/* If F is a pipe, make its buffer SSTREAM_MAX_DATA bytes where the system
 * allows (best effort): a 64 KiB pipe wakes the reader and the writer
 * sixteen times per command of data. */
void sstream_pipe_grow(FILE *f);

/* Is P a path the stream may carry (EMPTY_OK: the empty path too)? */
bool sstream_path_ok(const char *p, size_t len, bool empty_ok);

#endif
