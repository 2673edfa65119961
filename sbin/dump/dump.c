/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dump.nilfs2: show the on-disk structures of a NILFS2 volume. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nlfs/endian.h>
#include <nlfs/nlfs.h>
#include "names.h"
#include "cli.h"
#include "extract.h"
#include "io_open.h"
#include "stats.h"
#include "devtag.h"
#include "json.h"
#include "mounts.h"
#include "volerr.h"

struct opts {
	bool json;
	const char *device;
	uint64_t cno;   /* 0: latest */
};

enum field_kind { F_U16, F_U32, F_U64, F_HEX32, F_HEX16, F_UUID, F_LABEL };
struct sb_field {
	const char *name;
	size_t off;
	enum field_kind kind;
};

#define SBF(f, k) { #f, offsetof(struct nlfs_super_block, f), k }
static const struct sb_field sb_fields[] = {
	SBF(s_rev_level, F_U32), SBF(s_minor_rev_level, F_U16), SBF(s_magic, F_HEX16),
	SBF(s_bytes, F_U16), SBF(s_flags, F_HEX16), SBF(s_crc_seed, F_HEX32),
	SBF(s_sum, F_HEX32), SBF(s_log_block_size, F_U32), SBF(s_nsegments, F_U64),
	SBF(s_dev_size, F_U64), SBF(s_first_data_block, F_U64),
	SBF(s_blocks_per_segment, F_U32), SBF(s_r_segments_percentage, F_U32),
	SBF(s_last_cno, F_U64), SBF(s_last_pseg, F_U64), SBF(s_last_seq, F_U64),
	SBF(s_free_blocks_count, F_U64), SBF(s_ctime, F_U64), SBF(s_mtime, F_U64),
	SBF(s_wtime, F_U64), SBF(s_mnt_count, F_U16), SBF(s_max_mnt_count, F_U16),
	SBF(s_state, F_HEX16), SBF(s_errors, F_U16), SBF(s_lastcheck, F_U64),
	SBF(s_checkinterval, F_U32), SBF(s_creator_os, F_U32), SBF(s_def_resuid, F_U16),
	SBF(s_def_resgid, F_U16), SBF(s_first_ino, F_U32), SBF(s_inode_size, F_U16),
	SBF(s_dat_entry_size, F_U16), SBF(s_checkpoint_size, F_U16),
	SBF(s_segment_usage_size, F_U16), SBF(s_uuid, F_UUID), SBF(s_volume_name, F_LABEL),
	SBF(s_c_interval, F_U32), SBF(s_c_block_max, F_U32), SBF(s_feature_compat, F_U64),
	SBF(s_feature_compat_ro, F_U64), SBF(s_feature_incompat, F_U64),
};

static void format_field(const struct nlfs_super_block *sb, const struct sb_field *f,
			 char *buf, size_t len, uint64_t *num)
{
	const uint8_t *p = (const uint8_t *)sb + f->off;
	nlfs_le16_t v16;
	nlfs_le32_t v32;
	nlfs_le64_t v64;

	*num = UINT64_MAX;
	switch (f->kind) {
	case F_U16: case F_HEX16:
		memcpy(&v16, p, 2);
		*num = nlfs_le16(v16);
		snprintf(buf, len, f->kind == F_U16 ? "%" PRIu64 : "0x%04" PRIx64, *num);
		break;
	case F_U32: case F_HEX32:
		memcpy(&v32, p, 4);
		*num = nlfs_le32(v32);
		snprintf(buf, len, f->kind == F_U32 ? "%" PRIu64 : "0x%08" PRIx64, *num);
		break;
	case F_U64:
		memcpy(&v64, p, 8);
		*num = nlfs_le64(v64);
		snprintf(buf, len, "%" PRIu64, *num);
		break;
	case F_UUID:
		snprintf(buf, len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10],
			 p[11], p[12], p[13], p[14], p[15]);
		break;
	case F_LABEL: {
		size_t n = strnlen((const char *)p, NLFS_VOLUME_NAME_LEN);

		snprintf(buf, len, "%.*s", (int)n, (const char *)p);
		break;
	}
	}
}

