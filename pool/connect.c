// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * connect.c -- the pool's control thread: it makes every connection (the
 * blocking part of connecting never runs on a worker), hands it to its
 * worker, takes lost ones back and makes them again after a backoff, and
 * at shutdown has every connection closed on its worker. It sleeps on an
 * eventfd that workers write when they hand a connection back.
 */

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pool.h"

/* now_ms -- CLOCK_MONOTONIC in ms */
static uint64_t
now_ms(void)
{
	return rpmaf__pool_now_ns() / 1000000ull;
}

/* rpmaf__pool_wake -- one write to the eventfd wakes the control thread */
void
rpmaf__pool_wake(struct rpmaf_pool *pool)
{
	uint64_t one = 1;

	if (write(pool->efd, &one, sizeof(one)) < 0) {
		/* the counter is full: the thread is awake already */
	}
}

/* rpmaf__pool_notify -- something wait_ready() or the shutdown waits for has happened */
void
rpmaf__pool_notify(struct rpmaf_pool *pool)
{
	atomic_fetch_add_explicit(&pool->events, 1, memory_order_release);
	(void)syscall(SYS_futex, &pool->events, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	(void)syscall(SYS_futex, &pool->closing, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* rpmaf__pool_handback -- the worker's last touch of the connection */
void
rpmaf__pool_handback(struct rpmaf__pool_conn *pc, int why)
{
	struct rpmaf_pool *pool = pc->pool;

	pc->handback = why;
	atomic_store_explicit(&pc->state, PC_LOST, memory_order_release);
	rpmaf__pool_wake(pool);
}

/* jittered -- ms varied at random by up to reconnect.jitter of itself */
static uint64_t
jittered(struct rpmaf_pool *pool, uint32_t ms)
{
	double j = pool->cfg->reconnect.jitter;
	double r = (double)rand_r(&pool->seed) / RAND_MAX; /* 0 to 1 */
	double v = ms * (1.0 + j * (2.0 * r - 1.0));

	return v < 0 ? 0 : (uint64_t)v;
}

/* backoff_grow -- the wait after a failed attempt: multiplier times longer, up to max_ms */
static void
backoff_grow(struct rpmaf_pool *pool, struct rpmaf__pool_conn *pc)
{
	const struct rpmaf_cfg_reconnect *rc = &pool->cfg->reconnect;
	double next = pc->backoff_ms ? pc->backoff_ms * rc->multiplier : rc->initial_ms;

	pc->backoff_ms = next > rc->max_ms ? rc->max_ms : (uint32_t)next;
}

/* retry_later -- the connection waits for its next attempt */
static void
retry_later(struct rpmaf_pool *pool, struct rpmaf__pool_conn *pc, int why)
{
	const struct rpmaf_cfg_reconnect *rc = &pool->cfg->reconnect;

	if (why == HB_CLOSED) {
		pc->due_ms = UINT64_MAX;
	} else {
		if (why == HB_LOST)
			pc->backoff_ms = rc->initial_ms;
		else if (why == HB_AUTH)
			pc->backoff_ms = rc->max_ms;
		else
			backoff_grow(pool, pc);
		pc->due_ms = now_ms() + jittered(pool, pc->backoff_ms);
	}
	atomic_store_explicit(&pc->state, PC_DOWN, memory_order_relaxed);
}

/*
 * wait_established -- the first event of a new connection, within
 * connect_ms; the pool's eventfd is watched too, so that a shutdown
 * (rpmaf_pool_delete()) abandons the attempt at once. *why says what went
 * wrong, as the target's operator would look for it: refused, unreachable,
 * no answer in time, or lost
 */
static int
wait_established(struct rpmaf_pool *pool, struct rpma_conn *conn, const char **why)
{
	uint64_t limit = now_ms() + pool->cfg->timeouts.connect_ms, now, v;
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	struct pollfd pfd[2] = {{.events = POLLIN}, {.fd = pool->efd, .events = POLLIN}};

	*why = "librpma: no event channel";
	if (rpma_conn_get_event_fd(conn, &pfd[0].fd))
		return RPMAF_E_RDMA;
	*why = "timed out: no answer within timeouts.connect_ms";
	for (;;) {
		if (atomic_load(&pool->stop))
			return RPMAF_E_SHUTDOWN;
		if ((now = now_ms()) >= limit)
			return RPMAF_E_TIMEOUT;
		if (poll(pfd, 2, (int)(limit - now)) < 0 && errno != EINTR)
			return RPMAF_E_SYS;
		if (pfd[0].revents)
			break;
		/* a handback or the stop: control_turn() looks at every connection anyway */
		if (pfd[1].revents && read(pool->efd, &v, sizeof(v)) < 0) {
			/* nothing to take: another read took it */
		}
	}
	if (rpma_conn_next_event(conn, &ev) || ev != RPMA_CONN_ESTABLISHED) {
		*why = ev == RPMA_CONN_REJECTED	     ? "refused by the target: it is full (its "
						       "listen.max_connections) or stopping, or "
						       "nothing listens on that port"
		       : ev == RPMA_CONN_UNREACHABLE ? "unreachable: no route to the target"
						     : "lost while connecting";
		return RPMAF_E_CONNLOST;
	}
	return 0;
}

/* establish -- connect to the target (blocking, bounded by connect_ms); *why on failure */
static int
establish(struct rpmaf_pool *pool, struct rpmaf__pool_conn *pc, struct rpma_conn **conn_ptr,
	  const char **why)
{
	const struct rpmaf_cfg_target *t = &pool->cfg->targets[pc->target];
	struct rpma_conn_req *req = NULL;
	char port[16];
	int ret;

	snprintf(port, sizeof(port), "%u", t->port);
	*why = "no route to the target's address (librpma)";
	if (rpma_conn_req_new(pool->peer, t->address, port, pc->ccfg, &req))
		return RPMAF_E_RDMA;
	*why = "the connection request could not be sent (librpma)";
	if (rpma_conn_req_connect(&req, NULL, conn_ptr)) {
		if (req)
			(void)rpma_conn_req_delete(&req);
		return RPMAF_E_RDMA;
	}
	if ((ret = wait_established(pool, *conn_ptr, why)) == 0 &&
	    rpma_conn_apply_remote_peer_cfg(*conn_ptr, pool->pcfg)) {
		*why = "the target's peer configuration does not apply (librpma)";
		ret = RPMAF_E_RDMA;
	}
	if (ret) {
		(void)rpma_conn_disconnect(*conn_ptr);
		(void)rpma_conn_delete(conn_ptr);
	}
	return ret;
}

/*
 * connect_failed -- log a failed attempt: the first of a run of failures
 * for one reason at notice, the ones after it at debug (a target that
 * refuses is said to refuse once, not at every retry)
 */
static void
connect_failed(struct rpmaf_pool *pool, struct rpmaf__pool_conn *pc, const char *why)
{
	pc->fails =
	    atomic_load_explicit(&pc->why_down, memory_order_relaxed) == why ? pc->fails + 1 : 1;
	atomic_store_explicit(&pc->why_down, why, memory_order_relaxed);
	rpmaf__wlog(pool->log, pc->fails == 1 ? RPMAF_LOG_NOTICE : RPMAF_LOG_DEBUG,
		    "pool: %s: connecting failed: %s (attempt %u%s)", pc->peer, why, pc->fails,
		    pc->fails == 1 ? ", retried in the background" : "");
}

/* try_connect -- one attempt; on success the connection goes to its worker */
static void
try_connect(struct rpmaf_pool *pool, struct rpmaf__pool_conn *pc)
{
	const char *why = "no room on the worker (queues.cq or its connections)";
	struct rpma_conn *conn = NULL;
	int ret;

	atomic_store_explicit(&pc->state, PC_CONNECTING, memory_order_relaxed);
	if ((ret = rpmaf_worker_reserve(pc->w)) == 0 && (ret = establish(pool, pc, &conn, &why)))
		(void)rpmaf_worker_unreserve(pc->w);
	if (ret) {
		connect_failed(pool, pc, why);
		retry_later(pool, pc, HB_FAILED);
		return;
	}
	if (pc->fails > 1)
		rpmaf__wlog(pool->log, RPMAF_LOG_NOTICE, "pool: %s: connected after %u attempts",
			    pc->peer, pc->fails + 1);
	atomic_store_explicit(&pc->why_down, NULL, memory_order_relaxed);
	pc->fails = 0;
	pc->conn = conn;
	atomic_store_explicit(&pc->state, PC_WORKER, memory_order_release);
	(void)rpmaf_worker_submit(pc->w, &pc->attach_work, rpmaf__pool_conn_attach, pc);
}

/* control_turn -- take back lost connections, connect the due ones; the next due time */
static uint64_t
control_turn(struct rpmaf_pool *pool)
{
	uint64_t next = now_ms() + 1000;

	for (unsigned i = 0; i < pool->nconns && !atomic_load(&pool->stop); i++) {
		struct rpmaf__pool_conn *pc = &pool->conns[i];
		int st = atomic_load_explicit(&pc->state, memory_order_acquire);

		if (st == PC_LOST) {
			retry_later(pool, pc, pc->handback);
			st = PC_DOWN;
		}
		if (st == PC_DOWN && pc->due_ms <= now_ms())
			try_connect(pool, pc);
		if (atomic_load_explicit(&pc->state, memory_order_relaxed) == PC_DOWN &&
		    pc->due_ms < next)
			next = pc->due_ms;
	}
	return next;
}

/* control_sleep -- until the eventfd is written or the next due time */
static void
control_sleep(struct rpmaf_pool *pool, uint64_t until_ms)
{
	uint64_t now = now_ms(), v;
	struct pollfd pfd = {.fd = pool->efd, .events = POLLIN};

	if (until_ms <= now || atomic_load(&pool->stop))
		return; /* the stop's wake may have been taken by wait_established() */
	if (poll(&pfd, 1, (int)(until_ms - now)) > 0 && read(pool->efd, &v, sizeof(v)) < 0) {
		/* nothing to take: another read took it */
	}
}

/* close_all -- at shutdown: have every attached connection closed on its worker, and wait */
static void
close_all(struct rpmaf_pool *pool)
{
	uint32_t v;

	for (unsigned i = 0; i < pool->nconns; i++) {
		struct rpmaf__pool_conn *pc = &pool->conns[i];

		if (atomic_load_explicit(&pc->state, memory_order_acquire) != PC_WORKER)
			continue;
		atomic_fetch_add(&pool->closing, 1);
		(void)rpmaf_worker_submit(pc->w, &pc->close_work, rpmaf__pool_conn_close, pc);
	}
	while ((v = atomic_load_explicit(&pool->closing, memory_order_acquire)) != 0) {
		struct timespec ts = {0, 100000000};

		(void)syscall(SYS_futex, &pool->closing, FUTEX_WAIT_PRIVATE, v, &ts, NULL, 0);
	}
}

/* rpmaf__pool_control_main -- connect, reconnect, and close everything at the end */
void *
rpmaf__pool_control_main(void *arg)
{
	struct rpmaf_pool *pool = arg;

	while (!atomic_load(&pool->stop))
		control_sleep(pool, control_turn(pool));
	close_all(pool);
	return NULL;
}
