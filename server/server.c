// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * server.c -- a server's life: made, started, its regions added and
 * removed, stopped and deleted (rpmaf.h, "Server").
 */

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../workers/worker.h"
#include "sconn.h"

/* how long the control path waits for the workers to run what it submitted */
#define WORKERS_WAIT_MS 10000

/* sleep_ms -- a short wait of the control path */
static void
sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

	(void)nanosleep(&ts, NULL);
}

/* see server.h */
const struct rpmaf__srv_handler *
rpmaf__srv_handler_find(const struct rpmaf_server *srv, uint32_t id)
{
	for (uint32_t i = 0; i < srv->nhandlers; i++) {
		if (srv->handlers[i].id == id)
			return &srv->handlers[i];
	}
	return NULL;
}

/* one function run on every worker, and the count of those still to run it */
struct each {
	struct rpmaf_work work;
	struct rpmaf_server *srv;
	void (*fn)(struct rpmaf_server *srv, struct rpmaf_worker *w, const void *arg);
	const void *arg;
	atomic_uint *left;
};

/* each_run -- a submitted function: run the function of e on this worker */
static void
each_run(struct rpmaf_worker *w, void *arg)
{
	struct each *e = arg;

	e->fn(e->srv, w, e->arg);
	atomic_fetch_sub(e->left, 1);
}

/*
 * each_worker -- run fn on every worker and wait until all have run it
 * (the control path; a worker waiting for itself would never return)
 */
static int
each_worker(struct rpmaf_server *srv,
	    void (*fn)(struct rpmaf_server *srv, struct rpmaf_worker *w, const void *arg),
	    const void *arg)
{
	unsigned n = rpmaf_workers_count(srv->ws);
	struct each *e = calloc(n, sizeof(*e));
	atomic_uint left = n;
	struct rpmaf_worker *w;

	if (!e)
		return RPMAF_E_NOMEM;
	for (unsigned i = 0; i < n; i++) {
		e[i] = (struct each){.srv = srv, .fn = fn, .arg = arg, .left = &left};
		(void)rpmaf_workers_get(srv->ws, i, &w);
		(void)rpmaf_worker_submit(w, &e[i].work, each_run, &e[i]);
	}
	while (atomic_load(&left))
		sleep_ms(1);
	free(e);
	return 0;
}

/* announce_on -- each_worker()'s function: announce to the worker's connections */
static void
announce_on(struct rpmaf_server *srv, struct rpmaf_worker *w, const void *arg)
{
	rpmaf__sconn_announce_all(srv, w, arg);
}

/*
 * close_on -- each_worker()'s function: close the worker's connections;
 * what the group still holds is made durable, and the end of turn is the
 * worker's again
 */
static void
close_on(struct rpmaf_server *srv, struct rpmaf_worker *w, const void *arg)
{
	struct rpmaf__sgroup *g = &srv->wst[rpmaf_worker_index(w)].group;

	(void)arg;
	rpmaf__sconn_close_all(srv, w);
	rpmaf__sgroup_stop(g);
}

/*
 * group_on -- each_worker()'s function: the worker groups the server's
 * persists from now on, flushed at the end of each turn that collects
 * some (sgroup.h)
 */
static void
group_on(struct rpmaf_server *srv, struct rpmaf_worker *w, const void *arg)
{
	(void)arg;
	srv->wst[rpmaf_worker_index(w)].group.on = true;
}

/*
 * first_generation -- where a server's region generations start: the clock
 * (ns), so that a server started again hands out generations newer than
 * any its clients still hold from before, and their tables take the new
 * descriptors (doc/PROTOCOL.md, "Generations")
 */
