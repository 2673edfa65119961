/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * readahead.c - a thread that asks the kernel for the blocks the passes
 * are about to read, so the disk works while the checks use the CPU.
 *
 * Metadata is scattered: every log holds directory blocks and B-tree
 * nodes between file data.  Reading them one by one when a pass needs them
 * leaves the disk idle between requests; this thread finds them first,
 * from the maps of the metadata files and from the summaries, and hands
 * them to the kernel in disk order (posix_fadvise WILLNEED), runs closer
 * than a few blocks merged into one request.  It reads through its own
 * handle on the device and never reports anything: whatever it meets, the
 * passes meet too and report it.
 *
 * The summaries come first, and cannot be asked for ahead with
 * certainty: where a log begins is known only from the header of the one
 * before, so pass 3 would wait for the disk once per log on a cold cache
 * (a kernel-written volume has thousands of small logs).  The cpfile's
 * sizes of the checkpoints make guesses (RA_GUESS_LOGS below).  Each
 * segment's logs are a chain of their own:
 * RA_WALKERS threads follow the chains of several segments at once, in
 * segment order, each through a handle of its own, reading every log's
 * first block (with the super root before it, the last block of the log
 * before) and asking for the rest of its summary, so that pass 3 finds
 * them cached.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <nlfs/endian.h>
#include <nlfs/io.h>
#include <nlfs/nlfs.h>
#include "bitmap.h"
#include "readahead.h"
#include "array.h"

/* blocks between two wanted ones that are read rather than skipped.  A
 * few: a kernel-written volume's directory blocks and nodes sit among
 * file data in small holes, and one request over a hole costs less than
 * two.  Not many: on a solid-state or virtual disk the file data read
 * for nothing costs bandwidth.  Measured, cold, median of 10: a 1M-file
 * mkfs -d tree 0.94 s at 4 against 1.11 s at 8 and at 32; a kernel
 * volume of 100k files 0.45 s at 4 and at 32, 0.63 s at 0 */
#define RA_GAP 4

/* chains of logs followed at once (see above): they wait for the disk,
 * not the CPU.  On bench/fsck.sh CASE=checkpoints (20,000 files, 1,023
 * logs in 22 segments), fsck -fn cold under a load of 15 took 0.40-0.54 s
 * without them and 0.19-0.32 s with four (five runs each, in turn).  With
 * one request a log (walk_segment) and no read-ahead of the kernel's on
 * their handles, eight: pass 3 took 33-36 ms there against 44 with four
 * and 41 with sixteen (--stats, medians of 11 cold runs in turn, load 5) */
#define RA_WALKERS 8

/* A kernel writing small changes writes a log a checkpoint, and the
 * cpfile says how many blocks each checkpoint's logs took (cp_nblk_inc):
 * from one log of a segment, where the logs after it begin can be
 * guessed, and their summaries asked for all at once rather than one
 * after the other along the chain.  A guess that proves wrong (a
 * checkpoint of several logs, a data-sync log, one deleted) costs two
 * blocks read for nothing and a new guess from the log found there.
 * RA_GUESS_LOGS logs are guessed at a time; the sizes of the latest
 * RA_GUESS_CPS checkpoints are kept (4 bytes each). */
#define RA_GUESS_LOGS 64
#define RA_GUESS_CPS 65536

struct fsck_readahead;

/* one thread following the logs of the segments it takes */
struct log_walker {
	struct fsck_readahead *ra;
	struct nlfs_io *io;            /* its own handle: the library's are not shared */
	pthread_t thread;
	bool started;
	uint64_t guess[RA_GUESS_LOGS]; /* where the next logs should begin */
	size_t nguess, iguess;         /* guesses made, and met so far */
};

