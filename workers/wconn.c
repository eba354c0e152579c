// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * wconn.c -- connections attached to a worker.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>

#include "wconn.h"

/* see wconn.h */
void
rpmaf__wconn_init_slots(struct rpmaf_worker *w)
{
	w->free_conns = NULL;
	for (uint32_t i = w->conns_max; i-- > 0;) {
		struct rpmaf_wconn *c = &w->conns[i];

		c->w = w;
		c->state = WCONN_FREE;
		c->next_free = w->free_conns;
		w->free_conns = c;
	}
}

/* log_of -- the log of the worker's set */
static const struct rpmaf__wlog *
log_of(const struct rpmaf_worker *w)
{
	return &w->ws->log;
}

/* cq_stats -- publish the send CQ's use */
static void
cq_stats(struct rpmaf_worker *w)
{
	atomic_store_explicit(&w->st.cq_used, w->cq.used, memory_order_relaxed);
	atomic_store_explicit(&w->st.cq_used_max, w->cq.used_max, memory_order_relaxed);
}

/* see worker.h */
void
rpmaf__wconn_dispatch_send(struct rpmaf_worker *w, const struct ibv_wc *wc)
{
	struct rpmaf_wconn *c = rpmaf__qpmap_get(&w->qpmap, wc->qp_num);

	if (!c) {
		/* admitted by nobody: a request posted without admission */
		rpmaf__wlog(log_of(w), RPMAF_LOG_WARNING,
			    "worker %u: a send completion of unknown qp_num %u (status %d)", w->idx,
			    wc->qp_num, (int)wc->status);
		return;
	}
	(void)rpmaf__acct_retire(&c->acct, &w->cq, wc->status == IBV_WC_SUCCESS);
	cq_stats(w);
	if (c->state == WCONN_OPEN && c->ops->on_wc)
		c->ops->on_wc(c, wc, c->ctx);
}

/* deliver_recv -- hand a receive to its open connection; post the buffer back unless kept */
static void
deliver_recv(struct rpmaf_worker *w, struct rpmaf_wconn *c, const struct ibv_wc *wc)
{
	void *buf = (void *)(uintptr_t)wc->wr_id;
	uint32_t i = rpmaf__slab_index(&w->slab, buf);
	int keep = RPMAF_RECV_DONE;

	/* lent during the callback: it may release it, or close, before it returns */
	w->kept[i] = (uint32_t)(c - w->conns) + 1;
	if (c->ops->on_recv)
		keep = c->ops->on_recv(c, wc, buf, c->ctx);
	if (keep != RPMAF_RECV_KEEP && w->kept[i]) {
		w->kept[i] = 0;
		rpmaf__worker_repost(w, buf);
	}
}

/* see worker.h */
void
rpmaf__wconn_dispatch_recv(struct rpmaf_worker *w, const struct ibv_wc *wc)
{
	struct rpmaf_wconn *c = rpmaf__qpmap_get(&w->qpmap, wc->qp_num);

	if (c && c->state == WCONN_OPEN) {
		deliver_recv(w, c, wc);
		return;
	}
	if (!c && wc->status == IBV_WC_SUCCESS && w->nearly < w->srq_rq) {
		/* its connection is not attached yet: hold it for rpmaf_worker_attach() */
		w->early[w->nearly].wc = *wc;
		w->early[w->nearly++].at_ns = w->now_ns; /* the turn's clock, as the expiry's */
		return;
	}
	rpmaf__worker_repost(w, (void *)(uintptr_t)wc->wr_id);
}

/* early_take -- remove held receive i (order is kept) */
static void
early_take(struct rpmaf_worker *w, uint32_t i)
{
	memmove(&w->early[i], &w->early[i + 1], (w->nearly - i - 1) * sizeof(w->early[0]));
	w->nearly--;
}

/* see worker.h */
void
rpmaf__wconn_expire_early(struct rpmaf_worker *w, uint64_t now_ns)
{
	for (uint32_t i = 0; i < w->nearly;) {
		/* a clock read before the receive was held makes it young, not old */
		if (now_ns < w->early[i].at_ns || now_ns - w->early[i].at_ns < w->early_ttl_ns) {
			i++;
			continue;
		}
		rpmaf__worker_repost(w, (void *)(uintptr_t)w->early[i].wc.wr_id);
		early_take(w, i);
		rpmaf__stat_add(&w->st.dropped, 1);
	}
}

