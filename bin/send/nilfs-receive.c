/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nilfs-receive: apply nilfs-send streams to a directory on any
 * filesystem.  What the directory holds is recorded in a state file,
 * DIR/.nilfs-receive/state (why there: see nilfs-receive(8)): the source
 * volume's UUID and the checkpoint received, and whether a receive is
 * under way.  A full stream goes into an empty directory; an incremental
 * one only onto the state it was made from, and only once it has been
 * read whole and checked (spool()).  The state says "receiving" from
 * before the first change to after the last one is on disk, so a receive
 * that stops half-way (an error, a crash, a cut full stream) is never
 * taken for a complete one.  With --snapshot, on a
 * mounted NILFS2 volume, each complete state is then made a snapshot (as
 * mkcp -s), so the target keeps every state received.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vol.h"
#include "vol_snapshot.h"
#include "apply.h"
#include "cli.h"
#include "names.h"
#include "sendstream.h"

#define STATE_VERSION 1

struct state {
	bool present, complete;
	uint8_t uuid[16];
	uint64_t cno, ctime, from;     /* from: the parent a receive under way started on */
};

static const char *dir_name;

static void uuid_text(const uint8_t *u, char *out)
{
	for (int i = 0; i < 16; i++)
		out += sprintf(out, "%02x%s", u[i], i == 3 || i == 5 || i == 7 || i == 9 ? "-" : "");
}

static int uuid_parse(const char *s, uint8_t *u)
{
	for (int i = 0; i < 16; i++) {
		unsigned v;

		if (*s == '-')
			s++;
		if (sscanf(s, "%2x", &v) != 1)
			return -1;
		u[i] = (uint8_t)v;
		s += 2;
	}
	return *s ? -1 : 0;
}

/* the state file, if any: 0, or -1 with a message */
static int state_read(int top, struct state *st)
{
	char line[200], key[32], val[64];
	int fd = openat(top, RECV_PRIVATE "/state", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	unsigned version = 0;
	FILE *f;

	memset(st, 0, sizeof(*st));
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		cli_warnc(errno, "%s/%s/state", dir_name, RECV_PRIVATE);
		return -1;
	}
	if (!(f = fdopen(fd, "r"))) {
		close(fd);
		cli_warnc(errno, "%s/%s/state", dir_name, RECV_PRIVATE);
		return -1;
	}
	st->present = true;
	bool have_uuid = false, have_cno = false, have_status = false;

	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || sscanf(line, "%31s %63s", key, val) != 2)
			continue;
		if (!strcmp(key, "version"))
			version = (unsigned)strtoul(val, NULL, 10);
		else if (!strcmp(key, "uuid"))
			have_uuid = !uuid_parse(val, st->uuid);
		else if (!strcmp(key, "cno"))
			have_cno = !cli_strtou64(val, &st->cno);
		else if (!strcmp(key, "ctime"))
			(void)cli_strtou64(val, &st->ctime);
		else if (!strcmp(key, "from"))
			(void)cli_strtou64(val, &st->from);
		else if (!strcmp(key, "status")) {
			have_status = true;
			st->complete = !strcmp(val, "complete");
		}
	}
	fclose(f);
	if (version != STATE_VERSION || !have_uuid || !have_cno || !have_status) {
		cli_warnx("%s/%s/state: not a state this nilfs-receive wrote (version %u)", dir_name,
			  RECV_PRIVATE, version);
		return -1;
	}
	return 0;
}

/* the state written whole, synced, then renamed over the old one */
static int state_write(int top, const struct state *st)
{
	char u[40];
	int priv, fd;
	FILE *f;

	if (mkdirat(top, RECV_PRIVATE, 0700) && errno != EEXIST)
		goto fail;
	priv = openat(top, RECV_PRIVATE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (priv < 0)
		goto fail;
	fd = openat(priv, "state.new", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		close(priv);
		goto fail;
	}
	uuid_text(st->uuid, u);
	fprintf(f, "# what nilfs-receive put in this directory (see nilfs-receive(8))\n"
		"version %d\nuuid %s\ncno %" PRIu64 "\nctime %" PRIu64 "\n", STATE_VERSION, u,
		st->cno, st->ctime);
	if (!st->complete)
		fprintf(f, "from %" PRIu64 "\n", st->from);
	fprintf(f, "status %s\n", st->complete ? "complete" : "receiving");
	if (fflush(f) || fsync(fd) || fclose(f)) {
		close(priv);
		goto fail;
	}
	if (renameat(priv, "state.new", priv, "state") || fsync(priv)) {
		close(priv);
		goto fail;
	}
	close(priv);
	return 0;
fail:
	cli_warnc(errno, "%s/%s/state", dir_name, RECV_PRIVATE);
	return -1;
}

/* does TOP hold anything but the receiver's own directory */
static int dir_empty(int top, bool *empty)
{
	int fd = openat(top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (fd >= 0)
			close(fd);
		cli_warnc(errno, "%s", dir_name);
		return -1;
	}
	*empty = true;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, RECV_PRIVATE))
			*empty = false;
	closedir(d);
	return 0;
}

