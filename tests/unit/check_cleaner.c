/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nilfs_cleanerd's pure parts: the segment walk on an image, block
 * classification, the CLEAN_SEGMENTS arrays, the control messages and the
 * mountinfo lookup. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/vfs.h>
#include <linux/fs.h>
#include <linux/magic.h>

#include "check_main.h"
#include <nlfs/endian.h>
#include "testimg.h"
#include "../../sbin/cleanerd/ctl.h"
#include "mounts.h"
#include "ioc.h"
#include "../../common/clean_plan.h"
#include "../../sbin/cleanerd/cleanerd.h"
#include "../../common/clean_submit.h"

static void put16(uint8_t *p, uint16_t v) { nlfs_put_le16(p, v); }
static void put32(uint8_t *p, uint32_t v) { nlfs_put_le32(p, v); }
static void put64(uint8_t *p, uint64_t v) { nlfs_put_le64(p, v); }

/* Segment 1 (blocks 16..31) gets two logs with seq SEQ:
 *   block 16: ino 12 cno 5: data vbn 100 @0, data vbn 101 @1, node vbn 102;
 *             DAT: data @4, node @0 level 1                    (6 blocks)
 *   block 22: ino 12 cno 6: data vbn 103 @2                     (2 blocks) */
static void write_logs(struct nlfs_io *io, uint64_t seq, uint64_t seq2)
{
	uint8_t *d = nlfs_io_mem_data(io);
	uint8_t *ss = d + 16 * TESTIMG_BS;
	size_t off = 64;

	memset(ss, 0, 8 * TESTIMG_BS);
	put32(ss + 0x08, NLFS_SEGSUM_MAGIC);
	put16(ss + 0x0C, 64);
	put16(ss + 0x0E, NLFS_SS_LOGBGN);
	put64(ss + 0x10, seq);
	put64(ss + 0x20, 2 * TESTIMG_BPS);
	put32(ss + 0x28, 6);
	put32(ss + 0x2C, 2);
	put64(ss + 0x38, 5);
	put64(ss + off, 12); put64(ss + off + 8, 5); put32(ss + off + 16, 3); put32(ss + off + 20, 2);
	off += 24;
	put64(ss + off, 100); put64(ss + off + 8, 0); off += 16;
	put64(ss + off, 101); put64(ss + off + 8, 1); off += 16;
	put64(ss + off, 102); off += 8;
	put64(ss + off, NLFS_DAT_INO); put64(ss + off + 8, 0); put32(ss + off + 16, 2);
	put32(ss + off + 20, 1);
	off += 24;
	put64(ss + off, 4); off += 8;
	put64(ss + off, 0); ss[off + 8] = 1; off += 16;
	put32(ss + 0x30, (uint32_t)off);
	testimg_reseal_log(io, 16);

	ss = d + 22 * TESTIMG_BS;
	off = 64;
	put32(ss + 0x08, NLFS_SEGSUM_MAGIC);
	put16(ss + 0x0C, 64);
	put16(ss + 0x0E, NLFS_SS_LOGEND);
	put64(ss + 0x10, seq2);
	put64(ss + 0x20, 2 * TESTIMG_BPS);
	put32(ss + 0x28, 2);
	put32(ss + 0x2C, 1);
	put64(ss + 0x38, 6);
	put64(ss + off, 12); put64(ss + off + 8, 6); put32(ss + off + 16, 1); put32(ss + off + 20, 1);
	off += 24;
	put64(ss + off, 103); put64(ss + off + 8, 2); off += 16;
	put32(ss + 0x30, (uint32_t)off);
	testimg_reseal_log(io, 22);
}

