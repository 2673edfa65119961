/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The send stream's encoder and decoder (sendstream.h).  Every command is
 *
 *   le32 payload length, le16 kind, le16 0, payload, le32 CRC-32C
 *
 * the CRC over the eight header bytes and the payload.  The payload's
 * fields follow the command's row in FIELDS, one letter a field:
 *   p  a path (le32 length, bytes); r  a path that may be empty (the top)
 *   P  the second path; t  a symbolic link's target (le32 length, bytes)
 *   m  mode, a  major, b  minor, u  uid, g  gid (le32 each)
 *   i  orphan id, o  offset, l  length or size, c  count (le64 each)
 *   s  atime seconds, S  mtime seconds (le64, signed)
 *   n  atime nanoseconds, N  mtime nanoseconds (le32)
 *   x  CRC (le32); d  data, the rest of the payload
 */
#define _GNU_SOURCE   /* F_SETPIPE_SZ */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <nlfs/endian.h>
#include "crc32c.h"
#include "sendstream.h"

static const struct {
	const char *name, *fields;
} kinds[SS_NKINDS] = {
	[SS_MKDIR] = { "mkdir", "p" },
	[SS_CREATE] = { "create", "p" },
	[SS_MKNOD] = { "mknod", "pmab" },
	[SS_SYMLINK] = { "symlink", "pt" },
	[SS_LINK] = { "link", "pP" },
	[SS_UNLINK] = { "unlink", "p" },
	[SS_RMDIR] = { "rmdir", "p" },
	[SS_RENAME] = { "rename", "pP" },
	[SS_ORPHAN] = { "orphan", "pi" },
	[SS_ADOPT] = { "adopt", "ip" },
	[SS_WRITE] = { "write", "pod" },
	[SS_HOLE] = { "hole", "pol" },
	[SS_TRUNCATE] = { "truncate", "pl" },
	[SS_CHMOD] = { "chmod", "rm" },
	[SS_CHOWN] = { "chown", "rug" },
	[SS_UTIMES] = { "utimes", "rsnSN" },
	[SS_END] = { "end", "cx" },
};

#define S_TYPE_MASK 0170000u
#define S_FIFO_ 0010000u
#define S_CHR_ 0020000u
#define S_BLK_ 0060000u
#define S_SOCK_ 0140000u
#define PATH_MAX_BYTES 65535u   /* longer than any path a kernel takes in one call */

const char *sstream_kind_name(enum sstream_kind kind)
{
	return kind > 0 && kind < SS_NKINDS ? kinds[kind].name : "unknown";
}

bool sstream_path_ok(const char *p, size_t len, bool empty_ok)
{
	size_t start = 0;

	if (!len)
		return empty_ok;
	if (len > PATH_MAX_BYTES || memchr(p, '\0', len))
		return false;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && p[i] != '/')
			continue;
		size_t n = i - start;

		if (n == 0 || (n == 1 && p[start] == '.') ||
		    (n == 2 && p[start] == '.' && p[start + 1] == '.'))
			return false;
		start = i + 1;
	}
	return true;
}

/* the checks a field's value must pass, the writer's and the reader's */
static const char *value_bad(enum sstream_kind kind, char field, uint64_t v)
{
	switch (field) {
	case 'm':
		if (kind == SS_CHMOD)
			return v > 07777 ? "mode has more than permission bits" : NULL;
		if ((v & ~(uint64_t)S_TYPE_MASK) || (v != S_FIFO_ && v != S_CHR_ && v != S_BLK_ && v != S_SOCK_))
			return "mode is no device, FIFO or socket";
		return NULL;
	case 'n':
	case 'N':
		return v > 999999999 ? "nanoseconds out of range" : NULL;
	case 'o':
	case 'l':
		return v > (uint64_t)INT64_MAX ? "offset or size out of range" : NULL;
	default:
		return NULL;
	}
}

void sstream_pipe_grow(FILE *f)
{
	struct stat st;
	int fd = fileno(f);

	if (fd >= 0 && !fstat(fd, &st) && S_ISFIFO(st.st_mode))
		(void)fcntl(fd, F_SETPIPE_SZ, (int)SSTREAM_MAX_DATA);
}

/* ---- writer ---- */

