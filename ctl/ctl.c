// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * ctl.c -- the control channel of one connection (see ctl.h): messages
 * over a worker's connection with the protocol's credits and heartbeats.
 */

#include <stdlib.h>
#include <string.h>

#include "ctl.h"

#include "../proto/session.h"
#include "../workers/worker.h"

/* the offset of the credits field in the header (u32 little-endian) */
#define HDR_CREDITS_OFF 12

/* the version of the messages the channel makes itself before the session's is known */
#define CTL_VERSION RPMAF__PROTO_VERSION_HELLO

/* now_ms -- the monotonic clock the heartbeats count in */
static uint64_t
now_ms(void)
{
	return rpmaf__now_ns() / 1000000u;
}

/* see ctl.h */
int
rpmaf__ctl_init(struct rpmaf__ctl *c, struct rpmaf_worker *w, uint32_t window, uint32_t msg_size,
		uint32_t sq, const struct rpmaf__ctl_ops *ops, void *ctx,
		const struct rpmaf__wlog *log, const char *peer)
{
	if (!c || !w || !ops || !ops->on_msg || !ops->on_fail || !log || !peer || !sq ||
	    msg_size < RPMAF__PROTO_MSG_MIN)
		return RPMAF_E_INVAL;
	memset(c, 0, sizeof(*c));
	if (rpmaf__proto_credit_init(&c->credit, window))
		return RPMAF_E_INVAL;
	c->inflight = calloc(sq, sizeof(*c->inflight));
	if (!c->inflight)
		return RPMAF_E_NOMEM;
	c->inflight_max = sq;
	c->w = w;
	c->ops = ops;
	c->ctx = ctx;
	c->log = log;
	c->peer = peer;
	c->msg_size = msg_size;
	return 0;
}

/* see ctl.h */
void
rpmaf__ctl_bind(struct rpmaf__ctl *c, struct rpmaf_wconn *wconn)
{
	c->wconn = wconn;
}

/* see ctl.h */
int
rpmaf__ctl_start(struct rpmaf__ctl *c, uint32_t peer_window, uint32_t peer_msg_size,
		 uint16_t version)
{
	if (peer_msg_size < RPMAF__PROTO_MSG_MIN || peer_msg_size > RPMAF__PROTO_MSG_MAX ||
	    version < RPMAF__PROTO_VERSION_MIN || version > RPMAF__PROTO_VERSION_MAX)
		return RPMAF_E_PROTO;
	if (rpmaf__proto_credit_start(&c->credit, peer_window))
		return RPMAF_E_PROTO;
	c->peer_msg_size = peer_msg_size;
	c->version = version;
	return 0;
}

/* own_version -- the version of the channel's own messages */
static uint16_t
own_version(const struct rpmaf__ctl *c)
{
	return c->version ? c->version : CTL_VERSION;
}

/*
 * stop -- the channel fails: no more sends or receives, the heartbeat
 * timer disarmed; the log says why unless why is NULL
 */
static void
stop(struct rpmaf__ctl *c, int code, const char *why)
{
	c->failed = true;
	if (c->hb_armed) {
		(void)rpmaf_worker_timer_cancel(c->w, &c->hb_timer);
		c->hb_armed = false;
	}
	if (why)
		rpmaf__wlog(c->log, RPMAF_LOG_WARNING, "ctl %s: %s (%s)", c->peer, why,
			    rpmaf_err_str(code));
}

/* see ctl.h */
void
rpmaf__ctl_fail(struct rpmaf__ctl *c, int code, const char *why)
{
	if (c->failed)
		return;
	stop(c, code, why);
	/* the owner may close the connection and finish the channel in there: the last step */
	c->ops->on_fail(c, code, c->ctx);
}

/* send_limit -- the longest message the peer can receive (its size unknown: the least) */
static size_t
send_limit(const struct rpmaf__ctl *c)
{
	uint32_t peer = c->peer_msg_size ? c->peer_msg_size : RPMAF__PROTO_MSG_MIN;

	return peer < c->msg_size ? peer : c->msg_size;
}

/*
 * credit_ok -- a message may spend a credit now (an answer: one that lets
 * a held credit go first), counting the receive buffer being consumed,
 * which is released before the credit is taken
 */
