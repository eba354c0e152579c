// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * post.c -- an operation on its connection's worker: checked again against
 * the region table, admitted and posted (RDMA requests, or a control
 * message), queued in order while the connection has no room or credit,
 * and completed exactly once. Everything here runs on the worker's thread;
 * nothing allocates or takes a lock.
 */

#include <linux/futex.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "../workers/worker.h"
#include "pool.h"

/* track -- op is the connection's from now on (the time-out scan sees it) */
static void
track(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	o->tnext = NULL;
	o->tprev = pc->tr_tail;
	if (pc->tr_tail)
		pc->tr_tail->tnext = o;
	else
		pc->tr_head = o;
	pc->tr_tail = o;
}

/* rpmaf__pool_op_untrack -- op leaves the connection */
void
rpmaf__pool_op_untrack(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	if (o->tprev)
		o->tprev->tnext = o->tnext;
	else
		pc->tr_head = o->tnext;
	if (o->tnext)
		o->tnext->tprev = o->tprev;
	else
		pc->tr_tail = o->tprev;
	o->tprev = o->tnext = NULL;
}

/* wq_push -- op waits for room or credits, after those already waiting */
static void
wq_push(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	o->next = NULL;
	if (pc->wq_tail)
		pc->wq_tail->next = o;
	else
		pc->wq_head = o;
	pc->wq_tail = o;
}

/* wait_count -- one more operation waited: for a credit (a message) or for room */
static void
wait_count(struct rpmaf__pool_conn *pc, const struct rpmaf__pool_op *o)
{
	if (o->kind == POOL_K_CALL || o->stage == POOL_S_PERSIST ||
	    (o->persist == RPMAF__PROTO_PERSIST_GPSPM && (o->flags & RPMAF_OP_PERSIST)))
		rpmaf__ctrs_add(&pc->ctrs, RPMAF__CTR_CREDIT_STALLS, 1);
	else
		atomic_store_explicit(&pc->queued,
				      atomic_load_explicit(&pc->queued, memory_order_relaxed) + 1,
				      memory_order_relaxed);
}

/* count -- the counters and the latency of a completed operation */
static void
count(struct rpmaf__pool_conn *pc, const struct rpmaf__pool_op *o, int status)
{
	static const enum rpmaf__ctr ops[POOL_K_MAX] = {
	    RPMAF__CTR_WRITE_OPS,	RPMAF__CTR_READ_OPS,	     RPMAF__CTR_FLUSH_OPS,
	    RPMAF__CTR_WRITE_FLUSH_OPS, RPMAF__CTR_ATOMIC_WRITE_OPS, RPMAF__CTR_MSG_OPS};
	uint64_t now = rpmaf__pool_op_now_ns(), start = o->deadline_ns - pc->pool->op_ns;

	rpmaf__hist_record(&pc->lat, now > start ? now - start : 0);
	if (status) {
		rpmaf__ctrs_add(&pc->ctrs, RPMAF__CTR_ERRORS, 1);
		if (status == RPMAF_E_TIMEOUT)
			rpmaf__ctrs_add(&pc->ctrs, RPMAF__CTR_TIMEOUTS, 1);
		return;
	}
	rpmaf__ctrs_add(&pc->ctrs, ops[o->kind], 1);
	if (o->kind == POOL_K_WRITE)
		rpmaf__ctrs_add(&pc->ctrs, RPMAF__CTR_WRITE_BYTES, o->len);
	else if (o->kind == POOL_K_READ)
		rpmaf__ctrs_add(&pc->ctrs, RPMAF__CTR_READ_BYTES, o->len);
	else if (o->kind == POOL_K_WRITE_FLUSH)
		rpmaf__ctrs_add(&pc->ctrs, RPMAF__CTR_WRITE_FLUSH_BYTES, o->len);
	else if (o->kind == POOL_K_CALL) {
		rpmaf__ctrs_add(&pc->ctrs, RPMAF__CTR_MSG_BYTES_OUT, o->len);
		rpmaf__ctrs_add(&pc->ctrs, RPMAF__CTR_MSG_BYTES_IN, o->reply_len);
	}
}