struct fsck_readahead {
	pthread_t thread;
	atomic_bool stop;
	struct nlfs_fs *fs;              /* NULL once its work is done (release()) */
	struct nlfs_geometry geo;        /* the volume's, kept past fs */
	const struct nlfs_geometry *g;   /* &geo */
	struct nlfs_io *io;
	uint64_t run_start, run_end;     /* pending request [start, end) */
	struct fsck_bitmap dirs;         /* inodes whose blocks are metadata too */
	uint64_t first_ino;
	uint64_t *blocks;                /* one metadata file's blocks, or a segment's, to sort */
	size_t nblocks, capblocks;
	/* a segment's blocks of directories and nodes, to look up in the DAT */
	struct ra_cand { uint64_t vblocknr, block; } *cands;
	size_t ncands, capcands;
	uint64_t end_blkoff;             /* and its last data block + 1 */
	struct log_walker walkers[RA_WALKERS];
	struct used_seg { uint64_t seg; uint32_t nblocks; } *segs;   /* for the walkers */
	size_t nsegs, capsegs;
	atomic_size_t next_seg;          /* the walkers' next one in segs */
	/* the blocks the logs of checkpoints nblk_first.. took (cp_nblk_inc;
	 * 0: not known), for the walkers once nblk_ready */
	uint32_t *nblk;
	uint64_t nblk_first;
	size_t nnblk;
	atomic_bool nblk_ready;
};

static void flush_run(struct fsck_readahead *ra)
{
	uint32_t bs = ra->g->blocksize;

	if (ra->run_end > ra->run_start)
		nlfs_io_prefetch(ra->io, ra->run_start * bs, (ra->run_end - ra->run_start) * bs);
	ra->run_start = ra->run_end = 0;
}

/* block B is wanted; blocks come in ascending order between flushes */
static void want(struct fsck_readahead *ra, uint64_t b)
{
	if (ra->run_end > ra->run_start && b >= ra->run_start && b <= ra->run_end + RA_GAP) {
		if (b >= ra->run_end)
			ra->run_end = b + 1;
		return;
	}
	flush_run(ra);
	ra->run_start = b;
	ra->run_end = b + 1;
}

struct file_walk {
	struct fsck_readahead *ra;
	const struct nlfs_file *f;
};

static int collect_block(uint64_t blkoff, uint64_t ptr, unsigned level, void *arg)
{
	struct file_walk *w = arg;
	struct fsck_readahead *ra = w->ra;
	struct nlfs_err err;
	uint64_t b = 0;

	if (level == 0 && blkoff >= ra->end_blkoff)
		ra->end_blkoff = blkoff + 1;
	if (atomic_load(&ra->stop))
		return 1;
	if (nlfs_file_block_addr(ra->fs, w->f, ptr, &b, &err) || !b)
		return 0;
	return CLI_PUSH(ra->blocks, ra->nblocks, ra->capblocks, b) ? 1 : 0;
}

/* every block of F, nodes included, in disk order */
static void file_ahead(struct fsck_readahead *ra, const struct nlfs_file *f)
{
	struct file_walk w = { ra, f };
	struct nlfs_err err;

	ra->nblocks = 0;
	ra->end_blkoff = 0;
	nlfs_bmap_iterate(ra->fs, f, collect_block, &w, &err);
	if (ra->nblocks == 0)
		return;
	nlfs_sort(ra->blocks, ra->nblocks, sizeof(*ra->blocks), nlfs_cmp_u64);
	for (size_t i = 0; i < ra->nblocks; i++)
		want(ra, ra->blocks[i]);
	flush_run(ra);
}

static int note_dir(const struct nlfs_file *f, void *arg)
{
	struct fsck_readahead *ra = arg;
	uint16_t mode = nlfs_le16(f->inode.i_mode);

	if ((mode & NLFS_S_IFMT) == NLFS_S_IFDIR || (mode & NLFS_S_IFMT) == NLFS_S_IFLNK)
		fsck_bit_set(&ra->dirs, f->ino);
	return atomic_load(&ra->stop) ? 1 : 0;
}

