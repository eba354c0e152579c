// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * bload.c -- windowed RDMA writes on bare librpma, one CQ per connection
 *
 * The main thread makes every connection (at most LOAD_PIPELINE requests in
 * flight) and registers each thread's source buffer; each thread then owns
 * its slice of the connections until it has drained them; the main thread
 * disconnects them after joining it.
 */

#include <infiniband/verbs.h>
#include <librpma.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bload.h"

#define BLOAD_WC_MAX 16 /* completions taken from one CQ per poll */

/* one connection; its thread's once the threads run */
struct bload_conn {
	struct load_dst d;
	struct rpma_cq *cq; /* its own */
	unsigned outstanding;
	bool established;
};

struct bload;

/* one polling thread */
struct bload_thread {
	struct bload *bl;
	pthread_t tid;
	bool started;
	struct bload_conn *conns; /* its slice of bl->conns */
	unsigned n;
	void *src; /* the source of every write of its connections */
	struct rpma_mr_local *src_mr;
	struct load_counter *ctr;
};

/* one run */
struct bload {
	const struct load_params *p;
	struct load_result *r;
	struct rpma_peer *peer;
	struct rpma_conn_cfg *ccfg;
	struct bload_conn *conns;
	unsigned n, issued;
	struct bload_thread *threads;
	unsigned nthreads;
	struct load_counter *ctr; /* one per thread */
	atomic_uint ready;	  /* threads whose windows are full */
	atomic_int stop;	  /* set by the main thread: no more refills */
};

/* bload_open -- the peer, a connection configuration with its own small CQ, the bookkeeping */
static int
bload_open(struct bload *bl)
{
	unsigned w = bl->p->window;
	int ret;

	if ((ret = util_peer_new(&bl->peer))) {
		util_fail(&bl->r->fail, "no device for %s: %s", UTIL_ADDR, rpma_err_2str(ret));
		return -1;
	}
	/* a CQ entry for each write: the unsignaled ones complete too when they fail */
	if ((ret = rpma_conn_cfg_new(&bl->ccfg)) ||
	    (ret = rpma_conn_cfg_set_sq_size(bl->ccfg, w)) ||
	    (ret = rpma_conn_cfg_set_cq_size(bl->ccfg, w)) ||
	    (ret = rpma_conn_cfg_set_rq_size(bl->ccfg, 1))) {
		util_fail(&bl->r->fail, "connection configuration: %s", rpma_err_2str(ret));
		return -1;
	}
	bl->conns = calloc(bl->n, sizeof(*bl->conns));
	bl->threads = calloc(bl->nthreads, sizeof(*bl->threads));
	bl->ctr = load_counters_new(bl->nthreads);
	if (!bl->conns || !bl->threads || !bl->ctr) {
		util_fail(&bl->r->fail, "out of memory");
		return -1;
	}
	return 0;
}

/* bload_close -- release what bload_open() made, in reverse */
static void
bload_close(struct bload *bl)
{
	free(bl->ctr);
	free(bl->threads);
	free(bl->conns);
	(void)rpma_conn_cfg_delete(&bl->ccfg);
	(void)rpma_peer_delete(&bl->peer);
}

/* ----------------------------------------------------------- polling threads */

/* bload_post_batch -- one batch of writes */
static int
bload_post_batch(struct bload *bl, struct bload_conn *c)
{
	unsigned posted;
	int ret = load_write_batch(bl->p, &c->d, c, &posted);

	if (ret) {
		util_fail(&bl->r->fail, "connection %u: rpma_write: %s", c->d.idx,
			  rpma_err_2str(ret));
		return -1;
	}
	c->outstanding += bl->p->batch;
	return 0;
}

