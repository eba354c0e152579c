// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * wload.c -- windowed RDMA writes on librpmaf's workers
 *
 * The main thread makes the connections (at most LOAD_PIPELINE requests in
 * flight) and hands each to a worker; everything about a connection after
 * that runs on its worker's thread, in the callbacks and submitted
 * functions below. The main thread only reads the atomic counters.
 */

#include <infiniband/verbs.h>
#include <librpma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpmaf.h"
#include "wload.h"

#define WLOAD_MSG_SIZE	 256  /* the smallest message buffer the configuration accepts */
#define WLOAD_CREDITS	 3    /* the fewest message credits it accepts */
#define WLOAD_POLL_BATCH 32   /* completions taken per poll */
#define WLOAD_TARGET_MAX 1024 /* connections one target entry may have */
#define WLOAD_YAML_MAX	 8192

/* where a connection is; changed by its worker only */
enum wload_state {
	WLOAD_NEW,	   /* not attached (yet, or the attach failed) */
	WLOAD_ATTACHED,	   /* attached, not established */
	WLOAD_ESTABLISHED, /* writing */
	WLOAD_CLOSING,	   /* disconnected by the benchmark, waiting for its event */
	WLOAD_CLOSED,	   /* closed and counted in wl->closed */
};

struct wload;

/* one connection; every field but w, work, d.conn and d.idx is its worker's */
struct wload_conn {
	struct wload *wl;
	struct rpmaf_worker *w;
	struct rpmaf_wconn *wc;
	struct rpmaf_work work; /* attach, then teardown */
	struct load_dst d;	/* d.conn and d.idx are set by the main thread, before attaching */
	void *src;		/* a slab buffer: the source of every write */
	unsigned outstanding;	/* writes posted and not retired */
	enum wload_state state;
};

/* one run */
struct wload {
	const struct load_params *p;
	struct load_result *r;
	struct rpma_peer *peer;
	struct rpmaf_cfg *cfg;
	struct rpmaf_workers *ws;
	struct rpma_conn_cfg *ccfg;
	struct wload_conn *conns;
	struct load_counter *ctr; /* one per worker */
	unsigned nworkers, n;
	unsigned issued; /* connections handed to a worker (main thread) */
	bool leaked;	 /* connections could not be closed: the workers keep running */
	atomic_uint established, drained, closed;
	atomic_int stop; /* set by the main thread: no more refills */
};

/* wload_cfg_yaml -- the configuration as a file would give it: the loader checks every rule */
static int
wload_cfg_yaml(const struct wload *wl, unsigned cpw, char *buf, size_t size)
{
	unsigned sq = wl->p->window > WLOAD_CREDITS ? wl->p->window : WLOAD_CREDITS;
	unsigned batch = cpw * sq < WLOAD_POLL_BATCH ? cpw * sq : WLOAD_POLL_BATCH;
	size_t len = (size_t)snprintf(buf, size,
				      "workers:\n  count: %u\n  polling: busy\n  batch: %u\n"
				      "queues:\n  sq: %u\n  cq: auto\n  srq:\n    rq: auto\n"
				      "  messages:\n    size: %u\n    credits: %u\n"
				      "timeouts:\n  connect_ms: %u\nlog:\n  level: error\n"
				      "targets:\n",
				      wl->nworkers, batch, sq, WLOAD_MSG_SIZE, WLOAD_CREDITS,
				      (unsigned)(LOAD_CONNECT_S * 1000));

	/* one target entry holds at most WLOAD_TARGET_MAX connections */
	for (unsigned left = wl->n, t = 0; left && len < size; t++) {
		unsigned c = left < WLOAD_TARGET_MAX ? left : WLOAD_TARGET_MAX;

		len += (size_t)snprintf(buf + len, size - len,
					"  - name: t%u\n    address: %s\n    port: %s\n"
					"    connections: %u\n",
					t, UTIL_ADDR, wl->p->port, c);
		left -= c;
	}
	return len < size ? (int)len : -1;
}

