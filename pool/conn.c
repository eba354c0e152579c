// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * conn.c -- one connection of the pool on its worker: attached with its
 * control channel, its callbacks (completions, receives, events), the
 * periodic scan of its operations' deadlines, and its loss: every
 * operation completed, the connection closed and handed back to the
 * control thread. Everything here runs on the connection's worker thread.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "pool.h"

/* on_fail -- the channel failed: the connection is lost */
static void
ctl_on_fail(struct rpmaf__ctl *c, int code, void *ctx)
{
	struct rpmaf__pool_conn *pc = ctx;

	(void)c;
	rpmaf__pool_conn_fail(pc, pc->fail_code ? pc->fail_code : code, NULL, 0, NULL);
}

/* on_writable -- credits or room came back: what waited may go */
static void
ctl_on_writable(struct rpmaf__ctl *c, void *ctx)
{
	struct rpmaf__pool_conn *pc = ctx;
	int ret;

	(void)c;
	if (pc->phase == PH_FAILING)
		return;
	if ((ret = rpmaf__pool_session_kick(pc))) {
		rpmaf__pool_conn_fail(pc, ret, NULL, 0, "a region list request failed");
		return;
	}
	rpmaf__pool_pump(pc);
}

static const struct rpmaf__ctl_ops Ctl_ops = {
    .on_msg = rpmaf__pool_session_msg,
    .on_writable = ctl_on_writable,
    .on_fail = ctl_on_fail,
};

/* wc_status -- what a failed completion means for its operation */
static int
wc_status(const struct ibv_wc *wc)
{
	return wc->status == IBV_WC_REM_ACCESS_ERR || wc->status == IBV_WC_REM_INV_REQ_ERR
		   ? RPMAF_E_REMOTE
		   : RPMAF_E_CONNLOST;
}

/* wc_failed -- an operation's request completed in error: the connection fails */
static void
wc_failed(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o, const struct ibv_wc *wc)
{
	char why[48];

	snprintf(why, sizeof(why), "a completion failed (status %d)", (int)wc->status);
	rpmaf__pool_conn_fail(pc, RPMAF_E_CONNLOST, o, wc_status(wc), why);
}

/* on_wc -- a completion: the channel's, or an operation's */
static void
conn_on_wc(struct rpmaf_wconn *wconn, const struct ibv_wc *wc, void *ctx)
{
	struct rpmaf__pool_conn *pc = ctx;
	struct rpmaf__pool_op *o = (struct rpmaf__pool_op *)(uintptr_t)wc->wr_id;

	(void)wconn;
	if (rpmaf__ctl_on_wc(&pc->ctl, wc) || pc->phase == PH_FAILING)
		return;
	if (wc->status != IBV_WC_SUCCESS) {
		wc_failed(pc, o, wc);
		return;
	}
	rpmaf__pool_op_wc(pc, o);
	/* a removal's confirmation goes before the operations that wait */
	if (pc->ctl.credit_soon)
		rpmaf__ctl_credit_due(&pc->ctl);
	if (pc->wq_head)
		rpmaf__pool_pump(pc);
}

/* on_recv -- every receive goes to the channel */
static int
conn_on_recv(struct rpmaf_wconn *wconn, const struct ibv_wc *wc, void *buf, void *ctx)
{
	struct rpmaf__pool_conn *pc = ctx;

	(void)wconn;
	return rpmaf__ctl_recv(&pc->ctl, wc, buf);
}

/* on_event -- the peer disconnected, or the connection broke */
static void
conn_on_event(struct rpmaf_wconn *wconn, int event, void *ctx)
{
	struct rpmaf__pool_conn *pc = ctx;

	(void)wconn;
	if (event == RPMA_CONN_ESTABLISHED)
		return;
	rpmaf__pool_conn_fail(pc, RPMAF_E_CONNLOST, NULL, 0, rpma_utils_conn_event_2str(event));
}

static const struct rpmaf_wconn_ops Wconn_ops = {
    .on_wc = conn_on_wc,
    .on_recv = conn_on_recv,
    .on_event = conn_on_event,
};