/* node blocks and blocks of directories and symbolic links that the
 * latest checkpoint still uses.  A kernel-written volume's summaries name
 * every version of them each checkpoint wrote, and those of the metadata
 * files (the DAT, cpfile, sufile and ifile, in every log): the old ones
 * are not read by the check of the latest checkpoint, and the live blocks
 * of the metadata files were asked for from their maps.  Asking for all
 * of them made the disk read 99.8 MiB on bench/fsck.sh CASE=checkpoints
 * (20,000 files) for a metadata floor of 13.6 MiB. */
static int summary_block(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi,
			 void *arg)
{
	struct fsck_readahead *ra = arg;
	struct ra_cand c;

	if (!bi || fi->ino < ra->first_ino || (bi->is_data && !fsck_bit_test(&ra->dirs, fi->ino)))
		return 0;
	c.vblocknr = bi->vblocknr;
	c.block = bi->block;
	return CLI_PUSH(ra->cands, ra->ncands, ra->capcands, c) ? 1 : 0;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct ra_cand *x = a, *y = b;

	return (x->vblocknr > y->vblocknr) - (x->vblocknr < y->vblocknr);
}

/* Of the candidates, the blocks the DAT still maps there, for a life not
 * ended, asked for in disk order.  Looked up in the order of their
 * virtual block numbers, so that each DAT block is read once: in the
 * summaries' order a segment's lookups went back and forth between DAT
 * blocks, 1,628 reads of them through the thread's few (bench/fsck.sh
 * CASE=checkpoints, 20,000 files). */
static void cands_ahead(struct fsck_readahead *ra)
{
	struct nlfs_datinfo de;
	struct nlfs_err err;

	nlfs_sort(ra->cands, ra->ncands, sizeof(*ra->cands), cmp_cand);
	for (size_t i = 0; i < ra->ncands && !atomic_load(&ra->stop); i++)
		if (!nlfs_dat_lookup(ra->fs, ra->cands[i].vblocknr, &de, &err) &&
		    de.blocknr == ra->cands[i].block && de.end == UINT64_MAX &&
		    CLI_PUSH(ra->blocks, ra->nblocks, ra->capblocks, ra->cands[i].block))
			break;
	ra->ncands = 0;
	nlfs_sort(ra->blocks, ra->nblocks, sizeof(*ra->blocks), nlfs_cmp_u64);
	for (size_t i = 0; i < ra->nblocks; i++)
		want(ra, ra->blocks[i]);
	ra->nblocks = 0;
	flush_run(ra);
}

/* FN for every segment in use, in segment order */
static void used_segments(struct fsck_readahead *ra,
			  void (*fn)(struct fsck_readahead *ra, uint64_t seg, uint32_t nblocks))
{
	enum { BATCH = 256 };
	struct nlfs_suinfo su[BATCH];
	struct nlfs_err err;

	for (uint64_t seg = 0; seg < ra->g->nsegments && !atomic_load(&ra->stop); seg += BATCH) {
		size_t n = ra->g->nsegments - seg < BATCH ? ra->g->nsegments - seg : BATCH;

		if (nlfs_sufile_get_many(ra->fs, seg, n, su, &err))
			return;
		for (size_t i = 0; i < n && !atomic_load(&ra->stop); i++) {
			uint32_t flags = su[i].flags, nb = su[i].nblocks;

			if ((flags & NLFS_SEGMENT_USAGE_DIRTY) && nb)
				fn(ra, seg + i, nb);
		}
	}
}

/* one log: the blocks its summary names that pass 6 reads, then its
 * super root block, which pass 3 reads (in disk order: the super root is
 * the log's last block) */
static int log_blocks(const struct nlfs_log *log, const void *summary, void *arg)
{
	struct fsck_readahead *ra = arg;
	struct nlfs_err err;

	if (summary)
		nlfs_summary_walk(log, summary, ra->g->blocksize, summary_block, ra, &err);
	if (log->flags & NLFS_SS_SR)
		(void)CLI_PUSH(ra->blocks, ra->nblocks, ra->capblocks,
			       log->start + log->nblocks - 1);
	return atomic_load(&ra->stop) ? 1 : 0;
}

