/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data connections of a QP. On @out the QP sends requests and receives
 * their answers, on @in it receives the peer's requests and answers them.
 * A connection starts as TCP, with a hello that may offer same-host rings
 * (the responder's answer decides); bytes then flow through the socket or
 * the rings. Here: transmit buffers and the order of requests behind
 * answers, reading headers and payloads, the end-of-stream markers of a
 * disconnect, connecting at RTR, and the events the progress thread
 * dispatches to a connection.
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

#include "comp.h"
#include "net.h"
#include "progress.h"
#include "qp.h"
#include "resp.h"
#include "shm.h"

/* A CM disconnect waits at most this long for the peer's streams to end. */
#define SOFTRDMA_DRAIN_NS 1000000000ull
/* Requests outstanding when the peer's QP left RTS time out after this. */
#define SOFTRDMA_EOS_WAIT_NS 500000000ull

/* Allocate a transmit buffer holding @hdr followed by room for @payload bytes. */
struct softrdma_txbuf *
softrdma__txbuf_new(const struct softrdma_wire_hdr *hdr, size_t payload)
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
int
softrdma__requests_held(struct softrdma_conn *c)
{
	struct softrdma_qp *qp = c->qp;

	return c->is_out && qp && qp->in && !qp->in->dead && !softrdma__list_empty(&qp->in->txq);
}

/* Epoll interest a connection needs right now. */
uint32_t
softrdma__conn_want(struct softrdma_conn *c)
{
	uint32_t ev = EPOLLRDHUP;
	struct softrdma_qp *qp = c->qp;

	if (c->shm || c->eos)
		return ev; /* data flows through the rings, or the peer is done */
	if (c->connecting || (!softrdma__list_empty(&c->txq) &&
			      !(c->await_answer && c->hello_sent) && !softrdma__requests_held(c)))
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

/* The peer's ring has data this side should consume now (qp->lock held). */
int
softrdma__qp_conn_wants_rx(struct softrdma_conn *c)
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

/* Receive from the socket or the ring without blocking. */
static ssize_t
softrdma_conn_recv(struct softrdma_conn *c, void *buf, size_t len)
{
	if (c->shm)
		return softrdma__shm_recv(c, buf, len);
	return recv(c->fd, buf, len, MSG_DONTWAIT);
}

/*
 * Read into @buf (@size bytes, @have of them read before) what @c has, from
 * its socket when @raw, else as softrdma_conn_recv does: 1 when @buf is
 * full, 0 to wait for more, -errno (-ECONNRESET at end of stream).
 */
static int
softrdma_conn_fill(struct softrdma_conn *c, int raw, uint8_t *buf, size_t *have, size_t size)
{
	while (*have < size) {
		ssize_t n = raw ? recv(c->fd, buf + *have, size - *have, MSG_DONTWAIT)
				: softrdma_conn_recv(c, buf + *have, size - *have);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		*have += n;
	}
	return 1;
}

/* Write queued buffers without blocking; keep EPOLLOUT armed for the rest. */
int
softrdma__qp_flush_tx(struct softrdma_conn *c)
{
	if (softrdma__requests_held(c) && softrdma__qp_flush_tx(c->qp->in) == 0 &&
	    softrdma__requests_held(c)) {
		/* the responder connection's EPOLLOUT resumes this one */
		softrdma__progress_watch(c, softrdma__conn_want(c));
		return 0;
	}
	while (!c->connecting && !softrdma__list_empty(&c->txq) && !softrdma__requests_held(c)) {
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
	softrdma__progress_watch(c, softrdma__conn_want(c));
	return 0;
}

/* Queue @b on @c and try to send it at once. */
void
softrdma__conn_send(struct softrdma_conn *c, struct softrdma_txbuf *b)
{
	int was_empty = softrdma__list_empty(&c->txq);

	softrdma__list_add_tail(&c->txq, &b->node);
	if (was_empty)
		softrdma__qp_flush_tx(c);
}

/*
 * Whether @c is still one of @qp's connections (qp->lock held). Once it is
 * not, it is on the grave and the progress thread may free it at any time:
 * it must not be touched again.
 */
static int
softrdma_conn_attached(struct softrdma_qp *qp, struct softrdma_conn *c)
{
	return qp->in == c || qp->out == c;
}

/*
 * Application thread, from an empty CQ poll: move the rings of @qp's
 * same-host connections. Skipped when another thread holds the QP.
 */
void
softrdma__qp_app_progress(struct softrdma_qp *qp)
{
	struct softrdma_conn *cs[2];
	int i;

	if (pthread_mutex_trylock(&qp->lock))
		return;
	cs[0] = qp->out;
	cs[1] = qp->in;
	for (i = 0; i < 2; i++) {
		struct softrdma_conn *c = cs[i];

		/* attached first: handling the other one may have closed it */
		if (!c || !softrdma_conn_attached(qp, c) || !c->shm || c->dead)
			continue;
		if (!softrdma__list_empty(&c->txq) && softrdma__qp_flush_tx(c)) {
			softrdma__qp_conn_failed(c, EPIPE);
			continue;
		}
		if (!softrdma_conn_attached(qp, c))
			continue;
		if (softrdma__shm_rx_avail(c) && softrdma__qp_conn_wants_rx(c))
			softrdma__qp_conn_readable(c);
	}
	pthread_mutex_unlock(&qp->lock);
}

/*
 * This side sends nothing more on @c: put an end-of-stream marker after
 * what the socket or the ring already holds, so the peer knows it has seen
 * everything. Requests still queued on a requester connection are dropped
 * (their WRs are flushed here). When queued data cannot be written at
 * once, the close alone ends the stream. Nothing is allocated.
 */
static void
softrdma_conn_send_eos(struct softrdma_conn *c)
{
	struct softrdma_wire_hdr h = {.op = SOFTRDMA_OP_EOS};
	struct softrdma_list *n, *nx;
	uint32_t space;
	uint64_t at;

	if (c->dead || c->connecting || c->await_answer)
		return;
	for (n = c->txq.next; c->is_out && n != &c->txq; n = nx) {
		struct softrdma_txbuf *b = SOFTRDMA_CONTAINER_OF(n, struct softrdma_txbuf, node);

		nx = n->next;
		if (b->off)
			continue; /* partly written: the peer sees a cut message */
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
		softrdma__shm_put(c, at, &h, sizeof(h));
		softrdma__shm_commit(c, at + sizeof(h));
		return;
	}
	if (send(c->fd, &h, sizeof(h), MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof(h)) {
		/* no room (or cut short): the close that follows ends the stream */
	}
}

/* Close both connections of @qp, each after an end-of-stream marker. */
void
softrdma__qp_close_conns(struct softrdma_qp *qp)
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
 * Outstanding requests to a peer whose QP left RTS: like unanswered
 * retries they fail at a deadline, unless a disconnect flushes them first.
 */
void
softrdma__qp_arm_eos_timer(struct softrdma_qp *qp)
{
	enum ibv_qp_state st = qp->qpx.qp_base.state;

	if (qp->eos_deadline || qp->sq_count == qp->sq_ndone ||
	    (st != IBV_QPS_RTS && st != IBV_QPS_SQD))
		return;
	__atomic_store_n(&qp->eos_deadline, softrdma__now_ns() + SOFTRDMA_EOS_WAIT_NS,
			 __ATOMIC_RELAXED);
	softrdma__progress_kick();
}

/* The peer ended its stream on @c (marker seen, or closed after it or while draining). */
static void
softrdma_qp_peer_ended(struct softrdma_qp *qp, int out)
{
	if (out)
		qp->peer_eos = 1;
	if (qp->draining)
		pthread_cond_broadcast(&qp->drain_cond);
	else if (out)
		softrdma__qp_arm_eos_timer(qp);
}

/* An end-of-stream marker arrived on @c: stop reading it. */
void
softrdma__conn_eos(struct softrdma_qp *qp, struct softrdma_conn *c)
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
static int
softrdma_qp_peer_done(struct softrdma_qp *qp)
{
	struct softrdma_conn *o = qp->out, *i = qp->in;

	/* a connection dialed again that the peer never answered ends nothing */
	if (o && !o->dead && !o->eos && !o->redial)
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
void
softrdma__qp_drain(struct softrdma_qp *qp)
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
	while (!qp->destroyed &&
	       (q->state == IBV_QPS_RTR || q->state == IBV_QPS_RTS || q->state == IBV_QPS_SQD) &&
	       !softrdma_qp_peer_done(qp)) {
		if (pthread_cond_timedwait(&qp->drain_cond, &qp->lock, &ts) == ETIMEDOUT)
			break;
	}
	qp->draining = 0;
	pthread_cond_broadcast(&qp->drain_cond);
}

/* Progress thread: requests outstanding since the peer left RTS time out. */
void
softrdma__qp_check_eos(struct softrdma_qp *qp, uint64_t now, uint64_t *next)
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

/*
 * Whether the payload arriving on @c goes into memory a peer reaches with a
 * one-sided WRITE, which its process may have unmapped since registration
 * (an access error for the peer, never a crash here); the other payloads go
 * to this process's own buffers (receive WQEs, READ and atomic results).
 */
static int
softrdma_rx_remote(const struct softrdma_conn *c)
{
	return !c->is_out && (c->hdr.op == SOFTRDMA_OP_WRITE || c->hdr.op == SOFTRDMA_OP_WRITE_IMM);
}

/*
 * Receive payload bytes into c->iov (or discard them). Returns 1 when the
 * payload is complete, 0 on EAGAIN, -errno on connection failure.
 */
int
softrdma__rx_payload(struct softrdma_conn *c, int local_fault_status)
{
	static __thread char scratch[65536];

	while (c->remaining) {
		ssize_t n;

		if (c->discard && c->shm) {
			n = softrdma__shm_discard(c, c->remaining);
		} else if (c->discard) {
			n = recv(c->fd, scratch,
				 c->remaining < sizeof(scratch) ? c->remaining : sizeof(scratch),
				 MSG_DONTWAIT);
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
			if (!c->shm)
				n = readv(c->fd, iov, k);
			else if (softrdma_rx_remote(c))
				n = softrdma__shm_recv_iov_remote(c, iov, k);
			else
				n = softrdma__shm_recv_iov(c, iov, k);
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
int
softrdma__rx_hdr(struct softrdma_conn *c)
{
	int ret = softrdma_conn_fill(c, 0, c->hbuf, &c->hhave, sizeof(c->hbuf));

	if (ret <= 0)
		return ret;
	memcpy(&c->hdr, c->hbuf, sizeof(c->hdr));
	softrdma__wire_hdr_from_le(&c->hdr);
	return 1;
}

/*
 * Requester: read the responder's answer to the hello; it says whether the
 * connection continues over rings. 1 when done, 0 to wait, -errno on failure.
 */
int
softrdma__rx_answer(struct softrdma_conn *c)
{
	struct softrdma_wire_shm a;
	int err;

	err = softrdma_conn_fill(c, 1, c->abuf, &c->ahave, sizeof(c->abuf));
	if (err <= 0)
		return err;
	memcpy(&a, c->abuf, sizeof(a));
	softrdma__wire_shm_from_le(&a);
	err = softrdma__shm_accepted(c, &a);
	if (err)
		return -err;
	c->await_answer = 0;
	if (c->redial && c->qp) {
		/* the peer is back: its requests go on here */
		c->redial = 0;
		c->qp->peer_eos = 0;
		__atomic_store_n(&c->qp->eos_deadline, 0, __ATOMIC_RELAXED);
	}
	c->rx = SOFTRDMA_RX_HDR;
	c->hhave = 0;
	if (c->shm)
		softrdma__progress_shm_add(c);
	if (softrdma__qp_flush_tx(c))
		return -EPIPE;
	return 1;
}

/* A connection failed or the peer went away: the QP enters the error state. */
void
softrdma__qp_conn_failed(struct softrdma_conn *c, int err)
{
	struct softrdma_qp *qp = c->qp;
	enum ibv_qp_state st = qp->qpx.qp_base.state;

	(void)err;
	if (c != qp->out && qp->out && !qp->out->dead && !qp->out->connecting) {
		/* a NAK may be waiting on the requester side: it explains the close */
		softrdma__qp_conn_readable(qp->out);
		if (!softrdma_conn_attached(qp, c))
			return; /* handling it closed @c already */
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
	if (c->redial && qp->peer_eos) {
		/* the peer is not back: its requests wait for the disconnect or time out */
		softrdma__conn_close(c);
		softrdma__qp_arm_eos_timer(qp);
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
		softrdma__qp_close_conns(qp);
	}
	/* both branches may have closed @c with the QP's other connections */
	if (softrdma_conn_attached(qp, c))
		softrdma__conn_close(c);
}

/* Progress thread: @c is readable (qp->lock held). */
void
softrdma__qp_conn_readable(struct softrdma_conn *c)
{
	struct softrdma_qp *qp = c->qp;
	int r;

	if (c->eos)
		return; /* nothing follows the marker but the close */
	r = c->is_out ? softrdma__rx_requester(qp, c) : softrdma__rx_responder(qp, c);
	/* receiving may have closed @c (an end of stream, an error) */
	if (!softrdma_conn_attached(qp, c))
		return;
	if (r < 0)
		softrdma__qp_conn_failed(c, -r);
	else
		softrdma__progress_watch(c, softrdma__conn_want(c));
}

/* Progress thread: @c is writable or finished connecting (qp->lock held). */
void
softrdma__qp_conn_writable(struct softrdma_conn *c)
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

/* A requester connection of @qp, not connected yet; NULL when out of memory. */
static struct softrdma_conn *
softrdma_conn_new_out(struct softrdma_qp *qp)
{
	struct softrdma_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	softrdma__list_init(&c->txq);
	softrdma__list_init(&c->node);
	softrdma__list_init(&c->shm_node);
	c->ring_fd = -1;
	c->is_out = 1;
	c->qp = qp;
	c->rx = SOFTRDMA_RX_ANSWER;
	c->await_answer = 1;
	return c;
}

/* Start connecting the socket of @c to the port of @qp's peer QP; 0 or an errno. */
static int
softrdma_conn_dial(struct softrdma_conn *c, struct softrdma_qp *qp)
{
	struct sockaddr_in sin;
	int one = 1;

	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	memcpy(&sin, &qp->peer, sizeof(sin));
	sin.sin_port = htons(qp->dest_qpn >> 8);
	if (connect(c->fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 && errno != EINPROGRESS)
		return errno;
	c->connecting = 1;
	return 0;
}

/*
 * Queue the hello of @c: it names both QPs, carries the connection's secret
 * (secret.h) and offers same-host rings; 0 or ENOMEM.
 */
static int
softrdma_conn_hello(struct softrdma_conn *c, struct softrdma_qp *qp)
{
	const struct sockaddr_in *peer = (const struct sockaddr_in *)&qp->peer;
	uint8_t secret[SOFTRDMA_SECRET_LEN];
	struct softrdma_wire_hello hello;
	struct softrdma_wire_shm offer;
	struct softrdma_txbuf *b;

	softrdma__secret_for_hello(qp->qpx.qp_base.qp_num, peer->sin_addr, qp->dest_qpn, secret);
	softrdma__wire_hello_init(&hello, qp->qpx.qp_base.qp_num, qp->dest_qpn, secret);
	explicit_bzero(secret, sizeof(secret));
	/* offer rings when this side may use them; the answer decides */
	softrdma__shm_ring_create(c);
	softrdma__shm_offer(&offer, c->ring_fd);
	softrdma__wire_shm_to_le(&offer);
	b = malloc(sizeof(*b) + SOFTRDMA_WIRE_HELLO_LEN);
	if (!b)
		return ENOMEM;
	b->len = SOFTRDMA_WIRE_HELLO_LEN;
	b->off = 0;
	memcpy(b->data, &hello, sizeof(hello));
	memcpy(b->data + sizeof(hello), &offer, sizeof(offer));
	softrdma__list_add_tail(&c->txq, &b->node);
	return 0;
}

/* Create the requester connection towards the peer QP (at RTR). */
int
softrdma__qp_connect(struct softrdma_qp *qp)
{
	struct softrdma_conn *c;
	struct softrdma_txbuf *b;
	int err;

	c = softrdma_conn_new_out(qp);
	if (!c)
		return ENOMEM;
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->fd < 0) {
		err = errno;
		goto free_c;
	}
	err = softrdma_conn_dial(c, qp);
	if (err)
		goto close_fd;
	err = softrdma_conn_hello(c, qp);
	if (err)
		goto close_fd;
	qp->out = c;
	err = softrdma__progress_watch(c, EPOLLOUT | EPOLLRDHUP);
	if (err) {
		qp->out = NULL;
		b = SOFTRDMA_CONTAINER_OF(c->txq.next, struct softrdma_txbuf, node);
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