static void print_sb(struct json *j, const struct nlfs_super_block *sb)
{
	for (size_t i = 0; i < sizeof(sb_fields) / sizeof(sb_fields[0]); i++) {
		char val[128];
		uint64_t num;
		bool is_num = sb_fields[i].kind == F_U16 || sb_fields[i].kind == F_U32 ||
			      sb_fields[i].kind == F_U64;

		format_field(sb, &sb_fields[i], val, sizeof(val), &num);
		if (!j) {
			printf("  %-24s ", sb_fields[i].name);
			fput_name(stdout, val, strlen(val));   /* a label is any bytes */
			putchar('\n');
		} else if (is_num)
			json_u64(j, sb_fields[i].name, num);
		else
			json_str(j, sb_fields[i].name, val);
	}
}

static const char *slot_name(int slot)
{
	return slot == NLFS_SB_PRIMARY ? "primary" : "secondary";
}

static int view_super(struct nlfs_fs *fs, const struct opts *o, char *const *args,
		      struct nlfs_err *err)
{
	const struct nlfs_sb_choice *c = nlfs_fs_sb_choice(fs);
	struct json j;

	(void)args;
	(void)err;
	if (o->json) {
		json_init(&j, stdout);
		json_open(&j, NULL, '{');
		json_str(&j, "used", slot_name(c->used));
		json_str(&j, "reason", c->reason);
		json_open(&j, "superblocks", '[');
	}
	for (int s = 0; s < 2; s++) {
		const struct nlfs_sb_status *st = &c->status[s];

		if (o->json) {
			json_open(&j, NULL, '{');
			json_str(&j, "copy", slot_name(s));
			json_u64(&j, "offset", st->offset);
			json_bool(&j, "valid", st->valid);
			if (!st->valid)
				json_str(&j, "error", nlfs_strerror(st->error));
			if (st->read_ok)
				print_sb(&j, nlfs_fs_sb(fs, (enum nlfs_sb_slot)s));
			json_close(&j, '}');
			continue;
		}
		printf("%s superblock at byte %" PRIu64 ": %s%s\n", slot_name(s), st->offset,
		       st->valid ? "valid" : "invalid: ",
		       st->valid ? "" : nlfs_strerror(st->error));
		if (st->read_ok && st->valid)
			print_sb(NULL, nlfs_fs_sb(fs, (enum nlfs_sb_slot)s));
	}
	if (o->json) {
		json_close(&j, ']');
		json_close(&j, '}');
	} else {
		printf("using the %s superblock: %s\n", slot_name(c->used), c->reason);
	}
	return 0;
}

static void flags_string(uint16_t f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", f & NLFS_SS_LOGBGN ? "B" : "-",
		 f & NLFS_SS_LOGEND ? "E" : "-", f & NLFS_SS_SR ? "S" : "-",
		 f & NLFS_SS_SYNDT ? "D" : "-", f & NLFS_SS_GC ? "G" : "-");
}

struct log_print {
	struct json *j;
	uint32_t blocksize;
	bool files;
	struct nlfs_err *err;
};

static int print_binfo(const struct nlfs_finfo_rec *fi, const struct nlfs_binfo_rec *bi,
		       void *arg)
{
	struct log_print *lp = arg;

	if (bi && bi->index != 0)
		goto block;
	if (lp->j) {
		/* one object per file; binfos listed in "blocks" */
		json_open(lp->j, NULL, '{');
		json_u64(lp->j, "ino", fi->ino);
		json_u64(lp->j, "cno", fi->cno);
		json_u64(lp->j, "nblocks", fi->nblocks);
		json_u64(lp->j, "ndatablk", fi->ndatablk);
		json_open(lp->j, "blocks", '[');
	} else {
		printf("    finfo: ino %" PRIu64 " cno %" PRIu64 " nblocks %u ndatablk %u\n",
		       fi->ino, fi->cno, fi->nblocks, fi->ndatablk);
	}
	if (!bi)
		goto end_file;
block:
	if (lp->j) {
		json_open(lp->j, NULL, '{');
		json_u64(lp->j, "block", bi->block);
		json_bool(lp->j, "data", bi->is_data);
		if (fi->ino != NLFS_DAT_INO)
			json_u64(lp->j, "vblocknr", bi->vblocknr);
		if (bi->is_data || fi->ino == NLFS_DAT_INO)
			json_u64(lp->j, "blkoff", bi->blkoff);
		if (fi->ino == NLFS_DAT_INO && !bi->is_data)
			json_u64(lp->j, "level", bi->level);
		json_close(lp->j, '}');
	} else if (fi->ino == NLFS_DAT_INO) {
		printf("      %" PRIu64 ": %s blkoff %" PRIu64, bi->block,
		       bi->is_data ? "data" : "node", bi->blkoff);
		if (!bi->is_data)
			printf(" level %u", bi->level);
		putchar('\n');
	} else if (bi->is_data) {
		printf("      %" PRIu64 ": data vblocknr %" PRIu64 " blkoff %" PRIu64 "\n",
		       bi->block, bi->vblocknr, bi->blkoff);
	} else {
		printf("      %" PRIu64 ": node vblocknr %" PRIu64 "\n", bi->block, bi->vblocknr);
	}
	if (bi->index + 1 < fi->nblocks)
		return 0;
end_file:
	if (lp->j) {
		json_close(lp->j, ']');
		json_close(lp->j, '}');
	}
	return 0;
}