/* bload_poll -- one look at a connection's CQ: count what completed, refill unless stopping */
static int
bload_poll(struct bload_thread *t, struct bload_conn *c)
{
	struct bload *bl = t->bl;
	struct ibv_wc wc[BLOAD_WC_MAX];
	int got = 0;
	int ret = rpma_cq_get_wc(c->cq, BLOAD_WC_MAX, wc, &got);

	if (ret == RPMA_E_NO_COMPLETION)
		return 0;
	if (ret) {
		util_fail(&bl->r->fail, "connection %u: rpma_cq_get_wc: %s", c->d.idx,
			  rpma_err_2str(ret));
		return -1;
	}
	for (int k = 0; k < got; k++) {
		if (wc[k].status != IBV_WC_SUCCESS) {
			util_fail(&bl->r->fail, "connection %u: a write failed: %s", c->d.idx,
				  ibv_wc_status_str(wc[k].status));
			return -1;
		}
		load_count(t->ctr, bl->p->batch);
		c->outstanding -= bl->p->batch;
		if (!atomic_load_explicit(&bl->stop, memory_order_relaxed) &&
		    bload_post_batch(bl, c))
			return -1;
	}
	return 0;
}

/* bload_outstanding -- writes of the thread's connections not completed yet */
static unsigned
bload_outstanding(const struct bload_thread *t)
{
	unsigned sum = 0;

	for (unsigned i = 0; i < t->n; i++)
		sum += t->conns[i].outstanding;
	return sum;
}

/* bload_thread_main -- fill every window, poll round robin until stopped, then drain */
static void *
bload_thread_main(void *arg)
{
	struct bload_thread *t = arg;
	struct bload *bl = t->bl;
	double deadline = 0;

	for (unsigned i = 0; i < t->n; i++)
		while (t->conns[i].outstanding + bl->p->batch <= bl->p->window)
			if (bload_post_batch(bl, &t->conns[i]))
				return NULL;
	atomic_fetch_add(&bl->ready, 1);
	while (!util_failed(&bl->r->fail)) {
		if (atomic_load_explicit(&bl->stop, memory_order_relaxed)) {
			if (bload_outstanding(t) == 0)
				break;
			if (deadline == 0)
				deadline = util_now() + LOAD_DRAIN_S;
			else if (util_now() > deadline) {
				util_fail(&bl->r->fail,
					  "bare: writes not completed after the stop");
				break;
			}
		}
		for (unsigned i = 0; i < t->n; i++)
			if (bload_poll(t, &t->conns[i]))
				return NULL;
	}
	return NULL;
}

/* ---------------------------------------------------------------- main thread */

/* bload_wait_event -- the next event of a connection, waited for at most LOAD_CONNECT_S */
static int
bload_wait_event(struct bload_conn *c, enum rpma_conn_event *ev)
{
	struct pollfd pfd = {.events = POLLIN};

	(void)rpma_conn_get_event_fd(c->d.conn, &pfd.fd);
	if (poll(&pfd, 1, (int)(LOAD_CONNECT_S * 1000)) != 1)
		return RPMA_E_NO_EVENT;
	return rpma_conn_next_event(c->d.conn, ev);
}

/* bload_established -- the connection is up: its CQ and the server's region */
static int
bload_established(struct bload *bl, struct bload_conn *c)
{
	struct rpma_conn_private_data pd;
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	int ret = bload_wait_event(c, &ev);

	if (ret || ev != RPMA_CONN_ESTABLISHED) {
		util_fail(&bl->r->fail, "bare: connection %u: %s", c->d.idx,
			  ret ? rpma_err_2str(ret) : rpma_utils_conn_event_2str(ev));
		return -1;
	}
	c->established = true;
	if (rpma_conn_get_cq(c->d.conn, &c->cq) || rpma_conn_get_private_data(c->d.conn, &pd) ||
	    pd.ptr == NULL || rpma_mr_remote_from_descriptor(pd.ptr, pd.len, &c->d.dst) ||
	    rpma_mr_remote_get_size(c->d.dst, &c->d.dst_size) || c->d.dst_size < LOAD_WRITE_SIZE) {
		util_fail(&bl->r->fail, "bare: connection %u: no region descriptor from the server",
			  c->d.idx);
		return -1;
	}
	bl->r->conns++;
	return 0;
}

