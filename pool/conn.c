// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * conn.c -- one connection of the pool on its worker: attached with its
 * control channel, its callbacks (completions, receives, events), the
 * periodic scan of its operations' deadlines (and of those waiting for a
 * connection: wait.c), and its loss: the connection closed first, then
 * every operation put back to wait for another connection when it may be
 * posted again, or completed, and the connection handed back to the
 * control thread. Everything here runs on the connection's worker thread.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "pool.h"

/*
 * silent -- the channel failed for the peer's silence: a target frozen or
 * cut off. Said so, with the bound the heartbeats gave it, and counted.
 */
static void
silent(struct rpmaf__pool_conn *pc, const struct rpmaf__ctl *c)
{
	pc->hb_lost = true;
	rpmaf__ctrs_add(&pc->ctrs, RPMAF__CTR_PEER_SILENT, 1);
	rpmaf__wlog(pc->pool->log, RPMAF_LOG_WARNING,
		    "pool: %s: the target is silent (frozen or cut off): nothing heard for %llu "
		    "ms, the bound is %llu ms (heartbeat %llu ms x %u); the connection is closed",
		    pc->peer, (unsigned long long)c->silent_ms,
		    (unsigned long long)(c->hb.interval_ms * c->hb.misses),
		    (unsigned long long)c->hb.interval_ms, c->hb.misses);
}