static int print_log(const struct nlfs_log *log, const void *summary, void *arg)
{
	struct log_print *lp = arg;
	char fl[8];

	flags_string(log->flags, fl, sizeof(fl));
	if (lp->j) {
		json_open(lp->j, NULL, '{');
		json_u64(lp->j, "start", log->start);
		json_u64(lp->j, "seq", log->seq);
		json_u64(lp->j, "cno", log->cno);
		json_u64(lp->j, "nblocks", log->nblocks);
		json_u64(lp->j, "flags", log->flags);
		json_u64(lp->j, "create", log->create);
		json_u64(lp->j, "next", log->next);
		json_u64(lp->j, "nfinfo", log->nfinfo);
		json_u64(lp->j, "sumbytes", log->sumbytes);
		json_bool(lp->j, "datasum_ok", log->datasum_ok);
		json_bool(lp->j, "sumsum_ok", log->sumsum_ok);
	} else {
		printf("log at %" PRIu64 ": seq %" PRIu64 " cno %" PRIu64 " nblocks %u flags %s next %" PRIu64
		       " nfinfo %u sumbytes %u%s%s\n",
		       log->start, log->seq, log->cno, log->nblocks, fl, log->next, log->nfinfo,
		       log->sumbytes, log->datasum_ok ? "" : " BAD-DATASUM",
		       log->sumsum_ok ? "" : " BAD-SUMSUM");
	}
	if (lp->files && summary) {
		int rc;

		if (lp->j)
			json_open(lp->j, "files", '[');
		rc = nlfs_summary_walk(log, summary, lp->blocksize, print_binfo, lp, lp->err);
		if (lp->j)
			json_close(lp->j, ']');
		if (rc) {
			if (lp->j)
				json_close(lp->j, '}');
			return rc;
		}
	}
	if (lp->j)
		json_close(lp->j, '}');
	return 0;
}

static int view_logs(struct nlfs_fs *fs, const struct opts *o, bool files,
		     struct nlfs_err *err)
{
	struct json j;
	struct log_print lp = { o->json ? &j : NULL, nlfs_fs_geometry(fs)->blocksize, files, err };
	int rc;

	if (o->json) {
		json_init(&j, stdout);
		json_open(&j, NULL, '[');
	}
	rc = nlfs_fs_walk_chain(fs, print_log, &lp, err);
	if (o->json)
		json_close(&j, ']');
	return rc;
}

static int view_segment(struct nlfs_fs *fs, const struct opts *o, uint64_t segnum,
			struct nlfs_err *err)
{
	const struct nlfs_geometry *g = nlfs_fs_geometry(fs);
	struct json j;
	struct log_print lp = { o->json ? &j : NULL, g->blocksize, true, err };
	int rc;

	if (segnum >= g->nsegments)
		return nlfs_err_set(err, ERANGE, NLFS_NOWHERE, "segment %" PRIu64
				    " does not exist (the volume has %" PRIu64 ")",
				    segnum, g->nsegments);
	if (o->json) {
		json_init(&j, stdout);
		json_open(&j, NULL, '[');
	}
	rc = nlfs_segment_logs(fs, segnum, 0, print_log, &lp, err);
	if (o->json)
		json_close(&j, ']');
	return rc;
}