/* see worker.h */
void
rpmaf__wconn_events(struct rpmaf_wconn *c)
{
	uint32_t gen = c->gen;
	enum rpma_conn_event ev;

	while (c->state == WCONN_OPEN && c->gen == gen) {
		int ret = rpma_conn_next_event(c->conn, &ev);

		if (ret == RPMA_E_NO_EVENT)
			break;
		if (ret) {
			rpmaf__wlog(log_of(c->w), RPMAF_LOG_ERROR,
				    "worker %u: rpma_conn_next_event() on qp_num %u: %s", c->w->idx,
				    c->qp_num, rpma_err_2str(ret));
			ev = RPMA_CONN_LOST;
		}
		if (c->ops->on_event)
			c->ops->on_event(c, (int)ev, c->ctx);
		if (ret)
			break;
	}
}

/* wconn_free -- return a CLOSING connection's credits and slot */
static void
wconn_free(struct rpmaf_worker *w, struct rpmaf_wconn *c)
{
	(void)rpmaf__acct_release_all(&c->acct, &w->cq);
	cq_stats(w);
	(void)rpmaf__qpmap_remove(&w->qpmap, c->qp_num);
	c->state = WCONN_FREE;
	c->gen++;
	c->next_free = w->free_conns;
	w->free_conns = c;
	w->nclosing--;
	w->attached--;
	atomic_fetch_sub(&w->reserved, 1);
	atomic_store_explicit(&w->st.conns, w->attached, memory_order_relaxed);
}

/* see worker.h */
void
rpmaf__wconn_reap(struct rpmaf_worker *w)
{
	for (uint32_t i = 0; i < w->conns_max && w->nclosing; i++) {
		struct rpmaf_wconn *c = &w->conns[i];

		/* the poll that just came back empty began after the QP was destroyed */
		if (c->state == WCONN_CLOSING && w->scq_seq > c->drain_after)
			wconn_free(w, c);
	}
}

/*
 * drain_closing -- take every completion of the send CQ now (dispatching
 * those of open connections) and free the CLOSING connections: a new QP
 * has the number of a closed one, whose completions must not reach it
 */
static void
drain_closing(struct rpmaf_worker *w)
{
	struct ibv_wc wc[16];
	int got;

	while (rpma_cq_get_wc(w->scq, 16, wc, &got) == 0) {
		for (int i = 0; i < got; i++)
			rpmaf__wconn_dispatch_send(w, &wc[i]);
		rpmaf__stat_add(&w->st.completions, (unsigned)got);
	}
	w->scq_seq += 2;
	rpmaf__wconn_reap(w);
}

/* attach_fd -- make the connection's event descriptor non-blocking and watch it */
static int
attach_fd(struct rpmaf_worker *w, struct rpmaf_wconn *c)
{
	int fl = fcntl(c->event_fd, F_GETFL);
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};

	if (fl < 0 || fcntl(c->event_fd, F_SETFL, fl | O_NONBLOCK) ||
	    epoll_ctl(w->epfd, EPOLL_CTL_ADD, c->event_fd, &ev)) {
		rpmaf__wlog(log_of(w), RPMAF_LOG_ERROR, "worker %u: watching fd %d: %s", w->idx,
			    c->event_fd, strerror(errno));
		return RPMAF_E_SYS;
	}
	return 0;
}

/* give_early -- hand the receives held for qp_num to the new connection */
static void
give_early(struct rpmaf_worker *w, struct rpmaf_wconn *c)
{
	uint32_t gen = c->gen;

	for (uint32_t i = 0; i < w->nearly && c->state == WCONN_OPEN && c->gen == gen;) {
		if (w->early[i].wc.qp_num != c->qp_num) {
			i++;
			continue;
		}
		struct ibv_wc wc = w->early[i].wc;

		early_take(w, i);
		deliver_recv(w, c, &wc);
	}
}

/* see rpmaf.h */
int
rpmaf_worker_attach(struct rpmaf_worker *w, struct rpma_conn *conn,
		    const struct rpmaf_wconn_ops *ops, void *ctx, struct rpmaf_wconn **wconn_ptr)
{
	uint32_t qp_num;
	int fd, ret;

	if (!w || !conn || !ops || !wconn_ptr || rpmaf__current != w)
		return RPMAF_E_INVAL;
	if (w->attached >= atomic_load(&w->reserved) || !w->free_conns)
		return RPMAF_E_INVAL;
	if ((ret = rpma_conn_get_qp_num(conn, &qp_num)) ||
	    (ret = rpma_conn_get_event_fd(conn, &fd))) {
		rpmaf__wlog(log_of(w), RPMAF_LOG_ERROR, "worker %u: attach: %s", w->idx,
			    rpma_err_2str(ret));
		return RPMAF_E_RDMA;
	}
	struct rpmaf_wconn *old = rpmaf__qpmap_get(&w->qpmap, qp_num);

	if (old && old->state == WCONN_CLOSING)
		drain_closing(w);
	else if (old)
		return RPMAF_E_INVAL; /* attached already */
	struct rpmaf_wconn *c = w->free_conns;

	c->conn = conn;
	c->ops = ops;
	c->ctx = ctx;
	c->qp_num = qp_num;
	c->event_fd = fd;
	if ((ret = attach_fd(w, c)))
		return ret;
	w->free_conns = c->next_free;
	rpmaf__acct_init(&c->acct, w->sq, &w->rings[(size_t)(c - w->conns) * w->sq]);
	(void)rpmaf__qpmap_insert(&w->qpmap, qp_num, c); /* room for conns_max */
	c->state = WCONN_OPEN;
	c->gen++;
	w->attached++;
	atomic_store_explicit(&w->st.conns, w->attached, memory_order_relaxed);
	*wconn_ptr = c;
	give_early(w, c);
	return 0;
}

