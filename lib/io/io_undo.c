/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Undo-file backend stacked on another one (fsck.nilfs2 -z).  Before the
 * first write to any block of the device, the block's old bytes go to the
 * undo file, and the undo file is made durable before the write goes
 * down.  Each block is saved once, so the file holds the device as it was
 * before the first write; nlfs_undo_apply() puts it back.
 *
 * The file: a header (magic, version, block size, device size, the
 * volume's UUID, a CRC), then records (magic, length, device offset, CRC
 * of offset and data, data).  A record torn by a crash fails its CRC; the
 * write it was saved for never reached the device, so applying stops
 * there with nothing lost.
 *
 * What identifies the volume (its UUID) is the format's to say: the
 * caller's ID function gives it (format/undo_id.c, the public
 * nlfs_io_open_undo and nlfs_undo_apply).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nlfs/endian.h>
#include <nlfs/undo.h>
#include "../nlfsP.h"

#define UNDO_MAGIC     "NLFSUNDO"
#define UNDO_VERSION   1u
#define UNDO_REC_MAGIC 0x4f44554eu   /* "NUDO" */
#define UNDO_BLOCK     4096u

struct undo_header {
	char magic[8];
	nlfs_le32_t version;
	nlfs_le32_t blocksize;
	nlfs_le64_t devsize;
	uint8_t uuid[16];
	nlfs_le32_t crc;        /* of the bytes before it */
	nlfs_le32_t pad;
};

struct undo_rec_hdr {
	nlfs_le32_t magic;
	nlfs_le32_t len;
	nlfs_le64_t off;
	nlfs_le32_t crc;        /* of off (little-endian) and the data */
	nlfs_le32_t pad;
};

struct undo_priv {
	struct nlfs_io *lower;
	int fd;
	uint64_t devsize;
	uint64_t *saved;        /* block numbers saved, sorted */
	size_t nsaved, capsaved;
	uint8_t *buf;
};

static struct undo_priv *up(const struct nlfs_io *io)
{
	return io->priv;
}

static bool find_saved(const struct undo_priv *u, uint64_t blk, size_t *at)
{
	size_t lo = nlfs_lower_bound(&blk, u->saved, u->nsaved, sizeof(*u->saved), nlfs_cmp_u64);

	*at = lo;
	return lo < u->nsaved && u->saved[lo] == blk;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static uint32_t rec_crc(nlfs_le64_t off_le, const void *data, size_t len)
{
	return nlfs_crc32(nlfs_crc32(0, &off_le, sizeof(off_le)), data, len);
}

/* save block BLK's current bytes (once) */
static int save_block(struct undo_priv *u, uint64_t blk, bool *saved_any)
{
	struct undo_rec_hdr h = { 0 };
	uint64_t off = blk * UNDO_BLOCK;
	size_t at, len;
	int rc;

	if (find_saved(u, blk, &at) || off >= u->devsize)
		return 0;
	len = u->devsize - off < UNDO_BLOCK ? (size_t)(u->devsize - off) : UNDO_BLOCK;
	rc = nlfs_io_read(u->lower, u->buf, len, off);
	if (rc)
		return rc;
	h.magic = nlfs_cpu_to_le32(UNDO_REC_MAGIC);
	h.len = nlfs_cpu_to_le32((uint32_t)len);
	h.off = nlfs_cpu_to_le64(off);
	h.crc = nlfs_cpu_to_le32(rec_crc(h.off, u->buf, len));
	rc = write_all(u->fd, &h, sizeof(h));
	if (!rc)
		rc = write_all(u->fd, u->buf, len);
	if (rc)
		return rc;
	if (NLFS_GROW(u->saved, u->capsaved, u->nsaved + 1))
		return -ENOMEM;
	memmove(u->saved + at + 1, u->saved + at, (u->nsaved - at) * sizeof(*u->saved));
	u->saved[at] = blk;
	u->nsaved++;
	*saved_any = true;
	return 0;
}

static int undo_read(struct nlfs_io *io, void *buf, size_t len, uint64_t off)
{
	return nlfs_io_read(up(io)->lower, buf, len, off);
}

static int undo_write(struct nlfs_io *io, const void *buf, size_t len, uint64_t off)
{
	struct undo_priv *u = up(io);
	bool saved_any = false;
	int rc = 0;

	if (len)
		for (uint64_t b = off / UNDO_BLOCK; !rc && b <= (off + len - 1) / UNDO_BLOCK; b++)
			rc = save_block(u, b, &saved_any);
	/* the old bytes are durable before the new ones can land */
	if (!rc && saved_any && fdatasync(u->fd))
		rc = -errno;
	if (!rc)
		rc = nlfs_io_write(u->lower, buf, len, off);
	return rc;
}

static int undo_flush(struct nlfs_io *io)
{
	return nlfs_io_flush(up(io)->lower);
}

static int undo_size(struct nlfs_io *io, uint64_t *bytes)
{
	return nlfs_io_size(up(io)->lower, bytes);
}

static void undo_destroy(struct nlfs_io *io)
{
	struct undo_priv *u = up(io);

	if (u->fd >= 0)
		close(u->fd);
	nlfs_io_close(u->lower);
	free(u->saved);
	free(u->buf);
	free(u);
}

static int undo_prefetch(struct nlfs_io *io, uint64_t off, uint64_t len)
{
	return nlfs_io_prefetch(up(io)->lower, off, len);
}

static void undo_scattered(struct nlfs_io *io, bool on)
{
	nlfs_io_scattered(up(io)->lower, on);
}

static const struct nlfs_io_ops undo_ops = {
	undo_read, undo_write, undo_flush, undo_size, undo_destroy, undo_prefetch,
	undo_scattered,
};

static bool uuid_unknown(const uint8_t uuid[16])
{
	static const uint8_t zero[16];

	return !memcmp(uuid, zero, 16);
}

static void fill_header(struct undo_header *h, uint64_t devsize, const uint8_t uuid[16])
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, UNDO_MAGIC, 8);
	h->version = nlfs_cpu_to_le32(UNDO_VERSION);
	h->blocksize = nlfs_cpu_to_le32(UNDO_BLOCK);
	h->devsize = nlfs_cpu_to_le64(devsize);
	memcpy(h->uuid, uuid, 16);
	h->crc = nlfs_cpu_to_le32(nlfs_crc32(0, h, offsetof(struct undo_header, crc)));
}