static int view_sr(struct nlfs_fs *fs, const struct opts *o, char *const *args,
		   struct nlfs_err *err)
{
	const struct nlfs_recovery *r = nlfs_fs_recovery(fs);
	static const char *const names[] = { "dat", "cpfile", "sufile" };
	struct json j;

	(void)args;
	(void)err;
	if (o->json) {
		json_init(&j, stdout);
		json_open(&j, NULL, '{');
		json_u64(&j, "log", r->sr_log);
		json_u64(&j, "block", r->sr_block);
		json_u64(&j, "seq", r->sr_seq);
		json_u64(&j, "cno", r->cno);
		json_u64(&j, "next_pseg", r->next_pseg);
		json_u64(&j, "logs_after_super_root", r->nlogs_after_sr);
		json_u64(&j, "rollforward_logical_segments", r->rf_logical_segments);
		json_u64(&j, "rollforward_blocks", r->rf_blocks);
	} else {
		printf("super root at block %" PRIu64 " (log %" PRIu64 ", seq %" PRIu64
		       ", checkpoint %" PRIu64 ")\nnext log at block %" PRIu64
		       "; %" PRIu64 " valid log(s) after it\n",
		       r->sr_block, r->sr_log, r->sr_seq, r->cno, r->next_pseg, r->nlogs_after_sr);
		if (r->rf_logical_segments)
			printf("roll-forward: %" PRIu64 " data-sync logical segment(s), %" PRIu64
			       " file block(s) shown in checkpoint %" PRIu64 "\n",
			       r->rf_logical_segments, r->rf_blocks, r->cno);
	}
	for (unsigned ino = NLFS_DAT_INO; ino <= NLFS_SUFILE_INO; ino++) {
		const struct nlfs_inode *in = nlfs_fs_sr_inode(fs, ino);

		if (o->json) {
			json_open(&j, names[ino - NLFS_DAT_INO], '{');
			json_u64(&j, "mode", nlfs_le16(in->i_mode));
			json_u64(&j, "blocks", nlfs_le64(in->i_blocks));
			json_u64(&j, "size", nlfs_le64(in->i_size));
			json_open(&j, "bmap", '[');
			for (int k = 0; k < NLFS_INODE_BMAP_SIZE; k++)
				json_u64(&j, NULL, nlfs_le64(in->i_bmap[k]));
			json_close(&j, ']');
			json_close(&j, '}');
		} else {
			printf("%-7s mode %06o blocks %" PRIu64 " bmap", names[ino - NLFS_DAT_INO],
			       nlfs_le16(in->i_mode), nlfs_le64(in->i_blocks));
			for (int k = 0; k < NLFS_INODE_BMAP_SIZE; k++)
				printf(" %" PRIu64, nlfs_le64(in->i_bmap[k]));
			putchar('\n');
		}
	}
	if (o->json)
		json_close(&j, '}');
	return 0;
}

/* PATH, or #INO for an inode number, in the chosen checkpoint */
static int open_target(struct nlfs_fs *fs, const struct opts *o, const char *spec,
		       struct nlfs_file *f, struct nlfs_err *err)
{
	struct nlfs_file ifile;
	int rc = nlfs_fs_ifile(fs, o->cno, &ifile, err);

	if (rc)
		return rc;
	if (spec[0] == '#') {
		uint64_t ino;

		if (cli_strtou64(spec + 1, &ino))
			return nlfs_err_set(err, EINVAL, NLFS_NOWHERE, "bad inode number '%s'", spec);
		return nlfs_ifile_read(fs, &ifile, ino, f, err);
	}
	return nlfs_path_lookup(fs, &ifile, spec, f, err);
}

static int view_segments(struct nlfs_fs *fs, const struct opts *o, char *const *args,
			 struct nlfs_err *err)
{
	const struct nlfs_geometry *g = nlfs_fs_geometry(fs);
	struct nlfs_suhead h;
	struct json j;
	int rc = nlfs_sufile_header(fs, &h, err);