/* the node, directory, metadata and super root blocks of its logs */
static void segment_blocks(struct fsck_readahead *ra, uint64_t seg, uint32_t nblocks)
{
	struct nlfs_err err;

	(void)nblocks;
	ra->ncands = ra->nblocks = 0;
	nlfs_segment_logs(ra->fs, seg, NLFS_LOG_READ_SUMMARY_ONLY | NLFS_SEGMENT_LOGS_VALID,
			  log_blocks, ra, &err);
	cands_ahead(ra);
}

/* its first block, where its first log's summary begins, for every
 * segment at once: the walkers and pass 3 read it first.  One block: the
 * walker that reads it asks for the rest of that summary, as long as its
 * header says.  (An estimate from the blocks in use, 40 bytes of summary a
 * block, at most 32 blocks, read 6 on the aged volume of bench/fsck.sh
 * for summaries of one or two: the disk read 17.4 MiB for a cold fsck -fn
 * there, 14.6 MiB with one block; 20,000 files 25.3 and 24.4 MiB.) */
static void segment_head(struct fsck_readahead *ra, uint64_t seg, uint32_t nblocks)
{
	uint32_t bs = ra->g->blocksize;

	(void)nblocks;
	nlfs_io_prefetch(ra->io, nlfs_seg_start(ra->g, seg) * bs, bs);
}

static void collect_segment(struct fsck_readahead *ra, uint64_t seg, uint32_t nblocks)
{
	struct used_seg u = { seg, nblocks };

	(void)CLI_PUSH(ra->segs, ra->nsegs, ra->capsegs, u);
}

/* the blocks checkpoint CNO's logs took; 0 where not known */
static uint32_t cp_blocks(const struct fsck_readahead *ra, uint64_t cno)
{
	return cno >= ra->nblk_first && cno - ra->nblk_first < ra->nnblk ?
	       ra->nblk[cno - ra->nblk_first] : 0;
}

/* From LOG, a log that ends its checkpoint, in a segment whose logs end
 * at END: guesses of where the logs after it begin (see RA_GUESS_LOGS),
 * each asked for with the block before it, its predecessor's super root. */
static void guess_logs(struct log_walker *w, const struct nlfs_log *log, uint64_t end)
{
	struct fsck_readahead *ra = w->ra;
	uint32_t bs = ra->g->blocksize;
	uint64_t q = log->start + log->nblocks, cno = log->cno + 1;
	uint32_t n;

	w->nguess = w->iguess = 0;
	if (!atomic_load(&ra->nblk_ready) || !(log->flags & NLFS_SS_LOGEND))
		return;
	w->guess[w->nguess++] = q;   /* the next log's start is known */
	while (w->nguess < RA_GUESS_LOGS && (n = cp_blocks(ra, cno++)) && q + n < end) {
		q += n;
		w->guess[w->nguess++] = q;
		nlfs_io_prefetch(w->io, (q - 1) * bs, 2 * (uint64_t)bs);
	}
}

/* The chain of logs of [P, END), one request a log: a log's super root is
 * its last block, next to the following log's summary, so the two are
 * read together (BUF holds two blocks); only the segment's last super
 * root is asked for alone.  Where the logs after are guessed (guess_logs),
 * they were asked for already; a log found where none was guessed starts
 * new guesses. */
