// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * serve.c -- the requests of a ready connection: the region list (paged),
 * a region lookup, a persist (GPSPM), an application call and the list of
 * the handlers with flags (paged, protocol version 2).
 */

#include <string.h>

#include "../proto/list.h"
#include "../workers/worker.h"
#include "scall.h"
#include "sconn.h"

/* page -- build the page of s that m asks for in scratch; its length or a proto code */
static int
page(struct rpmaf__sconn *sc, const struct rpmaf__sregsnap *s, const struct rpmaf__proto_msg *m,
     uint8_t *scratch, size_t size)
{
	struct rpmaf__proto_list_builder b;
	struct rpmaf__proto_region e;
	struct rpmaf__proto_msg h;
	uint32_t start = m->body.list_req.start;
	int ret;

	rpmaf__sconn_msg_init(sc, RPMAF__PROTO_T_REGION_LIST, m->hdr.req_id, &h);
	ret = rpmaf__proto_list_begin(&b, scratch, size, &h.hdr, s->generation, s->n, start,
				      m->body.list_req.max_entries, NULL);
	for (uint32_t i = start; !ret && i < s->n; i++) {
		rpmaf__sregion_entry(s->v[i], &e);
		if (rpmaf__proto_list_add(&b, &e, NULL))
			break;
	}
	return ret ? ret : rpmaf__proto_list_end(&b, NULL);
}

/*
 * list_status -- build the page m asks for in scratch and decode it into
 * out (which then points into scratch, not into the table): OK, or the
 * session error to answer. Copies what it needs inside one read-side
 * section; worker thread.
 */
static uint32_t
list_status(struct rpmaf__sconn *sc, const struct rpmaf__proto_msg *m, uint8_t *scratch,
	    size_t size, struct rpmaf__proto_msg *out)
{
	const struct rpmaf__sregsnap *s = rpmaf__sregtab_read_lock(&sc->srv->regs);
	uint32_t status = RPMAF__PROTO_S_OK;
	int len;

	if (m->body.list_req.start > s->n)
		status = RPMAF__PROTO_S_OUT_OF_RANGE;
	else if ((len = page(sc, s, m, scratch, size)) < 0 ||
		 rpmaf__proto_msg_decode(scratch, (size_t)len, out, NULL))
		status = RPMAF__PROTO_S_INTERNAL;
	rpmaf__sregtab_read_unlock();
	return status;
}

/* list -- REGION_LIST_REQ: a page of the table, as many entries as fit */
static int
list(struct rpmaf__sconn *sc, const struct rpmaf__proto_msg *m)
{
	uint8_t *scratch = sc->srv->wst[rpmaf_worker_index(sc->w)].scratch;
	size_t size = sc->ctl.peer_msg_size < sc->msg_size ? sc->ctl.peer_msg_size : sc->msg_size;
	struct rpmaf__proto_msg out;
	uint32_t status = list_status(sc, m, scratch, size, &out);

	if (status != RPMAF__PROTO_S_OK)
		rpmaf__proto_session_error(&out, sc->sess.version, m->hdr.req_id, status);
	return rpmaf__sconn_reply(sc, &out);
}

/*
 * lookup -- REGION_LOOKUP_REQ: the entry of one region, or NOT_FOUND (the
 * reply points into the region: it is encoded inside the read-side section)
 */
static int
lookup(struct rpmaf__sconn *sc, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf__sregsnap *s;
	const struct rpmaf__sregion *r;
	struct rpmaf__proto_msg out;
	int ret;

	rpmaf__sconn_msg_init(sc, RPMAF__PROTO_T_REGION_LOOKUP_REPLY, m->hdr.req_id, &out);
	s = rpmaf__sregtab_read_lock(&sc->srv->regs);
	r = rpmaf__sregtab_find(s, m->body.lookup_req.name, m->body.lookup_req.name_len);
	if (r) {
		rpmaf__sregion_entry(r, &out.body.lookup_reply.region);
		/* the region's counters are its own atomics: counting changes nothing else */
		rpmaf__srv_count(&((struct rpmaf__sregion *)r)->lookups, 1);
	} else
		out.body.lookup_reply.status = RPMAF__PROTO_S_NOT_FOUND;
	ret = rpmaf__sconn_reply(sc, &out);
	rpmaf__sregtab_read_unlock();
	return ret;
}

