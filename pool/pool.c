// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * pool.c -- a pool's life: rpmaf_pool_new() lays out the targets and their
 * connections (each bound to one worker for good, so that its operations
 * always run on one thread) and starts the control thread;
 * rpmaf_pool_wait_ready() waits for every target; rpmaf_pool_delete()
 * closes everything; rpmaf_pool_region() reads the region table.
 */

#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../workers/worker.h"
#include "pool.h"

/* the longest and shortest period of a connection's time-out scan, in µs */
#define SCAN_MAX_US 100000u
#define SCAN_MIN_US 1000u

/* mr_new -- the region table's descriptor hook: a remote region of librpma */
static int
mr_new(const uint8_t *desc, size_t desc_len, void *arg, void **obj)
{
	struct rpma_mr_remote *mr = NULL;

	(void)arg;
	if (rpma_mr_remote_from_descriptor(desc, desc_len, &mr))
		return RPMAF_E_RDMA;
	*obj = mr;
	return 0;
}

/* mr_delete -- free a remote region once no reader can hold it */
static void
mr_delete(void *obj, void *arg)
{
	struct rpma_mr_remote *mr = obj;

	(void)arg;
	(void)rpma_mr_remote_delete(&mr);
}

/* conn_init -- connection i of target t, bound to worker i modulo the workers */
static int
conn_init(struct rpmaf_pool *pool, struct rpmaf__pool_conn *pc, unsigned i, unsigned t)
{
	const struct rpmaf_cfg_target *tg = &pool->cfg->targets[t];
	struct rpmaf_worker *w = NULL;

	pc->pool = pool;
	pc->idx = i;
	pc->target = t;
	snprintf(pc->peer, sizeof(pc->peer), "%s#%u %s:%u", tg->name, i, tg->address, tg->port);
	rpmaf__ctrs_init(&pc->ctrs);
	rpmaf__hist_init(&pc->lat);
	atomic_init(&pc->state, PC_DOWN);
	atomic_init(&pc->healthy, false);
	atomic_init(&pc->queued, 0);
	pc->down_ns = rpmaf__pool_now_ns();
	snprintf(pc->down_why, sizeof(pc->down_why), "not connected yet");
	if (rpmaf_workers_get(pool->ws, i % rpmaf_workers_count(pool->ws), &w))
		return RPMAF_E_INVAL;
	pc->w = w;
	rpmaf__pool_pend_init(pc);
	if (rpma_conn_cfg_new(&pc->ccfg))
		return RPMAF_E_NOMEM;
	if (rpmaf_worker_conn_cfg(w, pc->ccfg) ||
	    rpma_conn_cfg_set_timeout(pc->ccfg, (int)pool->cfg->timeouts.connect_ms))
		return RPMAF_E_RDMA;
	return 0;
}

/* conns_fini -- free what conn_init() made */
static void
conns_fini(struct rpmaf_pool *pool)
{
	for (unsigned i = 0; i < pool->nconns; i++) {
		if (pool->conns[i].ccfg)
			(void)rpma_conn_cfg_delete(&pool->conns[i].ccfg);
		free(pool->conns[i].idem);
	}
	free(pool->conns);
	free(pool->targets);
}

/* conns_new -- the targets and their connections, spread over the workers */
static int
conns_new(struct rpmaf_pool *pool)
{
	const struct rpmaf_cfg *cfg = pool->cfg;
	unsigned i = 0;
	int ret;

	pool->ntargets = cfg->ntargets;
	for (unsigned t = 0; t < cfg->ntargets; t++)
		pool->nconns += cfg->targets[t].connections;
	pool->targets = calloc(pool->ntargets, sizeof(*pool->targets));
	pool->conns = calloc(pool->nconns ? pool->nconns : 1, sizeof(*pool->conns));
	if (!pool->targets || !pool->conns)
		return RPMAF_E_NOMEM;
	for (unsigned t = 0; t < cfg->ntargets; t++) {
		pool->targets[t].first = i;
		pool->targets[t].n = cfg->targets[t].connections;
		/* as many as the target's send queues hold: one queue's worth per connection */
		pool->targets[t].wait_max = cfg->targets[t].connections * cfg->queues.sq;
		for (unsigned k = 0; k < cfg->targets[t].connections; k++, i++)
			if ((ret = conn_init(pool, &pool->conns[i], i, t)))
				return ret;
	}
	return 0;
}