/* wload_cfg -- load the configuration of wl->nworkers workers with cpw connections each */
static int
wload_cfg(struct wload *wl, unsigned cpw)
{
	char yaml[WLOAD_YAML_MAX];
	struct rpmaf_cfg_err err;
	int len = wload_cfg_yaml(wl, cpw, yaml, sizeof(yaml));

	if (len < 0) {
		util_fail(&wl->r->fail, "workers: the configuration does not fit its buffer");
		return -1;
	}
	if (rpmaf_cfg_load_buffer("rpmaf-bench", yaml, (size_t)len, NULL, &wl->cfg, &err)) {
		util_fail(&wl->r->fail, "workers: configuration: %s", err.msg);
		return -1;
	}
	return 0;
}

/* wload_open -- the peer, the workers and the bookkeeping, before any connection */
static int
wload_open(struct wload *wl, unsigned cpw)
{
	int ret;

	if ((ret = util_peer_new(&wl->peer))) {
		util_fail(&wl->r->fail, "no device for %s: %s", UTIL_ADDR, rpma_err_2str(ret));
		return -1;
	}
	if (wload_cfg(wl, cpw))
		return -1;
	if ((ret = rpmaf_workers_new(wl->cfg, wl->peer, &wl->ws))) {
		util_fail(&wl->r->fail, "rpmaf_workers_new: %s", rpmaf_err_str(ret));
		return -1;
	}
	if ((ret = rpma_conn_cfg_new(&wl->ccfg))) {
		util_fail(&wl->r->fail, "rpma_conn_cfg_new: %s", rpma_err_2str(ret));
		return -1;
	}
	wl->conns = calloc(wl->n, sizeof(*wl->conns));
	wl->ctr = load_counters_new(wl->nworkers);
	if (!wl->conns || !wl->ctr) {
		util_fail(&wl->r->fail, "out of memory");
		return -1;
	}
	return 0;
}

/* wload_close -- release what wload_open() made, in reverse; a failure here is reported too */
static void
wload_close(struct wload *wl)
{
	int ret;

	if (wl->leaked)
		return; /* the workers still use everything */
	free(wl->ctr);
	free(wl->conns);
	(void)rpma_conn_cfg_delete(&wl->ccfg);
	if (wl->ws && (ret = rpmaf_workers_delete(&wl->ws)))
		util_fail(&wl->r->fail, "rpmaf_workers_delete: %s", rpmaf_err_str(ret));
	(void)rpmaf_cfg_delete(&wl->cfg);
	(void)rpma_peer_delete(&wl->peer);
}

/* ------------------------------------------------------------ worker thread */

/* wload_post_batch -- one admitted batch of writes */
static int
wload_post_batch(struct wload_conn *c)
{
	unsigned b = c->wl->p->batch, posted;
	int ret;

	if ((ret = rpmaf_wconn_admit(c->wc, b))) {
		util_fail(&c->wl->r->fail, "connection %u: admission refused: %s", c->d.idx,
			  rpmaf_err_str(ret));
		return -1;
	}
	if ((ret = load_write_batch(c->wl->p, &c->d, c, &posted))) {
		(void)rpmaf_wconn_unadmit(c->wc, b - posted);
		util_fail(&c->wl->r->fail, "connection %u: rpma_write: %s", c->d.idx,
			  rpma_err_2str(ret));
		return -1;
	}
	c->outstanding += b;
	return 0;
}

/* wload_fill -- a full window: every batch it holds */
static void
wload_fill(struct wload_conn *c)
{
	while (c->outstanding + c->wl->p->batch <= c->wl->p->window)
		if (wload_post_batch(c))
			return;
}

/* wload_on_wc -- a batch retired: count it and write the next one, unless stopping */
static void
wload_on_wc(struct rpmaf_wconn *wc, const struct ibv_wc *wcq, void *ctx)
{
	struct wload_conn *c = ctx;
	struct wload *wl = c->wl;

	(void)wc;
	if (wcq->status != IBV_WC_SUCCESS) {
		util_fail(&wl->r->fail, "connection %u: a write failed: %s", c->d.idx,
			  ibv_wc_status_str(wcq->status));
		return;
	}
	load_count(&wl->ctr[rpmaf_worker_index(c->w)], wl->p->batch);
	c->outstanding -= wl->p->batch;
	if (!atomic_load_explicit(&wl->stop, memory_order_relaxed)) {
		(void)wload_post_batch(c);
	} else if (c->outstanding == 0) {
		atomic_fetch_add(&wl->drained, 1);
	}
}

