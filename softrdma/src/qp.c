/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC queue pairs: creation, the state machine, posting, and both halves of
 * the data path. A QP owns two connections: on @out it sends requests and
 * receives their responses, on @in it receives the peer's requests and
 * answers them. The responder half runs in the progress thread, so one-sided
 * operations never need the application's threads.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "cq.h"
#include "mr.h"
#include "qp.h"
#include "shm.h"

#define SOFTRDMA_SEND_OPS (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
			   IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			   IBV_QP_EX_WITH_RDMA_READ)

/* A CM disconnect waits at most this long for the peer's streams to end. */
#define SOFTRDMA_DRAIN_NS	1000000000ull
/* Requests outstanding when the peer's QP left RTS time out after this. */
#define SOFTRDMA_EOS_WAIT_NS	500000000ull

static struct softrdma_qp *softrdma_qp(struct ibv_qp *qp)
{
	return (struct softrdma_qp *)qp;
}

/* Allocate the slots of a receive queue. */
static int softrdma_rq_alloc(struct softrdma_rq *rq, uint32_t size, uint32_t max_sge)
{
	rq->max_sge = max_sge ? max_sge : 1;
	rq->slot_size = sizeof(struct softrdma_rwqe) + rq->max_sge * sizeof(struct ibv_sge);
	rq->size = size ? size : 1;
	rq->head = 0;
	rq->count = 0;
	rq->slots = calloc(rq->size, rq->slot_size);
	return rq->slots ? 0 : ENOMEM;
}

/* Slot @i (0 = oldest) of a receive queue. */
static struct softrdma_rwqe *softrdma_rq_at(struct softrdma_rq *rq, uint32_t i)
{
	return (struct softrdma_rwqe *)(rq->slots + ((rq->head + i) % rq->size) * rq->slot_size);
}

/* Append receive requests to @rq; returns 0 or the post error. */
static int softrdma_rq_post(struct softrdma_rq *rq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad)
{
	for (; wr; wr = wr->next) {
		struct softrdma_rwqe *e;

		if ((uint32_t)wr->num_sge > rq->max_sge || wr->num_sge < 0) {
			*bad = wr;
			return EINVAL;
		}
		if (rq->count == rq->size) {
			*bad = wr;
			return ENOMEM;
		}
		e = softrdma_rq_at(rq, rq->count);
		e->wr_id = wr->wr_id;
		e->num_sge = wr->num_sge;
		memcpy(e->sge, wr->sg_list, wr->num_sge * sizeof(struct ibv_sge));
		rq->count++;
	}
	return 0;
}

/*
 * A CQ of @qp overran (qp->lock held): the QP stops at once; the progress
 * thread then flushes it and closes its connections (softrdma__qp_check_cq,
 * as for every other QP of that CQ).
 */
static void softrdma_qp_cq_overrun(struct softrdma_qp *qp)
{
	if (qp->qpx.qp_base.state == IBV_QPS_ERR)
		return;
	qp->qpx.qp_base.state = IBV_QPS_ERR;
	softrdma__async_event(qp->qpx.qp_base.context, IBV_EVENT_QP_FATAL, &qp->qpx.qp_base);
}

/* Push a completion for @qp; on CQ overflow the QP is marked for error. */
static void softrdma_complete(struct softrdma_qp *qp, struct ibv_cq *cq, struct ibv_wc *wc)
{
	wc->qp_num = qp->qpx.qp_base.qp_num;
	if (softrdma__cq_push(cq, wc) == EOVERFLOW)
		softrdma_qp_cq_overrun(qp);
}

/*
 * Progress thread (qp->lock held): a CQ @qp completes on overran. Like an
 * RNIC, every QP of that CQ enters the error state with IBV_EVENT_QP_FATAL.
 */
void softrdma__qp_check_cq(struct softrdma_qp *qp)
{
	if (!__atomic_exchange_n(&qp->cq_overrun, 0, __ATOMIC_RELAXED) ||
	    qp->qpx.qp_base.state == IBV_QPS_RESET)
		return;
	softrdma_qp_cq_overrun(qp);
	softrdma__qp_set_error(qp, 0, IBV_WC_SUCCESS);
}

/* Complete the oldest send WR with @status (always when not SUCCESS). */
static void softrdma_sq_complete_head(struct softrdma_qp *qp, enum ibv_wc_status status)
{
	struct softrdma_swqe *e = &qp->sq[qp->sq_head];
	struct ibv_wc wc;

	if (e->done) {
		/* executed and, if signaled, completed already: it only held its slot */
		qp->sq_ndone--;
	} else if (e->signaled || status != IBV_WC_SUCCESS) {
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = e->wr_id;
		wc.status = status;
		wc.opcode = e->opcode;
		wc.byte_len = e->byte_len;
		if (status != IBV_WC_SUCCESS)
			wc.vendor_err = 0x1;
		softrdma_complete(qp, qp->qpx.qp_base.send_cq, &wc);
	}
	qp->sq_head = (qp->sq_head + 1) % qp->sq_size;
	qp->sq_count--;
}

static void softrdma_conn_send_eos(struct softrdma_conn *c);

/* Close both connections of @qp, each after an end-of-stream marker. */
static void softrdma_qp_close_conns(struct softrdma_qp *qp)
{
	if (qp->out)
		softrdma_conn_send_eos(qp->out);
	if (qp->in)
		softrdma_conn_send_eos(qp->in);
	if (qp->out) {
		softrdma__conn_close(qp->out);
	}
	if (qp->in) {
		/* same host: the requester must stop writing directly at once */
		softrdma__shm_revoke(qp->in);
		softrdma__conn_close(qp->in);
	}
}

/*
 * Move @qp to the error state: the oldest outstanding send WR completes
 * with @head when @flush_head, everything else with IBV_WC_WR_FLUSH_ERR,
 * and the connections close so the peer notices. Called with qp->lock.
 */
void softrdma__qp_set_error(struct softrdma_qp *qp, int flush_head, enum ibv_wc_status head)
{
	struct ibv_qp *q = &qp->qpx.qp_base;
	struct ibv_wc wc;

	q->state = IBV_QPS_ERR;
	softrdma__shm_publish_qp(qp);
	while (qp->sq_count && qp->sq[qp->sq_head].done)
		softrdma_sq_complete_head(qp, IBV_WC_SUCCESS);
	if (flush_head && qp->sq_count)
		softrdma_sq_complete_head(qp, head);
	while (qp->sq_count)
		softrdma_sq_complete_head(qp, IBV_WC_WR_FLUSH_ERR);
	while (!q->srq && qp->rq.count) {
		struct softrdma_rwqe *e = softrdma_rq_at(&qp->rq, 0);

		memset(&wc, 0, sizeof(wc));
		wc.wr_id = e->wr_id;
		wc.status = IBV_WC_WR_FLUSH_ERR;
		wc.opcode = IBV_WC_RECV;
		wc.vendor_err = 0x1;
		softrdma_complete(qp, q->recv_cq, &wc);
		qp->rq.head = (qp->rq.head + 1) % qp->rq.size;
		qp->rq.count--;
	}
	softrdma_qp_close_conns(qp);
}

/* Allocate a transmit buffer holding @hdr followed by room for @payload bytes. */
static struct softrdma_txbuf *softrdma_txbuf_new(const struct softrdma_wire_hdr *hdr,
						 size_t payload)
{
	struct softrdma_txbuf *b = malloc(sizeof(*b) + sizeof(*hdr) + payload);
	struct softrdma_wire_hdr *h;

	if (!b)
		return NULL;
	b->len = sizeof(*hdr) + payload;
	b->off = 0;
	h = (struct softrdma_wire_hdr *)b->data;
	*h = *hdr;
	softrdma__wire_hdr_to_le(h);
	return b;
}

/*
 * Requests queued on the requester connection @c wait while responses to
 * the peer are still queued on the responder connection: the peer must see
 * its ACKs before any later request of this side.
 */
static int softrdma_requests_held(struct softrdma_conn *c)
{
	struct softrdma_qp *qp = c->qp;

	return c->is_out && qp && qp->in && !qp->in->dead &&
	       !softrdma__list_empty(&qp->in->txq);
}

/* Epoll interest a connection needs right now. */
static uint32_t softrdma_conn_want(struct softrdma_conn *c)
{
	uint32_t ev = EPOLLRDHUP;
	struct softrdma_qp *qp = c->qp;

	if (c->shm || c->eos)
		return ev;	/* data flows through the rings, or the peer is done */
	if (c->connecting ||
	    (!softrdma__list_empty(&c->txq) && !(c->await_answer && c->hello_sent) &&
	     !softrdma_requests_held(c)))
		ev |= EPOLLOUT;
	if (!c->connecting) {
		if (c->is_out)
			ev |= EPOLLIN;
		else if (qp && c->rx != SOFTRDMA_RX_WAIT_RWQE &&
			 qp->qpx.qp_base.state != IBV_QPS_RESET &&
			 qp->qpx.qp_base.state != IBV_QPS_INIT)
			ev |= EPOLLIN;
	}
	return ev;
}

/* Progress thread: the peer's ring has data this side should consume now. */
int softrdma__qp_conn_wants_rx(struct softrdma_conn *c)
{
	struct softrdma_qp *qp = c->qp;
	enum ibv_qp_state st;

	if (!qp || c->eos)
		return 0;
	if (c->is_out)
		return 1;
	st = qp->qpx.qp_base.state;
	return c->rx != SOFTRDMA_RX_WAIT_RWQE && st != IBV_QPS_RESET && st != IBV_QPS_INIT &&
	       st != IBV_QPS_ERR;
}

/*
 * Application thread, from an empty CQ poll: move the rings of @qp's
 * same-host connections. Skipped when another thread holds the QP.
 */