/* see rpmaf.h */
int
rpmaf_wconn_close(struct rpmaf_wconn **wconn_ptr)
{
	struct rpmaf_wconn *c;
	int ret = 0;

	if (!wconn_ptr || !(c = *wconn_ptr) || c->state != WCONN_OPEN || rpmaf__current != c->w)
		return RPMAF_E_INVAL;
	struct rpmaf_worker *w = c->w;

	(void)epoll_ctl(w->epfd, EPOLL_CTL_DEL, c->event_fd, NULL);
	int r = rpma_conn_delete(&c->conn);

	if (r) {
		rpmaf__wlog(log_of(w), RPMAF_LOG_ERROR, "worker %u: rpma_conn_delete(): %s", w->idx,
			    rpma_err_2str(r));
		ret = RPMAF_E_RDMA;
	}
	/* the buffers it kept go back to the SRQ */
	uint32_t me = (uint32_t)(c - w->conns) + 1;

	for (uint32_t i = 0; i < w->srq_rq; i++) {
		if (w->kept[i] == me) {
			w->kept[i] = 0;
			rpmaf__worker_repost(w, w->slab.base + (size_t)i * w->slab.bsize);
		}
	}
	c->state = WCONN_CLOSING;
	c->acct.broken = true;
	c->gen++;
	c->drain_after = w->scq_seq;
	w->nclosing++;
	/* its slot is freed by a poll that begins after now: one before the worker sleeps */
	w->due |= RPMAF__DUE_SCQ;
	atomic_fetch_sub(&w->unclosed, 1);
	*wconn_ptr = NULL;
	return ret;
}

/* see rpmaf.h */
int
rpmaf_wconn_admit(struct rpmaf_wconn *wconn, unsigned n)
{
	if (!wconn || wconn->state != WCONN_OPEN)
		return RPMAF_E_INVAL;
	int ret = rpmaf__acct_admit(&wconn->acct, &wconn->w->cq, n);

	if (ret == RPMAF_E_AGAIN)
		rpmaf__stat_add(&wconn->w->st.refused, 1);
	cq_stats(wconn->w);
	return ret;
}

/* see rpmaf.h */
int
rpmaf_wconn_unadmit(struct rpmaf_wconn *wconn, unsigned n)
{
	if (!wconn || wconn->state != WCONN_OPEN)
		return RPMAF_E_INVAL;
	int ret = rpmaf__acct_unadmit(&wconn->acct, &wconn->w->cq, n);

	cq_stats(wconn->w);
	return ret;
}

/* see rpmaf.h */
unsigned
rpmaf_wconn_outstanding(const struct rpmaf_wconn *wconn)
{
	return wconn ? wconn->acct.sq.used : 0;
}

/* see rpmaf.h */
struct rpma_conn *
rpmaf_wconn_get_conn(const struct rpmaf_wconn *wconn)
{
	return wconn ? wconn->conn : NULL;
}

/* see rpmaf.h */
int
rpmaf_wconn_get_worker(const struct rpmaf_wconn *wconn, struct rpmaf_worker **w_ptr)
{
	if (!wconn || !w_ptr)
		return RPMAF_E_INVAL;
	*w_ptr = wconn->w;
	return 0;
}

/* see rpmaf.h */
int
rpmaf_wconn_recv_release(struct rpmaf_wconn *wconn, void *buf)
{
	if (!wconn || !buf || rpmaf__current != wconn->w)
		return RPMAF_E_INVAL;
	struct rpmaf_worker *w = wconn->w;
	uint32_t i = rpmaf__slab_index(&w->slab, buf);

	if (i >= w->srq_rq || w->kept[i] != (uint32_t)(wconn - w->conns) + 1)
		return RPMAF_E_INVAL;
	w->kept[i] = 0;
	/* at once: a reply sent next may return this buffer's credit to the peer */
	rpmaf__worker_repost(w, buf);
	rpmaf__worker_repost_flush(w);
	return 0;
}