/* wload_established -- take the region's descriptor and a source buffer, then start */
static void
wload_established(struct wload_conn *c)
{
	struct rpma_conn_private_data pd;
	struct wload *wl = c->wl;

	if (rpma_conn_get_private_data(c->d.conn, &pd) || pd.ptr == NULL ||
	    rpma_mr_remote_from_descriptor(pd.ptr, pd.len, &c->d.dst) ||
	    rpma_mr_remote_get_size(c->d.dst, &c->d.dst_size) || c->d.dst_size < LOAD_WRITE_SIZE) {
		util_fail(&wl->r->fail, "connection %u: no region descriptor from the server",
			  c->d.idx);
		return;
	}
	if (rpmaf_worker_buf_get(c->w, &c->src) ||
	    rpmaf_worker_buf_mr(c->w, c->src, &c->d.src_mr, &c->d.src_off)) {
		util_fail(&wl->r->fail, "connection %u: no slab buffer", c->d.idx);
		return;
	}
	memset(c->src, (int)c->d.idx, LOAD_WRITE_SIZE);
	c->state = WLOAD_ESTABLISHED;
	atomic_fetch_add(&wl->established, 1);
	wload_fill(c);
}

/* wload_conn_close -- the end of a connection, whatever its state: counted once */
static void
wload_conn_close(struct wload_conn *c)
{
	if (c->src)
		(void)rpmaf_worker_buf_put(c->w, c->src);
	c->src = NULL;
	(void)rpma_mr_remote_delete(&c->d.dst);
	if (c->wc && rpmaf_wconn_close(&c->wc))
		util_fail(&c->wl->r->fail, "connection %u: rpmaf_wconn_close failed", c->d.idx);
	c->state = WLOAD_CLOSED;
	atomic_fetch_add(&c->wl->closed, 1);
}

/* wload_on_event -- established: start; anything else ends the connection */
static void
wload_on_event(struct rpmaf_wconn *wc, int event, void *ctx)
{
	struct wload_conn *c = ctx;
	enum rpma_conn_event ev = (enum rpma_conn_event)event;

	(void)wc;
	if (ev == RPMA_CONN_ESTABLISHED && c->state == WLOAD_ATTACHED) {
		wload_established(c);
		return;
	}
	if (c->state != WLOAD_CLOSING)
		util_fail(&c->wl->r->fail, "connection %u: %s", c->d.idx,
			  rpma_utils_conn_event_2str(ev));
	if (c->state != WLOAD_CLOSED)
		wload_conn_close(c);
}

static const struct rpmaf_wconn_ops Wload_ops = {
    .on_wc = wload_on_wc,
    .on_event = wload_on_event,
};

/* wload_attach -- on the worker: it owns the connection from now on */
static void
wload_attach(struct rpmaf_worker *w, void *arg)
{
	struct wload_conn *c = arg;
	int ret = rpmaf_worker_attach(w, c->d.conn, &Wload_ops, c, &c->wc);

	if (ret) {
		util_fail(&c->wl->r->fail, "connection %u: rpmaf_worker_attach: %s", c->d.idx,
			  rpmaf_err_str(ret));
		(void)rpma_conn_delete(&c->d.conn);
		return;
	}
	c->state = WLOAD_ATTACHED;
}

/* wload_teardown -- on the worker: disconnect an established connection, close the others */
static void
wload_teardown(struct rpmaf_worker *w, void *arg)
{
	struct wload_conn *c = arg;

	(void)w;
	switch (c->state) {
	case WLOAD_NEW: /* the attach failed: nothing to close */
		c->state = WLOAD_CLOSED;
		atomic_fetch_add(&c->wl->closed, 1);
		break;
	case WLOAD_ATTACHED:
		wload_conn_close(c);
		break;
	case WLOAD_ESTABLISHED:
		c->state = WLOAD_CLOSING;
		if (rpma_conn_disconnect(c->d.conn)) {
			util_fail(&c->wl->r->fail, "connection %u: disconnect failed", c->d.idx);
			wload_conn_close(c);
		}
		break;
	default:
		break;
	}
}

/* -------------------------------------------------------------- main thread */