void softrdma__qp_app_progress(struct softrdma_qp *qp)
{
	struct softrdma_conn *cs[2];
	int i;

	if (pthread_mutex_trylock(&qp->lock))
		return;
	cs[0] = qp->out;
	cs[1] = qp->in;
	for (i = 0; i < 2; i++) {
		struct softrdma_conn *c = cs[i];

		if (!c || !c->shm || c->dead || (i == 1 && qp->in != c) || (!i && qp->out != c))
			continue;
		if (!softrdma__list_empty(&c->txq) && softrdma__qp_flush_tx(c)) {
			softrdma__qp_conn_failed(c, EPIPE);
			continue;
		}
		if (!c->dead && softrdma__shm_rx_avail(c) && softrdma__qp_conn_wants_rx(c))
			softrdma__qp_conn_readable(c);
	}
	pthread_mutex_unlock(&qp->lock);
}

/* Receive from the socket or the ring without blocking. */
static ssize_t softrdma_conn_recv(struct softrdma_conn *c, void *buf, size_t len)
{
	if (c->shm)
		return softrdma__shm_recv(c, buf, len);
	return recv(c->fd, buf, len, MSG_DONTWAIT);
}

/* Write queued buffers without blocking; keep EPOLLOUT armed for the rest. */
int softrdma__qp_flush_tx(struct softrdma_conn *c)
{
	if (softrdma_requests_held(c) && softrdma__qp_flush_tx(c->qp->in) == 0 &&
	    softrdma_requests_held(c)) {
		/* the responder connection's EPOLLOUT resumes this one */
		softrdma__progress_watch(c, softrdma_conn_want(c));
		return 0;
	}
	while (!c->connecting && !softrdma__list_empty(&c->txq) && !softrdma_requests_held(c)) {
		struct softrdma_txbuf *b =
			SOFTRDMA_CONTAINER_OF(c->txq.next, struct softrdma_txbuf, node);
		ssize_t n;

		/* after the hello, wait for the answer that picks the transport */
		if (c->await_answer && c->hello_sent)
			break;
		if (c->shm)
			n = softrdma__shm_send(c, b->data + b->off, b->len - b->off);
		else
			n = send(c->fd, b->data + b->off, b->len - b->off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			return errno;
		}
		b->off += n;
		if (b->off == b->len) {
			softrdma__list_del(&b->node);
			free(b);
			c->hello_sent = 1;
		}
	}
	softrdma__progress_watch(c, softrdma_conn_want(c));
	return 0;
}

/* Queue @b on @c and try to send it at once. */
static void softrdma_conn_send(struct softrdma_conn *c, struct softrdma_txbuf *b)
{
	int was_empty = softrdma__list_empty(&c->txq);

	softrdma__list_add_tail(&c->txq, &b->node);
	if (was_empty)
		softrdma__qp_flush_tx(c);
}

/* Send a response (ACK/NAK) with @seq on the responder connection. */
static void softrdma_respond(struct softrdma_qp *qp, uint8_t op, uint32_t seq, uint8_t status)
{
	struct softrdma_wire_hdr h = { .op = op, .seq = seq, .status = status };
	struct softrdma_conn *c = qp->in;
	struct softrdma_txbuf *b;

	if (!c)
		return;
	if (c->shm && softrdma__list_empty(&c->txq) &&
	    softrdma__shm_tx_space(c) != UINT32_MAX && softrdma__shm_tx_space(c) >= sizeof(h)) {
		/* same host: straight into the ring, nothing allocated */
		uint64_t at = softrdma__shm_tail(c);

		softrdma__wire_hdr_to_le(&h);
		softrdma__shm_put(c, at, &h, sizeof(h), 0);
		softrdma__shm_commit(c, at + sizeof(h));
		return;
	}
	b = softrdma_txbuf_new(&h, 0);
	if (b)
		softrdma_conn_send(qp->in, b);
}

/*
 * This side sends nothing more on @c: put an end-of-stream marker after
 * what the socket or the ring already holds, so the peer knows it has seen
 * everything. Requests still queued on a requester connection are dropped
 * (their WRs are flushed here). When queued data cannot be written at
 * once, the close alone ends the stream. Nothing is allocated.
 */