static void walk_segment(struct log_walker *w, uint64_t p, uint64_t end, uint8_t *buf)
{
	struct fsck_readahead *ra = w->ra;
	uint32_t bs = ra->g->blocksize;
	bool sr_before = false;   /* block P - 1 is a super root not yet asked for */

	w->nguess = w->iguess = 0;
	while (p < end && !atomic_load(&ra->stop)) {
		uint64_t from = sr_before ? p - 1 : p;
		uint8_t *sum = buf + (p - from) * bs;
		struct nlfs_log log;
		struct nlfs_err err;
		uint32_t nsum;

		if (nlfs_io_read(w->io, buf, (size_t)(p - from + 1) * bs, from * bs) ||
		    nlfs_summary_decode(sum, bs, p, &log, &err) || log.nblocks > end - p)
			return;   /* pass 3 says what is wrong */
		nsum = nlfs_summary_blocks(&log, bs);
		if (nsum > 1 && nsum <= log.nblocks)
			nlfs_io_prefetch(w->io, (p + 1) * bs, (uint64_t)(nsum - 1) * bs);
		if (w->iguess < w->nguess && w->guess[w->iguess] == p)
			w->iguess++;
		else
			w->iguess = w->nguess;   /* off the guesses: new ones from here */
		if (w->iguess >= w->nguess)
			guess_logs(w, &log, end);
		sr_before = log.flags & NLFS_SS_SR;
		p += log.nblocks;
	}
	if (sr_before)
		nlfs_io_prefetch(w->io, (p - 1) * bs, bs);
}

/* the chains of logs of the segments this walker takes, in segment order */
static void *walker_main(void *arg)
{
	struct log_walker *w = arg;
	struct fsck_readahead *ra = w->ra;
	uint8_t *buf = malloc(2 * (size_t)ra->g->blocksize);

	while (buf && !atomic_load(&ra->stop)) {
		size_t i = atomic_fetch_add(&ra->next_seg, 1);
		uint64_t start;

		if (i >= ra->nsegs)
			break;
		start = nlfs_seg_start(ra->g, ra->segs[i].seg);
		walk_segment(w, start, start + ra->segs[i].nblocks, buf);
	}
	free(buf);
	return NULL;
}

/* the walkers on the segments in use (those whose handle could be opened) */
static void start_walkers(struct fsck_readahead *ra)
{
	used_segments(ra, collect_segment);
	for (unsigned i = 0; i < RA_WALKERS; i++) {
		struct log_walker *w = &ra->walkers[i];

		w->ra = ra;
		if (w->io && !pthread_create(&w->thread, NULL, walker_main, w))
			w->started = true;
	}
}

/* Where the chain would go on after its latest log: the block after that
 * log in its segment and the head of the segment its ss_next names.  Pass
 * 3's look at the logs after the latest super root (pass_recovery, as the
 * kernel's roll-forward scan) reads there and, on a cleanly unmounted
 * volume, finds an old log or none, in blocks no walker reads: two waits
 * of the disk at the end of pass 3 (6 to 9 ms on bench/fsck.sh CASE=aged,
 * cold), asked for now instead. */
static void chain_end_ahead(struct fsck_readahead *ra)
{
	const struct nlfs_recovery *rec = nlfs_fs_recovery(ra->fs);
	uint32_t bs = ra->g->blocksize;
	struct nlfs_log log;
	struct nlfs_err err;

	if (nlfs_log_read(ra->fs, rec->sr_log, &log, NULL, NLFS_LOG_READ_SUMMARY_ONLY, &err))
		return;
	if (rec->sr_block + 1 < nlfs_seg_end(ra->g, rec->sr_block / ra->g->blocks_per_segment))
		nlfs_io_prefetch(ra->io, (rec->sr_block + 1) * bs, bs);
	if (log.next / ra->g->blocks_per_segment < ra->g->nsegments)
		nlfs_io_prefetch(ra->io, log.next * bs, bs);
}