/* scan_fn -- the periodic look at the deadlines: handshake, then every operation's */
static void
scan_fn(struct rpmaf_worker *w, struct rpmaf_timer *t, void *arg)
{
	struct rpmaf__pool_conn *pc = arg;
	uint64_t now = rpmaf__pool_now_ns();

	pc->scan_armed = false;
	if (pc->phase == PH_FAILING)
		return;
	if (pc->phase != PH_READY && now >= pc->hs_deadline_ns) {
		rpmaf__pool_conn_fail(pc, RPMAF_E_TIMEOUT, NULL, 0,
				      "the handshake did not end in time");
		return;
	}
	for (struct rpmaf__pool_op *o = pc->tr_head; o; o = o->tnext) {
		if (now >= o->deadline_ns) {
			rpmaf__pool_conn_fail(pc, RPMAF_E_TIMEOUT, o, RPMAF_E_TIMEOUT,
					      "an operation timed out");
			return;
		}
	}
	pc->scan_armed = rpmaf_worker_timer_add(w, t, pc->pool->scan_us, scan_fn, pc) == 0;
}

/* teardown_status -- what an operation left on a lost connection completes with */
static int
teardown_status(const struct rpmaf__pool_conn *pc, const struct rpmaf__pool_op *o, uint64_t now)
{
	if (o == pc->culprit)
		return pc->culprit_status;
	if (atomic_load(&pc->pool->shutdown))
		return RPMAF_E_SHUTDOWN;
	return now >= o->deadline_ns ? RPMAF_E_TIMEOUT : RPMAF_E_CONNLOST;
}

/* complete_all -- complete every operation of the connection (it is closed already) */
static void
complete_all(struct rpmaf__pool_conn *pc)
{
	uint64_t now = rpmaf__pool_now_ns();
	struct rpmaf__pool_op *o;

	pc->wq_head = pc->wq_tail = NULL;
	while ((o = pc->tr_head))
		rpmaf__pool_op_complete(pc, o, teardown_status(pc, o, now));
	pc->culprit = NULL;
}

/* handback_reason -- why the connection goes back: lost, failed or refused */
static int
handback_reason(const struct rpmaf__pool_conn *pc)
{
	if (atomic_load(&pc->pool->shutdown))
		return HB_CLOSED;
	if (pc->was_ready)
		return HB_LOST;
	return pc->fail_code == RPMAF_E_AUTH || pc->auth_suspect ? HB_AUTH : HB_FAILED;
}

/*
 * teardown -- close the connection first (its QP gone: nothing lands in an
 * operation's memory any more), then complete its operations, then hand it
 * back. Runs once per attachment.
 */
static void
teardown(struct rpmaf__pool_conn *pc)
{
	if (pc->torn)
		return;
	pc->torn = true;
	if (pc->scan_armed)
		(void)rpmaf_worker_timer_cancel(pc->w, &pc->scan);
	pc->scan_armed = false;
	if (pc->wconn) {
		(void)rpma_conn_disconnect(rpmaf_wconn_get_conn(pc->wconn));
		(void)rpmaf_wconn_close(&pc->wconn);
	}
	if (pc->ctl_inited)
		rpmaf__ctl_fini(&pc->ctl);
	pc->ctl_inited = false;
	complete_all(pc);
	if (pc->auth_suspect && !atomic_load(&pc->pool->shutdown)) {
		/* a target that refuses the key may close before its ERROR arrives */
		rpmaf__wlog(pc->pool->log, RPMAF_LOG_ERROR,
			    "pool: %s: lost during authentication: the key is taken as refused",
			    pc->peer);
		atomic_store(&pc->pool->targets[pc->target].auth_failed, true);
		rpmaf__pool_notify(pc->pool);
	}
	free(pc->seen);
	pc->seen = NULL;
	pc->nseen = pc->seen_max = 0;
	rpmaf__pool_handback(pc, handback_reason(pc));
}

/* teardown_fn -- the deferred teardown of a failed connection */
static void
teardown_fn(struct rpmaf_worker *w, void *arg)
{
	struct rpmaf__pool_conn *pc = arg;

	(void)w;
	pc->teardown_queued = false;
	teardown(pc);
}

/*
 * rpmaf__pool_conn_fail -- stop taking operations now; the teardown runs
 * from a submitted function, out of the call stack of whatever callback
 * found the failure (the channel's own, possibly).
 */