/* A new file's name is durable only once its directory is: without this a
 * crash after the first repair write could leave the undo data in a file
 * no directory names. */
static int sync_parent_dir(const char *path)
{
	char *copy = strdup(path);
	int fd, rc = 0;

	if (!copy)
		return -ENOMEM;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		rc = -errno;
	else if (fsync(fd) && errno != EINVAL)   /* EINVAL: cannot sync a directory there */
		rc = -errno;
	if (fd >= 0)
		close(fd);
	free(copy);
	return rc;
}

int nlfs_undo_io_open(struct nlfs_io *lower, const char *path, nlfs_undo_id_fn id,
		      struct nlfs_io **out, struct nlfs_err *err)
{
	struct nlfs_io *io = calloc(1, sizeof(*io));
	struct undo_priv *u = calloc(1, sizeof(*u));
	struct undo_header h;
	uint8_t uuid[16];
	int rc;

	if (!io || !u || !(u->buf = malloc(UNDO_BLOCK)) ||
	    !(io->name = strdup(nlfs_io_name(lower)))) {
		rc = -ENOMEM;
		goto fail;
	}
	u->fd = -1;
	rc = nlfs_io_size(lower, &u->devsize);
	if (rc)
		goto fail;
	/* an existing file may be the only way back from an earlier repair */
	u->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (u->fd < 0) {
		rc = nlfs_err_set(err, errno, NLFS_NOWHERE, "%s: cannot create the undo file%s",
				  path, errno == EEXIST ? " (it exists; it is not overwritten)" : "");
		goto fail;
	}
	id(lower, u->devsize, uuid);
	fill_header(&h, u->devsize, uuid);
	rc = write_all(u->fd, &h, sizeof(h));
	if (!rc && fsync(u->fd))
		rc = -errno;
	if (!rc)
		rc = sync_parent_dir(path);
	if (rc) {
		nlfs_err_set(err, rc, NLFS_NOWHERE, "%s: writing the undo file", path);
		goto fail;
	}
	u->lower = lower;
	io->priv = u;
	io->ops = &undo_ops;
	*out = io;
	return 0;
fail:
	if (u && u->fd >= 0) {
		close(u->fd);
		unlink(path);   /* ours, and it holds no block yet */
	}
	if (u)
		free(u->buf);
	free(u);
	if (io)
		free(io->name);
	free(io);
	return rc;
}

