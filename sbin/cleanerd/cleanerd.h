/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cleanerd.h - the state nilfs_cleanerd keeps, shared by its main loop
 * (cleanerd.c), its cleaning pass (pass.c) and its control socket
 * (control.c).
 */
#ifndef CLD_CLEANERD_H
#define CLD_CLEANERD_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/un.h>
#include <linux/nilfs2_api.h>

#include <nlfs/gc.h>
#include "cldconfig.h"
#include "clean_plan.h"

#define PROG "nilfs_cleanerd"
#define MIN_RESERVED_SEGMENTS 8
#define EMERGENCY_MARGIN 2
#define EVAL_BUDGET 64             /* live counts of new candidates per pass */
#define EVAL_REFRESH 64            /* ... and of candidates counted too long ago (no refs kept) */
#define EVAL_MAX_AGE NS_PER_SEC    /* hot segments lose most of their blocks in seconds */
#define LIVE_REFS_MAX (1u << 20)   /* live_refs kept over all segments (24 MiB) */
#define SB_WRITE_GAP NS_PER_SEC    /* between superblock writes asked for top-ranked protected segments */
#define BAD_LIMIT 3                /* failures before a segment is left alone */
#define MAX_CLIENTS 8
#define SUINFO_BATCH 512
#define CPINFO_BATCH 512

enum level { LVL_NORMAL, LVL_URGENT, LVL_EMERGENCY };

/* a block a segment's last count found live: enough to ask the DAT again */
struct live_ref {
	uint64_t vblocknr, blocknr, cno;
};

struct seginfo {          /* per segment, kept between passes */
	uint64_t lastmod;     /* of the suinfo the entry is about */
	uint32_t nblocks;
	uint32_t live;        /* NLFS_GC_LIVE_UNKNOWN if not evaluated */
	uint64_t evaluated;   /* monotonic ns */
	uint64_t seq;         /* of its first log, if have_seq */
	bool have_seq;
	uint8_t bad;          /* failures */
	/* the live blocks of the last count (if have_refs) and its DAT blocks
	 * (nbd), for a recount without reading the segment (pass.c) */
	bool have_refs;
	uint32_t nrefs, nbd;
	struct live_ref *refs;
};

struct manual {
	bool active, counted;
	uint64_t job;
	uint64_t protection_period;   /* ns */
	unsigned nsegments;
	uint64_t interval;            /* ns */
	bool have_minrec;
	struct cld_size minrec;
	uint64_t remaining;
};

struct stats {
	uint64_t passes, cleaned, deferred, moved, moved_dat, freed, periods, stale;
	uint64_t protected_seq, errors;
};

struct params {
	uint64_t protection_period;   /* ns */
	unsigned nsegments;
	uint64_t interval;
	uint32_t min_reclaimable;     /* blocks; 0: no deferral */
	enum nlfs_gc_policy policy;
	bool emergency;
};

struct pass_result {
	size_t ncand, cleaned, deferred, protected_seq;
	uint64_t next_eligible;       /* realtime s: when a time-protected segment becomes eligible; 0 none */
	int error;
};

struct cleanerd {
	/* volume */
	char *device;
	dev_t rdev;
	char *dir_arg;
	char *mountpoint;
	int iocfd;
	struct cld_reader rd;
	uint32_t r_pct;
	uint64_t nsegs, ncleansegs;
	/* configuration */
	char *conffile;
	bool conf_explicit;
	struct cld_config cfg;
	bool pp_override;
	uint64_t pp_override_ns;
	bool startup;
	bool log_stderr;
	/* control */
	int lockfd, sockfd, sigfd;
	int clients[MAX_CLIENTS];
	char lockpath[PATH_MAX], sockpath[sizeof(((struct sockaddr_un *)0)->sun_path)];
	/* state */
	bool stop;
	bool suspended;
	bool paused;
	bool last_busy;
	bool set_suinfo_broken;
	enum level level;
	uint64_t level_logged[3];     /* monotonic ns of the last log of each level */
	struct manual mm;
	uint64_t jobid, jobdone;
	unsigned step_cap;            /* halved on ENOMEM/ENOSPC */
	uint64_t next_run;            /* monotonic ns */
	uint64_t last_sb_write;       /* monotonic ns of the last superblock write asked for, 0 never */
	uint64_t cp_hint;
	unsigned isolate;             /* passes left that clean one segment (a plan of several failed) */
	bool emerg_suspended_warned;
	struct seginfo *seg;
	size_t nseg_alloc;
	size_t nrefs_total;           /* live_refs kept in seg[] */
	struct stats st;
	/* per pass */
	struct cld_descs descs;
	struct cld_vinfo_buf vinfo;
	struct cld_plan tmp, plan;
	uint64_t *snapshots;
	size_t nsnapshots;
	/* the snapshot timeline */
	uint64_t timeline_last;       /* monotonic ns of its last run, 0 never */
	bool timeline_failing;        /* the last run failed (said once) */
	bool timeline_budget_said;    /* the budget's count was logged once */
};

/* cleanerd.c */
uint64_t mono_ns(void);
int cld_reload_config(struct cleanerd *d, const char *path);

/* log.c: syslog (and standard error with --stderr), each message
 * prefixed with the device cld_log_device() named ("-" before) */
void cld_log_device(const char *device);
void say(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* manual.c: a run nilfs-clean asked for (d->mm) */
/* If a manual run is active: its parameters in *P (the segments it has to
 * clean counted at its first pass; MIN_RECLAIMABLE, the level's, unless
 * the run gave its own) and true; else false. */
bool cld_manual_params(struct cleanerd *d, uint64_t nsegs, uint32_t min_reclaimable,
		       struct params *p);
/* after a pass with result RES (RETRY: another is due soon): count what it
 * did, and end the run when nothing is left for it */
void cld_manual_account(struct cleanerd *d, const struct pass_result *res, bool retry);
/* end the active run; HOW goes to the log */
void cld_manual_end(struct cleanerd *d, const char *how);

/* pass.c */
uint64_t cld_reserved_segments(const struct cleanerd *d, uint64_t nsegs);
/* one cleaning step with parameters P on the volume open in d->iocfd */
void cld_run_pass(struct cleanerd *d, const struct nilfs_sustat *sus, const struct params *p,
		  struct pass_result *res);
/* segments GET_SUINFO calls reclaimable */
uint64_t cld_count_reclaimable(struct cleanerd *d, uint64_t nsegs);
/* two syncs of the volume: the kernel writes its superblock copies, so
 * ss_prot_seq moves on (nilfs-utils freezes and thaws instead) */
int cld_shrink_protected_region(struct cleanerd *d);

/* timeline.c: the snapshot timeline, if configured, at most once a minute;
 * MIN_CLEAN_SEGMENTS the cleaner's minimum (reserved segments included),
 * under which the timeline's snapshots give way */
void cld_timeline(struct cleanerd *d, uint64_t mono, uint64_t min_clean_segments);
/* monotonic ns when it is due next; UINT64_MAX if it is off */
uint64_t cld_timeline_due(const struct cleanerd *d);

/* control.c */
void cld_accept_client(struct cleanerd *d);
void cld_serve_client(struct cleanerd *d, int i);

#endif /* CLD_CLEANERD_H */