void
rpmaf__pool_conn_fail(struct rpmaf__pool_conn *pc, int code, struct rpmaf__pool_op *culprit,
		      int culprit_status, const char *why)
{
	if (pc->phase == PH_FAILING || pc->torn)
		return;
	if (pc->phase == PH_AUTH && code != RPMAF_E_AUTH)
		pc->auth_suspect = true;
	pc->phase = PH_FAILING;
	atomic_store_explicit(&pc->healthy, false, memory_order_release);
	if (!pc->fail_code)
		pc->fail_code = code;
	pc->culprit = culprit;
	pc->culprit_status = culprit_status;
	if (why)
		rpmaf__wlog(pc->pool->log, RPMAF_LOG_NOTICE, "pool: %s: connection lost: %s (%s)",
			    pc->peer, why, rpmaf_err_str(code));
	if (pc->ctl_inited)
		rpmaf__ctl_fail(&pc->ctl, code, NULL);
	if (!pc->teardown_queued) {
		pc->teardown_queued = true;
		(void)rpmaf_worker_submit(pc->w, &pc->teardown_work, teardown_fn, pc);
	}
}

/* reset -- the worker's fields of a new attachment */
static void
reset(struct rpmaf__pool_conn *pc)
{
	pc->phase = PH_HELLO;
	pc->was_ready = pc->torn = pc->teardown_queued = false;
	pc->list_pending = pc->auth_suspect = false;
	pc->fail_code = 0;
	pc->culprit = NULL;
	pc->list_next = 0;
	pc->list_gen = 0;
	pc->next_req_id = 1;
	pc->wq_head = pc->wq_tail = pc->tr_head = pc->tr_tail = NULL;
	pc->hs_deadline_ns = rpmaf__pool_now_ns() +
			     (uint64_t)pc->pool->cfg->timeouts.connect_ms * 1000000ull +
			     pc->pool->op_ns;
	memset(&pc->scan, 0, sizeof(pc->scan));
	pc->scan_armed = false;
}

/* attach_undo -- the attachment failed before the connection was the worker's */
static void
attach_undo(struct rpmaf__pool_conn *pc, const char *what, int ret)
{
	rpmaf__wlog(pc->pool->log, RPMAF_LOG_ERROR, "pool: %s: %s failed (%s)", pc->peer, what,
		    rpmaf_err_str(ret));
	if (pc->ctl_inited)
		rpmaf__ctl_fini(&pc->ctl);
	pc->ctl_inited = false;
	(void)rpma_conn_disconnect(pc->conn);
	(void)rpma_conn_delete(&pc->conn);
	(void)rpmaf_worker_unreserve(pc->w);
	pc->torn = true;
	rpmaf__pool_handback(pc, atomic_load(&pc->pool->shutdown) ? HB_CLOSED : HB_FAILED);
}

/* rpmaf__pool_conn_attach -- take the established connection and say HELLO */
void
rpmaf__pool_conn_attach(struct rpmaf_worker *w, void *arg)
{
	struct rpmaf__pool_conn *pc = arg;
	const struct rpmaf_cfg *cfg = pc->pool->cfg;
	int ret;

	reset(pc);
	ret = rpmaf__ctl_init(&pc->ctl, w, cfg->queues.msg_credits, (uint32_t)cfg->queues.msg_size,
			      cfg->queues.sq, &Ctl_ops, pc, pc->pool->log, pc->peer);
	if (ret) {
		attach_undo(pc, "the control channel", ret);
		return;
	}
	pc->ctl_inited = true;
	if ((ret = rpmaf_worker_attach(w, pc->conn, &Wconn_ops, pc, &pc->wconn))) {
		attach_undo(pc, "attaching", ret);
		return;
	}
	pc->conn = NULL;
	rpmaf__ctl_bind(&pc->ctl, pc->wconn);
	pc->scan_armed = rpmaf_worker_timer_add(w, &pc->scan, pc->pool->scan_us, scan_fn, pc) == 0;
	if ((ret = rpmaf__pool_session_start(pc)))
		rpmaf__pool_conn_fail(pc, ret, NULL, 0, "HELLO could not be sent");
}

/* rpmaf__pool_conn_close -- at shutdown: tear down now, and count it closed */
void
rpmaf__pool_conn_close(struct rpmaf_worker *w, void *arg)
{
	struct rpmaf__pool_conn *pc = arg;
	struct rpmaf_pool *pool = pc->pool;

	(void)w;
	if (atomic_load_explicit(&pc->state, memory_order_acquire) == PC_WORKER && !pc->torn) {
		rpmaf__pool_conn_fail(pc, RPMAF_E_SHUTDOWN, NULL, 0, NULL);
		teardown(pc);
	}
	atomic_fetch_sub_explicit(&pool->closing, 1, memory_order_release);
	rpmaf__pool_notify(pool);
}
