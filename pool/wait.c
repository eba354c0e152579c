// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * wait.c -- operations that wait for a connection: submitted while their
 * target had no healthy connection, or put back after theirs was lost
 * when they may be posted again (anything but a call the target may have
 * run already, unless its handler is idempotent). They wait on their
 * slot's list, owned by the slot's worker, until a connection of the slot
 * is ready (then they are posted in order) or another slot of the target
 * is healthy (then they move to that slot's worker), and fail with
 * RPMAF_E_TIMEOUT at their deadline, found by the slot's scan timer. A
 * target lets at most wait_max operations wait: a submission beyond that
 * is refused (RPMAF_E_AGAIN, op.c); an operation put back always waits.
 * Everything here runs on the slot's worker thread.
 */

#include <stdio.h>
#include <string.h>

#include "pool.h"

/* place_take -- op takes one of its target's waiting places, whatever their number */
static void
place_take(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	if (o->wflags & POOL_W_PLACE)
		return;
	o->wflags |= POOL_W_PLACE;
	atomic_fetch_add_explicit(&pc->pool->targets[pc->target].waiting, 1, memory_order_relaxed);
}

/* rpmaf__pool_wait_release -- give op's waiting place back to its target */
void
rpmaf__pool_wait_release(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	if (!(o->wflags & POOL_W_PLACE))
		return;
	o->wflags &= (uint8_t)~POOL_W_PLACE;
	atomic_fetch_sub_explicit(&pc->pool->targets[pc->target].waiting, 1, memory_order_relaxed);
}

/*
 * sibling -- a healthy slot of pc's target other than pc (one of pc's
 * worker first: no hand-over between threads); NULL when none
 */
static struct rpmaf__pool_conn *
sibling(const struct rpmaf__pool_conn *pc)
{
	const struct rpmaf__pool_target *tg = &pc->pool->targets[pc->target];
	struct rpmaf__pool_conn *any = NULL;

	for (unsigned i = tg->first; i < tg->first + tg->n; i++) {
		struct rpmaf__pool_conn *s = &pc->pool->conns[i];

		if (s == pc || !atomic_load_explicit(&s->healthy, memory_order_acquire))
			continue;
		if (s->w == pc->w)
			return s;
		if (!any)
			any = s;
	}
	return any;
}

/* move -- op goes to slot to, on to's worker (which checks it again there) */
static void
move(struct rpmaf__pool_op *o, struct rpmaf__pool_conn *to)
{
	o->pc = to;
	(void)rpmaf_worker_submit(to->w, &o->work, rpmaf__pool_op_run, o);
}

/* pq_push -- op waits on pc's list, after those already waiting */
static void
pq_push(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	o->next = NULL;
	if (pc->pq_tail)
		pc->pq_tail->next = o;
	else
		pc->pq_head = o;
	pc->pq_tail = o;
	pc->npq++;
}

/* pq_take -- detach pc's whole list (its operations in order, linked by next) */
static struct rpmaf__pool_op *
pq_take(struct rpmaf__pool_conn *pc)
{
	struct rpmaf__pool_op *all = pc->pq_head;

	pc->pq_head = pc->pq_tail = NULL;
	pc->npq = 0;
	return all;
}

/* pq_prepend -- put the list from head to tail back before what was pushed meanwhile */
static void
pq_prepend(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *head, struct rpmaf__pool_op *tail,
	   uint32_t n)
{
	if (!head)
		return;
	tail->next = pc->pq_head;
	if (!pc->pq_head)
		pc->pq_tail = tail;
	pc->pq_head = head;
	pc->npq += n;
}

/* rpmaf__pool_wait -- to a healthy slot of the target, or onto pc's list */
void
rpmaf__pool_wait(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	struct rpmaf__pool_conn *to;

	place_take(pc, o);
	o->stage = POOL_S_IDLE;
	if (!(o->wflags & POOL_W_WAITED)) {
		o->wflags |= POOL_W_WAITED;
		rpmaf__ctrs_add(&pc->ctrs, RPMAF__CTR_WAITED, 1);
	}
	if ((to = sibling(pc))) {
		move(o, to);
		return;
	}
	pq_push(pc, o);
	rpmaf__pool_scan_arm(pc);
}

/* idem_has -- the target announced handler id idempotent on this session */
static bool
idem_has(const struct rpmaf__pool_conn *pc, uint32_t id)
{
	uint32_t lo = 0, hi = pc->nidem;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (pc->idem[mid] == id)
			return true;
		if (pc->idem[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* rpmaf__pool_retryable -- not a call the target may have run (unless idempotent) */
bool
rpmaf__pool_retryable(const struct rpmaf__pool_conn *pc, const struct rpmaf__pool_op *o)
{
	if (o->kind != POOL_K_CALL || o->stage != POOL_S_REPLY)
		return true;
	return idem_has(pc, o->handler_id);
}

/* rpmaf__pool_retry -- back from the lost connection to waiting, from its first step */
void
rpmaf__pool_retry(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	rpmaf__pool_op_untrack(pc, o);
	o->stage = POOL_S_IDLE;
	o->req_id = 0;
	o->wflags |= POOL_W_RETRIED;
	rpmaf__ctrs_add(&pc->ctrs, RPMAF__CTR_RETRIED, 1);
	rpmaf__pool_wait(pc, o);
}

/* kind_usage -- the RPMAF_USAGE_* bits an operation needs of its region */
static unsigned
kind_usage(const struct rpmaf__pool_op *o)
{
	switch (o->kind) {
	case POOL_K_READ:
		return RPMAF_USAGE_READ;
	case POOL_K_FLUSH:
		return RPMAF_USAGE_FLUSH;
	default:
		return RPMAF_USAGE_WRITE | (o->flags ? RPMAF_USAGE_FLUSH : 0);
	}
}

/* rpmaf__pool_wait_refresh -- the region as the table has it now, or false */
bool
rpmaf__pool_wait_refresh(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	const struct rpmaf__regtab_entry *e;
	unsigned usage = kind_usage(o);
	bool ok;

	if (o->kind == POOL_K_CALL)
		return true;
	rpmaf__regtab_read_lock();
	e = rpmaf__regtab_lookup_str(pc->pool->tab, o->name);
	ok = e && e->target == pc->target && o->offset <= e->size &&
	     o->len <= e->size - o->offset && (e->usage & usage) == usage;
	if (ok) {
		o->generation = e->generation;
		o->persist = e->persist;
	}
	rpmaf__regtab_read_unlock();
	return ok;
}

/* rpmaf__pool_wait_flush -- the connection is ready: what waits goes, in order */
void
rpmaf__pool_wait_flush(struct rpmaf__pool_conn *pc)
{
	uint64_t now = rpmaf__pool_op_now_ns();
	struct rpmaf__pool_op *o, *next;

	/* detached first: a callback run here may submit, and must find a consistent list */
	for (o = pq_take(pc); o; o = next) {
		next = o->next;
		o->next = NULL;
		if (atomic_load(&pc->pool->shutdown))
			rpmaf__pool_op_complete(pc, o, RPMAF_E_SHUTDOWN);
		else if (now >= o->deadline_ns)
			rpmaf__pool_wait_expire(pc, o);
		else if (!rpmaf__pool_wait_refresh(pc, o))
			rpmaf__pool_op_complete(pc, o, RPMAF_E_NOENT);
		else if (pc->phase == PH_READY)
			rpmaf__pool_op_start(pc, o);
		else
			rpmaf__pool_wait(pc, o); /* the connection failed meanwhile */
	}
	if (pc->expired)
		(void)rpmaf__pool_wait_scan(pc, now);
}

/* rpmaf__pool_wait_expire -- op's deadline passed while it waited */
void
rpmaf__pool_wait_expire(struct rpmaf__pool_conn *pc, struct rpmaf__pool_op *o)
{
	pc->expired++;
	rpmaf__ctrs_add(&pc->ctrs, RPMAF__CTR_WAIT_TIMEOUTS, 1);
	rpmaf__pool_op_complete(pc, o, RPMAF_E_TIMEOUT);
}

/* log_expired -- one line for the operations of the slot that timed out since the last one */
static void
log_expired(struct rpmaf__pool_conn *pc, uint64_t now)
{
	const char *attempt = atomic_load_explicit(&pc->why_down, memory_order_relaxed);
	uint64_t n = pc->expired;

	pc->expired = 0;
	if (pc->phase == PH_READY)
		rpmaf__wlog(pc->pool->log, RPMAF_LOG_WARNING,
			    "pool: %s: %llu operation%s timed out before the connection was ready",
			    pc->peer, (unsigned long long)n, n == 1 ? "" : "s");
	else
		rpmaf__wlog(pc->pool->log, RPMAF_LOG_WARNING,
			    "pool: %s: %llu operation%s timed out waiting for a connection: none "
			    "since %.3f s ago (%s)%s%s",
			    pc->peer, (unsigned long long)n, n == 1 ? "" : "s",
			    (double)(now > pc->down_ns ? now - pc->down_ns : 0) / 1e9, pc->down_why,
			    attempt ? "; the last attempt: " : "", attempt ? attempt : "");
}

/* rpmaf__pool_wait_scan -- expire, hand over to a healthy slot, say what expired */
bool
rpmaf__pool_wait_scan(struct rpmaf__pool_conn *pc, uint64_t now)
{
	struct rpmaf__pool_conn *to = pc->phase == PH_READY ? NULL : sibling(pc);
	struct rpmaf__pool_op *o, *next, *head = NULL, *tail = NULL;
	uint32_t n = 0;

	for (o = pq_take(pc); o; o = next) {
		next = o->next;
		o->next = NULL;
		if (atomic_load(&pc->pool->shutdown)) {
			rpmaf__pool_op_complete(pc, o, RPMAF_E_SHUTDOWN);
		} else if (now >= o->deadline_ns) {
			rpmaf__pool_wait_expire(pc, o);
		} else if (to) {
			move(o, to);
		} else {
			if (tail)
				tail->next = o;
			else
				head = o;
			tail = o;
			n++;
		}
	}
	pq_prepend(pc, head, tail, n);
	if (pc->expired)
		log_expired(pc, now);
	return pc->pq_head != NULL;
}

/* rpmaf__pool_wait_down -- the slot's ready connection is lost: counted, timed, said why */
void
rpmaf__pool_wait_down(struct rpmaf__pool_conn *pc)
{
	rpmaf__ctrs_add(&pc->ctrs, RPMAF__CTR_CONN_LOST, 1);
	pc->down_ns = rpmaf__pool_now_ns();
	snprintf(pc->down_why, sizeof(pc->down_why), "lost: %s",
		 pc->fail_why[0] ? pc->fail_why : "the connection failed");
}

/* rpmaf__pool_drain -- at deletion: nothing waits any more, the timer is off */
void
rpmaf__pool_drain(struct rpmaf_worker *w, void *arg)
{
	struct rpmaf__pool_conn *pc = arg;
	struct rpmaf_pool *pool = pc->pool;
	struct rpmaf__pool_op *o, *next;

	for (o = pq_take(pc); o; o = next) {
		next = o->next;
		o->next = NULL;
		rpmaf__pool_op_complete(pc, o, RPMAF_E_SHUTDOWN);
	}
	if (pc->scan_armed)
		(void)rpmaf_worker_timer_cancel(w, &pc->scan);
	pc->scan_armed = false;
	atomic_fetch_sub_explicit(&pool->closing, 1, memory_order_release);
	rpmaf__pool_notify(pool);
}