/* the blocks of the latest checkpoints' logs (nblk), from the cpfile */
static void load_cp_blocks(struct fsck_readahead *ra)
{
	uint64_t latest = nlfs_fs_recovery(ra->fs)->cno, cno;
	struct nlfs_cpfile_iter *it;
	struct nlfs_cpinfo ci[64];
	struct nlfs_file f;
	struct nlfs_err err;
	size_t got;

	if (!latest)
		return;
	ra->nblk_first = latest > RA_GUESS_CPS ? latest - RA_GUESS_CPS + 1 : 1;
	ra->nnblk = latest - ra->nblk_first + 1;
	ra->nblk = calloc(ra->nnblk, sizeof(*ra->nblk));
	if (!ra->nblk || nlfs_cpfile_iter_open(ra->fs, &it, &err))
		return;
	nlfs_fs_mdt_file(ra->fs, NLFS_CPFILE_INO, &f);
	file_ahead(ra, &f);
	/* each call that lists some moves on past them (nlfs_cpfile_list):
	 * at most nnblk entries */
	for (cno = ra->nblk_first; !atomic_load(&ra->stop) && cno <= latest;) {
		if (nlfs_cpfile_iter_list(it, &cno, NLFS_CPINFO_CHECKPOINTS, ci, 64, &got, &err) ||
		    !got)
			break;
		for (size_t i = 0; i < got; i++)
			if (ci[i].cno >= ra->nblk_first && ci[i].cno - ra->nblk_first < ra->nnblk &&
			    ci[i].nblk_inc <= UINT32_MAX)
				ra->nblk[ci[i].cno - ra->nblk_first] = (uint32_t)ci[i].nblk_inc;
	}
	nlfs_cpfile_iter_close(it);
	atomic_store(&ra->nblk_ready, true);
}

static void readahead_work(struct fsck_readahead *ra)
{
	static const unsigned mdt[] = { NLFS_SUFILE_INO, NLFS_DAT_INO };
	struct nlfs_file f;
	struct nlfs_err err;
	uint64_t ninodes;

	/* the order the passes read them: the summaries (small, but each
	 * read of a chain waits for the one before), sufile, DAT, cpfile
	 * (whose checkpoints' sizes let the walkers guess), then the ifile
	 * and, found from it and the summaries, the blocks of directories
	 * and B-tree nodes */
	start_walkers(ra);
	used_segments(ra, segment_head);
	chain_end_ahead(ra);
	for (size_t i = 0; i < sizeof(mdt) / sizeof(mdt[0]) && !atomic_load(&ra->stop); i++) {
		nlfs_fs_mdt_file(ra->fs, mdt[i], &f);
		file_ahead(ra, &f);
	}
	load_cp_blocks(ra);
	if (atomic_load(&ra->stop) || nlfs_fs_ifile(ra->fs, 0, &f, &err))
		return;
	file_ahead(ra, &f);
	/* an upper bound: descriptor and bitmap blocks counted as inodes */
	ninodes = ra->end_blkoff * (ra->g->blocksize / ra->g->inode_size);
	if (fsck_bitmap_init(&ra->dirs, ninodes) == 0) {
		nlfs_ifile_iterate(ra->fs, &f, note_dir, ra, &err);
		used_segments(ra, segment_blocks);
	}
}

/* Its work done, what it holds goes at once, not at the end of the
 * check, while pass 6 (whose inode cache is the peak of memory) goes on:
 * the walkers (joined), its handle with its caches of DAT, node and ifile
 * blocks (the io stays open, for its counts) and its lists.  That is 190
 * KiB of heap on bench/fsck.sh CASE=checkpoints with 20,000 files, 240
 * KiB on the aged volume (mallinfo2). */
static void release(struct fsck_readahead *ra)
{
	for (unsigned i = 0; i < RA_WALKERS; i++)
		if (ra->walkers[i].started) {
			pthread_join(ra->walkers[i].thread, NULL);
			ra->walkers[i].started = false;
		}
	ra->io = nlfs_fs_release(ra->fs);
	ra->fs = NULL;
	free(ra->segs);
	free(ra->nblk);
	ra->nblk = NULL;
	ra->nnblk = 0;
	free(ra->cands);
	fsck_bitmap_free(&ra->dirs);
	free(ra->blocks);
#ifdef __GLIBC__
	/* and the pages freed handed back: they lie between the checker's
	 * blocks, where glibc keeps them (main.c's trim_malloc_for_walk()
	 * ran before this, as pass 6 began) */
	(void)malloc_trim(0);
#endif
}