static void softrdma_conn_send_eos(struct softrdma_conn *c)
{
	struct softrdma_wire_hdr h = { .op = SOFTRDMA_OP_EOS };
	struct softrdma_list *n, *nx;
	uint32_t space;
	uint64_t at;

	if (c->dead || c->connecting || c->await_answer)
		return;
	for (n = c->txq.next; c->is_out && n != &c->txq; n = nx) {
		struct softrdma_txbuf *b = SOFTRDMA_CONTAINER_OF(n, struct softrdma_txbuf, node);

		nx = n->next;
		if (b->off)
			continue;	/* partly written: the peer sees a cut message */
		softrdma__list_del(n);
		free(b);
	}
	if (!softrdma__list_empty(&c->txq) &&
	    (softrdma__qp_flush_tx(c) || !softrdma__list_empty(&c->txq)))
		return;
	softrdma__wire_hdr_to_le(&h);
	if (c->shm) {
		space = softrdma__shm_tx_space(c);
		if (space == UINT32_MAX || space < sizeof(h))
			return;
		at = softrdma__shm_tail(c);
		softrdma__shm_put(c, at, &h, sizeof(h), 0);
		softrdma__shm_commit(c, at + sizeof(h));
		return;
	}
	if (send(c->fd, &h, sizeof(h), MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof(h)) {
		/* no room (or cut short): the close that follows ends the stream */
	}
}

/*
 * Outstanding requests to a peer whose QP left RTS: like unanswered
 * retries they fail at a deadline, unless a disconnect flushes them first.
 */
static void softrdma_qp_arm_eos_timer(struct softrdma_qp *qp)
{
	enum ibv_qp_state st = qp->qpx.qp_base.state;

	if (qp->eos_deadline || qp->sq_count == qp->sq_ndone ||
	    (st != IBV_QPS_RTS && st != IBV_QPS_SQD))
		return;
	__atomic_store_n(&qp->eos_deadline, softrdma__now_ns() + SOFTRDMA_EOS_WAIT_NS, __ATOMIC_RELAXED);
	softrdma__progress_kick();
}

/* The peer ended its stream on @c (marker seen, or closed after it or while draining). */
static void softrdma_qp_peer_ended(struct softrdma_qp *qp, int out)
{
	if (out)
		qp->peer_eos = 1;
	if (qp->draining)
		pthread_cond_broadcast(&qp->drain_cond);
	else if (out)
		softrdma_qp_arm_eos_timer(qp);
}

/* An end-of-stream marker arrived on @c: stop reading it. */
static void softrdma_conn_eos(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	c->eos = 1;
	c->hhave = 0;
	softrdma_qp_peer_ended(qp, c == qp->out);
}

/*
 * Everything the peer sent has been consumed: each connection saw the
 * end-of-stream marker or is gone, or the responder waits for a receive
 * WQE (it cannot move on by itself).
 */
static int softrdma_qp_peer_done(struct softrdma_qp *qp)
{
	struct softrdma_conn *o = qp->out, *i = qp->in;

	if (o && !o->dead && !o->eos)
		return 0;
	return !i || i->dead || i->eos || i->rx == SOFTRDMA_RX_WAIT_RWQE;
}

/*
 * CM disconnect (qp->lock held, released while waiting): the peer sent an
 * end-of-stream marker on the data path before its DREQ or DREP, but on
 * another connection; let the progress thread consume everything up to the
 * marker first, for at most SOFTRDMA_DRAIN_NS, so a dead peer still ends
 * in flush errors soon.
 */
static void softrdma_qp_drain(struct softrdma_qp *qp)
{
	struct ibv_qp *q = &qp->qpx.qp_base;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += SOFTRDMA_DRAIN_NS / 1000000000ull;
	ts.tv_nsec += SOFTRDMA_DRAIN_NS % 1000000000ull;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	qp->draining = 1;
	softrdma__progress_kick();
	while (!qp->destroyed && (q->state == IBV_QPS_RTR || q->state == IBV_QPS_RTS ||
				  q->state == IBV_QPS_SQD) && !softrdma_qp_peer_done(qp)) {
		if (pthread_cond_timedwait(&qp->drain_cond, &qp->lock, &ts) == ETIMEDOUT)
			break;
	}
	qp->draining = 0;
	pthread_cond_broadcast(&qp->drain_cond);
}

/* Progress thread: requests outstanding since the peer left RTS time out. */
void softrdma__qp_check_eos(struct softrdma_qp *qp, uint64_t now, uint64_t *next)
{
	enum ibv_qp_state st = qp->qpx.qp_base.state;

	if (!qp->eos_deadline)
		return;
	if ((st != IBV_QPS_RTS && st != IBV_QPS_SQD) || qp->sq_count == qp->sq_ndone) {
		__atomic_store_n(&qp->eos_deadline, 0, __ATOMIC_RELAXED);
		return;
	}
	if (now >= qp->eos_deadline) {
		__atomic_store_n(&qp->eos_deadline, 0, __ATOMIC_RELAXED);
		softrdma__qp_set_error(qp, 1, IBV_WC_RETRY_EXC_ERR);
		return;
	}
	if (!*next || qp->eos_deadline < *next)
		*next = qp->eos_deadline;
}

/* Pop a receive WQE from the SRQ or the QP's own receive queue. */
static int softrdma_take_rwqe(struct softrdma_qp *qp, struct softrdma_rwqe *out)
{
	struct ibv_srq *srq = qp->qpx.qp_base.srq;
	struct softrdma_rq *rq = &qp->rq;
	struct softrdma_srq *s = NULL;
	int fire = 0;

	if (srq) {
		s = (struct softrdma_srq *)srq;
		pthread_mutex_lock(&s->lock);
		rq = &s->rq;
	}
	if (!rq->count) {
		if (s)
			pthread_mutex_unlock(&s->lock);
		return ENOENT;
	}
	memcpy(out, softrdma_rq_at(rq, 0), rq->slot_size);
	rq->head = (rq->head + 1) % rq->size;
	rq->count--;
	if (s) {
		if (s->limit && rq->count < s->limit) {
			s->limit = 0;
			fire = 1;
		}
		pthread_mutex_unlock(&s->lock);
		if (fire)
			softrdma__async_event(srq->context, IBV_EVENT_SRQ_LIMIT_REACHED, srq);
	}
	return 0;
}

/* RNR timer in nanoseconds from the IB encoding of min_rnr_timer. */
static uint64_t softrdma_rnr_ns(uint8_t t)
{
	static const uint32_t us[32] = {
		655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
		1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
		40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520 };

	return (uint64_t)us[t & 31] * 1000;
}

/* Prepare the scatter list of a receive WQE for an incoming SEND. */
static int softrdma_rwqe_iov(struct softrdma_qp *qp, struct softrdma_rwqe *w,
			     struct softrdma_conn *c, size_t len)
{
	size_t room = 0;
	uint32_t i;

	c->iovcnt = 0;
	for (i = 0; i < w->num_sge && room < len; i++) {
		struct softrdma_mr *mr = softrdma__mr_get(w->sge[i].lkey);
		size_t take;

		if (!w->sge[i].length) {
			softrdma__mr_put();
			continue;
		}
		if (softrdma__mr_check(mr, qp->qpx.qp_base.pd, w->sge[i].addr, w->sge[i].length,
				       IBV_ACCESS_LOCAL_WRITE)) {
			softrdma__mr_put();
			return IBV_WC_LOC_PROT_ERR;
		}
		take = len - room < w->sge[i].length ? len - room : w->sge[i].length;
		c->iov[c->iovcnt].iov_base = softrdma__mr_ptr(mr, w->sge[i].addr);
		c->iov[c->iovcnt].iov_len = take;
		c->iovcnt++;
		room += take;
		softrdma__mr_put();
	}
	return room < len ? IBV_WC_LOC_LEN_ERR : IBV_WC_SUCCESS;
}

/* Responder: a request header was received; set up its payload handling. */
static void softrdma_resp_start(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	struct softrdma_wire_hdr *h = &c->hdr;
	struct softrdma_mr *mr;
	int need;

	c->remaining = h->len;
	c->total = h->len;
	c->discard = 0;
	c->rx_status = IBV_WC_SUCCESS;
	c->iovcnt = 0;
	if (h->op == SOFTRDMA_OP_WRITE || h->op == SOFTRDMA_OP_WRITE_IMM ||
	    h->op == SOFTRDMA_OP_READ_REQ) {
		int is_read = h->op == SOFTRDMA_OP_READ_REQ;
		uint64_t len = is_read ? h->rlen : h->len;

		need = is_read ? IBV_ACCESS_REMOTE_READ : IBV_ACCESS_REMOTE_WRITE;
		if (!(qp->access & need)) {
			c->rx_status = IBV_WC_REM_INV_REQ_ERR;
		} else if (len) {
			mr = softrdma__mr_get(h->rkey);
			if (softrdma__mr_check(mr, qp->qpx.qp_base.pd, h->raddr, len, need))
				c->rx_status = IBV_WC_REM_ACCESS_ERR;
			else if (!is_read) {
				c->iov[0].iov_base = softrdma__mr_ptr(mr, h->raddr);
				c->iov[0].iov_len = len;
				c->iovcnt = 1;
			} else {
				c->iov[0].iov_base = softrdma__mr_ptr(mr, h->raddr);
				c->iov[0].iov_len = len;
			}
			softrdma__mr_put();
		}
	}
	if (c->rx_status != IBV_WC_SUCCESS)
		c->discard = 1;
	if (h->op == SOFTRDMA_OP_SEND || h->op == SOFTRDMA_OP_SEND_IMM ||
	    h->op == SOFTRDMA_OP_WRITE_IMM) {
		c->rx = SOFTRDMA_RX_WAIT_RWQE;
		/* tells the progress thread's rescan to look at this QP */
		__atomic_store_n(&qp->rnr_waiting, 1, __ATOMIC_RELAXED);
	} else
		c->rx = SOFTRDMA_RX_PAYLOAD;
	c->rnr_deadline = 0;
}

/* Responder: get a receive WQE for a SEND/WRITE_IMM; 0 when still waiting. */
static int softrdma_resp_rwqe(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	struct {
		struct softrdma_rwqe w;
		struct ibv_sge sge[SOFTRDMA_MAX_SGE];
	} w;
	struct ibv_wc wc;
	int st;

	if (softrdma_take_rwqe(qp, &w.w)) {
		uint64_t now = softrdma__now_ns();

		if (c->hdr.rnr_retry < 7 && !c->rnr_deadline)
			c->rnr_deadline = now + (c->hdr.rnr_retry + 1) *
					  softrdma_rnr_ns(qp->min_rnr_timer);
		return 0;
	}
	c->rwqe_id = w.w.wr_id;
	c->rx = SOFTRDMA_RX_PAYLOAD;
	if (c->rx_status != IBV_WC_SUCCESS || c->hdr.op == SOFTRDMA_OP_WRITE_IMM)
		return 1;
	st = softrdma_rwqe_iov(qp, &w.w, c, c->hdr.len);
	if (st != IBV_WC_SUCCESS) {
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = c->rwqe_id;
		wc.status = st;
		wc.opcode = IBV_WC_RECV;
		wc.vendor_err = 0x1;
		softrdma_complete(qp, qp->qpx.qp_base.recv_cq, &wc);
		c->rx_status = st == IBV_WC_LOC_LEN_ERR ? IBV_WC_REM_INV_REQ_ERR :
			       IBV_WC_REM_OP_ERR;
		c->rwqe_id = 0;
		c->discard = 2;
	}
	return 1;
}

/* Responder: the whole request was consumed; complete and answer it. */
static void softrdma_pull_responses(struct softrdma_qp *qp);

static void softrdma_resp_finish(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	struct softrdma_wire_hdr *h = &c->hdr;
	struct ibv_wc wc;

	c->rx = SOFTRDMA_RX_HDR;
	c->hhave = 0;
	if (c->rx_status != IBV_WC_SUCCESS) {
		/* answer, then the responder QP enters the error state too */
		softrdma_respond(qp, SOFTRDMA_OP_NAK, h->seq, c->rx_status);
		if (qp->in)
			softrdma__qp_flush_tx(qp->in);
		softrdma__qp_set_error(qp, 0, IBV_WC_SUCCESS);
		return;
	}
	if (h->op == SOFTRDMA_OP_READ_REQ) {
		struct softrdma_wire_hdr r = { .op = SOFTRDMA_OP_READ_RESP, .seq = h->seq,
					       .len = h->rlen };
		struct softrdma_txbuf *b = softrdma_txbuf_new(&r, h->rlen);

		if (!b) {
			softrdma_respond(qp, SOFTRDMA_OP_NAK, h->seq, IBV_WC_REM_OP_ERR);
			return;
		}
		if (softrdma__safe_read(b->data + sizeof(r), c->iov[0].iov_base, h->rlen)) {
			free(b);
			c->rx_status = IBV_WC_REM_ACCESS_ERR;
			softrdma_resp_finish(qp, c);
			return;
		}
		softrdma_conn_send(c, b);
		return;
	}
	if (h->op != SOFTRDMA_OP_WRITE) {
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = c->rwqe_id;
		wc.status = IBV_WC_SUCCESS;
		wc.byte_len = h->len;
		wc.src_qp = qp->dest_qpn;
		if (h->op == SOFTRDMA_OP_WRITE_IMM) {
			wc.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		} else {
			wc.opcode = IBV_WC_RECV;
		}
		if (h->op != SOFTRDMA_OP_SEND) {
			wc.wc_flags = IBV_WC_WITH_IMM;
			wc.imm_data = h->imm;
		}
	}
	/*
	 * Acknowledge before the receive completes: the application may exit
	 * as soon as it sees the completion, and the sender must still get
	 * its ACK (as the hardware sends it before the CQE is written).
	 */
	if (h->flags & SOFTRDMA_WF_ACK_REQ)
		softrdma_respond(qp, SOFTRDMA_OP_ACK, h->seq, 0);
	if (h->op != SOFTRDMA_OP_WRITE) {
		softrdma_pull_responses(qp);
		softrdma_complete(qp, qp->qpx.qp_base.recv_cq, &wc);
	}
}

/*
 * Responder, before delivering a message of the peer: take in the responses
 * the peer sent earlier on the requester connection. The peer sends its
 * ACKs before any later request (softrdma__qp_flush_tx holds requests
 * behind queued responses), so a SEND or WRITE of this side completes, as
 * on an RNIC, before the peer's next message is seen here.
 */
static void softrdma_pull_responses(struct softrdma_qp *qp)
{
	struct softrdma_conn *o = qp->out;

	if (qp->sq_ndone == qp->sq_count || !o || o->dead || o->connecting || o->eos)
		return;
	softrdma__qp_conn_readable(o);
}

/*
 * Receive payload bytes into c->iov (or discard them). Returns 1 when the
 * payload is complete, 0 on EAGAIN, -errno on connection failure.
 */
static int softrdma_rx_payload(struct softrdma_conn *c, int local_fault_status)
{
	static __thread char scratch[65536];

	while (c->remaining) {
		ssize_t n;

		if (c->discard && c->shm) {
			n = softrdma__shm_discard(c, c->remaining);
		} else if (c->discard) {
			n = recv(c->fd, scratch, c->remaining < sizeof(scratch) ?
				 c->remaining : sizeof(scratch), MSG_DONTWAIT);
		} else {
			struct iovec iov[SOFTRDMA_MAX_SGE];
			size_t skip = c->total - c->remaining;
			int i, k = 0;

			for (i = 0; i < c->iovcnt; i++) {
				if (skip >= c->iov[i].iov_len) {
					skip -= c->iov[i].iov_len;
					continue;
				}
				iov[k].iov_base = (char *)c->iov[i].iov_base + skip;
				iov[k].iov_len = c->iov[i].iov_len - skip;
				skip = 0;
				k++;
			}
			n = c->shm ? softrdma__shm_recv_iov(c, iov, k) : readv(c->fd, iov, k);
			if (n < 0 && errno == EFAULT) {
				c->discard = 1;
				c->rx_status = local_fault_status;
				continue;
			}
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		c->remaining -= n;
	}
	return 1;
}

/* Read more header bytes; 1 when complete, 0 on EAGAIN, -errno on failure. */
static int softrdma_rx_hdr(struct softrdma_conn *c)
{
	while (c->hhave < sizeof(c->hbuf)) {
		ssize_t n = softrdma_conn_recv(c, c->hbuf + c->hhave, sizeof(c->hbuf) - c->hhave);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		c->hhave += n;
	}
	memcpy(&c->hdr, c->hbuf, sizeof(c->hdr));
	softrdma__wire_hdr_from_le(&c->hdr);
	return 1;
}

/* Responder half: process requests arriving on the @in connection. */
static int softrdma_rx_responder(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	int r;

	for (;;) {
		enum ibv_qp_state st = qp->qpx.qp_base.state;

		if (st == IBV_QPS_RESET || st == IBV_QPS_INIT || st == IBV_QPS_ERR)
			return 0;
		if (c->rx == SOFTRDMA_RX_HDR) {
			r = softrdma_rx_hdr(c);
			if (r <= 0)
				return r;
			if (softrdma__wire_hdr_valid(&c->hdr, 0))
				return -EPROTO;
			if (c->hdr.op == SOFTRDMA_OP_EOS) {
				softrdma_conn_eos(qp, c);
				return 0;
			}
			softrdma_resp_start(qp, c);
		}
		if (c->rx == SOFTRDMA_RX_WAIT_RWQE && !softrdma_resp_rwqe(qp, c))
			return 0;
		r = softrdma_rx_payload(c, c->hdr.op == SOFTRDMA_OP_SEND ||
					c->hdr.op == SOFTRDMA_OP_SEND_IMM ?
					IBV_WC_REM_OP_ERR : IBV_WC_REM_ACCESS_ERR);
		if (r <= 0)
			return r;
		softrdma_resp_finish(qp, c);
		if (qp->in != c)
			return 0;
	}
}

static void softrdma_direct_done(struct softrdma_qp *qp, struct softrdma_swqe *e);

/*
 * The oldest WR still executing succeeded: it completes now and keeps its
 * slot until the application polls the completion.
 */
static void softrdma_sq_complete_ok(struct softrdma_qp *qp)
{
	softrdma_direct_done(qp, &qp->sq[(qp->sq_head + qp->sq_ndone) % qp->sq_size]);
}

/* Sequence number @a precedes or equals @b in serial arithmetic. */
static int softrdma_seq_le(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) <= 0;
}

/* Requester: find the outstanding WR with @seq; returns its ring offset. */
static int softrdma_sq_find(struct softrdma_qp *qp, uint32_t seq, uint32_t *off)
{
	uint32_t i;

	for (i = 0; i < qp->sq_count; i++) {
		if (qp->sq[(qp->sq_head + i) % qp->sq_size].seq == seq) {
			*off = i;
			return 0;
		}
	}
	return ENOENT;
}

/* Requester: prepare scatter pointers of a READ response. */
static int softrdma_read_iov(struct softrdma_qp *qp, struct softrdma_swqe *e,
			     struct softrdma_conn *c)
{
	uint32_t i;

	c->iovcnt = 0;
	for (i = 0; i < e->num_sge; i++) {
		struct softrdma_mr *mr = softrdma__mr_get(e->sge[i].lkey);

		if (softrdma__mr_check(mr, qp->qpx.qp_base.pd, e->sge[i].addr, e->sge[i].length,
				       IBV_ACCESS_LOCAL_WRITE)) {
			softrdma__mr_put();
			return IBV_WC_LOC_PROT_ERR;
		}
		c->iov[c->iovcnt].iov_base = softrdma__mr_ptr(mr, e->sge[i].addr);
		c->iov[c->iovcnt].iov_len = e->sge[i].length;
		c->iovcnt++;
		softrdma__mr_put();
	}
	return IBV_WC_SUCCESS;
}

/*
 * Requester: read the responder's answer to the hello; it says whether the
 * connection continues over rings. 1 when done, 0 to wait, -errno on failure.
 */
static int softrdma_rx_answer(struct softrdma_conn *c)
{
	struct softrdma_wire_shm a;
	int err;

	while (c->ahave < sizeof(c->abuf)) {
		ssize_t n = recv(c->fd, c->abuf + c->ahave, sizeof(c->abuf) - c->ahave,
				 MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		c->ahave += n;
	}
	memcpy(&a, c->abuf, sizeof(a));
	softrdma__wire_shm_from_le(&a);
	err = softrdma__shm_accepted(c, &a);
	if (err)
		return -err;
	c->await_answer = 0;
	c->rx = SOFTRDMA_RX_HDR;
	c->hhave = 0;
	if (c->shm)
		softrdma__progress_shm_add(c);
	if (softrdma__qp_flush_tx(c))
		return -EPIPE;
	return 1;
}

/* Requester half: process responses arriving on the @out connection. */
static int softrdma_rx_requester(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	struct softrdma_wire_hdr *h = &c->hdr;
	uint32_t off;
	int r;

	for (;;) {
		if (c->rx == SOFTRDMA_RX_ANSWER) {
			r = softrdma_rx_answer(c);
			if (r <= 0)
				return r;
			continue;
		}
		if (c->rx == SOFTRDMA_RX_HDR) {
			r = softrdma_rx_hdr(c);
			if (r <= 0)
				return r;
			if (softrdma__wire_hdr_valid(h, 1))
				return -EPROTO;
			if (h->op == SOFTRDMA_OP_EOS) {
				/* responses to what is still outstanding will not come */
				softrdma_conn_eos(qp, c);
				return 0;
			}
			if (softrdma_sq_find(qp, h->seq, &off))
				return -EPROTO;
			if (h->op == SOFTRDMA_OP_ACK) {
				while (qp->sq_ndone < qp->sq_count &&
				       softrdma_seq_le(qp->sq[(qp->sq_head + qp->sq_ndone) %
						       qp->sq_size].seq, h->seq))
					softrdma_sq_complete_ok(qp);
				c->hhave = 0;
				continue;
			}
			if (h->op == SOFTRDMA_OP_NAK) {
				enum ibv_wc_status st = h->status;

				if (st != IBV_WC_REM_ACCESS_ERR && st != IBV_WC_REM_INV_REQ_ERR &&
				    st != IBV_WC_REM_OP_ERR && st != IBV_WC_RNR_RETRY_EXC_ERR)
					st = IBV_WC_REM_OP_ERR;
				while (off--)
					softrdma_sq_complete_head(qp, IBV_WC_SUCCESS);
				softrdma__qp_set_error(qp, 1, st);
				return 0;
			}
			/* READ response */
			{
				struct softrdma_swqe *e = &qp->sq[(qp->sq_head + off) % qp->sq_size];

				if (!e->is_read || e->byte_len != h->len || off < qp->sq_ndone)
					return -EPROTO;
				while (qp->sq_ndone < off)
					softrdma_sq_complete_ok(qp);
				c->remaining = h->len;
				c->total = h->len;
				c->discard = 0;
				c->rx_status = softrdma_read_iov(qp, e, c);
				if (c->rx_status != IBV_WC_SUCCESS)
					c->discard = 1;
				c->rx = SOFTRDMA_RX_PAYLOAD;
			}
		}
		r = softrdma_rx_payload(c, IBV_WC_LOC_PROT_ERR);
		if (r <= 0)
			return r;
		c->rx = SOFTRDMA_RX_HDR;
		c->hhave = 0;
		if (c->rx_status != IBV_WC_SUCCESS) {
			softrdma__qp_set_error(qp, 1, c->rx_status);
			return 0;
		}
		softrdma_sq_complete_ok(qp);
	}
}

/* A connection failed or the peer went away: the QP enters the error state. */
void softrdma__qp_conn_failed(struct softrdma_conn *c, int err)
{
	struct softrdma_qp *qp = c->qp;
	enum ibv_qp_state st = qp->qpx.qp_base.state;

	(void)err;
	if (c != qp->out && qp->out && !qp->out->dead && !qp->out->connecting) {
		/* a NAK may be waiting on the requester side: it explains the close */
		softrdma__qp_conn_readable(qp->out);
		st = qp->qpx.qp_base.state;
	}
	if (st == IBV_QPS_ERR) {
		softrdma__conn_close(c);
		return;
	}
	if (st == IBV_QPS_RESET || st == IBV_QPS_INIT) {
		/* not connected yet: only drop the connection */
		softrdma__conn_close(c);
		return;
	}
	if (c->eos || qp->draining) {
		/* closed after its end-of-stream marker, or during a disconnect */
		int out = qp->out == c;

		c->eos = 1;
		if (qp->in == c)
			softrdma__shm_revoke(c);
		softrdma__conn_close(c);
		softrdma_qp_peer_ended(qp, out);
		return;
	}
	if (qp->sq_count > qp->sq_ndone) {
		/* outstanding requests cannot complete: transport retries exceeded */
		softrdma__qp_set_error(qp, 1, IBV_WC_RETRY_EXC_ERR);
	} else {
		/* idle: like real RC, the loss shows on the next request */
		softrdma_qp_close_conns(qp);
	}
	softrdma__conn_close(c);
}

/* Progress thread: @c is readable (qp->lock held). */
void softrdma__qp_conn_readable(struct softrdma_conn *c)
{
	struct softrdma_qp *qp = c->qp;
	int r;

	if (c->eos)
		return;	/* nothing follows the marker but the close */
	r = c->is_out ? softrdma_rx_requester(qp, c) : softrdma_rx_responder(qp, c);
	if (r < 0 && !c->dead)
		softrdma__qp_conn_failed(c, -r);
	else if (!c->dead)
		softrdma__progress_watch(c, softrdma_conn_want(c));
}

/* Progress thread: @c is writable or finished connecting (qp->lock held). */
void softrdma__qp_conn_writable(struct softrdma_conn *c)
{
	struct softrdma_conn *o;
	int err = 0;
	socklen_t len = sizeof(err);

	if (c->connecting) {
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
			softrdma__qp_conn_failed(c, err ? err : errno);
			return;
		}
		c->connecting = 0;
	}
	if (softrdma__qp_flush_tx(c)) {
		softrdma__qp_conn_failed(c, EPIPE);
		return;
	}
	/* responses gone out: requests held behind them may follow */
	o = c->is_out || !c->qp ? NULL : c->qp->out;
	if (o && !o->dead && softrdma__list_empty(&c->txq) && !softrdma__list_empty(&o->txq) &&
	    softrdma__qp_flush_tx(o))
		softrdma__qp_conn_failed(o, EPIPE);
}

/* Progress thread: retry a responder stalled for a receive WQE, or time it out. */
void softrdma__qp_check_rnr(struct softrdma_qp *qp, uint64_t now, uint64_t *next)
{
	struct softrdma_conn *c = qp->in;

	if (c && !c->dead && c->rx == SOFTRDMA_RX_WAIT_RWQE)
		softrdma__qp_conn_readable(c);
	c = qp->in;
	if (!c || c->dead || c->rx != SOFTRDMA_RX_WAIT_RWQE) {
		__atomic_store_n(&qp->rnr_waiting, 0, __ATOMIC_RELAXED);
		return;
	}
	if (!c->rnr_deadline)
		return;
	if (now >= c->rnr_deadline) {
		/* receiver not ready too long: the requester gets RNR retry exceeded */
		c->rx_status = IBV_WC_RNR_RETRY_EXC_ERR;
		c->discard = 1;
		c->rx = SOFTRDMA_RX_PAYLOAD;
		softrdma__qp_conn_readable(c);
		return;
	}
	if (!*next || c->rnr_deadline < *next)
		*next = c->rnr_deadline;
}

/* Create the requester connection towards the peer QP (at RTR). */
static int softrdma_qp_connect(struct softrdma_qp *qp)
{
	struct softrdma_wire_hello hello;
	struct softrdma_wire_shm offer;
	struct softrdma_conn *c;
	struct softrdma_txbuf *b;
	struct sockaddr_in sin;
	int one = 1, err;

	c = calloc(1, sizeof(*c));
	if (!c)
		return ENOMEM;
	softrdma__list_init(&c->txq);
	softrdma__list_init(&c->node);
	softrdma__list_init(&c->shm_node);
	c->ring_fd = -1;
	c->is_out = 1;
	c->qp = qp;
	c->rx = SOFTRDMA_RX_ANSWER;
	c->await_answer = 1;
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->fd < 0) {
		err = errno;
		goto free_c;
	}
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	memcpy(&sin, &qp->peer, sizeof(sin));
	sin.sin_port = htons(qp->dest_qpn >> 8);
	if (connect(c->fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 && errno != EINPROGRESS) {
		err = errno;
		goto close_fd;
	}
	c->connecting = 1;
	softrdma__wire_hello_init(&hello, qp->qpx.qp_base.qp_num, qp->dest_qpn);
	/* offer rings when this side may use them; the answer decides */
	softrdma__shm_ring_create(c);
	softrdma__shm_offer(&offer, c->ring_fd);
	softrdma__wire_shm_to_le(&offer);
	b = malloc(sizeof(*b) + SOFTRDMA_WIRE_HELLO_LEN);
	if (!b) {
		err = ENOMEM;
		goto close_fd;
	}
	b->len = SOFTRDMA_WIRE_HELLO_LEN;
	b->off = 0;
	memcpy(b->data, &hello, sizeof(hello));
	memcpy(b->data + sizeof(hello), &offer, sizeof(offer));
	softrdma__list_add_tail(&c->txq, &b->node);
	qp->out = c;
	err = softrdma__progress_watch(c, EPOLLOUT | EPOLLRDHUP);
	if (err) {
		qp->out = NULL;
		softrdma__list_del(&b->node);
		free(b);
		goto close_fd;
	}
	return 0;

close_fd:
	close(c->fd);
	softrdma__shm_release(c);
free_c:
	free(c);
	return err;
}

/* Create an RC QP (shared by ibv_create_qp and ibv_create_qp_ex). */
static struct ibv_qp *softrdma_qp_create(struct ibv_context *ctx, struct ibv_pd *pd,
					 struct ibv_qp_init_attr_ex *a);

/* ibv_create_qp: classic creation. */
struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex;
	struct ibv_qp *qp;

	memset(&ex, 0, sizeof(ex));
	memcpy(&ex, attr, sizeof(*attr));
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd;
	qp = softrdma_qp_create(pd->context, pd, &ex);
	if (qp)
		attr->cap = ex.cap;
	return qp;
}