static bool
credit_ok(const struct rpmaf__ctl *c, bool answer)
{
	if (answer ? rpmaf__proto_credit_can_answer(&c->credit)
		   : rpmaf__proto_credit_can_send(&c->credit))
		return true;
	return c->rbuf && c->credit.avail >= 1;
}

/* see ctl.h */
bool
rpmaf__ctl_can_send(const struct rpmaf__ctl *c)
{
	if (c->failed || !c->wconn || !credit_ok(c, true) || c->ninflight >= c->inflight_max)
		return false;
	return c->w->slab.nfree > 0 && c->wconn->acct.sq.used < c->wconn->acct.sq.cap &&
	       c->w->cq.used < c->w->cq.cap;
}

/*
 * release -- post back the receive buffer being consumed (the peer is
 * owed its credit from now on)
 */
static void
release(struct rpmaf__ctl *c)
{
	if (!c->rbuf)
		return;
	(void)rpmaf_wconn_recv_release(c->wconn, c->rbuf);
	c->rbuf = NULL;
	(void)rpmaf__proto_credit_reposted(&c->credit, 1);
}

/* see ctl.h */
int
rpmaf__ctl_prepare(struct rpmaf__ctl *c, void **buf_ptr, size_t *size_ptr)
{
	void *buf;
	int ret;

	if (c->failed || !c->wconn)
		return RPMAF_E_CONNLOST;
	if (!credit_ok(c, false) || c->ninflight >= c->inflight_max)
		return RPMAF_E_AGAIN;
	if (rpmaf_worker_buf_get(c->w, &buf))
		return RPMAF_E_AGAIN;
	if ((ret = rpmaf_wconn_admit(c->wconn, 1))) {
		(void)rpmaf_worker_buf_put(c->w, buf);
		return ret == RPMAF_E_AGAIN ? RPMAF_E_AGAIN : RPMAF_E_CONNLOST;
	}
	/* the credit is held for this send until commit or abort */
	c->credit.avail--;
	*buf_ptr = buf;
	*size_ptr = send_limit(c);
	return 0;
}

/* see ctl.h */
void
rpmaf__ctl_abort(struct rpmaf__ctl *c, void *buf)
{
	c->credit.avail++;
	if (c->wconn)
		(void)rpmaf_wconn_unadmit(c->wconn, 1);
	(void)rpmaf_worker_buf_put(c->w, buf);
}

/* put_u32le -- a header field patched in place */
static void
put_u32le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* post -- send the len bytes of buf (admitted, credited) signaled; the buffer is in flight */
static int
post(struct rpmaf__ctl *c, void *buf, size_t len)
{
	struct rpma_mr_local *mr;
	size_t off;
	int ret;

	(void)rpmaf_worker_buf_mr(c->w, buf, &mr, &off);
	ret =
	    rpma_send(rpmaf_wconn_get_conn(c->wconn), mr, off, len, RPMA_F_COMPLETION_ALWAYS, buf);
	if (ret) {
		(void)rpmaf_wconn_unadmit(c->wconn, 1);
		(void)rpmaf_worker_buf_put(c->w, buf);
		rpmaf__wlog(c->log, RPMAF_LOG_ERROR, "ctl %s: rpma_send(): %s", c->peer,
			    rpma_err_2str(ret));
		stop(c, RPMAF_E_RDMA, NULL);
		return RPMAF_E_RDMA;
	}
	c->inflight[c->ninflight++] = buf;
	c->sent++;
	return 0;
}

/*
 * returning -- the credits the send being committed returns: as the
 * credit's take will count them, once the buffer being consumed is
 * released and the credit prepare held is given back
 */
static uint32_t
returning(const struct rpmaf__ctl *c)
{
	struct rpmaf__proto_credit after = c->credit;

	after.avail++;
	after.owed += c->rbuf ? 1 : 0;
	return rpmaf__proto_credit_returning(&after);
}

/* see ctl.h */
bool
rpmaf__ctl_hold(struct rpmaf__ctl *c)
{
	if (c->credit.held >= c->credit.owed)
		release(c); /* the message being consumed was copied aside: its buffer */
	return rpmaf__proto_credit_hold(&c->credit) == 0;
}

/* see ctl.h */
void
rpmaf__ctl_unhold(struct rpmaf__ctl *c)
{
	rpmaf__proto_credit_unhold(&c->credit);
}