static int put(struct sstream_writer *w, size_t *n, const void *p, size_t len)
{
	if (*n + len > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		uint8_t *b;

		while (cap < *n + len)
			cap *= 2;
		if (!(b = realloc(w->buf, cap)))
			return -ENOMEM;
		w->buf = b;
		w->cap = cap;
	}
	memcpy(w->buf + *n, p, len);
	*n += len;
	return 0;
}

static int put_le32(struct sstream_writer *w, size_t *n, uint32_t v)
{
	nlfs_le32_t le = nlfs_cpu_to_le32(v);

	return put(w, n, &le, 4);
}

static int put_le64(struct sstream_writer *w, size_t *n, uint64_t v)
{
	nlfs_le64_t le = nlfs_cpu_to_le64(v);

	return put(w, n, &le, 8);
}

static int emit(struct sstream_writer *w, const void *p, size_t len)
{
	if (len && fwrite(p, 1, len, w->f) != len)
		return -EIO;
	w->crc = crc32c(w->crc, p, len);
	w->bytes += len;
	return 0;
}

int sstream_write_header(struct sstream_writer *w, FILE *f, const struct sstream_header *h)
{
	uint8_t b[SSTREAM_HEADER_BYTES] = { 0 };
	nlfs_le32_t v;
	nlfs_le64_t q;

	memset(w, 0, sizeof(*w));
	w->f = f;
	memcpy(b, SSTREAM_MAGIC, 8);
	v = nlfs_cpu_to_le32(SSTREAM_VERSION), memcpy(b + 8, &v, 4);
	v = nlfs_cpu_to_le32(SSTREAM_HEADER_BYTES), memcpy(b + 12, &v, 4);
	memcpy(b + 16, h->uuid, 16);
	q = nlfs_cpu_to_le64(h->parent_cno), memcpy(b + 32, &q, 8);
	q = nlfs_cpu_to_le64(h->parent_ctime), memcpy(b + 40, &q, 8);
	q = nlfs_cpu_to_le64(h->cno), memcpy(b + 48, &q, 8);
	q = nlfs_cpu_to_le64(h->ctime), memcpy(b + 56, &q, 8);
	/* 64: le32 flags, none defined */
	v = nlfs_cpu_to_le32(crc32c(0, b, 68)), memcpy(b + 68, &v, 4);
	return emit(w, b, sizeof(b));
}

static int encode(struct sstream_writer *w, const struct sstream_cmd *c)
{
	size_t n = 8;
	int rc = 0;

	for (const char *f = kinds[c->kind].fields; !rc && *f; f++) {
		const char *s = NULL;
		uint64_t v = 0;

		switch (*f) {
		case 'p': case 'r': s = c->path; break;
		case 'P': s = c->path2; break;
		case 't': s = c->target; break;
		case 'm': v = c->mode; break;
		case 'a': v = c->major; break;
		case 'b': v = c->minor; break;
		case 'u': v = c->uid; break;
		case 'g': v = c->gid; break;
		case 'n': v = c->atime_nsec; break;
		case 'N': v = c->mtime_nsec; break;
		case 'x': v = c->crc; break;
		case 'i': v = c->id; break;
		case 'o': v = c->offset; break;
		case 'l': v = c->len; break;
		case 'c': v = c->count; break;
		case 's': v = (uint64_t)c->atime; break;
		case 'S': v = (uint64_t)c->mtime; break;
		case 'd':
			if (c->len > SSTREAM_MAX_DATA)
				return -EINVAL;
			rc = put(w, &n, c->data, (size_t)c->len);
			continue;
		}
		if (s) {
			size_t len = strlen(s);

			if (*f == 't' ? !len || len > PATH_MAX_BYTES : !sstream_path_ok(s, len, *f == 'r'))
				return -EINVAL;
			rc = put_le32(w, &n, (uint32_t)len);
			if (!rc)
				rc = put(w, &n, s, len);
		} else if (strchr("pPrt", *f)) {
			return -EINVAL;
		} else if (value_bad(c->kind, *f, v)) {
			return -EINVAL;
		} else if (strchr("mabugnNx", *f)) {
			rc = put_le32(w, &n, (uint32_t)v);
		} else {
			rc = put_le64(w, &n, v);
		}
	}
	if (!rc) {
		nlfs_le32_t hdr[2] = { nlfs_cpu_to_le32((uint32_t)(n - 8)),
				    nlfs_cpu_to_le32((uint32_t)c->kind) };

		memcpy(w->buf, hdr, 8);
		rc = put_le32(w, &n, crc32c(0, w->buf, n));
	}
	if (!rc)
		rc = emit(w, w->buf, n);
	if (!rc && c->kind != SS_END)
		w->count++;
	return rc;
}

