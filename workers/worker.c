// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * worker.c -- a set of worker threads: their resources, their threads, and
 * the public functions that are not about one connection.
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <urcu/urcu-memb.h>

#include "../regtab/reader.h"

#include "wconn.h"
#include "worker.h"
#include "wpoll.h"

__thread struct rpmaf_worker *rpmaf__current __attribute__((tls_model("initial-exec")));

#define TIMERS_EXTRA 64

/* see worker.h */
uint64_t
rpmaf__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* rdma_fail -- log a failed librpma call of worker w; RPMAF_E_RDMA */
static int
rdma_fail(struct rpmaf_worker *w, const char *call, int ret)
{
	rpmaf__wlog(&w->ws->log, RPMAF_LOG_ERROR, "worker %u: %s(): %s", w->idx, call,
		    rpma_err_2str(ret));
	return RPMAF_E_RDMA;
}

/* sys_fail -- log a failed system call of worker w; RPMAF_E_SYS */
static int
sys_fail(struct rpmaf_worker *w, const char *call, int err)
{
	rpmaf__wlog(&w->ws->log, RPMAF_LOG_ERROR, "worker %u: %s(): %s", w->idx, call,
		    strerror(err));
	return RPMAF_E_SYS;
}

/* see worker.h */
void
rpmaf__worker_repost(struct rpmaf_worker *w, void *buf)
{
	/* at most srq_rq receive buffers exist: the array never overflows */
	w->repost[w->nrepost++] = buf;
}

/* see worker.h */
void
rpmaf__worker_repost_flush(struct rpmaf_worker *w)
{
	uint32_t done = 0;

	while (done < w->nrepost) {
		char *buf = w->repost[done];
		int ret =
		    rpma_srq_recv(w->srq, w->mr, (size_t)(buf - w->slab.base), w->msg_size, buf);

		if (ret) {
			/* kept for the next turn */
			w->rdma_err = rdma_fail(w, "rpma_srq_recv", ret);
			break;
		}
		done++;
	}
	if (done && done < w->nrepost)
		memmove(w->repost, w->repost + done, (w->nrepost - done) * sizeof(*w->repost));
	w->nrepost -= done;
}

/* alloc_arrays -- the worker's preallocated tables */
static int
alloc_arrays(struct rpmaf_worker *w)
{
	int ret;

	w->kept = calloc(w->srq_rq, sizeof(*w->kept));
	w->conns = calloc(w->conns_max, sizeof(*w->conns));
	w->rings = calloc((size_t)w->conns_max * w->sq, sizeof(*w->rings));
	w->repost = calloc(w->srq_rq, sizeof(*w->repost));
	w->early = calloc(w->srq_rq, sizeof(*w->early));
	w->wcs = calloc(w->batch, sizeof(*w->wcs));
	if (!w->kept || !w->conns || !w->rings || !w->repost || !w->early || !w->wcs)
		return RPMAF_E_NOMEM;
	if ((ret = rpmaf__qpmap_init(&w->qpmap, w->conns_max)) ||
	    (ret = rpmaf__timer_heap_init(&w->timers, 2 * w->conns_max + TIMERS_EXTRA)) ||
	    (ret = rpmaf__slab_init(&w->slab, 2 * w->srq_rq, w->msg_size)))
		return ret;
	rpmaf__wconn_init_slots(w);
	return 0;
}

/* free_arrays -- undo alloc_arrays() */
static void
free_arrays(struct rpmaf_worker *w)
{
	rpmaf__slab_fini(&w->slab);
	rpmaf__timer_heap_fini(&w->timers);
	rpmaf__qpmap_fini(&w->qpmap);
	free(w->kept);
	free(w->conns);
	free(w->rings);
	free(w->repost);
	free(w->early);
	free(w->wcs);
}

