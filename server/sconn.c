// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * sconn.c -- a client connection of a server: attach, session, queues,
 * close (see sconn.h; the requests themselves are served in serve.c).
 */

#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librpma.h>

#include "scall.h"
#include "sconn.h"

/* how long an ERROR may take to reach the client before the connection is closed anyway */
#define LINGER_MS 500

/*
 * how long the disconnect of a client whose sends were flushed may take to
 * arrive (a thousand clients stopping at once queue their disconnects)
 * before the connection is closed as lost
 */
#define AWAIT_MS 5000

/*
 * addr_of -- the client's address and port, as the log names it:
 * ADDRESS:PORT for IPv4, [ADDRESS]:PORT for IPv6 (from librpma: the
 * framework asks nothing of the connection manager itself)
 */
static void
addr_of(struct rpma_conn *conn, char *buf, size_t len)
{
	struct sockaddr_storage sa;
	char host[NI_MAXHOST], port[NI_MAXSERV];
	socklen_t salen = sizeof(struct sockaddr_in6);

	if (rpma_conn_get_peer_addr(conn, &sa) ||
	    (sa.ss_family != AF_INET && sa.ss_family != AF_INET6)) {
		snprintf(buf, len, "(address unknown)");
		return;
	}
	if (sa.ss_family == AF_INET)
		salen = sizeof(struct sockaddr_in);
	if (getnameinfo((struct sockaddr *)&sa, salen, host, sizeof(host), port, sizeof(port),
			NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(buf, len, "(address unknown)");
		return;
	}
	snprintf(buf, len, sa.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, port);
}

/* wlog_of -- the server's log */
static const struct rpmaf__wlog *
wlog_of(const struct rpmaf__sconn *sc)
{
	return sc->srv->log;
}

/* list_unlink -- take sc out of its worker's list */
static void
list_unlink(struct rpmaf__sconn *sc)
{
	struct rpmaf__srv_wstate *ws = &sc->srv->wst[rpmaf_worker_index(sc->w)];

	if (sc->prev)
		sc->prev->next = sc->next;
	else if (ws->conns == sc)
		ws->conns = sc->next;
	if (sc->next)
		sc->next->prev = sc->prev;
	sc->next = sc->prev = NULL;
}

/* see sconn.h */
void
rpmaf__sconn_maybe_free(struct rpmaf__sconn *sc)
{
	struct rpmaf_server *srv = sc->srv;

	if (!sc->freeing || sc->ncalls)
		return;
	if (sc->held)
		atomic_fetch_sub(&srv->held, 1);
	free(sc->pend);
	free(sc->pend_len);
	free(sc->preply);
	free(sc);
	atomic_fetch_sub(&srv->nobjs, 1);
}

/* sconn_free -- a submitted function: the memory of a closed connection, once its calls are done */
static void
sconn_free(struct rpmaf_worker *w, void *arg)
{
	struct rpmaf__sconn *sc = arg;

	(void)w;
	sc->freeing = true;
	/* a stop does not wait for the application's answers: it counts what they hold */
	if (sc->ncalls) {
		sc->held = true;
		atomic_fetch_add(&sc->srv->held, 1);
	}
	rpmaf__sconn_maybe_free(sc);
}

/*
 * sconn_close -- close the connection now (from any of its callbacks):
 * log why (at debug: the log sums the closes up, counted as kind),
 * give back what the channel holds, free it later
 */
static void
sconn_close(struct rpmaf__sconn *sc, const char *why, enum rpmaf__churn_kind kind)
{
	if (sc->closed)
		return;
	sc->closed = sc->closing = true;
	if (sc->timer_armed)
		(void)rpmaf_worker_timer_cancel(sc->w, &sc->timer);
	sc->timer_armed = false;
	if (sc->wconn)
		(void)rpmaf_wconn_close(&sc->wconn);
	/* its persists collected in this turn will not be answered */
	rpmaf__sgroup_drop(&sc->srv->wst[rpmaf_worker_index(sc->w)].group, sc);
	if (sc->ctl_ok)
		rpmaf__ctl_fini(&sc->ctl);
	list_unlink(sc);
	atomic_fetch_sub(&sc->srv->pending, sc->npend + sc->npreply);
	sc->npend = sc->npreply = 0;
	rpmaf__scall_drop_all(sc);
	/* noted before it is uncounted: the acceptor reads the count first (acceptor.c) */
	rpmaf__churn_note(&sc->srv->churn, kind);
	atomic_fetch_sub(&sc->srv->nconns, 1);
	rpmaf__wlog(wlog_of(sc), RPMAF_LOG_DEBUG, "server: %s closed: %s", sc->peer, why);
	if (sc->ready && sc->srv->closed_fn)
		sc->srv->closed_fn(sc->id, sc->srv->closed_arg);
	(void)rpmaf_worker_submit(sc->w, &sc->work, sconn_free, sc);
}

/* timer_fire -- the handshake took too long, or the ERROR's linger is over */
static void
timer_fire(struct rpmaf_worker *w, struct rpmaf_timer *t, void *arg)
{
	struct rpmaf__sconn *sc = arg;

	(void)w;
	(void)t;
	sc->timer_armed = false;
	if (sc->awaiting) {
		rpmaf__srv_count(&sc->srv->st.lost, 1);
		sconn_close(sc, "lost", RPMAF__CHURN_LOST);
		return;
	}
	if (sc->closing) {
		sconn_close(sc,
			    sc->close_kind == RPMAF__CHURN_REFUSED
				? "refused (the ERROR did not complete in time)"
				: sc->close_why,
			    sc->close_kind);
		return;
	}
	if (!sc->ready) {
		rpmaf__srv_count(&sc->srv->st.lost, 1);
		sconn_close(sc, "no handshake within timeouts.connect_ms", RPMAF__CHURN_LOST);
	}
}

/* timer_arm -- (re)arm the connection's one timer in ms */
static void
timer_arm(struct rpmaf__sconn *sc, uint64_t ms)
{
	if (sc->timer_armed)
		(void)rpmaf_worker_timer_cancel(sc->w, &sc->timer);
	sc->timer_armed = rpmaf_worker_timer_add(sc->w, &sc->timer, ms * 1000, timer_fire, sc) == 0;
}

/*
 * close_when_sent -- close (why, counted as kind; why a static string) once
 * the channel's last send (an ERROR) has completed
 */
static void
close_when_sent(struct rpmaf__sconn *sc, const char *why, enum rpmaf__churn_kind kind)
{
	sc->closing = true;
	sc->close_why = why;
	sc->close_kind = (uint8_t)kind;
	if (rpmaf__ctl_idle(&sc->ctl))
		sconn_close(sc, why, kind);
	else
		timer_arm(sc, LINGER_MS);
}

/* see sconn.h */
void
rpmaf__sconn_refuse(struct rpmaf__sconn *sc, uint32_t status, uint64_t req_id,
		    atomic_ullong *counter, const char *why)
{
	struct rpmaf__proto_msg m;

	if (sc->closing)
		return;
	rpmaf__wlog(wlog_of(sc), RPMAF_LOG_WARNING, "server: %s refused (%s): %s", sc->peer,
		    rpmaf__proto_status_str(status), why);
	rpmaf__srv_count(counter, 1);
	if (rpmaf__ctl_can_send(&sc->ctl)) {
		rpmaf__proto_session_error(&m, sc->sess.version, req_id, status);
		(void)rpmaf__ctl_send(&sc->ctl, &m);
	}
	close_when_sent(sc, "refused", RPMAF__CHURN_REFUSED);
}

/* see sconn.h: every answer and announcement starts alike, so its header is made in one place */
void
rpmaf__sconn_msg_init(const struct rpmaf__sconn *sc, enum rpmaf__proto_type type, uint64_t req_id,
		      struct rpmaf__proto_msg *out)
{
	memset(out, 0, sizeof(*out));
	out->hdr.version = sc->sess.version;
	out->hdr.type = (uint8_t)type;
	out->hdr.req_id = req_id;
}

/* see sconn.h: the requests served at once and the persist replies sent late end alike */
int
rpmaf__sconn_reply(struct rpmaf__sconn *sc, struct rpmaf__proto_msg *out)
{
	int ret = rpmaf__ctl_send(&sc->ctl, out);

	if (ret == RPMAF_E_AGAIN)
		return ret;
	if (!ret)
		rpmaf__srv_count(&sc->srv->st.requests, 1);
	else if (ret == RPMAF_E_INVAL)
		rpmaf__sconn_refuse(sc, RPMAF__PROTO_S_INTERNAL, out->hdr.req_id,
				    &sc->srv->st.proto_errors, "the reply does not encode");
	return 0;
}

/* send_ann -- send the oldest announcement waiting; RPMAF_E_AGAIN when it cannot go now */
static int
send_ann(struct rpmaf__sconn *sc)
{
	struct rpmaf__sconn_ann *a = &sc->ann[sc->ann_head];
	struct rpmaf__proto_msg m;
	int ret;

	rpmaf__sconn_msg_init(sc, RPMAF__PROTO_T_ANNOUNCE, 0, &m);
	m.body.announce.table_generation = a->table_generation;
	m.body.announce.event = a->event;
	m.body.announce.region = a->region;
	m.body.announce.region.name = a->name;
	m.body.announce.region.desc = a->region.desc_len ? a->desc : NULL;
	if ((ret = rpmaf__ctl_send(&sc->ctl, &m)) == RPMAF_E_AGAIN)
		return ret;
	if (!ret)
		rpmaf__srv_count(&sc->srv->st.announcements, 1);
	if (!ret && a->event != RPMAF__PROTO_EV_ADDED) {
		sc->cf_sent_gen = a->table_generation;
		sc->cf_sent_seq = sc->ctl.sent;
	}
	sc->ann_head = (sc->ann_head + 1) % RPMAF__SCONN_ANN_MAX;
	sc->nann--;
	return 0;
}

/* serve_pending -- answer the oldest request waiting; RPMAF_E_AGAIN when it cannot go now */
static int
serve_pending(struct rpmaf__sconn *sc)
{
	uint8_t *raw = sc->pend + (size_t)sc->pend_head * sc->msg_size;
	struct rpmaf__proto_msg m;
	int ret = 0;

	/* its credit goes back with its answer (a persist collected holds it again) */
	rpmaf__ctl_unhold(&sc->ctl);
	/* it decoded when it came */
	if (!rpmaf__proto_msg_decode(raw, sc->pend_len[sc->pend_head], &m, NULL) &&
	    (ret = rpmaf__sconn_serve(sc, &m)) == RPMAF_E_AGAIN) {
		(void)rpmaf__ctl_hold(&sc->ctl);
		return ret;
	}
	if (sc->closed)
		return 0;
	sc->pend_head = (sc->pend_head + 1) % sc->pend_cap;
	sc->npend--;
	atomic_fetch_sub(&sc->srv->pending, 1);
	return 0;
}

/* preply_send -- the PERSIST_REPLY of p; RPMAF_E_AGAIN when it cannot go now */
static int
preply_send(struct rpmaf__sconn *sc, const struct rpmaf__sconn_preply *p)
{
	struct rpmaf__proto_msg out;
	int ret;

	rpmaf__sconn_msg_init(sc, RPMAF__PROTO_T_PERSIST_REPLY, p->req_id, &out);
	out.body.persist_reply.status = p->status;
	/* the credit its request held goes back with it (or is held again) */
	rpmaf__ctl_unhold(&sc->ctl);
	if ((ret = rpmaf__sconn_reply(sc, &out)) == RPMAF_E_AGAIN)
		(void)rpmaf__ctl_hold(&sc->ctl);
	return ret;
}

/* send_preply -- the oldest persist reply waiting; RPMAF_E_AGAIN when it cannot go now */
static int
send_preply(struct rpmaf__sconn *sc)
{
	int ret = preply_send(sc, &sc->preply[sc->preply_head]);

	if (ret || sc->closed)
		return ret;
	sc->preply_head = (sc->preply_head + 1) % sc->preply_cap;
	sc->npreply--;
	atomic_fetch_sub(&sc->srv->pending, 1);
	return 0;
}

/* see sconn.h */
void
rpmaf__sconn_persist_reply(struct rpmaf__sconn *sc, uint64_t req_id, uint32_t status)
{
	struct rpmaf__sconn_preply p = {req_id, status};

	if (sc->closing)
		return;
	/* in order: after those waiting */
	if (!sc->npreply && preply_send(sc, &p) != RPMAF_E_AGAIN)
		return;
	if (sc->npreply == sc->preply_cap) {
		rpmaf__sconn_refuse(sc, RPMAF__PROTO_S_BUSY, req_id, &sc->srv->st.proto_errors,
				    "more persists than its window while it returns no credit");
		return;
	}
	sc->preply[(sc->preply_head + sc->npreply) % sc->preply_cap] = p;
	sc->npreply++;
	atomic_fetch_add(&sc->srv->pending, 1);
}

/*
 * see sconn.h: persist replies first (their requests came before any
 * waiting), then requests, then announcements, then answers of calls
 */
void
rpmaf__sconn_flush(struct rpmaf__sconn *sc)
{
	while (!sc->closing && (sc->npreply || sc->npend || sc->nann || sc->calls_head) &&
	       rpmaf__ctl_can_send(&sc->ctl)) {
		int ret = sc->npreply ? send_preply(sc)
			  : sc->npend ? serve_pending(sc)
			  : sc->nann  ? send_ann(sc)
				      : rpmaf__scall_send(sc);

		if (ret)
			break;
	}
}

/* enqueue -- keep request m (in the receive buffer) until a credit comes */
static void
enqueue(struct rpmaf__sconn *sc, const struct rpmaf__proto_msg *m)
{
	size_t len = RPMAF__PROTO_HDR_SIZE + (size_t)m->hdr.body_len;
	uint32_t i = (sc->pend_head + sc->npend) % sc->pend_cap;

	if (sc->npend == sc->pend_cap || len > sc->msg_size) {
		rpmaf__sconn_refuse(sc, RPMAF__PROTO_S_BUSY, m->hdr.req_id,
				    &sc->srv->st.proto_errors,
				    "more requests than its window while it returns no credit");
		return;
	}
	memcpy(sc->pend + (size_t)i * sc->msg_size, sc->ctl.rbuf, len);
	sc->pend_len[i] = (uint32_t)len;
	sc->npend++;
	/* its credit waits for its answer: no more than the window can wait here */
	(void)rpmaf__ctl_hold(&sc->ctl);
	atomic_fetch_add(&sc->srv->pending, 1);
}

/* become_ready -- the handshake is over: requests are served */
static void
become_ready(struct rpmaf__sconn *sc, const char *how)
{
	sc->ready = true;
	if (sc->timer_armed)
		(void)rpmaf_worker_timer_cancel(sc->w, &sc->timer);
	sc->timer_armed = false;
	rpmaf__wlog(wlog_of(sc), RPMAF_LOG_DEBUG, "server: %s authenticated: %s", sc->peer, how);
}

/* on_hello -- answer the accepted HELLO; start the heartbeats */
static void
on_hello(struct rpmaf__sconn *sc, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf_cfg *cfg = sc->srv->cfg;
	struct rpmaf__proto_params own = {
	    .max_msg_size = sc->msg_size,
	    .credits = cfg->queues.msg_credits,
	    .hb_interval_ms = cfg->timeouts.heartbeat_interval_ms,
	    .hb_misses = cfg->timeouts.heartbeat_misses,
	};
	struct rpmaf__proto_msg out;

	if (rpmaf__ctl_start(&sc->ctl, m->body.hello.credits, m->body.hello.max_msg_size,
			     sc->sess.version) ||
	    rpmaf__proto_server_hello_reply(&sc->sess, &own, &out) ||
	    rpmaf__ctl_send(&sc->ctl, &out)) {
		rpmaf__srv_count(&sc->srv->st.lost, 1);
		sconn_close(sc, "HELLO_REPLY could not be sent", RPMAF__CHURN_LOST);
		return;
	}
	if (rpmaf__ctl_heartbeat_start(&sc->ctl, own.hb_interval_ms, own.hb_misses))
		rpmaf__wlog(wlog_of(sc), RPMAF_LOG_WARNING, "server: %s: no timer for heartbeats",
			    sc->peer);
	if (sc->sess.state == RPMAF__PROTO_SRV_READY)
		become_ready(sc, "no key required");
}

/* on_auth -- answer the verified AUTH with the server's own proof */
static void
on_auth(struct rpmaf__sconn *sc)
{
	struct rpmaf__proto_msg out;
	char how[RPMAF__PROTO_NAME_MAX + 16];

	if (rpmaf__proto_server_auth_reply(&sc->sess, &out) || rpmaf__ctl_send(&sc->ctl, &out)) {
		rpmaf__srv_count(&sc->srv->st.lost, 1);
		sconn_close(sc, "AUTH_REPLY could not be sent", RPMAF__CHURN_LOST);
		return;
	}
	snprintf(how, sizeof(how), "key proved by %s", sc->sess.name);
	become_ready(sc, how);
}

/* refused -- the session refused m: tell the client why and close */
static void
refused(struct rpmaf__sconn *sc, const struct rpmaf__proto_msg *m, int code,
	const struct rpmaf__proto_err *err)
{
	char why[sizeof(err->msg) + RPMAF__PROTO_NAME_MAX + 16];

	if (sc->sess.status == RPMAF__PROTO_S_OK) {
		sconn_close(sc, "the client sent ERROR", RPMAF__CHURN_REFUSED);
		return;
	}
	/* a failed proof: the name it claimed too (a decoded name is printable) */
	if (m->hdr.type == RPMAF__PROTO_T_AUTH)
		snprintf(why, sizeof(why), "%s (name \"%.*s\")", err->msg,
			 (int)m->body.auth.name_len,
			 m->body.auth.name_len ? m->body.auth.name : "");
	else
		snprintf(why, sizeof(why), "%s", err->msg);
	rpmaf__sconn_refuse(sc, sc->sess.status, m->hdr.req_id,
			    code == RPMAF__PROTO_E_AUTH ? &sc->srv->st.auth_failed
							: &sc->srv->st.proto_errors,
			    why);
}

/* on_msg -- the channel's on_msg: the session first, then the request */
static int
on_msg(struct rpmaf__ctl *c, const struct rpmaf__proto_msg *m, void *ctx)
{
	struct rpmaf__sconn *sc = ctx;
	struct rpmaf__proto_err err;
	int ret;

	(void)c;
	if (sc->closing)
		return 0;
	if ((ret = rpmaf__proto_server_recv(&sc->sess, m, &err))) {
		refused(sc, m, ret, &err);
		return 0;
	}
	switch (m->hdr.type) {
	case RPMAF__PROTO_T_HELLO:
		on_hello(sc, m);
		break;
	case RPMAF__PROTO_T_AUTH:
		on_auth(sc);
		break;
	default:
		/* behind persist replies waiting for a credit too: no more is collected meanwhile
		 */
		if (sc->npend || sc->npreply || !rpmaf__ctl_can_send(&sc->ctl) ||
		    rpmaf__sconn_serve(sc, m) == RPMAF_E_AGAIN)
			enqueue(sc, m);
		break;
	}
	return 0;
}

/* on_writable -- a credit or a send buffer came back: send what waits */
static void
on_writable(struct rpmaf__ctl *c, void *ctx)
{
	(void)c;
	rpmaf__sconn_flush(ctx);
}

/*
 * on_fail -- the channel failed (the log has why): a client that broke the
 * protocol is closed after its ERROR, a silent one at once, as lost. A
 * send flushed means the queue pair went to the error state, which a
 * client's disconnect does a moment before the disconnect itself arrives:
 * that is awaited (AWAIT_MS at most), so that a client's clean stop is not
 * counted as a loss
 */
static void
on_fail(struct rpmaf__ctl *c, int code, void *ctx)
{
	struct rpmaf__sconn *sc = ctx;

	if (code == RPMAF_E_PROTO) {
		rpmaf__srv_count(&sc->srv->st.proto_errors, 1);
		close_when_sent(sc, "broke the protocol", RPMAF__CHURN_REFUSED);
		return;
	}
	if (c->flushed) {
		sc->closing = sc->awaiting = true;
		timer_arm(sc, AWAIT_MS);
		if (sc->timer_armed)
			return;
	}
	sc->awaiting = false;
	rpmaf__srv_count(&sc->srv->st.lost, 1);
	close_when_sent(sc, "lost", RPMAF__CHURN_LOST);
}

static const struct rpmaf__ctl_ops Ctl_ops = {on_msg, on_writable, on_fail};

/* w_recv -- the connection's on_recv: bind the channel (early receives come first) */
static int
w_recv(struct rpmaf_wconn *wconn, const struct ibv_wc *wc, void *buf, void *ctx)
{
	struct rpmaf__sconn *sc = ctx;

	if (!sc->ctl.wconn && !sc->closed)
		rpmaf__ctl_bind(&sc->ctl, wconn);
	return rpmaf__ctl_recv(&sc->ctl, wc, buf);
}

/* w_wc -- the connection's on_wc: the channel's sends; close once an ERROR has gone */
static void
w_wc(struct rpmaf_wconn *wconn, const struct ibv_wc *wc, void *ctx)
{
	struct rpmaf__sconn *sc = ctx;

	(void)wconn;
	if (rpmaf__ctl_on_wc(&sc->ctl, wc) && sc->closing && !sc->awaiting && !sc->closed &&
	    rpmaf__ctl_idle(&sc->ctl))
		sconn_close(sc, sc->close_why, sc->close_kind);
}

/*
 * w_event -- the connection's on_event: the client went away; a disconnect
 * is its own doing, not a loss (lost counts connections that failed
 * without one), and one while the server closes it already (after its
 * ERROR, or lost) ends that close, counted as it was
 */
static void
w_event(struct rpmaf_wconn *wconn, int event, void *ctx)
{
	struct rpmaf__sconn *sc = ctx;
	bool ending = sc->closing && !sc->awaiting;
	bool by_client = event == RPMA_CONN_CLOSED;

	(void)wconn;
	if (event == RPMA_CONN_ESTABLISHED || sc->closed)
		return;
	if (!by_client && !ending)
		rpmaf__srv_count(&sc->srv->st.lost, 1);
	sconn_close(sc, by_client ? "disconnected by the client" : "connection lost",
		    ending	? sc->close_kind
		    : by_client ? RPMAF__CHURN_BY_CLIENT
				: RPMAF__CHURN_LOST);
}

static const struct rpmaf_wconn_ops Wconn_ops = {w_wc, w_recv, w_event};

/* see sconn.h */
int
rpmaf__sconn_new(struct rpmaf_server *srv, struct rpmaf_worker *w, struct rpma_conn *conn,
		 unsigned long long seq, struct rpmaf__sconn **sc_ptr)
{
	const struct rpmaf_cfg *cfg = srv->cfg;
	struct rpmaf__sconn *sc = calloc(1, sizeof(*sc));
	char addr[INET6_ADDRSTRLEN + 16];
	int ret;

	if (!sc)
		return RPMAF_E_NOMEM;
	sc->srv = srv;
	sc->w = w;
	sc->conn = conn;
	sc->msg_size = (uint32_t)cfg->queues.msg_size;
	/* a held credit goes back only with its answer: no more than the window waits */
	sc->pend_cap = cfg->queues.msg_credits;
	sc->pend = malloc((size_t)sc->pend_cap * sc->msg_size);
	sc->pend_len = calloc(sc->pend_cap, sizeof(*sc->pend_len));
	/* a turn collects at most a poll batch and the requests that waited (see on_msg()) */
	sc->preply_cap = sc->pend_cap + (cfg->workers.batch ? cfg->workers.batch : 1);
	sc->preply = calloc(sc->preply_cap, sizeof(*sc->preply));
	if (!sc->pend || !sc->pend_len || !sc->preply) {
		ret = RPMAF_E_NOMEM;
		goto err_free;
	}
	if (rpmaf__proto_auth_nonce(sc->nonce)) {
		ret = RPMAF_E_SYS;
		goto err_free;
	}
	sc->id = seq;
	addr_of(conn, addr, sizeof(addr));
	snprintf(sc->peer, sizeof(sc->peer), "client #%llu %s (worker %u)", seq, addr,
		 rpmaf_worker_index(w));
	atomic_fetch_add(&srv->nobjs, 1);
	*sc_ptr = sc;
	return 0;

err_free:
	free(sc->pend);
	free(sc->pend_len);
	free(sc->preply);
	free(sc);
	return ret;
}

/* attach_fail -- the worker could not take the connection: undo everything */
static void
attach_fail(struct rpmaf__sconn *sc, int ret)
{
	rpmaf__wlog(wlog_of(sc), RPMAF_LOG_ERROR, "server: %s could not be attached: %s", sc->peer,
		    rpmaf_err_str(ret));
	if (sc->ctl_ok)
		rpmaf__ctl_fini(&sc->ctl);
	list_unlink(sc);
	(void)rpma_conn_disconnect(sc->conn);
	(void)rpma_conn_delete(&sc->conn);
	(void)rpmaf_worker_unreserve(sc->w);
	atomic_fetch_sub(&sc->srv->nconns, 1);
	sconn_free(sc->w, sc);
}

/* attach -- a submitted function: the worker takes the connection */
static void
attach(struct rpmaf_worker *w, void *arg)
{
	struct rpmaf__sconn *sc = arg;
	const struct rpmaf_cfg *cfg = sc->srv->cfg;
	struct rpmaf__srv_wstate *ws = &sc->srv->wst[rpmaf_worker_index(w)];
	int ret;

	if ((ret = rpmaf__ctl_init(&sc->ctl, w, cfg->queues.msg_credits, sc->msg_size,
				   cfg->queues.sq, &Ctl_ops, sc, wlog_of(sc), sc->peer))) {
		attach_fail(sc, ret);
		return;
	}
	sc->ctl_ok = true;
	sc->ctl.flush_quiet = true; /* the closes are summed up (churn.h) */
	rpmaf__proto_server_init(&sc->sess, sc->srv->has_key ? &sc->srv->key : NULL, sc->nonce);
	sc->next = ws->conns;
	if (ws->conns)
		ws->conns->prev = sc;
	ws->conns = sc;
	rpmaf__churn_note(&sc->srv->churn, RPMAF__CHURN_ACCEPTED);
	rpmaf__wlog(wlog_of(sc), RPMAF_LOG_DEBUG, "server: %s accepted", sc->peer);
	if ((ret = rpmaf_worker_attach(w, sc->conn, &Wconn_ops, sc, &sc->wconn))) {
		attach_fail(sc, ret);
		return;
	}
	sc->conn = NULL;
	if (!sc->closed && !sc->ready)
		timer_arm(sc, cfg->timeouts.connect_ms);
}

/* see sconn.h */
void
rpmaf__sconn_hand_over(struct rpmaf__sconn *sc)
{
	(void)rpmaf_worker_submit(sc->w, &sc->work, attach, sc);
}

/* see sconn.h */
void
rpmaf__sconn_ann_make(struct rpmaf__sconn_ann *a, uint32_t event, uint64_t gen,
		      const struct rpmaf__sregion *r)
{
	memset(a, 0, sizeof(*a));
	a->table_generation = gen;
	a->event = event;
	rpmaf__sregion_entry(r, &a->region);
	memcpy(a->name, r->name, r->name_len);
	if (event == RPMAF__PROTO_EV_REMOVED)
		a->region.desc_len = 0;
	else
		memcpy(a->desc, r->desc, r->desc_len);
	a->region.name = a->name;
	a->region.desc = a->region.desc_len ? a->desc : NULL;
}

/* announce -- queue a copy of a on sc and send what can go */
static void
announce(struct rpmaf__sconn *sc, const struct rpmaf__sconn_ann *a)
{
	if (!sc->ready || sc->closing)
		return;
	if (sc->nann == RPMAF__SCONN_ANN_MAX) {
		rpmaf__srv_count(&sc->srv->st.lost, 1);
		sconn_close(sc, "announcements pile up: the client returns no credit",
			    RPMAF__CHURN_LOST);
		return;
	}
	sc->ann[(sc->ann_head + sc->nann) % RPMAF__SCONN_ANN_MAX] = *a;
	sc->nann++;
	sc->ann_queued_gen = a->table_generation;
	rpmaf__sconn_flush(sc);
}

/* see sconn.h */
void
rpmaf__sconn_announce_all(struct rpmaf_server *srv, struct rpmaf_worker *w,
			  const struct rpmaf__sconn_ann *a)
{
	struct rpmaf__sconn *sc = srv->wst[rpmaf_worker_index(w)].conns, *next;

	for (; sc; sc = next) {
		next = sc->next;
		announce(sc, a);
	}
}

/* unacked -- sc was told of the removal or change at gen and has not shown it processed it */
static bool
unacked(const struct rpmaf__sconn *sc, uint64_t gen)
{
	if (!sc->ready || sc->closing || sc->ann_queued_gen < gen)
		return false;
	/* sent in order: a later removal or change sent covers this one */
	return sc->cf_sent_gen < gen || sc->ctl.returned < sc->cf_sent_seq;
}

/* see sconn.h */
unsigned
rpmaf__sconn_unacked(struct rpmaf_server *srv, struct rpmaf_worker *w, uint64_t gen)
{
	const struct rpmaf__sconn *sc = srv->wst[rpmaf_worker_index(w)].conns;
	unsigned n = 0;

	for (; sc; sc = sc->next)
		n += unacked(sc, gen);
	return n;
}

/* see sconn.h */
void
rpmaf__sconn_close_all(struct rpmaf_server *srv, struct rpmaf_worker *w)
{
	struct rpmaf__srv_wstate *ws = &srv->wst[rpmaf_worker_index(w)];

	while (ws->conns)
		sconn_close(ws->conns, "the server stops", RPMAF__CHURN_STOPPING);
}