	(void)args;
	if (rc)
		return rc;
	if (o->json) {
		json_init(&j, stdout);
		json_open(&j, NULL, '{');
		json_u64(&j, "ncleansegs", h.ncleansegs);
		json_u64(&j, "ndirtysegs", h.ndirtysegs);
		json_u64(&j, "last_alloc", h.last_alloc);
		json_open(&j, "segments", '[');
	} else {
		printf("%" PRIu64 " clean, %" PRIu64 " dirty, last allocated %" PRIu64 "\n",
		       h.ncleansegs, h.ndirtysegs, h.last_alloc);
		printf("%10s %12s %5s %8s\n", "SEGNUM", "LASTMOD", "FLAGS", "NBLOCKS");
	}
	for (uint64_t seg = 0; seg < g->nsegments; seg++) {
		struct nlfs_suinfo su;

		rc = nlfs_sufile_get(fs, seg, &su, err);
		if (rc)
			break;
		if (o->json) {
			json_open(&j, NULL, '{');
			json_u64(&j, "segnum", seg);
			json_u64(&j, "lastmod", su.lastmod);
			json_u64(&j, "flags", su.flags);
			json_u64(&j, "nblocks", su.nblocks);
			json_close(&j, '}');
		} else if (su.flags) {
			/* on-disk flags: the kernel's ACTIVE is worked out at run time */
			printf("%10" PRIu64 " %12" PRIu64 "   %c%c%c %8u\n", seg, su.lastmod,
			       su.flags & NLFS_SEGMENT_USAGE_ACTIVE ? 'a' : '-',
			       su.flags & NLFS_SEGMENT_USAGE_DIRTY ? 'd' : '-',
			       su.flags & NLFS_SEGMENT_USAGE_ERROR ? 'e' : '-', su.nblocks);
		}
	}
	if (o->json) {
		json_close(&j, ']');
		json_close(&j, '}');
	}
	return rc;
}

static int view_checkpoints(struct nlfs_fs *fs, const struct opts *o, char *const *args,
			    struct nlfs_err *err)
{
	struct nlfs_cphead h;
	uint64_t last = nlfs_fs_recovery(fs)->cno;
	struct json j;
	int rc = nlfs_cpfile_header(fs, &h, err);

	(void)args;
	if (rc)
		return rc;
	if (o->json) {
		json_init(&j, stdout);
		json_open(&j, NULL, '{');
		json_u64(&j, "ncheckpoints", h.ncheckpoints);
		json_u64(&j, "nsnapshots", h.nsnapshots);
		json_open(&j, "checkpoints", '[');
	} else {
		printf("%" PRIu64 " checkpoints, %" PRIu64 " snapshots\n", h.ncheckpoints,
		       h.nsnapshots);
		printf("%10s %12s %5s %10s %8s\n", "CNO", "CREATE", "FLAGS", "BLKCNT", "ICNT");
	}
	for (uint64_t cno = 1; cno <= last; cno++) {
		struct nlfs_cpinfo cp;
		uint32_t fl;

		rc = nlfs_cpfile_info(fs, cno, &cp, err);
		if (rc == -ENOENT)
			continue;
		if (rc)
			break;
		fl = cp.flags;
		if (o->json) {
			json_open(&j, NULL, '{');
			json_u64(&j, "cno", cno);
			json_u64(&j, "create", cp.create);
			json_bool(&j, "snapshot", fl & NLFS_CHECKPOINT_SNAPSHOT);
			json_bool(&j, "minor", fl & NLFS_CHECKPOINT_MINOR);
			json_u64(&j, "blocks_count", cp.blocks_count);
			json_u64(&j, "inodes_count", cp.inodes_count);
			json_close(&j, '}');
		} else {
			printf("%10" PRIu64 " %12" PRIu64 " %4s%s %10" PRIu64 " %8" PRIu64 "\n", cno,
			       cp.create, fl & NLFS_CHECKPOINT_SNAPSHOT ? "ss" : "cp",
			       fl & NLFS_CHECKPOINT_MINOR ? "i" : " ", cp.blocks_count,
			       cp.inodes_count);
		}
	}
	if (rc == -ENOENT)
		rc = 0;
	if (o->json) {
		json_close(&j, ']');
		json_close(&j, '}');
	}
	return rc;
}

static int print_inode(struct nlfs_fs *fs, const struct nlfs_file *f, const struct opts *o,
		       struct nlfs_err *err)
{
	const struct nlfs_inode *in = &f->inode;
	struct json j;