/* may a stream with header H go onto state ST? */
static int check_parent(int top, const struct sstream_header *h, const struct state *st)
{
	char u[40];
	bool empty;

	if (st->present && !st->complete) {
		cli_warnx("%s: an earlier receive of checkpoint %" PRIu64 " (onto %" PRIu64 ") did not "
			  "finish: the directory is neither; receive a full stream into an empty "
			  "directory", dir_name, st->cno, st->from);
		return -1;
	}
	if (!h->parent_cno) {
		if (dir_empty(top, &empty))
			return -1;
		if (!empty || st->present) {
			cli_warnx("%s: a full stream goes into an empty directory", dir_name);
			return -1;
		}
		return 0;
	}
	if (!st->present) {
		cli_warnx("%s: an incremental stream (from checkpoint %" PRIu64 ") needs a directory "
			  "that received that checkpoint; this one received nothing", dir_name,
			  h->parent_cno);
		return -1;
	}
	if (memcmp(st->uuid, h->uuid, 16)) {
		uuid_text(st->uuid, u);
		cli_warnx("%s: the stream is from another volume than the one received here (%s)",
			  dir_name, u);
		return -1;
	}
	if (st->cno != h->parent_cno || (st->ctime && st->ctime != h->parent_ctime)) {
		cli_warnx("%s: the stream applies onto checkpoint %" PRIu64 ", this directory holds "
			  "checkpoint %" PRIu64, dir_name, h->parent_cno, st->cno);
		return -1;
	}
	return 0;
}

/*
 * An incremental stream is read whole into a spool file beside the state
 * (re-encoded command by command, which gives the same bytes) and checked
 * up to its end record before the first change: a cut or damaged stream
 * leaves the directory as it was, at the last complete state.  (A full
 * stream goes into an empty directory and is applied as it comes: there
 * is no earlier state to keep, and it may be large.)  The spool, open
 * for reading at its start, or NULL after a message.
 */