/*
 * rpmaf__pool_op_complete -- the one place an operation completes: after
 * it the worker does not touch op again (it may be reused at once), but for
 * the futex wake of a waiter, which only uses the address.
 */
void
rpmaf__pool_op_complete(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o, int status)
{
	rpmaf_op_cb cb = o->cb;
	void *ctx = o->ctx;

	if (o->stage != POOL_S_IDLE)
		rpmaf__pool_op_untrack(pc, o);
	o->stage = POOL_S_IDLE;
	if (o->wflags & POOL_W_PLACE)
		rpmaf__pool_wait_release(pc, o);
	count(pc, o, status);
	o->status = status;
	if (cb) {
		atomic_store_explicit(&o->done, 1, memory_order_relaxed);
		cb((struct rpmaf_op *)(void *)o, status, ctx);
		return;
	}
	atomic_store_explicit(&o->done, 1, memory_order_release);
	(void)syscall(SYS_futex, &o->done, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* rpmaf__pool_op_find -- the tracked operation waiting for the reply to req_id */
struct rpmaf__pool_op *
rpmaf__pool_op_find(struct rpmaf__pool_conn *pc, uint64_t req_id)
{
	for (struct rpmaf__pool_op *o = pc->tr_head; o; o = o->tnext)
		if (o->stage == POOL_S_REPLY && o->req_id == req_id)
			return o;
	return NULL;
}

/* needs_msg_persist -- a write whose persistence the target grants on request (GPSPM) */
static bool
needs_msg_persist(const struct rpmaf__pool_op *o)
{
	return (o->flags & RPMAF_OP_PERSIST) && o->persist == RPMAF__PROTO_PERSIST_GPSPM;
}

/* send_failed -- a control send failed otherwise than for lack of room */
static void
send_failed(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o, int ret)
{
	if (ret == RPMAF_E_INVAL) {
		rpmaf__pool_op_complete(pc, o, RPMAF_E_REMOTE);
		return;
	}
	rpmaf__pool_conn_fail(pc, RPMAF_E_CONNLOST, o, RPMAF_E_CONNLOST, "a control send failed");
}

/* op_usage -- the RPMAF_USAGE_* bits what is left of op needs */
static unsigned
op_usage(const struct rpmaf__pool_op *o)
{
	if (o->stage == POOL_S_PERSIST || o->kind == POOL_K_FLUSH)
		return RPMAF_USAGE_FLUSH;
	if (o->kind == POOL_K_READ)
		return RPMAF_USAGE_READ;
	return RPMAF_USAGE_WRITE | (o->flags ? RPMAF_USAGE_FLUSH : 0);
}

/*
 * generation_is -- the region is still the one the operation was submitted
 * against: its generation, or a later one of the same memory (changed in
 * place) that still takes the operation (its range inside, its usage, the
 * same persistence), with which the operation goes on
 */
static bool
generation_is(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o, void **obj)
{
	const struct rpmaf__regtab_entry *e;
	bool ok;

	e = rpmaf__regtab_lookup_str(pc->pool->tab, o->name);
	/* replaced since the lookup found it (a change announced meanwhile): its successor */
	if (e && rpmaf__regtab_entry_check(e))
		e = rpmaf__regtab_lookup(pc->pool->tab, o->name, strlen(o->name));
	ok = e && rpmaf__regtab_entry_check(e) == 0 &&
	     rpmaf__regtab_entry_continues(e, o->generation) &&
	     (e->generation == o->generation ||
	      (o->offset <= e->size && o->len <= e->size - o->offset &&
	       (e->usage & op_usage(o)) == op_usage(o) && e->persist == o->persist));
	if (ok)
		o->generation = e->generation;
	if (ok && obj)
		*obj = e->obj;
	return ok;
}

/*
 * generation_ok -- generation_is(); for an operation that waited for a
 * connection, the region's newer generation, if it still holds the range,
 * is taken (the target was started again meanwhile: it listed its regions
 * anew). Call inside a read-side section (refreshing nests another).
 */
static bool
generation_ok(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o, void **obj)
{
	if (generation_is(pc, o, obj))
		return true;
	return o->wflags && rpmaf__pool_wait_refresh(pc, o) && generation_is(pc, o, obj);
}

static bool pend_flush(struct rpmaf__pool_conn *pc);

/* post_persist -- GPSPM: ask the target to persist the range (PERSIST_REQ) */
static int
post_persist(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	struct rpmaf__proto_msg m;
	bool ok;
	int ret;

	/* after the writes pending before it; when they could not all go, it waits after them */
	if (pc->pend_head && !pend_flush(pc))
		return RPMAF_E_AGAIN;
	rpmaf__regtab_read_lock();
	ok = generation_ok(pc, o, NULL);
	rpmaf__regtab_read_unlock();
	if (!ok) {
		rpmaf__pool_op_complete(pc, o, RPMAF_E_NOENT);
		return 0;
	}
	memset(&m, 0, sizeof(m));
	m.hdr.version = pc->sess.version;
	m.hdr.type = RPMAF__PROTO_T_PERSIST_REQ;
	m.hdr.req_id = pc->next_req_id;
	m.body.persist_req.offset = o->offset;
	m.body.persist_req.length = o->len;
	m.body.persist_req.generation = o->generation;
	m.body.persist_req.name = o->name;
	m.body.persist_req.name_len = (uint8_t)strlen(o->name);
	ret = rpmaf__ctl_send(&pc->ctl, &m);
	if (ret == RPMAF_E_AGAIN)
		return ret;
	if (ret) {
		send_failed(pc, o, ret);
		return 0;
	}
	o->req_id = pc->next_req_id++;
	o->stage = POOL_S_REPLY;
	return 0;
}

/* post_call -- an application call: APP_REQ built in place in the channel's buffer */
static int
post_call(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	struct rpmaf__proto_msg m;
	size_t size;
	void *buf;
	int ret;

	/* after the writes pending before it; when they could not all go, it waits after them */
	if (pc->pend_head && !pend_flush(pc))
		return RPMAF_E_AGAIN;
	if ((ret = rpmaf__ctl_prepare(&pc->ctl, &buf, &size)) == RPMAF_E_AGAIN)
		return ret;
	if (ret) {
		send_failed(pc, o, ret);
		return 0;
	}
	if (o->len > size - RPMAF__PROTO_APP_REQ_PAYLOAD_OFF) {
		rpmaf__ctl_abort(&pc->ctl, buf);
		rpmaf__pool_op_complete(pc, o, RPMAF_E_REMOTE);
		return 0;
	}
	if (o->len)
		memcpy((char *)buf + RPMAF__PROTO_APP_REQ_PAYLOAD_OFF, o->u.call.req, o->len);
	memset(&m, 0, sizeof(m));
	m.hdr.version = pc->sess.version;
	m.hdr.type = RPMAF__PROTO_T_APP_REQ;
	m.hdr.req_id = pc->next_req_id;
	m.body.app_req.handler_id = o->handler_id;
	m.body.app_req.payload = (const uint8_t *)buf + RPMAF__PROTO_APP_REQ_PAYLOAD_OFF;
	m.body.app_req.payload_len = o->len;
	if ((ret = rpmaf__ctl_commit(&pc->ctl, buf, &m))) {
		send_failed(pc, o, ret);
		return 0;
	}
	o->req_id = pc->next_req_id++;
	o->stage = POOL_S_REPLY;
	return 0;
}

/* rma_count -- how many requests op takes: a write that flushes (not by message) two */
static unsigned
rma_count(const struct rpmaf__pool_op *o)
{
	if (o->kind == POOL_K_FLUSH || o->kind == POOL_K_READ || o->kind == POOL_K_WRITE)
		return 1;
	return o->flags && !needs_msg_persist(o) ? 2 : 1;
}

/*
 * rma_post -- post the requests of op to its remote region (o->rmr), the
 * last one signaled when signal is true, else only on error; *posted says
 * how many went
 */
static inline __attribute__((always_inline)) int
rma_post(struct rpma_conn *conn, const struct rpmaf__pool_op *o, bool signal, unsigned *posted)
{
	enum rpma_flush_type type =
	    (o->flags & RPMAF_OP_PERSIST) && o->persist == RPMAF__PROTO_PERSIST_APM
		? RPMA_FLUSH_TYPE_PERSISTENT
		: RPMA_FLUSH_TYPE_VISIBILITY;
	unsigned n = rma_count(o);
	int last = signal ? RPMA_F_COMPLETION_ALWAYS : RPMA_F_COMPLETION_ON_ERROR;
	int first = n == 2 ? RPMA_F_COMPLETION_ON_ERROR : last;
	struct rpma_mr_remote *mr = o->rmr;
	int ret;

	*posted = 0;
	switch (o->kind) {
	case POOL_K_READ:
		ret = rpma_read(conn, o->u.rma.mr, o->u.rma.off, mr, o->offset, o->len, first, o);
		break;
	case POOL_K_FLUSH:
		ret = rpma_flush(conn, mr, o->offset, o->len, type, first, o);
		break;
	case POOL_K_ATOMIC:
		ret = rpma_atomic_write(conn, mr, o->offset, o->u.value, first, o);
		break;
	default:
		ret = rpma_write(conn, mr, o->offset, o->u.rma.mr, o->u.rma.off, o->len, first, o);
		break;
	}
	if (ret)
		return ret;
	*posted = 1;
	if (n == 2 && (ret = rpma_flush(conn, mr, o->offset, o->len, type, last, o)) == 0)
		*posted = 2;
	return ret;
}

/*
 * GROUPS. The RDMA requests of the operations a worker's turn collects for
 * one connection go out together at the turn's end (pend_flush(), run by
 * the worker before it sleeps or passes a quiescent state, so that the
 * remote region's object found in the read-side section stays valid):
 * admitted as one batch of the send queue's accounting (workers/credit.h)
 * and posted with only the group's last request signaled. A group holds at
 * most half the send queue's requests, so that a signaled completion frees
 * room before the queue can fill. An operation for an idle connection
 * (nothing pending, nothing in flight) goes at once, signaled, unless the
 * worker is dispatching a poll's completions of which more are to come
 * (their callbacks may add to a group): one at a time costs no more than
 * without groups. The device completes the requests of a
 * QP in order: the group's signaled completion says that every operation
 * of the group is done (rpmaf__pool_op_wc()). A failed request, signaled
 * or not, completes with its own operation and fails the connection, whose
 * teardown puts back or completes every operation still tracked, once. An
 * operation that sends a message (a call, a GPSPM persist) posts what is
 * pending first: the target sees its message after the writes before it.
 */

/* pend_room -- requests the connection can take now (its SQ, the worker's send CQ) */
static unsigned
pend_room(const struct rpmaf__pool_conn *pc)
{
	const struct rpmaf_wconn *c = pc->wconn;
	uint32_t sq = c->acct.sq.cap - c->acct.sq.used, cq = c->w->cq.cap - c->w->cq.used;

	return sq < cq ? sq : cq;
}

/*
 * post_now -- an idle connection's operation goes at once, signaled (a
 * group of one: nothing pending, nothing in flight, no more completions of
 * this poll to dispatch).
 * 0 when posted (a post that went in part fails the connection);
 * RPMAF_E_AGAIN when there is no room; 1 when the post went wrong before
 * any request went (the turn's end tries again and reports it).
 */
static int
post_now(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o, unsigned n)
{
	unsigned posted;
	int ret;

	if ((ret = rpmaf_wconn_admit(pc->wconn, n)))
		return ret == RPMAF_E_AGAIN ? ret : 1;
	if (rma_post(rpmaf_wconn_get_conn(pc->wconn), o, true, &posted) == 0) {
		o->grp = o;
		return 0;
	}
	(void)rpmaf_wconn_unadmit(pc->wconn, n - posted);
	if (!posted)
		return 1;
	rpmaf__pool_conn_fail(pc, RPMAF_E_RDMA, o, RPMAF_E_CONNLOST, "a post failed");
	return 0;
}

/*
 * defer -- op's requests to the remote region mr go out at the turn's end
 * (GROUPS), or at once on an idle connection; RPMAF_E_AGAIN when the
 * connection has no room for them (nothing done)
 */
static int
defer(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o, void *mr)
{
	unsigned n = rma_count(o);
	int ret;

	o->rmr = mr;
	if (!pc->pend_head && pc->wconn->acct.sq.used == 0 && pc->w->scq_left == 0) {
		if ((ret = post_now(pc, o, n)) == 0)
			o->stage = POOL_S_POSTED;
		if (ret <= 0)
			return ret;
	} else if (pc->pend_wrs + n > pend_room(pc)) {
		rpmaf__stat_add(&pc->w->st.refused, 1);
		return RPMAF_E_AGAIN;
	}
	o->stage = POOL_S_POSTED;
	o->next = NULL;
	if (pc->pend_tail)
		pc->pend_tail->next = o;
	else
		pc->pend_head = o;
	pc->pend_tail = o;
	pc->pend_wrs += n;
	rpmaf__worker_at_turn_end(pc->w, &pc->pend_end);
	return 0;
}

/* pend_pop -- the first pending operation leaves the list */
static void
pend_pop(struct rpmaf__pool_conn *pc)
{
	struct rpmaf__pool_op *o = pc->pend_head;

	pc->pend_wrs -= rma_count(o);
	pc->pend_head = o->next;
	if (!pc->pend_head)
		pc->pend_tail = NULL;
}

/* pend_to_wq -- no room after all: the pending operations wait, first in the wait queue */
static void
pend_to_wq(struct rpmaf__pool_conn *pc)
{
	for (struct rpmaf__pool_op *o = pc->pend_head; o; o = o->next) {
		o->stage = POOL_S_WAIT;
		wait_count(pc, o);
	}
	pc->pend_tail->next = pc->wq_head;
	if (!pc->wq_head)
		pc->wq_tail = pc->pend_tail;
	pc->wq_head = pc->pend_head;
	pc->pend_head = pc->pend_tail = NULL;
	pc->pend_wrs = 0;
}

/* group_last -- the last pending operation of the group that begins the list; *wrs its requests */
static struct rpmaf__pool_op *
group_last(const struct rpmaf__pool_conn *pc, unsigned *wrs)
{
	struct rpmaf__pool_op *last = pc->pend_head;
	unsigned limit = pc->w->sq / 2;

	*wrs = rma_count(last);
	while (last->next && *wrs + rma_count(last->next) <= limit) {
		last = last->next;
		*wrs += rma_count(last);
	}
	return last;
}

/*
 * group_failed -- the post of o, in the group that begins the pending
 * list, failed after done of the group's requests went (the others are
 * given back): the connection fails when some went, else the region
 * refuses o's request and o alone fails
 */
static void
group_failed(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o, unsigned wrs, unsigned done)
{
	(void)rpmaf_wconn_unadmit(pc->wconn, wrs - done);
	if (done) {
		rpmaf__pool_conn_fail(pc, RPMAF_E_RDMA, o, RPMAF_E_CONNLOST, "a post failed");
		return;
	}
	pend_pop(pc);
	rpmaf__pool_op_complete(pc, o, RPMAF_E_REMOTE);
}

/*
 * group_post -- admit and post the group that begins the pending list
 * (GROUPS); false when nothing more is to be posted now
 */
static bool
group_post(struct rpmaf__pool_conn *pc)
{
	struct rpmaf__pool_op *first = pc->pend_head, *o = first, *last;
	unsigned wrs, done = 0, posted;
	struct rpma_conn *conn;
	int ret;

	last = group_last(pc, &wrs);
	if ((ret = rpmaf_wconn_admit(pc->wconn, wrs))) {
		if (ret == RPMAF_E_AGAIN) {
			pend_to_wq(pc);
			return false;
		}
		pend_pop(pc);
		rpmaf__pool_op_complete(pc, first, RPMAF_E_CONNLOST);
		return true;
	}
	conn = rpmaf_wconn_get_conn(pc->wconn);
	while ((ret = rma_post(conn, o, o == last, &posted)) == 0 && o != last) {
		done += posted;
		o = o->next;
	}
	if (ret) {
		group_failed(pc, o, wrs, done + posted);
		return pc->phase == PH_READY;
	}
	pc->pend_head = last->next;
	if (!pc->pend_head)
		pc->pend_tail = NULL;
	pc->pend_wrs -= wrs;
	last->grp = first;
	return true;
}

/*
 * pend_flush -- post the pending operations, group by group; false when
 * they did not all go (no room: they wait first in the wait queue; or the
 * connection is lost)
 */
static bool
pend_flush(struct rpmaf__pool_conn *pc)
{
	while (pc->pend_head && pc->phase == PH_READY)
		if (!group_post(pc))
			return false;
	return pc->phase == PH_READY;
}

/* pend_end -- the turn's end: what it collected goes out */
static void
pend_end(struct rpmaf__turn_end *te)
{
	struct rpmaf__pool_conn *pc =
	    (struct rpmaf__pool_conn *)(void *)((char *)te -
						offsetof(struct rpmaf__pool_conn, pend_end));

	(void)pend_flush(pc);
}

/* rpmaf__pool_pend_init -- see pool.h */
void
rpmaf__pool_pend_init(struct rpmaf__pool_conn *pc)
{
	pc->pend_end.fn = pend_end;
}

/* rpmaf__pool_pend_drop -- see pool.h */
void
rpmaf__pool_pend_drop(struct rpmaf__pool_conn *pc)
{
	rpmaf__worker_turn_end_cancel(pc->w, &pc->pend_end);
	pc->pend_head = pc->pend_tail = NULL;
	pc->pend_wrs = 0;
}

/*
 * post_rma -- op's requests go out with the turn's group (GROUPS), its
 * region found in a read-side section
 */
static int
post_rma(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	void *mr = NULL;
	int ret;

	rpmaf__regtab_read_lock();
	if (!generation_ok(pc, o, &mr) || !mr) {
		rpmaf__regtab_read_unlock();
		rpmaf__pool_op_complete(pc, o, RPMAF_E_NOENT);
		return 0;
	}
	ret = defer(pc, o, mr);
	rpmaf__regtab_read_unlock();
	return ret;
}

/* sends_msg -- op's next step is a message (a persist request or a call) */
static bool
sends_msg(const struct rpmaf__pool_op *o)
{
	return o->stage == POOL_S_PERSIST || (o->kind == POOL_K_FLUSH && needs_msg_persist(o)) ||
	       o->kind == POOL_K_CALL;
}

/* op_post -- post op's next step; RPMAF_E_AGAIN when it must wait (nothing done) */
static int
op_post(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	if (o->kind == POOL_K_CALL)
		return post_call(pc, o);
	if (sends_msg(o))
		return post_persist(pc, o);
	return post_rma(pc, o);
}

/*
 * rpmaf__pool_op_direct -- post op at once from its worker's thread, with
 * the entry its submission found in the read-side section still open:
 * posted, or nothing done (RPMAF_E_AGAIN).
 */
int
rpmaf__pool_op_direct(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o,
		      const struct rpmaf__regtab_entry *e)
{
	/* the connection's order, and what only the queued path handles, stay as they are */
	if (pc->phase != PH_READY || pc->wq_head || pc->pq_head || o->kind == POOL_K_CALL ||
	    (o->kind == POOL_K_FLUSH && needs_msg_persist(o)))
		return RPMAF_E_AGAIN;
	if (!e->obj || rpmaf__regtab_entry_check(e) || defer(pc, o, e->obj))
		return RPMAF_E_AGAIN;
	track(pc, o);
	return 0;
}

/* rpmaf__pool_pump -- post the waiting operations in order until one must wait again */
void
rpmaf__pool_pump(struct rpmaf__pool_conn *pc)
{
	struct rpmaf__pool_op *o;

	while (pc->phase == PH_READY && (o = pc->wq_head)) {
		/* a message goes after the writes pending before it, which may wait first now */
		if (pc->pend_head && sends_msg(o) && !pend_flush(pc))
			continue;
		pc->wq_head = o->next;
		if (!pc->wq_head)
			pc->wq_tail = NULL;
		o->next = NULL;
		if (op_post(pc, o) != RPMAF_E_AGAIN)
			continue;
		o->next = pc->wq_head;
		pc->wq_head = o;
		if (!pc->wq_tail)
			pc->wq_tail = o;
		break;
	}
}

/* rpmaf__pool_op_start -- track op on its ready connection, post it or queue it */
void
rpmaf__pool_op_start(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	if (o->wflags & POOL_W_PLACE)
		rpmaf__pool_wait_release(pc, o);
	o->stage = POOL_S_WAIT;
	track(pc, o);
	if (pc->wq_head || op_post(pc, o) == RPMAF_E_AGAIN) {
		wait_count(pc, o);
		wq_push(pc, o);
	}
}

/*
 * rpmaf__pool_op_run -- an operation arrives on its worker: posted when
 * its connection is ready, waiting for one otherwise
 */
void
rpmaf__pool_op_run(struct rpmaf_worker *w, void *arg)
{
	struct rpmaf__pool_op *o = arg;
	struct rpmaf__pool_conn *pc = o->pc;

	if (atomic_load(&pc->pool->shutdown)) {
		rpmaf__pool_op_complete(pc, o, RPMAF_E_SHUTDOWN);
		return;
	}
	/*
	 * the turn's clock: an operation due before this turn began is seen
	 * here, a later one by the slot's scan
	 */
	if (w->now_ns >= o->deadline_ns) {
		if (o->wflags & (POOL_W_WAITED | POOL_W_RETRIED))
			rpmaf__pool_wait_expire(pc, o);
		else
			rpmaf__pool_op_complete(pc, o, RPMAF_E_TIMEOUT);
		return;
	}
	if (pc->phase != PH_READY) {
		rpmaf__pool_wait(pc, o);
		return;
	}
	/* one that waited: its region may have been listed anew since */
	if (o->wflags && !rpmaf__pool_wait_refresh(pc, o)) {
		rpmaf__pool_op_complete(pc, o, RPMAF_E_NOENT);
		return;
	}
	rpmaf__pool_op_start(pc, o);
}

/* op_done -- the last request of op completed well: done, or persist next */
static inline __attribute__((always_inline)) void
op_done(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	if (o->stage != POOL_S_POSTED)
		return;
	if (o->kind == POOL_K_FLUSH || !needs_msg_persist(o)) {
		rpmaf__pool_op_complete(pc, o, 0);
		return;
	}
	o->stage = POOL_S_PERSIST;
	if (pc->wq_head || post_persist(pc, o) == RPMAF_E_AGAIN) {
		wait_count(pc, o);
		wq_push(pc, o);
	}
}

/* rpmaf__pool_op_wc -- op's group completed well: its operations in order, op last */
void
rpmaf__pool_op_wc(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	struct rpmaf__pool_op *m = o->grp, *next;

	/* each one's callback may reuse it: its link is read first */
	for (; m && m != o; m = next) {
		next = m->next;
		op_done(pc, m);
	}
	op_done(pc, o);
}