/*
 * persist_now -- persist the checked range of r at once, counted for the
 * server and the region and timed on this worker
 */
static void
persist_now(struct rpmaf__sconn *sc, struct rpmaf__sregion *r,
	    const struct rpmaf__proto_persist_req *p)
{
	uint64_t t0 = rpmaf__now_ns();

	rpmaf__sregion_persist(r, p->offset, p->length);
	rpmaf__hist_record(&sc->srv->wst[rpmaf_worker_index(sc->w)].persist_lat,
			   rpmaf__now_ns() - t0);
	rpmaf__srv_count(&sc->srv->st.persists, 1);
	rpmaf__srv_count(&sc->srv->st.persist_bytes, p->length);
	rpmaf__srv_count(&r->persists, 1);
	rpmaf__srv_count(&r->persist_bytes, p->length);
}

/*
 * persist -- PERSIST_REQ (GPSPM): persist the range, answer its status. A
 * region mapped at page granularity (an msync() a persist) joins the
 * worker's group of the turn, answered once the group is durable
 * (sgroup.h); any other is persisted and answered at once. The data path:
 * the region is found and persisted (or collected) inside one read-side
 * section, no lock taken, nothing allocated.
 */
static int
persist(struct rpmaf__sconn *sc, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf__proto_persist_req *p = &m->body.persist_req;
	struct rpmaf__sgroup *g = &sc->srv->wst[rpmaf_worker_index(sc->w)].group;
	const struct rpmaf__sregsnap *s;
	struct rpmaf__sregion *r;
	struct rpmaf__proto_msg out;
	int ret;

	rpmaf__sconn_msg_init(sc, RPMAF__PROTO_T_PERSIST_REPLY, m->hdr.req_id, &out);
	s = rpmaf__sregtab_read_lock(&sc->srv->regs);
	r = rpmaf__sregtab_find(s, p->name, p->name_len);
	out.body.persist_reply.status = rpmaf__sgroup_check(r, p->generation, p->offset, p->length);
	if (out.body.persist_reply.status == RPMAF__PROTO_S_OK && rpmaf__sgroup_wants(g, r)) {
		ret = rpmaf__sgroup_add(g, sc, m, r, s->generation);
		rpmaf__sregtab_read_unlock();
		/* collected: its credit goes back with its reply (m is used no more) */
		if (!ret && !sc->closing)
			(void)rpmaf__ctl_hold(&sc->ctl);
		return ret;
	}
	if (out.body.persist_reply.status == RPMAF__PROTO_S_OK)
		persist_now(sc, r, p);
	rpmaf__sregtab_read_unlock();
	return rpmaf__sconn_reply(sc, &out);
}