static FILE *spool(int top, struct sstream_reader *r, const struct sstream_header *h)
{
	struct sstream_writer w;
	struct sstream_cmd c;
	FILE *f = NULL;
	int priv, fd = -1, rc;

	priv = openat(top, RECV_PRIVATE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (priv >= 0) {
		fd = openat(priv, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (fd < 0) {   /* a filesystem without O_TMPFILE: a name, unlinked at once */
			fd = openat(priv, "spool", O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
			if (fd >= 0)
				unlinkat(priv, "spool", 0);
		}
		close(priv);
	}
	if (fd < 0 || !(f = fdopen(fd, "w+"))) {
		cli_warnc(errno, "%s/%s: spool file", dir_name, RECV_PRIVATE);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (sstream_write_header(&w, f, h))
		goto write_error;
	while (!(rc = sstream_read(r, &c)))
		if (sstream_write(&w, &c))
			goto write_error;
	if (rc < 0) {
		cli_warnx("%s: stream at byte %" PRIu64 ": %s; nothing was changed", dir_name,
			  r->cmd_offset, r->why);
		sstream_writer_free(&w);
		fclose(f);
		return NULL;
	}
	if (sstream_write_end(&w) || fflush(f))
		goto write_error;
	rewind(f);
	return f;
write_error:
	cli_warnc(errno ? errno : EIO, "%s/%s: spool file", dir_name, RECV_PRIVATE);
	sstream_writer_free(&w);
	fclose(f);
	return NULL;
}

/* one stream, its header read: 0, or -1 with a message */
static int receive_one(int top, struct sstream_reader *in, const struct sstream_header *h,
		       bool verbose)
{
	struct sstream_reader spooled, *r = in;
	struct sstream_header again;
	struct state st;
	struct apply a;
	struct sstream_cmd c;
	FILE *sp = NULL;
	int rc;

	if (state_read(top, &st) || check_parent(top, h, &st))
		return -1;
	if (h->parent_cno) {
		if (!(sp = spool(top, in, h)))
			return -1;
		if (sstream_read_header(&spooled, sp, &again)) {
			cli_warnx("%s: spool file: %s", dir_name, spooled.why);
			sstream_reader_free(&spooled);
			fclose(sp);
			return -1;
		}
		r = &spooled;
	}
	struct state next = { .present = true, .cno = h->cno, .ctime = h->ctime,
			      .from = h->parent_cno };

	memcpy(next.uuid, h->uuid, 16);
	if (state_write(top, &next)) {
		rc = -1;
		goto out;
	}
	apply_init(&a, top);
	while (!(rc = sstream_read(r, &c)))
		if (apply_cmd(&a, &c))
			break;
	if (rc == 0) {
		cli_warnx("%s: command %" PRIu64 " (byte %" PRIu64 "): %s", dir_name, r->count,
			  r->cmd_offset, a.why);
		apply_finish(&a);
		goto interrupted;
	}
	if (rc < 0) {
		cli_warnx("%s: stream at byte %" PRIu64 ": %s", dir_name, r->cmd_offset, r->why);
		apply_finish(&a);
		goto interrupted;
	}
	if (apply_finish(&a)) {
		cli_warnx("%s: %s", dir_name, a.why);
		goto interrupted;
	}
	/* orphans left over: the stream did not put back what it moved aside */
	if (unlinkat(top, RECV_PRIVATE "/orphans", AT_REMOVEDIR) && errno != ENOENT) {
		cli_warnc(errno, "%s: the stream left files moved aside in %s/orphans", dir_name,
			  RECV_PRIVATE);
		goto interrupted;
	}
	/* the spool, read whole, goes before the sync, which would otherwise
	 * write its pages for nothing */
	if (sp) {
		sstream_reader_free(&spooled);
		fclose(sp);
		sp = NULL;
	}
	/* everything on disk before the state says so */
	if (syncfs(top)) {
		cli_warnc(errno, "%s", dir_name);
		goto interrupted;
	}
	next.complete = true;
	rc = state_write(top, &next);
	if (!rc && verbose)
		fprintf(stderr, "%s: received checkpoint %" PRIu64 "%s: %" PRIu64 " commands\n",
			dir_name, h->cno, h->parent_cno ? " (incremental)" : "", r->count);
	goto out;
interrupted:
	cli_warnx("%s: the receive of checkpoint %" PRIu64 " did not finish; the directory is "
		  "marked as such", dir_name, h->cno);
	rc = -1;
out:
	if (sp) {
		sstream_reader_free(&spooled);
		fclose(sp);
	}
	return rc;
}

/* the receiving volume's latest checkpoint, holding what was received
 * (checkpoint CNO of the source), made a snapshot */
static int snapshot_now(struct vol *v, uint64_t cno, bool verbose)
{
	uint64_t snap;
	int rc = v->ops->sync(v, &snap);

	if (rc) {
		cli_warnx("%s: %s", dir_name, vol_strerror(v, rc));
		return -1;
	}
	if (vol_snapshot(v, snap))
		return -1;
	if ((rc = vol_commit(v))) {
		cli_warnx("%s: %s", dir_name, vol_strerror(v, rc));
		return -1;
	}
	if (verbose)
		fprintf(stderr, "%s: checkpoint %" PRIu64 " received as snapshot %" PRIu64 "\n",
			dir_name, cno, snap);
	return 0;
}

static void dump_path(const char *p)
{
	putchar(' ');
	if (*p)
		fput_name(stdout, p, strlen(p));
	else
		putchar('.');
}

/* --dump: the commands of one stream (its header read), one a line */
static int dump_one(struct sstream_reader *r, const struct sstream_header *h)
{
	struct sstream_cmd c;
	char u[40];
	int rc;

	uuid_text(h->uuid, u);
	printf("stream of checkpoint %" PRIu64 " (created %" PRIu64 ") of volume %s, ", h->cno,
	       h->ctime, u);
	if (h->parent_cno)
		printf("since checkpoint %" PRIu64 " (created %" PRIu64 ")\n", h->parent_cno,
		       h->parent_ctime);
	else
		printf("full\n");
	while (!(rc = sstream_read(r, &c))) {
		printf("%-9s", sstream_kind_name(c.kind));
		if (c.kind == SS_ADOPT)
			printf(" #%" PRIu64 " ->", c.id);
		dump_path(c.path);
		switch (c.kind) {
		case SS_LINK: fputs(" <-", stdout); dump_path(c.path2); break;
		case SS_RENAME: fputs(" ->", stdout); dump_path(c.path2); break;
		case SS_ORPHAN: printf(" -> #%" PRIu64, c.id); break;
		case SS_SYMLINK: fputs(" ->", stdout); dump_path(c.target); break;
		case SS_MKNOD: printf(" type=%06o dev=%u:%u", c.mode, c.major, c.minor); break;
		case SS_WRITE: printf(" offset=%" PRIu64 " len=%" PRIu64, c.offset, c.len); break;
		case SS_HOLE: printf(" offset=%" PRIu64 " len=%" PRIu64, c.offset, c.len); break;
		case SS_TRUNCATE: printf(" size=%" PRIu64, c.len); break;
		case SS_CHMOD: printf(" mode=%04o", c.mode); break;
		case SS_CHOWN: printf(" uid=%u gid=%u", c.uid, c.gid); break;
		case SS_UTIMES:
			printf(" atime=%" PRId64 ".%09u mtime=%" PRId64 ".%09u", c.atime, c.atime_nsec,
			       c.mtime, c.mtime_nsec);
			break;
		default: break;
		}
		putchar('\n');
	}
	if (rc < 0) {
		cli_warnx("stream at byte %" PRIu64 ": %s", r->cmd_offset, r->why);
		return -1;
	}
	printf("end      %" PRIu64 " commands\n", r->count);
	return 0;
}

static void __attribute__((noreturn)) usage(void)
{
	fputs(CLI_USAGE_HEADER
	      " nilfs-receive [options] <directory>\n"
	      " nilfs-receive --dump [-f <file>]\n"
	      "\nApply nilfs-send streams to a directory: a full stream into an empty one,\n"
	      "an incremental one onto the checkpoint it was made from.\n"
	      CLI_USAGE_OPTIONS
	      " -f, --file <file>       read the stream from file (default: standard input)\n"
	      " -e, --stop-at-end       stop after the first stream's end record\n"
	      " -s, --snapshot          make each received state a snapshot (on NILFS2)\n"
	      "     --dump              print the streams' commands instead (no directory)\n"
	      " -v, --verbose           say what was received, to standard error\n", stdout);
	cli_usage_help(stdout, 25);
	cli_usage_man(stdout, 8);
	exit(0);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "stop-at-end", no_argument, NULL, 'e' },
		{ "snapshot", no_argument, NULL, 's' },
		{ "dump", no_argument, NULL, 'D' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = NULL;
	bool stop_at_end = false, verbose = false, snapshot = false, dump = false;
	struct vol *vol = NULL;
	FILE *in = stdin;
	int c, top = -1, rc = 0, n = 0;

	cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "f:esvhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'f': file = optarg; break;
		case 'e': stop_at_end = true; break;
		case 's': snapshot = true; break;
		case 'D': dump = true; break;
		case 'v': verbose = true; break;
		case 'h': usage();
		case 'V': cli_print_version(); return 0;
		default: cli_bad_option(argv);
		}
	}
	if (argc - optind != !dump)
		cli_usage_error(argc == optind ? "no directory given" : "too many arguments");
	if (dump && snapshot)
		cli_usage_error("--dump and --snapshot exclude each other");
	dir_name = dump ? NULL : argv[optind];
	if (!dump && (top = open(dir_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		cli_errc(errno, "%s", dir_name);
	if (snapshot) {
		char msg[512];

		if (vol_open(dir_name, VOL_RDWR | VOL_LOCK, &vol, msg, sizeof(msg)))
			cli_errx("%s: --snapshot needs a directory on a mounted NILFS2 volume: %s",
				 dir_name, msg);
		if (!vol->mounted)
			cli_errx("%s: --snapshot needs a directory on a mounted NILFS2 volume",
				 dir_name);
	}
	if (file && !(in = fopen(file, "re")))
		cli_errc(errno, "%s", file);
	setvbuf(in, NULL, _IOFBF, 1 << 20);
	sstream_pipe_grow(in);
	for (;;) {
		struct sstream_reader r;
		struct sstream_header h;
		int ch;

		if (n && (stop_at_end || (ch = fgetc(in)) == EOF))
			break;
		if (n)
			ungetc(ch, in);
		if (sstream_read_header(&r, in, &h)) {
			cli_warnx("%s: %s", file ? file : "standard input", r.why);
			rc = -1;
		} else {
			rc = dump ? dump_one(&r, &h) : receive_one(top, &r, &h, verbose);
		}
		sstream_reader_free(&r);
		if (!rc && vol)
			rc = snapshot_now(vol, h.cno, verbose);
		if (rc)
			break;
		n++;
	}
	if (vol)
		vol_close(vol);
	if (!dump)
		close(top);
	return rc ? CLI_EXIT_FAILURE : 0;
}