	(void)fs;
	(void)err;
	if (!o->json) {
		printf("inode %" PRIu64 " (checkpoint %" PRIu64 "): mode %06o links %u uid %u gid %u\n"
		       "size %" PRIu64 " blocks %" PRIu64 " flags 0x%x generation %u\n"
		       "ctime %" PRIu64 ".%09u mtime %" PRIu64 ".%09u\n",
		       f->ino, f->cno, nlfs_le16(in->i_mode), nlfs_le16(in->i_links_count),
		       nlfs_le32(in->i_uid), nlfs_le32(in->i_gid), nlfs_le64(in->i_size),
		       nlfs_le64(in->i_blocks), nlfs_le32(in->i_flags),
		       nlfs_le32(in->i_generation), nlfs_le64(in->i_ctime),
		       nlfs_le32(in->i_ctime_nsec), nlfs_le64(in->i_mtime),
		       nlfs_le32(in->i_mtime_nsec));
		return 0;
	}
	json_init(&j, stdout);
	json_open(&j, NULL, '{');
	json_u64(&j, "ino", f->ino);
	json_u64(&j, "cno", f->cno);
	json_u64(&j, "mode", nlfs_le16(in->i_mode));
	json_u64(&j, "links", nlfs_le16(in->i_links_count));
	json_u64(&j, "uid", nlfs_le32(in->i_uid));
	json_u64(&j, "gid", nlfs_le32(in->i_gid));
	json_u64(&j, "size", nlfs_le64(in->i_size));
	json_u64(&j, "blocks", nlfs_le64(in->i_blocks));
	json_u64(&j, "flags", nlfs_le32(in->i_flags));
	json_u64(&j, "ctime", nlfs_le64(in->i_ctime));
	json_u64(&j, "ctime_nsec", nlfs_le32(in->i_ctime_nsec));
	json_u64(&j, "mtime", nlfs_le64(in->i_mtime));
	json_u64(&j, "mtime_nsec", nlfs_le32(in->i_mtime_nsec));
	json_close(&j, '}');
	return 0;
}

struct bmap_print {
	struct nlfs_fs *fs;
	const struct nlfs_file *f;
	struct json *j;
	struct nlfs_err *err;
};

static int print_bmap_entry(uint64_t blkoff, uint64_t ptr, unsigned level, void *arg)
{
	struct bmap_print *bp = arg;
	uint64_t phys;
	int rc = nlfs_file_block_addr(bp->fs, bp->f, ptr, &phys, bp->err);

	if (rc)
		return rc;
	if (bp->j) {
		json_open(bp->j, NULL, '{');
		json_u64(bp->j, "key", blkoff);
		json_u64(bp->j, "level", level);
		json_u64(bp->j, "ptr", ptr);
		json_u64(bp->j, "block", phys);
		json_close(bp->j, '}');
	} else {
		printf("%*s%s key %" PRIu64 " ptr %" PRIu64 " block %" PRIu64 "\n",
		       (int)(2 * level), "", level ? "node" : "data", blkoff, ptr, phys);
	}
	return 0;
}

static int print_bmap(struct nlfs_fs *fs, const struct nlfs_file *f, const struct opts *o,
		      struct nlfs_err *err)
{
	struct json j;
	struct bmap_print bp = { fs, f, o->json ? &j : NULL, err };
	int rc;

	if (o->json) {
		json_init(&j, stdout);
		json_open(&j, NULL, '[');
	}
	rc = nlfs_bmap_iterate(fs, f, print_bmap_entry, &bp, err);
	if (o->json)
		json_close(&j, ']');
	return rc;
}

struct ls_print {
	struct json *j;
};

static int print_dirent(const char *name, unsigned len, uint64_t ino, unsigned type, void *arg)
{
	struct ls_print *lp = arg;
	static const char types[] = "?-dcbpsl";   /* by NILFS file type 0..7 */

	if (lp->j) {
		char nm[NLFS_NAME_LEN + 1];

		memcpy(nm, name, len);
		nm[len] = 0;
		json_open(lp->j, NULL, '{');
		json_str(lp->j, "name", nm);
		json_u64(lp->j, "ino", ino);
		json_u64(lp->j, "type", type);
		json_close(lp->j, '}');
	} else {
		printf("%c %10" PRIu64 " ", types[type & 7], ino);
		fput_name(stdout, name, len);
		putchar('\n');
	}
	return 0;
}