/* app -- APP_REQ: run the handler with its reply built in place in the send buffer */
static int
app(struct rpmaf__sconn *sc, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf__proto_app_req *q = &m->body.app_req;
	const struct rpmaf__srv_handler *h = rpmaf__srv_handler_find(sc->srv, q->handler_id);
	uint64_t t0 = rpmaf__now_ns();
	struct rpmaf__proto_msg out;
	size_t size, len = 0;
	uint8_t *buf;
	int ret;

	rpmaf__sconn_msg_init(sc, RPMAF__PROTO_T_APP_REPLY, m->hdr.req_id, &out);
	out.body.app_reply.handler_id = q->handler_id;
	if (!h) {
		out.body.app_reply.status = RPMAF__PROTO_S_NO_HANDLER;
		if ((ret = rpmaf__sconn_reply(sc, &out)) == 0)
			rpmaf__srv_count(&sc->srv->st.app_requests, 1);
		return ret;
	}
	if (h->call_fn)
		return rpmaf__scall_start(sc, m, h);
	if ((ret = rpmaf__ctl_prepare(&sc->ctl, (void **)&buf, &size)))
		return ret == RPMAF_E_AGAIN ? ret : 0;
	rpmaf__srv_count(&sc->srv->st.app_requests, 1);
	size -= RPMAF__PROTO_APP_REPLY_PAYLOAD_OFF;
	ret = h->fn(q->handler_id, q->payload, q->payload_len,
		    buf + RPMAF__PROTO_APP_REPLY_PAYLOAD_OFF, size, &len, h->arg);
	if (ret < 0 || len > size) {
		rpmaf__wlog(sc->srv->log, RPMAF_LOG_WARNING,
			    "server: %s: handler %u failed: %d (reply of %zu bytes)", sc->peer,
			    q->handler_id, ret, len);
		out.body.app_reply.status = RPMAF__PROTO_S_APP_FAILED;
		len = 0;
	}
	out.body.app_reply.payload = len ? buf + RPMAF__PROTO_APP_REPLY_PAYLOAD_OFF : NULL;
	out.body.app_reply.payload_len = len;
	if (!rpmaf__ctl_commit(&sc->ctl, buf, &out))
		rpmaf__srv_count(&sc->srv->st.requests, 1);
	rpmaf__srv_handler_record(sc->srv, sc->w, h, rpmaf__now_ns() - t0);
	return 0;
}

/*
 * handlers -- HANDLER_LIST_REQ: a page of the handlers with flags, as many
 * entries as fit the smaller of both sides' buffers, built in the worker's
 * scratch buffer (the list is constant once the server started)
 */
static int
handlers(struct rpmaf__sconn *sc, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf_server *srv = sc->srv;
	uint8_t *scratch = srv->wst[rpmaf_worker_index(sc->w)].scratch;
	size_t size = sc->ctl.peer_msg_size < sc->msg_size ? sc->ctl.peer_msg_size : sc->msg_size;
	uint32_t start = m->body.handler_list_req.start, n = 0;
	size_t fit = (size - RPMAF__PROTO_HANDLER_LIST_ENTRIES_OFF) / RPMAF__PROTO_HANDLER_ENTRY;
	struct rpmaf__proto_msg out;

	if (start > srv->nlisted) {
		rpmaf__proto_session_error(&out, sc->sess.version, m->hdr.req_id,
					   RPMAF__PROTO_S_OUT_OF_RANGE);
		return rpmaf__sconn_reply(sc, &out);
	}
	for (uint32_t i = start; i < srv->nlisted && n < fit; i++, n++)
		rpmaf__proto_handler_entry_put(scratch + (size_t)n * RPMAF__PROTO_HANDLER_ENTRY,
					       srv->listed[i].id, srv->listed[i].flags);
	rpmaf__sconn_msg_init(sc, RPMAF__PROTO_T_HANDLER_LIST, m->hdr.req_id, &out);
	out.body.handler_list = (struct rpmaf__proto_handler_list){
	    srv->nlisted, start, n, scratch, (size_t)n * RPMAF__PROTO_HANDLER_ENTRY};
	return rpmaf__sconn_reply(sc, &out);
}

/* see sconn.h */
int
rpmaf__sconn_serve(struct rpmaf__sconn *sc, const struct rpmaf__proto_msg *m)
{
	switch (m->hdr.type) {
	case RPMAF__PROTO_T_REGION_LIST_REQ:
		return list(sc, m);
	case RPMAF__PROTO_T_REGION_LOOKUP_REQ:
		return lookup(sc, m);
	case RPMAF__PROTO_T_PERSIST_REQ:
		return persist(sc, m);
	case RPMAF__PROTO_T_APP_REQ:
		return app(sc, m);
	case RPMAF__PROTO_T_HANDLER_LIST_REQ:
		return handlers(sc, m);
	default:
		rpmaf__sconn_refuse(sc, RPMAF__PROTO_S_UNEXPECTED, m->hdr.req_id,
				    &sc->srv->st.proto_errors, "a message only a server sends");
		return 0;
	}
}
