/* SPDX-License-Identifier: GPL-2.0-or-later */
/* control.c - nilfs_cleanerd's side of the control socket (see ctl.h). */
#define _GNU_SOURCE   /* accept4, struct ucred */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>
#include <unistd.h>

#include "cleanerd.h"
#include "ctl.h"

static const char *const level_names[] = { "normal", "urgent", "emergency" };

static void reply(int fd, const char *msg)
{
	send(fd, msg, strlen(msg), MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void reply_error(int fd, int err, const char *what)
{
	char buf[CLD_MSG_MAX] = "error";

	cld_msg_addf(buf, sizeof(buf), "errno", "%d", err);
	cld_msg_add(buf, sizeof(buf), "msg", what);
	reply(fd, buf);
}

static const char *state_name(const struct cleanerd *d)
{
	if (d->mm.active)
		return "running";
	if (d->suspended)
		return "suspended";
	return d->last_busy ? "running" : "idle";
}

static void cmd_status(struct cleanerd *d, int fd)
{
	char buf[CLD_MSG_MAX] = "ok";

	cld_msg_add(buf, sizeof(buf), "state", state_name(d));
	cld_msg_add(buf, sizeof(buf), "level", level_names[d->level]);
	cld_msg_add(buf, sizeof(buf), "policy", nlfs_gc_policy_name(d->cfg.selection_policy));
	cld_msg_addf(buf, sizeof(buf), "pid", "%ld", (long)getpid());
	cld_msg_add(buf, sizeof(buf), "device", d->device);
	cld_msg_add(buf, sizeof(buf), "mountpoint", d->mountpoint ? d->mountpoint : "");
	cld_msg_addf(buf, sizeof(buf), "job", "%" PRIu64, d->jobid);
	cld_msg_addf(buf, sizeof(buf), "done", "%" PRIu64, d->jobdone);
	cld_msg_addf(buf, sizeof(buf), "nsegments", "%" PRIu64, d->nsegs);
	cld_msg_addf(buf, sizeof(buf), "ncleansegs", "%" PRIu64, d->ncleansegs);
	cld_msg_addf(buf, sizeof(buf), "passes", "%" PRIu64, d->st.passes);
	cld_msg_addf(buf, sizeof(buf), "cleaned", "%" PRIu64, d->st.cleaned);
	cld_msg_addf(buf, sizeof(buf), "deferred", "%" PRIu64, d->st.deferred);
	cld_msg_addf(buf, sizeof(buf), "moved", "%" PRIu64, d->st.moved);
	cld_msg_addf(buf, sizeof(buf), "moved_dat", "%" PRIu64, d->st.moved_dat);
	cld_msg_addf(buf, sizeof(buf), "freed", "%" PRIu64, d->st.freed);
	cld_msg_addf(buf, sizeof(buf), "periods", "%" PRIu64, d->st.periods);
	cld_msg_addf(buf, sizeof(buf), "protected", "%" PRIu64, d->st.protected_seq);
	cld_msg_addf(buf, sizeof(buf), "errors", "%" PRIu64, d->st.errors);
	cld_msg_addf(buf, sizeof(buf), "blocks_per_segment", "%u", d->rd.blocks_per_segment);
	cld_msg_addf(buf, sizeof(buf), "blocksize", "%u", d->rd.blocksize);
	reply(fd, buf);
}

static void cmd_run(struct cleanerd *d, int fd, const char *req)
{
	char val[64], buf[CLD_MSG_MAX] = "ok";
	uint64_t v;
	struct manual m = { .active = true };

	if (!cld_msg_get_u64(req, "protection_period", &v)) {
		if (v > UINT64_MAX / NS_PER_SEC)
			return reply_error(fd, EINVAL, "protection period too large");
		m.protection_period = v * NS_PER_SEC;
	} else {
		m.protection_period = d->cfg.protection_period;
	}
	m.interval = MANUAL_INTERVAL;
	if (!cld_msg_get_u64(req, "interval_ns", &v))
		m.interval = v;
	if (!cld_msg_get_u64(req, "nsegments", &v)) {
		if (v == 0 || v > CLD_NSEGMENTS_PER_CLEAN_MAX)
			return reply_error(fd, EINVAL, "segments per step must be 1 to 32");
		m.nsegments = (unsigned)v;
	} else {
		m.nsegments = cld_manual_step((uint64_t)d->rd.blocks_per_segment * d->rd.blocksize,
					      m.interval);
	}
	if (cld_msg_get(req, "min_reclaimable", val, sizeof(val))) {
		if (cld_parse_size(val, &m.minrec) || m.minrec.unit == CLD_UNIT_BYTES ||
		    (m.minrec.unit == CLD_UNIT_COUNT && m.minrec.num > d->rd.blocks_per_segment))
			return reply_error(fd, EINVAL, "bad minimum of reclaimable blocks");
		m.have_minrec = true;
	}
	if (d->mm.active)
		cld_manual_end(d, "replaced by a new one");
	m.job = ++d->jobid;
	d->mm = m;
	say(LOG_INFO, "manual run %" PRIu64 " (protection period %" PRIu64 " s, %u segments "
	    "per %.3g s)", m.job, (uint64_t)(m.protection_period / NS_PER_SEC), m.nsegments,
	    (double)m.interval / NS_PER_SEC);
	d->next_run = mono_ns();
	cld_msg_addf(buf, sizeof(buf), "job", "%" PRIu64, m.job);
	reply(fd, buf);
}

static void handle_request(struct cleanerd *d, int fd, const char *req)
{
	char val[PATH_MAX];

	say(LOG_DEBUG, "request: %s", req);
	if (cld_msg_is(req, "status")) {
		cmd_status(d, fd);
	} else if (cld_msg_is(req, "run")) {
		cmd_run(d, fd, req);
	} else if (cld_msg_is(req, "stop")) {
		if (d->mm.active)
			cld_manual_end(d, "stopped");
		reply(fd, "ok");
	} else if (cld_msg_is(req, "suspend")) {
		if (!d->suspended)
			say(LOG_INFO, "suspended");
		d->suspended = true;
		if (d->mm.active)
			cld_manual_end(d, "stopped by suspend");
		reply(fd, "ok");
	} else if (cld_msg_is(req, "resume")) {
		if (d->suspended)
			say(LOG_INFO, "resumed");
		d->suspended = false;
		d->next_run = mono_ns();
		reply(fd, "ok");
	} else if (cld_msg_is(req, "reload")) {
		int rc = cld_reload_config(d, cld_msg_get(req, "conf", val, sizeof(val)) && *val
					  ? val : NULL);

		if (rc)
			reply_error(fd, -rc, strerror(-rc));
		else
			reply(fd, "ok");
	} else if (cld_msg_is(req, "shutdown")) {
		say(LOG_INFO, "shutdown requested");
		d->stop = true;
		reply(fd, "ok");
	} else {
		reply_error(fd, EINVAL, "unknown request");
	}
}

void cld_accept_client(struct cleanerd *d)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd = accept4(d->sockfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	/* the socket is 0600 already; ask the peer anyway */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
	    (cred.uid != 0 && cred.uid != geteuid())) {
		reply_error(fd, EPERM, "permission denied");
		close(fd);
		return;
	}
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (d->clients[i] < 0) {
			d->clients[i] = fd;
			return;
		}
	reply_error(fd, EBUSY, "too many clients");
	close(fd);
}

void cld_serve_client(struct cleanerd *d, int i)
{
	char buf[CLD_MSG_MAX];
	ssize_t n = recv(d->clients[i], buf, sizeof(buf) - 1, 0);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		close(d->clients[i]);
		d->clients[i] = -1;
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	handle_request(d, d->clients[i], buf);
}