/* verbs_context.create_qp_ex: extended creation. */
struct ibv_qp *softrdma__create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	uint64_t known = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;

	if (attr->comp_mask & ~known) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD)) {
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~(uint64_t)SOFTRDMA_SEND_OPS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return softrdma_qp_create(ctx, attr->pd, attr);
}

static void softrdma_qpx_init(struct softrdma_qp *qp);

static struct ibv_qp *softrdma_qp_create(struct ibv_context *ctx, struct ibv_pd *pd,
					 struct ibv_qp_init_attr_ex *a)
{
	pthread_condattr_t cattr;
	struct softrdma_qp *qp;
	struct ibv_qp *q;
	int err = EINVAL;

	if (a->qp_type != IBV_QPT_RC) {
		err = EOPNOTSUPP;
		goto fail;
	}
	if (!a->send_cq || !a->recv_cq || !pd || a->cap.max_send_wr > SOFTRDMA_MAX_WR ||
	    a->cap.max_send_sge > SOFTRDMA_MAX_SGE || a->cap.max_inline_data > SOFTRDMA_MAX_INLINE)
		goto fail;
	if (!a->srq && (a->cap.max_recv_wr > SOFTRDMA_MAX_WR ||
			a->cap.max_recv_sge > SOFTRDMA_MAX_SGE))
		goto fail;
	err = ENOMEM;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		goto fail;
	qp->sq_size = a->cap.max_send_wr ? a->cap.max_send_wr : 1;
	qp->sq = calloc(qp->sq_size, sizeof(*qp->sq));
	if (!qp->sq)
		goto free_qp;
	if (!a->srq) {
		err = softrdma_rq_alloc(&qp->rq, a->cap.max_recv_wr, a->cap.max_recv_sge);
		if (err)
			goto free_sq;
	}
	qp->cap = a->cap;
	if (a->srq) {
		qp->cap.max_recv_wr = 0;
		qp->cap.max_recv_sge = 0;
	}
	if (qp->cap.max_inline_data < 64)
		qp->cap.max_inline_data = 64;
	a->cap = qp->cap;
	qp->sq_sig_all = a->sq_sig_all;
	pthread_mutex_init(&qp->lock, NULL);
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&qp->drain_cond, &cattr);
	pthread_condattr_destroy(&cattr);
	softrdma__list_init(&qp->pending_tx);
	q = &qp->qpx.qp_base;
	q->context = ctx;
	q->qp_context = a->qp_context;
	q->pd = pd;
	q->send_cq = a->send_cq;
	q->recv_cq = a->recv_cq;
	q->srq = a->srq;
	q->qp_type = IBV_QPT_RC;
	q->state = IBV_QPS_RESET;
	pthread_mutex_init(&q->mutex, NULL);
	pthread_cond_init(&q->cond, NULL);
	err = softrdma__cq_attach(q->send_cq, qp);
	if (err)
		goto free_rq;
	if (q->recv_cq != q->send_cq) {
		err = softrdma__cq_attach(q->recv_cq, qp);
		if (err)
			goto detach_send;
	}
	err = softrdma__progress_add_qp(qp);
	if (err)
		goto detach_recv;
	q->handle = q->qp_num;
	softrdma_qpx_init(qp);
	softrdma__pd_get(pd);
	return q;