static int read_all(int fd, void *buf, size_t len, size_t *got)
{
	uint8_t *p = buf;

	*got = 0;
	while (*got < len) {
		ssize_t n = read(fd, p + *got, len - *got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return 0;
}

int nlfs_undo_io_apply(const char *path, struct nlfs_io *dev, nlfs_undo_id_fn id,
		       unsigned flags, struct nlfs_undo_stats *st, struct nlfs_err *err)
{
	struct undo_header h, want;
	uint8_t *buf = malloc(UNDO_BLOCK), uuid[16];
	uint64_t devsize;
	size_t got;
	int fd = -1, rc;

	memset(st, 0, sizeof(*st));
	if (!buf)
		return -ENOMEM;
	rc = nlfs_io_size(dev, &devsize);
	if (rc) {
		nlfs_err_set(err, rc, NLFS_NOWHERE, "%s: cannot get its size", nlfs_io_name(dev));
		goto out;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = nlfs_err_set(err, errno, NLFS_NOWHERE, "%s: cannot open the undo file", path);
		goto out;
	}
	rc = read_all(fd, &h, sizeof(h), &got);
	if (rc)
		nlfs_err_set(err, rc, NLFS_NOWHERE, "%s: cannot read the undo file", path);
	else if (got != sizeof(h) || memcmp(h.magic, UNDO_MAGIC, 8) ||
		 nlfs_le32(h.crc) != nlfs_crc32(0, &h, offsetof(struct undo_header, crc)) ||
		 nlfs_le32(h.blocksize) != UNDO_BLOCK)
		rc = nlfs_err_set(err, NLFS_ECORRUPT, NLFS_NOWHERE,
				  "%s: not an undo file of nilfsprogs (bad header)", path);
	else if (nlfs_le32(h.version) != UNDO_VERSION)
		rc = nlfs_err_set(err, NLFS_EREVISION, NLFS_NOWHERE,
				  "%s: undo file version %u is not supported", path,
				  nlfs_le32(h.version));
	if (rc)
		goto out;
	id(dev, devsize, uuid);
	fill_header(&want, devsize, uuid);
	/* a UUID counts only where both sides had a superblock to give one:
	 * the damage being undone may be to the superblocks themselves */
	if (!(flags & NLFS_UNDO_FORCE) &&
	    (want.devsize != h.devsize ||
	     (!uuid_unknown(want.uuid) && !uuid_unknown(h.uuid) &&
	      memcmp(want.uuid, h.uuid, 16)))) {
		rc = nlfs_err_set(err, EXDEV, NLFS_NOWHERE,
				  "%s: the undo file was made for another device (%s differs)",
				  nlfs_io_name(dev), want.devsize != h.devsize ? "the size" : "the UUID");
		goto out;
	}
	for (;;) {
		struct undo_rec_hdr r;
		uint32_t len;

		rc = read_all(fd, &r, sizeof(r), &got);
		if (rc || got == 0)
			break;
		len = nlfs_le32(r.len);
		if (got != sizeof(r) || nlfs_le32(r.magic) != UNDO_REC_MAGIC || len == 0 ||
		    len > UNDO_BLOCK || nlfs_le64(r.off) + len > devsize) {
			st->torn = true;
			break;
		}
		rc = read_all(fd, buf, len, &got);
		if (rc)
			break;
		if (got != len || nlfs_le32(r.crc) != rec_crc(r.off, buf, len)) {
			st->torn = true;   /* its write never reached the device */
			break;
		}
		if (!(flags & NLFS_UNDO_DRY_RUN)) {
			rc = nlfs_io_write(dev, buf, len, nlfs_le64(r.off));
			if (rc) {
				nlfs_err_set(err, rc, nlfs_le64(r.off) / UNDO_BLOCK,
					     "%s: writing byte %llu", nlfs_io_name(dev),
					     (unsigned long long)nlfs_le64(r.off));
				break;
			}
		}
		st->nblocks++;
	}
	if (rc && err && !err->code)
		nlfs_err_set(err, rc, NLFS_NOWHERE, "%s: reading the undo file", path);
	if (!rc && !(flags & NLFS_UNDO_DRY_RUN)) {
		rc = nlfs_io_flush(dev);
		if (rc)
			nlfs_err_set(err, rc, NLFS_NOWHERE, "%s: flushing", nlfs_io_name(dev));
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}