int sstream_write(struct sstream_writer *w, const struct sstream_cmd *c)
{
	if (c->kind <= 0 || c->kind >= SS_END)
		return -EINVAL;
	return encode(w, c);
}

int sstream_write_end(struct sstream_writer *w)
{
	struct sstream_cmd end = { .kind = SS_END, .count = w->count, .crc = w->crc };
	int rc = encode(w, &end);

	free(w->buf);
	w->buf = NULL;
	w->cap = 0;
	return rc;
}

void sstream_writer_free(struct sstream_writer *w)
{
	free(w->buf);
	w->buf = NULL;
	w->cap = 0;
}

/* ---- reader ---- */

static int fail(struct sstream_reader *r, const char *fmt, const char *what)
{
	snprintf(r->why, sizeof(r->why), fmt, what);
	return -1;
}

/* exactly LEN bytes, or a message: cut short or unreadable */
static int take(struct sstream_reader *r, void *p, size_t len, const char *what)
{
	size_t got = len ? fread(p, 1, len, r->f) : 0;

	r->offset += got;
	if (got == len)
		return 0;
	if (ferror(r->f))
		return fail(r, "read error in %s", what);
	return fail(r, "the stream ends in the middle of %s (cut short)", what);
}

static uint32_t le32_at(const uint8_t *p)
{
	return nlfs_get_le32(p);
}

static uint64_t le64_at(const uint8_t *p)
{
	return nlfs_get_le64(p);
}

int sstream_read_header(struct sstream_reader *r, FILE *f, struct sstream_header *h)
{
	uint8_t b[SSTREAM_HEADER_BYTES];
	size_t got;

	memset(r, 0, sizeof(*r));
	r->f = f;
	got = fread(b, 1, sizeof(b), f);
	r->offset = got;
	if (ferror(f))
		return fail(r, "read error in the %s", "header");
	if (got < 8 || memcmp(b, SSTREAM_MAGIC, 8))
		return fail(r, "not a nilfs-send stream (no %s magic)", SSTREAM_MAGIC);
	if (got < 16)
		return fail(r, "the stream ends in the middle of %s (cut short)", "the header");
	if (le32_at(b + 8) != SSTREAM_VERSION) {
		snprintf(r->why, sizeof(r->why),
			 "stream version %u, this nilfs-receive reads version %u only",
			 le32_at(b + 8), SSTREAM_VERSION);
		return -1;
	}
	if (got < sizeof(b))
		return fail(r, "the stream ends in the middle of %s (cut short)", "the header");
	if (le32_at(b + 12) != SSTREAM_HEADER_BYTES || le32_at(b + 64) != 0)
		return fail(r, "%s: unknown header size or flags", "damaged header");
	if (crc32c(0, b, 68) != le32_at(b + 68))
		return fail(r, "%s: CRC-32C mismatch", "damaged header");
	memcpy(h->uuid, b + 16, 16);
	h->parent_cno = le64_at(b + 32);
	h->parent_ctime = le64_at(b + 40);
	h->cno = le64_at(b + 48);
	h->ctime = le64_at(b + 56);
	if (!h->cno || (!h->parent_cno && h->parent_ctime))
		return fail(r, "%s: checkpoint number 0", "damaged header");
	r->crc = crc32c(0, b, sizeof(b));
	return 0;
}