/* on_fail -- the channel failed: the connection is lost */
static void
ctl_on_fail(struct rpmaf__ctl *c, int code, void *ctx)
{
	struct rpmaf__pool_conn *pc = ctx;

	if (c->silent_ms && pc->phase != PH_FAILING)
		silent(pc, c);
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

/*
 * wc_link -- a failed completion says the link failed (flushed, retries
 * exhausted, no response), not the request itself: its operation may be
 * posted again on another connection
 */
static bool
wc_link(const struct ibv_wc *wc)
{
	switch (wc->status) {
	case IBV_WC_WR_FLUSH_ERR:
	case IBV_WC_RETRY_EXC_ERR:
	case IBV_WC_RNR_RETRY_EXC_ERR:
	case IBV_WC_RESP_TIMEOUT_ERR:
	case IBV_WC_REM_ABORT_ERR:
	case IBV_WC_FATAL_ERR:
		return true;
	default:
		return false;
	}
}

/* wc_failed -- an operation's request completed in error: the connection fails */
static void
wc_failed(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o, const struct ibv_wc *wc)
{
	char why[64];

	snprintf(why, sizeof(why), "a completion failed (status %d)", (int)wc->status);
	rpmaf__pool_conn_fail(pc, RPMAF_E_CONNLOST, o, wc_status(wc), why);
	if (pc->culprit == o)
		pc->culprit_retry = wc_link(wc);
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

/* live -- the slot has a connection attached that is not failing */
static bool
live(const struct rpmaf__pool_conn *pc)
{
	return pc->wconn && !pc->torn && pc->phase != PH_FAILING;
}

/* conn_deadlines -- the connection's deadlines at now: the handshake's, every operation's */
static void
conn_deadlines(struct rpmaf__pool_conn *pc, uint64_t now)
{
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
}

/*
 * scan_fn -- the slot's periodic look at the deadlines: of the operations
 * waiting for a connection, then of the connection's; armed again while
 * either is there
 */
static void
scan_fn(struct rpmaf_worker *w, struct rpmaf_timer *t, void *arg)
{
	struct rpmaf__pool_conn *pc = arg;
	uint64_t now = rpmaf__pool_now_ns();
	bool again;

	(void)w;
	(void)t;
	pc->scan_armed = false;
	again = rpmaf__pool_wait_scan(pc, now);
	if (live(pc))
		conn_deadlines(pc, now);
	if (again || live(pc))
		rpmaf__pool_scan_arm(pc);
}

/* rpmaf__pool_scan_arm -- the scan runs every scan_us while it is armed */
void
rpmaf__pool_scan_arm(struct rpmaf__pool_conn *pc)
{
	if (pc->scan_armed)
		return;
	pc->scan_armed =
	    rpmaf_worker_timer_add(pc->w, &pc->scan, pc->pool->scan_us, scan_fn, pc) == 0;
	if (!pc->scan_armed)
		rpmaf__wlog(pc->pool->log, RPMAF_LOG_ERROR,
			    "pool: %s: no room for the scan timer: deadlines are not watched",
			    pc->peer);
}

/*
 * teardown_status -- what an operation left on a lost connection completes
 * with: its own failure (the culprit's, unless the link failed under it),
 * the shutdown, its deadline, or the loss (RPMAF_E_CONNLOST: it may be
 * posted again instead)
 */
static int
teardown_status(const struct rpmaf__pool_conn *pc, const struct rpmaf__pool_op *o, uint64_t now)
{
	if (o == pc->culprit && !pc->culprit_retry)
		return pc->culprit_status;
	if (atomic_load(&pc->pool->shutdown))
		return RPMAF_E_SHUTDOWN;
	return now >= o->deadline_ns ? RPMAF_E_TIMEOUT : RPMAF_E_CONNLOST;
}

/*
 * complete_all -- every operation of the connection (it is closed already):
 * put back to wait for another connection when it may be posted again,
 * completed otherwise; one line says how many of each
 */
static void
complete_all(struct rpmaf__pool_conn *pc)
{
	uint64_t now = rpmaf__pool_now_ns();
	unsigned retried = 0, failed = 0;
	struct rpmaf__pool_op *o;
	int st;

	pc->wq_head = pc->wq_tail = NULL;
	while ((o = pc->tr_head)) {
		st = teardown_status(pc, o, now);
		if (st == RPMAF_E_CONNLOST && rpmaf__pool_retryable(pc, o)) {
			rpmaf__pool_retry(pc, o);
			retried++;
			continue;
		}
		failed += st != RPMAF_E_SHUTDOWN;
		rpmaf__pool_op_complete(pc, o, st);
	}
	pc->culprit = NULL;
	if (retried || failed)
		rpmaf__wlog(pc->pool->log, RPMAF_LOG_NOTICE,
			    "pool: %s: of the operations on the lost connection %u wait to be "
			    "posted again, %u failed",
			    pc->peer, retried, failed);
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
	if (pc->wconn) {
		(void)rpma_conn_disconnect(rpmaf_wconn_get_conn(pc->wconn));
		(void)rpmaf_wconn_close(&pc->wconn);
	}
	if (pc->ctl_inited)
		rpmaf__ctl_fini(&pc->ctl);
	pc->ctl_inited = false;
	if (pc->was_ready)
		rpmaf__pool_wait_down(pc);
	complete_all(pc);
	if (pc->scan_armed && !pc->pq_head) {
		(void)rpmaf_worker_timer_cancel(pc->w, &pc->scan);
		pc->scan_armed = false;
	}
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
	rpmaf__pool_pend_drop(pc);
	atomic_store_explicit(&pc->healthy, false, memory_order_release);
	if (!pc->fail_code)
		pc->fail_code = code;
	pc->culprit = culprit;
	pc->culprit_status = culprit_status;
	pc->culprit_retry = false;
	if (why)
		rpmaf__wlog(pc->pool->log, RPMAF_LOG_NOTICE, "pool: %s: connection lost: %s (%s)",
			    pc->peer, why, rpmaf_err_str(code));
	snprintf(pc->fail_why, sizeof(pc->fail_why), "%s",
		 why	       ? why
		 : pc->hb_lost ? "the target was silent beyond the heartbeat bound"
			       : rpmaf_err_str(code));
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
	pc->list_pending = pc->auth_suspect = pc->hb_lost = false;
	pc->fail_code = 0;
	pc->culprit = NULL;
	pc->culprit_retry = false;
	pc->fail_why[0] = '\0';
	pc->nidem = 0;
	pc->list_next = 0;
	pc->list_gen = 0;
	pc->next_req_id = 1;
	pc->wq_head = pc->wq_tail = pc->tr_head = pc->tr_tail = NULL;
	pc->hs_deadline_ns = rpmaf__pool_now_ns() +
			     (uint64_t)pc->pool->cfg->timeouts.connect_ms * 1000000ull +
			     pc->pool->op_ns;
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
	rpmaf__pool_scan_arm(pc);
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