/* key_load -- the pre-shared key of auth.key_file, if any */
static int
key_load(struct rpmaf_pool *pool)
{
	struct rpmaf__proto_err err;

	if (!pool->cfg->auth.key_file)
		return 0;
	if (rpmaf__proto_key_load(pool->cfg->auth.key_file, &pool->key, &err)) {
		rpmaf__wlog(pool->log, RPMAF_LOG_ERROR, "pool: %s", err.msg);
		return RPMAF_E_IO;
	}
	pool->has_key = true;
	return 0;
}

/* peer_cfg_new -- what every connection assumes of its target: persistent flushes work */
static int
peer_cfg_new(struct rpmaf_pool *pool)
{
	if (rpma_peer_cfg_new(&pool->pcfg))
		return RPMAF_E_NOMEM;
	if (rpma_peer_cfg_set_direct_write_to_pmem(pool->pcfg, true))
		return RPMAF_E_RDMA;
	return 0;
}

/* pool_free -- free a pool whose control thread is not running */
static void
pool_free(struct rpmaf_pool *pool)
{
	if (pool->efd >= 0)
		close(pool->efd);
	if (pool->pcfg)
		(void)rpma_peer_cfg_delete(&pool->pcfg);
	if (pool->tab) {
		rpmaf__pool_reader();
		(void)rpmaf__regtab_delete(&pool->tab);
	}
	conns_fini(pool);
	rpmaf__proto_key_wipe(&pool->key);
	free(pool);
}