/* see ctl.h */
int
rpmaf__ctl_commit(struct rpmaf__ctl *c, void *buf, struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_err err;
	int len;

	if (c->failed) {
		rpmaf__ctl_abort(c, buf);
		return RPMAF_E_CONNLOST;
	}
	/* what credit_take() will return, so that a CREDIT passes the encoder's check */
	m->hdr.credits = returning(c);
	/* encoded first: m may point into the receive buffer, released next */
	len = rpmaf__proto_msg_encode(buf, send_limit(c), m, &err);
	if (len < 0) {
		rpmaf__wlog(c->log, RPMAF_LOG_ERROR, "ctl %s: %s not sent: %s", c->peer,
			    rpmaf__proto_type_str(m->hdr.type), err.msg);
		rpmaf__ctl_abort(c, buf);
		return RPMAF_E_INVAL;
	}
	release(c);
	c->credit.avail++; /* the credit held by prepare (abort gives it back itself) */
	(void)rpmaf__proto_credit_take(&c->credit, &m->hdr); /* credit_ok() held */
	put_u32le((uint8_t *)buf + HDR_CREDITS_OFF, m->hdr.credits);
	return post(c, buf, (size_t)len);
}

/* see ctl.h */
int
rpmaf__ctl_send(struct rpmaf__ctl *c, struct rpmaf__proto_msg *m)
{
	size_t size;
	void *buf;
	int ret = rpmaf__ctl_prepare(c, &buf, &size);

	return ret ? ret : rpmaf__ctl_commit(c, buf, m);
}

/* send_own -- a message the channel makes itself (CREDIT, HEARTBEAT, ..., ERROR) */
static int
send_own(struct rpmaf__ctl *c, enum rpmaf__proto_type type, uint64_t echo)
{
	struct rpmaf__proto_msg m;

	memset(&m, 0, sizeof(m));
	m.hdr.version = own_version(c);
	m.hdr.type = (uint8_t)type;
	m.body.heartbeat.echo = echo;
	return rpmaf__ctl_send(c, &m);
}

/*
 * credit_update -- return the credits owed in a CREDIT when they are due
 * (or asked for soon) and can go
 */
static void
credit_update(struct rpmaf__ctl *c)
{
	bool due;

	if (c->failed || !c->credit.peer_window)
		return;
	due = rpmaf__proto_credit_need_update(&c->credit) ||
	      (c->credit_soon && c->credit.owed > c->credit.held);
	if (due && rpmaf__ctl_can_send(c) && !send_own(c, RPMAF__PROTO_T_CREDIT, 0))
		c->credit_soon = false;
}

/* see ctl.h */
void
rpmaf__ctl_credit_soon(struct rpmaf__ctl *c)
{
	c->credit_soon = true;
}

/* see ctl.h */
void
rpmaf__ctl_credit_due(struct rpmaf__ctl *c)
{
	if (c->credit_soon)
		credit_update(c);
}

/* hb_arm -- arm the heartbeat timer for the next time the watch may act */
static void hb_arm(struct rpmaf__ctl *c);

/* hb_fire -- the heartbeat timer: send a HEARTBEAT, or declare the peer lost */
static void
hb_fire(struct rpmaf_worker *w, struct rpmaf_timer *t, void *arg)
{
	struct rpmaf__ctl *c = arg;
	uint64_t now = now_ms();
	char why[96];

	(void)w;
	(void)t;
	c->hb_armed = false;
	if (c->failed)
		return;
	switch (rpmaf__proto_heartbeat_tick(&c->hb, now)) {
	case RPMAF__PROTO_HB_LOST:
		c->silent_ms = now - c->hb.last_rx_ms;
		snprintf(why, sizeof(why), "peer silent for %llu ms",
			 (unsigned long long)c->silent_ms);
		rpmaf__ctl_fail(c, RPMAF_E_CONNLOST, why);
		return;
	case RPMAF__PROTO_HB_SEND:
		/* no credit now: the peer's next message proves it alive anyway */
		(void)send_own(c, RPMAF__PROTO_T_HEARTBEAT, now);
		break;
	default:
		break;
	}
	if (!c->failed)
		hb_arm(c);
}