/* bload_connect_one -- request connection i */
static int
bload_connect_one(struct bload *bl, unsigned i)
{
	struct bload_conn *c = &bl->conns[i];
	struct rpma_conn_req *req;
	int ret;

	c->d.idx = i;
	if ((ret = rpma_conn_req_new(bl->peer, UTIL_ADDR, bl->p->port, bl->ccfg, &req)) ||
	    (ret = rpma_conn_req_connect(&req, NULL, &c->d.conn))) {
		util_fail(&bl->r->fail, "bare: connection %u: cannot request it: %s", i,
			  rpma_err_2str(ret));
		return -1;
	}
	bl->issued++;
	return 0;
}

/* bload_connect -- every connection, LOAD_PIPELINE requests in flight at most */
static int
bload_connect(struct bload *bl)
{
	unsigned done = 0;

	for (unsigned i = 0; i < bl->n; i++) {
		if (i >= LOAD_PIPELINE && bload_established(bl, &bl->conns[done++]))
			return -1;
		if (bload_connect_one(bl, i))
			return -1;
	}
	while (done < bl->n)
		if (bload_established(bl, &bl->conns[done++]))
			return -1;
	return 0;
}

/* bload_start -- each thread's source buffer, then the threads, each on its slice */
static int
bload_start(struct bload *bl, unsigned per_thread)
{
	int ret;

	for (unsigned i = 0; i < bl->nthreads; i++) {
		struct bload_thread *t = &bl->threads[i];

		*t = (struct bload_thread){.bl = bl,
					   .conns = &bl->conns[i * per_thread],
					   .n = per_thread,
					   .ctr = &bl->ctr[i]};
		if (posix_memalign(&t->src, 4096, 4096) ||
		    (ret = rpma_mr_reg(bl->peer, t->src, 4096, RPMA_MR_USAGE_WRITE_SRC,
				       &t->src_mr))) {
			util_fail(&bl->r->fail, "bare: the source buffer cannot be registered");
			return -1;
		}
		memset(t->src, (int)i, 4096);
		for (unsigned k = 0; k < t->n; k++)
			t->conns[k].d.src_mr = t->src_mr;
		if ((ret = pthread_create(&t->tid, NULL, bload_thread_main, t))) {
			util_fail(&bl->r->fail, "bare: pthread_create: %s", strerror(ret));
			return -1;
		}
		t->started = true;
	}
	return util_wait(&bl->ready, bl->nthreads, LOAD_DRAIN_S, &bl->r->fail,
			 "bare: threads started");
}

/* bload_stop -- stop refilling, join the threads (they drain first), free their buffers */
static void
bload_stop(struct bload *bl)
{
	atomic_store(&bl->stop, 1);
	for (unsigned i = 0; i < bl->nthreads; i++) {
		struct bload_thread *t = &bl->threads[i];

		if (t->started)
			pthread_join(t->tid, NULL);
		(void)rpma_mr_dereg(&t->src_mr);
		free(t->src);
	}
}

/* bload_disconnect -- every connection requested: an established one waits for its close */
static void
bload_disconnect(struct bload *bl)
{
	for (unsigned i = 0; i < bl->issued; i++) {
		struct bload_conn *c = &bl->conns[i];
		enum rpma_conn_event ev;

		if (c->established && rpma_conn_disconnect(c->d.conn) == 0 &&
		    (bload_wait_event(c, &ev) || ev != RPMA_CONN_CLOSED))
			util_fail(&bl->r->fail, "bare: connection %u did not close", i);
		(void)rpma_mr_remote_delete(&c->d.dst);
		(void)rpma_conn_delete(&c->d.conn);
	}
}

/* bload_run -- see bload.h */
int
bload_run(const struct load_params *params, unsigned threads, unsigned conns_per_thread,
	  struct load_result *r)
{
	struct bload bl = {.p = params, .r = r, .nthreads = threads};
	int ret = -1;

	bl.n = threads * conns_per_thread;
	if (bload_open(&bl) == 0) {
		if (bload_connect(&bl) == 0 && bload_start(&bl, conns_per_thread) == 0)
			ret = load_measure(params, bl.ctr, threads, r);
		bload_stop(&bl);
		bload_disconnect(&bl);
	}
	bload_close(&bl);
	return util_failed(&r->fail) ? -1 : ret;
}