static uint64_t
first_generation(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * announce -- tell every ready client of a region's change, gen the
 * table's generation after it; a removal carries it as the region's too
 * (newer than the one clients hold)
 */
static void
announce(struct rpmaf_server *srv, uint32_t event, uint64_t gen, const struct rpmaf__sregion *r)
{
	struct rpmaf__sconn_ann a;

	if (!srv->started || srv->stopped)
		return;
	rpmaf__sconn_ann_make(&a, event, gen, r);
	if (event == RPMAF__PROTO_EV_REMOVED)
		a.region.generation = gen;
	if (each_worker(srv, announce_on, &a))
		rpmaf__wlog(srv->log, RPMAF_LOG_ERROR, "server: region %s not announced: %s",
			    r->name, rpmaf_err_str(RPMAF_E_NOMEM));
}

/* a count of connections yet to confirm the removal or change at gen, summed over the workers */
struct unacked {
	uint64_t gen;
	atomic_uint n;
};

/* unacked_on -- each_worker()'s function: add this worker's unconfirmed connections */
static void
unacked_on(struct rpmaf_server *srv, struct rpmaf_worker *w, const void *arg)
{
	struct unacked *u = (struct unacked *)arg;

	atomic_fetch_add(&u->n, rpmaf__sconn_unacked(srv, w, u->gen));
}

/*
 * acks_wait -- until every client told of the removal (or change) at gen
 * has processed it (so no operation of theirs on the region, or on its old
 * registration, is in flight any more and none will come), for at most the
 * heartbeat window (an operation's time without heartbeats): a client
 * silent that long is lost anyway, and its connection fails on the
 * region's old keys; what names the event in the log
 */
static void
acks_wait(struct rpmaf_server *srv, uint64_t gen, const char *name, const char *what)
{
	const struct rpmaf_cfg_timeouts *t = &srv->cfg->timeouts;
	/* without heartbeats, an operation's time */
	unsigned limit = t->heartbeat_interval_ms ? t->heartbeat_interval_ms * t->heartbeat_misses
						  : t->operation_ms;

	for (unsigned waited = 0;; waited++) {
		struct unacked u = {.gen = gen};

		if (each_worker(srv, unacked_on, &u) || !atomic_load(&u.n))
			return;
		if (waited >= limit) {
			rpmaf__wlog(srv->log, RPMAF_LOG_WARNING,
				    "server: region %s: %u client(s) did not confirm its %s "
				    "within %u ms; deregistered anyway",
				    name, atomic_load(&u.n), what, limit);
			return;
		}
		sleep_ms(1);
	}
}

/* region_make -- map, register and insert one region of cfg */
static int
region_make(struct rpmaf_server *srv, const struct rpmaf_cfg_region *rc,
	    struct rpmaf__sregion **r_ptr, uint64_t *gen_ptr)
{
	/* its generation comes with the insertion */
	int ret = rpmaf__sregion_new(rc, srv->peer, srv->log, r_ptr);

	if (ret)
		return ret;
	rpmaf__sregion_describe(*r_ptr, srv->log);
	if ((ret = rpmaf__sregtab_insert(&srv->regs, *r_ptr, gen_ptr)))
		(void)rpmaf__sregion_delete(r_ptr, true, srv->log);
	return ret;
}

/*
 * regions_drop -- take every region out, the newest first (the reverse of
 * the making), and delete it (undo: leave no file made); the control path
 */
static int
regions_drop(struct rpmaf_server *srv, bool undo)
{
	struct rpmaf__sregion *r;
	int ret = 0, rr;

	/* each comes out after a grace period: no worker still uses it */
	while (!rpmaf__sregtab_pop(&srv->regs, &r)) {
		if ((rr = rpmaf__sregion_delete(&r, undo, srv->log)) && !ret)
			ret = rr;
	}
	return ret;
}

/* key_load -- the pre-shared key of auth.key_file, if any */
static int
key_load(struct rpmaf_server *srv)
{
	struct rpmaf__proto_err err;

	if (!srv->cfg->auth.key_file)
		return 0;
	if (rpmaf__proto_key_load(srv->cfg->auth.key_file, &srv->key, &err)) {
		rpmaf__wlog(srv->log, RPMAF_LOG_ERROR, "server: %s", err.msg);
		return RPMAF_E_IO;
	}
	srv->has_key = true;
	return 0;
}

/* wst_new -- what the server keeps per worker */
static int
wst_new(struct rpmaf_server *srv)
{
	unsigned n = rpmaf_workers_count(srv->ws);

	if (!(srv->wst = calloc(n, sizeof(*srv->wst))))
		return RPMAF_E_NOMEM;
	for (unsigned i = 0; i < n; i++) {
		struct rpmaf_worker *w;
		int ret;

		if (!(srv->wst[i].scratch = malloc(srv->cfg->queues.msg_size)))
			return RPMAF_E_NOMEM;
		rpmaf__hist_init(&srv->wst[i].persist_lat);
		(void)rpmaf_workers_get(srv->ws, i, &w);
		/* a turn takes at most what the receive buffers hold, and what waited for credits
		 */
		if ((ret = rpmaf__sgroup_init(&srv->wst[i].group, srv, w, srv->cfg->queues.srq_rq)))
			return ret;
	}
	return 0;
}

/* wst_handlers_new -- the handlers' histograms of every worker, once the handlers are known */
static int
wst_handlers_new(struct rpmaf_server *srv)
{
	for (unsigned i = 0; srv->nhandlers && i < rpmaf_workers_count(srv->ws); i++) {
		struct rpmaf__srv_wstate *ws = &srv->wst[i];

		if (!(ws->handler_lat = malloc(srv->nhandlers * sizeof(*ws->handler_lat))))
			return RPMAF_E_NOMEM;
		for (uint32_t h = 0; h < srv->nhandlers; h++)
			rpmaf__hist_init(&ws->handler_lat[h]);
	}
	return 0;
}

/* wst_delete -- undo wst_new() */
static void
wst_delete(struct rpmaf_server *srv)
{
	for (unsigned i = 0; srv->wst && i < rpmaf_workers_count(srv->ws); i++) {
		free(srv->wst[i].scratch);
		free(srv->wst[i].handler_lat);
		rpmaf__sgroup_fini(&srv->wst[i].group);
	}
	free(srv->wst);
}

/* see rpmaf.h */
int
rpmaf_server_new(const struct rpmaf_cfg *cfg, struct rpma_peer *peer, struct rpmaf_workers *ws,
		 struct rpmaf_server **srv_ptr)
{
	struct rpmaf__sregion *r;
	struct rpmaf_server *srv;
	uint64_t gen;
	int ret;

	if (!cfg || !peer || !ws || !srv_ptr || !cfg->listen.enabled)
		return RPMAF_E_INVAL;
	if (!(srv = calloc(1, sizeof(*srv))))
		return RPMAF_E_NOMEM;
	srv->cfg = cfg;
	srv->peer = peer;
	srv->ws = ws;
	srv->log = &ws->log;
	if (pthread_mutex_init(&srv->reg_lock, NULL)) {
		ret = RPMAF_E_SYS;
		goto err_free;
	}
	if ((ret = rpmaf__sregtab_init(&srv->regs, first_generation())))
		goto err_lock;
	if ((ret = wst_new(srv)) || (ret = key_load(srv)))
		goto err_wst;
	for (uint32_t i = 0; i < cfg->nregions; i++) {
		if ((ret = region_make(srv, &cfg->regions[i], &r, &gen)))
			goto err_regions;
	}
	*srv_ptr = srv;
	return 0;

err_regions:
	(void)regions_drop(srv, true);
	rpmaf__proto_key_wipe(&srv->key);
err_wst:
	wst_delete(srv);
	rpmaf__sregtab_fini(&srv->regs);
err_lock:
	(void)pthread_mutex_destroy(&srv->reg_lock);
err_free:
	free(srv);
	return ret;
}

/* listed_add -- a handler with flags into the list HANDLER_LIST pages, kept by id */
static int
listed_add(struct rpmaf_server *srv, uint32_t id, unsigned flags)
{
	struct rpmaf__srv_listed *l;
	uint32_t i;

	if (!(l = realloc(srv->listed, (srv->nlisted + 1) * sizeof(*l))))
		return RPMAF_E_NOMEM;
	srv->listed = l;
	for (i = srv->nlisted; i > 0 && l[i - 1].id > id; i--)
		l[i] = l[i - 1];
	l[i] = (struct rpmaf__srv_listed){
	    id, flags & RPMAF_HANDLER_IDEMPOTENT ? RPMAF__PROTO_HANDLER_IDEMPOTENT : 0};
	srv->nlisted++;
	return 0;
}

/*
 * handler_add -- one handler more: fn answers at once, call_fn later (one
 * of them); with flags, announced to clients (HANDLER_LIST)
 */
static int
handler_add(struct rpmaf_server *srv, uint32_t id, rpmaf_handler_fn fn, rpmaf_call_fn call_fn,
	    void *arg, unsigned flags)
{
	struct rpmaf__srv_handler *h;
	int ret;

	if (!srv || (!fn && !call_fn) || srv->started || rpmaf__srv_handler_find(srv, id) ||
	    (flags & ~RPMAF_HANDLER_IDEMPOTENT) ||
	    (flags && srv->nlisted >= RPMAF__PROTO_HANDLERS_MAX))
		return RPMAF_E_INVAL;
	if (!(h = realloc(srv->handlers, (srv->nhandlers + 1) * sizeof(*h))))
		return RPMAF_E_NOMEM;
	srv->handlers = h;
	if (flags && (ret = listed_add(srv, id, flags)))
		return ret;
	h[srv->nhandlers++] = (struct rpmaf__srv_handler){id, fn, call_fn, arg, flags};
	return 0;
}

/* see rpmaf.h */
int
rpmaf_server_handler_add(struct rpmaf_server *srv, uint32_t handler_id, rpmaf_handler_fn fn,
			 void *arg)
{
	return fn ? handler_add(srv, handler_id, fn, NULL, arg, 0) : RPMAF_E_INVAL;
}

/* see rpmaf.h */
int
rpmaf_server_handler_add_flags(struct rpmaf_server *srv, uint32_t handler_id, rpmaf_handler_fn fn,
			       void *arg, unsigned flags)
{
	return fn ? handler_add(srv, handler_id, fn, NULL, arg, flags) : RPMAF_E_INVAL;
}

/* see rpmaf.h */
int
rpmaf_server_call_handler_add_flags(struct rpmaf_server *srv, uint32_t handler_id, rpmaf_call_fn fn,
				    void *arg, unsigned flags)
{
	return fn ? handler_add(srv, handler_id, NULL, fn, arg, flags) : RPMAF_E_INVAL;
}

/* see rpmaf.h */
int
rpmaf_server_call_handler_add(struct rpmaf_server *srv, uint32_t handler_id, rpmaf_call_fn fn,
			      void *arg)
{
	return fn ? handler_add(srv, handler_id, NULL, fn, arg, 0) : RPMAF_E_INVAL;
}

/* see rpmaf.h */
int
rpmaf_server_on_conn_closed(struct rpmaf_server *srv, rpmaf_conn_closed_fn fn, void *arg)
{
	if (!srv || !fn || srv->started || srv->closed_fn)
		return RPMAF_E_INVAL;
	srv->closed_fn = fn;
	srv->closed_arg = arg;
	return 0;
}

/* see rpmaf.h */
int
rpmaf_server_start(struct rpmaf_server *srv)
{
	int ret;

	if (!srv || srv->started)
		return RPMAF_E_INVAL;
	if ((ret = wst_handlers_new(srv)))
		return ret;
	srv->start_ns = rpmaf__now_ns();
	if ((ret = rpmaf__acceptor_start(&srv->acc, srv)))
		return ret;
	srv->started = true;
	/* from a worker thread each_worker() would wait for itself: no group then */
	if (!rpmaf__current && each_worker(srv, group_on, NULL))
		rpmaf__wlog(srv->log, RPMAF_LOG_NOTICE, "server: persists are not grouped: %s",
			    rpmaf_err_str(RPMAF_E_NOMEM));
	return 0;
}

/* see rpmaf.h */
unsigned
rpmaf_server_port(const struct rpmaf_server *srv)
{
	return srv && srv->started && !srv->stopped ? srv->cfg->listen.port : 0;
}

/* see rpmaf.h */
int
rpmaf_server_region_add(struct rpmaf_server *srv, const struct rpmaf_cfg_region *region)
{
	struct rpmaf__sregion *r;
	uint64_t gen;
	int ret;

	/* from a worker thread it would wait for its own worker (each_worker(), a grace period) */
	if (!srv || !region || rpmaf__current)
		return RPMAF_E_INVAL;
	if ((ret = region_make(srv, region, &r, &gen)))
		return ret;
	announce(srv, RPMAF__PROTO_EV_ADDED, gen, r);
	return 0;
}

/* see rpmaf.h */
int
rpmaf_server_region_add_mem(struct rpmaf_server *srv, const struct rpmaf_mem_region *region)
{
	struct rpmaf__sregion *r;
	uint64_t gen;
	int ret;

	if (!srv || !region || rpmaf__current)
		return RPMAF_E_INVAL;
	if ((ret = rpmaf__sregion_new_mem(region, srv->peer, srv->log, &r)))
		return ret;
	rpmaf__sregion_describe(r, srv->log);
	if ((ret = rpmaf__sregtab_insert(&srv->regs, r, &gen))) {
		(void)rpmaf__sregion_delete(&r, true, srv->log);
		return ret;
	}
	announce(srv, RPMAF__PROTO_EV_ADDED, gen, r);
	return 0;
}

/* see rpmaf.h */
int
rpmaf_server_region_remove(struct rpmaf_server *srv, const char *name)
{
	struct rpmaf__sregion *r;
	uint64_t gen;
	int ret;

	if (!srv || !name || rpmaf__current)
		return RPMAF_E_INVAL;
	(void)pthread_mutex_lock(&srv->reg_lock);
	/* on return a grace period has passed: no worker finds it or still uses it */
	if ((ret = rpmaf__sregtab_remove(&srv->regs, name, &r, &gen)) == 0) {
		/* posted (or queued) on every worker before each_worker() returns */
		announce(srv, RPMAF__PROTO_EV_REMOVED, gen, r);
		if (srv->started && !srv->stopped)
			acks_wait(srv, gen, r->name, "removal");
		(void)rpmaf__sregion_delete(&r, false, srv->log);
	}
	(void)pthread_mutex_unlock(&srv->reg_lock);
	return ret;
}

/* region_of -- the exported region named name (NULL: none), valid while reg_lock is held */
static struct rpmaf__sregion *
region_of(struct rpmaf_server *srv, const char *name)
{
	struct rpmaf__sregion *r =
	    rpmaf__sregtab_find(rpmaf__sregtab_lock(&srv->regs), name, strlen(name));

	rpmaf__sregtab_unlock(&srv->regs);
	return r;
}

/*
 * change_locked -- rpmaf_server_region_change() with reg_lock held: the
 * new registration made beside the old one, swapped into the table,
 * announced; the old one deregistered once every client confirmed
 */
static int
change_locked(struct rpmaf_server *srv, const struct rpmaf_cfg_region *rc)
{
	struct rpmaf__sregion *old = region_of(srv, rc->name), *r;
	uint64_t gen, old_size;
	int ret;

	if (!old)
		return RPMAF_E_NOENT;
	if ((ret = rpmaf__sregion_change(old, rc, srv->peer, srv->log, &r)))
		return ret;
	rpmaf__sregion_describe(r, srv->log);
	if ((ret = rpmaf__sregtab_replace(&srv->regs, old, r, &gen))) {
		(void)rpmaf__sregion_delete(&r, false, srv->log);
		return ret;
	}
	/* no worker finds old any more: its counters are final, the region's go on */
	rpmaf__srv_count(&r->lookups, atomic_load(&old->lookups));
	rpmaf__srv_count(&r->persists, atomic_load(&old->persists));
	rpmaf__srv_count(&r->persist_bytes, atomic_load(&old->persist_bytes));
	announce(srv, RPMAF__PROTO_EV_CHANGED, gen, r);
	if (srv->started && !srv->stopped)
		acks_wait(srv, gen, r->name, "change");
	old_size = old->size;
	(void)rpmaf__sregion_delete(&old, false, srv->log);
	rpmaf__sregion_trim(r, old_size, rc->create, srv->log);
	rpmaf__wlog(
	    srv->log, RPMAF_LOG_INFO,
	    "server: region %s changed: %llu bytes (were %llu), usage 0x%x, generation %llu",
	    r->name, (unsigned long long)r->size, (unsigned long long)old_size, r->usage,
	    (unsigned long long)gen);
	return 0;
}

/* see rpmaf.h */
int
rpmaf_server_region_change(struct rpmaf_server *srv, const struct rpmaf_cfg_region *region)
{
	int ret;

	if (!srv || !region || !region->name || rpmaf__current)
		return RPMAF_E_INVAL;
	(void)pthread_mutex_lock(&srv->reg_lock);
	ret = change_locked(srv, region);
	(void)pthread_mutex_unlock(&srv->reg_lock);
	return ret;
}

/* see rpmaf.h */
int
rpmaf_server_region_ptr(struct rpmaf_server *srv, const char *name, void **ptr_ptr,
			size_t *size_ptr)
{
	const struct rpmaf__sregion *r;

	if (!srv || !name || !ptr_ptr || !size_ptr)
		return RPMAF_E_INVAL;
	/* an application's thread, not an RCU reader: the table's mutex */
	if ((r = rpmaf__sregtab_find(rpmaf__sregtab_lock(&srv->regs), name, strlen(name)))) {
		*ptr_ptr = r->ptr;
		*size_ptr = r->size;
	}
	rpmaf__sregtab_unlock(&srv->regs);
	return r ? 0 : RPMAF_E_NOENT;
}

/* see rpmaf.h */
int
rpmaf_server_region_persist(struct rpmaf_server *srv, const char *name, size_t offset, size_t len)
{
	const struct rpmaf__sregsnap *s;
	const struct rpmaf__sregion *r;
	bool reader = rpmaf__current != NULL;
	int ret = 0;

	if (!srv || !name || !len)
		return RPMAF_E_INVAL;
	/* a worker thread is a registered RCU reader: no lock on a handler's path */
	s = reader ? rpmaf__sregtab_read_lock(&srv->regs) : rpmaf__sregtab_lock(&srv->regs);
	if (!(r = rpmaf__sregtab_find(s, name, strlen(name))))
		ret = RPMAF_E_NOENT;
	else if (offset > r->size || len > r->size - offset)
		ret = RPMAF_E_INVAL;
	else
		rpmaf__sregion_persist(r, offset, len);
	if (reader)
		rpmaf__sregtab_read_unlock();
	else
		rpmaf__sregtab_unlock(&srv->regs);
	return ret;
}

/* drain -- wait for the requests waiting for a credit, up to timeout_ms */
static int
drain(struct rpmaf_server *srv, unsigned timeout_ms)
{
	for (unsigned waited = 0; atomic_load(&srv->pending); waited++) {
		if (waited >= timeout_ms)
			return RPMAF_E_TIMEOUT;
		sleep_ms(1);
	}
	return 0;
}

/*
 * persist_all -- persist every file-backed region (the caller's memory is
 * the caller's to persist; the control path: the table's mutex)
 */
static void
persist_all(struct rpmaf_server *srv)
{
	const struct rpmaf__sregsnap *s = rpmaf__sregtab_lock(&srv->regs);

	for (uint32_t i = 0; i < s->n; i++) {
		if (!s->v[i]->caller_mem)
			rpmaf__sregion_persist(s->v[i], 0, s->v[i]->size);
	}
	rpmaf__sregtab_unlock(&srv->regs);
}

/* see rpmaf.h */
int
rpmaf_server_stop(struct rpmaf_server *srv, unsigned timeout_ms)
{
	int ret;

	if (!srv || rpmaf__current)
		return RPMAF_E_INVAL;
	if (srv->stopped)
		return 0;
	atomic_store(&srv->stopping, 1);
	rpmaf__acceptor_stop(&srv->acc);
	ret = drain(srv, timeout_ms);
	if (srv->started && each_worker(srv, close_on, NULL) && !ret)
		ret = RPMAF_E_NOMEM;
	/* the connections the application's unanswered calls keep are freed when it answers */
	for (unsigned waited = 0;
	     atomic_load(&srv->nobjs) > atomic_load(&srv->held) && waited < WORKERS_WAIT_MS;
	     waited++)
		sleep_ms(1);
	persist_all(srv);
	/* the acceptor is gone: the last connections come and gone are summed up here */
	(void)rpmaf__churn_report(&srv->churn, srv->log, true);
	srv->stopped = true;
	rpmaf__wlog(srv->log, RPMAF_LOG_NOTICE, "server: stopped%s",
		    ret == RPMAF_E_TIMEOUT ? " (requests were still waiting)" : "");
	return ret;
}

/*
 * calls_wait -- the answers given before the delete reach their workers and
 * free the connections they kept (the workers still run); an answer never
 * given is the application's error: logged, and its connection is leaked
 */
static void
calls_wait(struct rpmaf_server *srv)
{
	for (unsigned waited = 0; atomic_load(&srv->nobjs) && waited < WORKERS_WAIT_MS; waited++)
		sleep_ms(1);
	if (atomic_load(&srv->nobjs))
		rpmaf__wlog(srv->log, RPMAF_LOG_ERROR,
			    "server: %u connection(s) still held by calls never answered",
			    atomic_load(&srv->nobjs));
}

/* see rpmaf.h */
int
rpmaf_server_delete(struct rpmaf_server **srv_ptr)
{
	struct rpmaf_server *srv;
	int ret = 0, rr;

	if (!srv_ptr)
		return RPMAF_E_INVAL;
	if (!(srv = *srv_ptr))
		return 0;
	if (srv->started)
		ret = rpmaf_server_stop(srv, srv->cfg->timeouts.operation_ms);
	calls_wait(srv);
	/* a server that never served (its start failed, or never came) leaves nothing it made */
	if ((rr = regions_drop(srv, !srv->started)) && !ret)
		ret = rr;
	rpmaf__sregtab_fini(&srv->regs);
	(void)pthread_mutex_destroy(&srv->reg_lock);
	wst_delete(srv);
	rpmaf__proto_key_wipe(&srv->key);
	free(srv->listed);
	free(srv->handlers);
	free(srv);
	*srv_ptr = NULL;
	return ret;
}

/* see rpmaf.h */
int
rpmaf_server_get_stats(const struct rpmaf_server *srv, struct rpmaf_server_stats *s)
{
	if (!srv || !s)
		return RPMAF_E_INVAL;
#define LOAD(x) atomic_load_explicit(&((struct rpmaf_server *)srv)->st.x, memory_order_relaxed)
	s->accepted = LOAD(accepted);
	s->rejected = LOAD(rejected);
	s->auth_failed = LOAD(auth_failed);
	s->proto_errors = LOAD(proto_errors);
	s->lost = LOAD(lost);
	s->requests = LOAD(requests);
	s->persists = LOAD(persists);
	s->persist_bytes = LOAD(persist_bytes);
	s->app_requests = LOAD(app_requests);
	s->announcements = LOAD(announcements);
#undef LOAD
	s->connections = atomic_load(&((struct rpmaf_server *)srv)->nconns);
	/* an application's thread, not an RCU reader: the table's mutex */
	s->regions = rpmaf__sregtab_lock(&((struct rpmaf_server *)srv)->regs)->n;
	rpmaf__sregtab_unlock(&((struct rpmaf_server *)srv)->regs);
	return 0;
}
