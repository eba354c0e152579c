// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * stats.c -- the pool's counters and latencies: each connection's block
 * (written by its worker only) summed per worker and for the whole pool,
 * as a struct rpmaf_pool_stats (and rpmaf_pool_fault_stats) or as JSON
 * lines (stats/json.h).
 */

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../stats/json.h"
#include "pool.h"

/* the counter of each kind's operations and of its bytes (RPMAF__CTR_MAX: none) */
static const enum rpmaf__ctr Kind_ops[POOL_K_MAX] = {
    RPMAF__CTR_WRITE_OPS,	RPMAF__CTR_READ_OPS,	     RPMAF__CTR_FLUSH_OPS,
    RPMAF__CTR_WRITE_FLUSH_OPS, RPMAF__CTR_ATOMIC_WRITE_OPS, RPMAF__CTR_MSG_OPS};
static const enum rpmaf__ctr Kind_bytes[POOL_K_MAX] = {
    RPMAF__CTR_WRITE_BYTES,	  RPMAF__CTR_READ_BYTES, RPMAF__CTR_MAX,
    RPMAF__CTR_WRITE_FLUSH_BYTES, RPMAF__CTR_MAX,	 RPMAF__CTR_MSG_BYTES_OUT};

/* totals -- the counters and latencies of the pool's connections of worker w (-1: all) */
static void
totals(const struct rpmaf_pool *pool, int w, struct rpmaf__ctrs_snap *s, struct rpmaf__hist_snap *h,
       uint64_t *queued, uint32_t *healthy)
{
	unsigned nw = rpmaf_workers_count(pool->ws);

	rpmaf__ctrs_snap_clear(s);
	rpmaf__hist_snap_clear(h);
	for (unsigned i = 0; i < pool->nconns; i++) {
		const struct rpmaf__pool_conn *pc = &pool->conns[i];

		if (w >= 0 && i % nw != (unsigned)w)
			continue;
		rpmaf__ctrs_snap_add(s, &pc->ctrs);
		rpmaf__hist_snap_add(h, &pc->lat);
		if (queued)
			*queued += atomic_load_explicit(&pc->queued, memory_order_relaxed);
		if (healthy)
			*healthy += atomic_load_explicit(&pc->healthy, memory_order_relaxed);
	}
}

/* rpmaf_pool_get_stats -- the pool's totals */
int
rpmaf_pool_get_stats(const struct rpmaf_pool *pool, struct rpmaf_pool_stats *st)
{
	struct rpmaf__ctrs_snap s;
	struct rpmaf__hist_snap hs, *h = &hs; /* about 16 KiB: no allocation, no error */

	if (!pool || !st)
		return RPMAF_E_INVAL;
	memset(st, 0, sizeof(*st));
	totals(pool, -1, &s, h, &st->queued, &st->healthy);
	for (unsigned k = 0; k < POOL_K_MAX; k++) {
		st->ops[k] = s.v[Kind_ops[k]];
		st->bytes[k] = Kind_bytes[k] == RPMAF__CTR_MAX ? 0 : s.v[Kind_bytes[k]];
	}
	st->bytes[POOL_K_ATOMIC] = 8 * st->ops[POOL_K_ATOMIC];
	st->bytes[POOL_K_CALL] += s.v[RPMAF__CTR_MSG_BYTES_IN];
	st->errors = s.v[RPMAF__CTR_ERRORS];
	st->timeouts = s.v[RPMAF__CTR_TIMEOUTS];
	st->reconnects = s.v[RPMAF__CTR_RECONNECTS];
	st->credit_stalls = s.v[RPMAF__CTR_CREDIT_STALLS];
	st->connections = pool->nconns;
	st->lat_p50_ns = rpmaf__hist_snap_percentile(h, 50);
	st->lat_p99_ns = rpmaf__hist_snap_percentile(h, 99);
	st->lat_p999_ns = rpmaf__hist_snap_percentile(h, 99.9);
	st->lat_max_ns = h->count ? h->max : 0;
	return 0;
}