detach_recv:
	softrdma__cq_detach(q->recv_cq, qp);
detach_send:
	softrdma__cq_detach(q->send_cq, qp);
free_rq:
	free(qp->rq.slots);
free_sq:
	free(qp->sq);
free_qp:
	free(qp);
fail:
	errno = err;
	return NULL;
}

/* Destroy a QP: its connections close and the peer sees the QP gone. */
int ibv_destroy_qp(struct ibv_qp *q)
{
	struct softrdma_qp *qp = softrdma_qp(q);

	pthread_mutex_lock(&qp->lock);
	qp->destroyed = 1;
	softrdma_qp_close_conns(qp);
	/* a CM disconnect may be waiting on this QP: let it finish first */
	pthread_cond_broadcast(&qp->drain_cond);
	while (qp->draining)
		pthread_cond_wait(&qp->drain_cond, &qp->lock);
	pthread_mutex_unlock(&qp->lock);
	softrdma__cq_detach(q->send_cq, qp);
	softrdma__cq_detach(q->recv_cq, qp);
	softrdma__progress_del_qp(qp);
	softrdma__pd_put(q->pd);
	free(qp->xwr);
	free(qp->xsge);
	free(qp->rq.slots);
	free(qp->sq);
	pthread_cond_destroy(&qp->drain_cond);
	pthread_mutex_destroy(&qp->lock);
	free(qp);
	return 0;
}