/* the fields of C's kind from PAY (LEN bytes); 0 or a message */
static int decode(struct sstream_reader *r, struct sstream_cmd *c, uint8_t *pay, size_t len)
{
	const char *name = kinds[c->kind].name;
	size_t at = 0;

	for (const char *f = kinds[c->kind].fields; *f; f++) {
		size_t w = strchr("mabugnNx", *f) ? 4 : 8;
		uint64_t v;

		if (*f == 'd') {
			c->data = pay + at;
			c->len = len - at;
			if (c->len > SSTREAM_MAX_DATA)
				return fail(r, "%s: more data than a command carries", name);
			at = len;
			continue;
		}
		if (strchr("pPrt", *f)) {
			uint32_t sl;

			if (len - at < 4)
				return fail(r, "%s: payload shorter than its fields", name);
			sl = le32_at(pay + at);
			/* the string is moved down over its length so that it
			 * ends in a NUL the length's bytes make room for */
			if (len - at - 4 < sl)
				return fail(r, "%s: a string runs past the payload", name);
			memmove(pay + at, pay + at + 4, sl);
			pay[at + sl] = 0;
			const char *s = (const char *)pay + at;

			if (*f == 't' ? !sl || sl > PATH_MAX_BYTES || memchr(s, 0, sl)
				      : !sstream_path_ok(s, sl, *f == 'r'))
				return fail(r, *f == 't' ? "%s: bad symbolic link target"
					    : "%s: a path that is not a plain relative path", name);
			if (*f == 'P')
				c->path2 = s;
			else if (*f == 't')
				c->target = s;
			else
				c->path = s;
			at += 4 + sl;
			continue;
		}
		if (len - at < w)
			return fail(r, "%s: payload shorter than its fields", name);
		v = w == 4 ? le32_at(pay + at) : le64_at(pay + at);
		at += w;
		if (value_bad(c->kind, *f, v)) {
			snprintf(r->why, sizeof(r->why), "%s: %s", name, value_bad(c->kind, *f, v));
			return -1;
		}
		switch (*f) {
		case 'm': c->mode = (uint32_t)v; break;
		case 'a': c->major = (uint32_t)v; break;
		case 'b': c->minor = (uint32_t)v; break;
		case 'u': c->uid = (uint32_t)v; break;
		case 'g': c->gid = (uint32_t)v; break;
		case 'n': c->atime_nsec = (uint32_t)v; break;
		case 'N': c->mtime_nsec = (uint32_t)v; break;
		case 'x': c->crc = (uint32_t)v; break;
		case 'i': c->id = v; break;
		case 'o': c->offset = v; break;
		case 'l': c->len = v; break;
		case 'c': c->count = v; break;
		case 's': c->atime = (int64_t)v; break;
		case 'S': c->mtime = (int64_t)v; break;
		}
	}
	if (at != len)
		return fail(r, "%s: payload longer than its fields", name);
	if (c->kind == SS_WRITE && c->offset + c->len > (uint64_t)INT64_MAX)
		return fail(r, "%s: offset or size out of range", name);
	if (c->kind == SS_HOLE && c->len > (uint64_t)INT64_MAX - c->offset)
		return fail(r, "%s: offset or size out of range", name);
	return 0;
}

int sstream_read(struct sstream_reader *r, struct sstream_cmd *c)
{
	uint8_t hdr[8], tail[4];
	uint32_t len, kind, before = r->crc;

	memset(c, 0, sizeof(*c));
	if (r->ended)
		return 1;
	r->cmd_offset = r->offset;
	if (take(r, hdr, 8, "a command header"))
		return -1;
	len = le32_at(hdr);
	kind = le32_at(hdr + 4) & 0xffff;
	if (le32_at(hdr + 4) >> 16)
		return fail(r, "damaged command header (reserved bits set)%s", "");
	if (len > SSTREAM_MAX_PAYLOAD)
		return fail(r, "damaged command header (length out of range)%s", "");
	if (len + 1 > r->cap) {
		uint8_t *b = realloc(r->buf, len + 1);

		if (!b)
			return fail(r, "out of memory%s", "");
		r->buf = b;
		r->cap = len + 1;
	}
	if (take(r, r->buf, len, "a command") || take(r, tail, 4, "a command"))
		return -1;
	uint32_t crc = crc32c(crc32c(0, hdr, 8), r->buf, len);

	if (crc != le32_at(tail))
		return fail(r, "damaged command: CRC-32C mismatch%s", "");
	r->crc = crc32c(crc32c(crc32c(r->crc, hdr, 8), r->buf, len), tail, 4);
	if (kind == 0 || kind >= SS_NKINDS) {
		snprintf(r->why, sizeof(r->why), "unknown command %u", kind);
		return -1;
	}
	c->kind = (enum sstream_kind)kind;
	if (decode(r, c, r->buf, len))
		return -1;
	if (c->kind != SS_END) {
		r->count++;
		return 0;
	}
	if (c->count != r->count || c->crc != before)
		return fail(r, "the end record does not match the stream (commands lost or "
			    "damaged)%s", "");
	r->ended = true;
	return 1;
}

void sstream_reader_free(struct sstream_reader *r)
{
	free(r->buf);
	r->buf = NULL;
	r->cap = 0;
}