static void save(struct nlfs_io *io, char *path)
{
	int fd;

	strcpy(path, "/tmp/check_cleaner.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, nlfs_io_mem_data(io), TESTIMG_DEVSIZE), (ssize_t)TESTIMG_DEVSIZE);
	close(fd);
}

START_TEST(test_scan)
{
	struct nlfs_io *io = testimg_create();
	struct cld_reader r;
	struct cld_descs ds = { 0 };
	char path[64], why[256];
	uint64_t seq;

	write_logs(io, 3, 3);
	save(io, path);
	ck_assert_int_eq(cld_reader_open(&r, path), 0);
	ck_assert_uint_eq(r.blocksize, TESTIMG_BS);
	ck_assert_uint_eq(r.blocks_per_segment, TESTIMG_BPS);
	ck_assert_uint_eq(r.first_data_block, TESTIMG_FIRST);
	ck_assert_uint_eq(r.r_segments_percentage, 5);

	/* segment 0 starts at s_first_data_block: the mkfs-style log */
	ck_assert_int_eq(cld_segment_seq(&r, 0, &seq, why, sizeof(why)), 0);
	ck_assert_uint_eq(seq, 0);
	ck_assert_int_eq(cld_segment_scan(&r, 0, TESTIMG_NBLOCKS, &ds, &seq, why, sizeof(why)), 0);
	ck_assert_uint_eq(ds.nvd, 1);
	ck_assert_uint_eq(ds.vd[0].vd_ino, NLFS_IFILE_INO);
	ck_assert_uint_eq(ds.vd[0].vd_vblocknr, 7);
	ck_assert_uint_eq(ds.vd[0].vd_blocknr, TESTIMG_LOG + 1);
	ck_assert_uint_eq(ds.nbd, 0);

	cld_descs_reset(&ds);
	ck_assert_int_eq(cld_segment_scan(&r, 1, 8, &ds, &seq, why, sizeof(why)), 0);
	ck_assert_uint_eq(seq, 3);
	ck_assert_uint_eq(ds.nvd, 4);
	ck_assert_uint_eq(ds.nbd, 2);
	/* data blocks carry their offset, the node only its address */
	ck_assert_uint_eq(ds.vd[0].vd_vblocknr, 100);
	ck_assert_uint_eq(ds.vd[0].vd_blocknr, 17);
	ck_assert_uint_eq(ds.vd[0].vd_cno, 5);
	ck_assert_uint_eq(ds.vd[1].vd_offset, 1);
	ck_assert_uint_eq(ds.vd[2].vd_vblocknr, 102);
	ck_assert_uint_eq(ds.vd[2].vd_flags, 1);
	ck_assert_uint_eq(ds.vd[2].vd_blocknr, 19);
	ck_assert_uint_eq(ds.vd[3].vd_cno, 6);
	ck_assert_uint_eq(ds.vd[3].vd_blocknr, 23);
	ck_assert_uint_eq(ds.bd[0].bd_ino, NLFS_DAT_INO);
	ck_assert_uint_eq(ds.bd[0].bd_offset, 4);
	ck_assert_uint_eq(ds.bd[0].bd_level, 0);
	ck_assert_uint_eq(ds.bd[0].bd_oblocknr, 20);
	ck_assert_uint_eq(ds.bd[1].bd_level, 1);
	ck_assert_uint_eq(ds.bd[1].bd_oblocknr, 21);

	/* the walk must cover su_nblocks exactly, or the segment is refused
	 * (and OUT is left as it was) */
	cld_descs_reset(&ds);
	ck_assert_int_eq(cld_segment_scan(&r, 1, 3, &ds, &seq, why, sizeof(why)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "does not fit"));
	ck_assert_int_eq(cld_segment_scan(&r, 1, 7, &ds, &seq, why, sizeof(why)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "hold no log"));
	ck_assert_uint_eq(ds.nvd, 0);
	ck_assert_int_eq(cld_segment_scan(&r, 1, 9, &ds, &seq, why, sizeof(why)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "hold no log"));
	ck_assert_int_eq(cld_segment_scan(&r, 1, 10, &ds, &seq, why, sizeof(why)), -EBADMSG);
	ck_assert_int_eq(cld_segment_scan(&r, 1, 17, &ds, &seq, why, sizeof(why)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "past the segment"));
	ck_assert_int_eq(cld_segment_seq(&r, 2, &seq, why, sizeof(why)), -EBADMSG);
	cld_reader_close(&r);
	unlink(path);

	/* a second log of another seq (a stale one) and a bad summary checksum */
	write_logs(io, 3, 2);
	save(io, path);
	ck_assert_int_eq(cld_reader_open(&r, path), 0);
	ck_assert_int_eq(cld_segment_scan(&r, 1, 8, &ds, &seq, why, sizeof(why)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "has seq 2"));
	cld_reader_close(&r);
	unlink(path);
	write_logs(io, 3, 3);
	nlfs_io_mem_data(io)[22 * TESTIMG_BS + 64 + 24] ^= 1;   /* vbn 103 -> 102 */
	save(io, path);
	ck_assert_int_eq(cld_reader_open(&r, path), 0);
	ck_assert_int_eq(cld_segment_scan(&r, 1, 8, &ds, &seq, why, sizeof(why)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(why, "checksum"));
	ck_assert_uint_eq(ds.nvd, 0);
	cld_reader_close(&r);
	unlink(path);
	cld_descs_free(&ds);
	nlfs_io_close(io);
}
END_TEST

START_TEST(test_fate)
{
	static const uint64_t snaps[] = { 10, 20 };
	struct nlfs_gc_protect p = { .snapshots = snaps, .nsnapshots = 2, .protcno = 50 };
	struct nilfs_vdesc vd = { .vd_ino = 12, .vd_cno = 5, .vd_vblocknr = 100, .vd_blocknr = 17 };
	struct nilfs_vinfo vi = { .vi_vblocknr = 100, .vi_blocknr = 17 };

	vi.vi_start = 5, vi.vi_end = UINT64_MAX;      /* current */
	ck_assert_int_eq(cld_vblock_fate(&p, &vd, &vi), CLD_LIVE);
	vi.vi_start = 5, vi.vi_end = 8;               /* old, no snapshot in [5, 8) */
	ck_assert_int_eq(cld_vblock_fate(&p, &vd, &vi), CLD_DEAD);
	vi.vi_end = 11;                               /* snapshot 10 sees it */
	ck_assert_int_eq(cld_vblock_fate(&p, &vd, &vi), CLD_LIVE);
	vi.vi_start = 21, vi.vi_end = 51;             /* checkpoint 50 is protected */
	ck_assert_int_eq(cld_vblock_fate(&p, &vd, &vi), CLD_LIVE);
	vi.vi_end = 50;
	ck_assert_int_eq(cld_vblock_fate(&p, &vd, &vi), CLD_DEAD);
	vi.vi_start = 5, vi.vi_end = 5;               /* rewritten in its own checkpoint */
	ck_assert_int_eq(cld_vblock_fate(&p, &vd, &vi), CLD_DEAD);
	/* the DAT entry says the block lives elsewhere: not ours to move or free */
	vi.vi_end = UINT64_MAX;
	vi.vi_blocknr = 99;
	ck_assert_int_eq(cld_vblock_fate(&p, &vd, &vi), CLD_STALE);
	vi.vi_blocknr = 0;                            /* a freed entry */
	vi.vi_start = vi.vi_end = 1;
	ck_assert_int_eq(cld_vblock_fate(&p, &vd, &vi), CLD_STALE);
	/* cpfile/sufile (cno 0): live only while current */
	vd.vd_cno = 0;
	vi = (struct nilfs_vinfo){ .vi_vblocknr = 100, .vi_blocknr = 17, .vi_start = 3,
				   .vi_end = 60 };
	ck_assert_int_eq(cld_vblock_fate(&p, &vd, &vi), CLD_DEAD);
}
END_TEST

START_TEST(test_plan)
{
	static const uint64_t snaps[] = { 10 };
	struct nlfs_gc_protect p = { .snapshots = snaps, .nsnapshots = 1, .protcno = 100 };
	struct cld_descs d = { 0 };
	struct cld_plan a = { 0 }, b = { 0 }, all = { 0 };
	struct nilfs_vdesc v[6] = {
		{ .vd_ino = 12, .vd_cno = 5, .vd_vblocknr = 40, .vd_blocknr = 1005 },  /* dead [5,8) */
		{ .vd_ino = 12, .vd_cno = 5, .vd_vblocknr = 30, .vd_blocknr = 1001 },  /* live */
		{ .vd_ino = 12, .vd_cno = 7, .vd_vblocknr = 20, .vd_blocknr = 1003 },  /* dead [7,9) */
		{ .vd_ino = 4, .vd_cno = 0, .vd_vblocknr = 10, .vd_blocknr = 1002 },   /* dead, cno 0 */
		{ .vd_ino = 12, .vd_cno = 12, .vd_vblocknr = 50, .vd_blocknr = 1004 }, /* dead [12,12) */
		{ .vd_ino = 12, .vd_cno = 5, .vd_vblocknr = 60, .vd_blocknr = 1006 },  /* stale */
	};
	struct nilfs_vinfo vi[6];
	struct nilfs_bdesc bd[2] = {
		{ .bd_ino = 3, .bd_oblocknr = 1010, .bd_blocknr = 1010, .bd_offset = 2 },
		{ .bd_ino = 3, .bd_oblocknr = 1011, .bd_blocknr = 2000, .bd_offset = 1 },
	};

	d.vd = v;
	d.nvd = 6;
	d.bd = bd;
	d.nbd = 2;
	cld_descs_sort(&d);
	ck_assert_uint_eq(v[0].vd_vblocknr, 10);
	ck_assert_uint_eq(v[5].vd_vblocknr, 60);
	ck_assert_uint_eq(bd[0].bd_offset, 1);
	/* what GET_VINFO would return, in vblocknr order 10 20 30 40 50 60 */
	vi[0] = (struct nilfs_vinfo){ 10, 3, 4, 1002 };
	vi[1] = (struct nilfs_vinfo){ 20, 7, 9, 1003 };
	vi[2] = (struct nilfs_vinfo){ 30, 5, UINT64_MAX, 1001 };
	vi[3] = (struct nilfs_vinfo){ 40, 5, 8, 1005 };
	vi[4] = (struct nilfs_vinfo){ 50, 12, 12, 1004 };
	vi[5] = (struct nilfs_vinfo){ 60, 5, UINT64_MAX, 777 };
	ck_assert_int_eq(cld_plan_add(&a, &p, &d, vi), 0);
	ck_assert_int_eq(cld_plan_add_segment(&a, 7), 0);
	ck_assert_uint_eq(a.nlive, 1);
	ck_assert_uint_eq(a.live[0].vd_vblocknr, 30);
	ck_assert_uint_eq(a.live[0].vd_period.p_end, UINT64_MAX);
	ck_assert_uint_eq(a.ndead, 4);
	ck_assert_uint_eq(a.nperiods, 2);   /* [5,8) and [7,9); none for cno 0 or [12,12) */
	ck_assert_uint_eq(a.nstale, 1);
	ck_assert_uint_eq(a.nbd, 1);
	ck_assert_uint_eq(a.bd[0].bd_oblocknr, 1010);
	ck_assert_uint_eq(a.nbd_dead, 1);
	ck_assert_uint_eq(cld_plan_live(&a), 2);

	/* a second segment; merged, the periods join and duplicates go */
	b.periods = NULL;
	ck_assert_int_eq(cld_plan_add_segment(&b, 3), 0);
	{
		struct nilfs_vdesc v2 = { .vd_ino = 13, .vd_cno = 9, .vd_vblocknr = 70,
					  .vd_blocknr = 900 };
		struct nilfs_vdesc v3 = { .vd_ino = 13, .vd_cno = 20, .vd_vblocknr = 80,
					  .vd_blocknr = 901 };
		struct nilfs_vinfo w[2] = { { 70, 9, 10, 900 }, { 80, 20, 30, 901 } };
		struct nilfs_vdesc vv[2] = { v2, v3 };
		struct cld_descs d2 = { .vd = vv, .nvd = 2 };

		ck_assert_int_eq(cld_plan_add(&b, &p, &d2, w), 0);
	}
	ck_assert_int_eq(cld_plan_merge(&all, &a), 0);
	ck_assert_int_eq(cld_plan_merge(&all, &b), 0);
	ck_assert_int_eq(cld_plan_merge(&all, &b), 0);   /* twice: dead vbns dedupe */
	cld_plan_finish(&all);
	ck_assert_uint_eq(all.ndead, 6);
	for (size_t i = 1; i < all.ndead; i++)
		ck_assert_uint_lt(all.dead[i - 1], all.dead[i]);
	/* [5,8) [7,9) [9,10) touch and merge into [5,10); [20,30) stays */
	ck_assert_uint_eq(all.nperiods, 2);
	ck_assert_uint_eq(all.periods[0].p_start, 5);
	ck_assert_uint_eq(all.periods[0].p_end, 10);
	ck_assert_uint_eq(all.periods[1].p_start, 20);
	ck_assert_uint_eq(all.nsegs, 3);
	ck_assert_uint_eq(all.segnums[0], 3);
	ck_assert_uint_eq(all.segnums[2], 7);
	cld_plan_reset(&a);
	ck_assert_uint_eq(cld_plan_live(&a), 0);
	cld_plan_free(&a);
	cld_plan_free(&b);
	cld_plan_free(&all);
}
END_TEST

/* the live blocks go to the kernel from the newest checkpoint down, each
 * (ino, checkpoint) together and in disk order, whatever their disk order */
START_TEST(test_plan_live_order)
{
	struct nlfs_gc_protect p = { .protcno = 100 };
	struct nilfs_vdesc v[5] = {
		{ .vd_ino = 12, .vd_cno = 3, .vd_vblocknr = 10, .vd_blocknr = 2001 },
		{ .vd_ino = 12, .vd_cno = 9, .vd_vblocknr = 11, .vd_blocknr = 2002 },
		{ .vd_ino = 13, .vd_cno = 9, .vd_vblocknr = 12, .vd_blocknr = 2000 },
		{ .vd_ino = 12, .vd_cno = 3, .vd_vblocknr = 13, .vd_blocknr = 1999 },
		{ .vd_ino = 12, .vd_cno = 9, .vd_vblocknr = 14, .vd_blocknr = 2003 },
	};
	static const uint64_t want[5] = { 2002, 2003, 2000, 1999, 2001 };
	struct nilfs_vinfo vi[5];
	struct cld_descs d = { .vd = v, .nvd = 5 };
	struct cld_plan plan = { 0 };

	for (size_t i = 0; i < 5; i++)
		vi[i] = (struct nilfs_vinfo){ v[i].vd_vblocknr, v[i].vd_cno, UINT64_MAX,
					      v[i].vd_blocknr };
	ck_assert_int_eq(cld_plan_add(&plan, &p, &d, vi), 0);
	cld_plan_finish(&plan);
	ck_assert_uint_eq(plan.nlive, 5);
	for (size_t i = 0; i < 5; i++)
		ck_assert_uint_eq(plan.live[i].vd_blocknr, want[i]);
	cld_plan_free(&plan);
}
END_TEST

START_TEST(test_messages)
{
	char buf[CLD_MSG_MAX] = "run", v[128];
	uint64_t n;

	ck_assert_int_eq(cld_msg_add(buf, sizeof(buf), "conf", "/etc/a b%c=d.conf"), 0);
	ck_assert_int_eq(cld_msg_addf(buf, sizeof(buf), "nsegments", "%d", 4), 0);
	ck_assert_str_eq(buf, "run conf=/etc/a%20b%25c%3Dd.conf nsegments=4");
	ck_assert(cld_msg_is(buf, "run"));
	ck_assert(!cld_msg_is(buf, "ru"));
	ck_assert(cld_msg_get(buf, "conf", v, sizeof(v)));
	ck_assert_str_eq(v, "/etc/a b%c=d.conf");
	ck_assert_int_eq(cld_msg_get_u64(buf, "nsegments", &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(cld_msg_get_u64(buf, "segments", &n), -ENOENT);
	ck_assert_int_eq(cld_msg_get_u64(buf, "conf", &n), -EINVAL);
	ck_assert(!cld_msg_get("status", "state", v, sizeof(v)));
	/* too long for the buffer */
	{
		char small[16] = "ok";

		ck_assert_int_eq(cld_msg_add(small, sizeof(small), "key", "a very long value"),
				 -ENOSPC);
	}
	setenv("NILFS_CLEANERD_RUNDIR", "/tmp/x", 1);
	ck_assert_int_eq(cld_ctl_path(makedev(254, 16), "sock", v, sizeof(v)), 0);
	ck_assert_str_eq(v, "/tmp/x/254:16.sock");
	unsetenv("NILFS_CLEANERD_RUNDIR");
	ck_assert_int_eq(cld_ctl_path(makedev(8, 1), "lock", v, sizeof(v)), 0);
	ck_assert_str_eq(v, "/run/nilfs_cleanerd/8:1.lock");
	ck_assert_int_eq(cld_ctl_path(makedev(8, 1), "lock", v, 10), -ENAMETOOLONG);
}
END_TEST

START_TEST(test_mountinfo)
{
	char path[] = "/tmp/check_mountinfo.XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	struct mnt_entry m;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs("21 1 0:20 / /proc rw,nosuid - proc proc rw\n"
	      "30 1 254:0 / /mnt rw,relatime shared:1 - nilfs2 /dev/vda rw\n"
	      "31 1 254:16 / /snap ro,relatime - nilfs2 /dev/vdb ro,cp=3\n"
	      "32 1 254:16 / /with\\040space rw - nilfs2 /dev/vdb rw\n"
	      "33 1 254:32 / /ro-only ro - nilfs2 /dev/vdc ro\n"
	      "34 1 8:1 / /ext rw - ext4 /dev/sda1 rw\n"
	      "35 1 0:40 / /bt rw - btrfs /dev/sdb1 rw\n", f);
	fclose(f);
	ck_assert_int_eq(mnt_lookup_dev(path, makedev(254, 0), NULL, &m), 0);
	ck_assert_str_eq(m.mountpoint, "/mnt");
	ck_assert_str_eq(m.source, "/dev/vda");
	ck_assert_str_eq(m.fstype, "nilfs2");
	ck_assert(m.rw);
	ck_assert(mnt_is_nilfs(&m));
	mnt_free(&m);
	/* the read-write mount wins over an earlier read-only one */
	ck_assert_int_eq(mnt_lookup_dev(path, makedev(254, 16), NULL, &m), 0);
	ck_assert_str_eq(m.mountpoint, "/with space");
	mnt_free(&m);
	ck_assert_int_eq(mnt_lookup_dev(path, makedev(254, 32), NULL, &m), 0);
	ck_assert_str_eq(m.mountpoint, "/ro-only");
	ck_assert(!m.rw);
	mnt_free(&m);
	/* any file system is found, with its type */
	ck_assert_int_eq(mnt_lookup_dev(path, makedev(8, 1), NULL, &m), 0);
	ck_assert_str_eq(m.fstype, "ext4");
	ck_assert(!mnt_is_nilfs(&m));
	mnt_free(&m);
	ck_assert_int_eq(mnt_lookup_dev(path, makedev(1, 1), NULL, &m), -ENOENT);
	/* a given directory must match (canonically) */
	ck_assert_int_eq(mnt_lookup_dev(path, makedev(254, 0), "/proc", &m), -ENOENT);
	ck_assert_int_eq(mnt_lookup_dev(path, makedev(254, 0), "/nonexistent-dir", &m), -ENOENT);
	ck_assert_int_eq(mnt_lookup_dev(path, makedev(254, 0), "/mnt", &m), 0);
	mnt_free(&m);
	ck_assert_int_lt(mnt_lookup_dev("/nonexistent", 0, NULL, &m), 0);
	ck_assert_int_eq(mnt_lookup(path, "/nonexistent", NULL, &m), -ENOENT);
	{
		/* the whole list, as the checkpoint tools read it */
		struct mnt_entry *l;
		size_t n;

		ck_assert_int_eq(mnt_list(path, "nilfs2", &l, &n), 0);
		ck_assert_uint_eq(n, 4);
		ck_assert_str_eq(l[0].mountpoint, "/mnt");
		ck_assert_str_eq(l[1].mountpoint, "/snap");
		ck_assert(!l[1].rw);
		ck_assert_str_eq(l[2].mountpoint, "/with space");
		ck_assert_uint_eq(l[3].dev, makedev(254, 32));
		mnt_list_free(l, n);
		ck_assert_int_eq(mnt_list(path, NULL, &l, &n), 0);
		ck_assert_uint_eq(n, 7);
		ck_assert_str_eq(l[6].fstype, "btrfs");
		mnt_list_free(l, n);
		ck_assert_int_lt(mnt_list("/nonexistent", NULL, &l, &n), 0);
		ck_assert_uint_eq(n, 0);
	}
	/* a regular file no loop device has is not mounted */
	ck_assert_int_eq(mnt_lookup(path, path, NULL, &m), -ENOENT);
	ck_assert(!mnt_path_mounted(path));
	unlink(path);
}
END_TEST

/* No nilfs2 ioctl, and no generic one such as FS_IOC_SETFSLABEL, reaches
 * a file system that is not nilfs2 (here the one holding /tmp) */
START_TEST(test_ioctls_only_on_nilfs2)
{
	char label[FSLABEL_MAX] = "x";
	struct nilfs_cpstat cs;
	uint64_t cno;
	struct statfs sf;
	int fd;

	if (statfs("/tmp", &sf) == 0 && sf.f_type == NILFS_SUPER_MAGIC)
		return;   /* a host whose /tmp is nilfs2: nothing to show here */
	fd = open("/tmp", O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ioc_check_fd(fd), -EMEDIUMTYPE);
	ck_assert_int_eq(ioc_set_label(fd, label), -EMEDIUMTYPE);
	ck_assert_int_eq(ioc_get_cpstat(fd, &cs), -EMEDIUMTYPE);
	ck_assert_int_eq(ioc_sync(fd, &cno), -EMEDIUMTYPE);
	ck_assert_int_eq(ioc_resize(fd, 1 << 30), -EMEDIUMTYPE);
	close(fd);
	ck_assert_int_eq(ioc_open("/tmp"), -EMEDIUMTYPE);
	ck_assert_int_eq(ioc_open("/nonexistent-dir"), -ENOENT);
	ck_assert_int_eq(ioc_check_fd(-1), -EBADF);
}
END_TEST

/* manual.c counts what a manual run has left with pass.c's count: here a
 * fixed one */
uint64_t cld_count_reclaimable(struct cleanerd *d, uint64_t nsegs)
{
	(void)d;
	(void)nsegs;
	return 7;
}

START_TEST(test_manual_run)
{
	static struct cleanerd d;
	struct pass_result res = { 0 };
	struct params p;

	d.rd.blocks_per_segment = 2048;
	d.rd.blocksize = 4096;
	ck_assert(!cld_manual_params(&d, 100, 9, &p));   /* none active */
	d.mm = (struct manual){ .active = true, .job = 3, .nsegments = 4, .interval = 5,
				.protection_period = 60 };
	ck_assert(cld_manual_params(&d, 100, 9, &p));
	ck_assert_uint_eq(d.mm.remaining, 7);             /* counted at the first pass */
	ck_assert_uint_eq(p.nsegments, 4);
	ck_assert_uint_eq(p.interval, 5);
	ck_assert_uint_eq(p.protection_period, 60);
	ck_assert_uint_eq(p.min_reclaimable, 9);          /* the level's */
	d.mm.have_minrec = true;
	d.mm.minrec = (struct cld_size){ 10, CLD_UNIT_COUNT };
	ck_assert(cld_manual_params(&d, 100, 9, &p));
	ck_assert_uint_eq(p.min_reclaimable, 10);         /* the run's own */
	res.cleaned = 3;
	d.last_busy = true;
	cld_manual_account(&d, &res, false);
	ck_assert(d.mm.active);
	ck_assert_uint_eq(d.mm.remaining, 4);
	res.cleaned = 2;
	res.deferred = 2;
	cld_manual_account(&d, &res, false);
	ck_assert(!d.mm.active);                          /* nothing left: done */
	ck_assert_uint_eq(d.jobdone, 3);
	/* a run that finds nothing more to do ends too */
	d.mm = (struct manual){ .active = true, .job = 4, .counted = true, .remaining = 5 };
	d.last_busy = false;
	res = (struct pass_result){ 0 };
	cld_manual_account(&d, &res, true);               /* a retry is due: not yet */
	ck_assert(d.mm.active);
	cld_manual_account(&d, &res, false);
	ck_assert(!d.mm.active);
	ck_assert_uint_eq(d.jobdone, 4);
}
END_TEST

/*
 * A kernel in miniature for cld_submit: checkpoints 1..NCP, four to a
 * cpfile block (block b holds 4b..4b+3; block 0 never goes), some of them
 * snapshots.  A block whose checkpoints are all gone leaves the cpfile and
 * its DAT entry ends.  CLEAN_SEGMENTS with periods deletes them first and,
 * like the kernel, fails with -EBUSY after deleting the rest of a range
 * that holds a snapshot, then puts back the DAT only: the entry of a block
 * emptied in that call stays live ("leaked").
 */
#define FAKE_NCP 24
struct fake_kernel {
	bool valid[FAKE_NCP + 1], snap[FAKE_NCP + 1];
	bool block_gone[FAKE_NCP / 4 + 1], dat_ended[FAKE_NCP / 4 + 1];
	int leaked;                  /* blocks gone with their DAT entry live */
	int deletes, cleans, clean_periods;
	int clean_error;             /* CLEAN_SEGMENTS fails after deleting checkpoints */
	uint64_t snap_on_call;       /* the checkpoint made a snapshot before the first call */
};

static void fake_drop(struct fake_kernel *k, uint64_t cno, bool dat_kept)
{
	uint64_t b = cno / 4;

	k->valid[cno] = false;
	if (b == 0 || k->block_gone[b])
		return;
	for (uint64_t c = 4 * b; c < 4 * b + 4 && c <= FAKE_NCP; c++)
		if (k->valid[c])
			return;
	k->block_gone[b] = true;
	k->dat_ended[b] = !dat_kept;
}

static void fake_race(struct fake_kernel *k)
{
	if (k->snap_on_call) {
		k->snap[k->snap_on_call] = true;
		k->snap_on_call = 0;
	}
}

static ssize_t fake_get_cpinfo(void *ctx, uint64_t cno, struct nilfs_cpinfo *ci, size_t n)
{
	struct fake_kernel *k = ctx;
	size_t got = 0;

	fake_race(k);
	for (uint64_t c = cno ? cno : 1; c <= FAKE_NCP && got < n; c++)
		if (k->valid[c])
			ci[got++] = (struct nilfs_cpinfo){
				.ci_cno = c, .ci_flags = k->snap[c] ? 1u << NILFS_CPINFO_SNAPSHOT : 0 };
	return (ssize_t)got;
}

static int fake_delete_checkpoint(void *ctx, uint64_t cno)
{
	struct fake_kernel *k = ctx;

	fake_race(k);
	k->deletes++;
	if (cno == 0 || cno > FAKE_NCP || !k->valid[cno])
		return -ENOENT;
	if (k->snap[cno])
		return -EBUSY;
	fake_drop(k, cno, false);
	return 0;
}

/* the kernel's CLEAN_SEGMENTS, periods included */
static int fake_clean(struct fake_kernel *k, const struct nilfs_period *pd, size_t npd)
{
	bool gone_before[FAKE_NCP / 4 + 1];
	int rc = 0;

	fake_race(k);
	k->cleans++;
	k->clean_periods += (int)npd;
	memcpy(gone_before, k->block_gone, sizeof(gone_before));
	for (size_t i = 0; i < npd; i++)
		for (uint64_t c = pd[i].p_start; c < pd[i].p_end && c <= FAKE_NCP; c++) {
			if (k->snap[c])
				rc = -EBUSY;
			else if (k->valid[c])
				fake_drop(k, c, false);
		}
	if (!rc)
		rc = k->clean_error;
	if (rc)   /* the DAT comes back from its shadow copy; the cpfile does not */
		for (size_t b = 0; b <= FAKE_NCP / 4; b++)
			if (k->block_gone[b] && !gone_before[b])
				k->dat_ended[b] = false;
	return rc;
}

static int fake_clean_segments(void *ctx, const struct cld_plan *p)
{
	(void)p;   /* its periods went to fake_delete_checkpoint */
	return fake_clean(ctx, NULL, 0);
}

static void fake_init(struct fake_kernel *k)
{
	memset(k, 0, sizeof(*k));
	for (uint64_t c = 1; c <= FAKE_NCP; c++)
		k->valid[c] = true;
}

static int fake_leaks(const struct fake_kernel *k)
{
	int n = 0;

	for (size_t b = 0; b <= FAKE_NCP / 4; b++)
		n += k->block_gone[b] && !k->dat_ended[b];
	return n;
}

START_TEST(test_submit)
{
	struct nilfs_period pd[2] = { { 4, 9 }, { 12, 20 } };
	struct cld_plan p = { .periods = pd, .nperiods = 2, .nsegs = 1 };
	struct fake_kernel k;
	struct cld_kops ops = { fake_get_cpinfo, fake_delete_checkpoint, fake_clean_segments, &k };
	struct cld_submit_result r;

	/* the way it goes: checkpoints one by one, then the segments alone */
	fake_init(&k);
	k.valid[6] = false;   /* deleted before (rmcp) */
	ck_assert_int_eq(cld_submit(&ops, &p, &r), 0);
	ck_assert_int_eq(r.failed, CLD_STAGE_NONE);
	ck_assert_uint_eq(r.deleted, 4 + 8);
	ck_assert_int_eq(k.deletes, 12);
	ck_assert_int_eq(k.cleans, 1);
	ck_assert_int_eq(k.clean_periods, 0);
	ck_assert(k.block_gone[1] && k.block_gone[3] && k.block_gone[4] && !k.block_gone[2]);
	ck_assert_int_eq(fake_leaks(&k), 0);

	/* a snapshot taken after the plan: blocks 1 and 3 go, no cleaning, no leak */
	fake_init(&k);
	k.snap_on_call = 17;
	ck_assert_int_eq(cld_submit(&ops, &p, &r), -EBUSY);
	ck_assert_int_eq(r.failed, CLD_STAGE_CHECKPOINTS);
	ck_assert_uint_eq(r.cno, 17);
	ck_assert_int_eq(k.cleans, 0);
	ck_assert(k.block_gone[1] && k.block_gone[3] && !k.block_gone[4]);
	ck_assert_int_eq(fake_leaks(&k), 0);

	/* CLEAN_SEGMENTS fails (a stale description): the checkpoints are gone already */
	fake_init(&k);
	k.clean_error = -ENOENT;
	ck_assert_int_eq(cld_submit(&ops, &p, &r), -ENOENT);
	ck_assert_int_eq(r.failed, CLD_STAGE_CLEAN);
	ck_assert_uint_eq(r.deleted, 13);
	ck_assert_int_eq(fake_leaks(&k), 0);

	/* the model is the kernel's: the periods in the same call leak in both cases */
	fake_init(&k);
	k.snap_on_call = 17;
	ck_assert_int_eq(fake_clean(&k, pd, 2), -EBUSY);
	ck_assert_int_eq(fake_leaks(&k), 2);
	fake_init(&k);
	k.clean_error = -ENOENT;
	ck_assert_int_eq(fake_clean(&k, pd, 2), -ENOENT);
	ck_assert_int_eq(fake_leaks(&k), 3);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cleaner");
	TCase *tc = tcase_create("cleaner");

	tcase_add_test(tc, test_scan);
	tcase_add_test(tc, test_fate);
	tcase_add_test(tc, test_plan);
	tcase_add_test(tc, test_plan_live_order);
	tcase_add_test(tc, test_submit);
	tcase_add_test(tc, test_messages);
	tcase_add_test(tc, test_mountinfo);
	tcase_add_test(tc, test_ioctls_only_on_nilfs2);
	tcase_add_test(tc, test_manual_run);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