/* wload_err_str -- the text of a code from either library: their ranges do not overlap */
static const char *
wload_err_str(int ret)
{
	return ret <= RPMA_E_UNKNOWN ? rpma_err_2str(ret) : rpmaf_err_str(ret);
}

/* wload_connect_one -- request connection i on the least loaded worker, then hand it over */
static int
wload_connect_one(struct wload *wl, unsigned i)
{
	struct wload_conn *c = &wl->conns[i];
	struct rpma_conn_req *req;
	int ret;

	c->wl = wl;
	c->d.idx = i;
	if ((ret = rpmaf_workers_least_loaded(wl->ws, &c->w))) {
		util_fail(&wl->r->fail, "connection %u: no worker slot: %s", i, rpmaf_err_str(ret));
		return -1;
	}
	if ((ret = rpmaf_worker_conn_cfg(c->w, wl->ccfg)) ||
	    (ret = rpma_conn_req_new(wl->peer, UTIL_ADDR, wl->p->port, wl->ccfg, &req)) ||
	    (ret = rpma_conn_req_connect(&req, NULL, &c->d.conn))) {
		(void)rpmaf_worker_unreserve(c->w);
		util_fail(&wl->r->fail, "connection %u: cannot request it: %s", i,
			  wload_err_str(ret));
		return -1;
	}
	if ((ret = rpmaf_worker_submit(c->w, &c->work, wload_attach, c))) {
		(void)rpma_conn_delete(&c->d.conn);
		(void)rpmaf_worker_unreserve(c->w);
		util_fail(&wl->r->fail, "connection %u: submit: %s", i, rpmaf_err_str(ret));
		return -1;
	}
	wl->issued++;
	return 0;
}

/* wload_connect -- every connection, LOAD_PIPELINE requests in flight at most */
static int
wload_connect(struct wload *wl)
{
	for (unsigned i = 0; i < wl->n; i++) {
		unsigned need = i >= LOAD_PIPELINE ? i + 1 - LOAD_PIPELINE : 0;

		if (util_wait(&wl->established, need, LOAD_CONNECT_S, &wl->r->fail,
			      "workers: connections established") ||
		    wload_connect_one(wl, i))
			return -1;
	}
	return util_wait(&wl->established, wl->n, LOAD_CONNECT_S, &wl->r->fail,
			 "workers: connections established");
}

/* wload_drain -- stop refilling and wait for every window to empty */
static int
wload_drain(struct wload *wl)
{
	atomic_store(&wl->stop, 1);
	return util_wait(&wl->drained, atomic_load(&wl->established), LOAD_DRAIN_S, &wl->r->fail,
			 "workers: connections drained");
}

/* wload_teardown_all -- every connection handed over is closed before the workers go */
static int
wload_teardown_all(struct wload *wl)
{
	struct util_fail late = {0};
	int ret = 0;

	for (unsigned i = 0; i < wl->issued; i++) {
		struct wload_conn *c = &wl->conns[i];

		if (rpmaf_worker_submit(c->w, &c->work, wload_teardown, c))
			ret = -1;
	}
	/* waited for even after a failure: the workers may not be deleted before */
	if (ret || util_wait(&wl->closed, wl->issued, LOAD_DRAIN_S, &late, "closed")) {
		util_fail(&wl->r->fail, "workers: connections not closed: %s", util_why(&late));
		return -1;
	}
	return 0;
}

/* wload_run -- see wload.h */
int
wload_run(const struct load_params *params, unsigned workers, unsigned conns_per_worker,
	  struct load_result *r)
{
	struct wload wl = {.p = params, .r = r, .nworkers = workers};
	int ret = -1;

	wl.n = workers * conns_per_worker;
	if (wload_open(&wl, conns_per_worker) == 0) {
		if (wload_connect(&wl) == 0 && load_measure(params, wl.ctr, workers, r) == 0)
			ret = wload_drain(&wl);
		r->conns = atomic_load(&wl.established);
		atomic_store(&wl.stop, 1);
		/* the workers cannot be deleted with connections attached: leave them */
		wl.leaked = wload_teardown_all(&wl) != 0;
	}
	wload_close(&wl);
	return util_failed(&r->fail) ? -1 : ret;
}