/* see above */
static void
hb_arm(struct rpmaf__ctl *c)
{
	uint64_t next = rpmaf__proto_heartbeat_next(&c->hb);
	uint64_t now = now_ms();
	uint64_t delay_ms = next > now ? next - now : 1;

	if (next == UINT64_MAX)
		return;
	if (rpmaf_worker_timer_add(c->w, &c->hb_timer, delay_ms * 1000, hb_fire, c) == 0)
		c->hb_armed = true;
}

/* see ctl.h */
int
rpmaf__ctl_heartbeat_start(struct rpmaf__ctl *c, uint32_t interval_ms, uint32_t misses)
{
	if (c->hb_armed) {
		(void)rpmaf_worker_timer_cancel(c->w, &c->hb_timer);
		c->hb_armed = false;
	}
	rpmaf__proto_heartbeat_init(&c->hb, interval_ms, misses, now_ms());
	if (!interval_ms)
		return 0;
	hb_arm(c);
	return c->hb_armed ? 0 : RPMAF_E_AGAIN;
}

/*
 * refuse -- the peer sent what cannot be taken (code: its local proto
 * code): tell it with an ERROR when a credit allows, then fail
 */
static void
refuse(struct rpmaf__ctl *c, int proto_code, const char *why)
{
	struct rpmaf__proto_msg m;

	c->rbuf = NULL; /* posted back by the worker on return */
	if (rpmaf__ctl_can_send(c)) {
		rpmaf__proto_session_error(&m, c->version, 0, rpmaf__proto_status_of(proto_code));
		(void)rpmaf__ctl_send(c, &m);
	}
	rpmaf__ctl_fail(c, RPMAF_E_PROTO, why);
}

/* dispatch -- a decoded message: the channel's own, or the owner's */
static void
dispatch(struct rpmaf__ctl *c, const struct rpmaf__proto_msg *m)
{
	int ret;

	switch (m->hdr.type) {
	case RPMAF__PROTO_T_HEARTBEAT:
		release(c);
		(void)send_own(c, RPMAF__PROTO_T_HEARTBEAT_REPLY, m->body.heartbeat.echo);
		return;
	case RPMAF__PROTO_T_HEARTBEAT_REPLY:
	case RPMAF__PROTO_T_CREDIT:
		return;
	default:
		break;
	}
	ret = c->ops->on_msg(c, m, c->ctx);
	if (ret < 0 && !c->failed) {
		c->rbuf = NULL;
		rpmaf__ctl_fail(c, ret, NULL);
	}
}

/*
 * own_type_ok -- a message the channel takes itself (the owner's session
 * checks the others) is in the session's version once it is known
 */
static bool
own_type_ok(const struct rpmaf__ctl *c, const struct rpmaf__proto_msg *m)
{
	unsigned t = m->hdr.type;

	if (!c->version || m->hdr.version == c->version)
		return true;
	return t != RPMAF__PROTO_T_HEARTBEAT && t != RPMAF__PROTO_T_HEARTBEAT_REPLY &&
	       t != RPMAF__PROTO_T_CREDIT;
}

/* decode -- decode the received bytes and take their credits; false: the channel failed */
static bool
decode(struct rpmaf__ctl *c, const void *buf, size_t len, struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_err err;
	char why[RPMAF__PROTO_ERR_MSG_MAX + 32];
	int ret = rpmaf__proto_msg_decode(buf, len, m, &err);

	if (ret) {
		snprintf(why, sizeof(why), "a message that does not decode: %s", err.msg);
		refuse(c, ret, why);
		return false;
	}
	if (!own_type_ok(c, m)) {
		snprintf(why, sizeof(why), "%s: header.version %u, the session's is %u",
			 rpmaf__proto_type_str(m->hdr.type), (unsigned)m->hdr.version,
			 (unsigned)c->version);
		refuse(c, RPMAF__PROTO_E_VERSION, why);
		return false;
	}
	if ((ret = rpmaf__proto_credit_received(&c->credit, m->hdr.credits))) {
		snprintf(why, sizeof(why), "%s returns %u credits it cannot owe",
			 rpmaf__proto_type_str(m->hdr.type), m->hdr.credits);
		refuse(c, ret, why);
		return false;
	}
	c->returned += m->hdr.credits;
	/* every buffer of the window owed back: the peer had no credit to send this */
	if (c->credit.owed >= c->credit.window) {
		snprintf(why, sizeof(why), "%s sent with no credit left (window %u)",
			 rpmaf__proto_type_str(m->hdr.type), c->credit.window);
		refuse(c, RPMAF__PROTO_E_CREDITS, why);
		return false;
	}
	return true;
}

