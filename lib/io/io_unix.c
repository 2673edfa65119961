/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * File or block-device backend: pread/pwrite, fsync as the barrier.
 *
 * Small reads go through a few chunks of what the page cache already holds:
 * a checker or reader asks for block after block, mostly neighbours (a
 * directory's blocks, the ifile's), and on a virtual machine a system call
 * per block costs more than the copy.  A chunk holds only blocks the page
 * cache has: it is filled with preadv2(RWF_NOWAIT), which stops where the
 * cache does (one system call; where the kernel or the file refuses the
 * flag, mincore() on a mapping of the device that is never touched, so it
 * costs no page faults and cannot raise SIGBUS, says first how much is
 * cached).  A block that is not cached is read alone, exactly as without
 * chunks, errors included.  A file of tmpfs (a memfd too) is memory,
 * cached by definition, holes included: its chunks are filled without
 * asking.  (mincore() was the costlier of the two: on
 * the kernel-written volume of bench/fsck.sh CASE=checkpoints, 20,000
 * files, RWF_NOWAIT took fsck -fn from 345 to 46 ms of CPU.)  (For a file
 * the caller may neither write nor owns, the kernel hides what is cached
 * and says every page is: chunks are then plain 32 KiB reads, still right.)
 *
 * Large writes (whole logs) are written behind: each starts its own
 * writeback at once, and once two more are under way the oldest is waited
 * for and dropped from the page cache.  The disk then writes while the
 * caller builds the next log instead of all at the final fsync, and a long
 * run of writes (mkfs -d of a big tree) does not fill the page cache and
 * push out what the caller reads.  Only timing and caching change: the
 * fsync of flush() is still the barrier.  A write error that the wait of
 * sync_file_range() reports is consumed there (the kernel advances the
 * file's error cursor, so fsync would not see it again): it is kept and
 * returned by the next flush().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>   /* TMPFS_MAGIC */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>     /* BLKGETSIZE64 (linux/fs.h's RWF_NOWAIT is not an int) */
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <nlfs/io.h>

#define CHUNK_SIZE  32768u     /* bytes a chunk holds */
#define CHUNK_COUNT 8u         /* interleaved streams it serves */
#define CHUNK_READ_MAX 8192u   /* reads at most this long use the chunks */
#define CHUNK_FILL_MIN 4096u   /* a page: a scattered read copies no neighbour */
#define RES_PAGES   256u       /* pages one mincore() call looks at */
#define BEHIND_MIN  (1u << 20) /* writes at least this long are written behind */
#define BEHIND_RUNS 2u         /* of them in flight before the oldest is waited for */

struct chunk {
	uint64_t off;          /* device offset of data[0] */
	uint32_t len;          /* bytes valid (0: empty) */
	uint64_t used;         /* clock at the last hit, for LRU */
	bool hit;              /* served a read besides the one that filled it */
};

struct unix_priv {
	int fd;
	/* chunks: in use only where the mapping and the buffers could be had */
	uint8_t *map;          /* the device, PROT_NONE: only mincore() looks at it */
	uint64_t maplen;
	uint64_t clock;
	struct chunk chunk[CHUNK_COUNT];
	/* CHUNK_SIZE bytes each, allocated when first filled: many handles
	 * read a few blocks only (a superblock check, a rollback's probe),
	 * and one allocation of them all is a mapping of its own (glibc's
	 * threshold is 128 KiB) whose pages fault in at each open */
	uint8_t *data[CHUNK_COUNT];
	/* bytes a chunk is filled with: halved when a chunk goes unused past
	 * its first read (scattered reads: the rest was copied for nothing),
	 * doubled when one served more, between CHUNK_FILL_MIN and CHUNK_SIZE.
	 * Scattered reads are the rule on a kernel-written volume (DAT blocks,
	 * the ifile, directories): a floor of one page rather than two took
	 * fsck -fn's CPU time, cold, from 70 to 60 ms (20,000 files), 56 to
	 * 46 ms (an aged volume) and 169 to 144 ms (100,000 files), as the
	 * kernel copies 40% fewer bytes (medians of 6 to 10 runs in turn) */
	uint32_t fill;
	/* which pages of a few windows were cached when last asked, one per
	 * stream of reads; a page seen cached stays so for this purpose (if
	 * the kernel drops it meanwhile, the read just waits for the disk) */
	struct res_window {
		uint64_t first;        /* page number; UINT64_MAX: nothing asked yet */
		uint64_t used;
		unsigned char res[RES_PAGES];
	} win[CHUNK_COUNT];
	uint32_t pagesize;
	/* NLFS_IO_UNCACHED: no chunks; DIRECT while O_DIRECT works */
	bool uncached, direct;
	bool nowait;           /* preadv2(RWF_NOWAIT) reads what is cached (until refused) */
	bool memory;           /* tmpfs: all of it is cached */
	bool scattered;        /* nlfs_io_scattered: no chunks */
	void *bounce;          /* DIRECT_ALIGN-aligned, for O_DIRECT reads */
	size_t bouncecap;
	/* large writes in flight, oldest first */
	struct { uint64_t off, len; } behind[BEHIND_RUNS];
	unsigned nbehind;
	int behind_err;        /* -errno of a failed writeback, for flush() */
	struct nlfs_io_stats *stats;   /* the io's: the reads issued are counted */
};

#define DIRECT_ALIGN 4096

static int unix_fd(struct nlfs_io *io)
{
	return ((struct unix_priv *)io->priv)->fd;
}

/* bytes from OFF on (at most CHUNK_SIZE) that the page cache holds */
static uint32_t cached_run(struct unix_priv *u, uint64_t off)
{
	uint64_t page = off / u->pagesize, npages = (u->maplen + u->pagesize - 1) / u->pagesize;
	uint32_t want = CHUNK_SIZE / u->pagesize + 1, run = 0;
	struct res_window *w = NULL, *victim = &u->win[0];

	if (page >= npages)
		return 0;
	for (unsigned i = 0; i < CHUNK_COUNT && !w; i++) {
		struct res_window *x = &u->win[i];

		if (x->first != UINT64_MAX && page >= x->first && page + want <= x->first + RES_PAGES)
			w = x;
		else if (x->used < victim->used)
			victim = x;
	}
	if (!w || !(w->res[page - w->first] & 1)) {
		/* ask (again): a new window, or the page may have come in since */
		uint64_t n = npages - page < RES_PAGES ? npages - page : RES_PAGES;

		w = w ? w : victim;
		w->first = UINT64_MAX;
		if (mincore(u->map + page * u->pagesize, n * u->pagesize, w->res) < 0)
			return 0;
		memset(w->res + n, 0, RES_PAGES - n);
		w->first = page;
	}
	w->used = u->clock;
	while (run < want && (w->res[page - w->first + run] & 1))
		run++;
	if (run == 0)
		return 0;
	/* from OFF, not from its page's start, and no more than a chunk */
	run = (uint32_t)((page + run) * u->pagesize - off);
	return run < CHUNK_SIZE ? run : CHUNK_SIZE;
}

/* read WANT bytes at OFF into chunk I: with NOWAIT only what the page
 * cache holds (a short count, or -1 with EAGAIN, where it ends) */
static ssize_t fill_chunk(struct unix_priv *u, unsigned i, uint32_t want, uint64_t off,
			  bool nowait)
{
	struct iovec iov = { u->data[i], want };
	ssize_t n;

	do
		n = preadv2(u->fd, &iov, 1, (off_t)off, nowait ? RWF_NOWAIT : 0);
	while (n < 0 && errno == EINTR);
	u->stats->os_reads++;
	u->stats->os_read_bytes += n > 0 ? (uint64_t)n : 0;
	return n;
}

/* serve [OFF, OFF+LEN) from a chunk, refilling the least recently used
 * one from the page cache; false where the bytes must be read from disk */
static bool chunk_read(struct unix_priv *u, void *buf, size_t len, uint64_t off)
{
	struct chunk *victim = &u->chunk[0];
	uint32_t have;
	ssize_t n;
	unsigned i;

	u->clock++;
	for (i = 0; i < CHUNK_COUNT; i++) {
		struct chunk *ch = &u->chunk[i];

		if (ch->len && off >= ch->off && off - ch->off + len <= ch->len) {
			memcpy(buf, u->data[i] + (off - ch->off), len);
			ch->used = u->clock;
			ch->hit = true;
			return true;
		}
		if (ch->used < victim->used)
			victim = ch;
	}
	/* one system call where the kernel has RWF_NOWAIT, else two: mincore()
	 * says how much is cached, then that much is read */
	have = u->nowait || u->memory ? CHUNK_SIZE : cached_run(u, off);
	if (have < len)
		return false;
	if (victim->len)
		u->fill = victim->hit ? (u->fill < CHUNK_SIZE / 2 ? u->fill * 2 : CHUNK_SIZE) :
					(u->fill > CHUNK_FILL_MIN * 2 ? u->fill / 2 : CHUNK_FILL_MIN);
	if (have > u->fill)
		have = u->fill > len ? u->fill : (uint32_t)len;
	i = (unsigned)(victim - u->chunk);
	if (!u->data[i] && !(u->data[i] = malloc(CHUNK_SIZE)))
		return false;
	victim->len = 0;
	victim->hit = false;
	n = fill_chunk(u, i, have, off, u->nowait);
	if (n < 0 && u->nowait && errno != EAGAIN) {
		u->nowait = false;   /* not for this file (EOPNOTSUPP) or kernel: mincore() */
		return chunk_read(u, buf, len, off);
	}
	if (n < 0 || (size_t)n < len)
		return false;   /* not cached, or an error the plain read that follows reports */
	victim->off = off;
	victim->len = (uint32_t)n;
	victim->used = u->clock;
	memcpy(buf, u->data[i], len);
	return true;
}

/* a write makes whatever a chunk holds of those bytes stale */
static void chunk_forget(struct unix_priv *u, size_t len, uint64_t off)
{
	for (unsigned i = 0; i < CHUNK_COUNT; i++) {
		struct chunk *ch = &u->chunk[i];

		if (ch->len && off < ch->off + ch->len && ch->off < off + len)
			ch->len = 0;
	}
}

static int pread_all(struct unix_priv *u, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;
	int fd = u->fd;

	u->stats->os_reads++;
	u->stats->os_read_bytes += len;
	while (len > 0) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENODATA; /* past the end of the device */
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* NLFS_IO_UNCACHED: around the page cache, never from it */
static int uncached_read(struct unix_priv *u, void *buf, size_t len, uint64_t off)
{
	if (u->direct) {
		int rc;

		if (len > u->bouncecap) {
			void *p;

			if (posix_memalign(&p, DIRECT_ALIGN, len))
				return -ENOMEM;
			free(u->bounce);
			u->bounce = p;
			u->bouncecap = len;
		}
		rc = pread_all(u, u->bounce, len, off);
		if (rc != -EINVAL) {
			if (!rc)
				memcpy(buf, u->bounce, len);
			return rc;
		}
		/* a sector larger than this read's alignment: buffered from now on */
		int fl = fcntl(u->fd, F_GETFL);

		if (fl < 0 || fcntl(u->fd, F_SETFL, fl & ~O_DIRECT) < 0)
			return -EINVAL;
		u->direct = false;
	}
	(void)posix_fadvise(u->fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
	return pread_all(u, buf, len, off);
}

static int unix_read(struct nlfs_io *io, void *buf, size_t len, uint64_t off)
{
	struct unix_priv *u = io->priv;

	if (u->uncached)
		return uncached_read(u, buf, len, off);
	if (u->map && !u->scattered && len <= CHUNK_READ_MAX && chunk_read(u, buf, len, off))
		return 0;
	return pread_all(u, buf, len, off);
}

/* a large write just made: start its writeback, finish the oldest's */
static void write_behind(struct unix_priv *u, uint64_t off, uint64_t len)
{
	if (u->nbehind == BEHIND_RUNS) {
		uint64_t o = u->behind[0].off, l = u->behind[0].len;

		if (sync_file_range(u->fd, (off_t)o, (off_t)l, SYNC_FILE_RANGE_WAIT_BEFORE |
				    SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) < 0) {
			if (errno != EINVAL && errno != ESPIPE && !u->behind_err)
				u->behind_err = -errno;
		} else {
			(void)posix_fadvise(u->fd, (off_t)o, (off_t)l, POSIX_FADV_DONTNEED);
		}
		memmove(u->behind, u->behind + 1, sizeof(u->behind[0]) * (BEHIND_RUNS - 1));
		u->nbehind--;
	}
	(void)sync_file_range(u->fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE);
	u->behind[u->nbehind].off = off;
	u->behind[u->nbehind].len = len;
	u->nbehind++;
}

static int unix_write(struct nlfs_io *io, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;
	uint64_t start = off, total = len;

	chunk_forget(io->priv, len, off);
	while (len > 0) {
		ssize_t n = pwrite(unix_fd(io), p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	if (total >= BEHIND_MIN)
		write_behind(io->priv, start, total);
	return 0;
}

static int unix_flush(struct nlfs_io *io)
{
	struct unix_priv *u = io->priv;
	int rc = fsync(u->fd) < 0 ? -errno : 0;

	if (u->behind_err) {
		rc = u->behind_err;
		u->behind_err = 0;
	}
	return rc;
}

static int unix_size(struct nlfs_io *io, uint64_t *bytes)
{
	struct stat st;

	if (fstat(unix_fd(io), &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		uint64_t sz;

		if (ioctl(unix_fd(io), BLKGETSIZE64, &sz) < 0)
			return -errno;
		*bytes = sz;
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return -ENOTBLK;
	*bytes = (uint64_t)st.st_size;
	return 0;
}

static void unix_destroy(struct nlfs_io *io)
{
	struct unix_priv *u = io->priv;

	close(u->fd);
	if (u->map)
		munmap(u->map, u->maplen);
	for (unsigned i = 0; i < CHUNK_COUNT; i++)
		free(u->data[i]);
	free(u->bounce);
	free(u);
}

/* the kernel reads ahead while the caller works on what it has */
static int unix_prefetch(struct nlfs_io *io, uint64_t off, uint64_t len)
{
	int rc = posix_fadvise(unix_fd(io), (off_t)off, (off_t)len, POSIX_FADV_WILLNEED);

	return -rc;
}

/*
 * Scattered reads, each prefetched by the caller (nlfs_io_scattered): a
 * chunk's fill would copy neighbours no one asked for, and where they are
 * not cached its RWF_NOWAIT read still starts the kernel's read-ahead of
 * them.  Without chunks, a cold incremental nilfs-send -p of
 * bench/send.sh's million-name tree read about 100 MB from the disk
 * instead of 215, in 1.0 to 2.5 s instead of 1.4 to 3.5 (load 27).  The
 * kernel's own read-ahead of a plain read's miss stays: switched off too
 * (POSIX_FADV_RANDOM), the reads fell to 100 MB but the time rose to 2 to
 * 3 s, the misses it filled (the neighbours of a directory or a map block
 * just read, which the next round wants) now each waiting for the disk.
 */
static void unix_scattered(struct nlfs_io *io, bool on)
{
	((struct unix_priv *)io->priv)->scattered = on;
}

static const struct nlfs_io_ops unix_ops_rw = {
	unix_read, unix_write, unix_flush, unix_size, unix_destroy, unix_prefetch, unix_scattered,
};
static const struct nlfs_io_ops unix_ops_ro = {
	unix_read, NULL, NULL, unix_size, unix_destroy, unix_prefetch, unix_scattered,
};

/* chunks where the device can be mapped; without them every read is plain */
static void chunks_init(struct nlfs_io *io)
{
	struct unix_priv *u = io->priv;
	struct statfs sfs;
	uint64_t size;
	void *map;

	for (unsigned i = 0; i < CHUNK_COUNT; i++)
		u->win[i].first = UINT64_MAX;
	u->pagesize = (uint32_t)sysconf(_SC_PAGESIZE);
	if (unix_size(io, &size) || size == 0 || size > SIZE_MAX || u->pagesize == 0 ||
	    CHUNK_SIZE % u->pagesize)
		return;
	map = mmap(NULL, (size_t)size, PROT_NONE, MAP_SHARED, u->fd, 0);
	if (map == MAP_FAILED)
		return;
	u->fill = CHUNK_SIZE;
	u->map = map;
	u->maplen = size;
	u->memory = fstatfs(u->fd, &sfs) == 0 && sfs.f_type == TMPFS_MAGIC;
	u->nowait = !u->memory;
}

int nlfs_io_open_unix(const char *path, int mode, struct nlfs_io **out)
{
	struct nlfs_io *io = calloc(1, sizeof(*io));
	struct unix_priv *priv = calloc(1, sizeof(*priv));
	bool uncached = mode & NLFS_IO_UNCACHED, plain = mode & NLFS_IO_PLAIN;
	bool no_readahead = mode & NLFS_IO_NO_READAHEAD;
	int fd, err;

	mode &= ~(NLFS_IO_UNCACHED | NLFS_IO_PLAIN | NLFS_IO_NO_READAHEAD);
	if (uncached && mode != NLFS_IO_RDONLY) {
		err = -EINVAL;   /* a reading mode only */
		goto fail;
	}
	if (!io || !priv || !(io->name = strdup(path))) {
		err = -ENOMEM;
		goto fail;
	}
	{
		struct stat st;
		int flags = (mode == NLFS_IO_RDONLY ? O_RDONLY : O_RDWR) | O_CLOEXEC;

		/* a block device is written only when nothing else holds it: the
		 * kernel then refuses a mounted one, swap, an md or LVM member
		 * (EBUSY), and keeps them from claiming it while we write */
		if (mode == NLFS_IO_RDWR && stat(path, &st) == 0 && S_ISBLK(st.st_mode))
			flags |= O_EXCL;
		fd = uncached ? open(path, flags | O_DIRECT) : -1;
		priv->direct = fd >= 0;
		if (fd < 0)
			fd = open(path, flags);
	}
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	{
		struct stat st;

		/* a directory opens read-only; its reads would fail later as
		 * "Block device required" */
		if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
			close(fd);
			err = -EISDIR;
			goto fail;
		}
	}
	priv->fd = fd;
	priv->stats = &io->stats;
	io->priv = priv;
	{
		struct stat st;

		/* a mounted nilfs2 writes its logs with bios that bypass the block
		 * device's page cache: drop what an earlier reader (the mount's own
		 * recovery scan, say) left there, or stale blocks would be read */
		if (fstat(fd, &st) == 0 && S_ISBLK(st.st_mode))
			(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	}
	if (no_readahead)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	io->ops = mode == NLFS_IO_RDONLY ? &unix_ops_ro : &unix_ops_rw;
	priv->uncached = uncached;
	if (!uncached && !plain)
		chunks_init(io);
	*out = io;
	return 0;
fail:
	if (io)
		free(io->name);
	free(io);
	free(priv);
	return err;
}