/* make_queues -- the CQs on one channel, the SRQ completing on the receive CQ */
static int
make_queues(struct rpmaf_worker *w, struct rpma_peer *peer, const struct rpmaf_cfg *cfg)
{
	struct rpma_srq_cfg *scfg = NULL;
	int ret;

	if ((ret = rpma_cq_new(peer, (int)cfg->queues.cq, NULL, &w->scq)))
		return rdma_fail(w, "rpma_cq_new", ret);
	if ((ret = rpma_cq_new(peer, (int)cfg->queues.srq_rcq, w->scq, &w->rcq)))
		return rdma_fail(w, "rpma_cq_new", ret);
	if ((ret = rpma_cq_get_fd(w->scq, &w->chan_fd)))
		return rdma_fail(w, "rpma_cq_get_fd", ret);
	if ((ret = rpma_srq_cfg_new(&scfg)))
		return rdma_fail(w, "rpma_srq_cfg_new", ret);
	if (!(ret = rpma_srq_cfg_set_rq_size(scfg, w->srq_rq)) &&
	    !(ret = rpma_srq_cfg_set_rcq_size(scfg, 0)))
		ret = rpma_srq_new(peer, scfg, &w->srq);
	(void)rpma_srq_cfg_delete(&scfg);
	if (ret)
		return rdma_fail(w, "rpma_srq_new", ret);
	if ((ret = rpma_mr_reg(peer, w->slab.base, rpmaf__slab_size(&w->slab),
			       RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV | RPMA_MR_USAGE_WRITE_SRC |
				   RPMA_MR_USAGE_READ_DST,
			       &w->mr)))
		return rdma_fail(w, "rpma_mr_reg", ret);
	/* the first srq_rq buffers (0, 1, ...) are the receive buffers */
	for (uint32_t i = 0; i < w->srq_rq; i++)
		rpmaf__worker_repost(w, rpmaf__slab_get(&w->slab));
	rpmaf__worker_repost_flush(w);
	return w->nrepost ? RPMAF_E_RDMA : 0;
}

/* make_epoll -- the epoll set: the eventfd and, unless busy polling, the channel */
static int
make_epoll(struct rpmaf_worker *w)
{
	struct epoll_event ev = {.events = EPOLLIN};
	int fl = fcntl(w->chan_fd, F_GETFL);

	if (fl < 0 || fcntl(w->chan_fd, F_SETFL, fl | O_NONBLOCK))
		return sys_fail(w, "fcntl", errno);
	if ((w->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
		return sys_fail(w, "epoll_create1", errno);
	ev.data.ptr = &w->subq;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->subq.efd, &ev))
		return sys_fail(w, "epoll_ctl", errno);
	ev.data.ptr = &w->chan_fd;
	if (w->polling != RPMAF_POLLING_BUSY && epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->chan_fd, &ev))
		return sys_fail(w, "epoll_ctl", errno);
	return 0;
}

/* worker_fini -- free what worker_init() made (any part of it); the first error */
static int
worker_fini(struct rpmaf_worker *w)
{
	int ret = 0, r;

	if (w->scq)
		rpmaf__worker_drain_events(w); /* every event acknowledged before the CQs go */
	if (w->srq && (r = rpma_srq_delete(&w->srq)) && !ret)
		ret = rdma_fail(w, "rpma_srq_delete", r);
	if (w->rcq && (r = rpma_cq_delete(&w->rcq)) && !ret)
		ret = rdma_fail(w, "rpma_cq_delete", r);
	if (w->scq && (r = rpma_cq_delete(&w->scq)) && !ret)
		ret = rdma_fail(w, "rpma_cq_delete", r);
	if (w->mr && (r = rpma_mr_dereg(&w->mr)) && !ret)
		ret = rdma_fail(w, "rpma_mr_dereg", r);
	if (w->epfd >= 0)
		close(w->epfd);
	rpmaf__submitq_fini(&w->subq);
	free_arrays(w);
	return ret;
}