static int print_dir(struct nlfs_fs *fs, const struct nlfs_file *f, const struct opts *o,
		     struct nlfs_err *err)
{
	struct json j;
	struct ls_print lp = { o->json ? &j : NULL };
	int rc;

	if ((nlfs_le16(f->inode.i_mode) & NLFS_S_IFMT) != NLFS_S_IFDIR)
		return nlfs_err_set(err, ENOTDIR, NLFS_NOWHERE, "inode %" PRIu64, f->ino);
	if (o->json) {
		json_init(&j, stdout);
		json_open(&j, NULL, '[');
	}
	rc = nlfs_dir_iterate(fs, f, print_dirent, &lp, err);
	if (o->json)
		json_close(&j, ']');
	return rc;
}

static int print_contents(struct nlfs_fs *fs, const struct nlfs_file *f, const struct opts *o,
			  struct nlfs_err *err)
{
	static uint8_t buf[1 << 16];
	uint64_t off = 0;

	(void)o;
	if ((nlfs_le16(f->inode.i_mode) & NLFS_S_IFMT) == NLFS_S_IFDIR)
		return nlfs_err_set(err, EISDIR, NLFS_NOWHERE, "inode %" PRIu64, f->ino);
	for (;;) {
		size_t n;
		int rc = nlfs_file_pread(fs, f, buf, sizeof(buf), off, &n, err);

		if (rc)
			return rc;
		if (n == 0)
			return 0;
		if (fwrite(buf, 1, n, stdout) != n)
			return nlfs_err_set(err, errno, NLFS_NOWHERE, "writing standard output");
		off += n;
	}
}

/* The file a view shows, named by its first operand (PATH or #INO) */
typedef int (*file_view_fn)(struct nlfs_fs *fs, const struct nlfs_file *f, const struct opts *o,
			    struct nlfs_err *err);

/* The views' handlers: ARGS are the operands after the view's name, as
 * many as its row in the table asks for (checked before the call). */
static int run_logs(struct nlfs_fs *fs, const struct opts *o, char *const *args,
		    struct nlfs_err *err)
{
	(void)args;
	return view_logs(fs, o, false, err);
}

static int run_summaries(struct nlfs_fs *fs, const struct opts *o, char *const *args,
			 struct nlfs_err *err)
{
	(void)args;
	return view_logs(fs, o, true, err);
}

static int run_segment(struct nlfs_fs *fs, const struct opts *o, char *const *args,
		       struct nlfs_err *err)
{
	uint64_t seg;

	if (cli_strtou64(args[0], &seg))
		cli_usage_error("segment needs a segment number");
	return view_segment(fs, o, seg, err);
}

static int run_stats(struct nlfs_fs *fs, const struct opts *o, char *const *args,
		     struct nlfs_err *err)
{
	(void)args;
	return dump_stats(fs, o->json, err);
}

static int run_extract(struct nlfs_fs *fs, const struct opts *o, char *const *args,
		       struct nlfs_err *err)
{
	return dump_extract(fs, o->cno, args[0], args[1], err);
}

/*
 * Every view, in the order --help lists them: its name, its operands as
 * --help shows them, what it shows, how many operands it needs and the
 * usage error when they are missing, and its handler: RUN, or SHOW for a
 * view of the file its first operand names.  Every view reads -j but cat
 * and extract; -c applies to those that read files (the file views and
 * extract).
 */
struct view {
	const char *name;
	const char *operands;
	const char *help;
	int noperands;
	const char *missing;
	int (*run)(struct nlfs_fs *fs, const struct opts *o, char *const *args,
		   struct nlfs_err *err);
	file_view_fn show;
};
#define VIEW(name_, help_, run_) { .name = name_, .operands = "", .help = help_, .run = run_ }
#define FILE_VIEW(name_, help_, show_) \
	{ .name = name_, .operands = "PATH|#INO", .help = help_, .noperands = 1, \
	  .missing = name_ " needs a path or #inode", .show = show_ }