/* see ctl.h */
int
rpmaf__ctl_recv(struct rpmaf__ctl *c, const struct ibv_wc *wc, void *buf)
{
	struct rpmaf__proto_msg m;
	char why[64];

	if (c->failed || !c->wconn)
		return RPMAF_RECV_DONE;
	if (wc->status != IBV_WC_SUCCESS) {
		snprintf(why, sizeof(why), "a receive failed: status %d", (int)wc->status);
		rpmaf__ctl_fail(
		    c, wc->status == IBV_WC_LOC_LEN_ERR ? RPMAF_E_PROTO : RPMAF_E_CONNLOST, why);
		return RPMAF_RECV_DONE;
	}
	c->rbuf = buf;
	if (!decode(c, buf, wc->byte_len, &m))
		return RPMAF_RECV_DONE;
	c->received++;
	rpmaf__proto_heartbeat_received(&c->hb, now_ms());
	dispatch(c, &m);
	if (c->failed)
		return RPMAF_RECV_DONE; /* c may be finished: touch nothing */
	release(c);
	credit_update(c);
	if (!c->failed && m.hdr.credits && c->ops->on_writable)
		c->ops->on_writable(c, c->ctx);
	return RPMAF_RECV_DONE; /* released above: the worker has nothing left to post */
}

/* inflight_take -- remove buf from the sends in flight; false when it is not one */
static bool
inflight_take(struct rpmaf__ctl *c, const void *buf)
{
	for (uint32_t i = 0; i < c->ninflight; i++) {
		if (c->inflight[i] != buf)
			continue;
		c->inflight[i] = c->inflight[--c->ninflight];
		return true;
	}
	return false;
}

/*
 * send_failed -- a send of the channel completed in error: the channel
 * fails. A send flushed (the queue pair went to the error state: the peer
 * disconnected, or the connection broke) goes to debug when the owner
 * reports the connection's end itself (flush_quiet), so that a thousand
 * clients stopping make no thousand warnings.
 */
static void
send_failed(struct rpmaf__ctl *c, const struct ibv_wc *wc)
{
	char why[64];

	snprintf(why, sizeof(why), "a send failed: status %d", (int)wc->status);
	c->flushed = wc->status == IBV_WC_WR_FLUSH_ERR;
	if (!c->flushed || !c->flush_quiet) {
		rpmaf__ctl_fail(c, RPMAF_E_CONNLOST, why);
		return;
	}
	rpmaf__wlog(c->log, RPMAF_LOG_DEBUG, "ctl %s: %s (flushed: the connection went away)",
		    c->peer, why);
	rpmaf__ctl_fail(c, RPMAF_E_CONNLOST, NULL);
}

/* see ctl.h */
bool
rpmaf__ctl_take_wc(struct rpmaf__ctl *c, const struct ibv_wc *wc)
{
	void *buf = (void *)(uintptr_t)wc->wr_id;

	if (!c->inflight || !inflight_take(c, buf))
		return false;
	(void)rpmaf_worker_buf_put(c->w, buf);
	if (c->failed)
		return true;
	if (wc->status != IBV_WC_SUCCESS) {
		send_failed(c, wc);
		return true;
	}
	credit_update(c);
	if (!c->failed && c->ops->on_writable)
		c->ops->on_writable(c, c->ctx);
	return true;
}

/* see ctl.h */
bool
rpmaf__ctl_idle(const struct rpmaf__ctl *c)
{
	return c->ninflight == 0;
}

/* see ctl.h */
void
rpmaf__ctl_fini(struct rpmaf__ctl *c)
{
	if (!c->inflight)
		return;
	if (c->hb_armed) {
		(void)rpmaf_worker_timer_cancel(c->w, &c->hb_timer);
		c->hb_armed = false;
	}
	for (uint32_t i = 0; i < c->ninflight; i++)
		(void)rpmaf_worker_buf_put(c->w, c->inflight[i]);
	c->ninflight = 0;
	free(c->inflight);
	c->inflight = NULL;
	c->rbuf = NULL;
	c->wconn = NULL;
	c->failed = true;
}