/* worker_init -- worker i of cfg on peer, not started */
static int
worker_init(struct rpmaf_worker *w, struct rpmaf_workers *ws, unsigned i,
	    const struct rpmaf_cfg *cfg, struct rpma_peer *peer)
{
	int ret;

	w->ws = ws;
	w->idx = i;
	w->epfd = -1;
	w->subq.efd = -1;
	w->polling = cfg->workers.polling;
	w->spin_ns = (uint64_t)cfg->workers.spin_us * 1000;
	w->batch = cfg->workers.batch ? cfg->workers.batch : 1;
	w->srq_rq = cfg->queues.srq_rq;
	w->conns_max = cfg->conns_per_worker ? cfg->conns_per_worker : 1;
	w->msg_size = (uint32_t)cfg->queues.msg_size;
	w->sq = cfg->queues.sq;
	w->early_ttl_ns =
	    (uint64_t)(cfg->timeouts.connect_ms ? cfg->timeouts.connect_ms : 1000) * 1000000;
	w->cpu = i < cfg->workers.ncpus ? (int)cfg->workers.cpus[i] : -1;
	rpmaf__credits_init(&w->cq, cfg->queues.cq);
	atomic_init(&w->stop, 0);
	atomic_init(&w->reserved, 0);
	atomic_init(&w->unclosed, 0);
	if ((ret = rpmaf__submitq_init(&w->subq)))
		return sys_fail(w, "eventfd", errno);
	if ((ret = alloc_arrays(w)) || (ret = make_queues(w, peer, cfg)) || (ret = make_epoll(w))) {
		(void)worker_fini(w);
		return ret;
	}
	return 0;
}

/* worker_main -- the thread of a worker */
static void *
worker_main(void *arg)
{
	struct rpmaf_worker *w = arg;

	/*
	 * callbacks read the server's region table (server/sregion.c, urcu-memb)
	 * and the client's (regtab/, urcu-qsbr): a worker is a reader of both, a
	 * resident one of the client's (the loop announces its quiescent states)
	 */
	urcu_memb_register_thread();
	rpmaf__regtab_thread_resident();
	rpmaf__current = w;
	rpmaf__worker_loop(w);
	rpmaf__current = NULL;
	rpmaf__regtab_thread_unregister();
	urcu_memb_unregister_thread();
	return NULL;
}

/* worker_start -- start the thread of w, pinned when asked */
static int
worker_start(struct rpmaf_worker *w)
{
	pthread_attr_t attr;
	int err;

	if ((err = pthread_attr_init(&attr)))
		return sys_fail(w, "pthread_attr_init", err);
	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		if ((err = pthread_attr_setaffinity_np(&attr, sizeof(set), &set))) {
			pthread_attr_destroy(&attr);
			return sys_fail(w, "pthread_attr_setaffinity_np", err);
		}
	}
	err = pthread_create(&w->thread, &attr, worker_main, w);
	pthread_attr_destroy(&attr);
	if (err)
		return sys_fail(w, "pthread_create", err);
	w->started = true;
	return 0;
}

/* worker_stop -- stop and join the thread of w */
static void
worker_stop(struct rpmaf_worker *w)
{
	uint64_t one = 1;

	if (!w->started)
		return;
	atomic_store_explicit(&w->stop, 1, memory_order_release);
	(void)!write(w->subq.efd, &one, sizeof(one));
	pthread_join(w->thread, NULL);
	w->started = false;
}

/* workers_free -- stop, join and free the first n workers of ws, then ws; the first error */
static int
workers_free(struct rpmaf_workers *ws, unsigned n)
{
	int ret = 0, r;

	for (unsigned i = 0; i < n; i++)
		worker_stop(&ws->w[i]);
	for (unsigned i = 0; i < n; i++)
		if ((r = worker_fini(&ws->w[i])) && !ret)
			ret = r;
	rpmaf__wlog_close(&ws->log);
	free(ws->w);
	free(ws);
	return ret;
}

/* see rpmaf.h */
int
rpmaf_workers_new(const struct rpmaf_cfg *cfg, struct rpma_peer *peer,
		  struct rpmaf_workers **ws_ptr)
{
	struct rpmaf_workers *ws;
	unsigned i;
	int ret = 0;