/* pool_setup -- everything but the control thread */
static int
pool_setup(struct rpmaf_pool *pool)
{
	const struct rpmaf__regtab_ops ops = {mr_new, mr_delete, NULL};
	uint64_t scan = (uint64_t)pool->cfg->timeouts.operation_ms * 1000 / 8;
	int ret;

	pool->op_ns = (uint64_t)pool->cfg->timeouts.operation_ms * 1000000ull;
	pool->scan_us = scan > SCAN_MAX_US ? SCAN_MAX_US : scan < SCAN_MIN_US ? SCAN_MIN_US : scan;
	pool->seed = (unsigned)rpmaf__pool_now_ns() ^ (unsigned)getpid();
	if ((ret = key_load(pool)) || (ret = conns_new(pool)) || (ret = peer_cfg_new(pool)))
		return ret;
	if (rpmaf__regtab_new(&ops, &pool->tab))
		return RPMAF_E_NOMEM;
	if ((pool->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
		return RPMAF_E_SYS;
	return 0;
}

/* rpmaf_pool_new -- lay the pool out and start connecting (the control thread) */
int
rpmaf_pool_new(const struct rpmaf_cfg *cfg, struct rpma_peer *peer, struct rpmaf_workers *ws,
	       struct rpmaf_pool **pool_ptr)
{
	struct rpmaf_pool *pool;
	int ret;

	if (!cfg || !peer || !ws || !pool_ptr || cfg->ntargets == 0 || !rpmaf_workers_count(ws))
		return RPMAF_E_INVAL;
	if (!(pool = calloc(1, sizeof(*pool))))
		return RPMAF_E_NOMEM;
	pool->cfg = cfg;
	pool->peer = peer;
	pool->ws = ws;
	pool->log = &ws->log;
	pool->efd = -1;
	if ((ret = pool_setup(pool)))
		goto err_free;
	if (pthread_create(&pool->thread, NULL, rpmaf__pool_control_main, pool)) {
		ret = RPMAF_E_SYS;
		goto err_free;
	}
	pool->thread_started = true;
	*pool_ptr = pool;
	return 0;

err_free:
	pool_free(pool);
	return ret;
}

/* target_ready -- target t has a healthy connection */
static bool
target_ready(const struct rpmaf_pool *pool, unsigned t)
{
	const struct rpmaf__pool_target *tg = &pool->targets[t];

	for (unsigned i = tg->first; i < tg->first + tg->n; i++)
		if (atomic_load_explicit(&pool->conns[i].healthy, memory_order_acquire))
			return true;
	return false;
}

/* readiness -- 0 when every target is ready, RPMAF_E_AUTH when one refused the key */
static int
readiness(const struct rpmaf_pool *pool, bool log)
{
	int ret = 0;

	for (unsigned t = 0; t < pool->ntargets; t++) {
		if (target_ready(pool, t))
			continue;
		if (atomic_load(&pool->targets[t].auth_failed))
			return RPMAF_E_AUTH;
		ret = RPMAF_E_TIMEOUT;
		if (log)
			rpmaf__wlog(pool->log, RPMAF_LOG_ERROR,
				    "pool: target %s is not ready (no connection has listed its "
				    "regions yet)",
				    pool->cfg->targets[t].name);
	}
	return ret;
}

/* settled -- every connection is healthy or has failed at least once */
static bool
settled(const struct rpmaf_pool *pool)
{
	for (unsigned i = 0; i < pool->nconns; i++) {
		const struct rpmaf__pool_conn *pc = &pool->conns[i];

		if (!atomic_load_explicit(&pc->healthy, memory_order_acquire) &&
		    !atomic_load_explicit(&pc->why_down, memory_order_relaxed))
			return false;
	}
	return true;
}

/*
 * summary -- once ready: a target with fewer healthy connections than its
 * configuration asks is said so, with why the others failed (the control
 * thread writes why_down; a stale reading only words the line)
 */
static void
summary(const struct rpmaf_pool *pool)
{
	for (unsigned t = 0; t < pool->ntargets; t++) {
		const struct rpmaf__pool_target *tg = &pool->targets[t];
		const char *why = NULL;
		unsigned up = 0;

		for (unsigned i = tg->first; i < tg->first + tg->n; i++) {
			const char *w =
			    atomic_load_explicit(&pool->conns[i].why_down, memory_order_relaxed);

			if (atomic_load_explicit(&pool->conns[i].healthy, memory_order_acquire))
				up++;
			else if (w)
				why = w;
		}
		if (up < tg->n)
			rpmaf__wlog(pool->log, RPMAF_LOG_WARNING,
				    "pool: target %s: %u of %u connection%s up%s%s; the others are "
				    "retried in the background",
				    pool->cfg->targets[t].name, up, tg->n, tg->n == 1 ? "" : "s",
				    why ? ": " : "", why ? why : "");
	}
}

/* rpmaf_pool_wait_ready -- sleep on the pool's event word until ready or timeout_ms */
int
rpmaf_pool_wait_ready(struct rpmaf_pool *pool, unsigned timeout_ms)
{
	uint64_t limit = rpmaf__pool_now_ns() + (uint64_t)timeout_ms * 1000000ull, now;
	uint32_t ev;
	int ret;

	if (!pool || rpmaf__current)
		return RPMAF_E_INVAL;
	for (;;) {
		ev = atomic_load_explicit(&pool->events, memory_order_acquire);
		if (atomic_load(&pool->interrupted))
			return RPMAF_E_SHUTDOWN;
		now = rpmaf__pool_now_ns();
		ret = readiness(pool, false);
		/* ready: once every connection has had its chance (or the time is up) */
		if (!ret && (settled(pool) || now >= limit)) {
			summary(pool);
			return 0;
		}
		if (ret && ret != RPMAF_E_TIMEOUT)
			return ret;
		if (now >= limit)
			return readiness(pool, true);
		struct timespec ts = {
		    0, (long)((limit - now) < 100000000ull ? limit - now : 100000000ull)};
		(void)syscall(SYS_futex, &pool->events, FUTEX_WAIT_PRIVATE, ev, &ts, NULL, 0);
	}
}

/* rpmaf_pool_interrupt -- make the waits for readiness return (async-signal-safe) */
int
rpmaf_pool_interrupt(struct rpmaf_pool *pool)
{
	if (!pool)
		return RPMAF_E_INVAL;
	atomic_store(&pool->interrupted, 1);
	atomic_fetch_add_explicit(&pool->events, 1, memory_order_release);
	(void)syscall(SYS_futex, &pool->events, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	return 0;
}

/* barrier_fn -- a worker has run everything submitted to it before */
static void
barrier_fn(struct rpmaf_worker *w, void *arg)
{
	_Atomic uint32_t *left = arg;

	(void)w;
	atomic_fetch_sub_explicit(left, 1, memory_order_release);
	(void)syscall(SYS_futex, left, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/*
 * workers_barrier -- wait until every worker has run what was submitted to
 * it before the call (operations, deferred teardowns): nothing of the pool
 * is left in their queues.
 */
static void
workers_barrier(struct rpmaf_pool *pool)
{
	unsigned n = rpmaf_workers_count(pool->ws);
	struct rpmaf_work *works = calloc(n, sizeof(*works));
	_Atomic uint32_t left = n;
	struct rpmaf_worker *w;
	uint32_t v;

	for (unsigned i = 0; i < n; i++) {
		if (works && rpmaf_workers_get(pool->ws, i, &w) == 0 &&
		    rpmaf_worker_submit(w, &works[i], barrier_fn, &left) == 0)
			continue;
		atomic_fetch_sub(&left, 1);
	}
	while ((v = atomic_load_explicit(&left, memory_order_acquire)) != 0) {
		struct timespec ts = {0, 100000000};

		(void)syscall(SYS_futex, &left, FUTEX_WAIT_PRIVATE, v, &ts, NULL, 0);
	}
	free(works);
}

/*
 * drain_all -- once the connections are closed: have every slot's worker
 * complete what still waits for a connection and stop its timer, and wait
 * for all of them (so that what a slot moved to another before its drain
 * is in that worker's queue before the barrier that follows)
 */
static void
drain_all(struct rpmaf_pool *pool)
{
	uint32_t v;

	atomic_store(&pool->closing, pool->nconns);
	for (unsigned i = 0; i < pool->nconns; i++)
		(void)rpmaf_worker_submit(pool->conns[i].w, &pool->conns[i].drain_work,
					  rpmaf__pool_drain, &pool->conns[i]);
	while ((v = atomic_load_explicit(&pool->closing, memory_order_acquire)) != 0) {
		struct timespec ts = {0, 100000000};

		(void)syscall(SYS_futex, &pool->closing, FUTEX_WAIT_PRIVATE, v, &ts, NULL, 0);
	}
}

/* rpmaf_pool_delete -- refuse operations, close every connection, free */
int
rpmaf_pool_delete(struct rpmaf_pool **pool_ptr)
{
	struct rpmaf_pool *pool;

	if (!pool_ptr)
		return RPMAF_E_INVAL;
	if (!(pool = *pool_ptr))
		return 0;
	atomic_store(&pool->shutdown, 1);
	atomic_store(&pool->stop, 1);
	rpmaf__pool_wake(pool);
	if (pool->thread_started)
		(void)pthread_join(pool->thread, NULL);
	drain_all(pool);
	workers_barrier(pool);
	pool_free(pool);
	*pool_ptr = NULL;
	return 0;
}

/* rpmaf_pool_region -- what the table holds of a region now */
int
rpmaf_pool_region(struct rpmaf_pool *pool, const char *name, struct rpmaf_pool_region *info)
{
	struct rpmaf__regtab_info ri;
	size_t len;

	if (!pool || !name || !info)
		return RPMAF_E_INVAL;
	len = strnlen(name, RPMAF__REGTAB_NAME_MAX + 1);
	if (len == 0 || len > RPMAF__REGTAB_NAME_MAX)
		return RPMAF_E_NOENT;
	rpmaf__pool_reader();
	if (rpmaf__regtab_get(pool->tab, name, len, &ri))
		return RPMAF_E_NOENT;
	info->size = ri.size;
	info->generation = ri.generation;
	info->target = ri.target;
	info->usage = ri.usage;
	info->apm = ri.persist == RPMAF__PROTO_PERSIST_APM;
	return 0;
}