/* rpmaf_pool_get_fault_stats -- the pool's fault counters, and what waits now */
int
rpmaf_pool_get_fault_stats(const struct rpmaf_pool *pool, struct rpmaf_pool_fault_stats *st)
{
	struct rpmaf__ctrs_snap s;

	if (!pool || !st)
		return RPMAF_E_INVAL;
	memset(st, 0, sizeof(*st));
	rpmaf__ctrs_snap_clear(&s);
	for (unsigned i = 0; i < pool->nconns; i++) {
		rpmaf__ctrs_snap_add(&s, &pool->conns[i].ctrs);
		st->down += !atomic_load_explicit(&pool->conns[i].healthy, memory_order_relaxed);
	}
	for (unsigned t = 0; t < pool->ntargets; t++)
		st->waiting += atomic_load_explicit(
		    &((struct rpmaf_pool *)pool)->targets[t].waiting, memory_order_relaxed);
	st->conn_lost = s.v[RPMAF__CTR_CONN_LOST];
	st->peer_silent = s.v[RPMAF__CTR_PEER_SILENT];
	st->waited = s.v[RPMAF__CTR_WAITED];
	st->retried = s.v[RPMAF__CTR_RETRIED];
	st->wait_timeouts = s.v[RPMAF__CTR_WAIT_TIMEOUTS];
	return 0;
}

/* line -- one JSON line of a snapshot */
static int
line(FILE *out, const char *scope, uint64_t id, const struct rpmaf__ctrs_snap *s,
     const struct rpmaf__hist_snap *h)
{
	struct rpmaf__stats_lat lat = {"all", h};
	struct timespec ts;
	struct rpmaf__stats_view v;

	clock_gettime(CLOCK_REALTIME, &ts);
	v.time_ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	v.scope = scope;
	v.id = id;
	v.ctrs = s;
	v.lat = &lat;
	v.n_lat = 1;
	return rpmaf__stats_json_file(&v, out) ? RPMAF_E_IO : 0;
}

/* worker_line -- a worker's line: its connections' sums and its own polling counters */
static int
worker_line(const struct rpmaf_pool *pool, FILE *out, unsigned w, struct rpmaf__ctrs_snap *s,
	    struct rpmaf__hist_snap *h)
{
	struct rpmaf_worker_stats ws;
	struct rpmaf_worker *wk;

	totals(pool, (int)w, s, h, NULL, NULL);
	if (rpmaf_workers_get(pool->ws, w, &wk) == 0 && rpmaf_worker_get_stats(wk, &ws) == 0) {
		s->v[RPMAF__CTR_POLLS] += ws.polls;
		s->v[RPMAF__CTR_EMPTY_POLLS] += ws.empty_polls;
		s->v[RPMAF__CTR_COMPLETIONS] += ws.completions;
	}
	return line(out, "worker", w, s, h);
}

/* dump -- the lines: every worker, every connection, then the pool's totals */
static int
dump(const struct rpmaf_pool *pool, FILE *out, struct rpmaf__hist_snap *h)
{
	struct rpmaf__ctrs_snap s;
	int ret;

	for (unsigned w = 0; w < rpmaf_workers_count(pool->ws); w++)
		if ((ret = worker_line(pool, out, w, &s, h)))
			return ret;
	for (unsigned i = 0; i < pool->nconns; i++) {
		rpmaf__ctrs_snap_clear(&s);
		rpmaf__hist_snap_clear(h);
		rpmaf__ctrs_snap_add(&s, &pool->conns[i].ctrs);
		rpmaf__hist_snap_add(h, &pool->conns[i].lat);
		if ((ret = line(out, "conn", i, &s, h)))
			return ret;
	}
	totals(pool, -1, &s, h, NULL, NULL);
	return line(out, "pool", 0, &s, h);
}

/* rpmaf_pool_dump_json -- the pool's counters and histograms as JSON lines */
int
rpmaf_pool_dump_json(const struct rpmaf_pool *pool, FILE *out)
{
	struct rpmaf__hist_snap *h;
	int ret;

	if (!pool || !out)
		return RPMAF_E_INVAL;
	if (!(h = malloc(sizeof(*h))))
		return RPMAF_E_NOMEM;
	ret = dump(pool, out, h);
	free(h);
	return ret;
}