static void *readahead_main(void *arg)
{
	struct fsck_readahead *ra = arg;

	readahead_work(ra);
	release(ra);
	return NULL;
}

bool fsck_readahead_whole(struct nlfs_io *io, uint64_t devsize)
{
	if (devsize > FSCK_RA_WHOLE_MAX)
		return false;
	nlfs_io_prefetch(io, 0, devsize);
	return true;
}

int fsck_readahead_start(const char *device, int io_flags, struct fsck_readahead **out)
{
	struct fsck_readahead *ra = calloc(1, sizeof(*ra));
	struct nlfs_io *io;
	struct nlfs_err err;

	*out = NULL;
	if (!ra)
		return -1;
	atomic_init(&ra->stop, false);
	atomic_init(&ra->nblk_ready, false);
	/* plain reads: its chunks' 256 KiB cost 140 to 260 KiB of the peak
	 * (bench/fsck.sh CASE=checkpoints, 20,000 files) for no CPU time */
	if (nlfs_io_open_unix(device, NLFS_IO_RDONLY | NLFS_IO_PLAIN | io_flags, &io)) {
		free(ra);
		return -1;
	}
	if (nlfs_fs_open(io, &ra->fs, &err)) {
		nlfs_io_close(io);
		free(ra);
		return -1;
	}
	ra->io = nlfs_fs_io(ra->fs);
	/* it translates each block once, in the order of the maps: a few
	 * DAT blocks serve it as well as the checker's many */
	nlfs_fs_limit_dat_cache(ra->fs, 32);
	ra->geo = *nlfs_fs_geometry(ra->fs);
	ra->g = &ra->geo;
	ra->first_ino = nlfs_le32(nlfs_fs_sb(ra->fs, nlfs_fs_sb_choice(ra->fs)->used)->s_first_ino);
	/* opened now, before anything is cached: opening a block device
	 * drops what its page cache holds (io_unix.c) */
	for (unsigned i = 0; i < RA_WALKERS; i++)
		if (nlfs_io_open_unix(device, NLFS_IO_RDONLY | NLFS_IO_PLAIN | io_flags, &ra->walkers[i].io))
			ra->walkers[i].io = NULL;
	if (pthread_create(&ra->thread, NULL, readahead_main, ra)) {
		for (unsigned i = 0; i < RA_WALKERS; i++)
			nlfs_io_close(ra->walkers[i].io);
		nlfs_fs_close(ra->fs);
		free(ra);
		return -1;
	}
	*out = ra;
	return 0;
}

void fsck_readahead_stop(struct fsck_readahead *ra, struct nlfs_io_stats *stats)
{
	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (!ra)
		return;
	atomic_store(&ra->stop, true);
	pthread_join(ra->thread, NULL);
	if (stats)
		nlfs_io_get_stats(ra->io, stats);
	for (unsigned i = 0; i < RA_WALKERS; i++) {
		struct log_walker *w = &ra->walkers[i];
		struct nlfs_io_stats ws;

		if (w->started)
			pthread_join(w->thread, NULL);
		if (w->io && stats) {
			nlfs_io_get_stats(w->io, &ws);
			stats->reads += ws.reads;
			stats->read_bytes += ws.read_bytes;
			stats->os_reads += ws.os_reads;
			stats->os_read_bytes += ws.os_read_bytes;
			stats->prefetches += ws.prefetches;
			stats->prefetch_bytes += ws.prefetch_bytes;
		}
		nlfs_io_close(w->io);
	}
	nlfs_io_close(ra->io);   /* release() let the handle go */
	free(ra);
}