/* Check the attribute mask against the transition @cur -> @next. */
static int softrdma_mask_ok(enum ibv_qp_state cur, enum ibv_qp_state next, int mask)
{
	int req = 0, opt = 0;

	if (next == IBV_QPS_RESET || next == IBV_QPS_ERR)
		return 0;
	if (cur == IBV_QPS_RESET && next == IBV_QPS_INIT) {
		req = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	} else if (cur == IBV_QPS_INIT && next == IBV_QPS_INIT) {
		opt = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	} else if (cur == IBV_QPS_INIT && next == IBV_QPS_RTR) {
		req = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	} else if (cur == IBV_QPS_RTR && next == IBV_QPS_RTS) {
		req = IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		      IBV_QP_MAX_QP_RD_ATOMIC;
	} else if ((cur == IBV_QPS_RTS || cur == IBV_QPS_SQD) &&
		   (next == IBV_QPS_RTS || next == IBV_QPS_SQD)) {
		opt = IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER | IBV_QP_CUR_STATE;
	} else if (cur == IBV_QPS_SQE && next == IBV_QPS_RTS) {
		opt = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_MIN_RNR_TIMER;
	} else {
		return 0 == 1 ? 0 : -1;
	}
	(void)opt;
	return (mask & req) == req ? 0 : -1;
}

/* Resolve the peer address from the address vector (GID ::ffff:a.b.c.d). */
static void softrdma_peer_from_ah(struct softrdma_qp *qp, const struct ibv_ah_attr *ah)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&qp->peer;

	memset(&qp->peer, 0, sizeof(qp->peer));
	sin->sin_family = AF_INET;
	if (ah->is_global)
		memcpy(&sin->sin_addr, &ah->grh.dgid.raw[12], 4);
	else
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

/* Modify QP attributes and state. */
int ibv_modify_qp(struct ibv_qp *q, struct ibv_qp_attr *attr, int mask)
{
	struct softrdma_qp *qp = softrdma_qp(q);
	enum ibv_qp_state cur, next;
	int err = 0;

	pthread_mutex_lock(&qp->lock);
	cur = (mask & IBV_QP_CUR_STATE) ? attr->cur_qp_state : q->state;
	if (cur != q->state && !(cur == IBV_QPS_RTS && q->state == IBV_QPS_SQD)) {
		err = EINVAL;
		goto out;
	}
	cur = q->state;
	next = (mask & IBV_QP_STATE) ? attr->qp_state : cur;
	if (next > IBV_QPS_ERR || softrdma_mask_ok(cur, next, mask)) {
		err = EINVAL;
		goto out;
	}
	if ((mask & IBV_QP_PORT) && attr->port_num != 1) {
		err = EINVAL;
		goto out;
	}
	if ((mask & IBV_QP_AV) && attr->ah_attr.is_global &&
	    attr->ah_attr.grh.sgid_index >= softrdma__device()->ngids) {
		err = EINVAL;
		goto out;
	}
	if ((mask & IBV_QP_ACCESS_FLAGS))
		qp->access = attr->qp_access_flags;
	if (mask & IBV_QP_PORT)
		qp->port = attr->port_num;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IBV_QP_RNR_RETRY)
		qp->rnr_retry = attr->rnr_retry;
	if (mask & IBV_QP_RETRY_CNT)
		qp->retry_cnt = attr->retry_cnt;
	if (mask & IBV_QP_TIMEOUT)
		qp->timeout = attr->timeout;
	if (mask & IBV_QP_PATH_MTU)
		qp->path_mtu = attr->path_mtu;
	if (mask & IBV_QP_RQ_PSN)
		qp->rq_psn = attr->rq_psn;
	if (mask & IBV_QP_SQ_PSN)
		qp->sq_psn = attr->sq_psn;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IBV_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num;
	if (mask & IBV_QP_AV) {
		qp->ah = attr->ah_attr;
		softrdma_peer_from_ah(qp, &attr->ah_attr);
	}
	if (next == cur) {
		goto out;
	}
	switch (next) {
	case IBV_QPS_RESET:
		q->state = IBV_QPS_RESET;
		softrdma_qp_close_conns(qp);
		qp->peer_eos = 0;
		__atomic_store_n(&qp->eos_deadline, 0, __ATOMIC_RELAXED);
		qp->sq_head = qp->sq_count = qp->sq_ndone = 0;
		qp->rq.head = qp->rq.count = 0;
		break;
	case IBV_QPS_ERR:
		/* from the CM: first consume what the peer sent before it left */
		if ((mask & SOFTRDMA_QP_DISCONNECT) &&
		    (cur == IBV_QPS_RTR || cur == IBV_QPS_RTS || cur == IBV_QPS_SQD))
			softrdma_qp_drain(qp);
		if (!qp->destroyed)
			softrdma__qp_set_error(qp, 0, IBV_WC_SUCCESS);
		break;
	case IBV_QPS_RTR:
		if (qp->dest_qpn > 0xffffff) {
			err = EINVAL;
			goto out;
		}
		q->state = IBV_QPS_RTR;
		if (!qp->out) {
			err = softrdma_qp_connect(qp);
			if (err) {
				q->state = cur;
				goto out;
			}
		}
		if (qp->in)
			softrdma__progress_watch(qp->in, softrdma_conn_want(qp->in));
		softrdma__progress_kick();
		break;
	default:
		q->state = next;
		break;
	}
out:
	softrdma__shm_publish_qp(qp);
	pthread_mutex_unlock(&qp->lock);
	return err;
}

/* Report QP attributes. */
int ibv_query_qp(struct ibv_qp *q, struct ibv_qp_attr *attr, int mask,
		 struct ibv_qp_init_attr *init)
{
	struct softrdma_qp *qp = softrdma_qp(q);

	(void)mask;
	pthread_mutex_lock(&qp->lock);
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = q->state;
	attr->cur_qp_state = q->state;
	attr->path_mtu = qp->path_mtu;
	attr->qp_access_flags = qp->access;
	attr->cap = qp->cap;
	attr->ah_attr = qp->ah;
	attr->port_num = qp->port;
	attr->min_rnr_timer = qp->min_rnr_timer;
	attr->rnr_retry = qp->rnr_retry;
	attr->retry_cnt = qp->retry_cnt;
	attr->timeout = qp->timeout;
	attr->rq_psn = qp->rq_psn;
	attr->sq_psn = qp->sq_psn;
	attr->dest_qp_num = qp->dest_qpn;
	attr->max_rd_atomic = qp->max_rd_atomic;
	attr->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	attr->sq_draining = 0;
	memset(init, 0, sizeof(*init));
	init->qp_context = q->qp_context;
	init->send_cq = q->send_cq;
	init->recv_cq = q->recv_cq;
	init->srq = q->srq;
	init->cap = qp->cap;
	init->qp_type = q->qp_type;
	init->sq_sig_all = qp->sq_sig_all;
	pthread_mutex_unlock(&qp->lock);
	return 0;
}

/* RC data arrives in order: report in-order delivery support. */
int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	(void)qp;
	(void)op;
	(void)flags;
	return 0;
}

/* Gather the local SGEs of @wr into @dst (or validate only when @dst is NULL). */
static int softrdma_gather(struct softrdma_qp *qp, struct ibv_send_wr *wr, char *dst,
			   uint64_t *total, int access)
{
	int i;

	*total = 0;
	for (i = 0; i < wr->num_sge; i++) {
		struct ibv_sge *s = &wr->sg_list[i];
		struct softrdma_mr *mr;
		int err = 0;

		if ((wr->send_flags & IBV_SEND_INLINE) && wr->opcode != IBV_WR_RDMA_READ) {
			if (dst)
				memcpy(dst + *total, (void *)(uintptr_t)s->addr, s->length);
			*total += s->length;
			continue;
		}
		mr = softrdma__mr_get(s->lkey);
		if (softrdma__mr_check(mr, qp->qpx.qp_base.pd, s->addr, s->length, access))
			err = IBV_WC_LOC_PROT_ERR;
		else if (dst && softrdma__safe_read(dst + *total, softrdma__mr_ptr(mr, s->addr),
						    s->length))
			err = IBV_WC_LOC_PROT_ERR;
		softrdma__mr_put();
		if (err)
			return err;
		*total += s->length;
	}
	return 0;
}

/*
 * Same host: write a request (header and gathered payload) straight into
 * the ring when it fits. Returns 0 when posted, a work completion status
 * for a local error, -1 when the ring has no room (queue it instead).
 */
static int softrdma_shm_post(struct softrdma_qp *qp, struct ibv_send_wr *wr,
			     const struct softrdma_wire_hdr *h, uint64_t total)
{
	struct softrdma_conn *c = qp->out;
	struct softrdma_wire_hdr le = *h;
	uint64_t need = sizeof(le) + (wr->opcode == IBV_WR_RDMA_READ ? 0 : total);
	uint32_t space = softrdma__shm_tx_space(c);
	uint64_t at = softrdma__shm_tail(c);
	int i;

	if (space == UINT32_MAX || need > space)
		return -1;
	softrdma__wire_hdr_to_le(&le);
	softrdma__shm_put(c, at, &le, sizeof(le), 0);
	at += sizeof(le);
	for (i = 0; wr->opcode != IBV_WR_RDMA_READ && i < wr->num_sge; i++) {
		struct ibv_sge *sg = &wr->sg_list[i];
		struct softrdma_mr *mr;
		int err;

		if (wr->send_flags & IBV_SEND_INLINE) {
			err = softrdma__shm_put(c, at, (void *)(uintptr_t)sg->addr, sg->length, 1);
		} else {
			mr = softrdma__mr_get(sg->lkey);
			err = softrdma__mr_check(mr, qp->qpx.qp_base.pd, sg->addr, sg->length, 0);
			if (!err)
				err = softrdma__shm_put(c, at, softrdma__mr_ptr(mr, sg->addr),
							sg->length, 1);
			softrdma__mr_put();
		}
		if (err)
			return IBV_WC_LOC_PROT_ERR;
		at += sg->length;
	}
	softrdma__shm_commit(c, at);
	return 0;
}