	if (!cfg || !peer || !ws_ptr || cfg->workers.count == 0)
		return RPMAF_E_INVAL;
	if (cfg->queues.srq_rq == 0 || cfg->queues.srq_rcq < cfg->queues.srq_rq)
		return RPMAF_E_CONFIG;
	if (!(ws = calloc(1, sizeof(*ws))) ||
	    !(ws->w = calloc(cfg->workers.count, sizeof(*ws->w)))) {
		free(ws);
		return RPMAF_E_NOMEM;
	}
	rpmaf__wlog_open(&ws->log, cfg);
	ws->n = cfg->workers.count;
	for (i = 0; i < ws->n; i++)
		if ((ret = worker_init(&ws->w[i], ws, i, cfg, peer)))
			break;
	for (unsigned j = 0; j < i && !ret; j++)
		ret = worker_start(&ws->w[j]);
	if (ret) {
		(void)workers_free(ws, i);
		return ret;
	}
	*ws_ptr = ws;
	return 0;
}

/* see rpmaf.h */
int
rpmaf_workers_delete(struct rpmaf_workers **ws_ptr)
{
	if (!ws_ptr)
		return RPMAF_E_INVAL;
	struct rpmaf_workers *ws = *ws_ptr;

	if (!ws)
		return 0;
	/*
	 * one counter, not reserved minus closing: a worker freeing a drained
	 * slot between two loads would make the difference lie
	 */
	for (unsigned i = 0; i < ws->n; i++)
		if (atomic_load(&ws->w[i].unclosed) || rpmaf__current == &ws->w[i])
			return RPMAF_E_INVAL;
	*ws_ptr = NULL;
	return workers_free(ws, ws->n);
}

/* see rpmaf.h */
unsigned
rpmaf_workers_count(const struct rpmaf_workers *ws)
{
	return ws ? ws->n : 0;
}

/* see rpmaf.h */
int
rpmaf_workers_get(const struct rpmaf_workers *ws, unsigned i, struct rpmaf_worker **w_ptr)
{
	if (!ws || !w_ptr || i >= ws->n)
		return RPMAF_E_INVAL;
	*w_ptr = &ws->w[i];
	return 0;
}

/* see rpmaf.h */
int
rpmaf_worker_reserve(struct rpmaf_worker *w)
{
	if (!w)
		return RPMAF_E_INVAL;
	unsigned r = atomic_load(&w->reserved);

	do {
		if (r >= w->conns_max)
			return RPMAF_E_AGAIN;
	} while (!atomic_compare_exchange_weak(&w->reserved, &r, r + 1));
	atomic_fetch_add(&w->unclosed, 1);
	return 0;
}

/* see rpmaf.h */
int
rpmaf_worker_unreserve(struct rpmaf_worker *w)
{
	if (!w)
		return RPMAF_E_INVAL;
	unsigned r = atomic_load(&w->reserved);

	do {
		if (r == 0)
			return RPMAF_E_INVAL;
	} while (!atomic_compare_exchange_weak(&w->reserved, &r, r - 1));
	atomic_fetch_sub(&w->unclosed, 1);
	return 0;
}

/* see rpmaf.h */
int
rpmaf_workers_least_loaded(struct rpmaf_workers *ws, struct rpmaf_worker **w_ptr)
{
	if (!ws || !w_ptr)
		return RPMAF_E_INVAL;
	/* another thread may take the chosen slot meanwhile: choose again then */
	for (;;) {
		struct rpmaf_worker *best = NULL;
		unsigned least = UINT32_MAX;

		for (unsigned i = 0; i < ws->n; i++) {
			unsigned r = atomic_load(&ws->w[i].reserved);

			if (r < ws->w[i].conns_max && r < least) {
				least = r;
				best = &ws->w[i];
			}
		}
		if (!best)
			return RPMAF_E_AGAIN;
		if (rpmaf_worker_reserve(best) == 0) {
			*w_ptr = best;
			return 0;
		}
	}
}

/* see rpmaf.h */
unsigned
rpmaf_worker_index(const struct rpmaf_worker *w)
{
	return w ? w->idx : 0;
}

/* see rpmaf.h */
bool
rpmaf_worker_is_current(const struct rpmaf_worker *w)
{
	return w && rpmaf__current == w;
}

/* see rpmaf.h */
int
rpmaf_worker_submit(struct rpmaf_worker *w, struct rpmaf_work *work, rpmaf_work_fn fn, void *arg)
{
	if (!w)
		return RPMAF_E_INVAL;
	return rpmaf__submitq_push(&w->subq, work, fn, arg);
}