static const struct view views[] = {
	VIEW("super", "both superblocks and which one is used", view_super),
	VIEW("logs", "the log chain from the superblock cursor", run_logs),
	VIEW("summaries", "the log chain with every finfo and binfo", run_summaries),
	{ .name = "segment", .operands = "N",
	  .help = "the logs of segment N with their finfos and binfos",
	  .noperands = 1, .missing = "segment needs a segment number", .run = run_segment },
	VIEW("sr", "the latest super root and its metadata-file inodes", view_sr),
	VIEW("checkpoints", "the checkpoints in the cpfile", view_checkpoints),
	VIEW("segments", "the segment usage table (sufile); text lists non-clean ones",
	     view_segments),
	FILE_VIEW("inode", "an inode of the checkpoint", print_inode),
	FILE_VIEW("bmap", "a file's block map: keys, levels, virtual and disk addresses",
		  print_bmap),
	FILE_VIEW("ls", "a directory's entries", print_dir),
	FILE_VIEW("cat", "a file's contents, to standard output", print_contents),
	VIEW("stats", "DAT share, B-tree depths, directory sizes, segment live ratios",
	     run_stats),
	{ .name = "extract", .operands = "PATH DEST",
	  .help = "restore the subtree at PATH into host directory DEST",
	  .noperands = 2, .missing = "extract needs a path and a destination",
	  .run = run_extract },
};
#define NVIEWS (sizeof(views) / sizeof(views[0]))

static const struct view *find_view(const char *name)
{
	for (size_t i = 0; i < NVIEWS; i++)
		if (!strcmp(views[i].name, name))
			return &views[i];
	return NULL;
}

/* a view's usage line: its description at column 19, or two spaces on */
static void print_view_usage(FILE *out, const struct view *v)
{
	char left[64];
	int n = snprintf(left, sizeof(left), "%s%s%s", v->name, *v->operands ? " " : "",
			 v->operands);

	fprintf(out, "  %-*s%s\n", n + 2 > 17 ? n + 2 : 17, left, v->help);
}

static void usage(FILE *out)
{
	fputs(CLI_USAGE_HEADER
	      " dump.nilfs2 [options] <device>|<image> <view> [<args>]\n"
	      "\nShow the on-disk structures of a NILFS2 volume.\n"
	      "\nViews:\n", out);
	for (size_t i = 0; i < NVIEWS; i++)
		print_view_usage(out, &views[i]);
	fputs(CLI_USAGE_OPTIONS
	      " -c, --checkpoint <cno>  read files at checkpoint <cno> (default: latest)\n"
	      " -j, --json              print JSON\n", out);
	cli_usage_tail(out, 25);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "checkpoint", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { 0 };
	struct nlfs_fs *fs;
	struct nlfs_err err;
	const struct view *view;
	char msg[320];
	int c, rc;

	cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "c:jhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': o.json = true; break;
		case 'c':
			if (cli_strtocno(optarg, &o.cno) || o.cno == 0)
				cli_usage_error("invalid checkpoint number: %s", optarg);
			break;
		case 'h': usage(stdout); return 0;
		case 'V': cli_print_version(); return 0;
		default: cli_bad_option(argv);
		}
	}
	if (argc - optind < 2)
		cli_usage_error(argc == optind ? "no device given" : "no view given");
	o.device = dev_resolve(argv[optind]);
	if (!o.device)
		return CLI_EXIT_FAILURE;
	cmd_refuse_foreign_mount(o.device);
	view = find_view(argv[optind + 1]);
	if (!view)
		cli_usage_error("unknown view '%s'", argv[optind + 1]);
	if (cmd_fs_open_warn(o.device, NLFS_IO_RDONLY, &fs))
		return 1;
	nlfs_err_clear(&err);
	if (argc - optind - 2 < view->noperands)
		cli_usage_error("%s", view->missing);
	if (view->show) {
		struct nlfs_file f;

		rc = open_target(fs, &o, argv[optind + 2], &f, &err);
		if (!rc)
			rc = view->show(fs, &f, &o, &err);
	} else {
		rc = view->run(fs, &o, argv + optind + 2, &err);
	}
	if (rc)
		cli_warnx("%s: %s", o.device, cmd_volume_reason(o.device, rc, &err, msg, sizeof(msg)));
	nlfs_fs_close(fs);
	return rc ? 1 : 0;
}