/*
 * A WR executed (directly, or acknowledged by the responder): it completes
 * now, but like on an RNIC its slot (and those of the unsignaled WRs before
 * it) stays taken until the application has polled the completion.
 */
static void softrdma_direct_done(struct softrdma_qp *qp, struct softrdma_swqe *e)
{
	struct ibv_wc wc;

	e->done = 1;
	qp->sq_ndone++;
	if (!e->signaled)
		return;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = e->wr_id;
	wc.status = IBV_WC_SUCCESS;
	wc.opcode = e->opcode;
	wc.byte_len = e->byte_len;
	wc.qp_num = qp->qpx.qp_base.qp_num;
	if (softrdma__cq_push_pos(qp->qpx.qp_base.send_cq, &wc, &e->cq_pos) == EOVERFLOW) {
		e->cq_pos = 0;
		softrdma_qp_cq_overrun(qp);
	}
}

/* Free the slots of directly executed WRs whose completion was polled. */
static void softrdma_sq_retire(struct softrdma_qp *qp)
{
	uint64_t consumed = softrdma__cq_consumed(qp->qpx.qp_base.send_cq);
	uint32_t i, n = 0;

	for (i = 0; i < qp->sq_count; i++) {
		struct softrdma_swqe *e = &qp->sq[(qp->sq_head + i) % qp->sq_size];

		if (!e->done)
			break;
		if (e->signaled) {
			if (consumed < e->cq_pos)
				break;
			n = i + 1;
		}
	}
	while (n--)
		softrdma_sq_complete_head(qp, IBV_WC_SUCCESS);
}

/* Post one send WR (qp->lock held). Returns an errno for the post itself. */
static int softrdma_post_one(struct softrdma_qp *qp, struct ibv_send_wr *wr)
{
	struct softrdma_wire_hdr h;
	struct softrdma_swqe *e;
	struct softrdma_txbuf *b = NULL;
	enum ibv_qp_state st = qp->qpx.qp_base.state;
	uint64_t total = 0;
	int status = 0, i;

	if (st == IBV_QPS_RESET || st == IBV_QPS_INIT || st == IBV_QPS_RTR)
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->cap.max_send_sge ||
	    wr->num_sge > SOFTRDMA_MAX_SGE)
		return EINVAL;
	memset(&h, 0, sizeof(h));
	switch (wr->opcode) {
	case IBV_WR_SEND:
		h.op = SOFTRDMA_OP_SEND;
		break;
	case IBV_WR_SEND_WITH_IMM:
		h.op = SOFTRDMA_OP_SEND_IMM;
		break;
	case IBV_WR_RDMA_WRITE:
		h.op = SOFTRDMA_OP_WRITE;
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		h.op = SOFTRDMA_OP_WRITE_IMM;
		break;
	case IBV_WR_RDMA_READ:
		h.op = SOFTRDMA_OP_READ_REQ;
		break;
	default:
		return EINVAL;
	}
	if (qp->sq_count == qp->sq_size && qp->sq_ndone)
		softrdma_sq_retire(qp);
	if (qp->sq_count == qp->sq_size)
		return ENOMEM;
	if ((wr->send_flags & IBV_SEND_INLINE) && wr->opcode != IBV_WR_RDMA_READ) {
		for (i = 0; i < wr->num_sge; i++)
			total += wr->sg_list[i].length;
		if (total > qp->cap.max_inline_data)
			return EINVAL;
	}
	e = &qp->sq[(qp->sq_head + qp->sq_count) % qp->sq_size];
	memset(e, 0, offsetof(struct softrdma_swqe, sge));
	e->wr_id = wr->wr_id;
	e->signaled = qp->sq_sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
	e->seq = qp->next_seq++;
	switch (wr->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		e->opcode = IBV_WC_SEND;
		break;
	case IBV_WR_RDMA_READ:
		e->opcode = IBV_WC_RDMA_READ;
		e->is_read = 1;
		break;
	default:
		e->opcode = IBV_WC_RDMA_WRITE;
		break;
	}
	qp->sq_count++;
	if (st != IBV_QPS_RTS && st != IBV_QPS_SQD) {
		/* QP in error: the WR completes flushed */
		while (qp->sq_count)
			softrdma_sq_complete_head(qp, IBV_WC_WR_FLUSH_ERR);
		return 0;
	}
	status = softrdma_gather(qp, wr, NULL, &total,
				 e->is_read ? IBV_ACCESS_LOCAL_WRITE : 0);
	if (!status && total > SOFTRDMA_MAX_MSG)
		status = IBV_WC_LOC_LEN_ERR;
	e->byte_len = total;
	if (status)
		goto fail;
	if (!qp->out || qp->out->eos) {
		if (!qp->peer_eos)
			goto fail;	/* connection lost: retries exceeded at once */
		/* the peer left RTS: wait for the disconnect, or time out */
		softrdma_qp_arm_eos_timer(qp);
		return 0;
	}
	h.seq = e->seq;
	h.rnr_retry = qp->rnr_retry;
	h.imm = wr->imm_data;
	if (wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_SEND_WITH_IMM) {
		h.raddr = wr->wr.rdma.remote_addr;
		h.rkey = wr->wr.rdma.rkey;
	}
	if (e->is_read) {
		h.rlen = total;
		e->num_sge = wr->num_sge;
		memcpy(e->sge, wr->sg_list, wr->num_sge * sizeof(struct ibv_sge));
	} else {
		h.len = total;
		if (e->signaled)
			h.flags |= SOFTRDMA_WF_ACK_REQ;
	}
	if (qp->out->shm) {
		/* same host: one-sided requests run here when nothing is in flight */
		if ((wr->opcode == IBV_WR_RDMA_WRITE || wr->opcode == IBV_WR_RDMA_READ) &&
		    qp->sq_ndone + 1 == qp->sq_count && !softrdma__shm_direct(qp, wr, total)) {
			softrdma_direct_done(qp, e);
			return 0;
		}
		if (softrdma__list_empty(&qp->out->txq) && !softrdma_requests_held(qp->out)) {
			status = softrdma_shm_post(qp, wr, &h, total);
			if (!status)
				return 0;
			if (status > 0)
				goto fail;
			status = 0;
		}
	}
	b = softrdma_txbuf_new(&h, e->is_read ? 0 : total);
	if (!b) {
		qp->sq_count--;
		qp->next_seq--;
		return ENOMEM;
	}
	if (!e->is_read)
		status = softrdma_gather(qp, wr, (char *)b->data + sizeof(h), &total, 0);
	if (status)
		goto fail;
	softrdma__list_add_tail(&qp->out->txq, &b->node);
	return 0;

fail:
	free(b);
	/* earlier WRs flush, this one reports the local error */
	while (qp->sq_count > 1)
		softrdma_sq_complete_head(qp, IBV_WC_WR_FLUSH_ERR);
	softrdma__qp_set_error(qp, 1, status ? status : IBV_WC_RETRY_EXC_ERR);
	return 0;
}

/* ops.post_send */
int softrdma__post_send(struct ibv_qp *q, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct softrdma_qp *qp = softrdma_qp(q);
	int err = 0;

	pthread_mutex_lock(&qp->lock);
	for (; wr; wr = wr->next) {
		err = softrdma_post_one(qp, wr);
		if (err) {
			*bad = wr;
			break;
		}
	}
	if (qp->out && !qp->out->dead && softrdma__qp_flush_tx(qp->out))
		softrdma__qp_conn_failed(qp->out, EPIPE);
	pthread_mutex_unlock(&qp->lock);
	return err;
}

/* ops.post_recv */
int softrdma__post_recv(struct ibv_qp *q, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct softrdma_qp *qp = softrdma_qp(q);
	int err, wake;

	if (q->srq) {
		*bad = wr;
		return EINVAL;
	}
	pthread_mutex_lock(&qp->lock);
	if (q->state == IBV_QPS_RESET) {
		*bad = wr;
		pthread_mutex_unlock(&qp->lock);
		return EINVAL;
	}
	err = softrdma_rq_post(&qp->rq, wr, bad);
	if (q->state == IBV_QPS_ERR)
		softrdma__qp_set_error(qp, 0, IBV_WC_SUCCESS);
	wake = qp->in && qp->in->rx == SOFTRDMA_RX_WAIT_RWQE;
	pthread_mutex_unlock(&qp->lock);
	if (wake)
		softrdma__progress_kick();
	return err;
}

/* ops.post_srq_recv */
int softrdma__post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad)
{
	struct softrdma_srq *s = (struct softrdma_srq *)srq;
	int err;

	pthread_mutex_lock(&s->lock);
	err = softrdma_rq_post(&s->rq, wr, bad);
	pthread_mutex_unlock(&s->lock);
	softrdma__progress_kick();
	return err;
}

