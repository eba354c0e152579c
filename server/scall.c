// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * scall.c -- application calls answered later (see scall.h).
 */

#include <stdlib.h>
#include <string.h>

#include "../workers/worker.h"
#include "scall.h"
#include "sconn.h"

/* release -- the call is done with (answer sent or dropped): free it, and its connection if last */
static void
release(struct rpmaf_call *call)
{
	struct rpmaf__sconn *sc = call->sc;

	atomic_fetch_sub(&sc->srv->pending, 1);
	free(call);
	sc->ncalls--;
	rpmaf__sconn_maybe_free(sc);
}

/* fill -- the APP_REPLY carrying call's answer */
static void
fill(const struct rpmaf_call *call, struct rpmaf__proto_msg *out)
{
	rpmaf__sconn_msg_init(call->sc, RPMAF__PROTO_T_APP_REPLY, call->req_id, out);
	out->body.app_reply.handler_id = call->handler_id;
	if (call->status) {
		out->body.app_reply.status = RPMAF__PROTO_S_APP_FAILED;
		return;
	}
	out->body.app_reply.payload = call->len ? call->reply : NULL;
	out->body.app_reply.payload_len = call->len;
}

/* see scall.h */
int
rpmaf__scall_send(struct rpmaf__sconn *sc)
{
	struct rpmaf_call *call = sc->calls_head;
	uint64_t req_id = call->req_id;
	struct rpmaf__proto_msg out;
	int ret;

	fill(call, &out);
	if ((ret = rpmaf__ctl_send(&sc->ctl, &out)) == RPMAF_E_AGAIN)
		return ret;
	if (!ret)
		rpmaf__srv_count(&sc->srv->st.requests, 1);
	if (!(sc->calls_head = call->next))
		sc->calls_tail = NULL;
	release(call);
	/* as an answer made at once (serve.c): the client must not wait for it in vain */
	if (ret == RPMAF_E_INVAL)
		rpmaf__sconn_refuse(sc, RPMAF__PROTO_S_INTERNAL, req_id, &sc->srv->st.proto_errors,
				    "an answer does not encode");
	return 0;
}

/* see scall.h */
void
rpmaf__scall_drop_all(struct rpmaf__sconn *sc)
{
	struct rpmaf_call *call;

	while ((call = sc->calls_head)) {
		sc->calls_head = call->next;
		release(call);
	}
	sc->calls_tail = NULL;
}

/* arrive -- a submitted function: the answer reached the connection's worker */
static void
arrive(struct rpmaf_worker *w, void *arg)
{
	struct rpmaf_call *call = arg;
	struct rpmaf__sconn *sc = call->sc;

	rpmaf__srv_handler_record(sc->srv, w, call->h, rpmaf__now_ns() - call->start_ns);
	if (sc->closing) {
		release(call);
		return;
	}
	call->next = NULL;
	if (sc->calls_tail)
		sc->calls_tail->next = call;
	else
		sc->calls_head = call;
	sc->calls_tail = call;
	rpmaf__sconn_flush(sc);
}

/* fail_now -- answer APP_FAILED at once: the call could not be made */
static int
fail_now(struct rpmaf__sconn *sc, const struct rpmaf__proto_msg *m)
{
	struct rpmaf__proto_msg out;
	int ret;

	rpmaf__sconn_msg_init(sc, RPMAF__PROTO_T_APP_REPLY, m->hdr.req_id, &out);
	out.body.app_reply.handler_id = m->body.app_req.handler_id;
	out.body.app_reply.status = RPMAF__PROTO_S_APP_FAILED;
	if ((ret = rpmaf__ctl_send(&sc->ctl, &out)) == RPMAF_E_AGAIN)
		return ret;
	rpmaf__wlog(sc->srv->log, RPMAF_LOG_WARNING,
		    "server: %s: handler %u: no memory for the call", sc->peer,
		    m->body.app_req.handler_id);
	return 0;
}

/* see scall.h */
int
rpmaf__scall_start(struct rpmaf__sconn *sc, const struct rpmaf__proto_msg *m,
		   const struct rpmaf__srv_handler *h)
{
	size_t size = sc->ctl.peer_msg_size < sc->msg_size ? sc->ctl.peer_msg_size : sc->msg_size;
	size_t max = size - RPMAF__PROTO_APP_REPLY_PAYLOAD_OFF;
	struct rpmaf_call *call = malloc(sizeof(*call) + max);

	if (!call)
		return fail_now(sc, m);
	memset(call, 0, sizeof(*call));
	call->sc = sc;
	call->conn_id = sc->id;
	call->req_id = m->hdr.req_id;
	call->handler_id = m->body.app_req.handler_id;
	call->h = h;
	call->start_ns = rpmaf__now_ns();
	call->max = max;
	sc->ncalls++;
	atomic_fetch_add(&sc->srv->pending, 1);
	rpmaf__srv_count(&sc->srv->st.app_requests, 1);
	h->call_fn(call, call->handler_id, m->body.app_req.payload, m->body.app_req.payload_len,
		   h->arg);
	return 0;
}

/* see rpmaf.h */
int
rpmaf_call_reply(struct rpmaf_call *call, int status, const void *reply, size_t len)
{
	if (!call || (len && !reply && !status) || status > 0)
		return RPMAF_E_INVAL;
	if (atomic_exchange(&call->answered, 1))
		return RPMAF_E_INVAL;
	if (!status && len > call->max) {
		rpmaf__wlog(call->sc->srv->log, RPMAF_LOG_WARNING,
			    "server: handler %u: a reply of %zu bytes, at most %zu fit",
			    call->handler_id, len, call->max);
		status = RPMAF_E_INVAL;
	}
	call->status = status;
	call->len = status ? 0 : len;
	if (call->len)
		memcpy(call->reply, reply, len);
	(void)rpmaf_worker_submit(call->sc->w, &call->work, arrive, call);
	return 0;
}

/* see rpmaf.h */
uint64_t
rpmaf_call_conn_id(const struct rpmaf_call *call)
{
	return call ? call->conn_id : 0;
}

/* see rpmaf.h */
size_t
rpmaf_call_reply_max(const struct rpmaf_call *call)
{
	return call ? call->max : 0;
}