/* see rpmaf.h */
int
rpmaf_worker_conn_cfg(struct rpmaf_worker *w, struct rpma_conn_cfg *cfg)
{
	int ret;

	if (!w || !cfg)
		return RPMAF_E_INVAL;
	if ((ret = rpma_conn_cfg_set_cq(cfg, w->scq)) ||
	    (ret = rpma_conn_cfg_set_rcq(cfg, w->rcq)) ||
	    (ret = rpma_conn_cfg_set_srq(cfg, w->srq)) ||
	    (ret = rpma_conn_cfg_set_sq_size(cfg, w->sq)))
		return rdma_fail(w, "rpma_conn_cfg_set_*", ret);
	return 0;
}

/* see rpmaf.h */
int
rpmaf_worker_buf_get(struct rpmaf_worker *w, void **buf_ptr)
{
	if (!w || !buf_ptr || rpmaf__current != w)
		return RPMAF_E_INVAL;
	void *buf = rpmaf__slab_get(&w->slab);

	if (!buf)
		return RPMAF_E_AGAIN;
	*buf_ptr = buf;
	return 0;
}

/* see rpmaf.h */
int
rpmaf_worker_buf_put(struct rpmaf_worker *w, void *buf)
{
	if (!w || rpmaf__current != w || rpmaf__slab_index(&w->slab, buf) < w->srq_rq)
		return RPMAF_E_INVAL;
	return rpmaf__slab_put(&w->slab, buf);
}

/* see rpmaf.h */
int
rpmaf_worker_buf_mr(const struct rpmaf_worker *w, const void *buf, struct rpma_mr_local **mr_ptr,
		    size_t *offset_ptr)
{
	if (!w || !mr_ptr || !offset_ptr)
		return RPMAF_E_INVAL;
	const char *p = buf;

	if (!p || p < w->slab.base || p >= w->slab.base + rpmaf__slab_size(&w->slab))
		return RPMAF_E_INVAL;
	*mr_ptr = w->mr;
	*offset_ptr = (size_t)(p - w->slab.base);
	return 0;
}

/* see rpmaf.h */
int
rpmaf_worker_timer_add(struct rpmaf_worker *w, struct rpmaf_timer *t, uint64_t delay_us,
		       rpmaf_timer_fn fn, void *arg)
{
	struct rpmaf__timer *tt = (struct rpmaf__timer *)t;

	if (!w || !t || !fn || rpmaf__current != w)
		return RPMAF_E_INVAL;
	if (tt->pos)
		return RPMAF_E_INVAL;
	tt->deadline_ns = rpmaf__now_ns() + delay_us * 1000;
	tt->fn = fn;
	tt->arg = arg;
	return rpmaf__timer_heap_push(&w->timers, tt);
}

/* see rpmaf.h */
int
rpmaf_worker_timer_cancel(struct rpmaf_worker *w, struct rpmaf_timer *t)
{
	if (!w || !t || rpmaf__current != w)
		return RPMAF_E_INVAL;
	return rpmaf__timer_heap_remove(&w->timers, (struct rpmaf__timer *)t);
}

/* see rpmaf.h */
int
rpmaf_worker_get_stats(const struct rpmaf_worker *w, struct rpmaf_worker_stats *s)
{
	if (!w || !s)
		return RPMAF_E_INVAL;
#define LOAD(x) atomic_load_explicit(&w->st.x, memory_order_relaxed)
	s->polls = LOAD(polls);
	s->empty_polls = LOAD(empty_polls);
	s->completions = LOAD(completions);
	s->receives = LOAD(receives);
	s->submissions = LOAD(submissions);
	s->timers = LOAD(timers);
	s->sleeps = LOAD(sleeps);
	s->refused = LOAD(refused);
	s->dropped = LOAD(dropped);
	s->cq_used = LOAD(cq_used);
	s->cq_used_max = LOAD(cq_used_max);
	s->conns = LOAD(conns);
#undef LOAD
	s->wakeups = atomic_load_explicit(&w->subq.wakeups, memory_order_relaxed);
	return 0;
}