/* Create a shared receive queue. */
struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct softrdma_srq *s;
	int err = EINVAL;

	if (!attr->attr.max_wr || attr->attr.max_wr > SOFTRDMA_MAX_WR ||
	    attr->attr.max_sge > SOFTRDMA_MAX_SGE)
		goto fail;
	err = ENOMEM;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto fail;
	err = softrdma_rq_alloc(&s->rq, attr->attr.max_wr, attr->attr.max_sge);
	if (err)
		goto free_s;
	pthread_mutex_init(&s->lock, NULL);
	s->limit = attr->attr.srq_limit;
	s->srq.context = pd->context;
	s->srq.srq_context = attr->srq_context;
	s->srq.pd = pd;
	pthread_mutex_init(&s->srq.mutex, NULL);
	pthread_cond_init(&s->srq.cond, NULL);
	softrdma__pd_get(pd);
	return &s->srq;

free_s:
	free(s);
fail:
	errno = err;
	return NULL;
}

/* Change the limit (arming the limit event) of an SRQ. */
int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	struct softrdma_srq *s = (struct softrdma_srq *)srq;

	if (mask & IBV_SRQ_MAX_WR)
		return EINVAL;
	if (mask & IBV_SRQ_LIMIT) {
		pthread_mutex_lock(&s->lock);
		if (attr->srq_limit > s->rq.size) {
			pthread_mutex_unlock(&s->lock);
			return EINVAL;
		}
		s->limit = attr->srq_limit;
		pthread_mutex_unlock(&s->lock);
	}
	return 0;
}

/* Report SRQ attributes. */
int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct softrdma_srq *s = (struct softrdma_srq *)srq;

	attr->max_wr = s->rq.size;
	attr->max_sge = s->rq.max_sge;
	attr->srq_limit = s->limit;
	return 0;
}

/* Destroy an SRQ. */
int ibv_destroy_srq(struct ibv_srq *srq)
{
	struct softrdma_srq *s = (struct softrdma_srq *)srq;

	softrdma__pd_put(srq->pd);
	free(s->rq.slots);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return 0;
}

/* ---- extended post interface (ibv_qp_ex wr_* calls) ---- */

static struct softrdma_qp *softrdma_qpx(struct ibv_qp_ex *x)
{
	return (struct softrdma_qp *)x;
}

/* Start a batch of extended work requests. */
static void softrdma_wr_start(struct ibv_qp_ex *x)
{
	struct softrdma_qp *qp = softrdma_qpx(x);

	pthread_mutex_lock(&qp->lock);
	qp->xcount = 0;
	qp->xerr = 0;
}

/* Append a new WR of @opcode to the batch; NULL when the batch is full. */
static struct ibv_send_wr *softrdma_wr_new(struct ibv_qp_ex *x, enum ibv_wr_opcode opcode)
{
	struct softrdma_qp *qp = softrdma_qpx(x);
	struct ibv_send_wr *wr;

	if (qp->xcount >= qp->sq_size) {
		qp->xerr = ENOMEM;
		return NULL;
	}
	wr = &qp->xwr[qp->xcount];
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = x->wr_id;
	wr->send_flags = x->wr_flags;
	wr->opcode = opcode;
	wr->sg_list = &qp->xsge[qp->xcount * SOFTRDMA_MAX_SGE];
	if (qp->xcount)
		qp->xwr[qp->xcount - 1].next = wr;
	qp->xcount++;
	return wr;
}

/* The WR being built. */
static struct ibv_send_wr *softrdma_wr_cur(struct ibv_qp_ex *x)
{
	struct softrdma_qp *qp = softrdma_qpx(x);

	return qp->xcount ? &qp->xwr[qp->xcount - 1] : NULL;
}

static void softrdma_wr_rdma_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t raddr)
{
	struct ibv_send_wr *wr = softrdma_wr_new(x, IBV_WR_RDMA_WRITE);

	if (wr) {
		wr->wr.rdma.rkey = rkey;
		wr->wr.rdma.remote_addr = raddr;
	}
}

static void softrdma_wr_rdma_write_imm(struct ibv_qp_ex *x, uint32_t rkey, uint64_t raddr,
				       __be32 imm)
{
	struct ibv_send_wr *wr = softrdma_wr_new(x, IBV_WR_RDMA_WRITE_WITH_IMM);

	if (wr) {
		wr->wr.rdma.rkey = rkey;
		wr->wr.rdma.remote_addr = raddr;
		wr->imm_data = imm;
	}
}

static void softrdma_wr_rdma_read(struct ibv_qp_ex *x, uint32_t rkey, uint64_t raddr)
{
	struct ibv_send_wr *wr = softrdma_wr_new(x, IBV_WR_RDMA_READ);

	if (wr) {
		wr->wr.rdma.rkey = rkey;
		wr->wr.rdma.remote_addr = raddr;
	}
}

static void softrdma_wr_send(struct ibv_qp_ex *x)
{
	softrdma_wr_new(x, IBV_WR_SEND);
}

static void softrdma_wr_send_imm(struct ibv_qp_ex *x, __be32 imm)
{
	struct ibv_send_wr *wr = softrdma_wr_new(x, IBV_WR_SEND_WITH_IMM);

	if (wr)
		wr->imm_data = imm;
}

/* Set the scatter/gather list of the current WR. */
static void softrdma_wr_set_sge_list(struct ibv_qp_ex *x, size_t n, const struct ibv_sge *sg)
{
	struct ibv_send_wr *wr = softrdma_wr_cur(x);

	if (!wr)
		return;
	if (n > SOFTRDMA_MAX_SGE) {
		softrdma_qpx(x)->xerr = EINVAL;
		return;
	}
	memcpy(wr->sg_list, sg, n * sizeof(*sg));
	wr->num_sge = n;
}

static void softrdma_wr_set_sge(struct ibv_qp_ex *x, uint32_t lkey, uint64_t addr, uint32_t len)
{
	struct ibv_sge s = { .addr = addr, .length = len, .lkey = lkey };

	softrdma_wr_set_sge_list(x, 1, &s);
}

/* Inline data is copied now: the caller may reuse its buffers at once. */
static void softrdma_wr_set_inline_data_list(struct ibv_qp_ex *x, size_t n,
					     const struct ibv_data_buf *bufs)
{
	struct softrdma_qp *qp = softrdma_qpx(x);
	struct ibv_send_wr *wr = softrdma_wr_cur(x);
	char *dst;
	size_t i, total = 0;

	if (!wr)
		return;
	for (i = 0; i < n; i++)
		total += bufs[i].length;
	if (total > qp->cap.max_inline_data) {
		qp->xerr = EINVAL;
		return;
	}
	dst = (char *)qp->xsge + (size_t)qp->sq_size * SOFTRDMA_MAX_SGE * sizeof(struct ibv_sge) +
	      (size_t)(qp->xcount - 1) * qp->cap.max_inline_data;
	for (i = 0, total = 0; i < n; i++) {
		memcpy(dst + total, bufs[i].addr, bufs[i].length);
		total += bufs[i].length;
	}
	wr->sg_list[0].addr = (uintptr_t)dst;
	wr->sg_list[0].length = total;
	wr->num_sge = 1;
	wr->send_flags |= IBV_SEND_INLINE;
}

static void softrdma_wr_set_inline_data(struct ibv_qp_ex *x, void *addr, size_t len)
{
	struct ibv_data_buf b = { .addr = addr, .length = len };

	softrdma_wr_set_inline_data_list(x, 1, &b);
}

/* Post the batch built since wr_start. */
static int softrdma_wr_complete(struct ibv_qp_ex *x)
{
	struct softrdma_qp *qp = softrdma_qpx(x);
	uint32_t i;
	int err = qp->xerr;

	for (i = 0; !err && i < qp->xcount; i++)
		err = softrdma_post_one(qp, &qp->xwr[i]);
	if (qp->out && !qp->out->dead && softrdma__qp_flush_tx(qp->out))
		softrdma__qp_conn_failed(qp->out, EPIPE);
	qp->xcount = 0;
	pthread_mutex_unlock(&qp->lock);
	return err;
}

/* Drop the batch built since wr_start. */
static void softrdma_wr_abort(struct ibv_qp_ex *x)
{
	struct softrdma_qp *qp = softrdma_qpx(x);

	qp->xcount = 0;
	pthread_mutex_unlock(&qp->lock);
}

/* Fill the wr_* entry points this device supports. */
static void softrdma_qpx_init(struct softrdma_qp *qp)
{
	struct ibv_qp_ex *x = &qp->qpx;

	x->wr_rdma_write = softrdma_wr_rdma_write;
	x->wr_rdma_write_imm = softrdma_wr_rdma_write_imm;
	x->wr_rdma_read = softrdma_wr_rdma_read;
	x->wr_send = softrdma_wr_send;
	x->wr_send_imm = softrdma_wr_send_imm;
	x->wr_set_sge = softrdma_wr_set_sge;
	x->wr_set_sge_list = softrdma_wr_set_sge_list;
	x->wr_set_inline_data = softrdma_wr_set_inline_data;
	x->wr_set_inline_data_list = softrdma_wr_set_inline_data_list;
	x->wr_start = softrdma_wr_start;
	x->wr_complete = softrdma_wr_complete;
	x->wr_abort = softrdma_wr_abort;
}

/* Return the extended QP; the batch buffers are allocated on first use. */
struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *q)
{
	struct softrdma_qp *qp = softrdma_qp(q);

	pthread_mutex_lock(&qp->lock);
	if (!qp->xwr) {
		qp->xwr = calloc(qp->sq_size, sizeof(*qp->xwr));
		qp->xsge = calloc(1, (size_t)qp->sq_size * SOFTRDMA_MAX_SGE *
				  sizeof(struct ibv_sge) +
				  (size_t)qp->sq_size * qp->cap.max_inline_data);
		if (!qp->xwr || !qp->xsge) {
			free(qp->xwr);
			free(qp->xsge);
			qp->xwr = NULL;
			qp->xsge = NULL;
			pthread_mutex_unlock(&qp->lock);
			errno = ENOMEM;
			return NULL;
		}
	}
	pthread_mutex_unlock(&qp->lock);
	return &qp->qpx;
}
