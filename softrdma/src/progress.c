/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The progress thread: one per process. It owns a TCP listener whose port
 * is encoded in every QP number (qpn = port << 8 | index), accepts data
 * connections from peer QPs, and drives all connection I/O with epoll, so
 * remote READ/WRITE complete without the application's threads. It sleeps
 * in epoll_wait when idle.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "comp.h"
#include "cq.h"
#include "ctx.h"
#include "net.h"
#include "progress.h"
#include "qp.h"
#include "resp.h"
#include "secret.h"
#include "shm.h"

/*
 * A TCP listener hosting up to 255 QP numbers (qpn = port << 8 | index),
 * bound to one local address (the CM id's of its QPs) or to any.
 */
struct softrdma_listener {
	int fd;
	uint16_t port;
	struct in_addr addr;
	int used;
	/* slot handed out last: numbers are reused as late as possible */
	int last;
	/* progress thread: unwatched until then for want of descriptors (0: watched) */
	uint64_t resume_at;
	/* progress thread: the last accept4() ran out of descriptors (logged once) */
	int starved;
	struct softrdma_qp *qps[SOFTRDMA_QP_PER_PORT + 1];
};

/*
 * The progress machinery. @lock guards the listeners' QP slots, @nlis
 * (also read with acquire loads by the progress thread), the grave list,
 * @epoch, @park/@parked and the start (@started is set with a release
 * store once everything is up, and cleared in a forked child). @cond
 * signals a new epoch and parking. The hello and shm lists belong to the
 * progress thread, and so do @npending (connections on the hello list),
 * @pending_max, @pending_ns and @npaused (listeners with a resume_at).
 */
static struct {
	int started;
	int epfd;
	int wakefd;
	pthread_t thr;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t epoch;
	/* a fork() is being prepared: the progress thread waits in softrdma_park */
	int park;
	int parked;
	uint64_t spin_ns;
	int nlis;
	struct softrdma_listener *lis[SOFTRDMA_MAX_LISTENERS];
	struct softrdma_list grave;
	struct softrdma_list hello;
	struct softrdma_list shm;
	long npending;
	long pending_max;
	uint64_t pending_ns;
	int npaused;
} softrdma_prog = {
    .epfd = -1,
    .wakefd = -1,
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .cond = PTHREAD_COND_INITIALIZER,
    .grave = {&softrdma_prog.grave, &softrdma_prog.grave},
    .hello = {&softrdma_prog.hello, &softrdma_prog.hello},
    .shm = {&softrdma_prog.shm, &softrdma_prog.shm},
};

static char softrdma_tag_wake;

/*
 * Progress thread, prog.lock held, at the top of its loop: while a fork()
 * is being prepared, wait here, in no critical section and no allocation,
 * so the child copies a quiet state (and a quiet allocator: some, like
 * AddressSanitizer's, are not locked across fork).
 */
static void
softrdma_park(void)
{
	if (!softrdma_prog.park)
		return;
	softrdma_prog.parked = 1;
	pthread_cond_broadcast(&softrdma_prog.cond);
	while (softrdma_prog.park)
		pthread_cond_wait(&softrdma_prog.cond, &softrdma_prog.lock);
	softrdma_prog.parked = 0;
}

/* Free closed connection @c and the buffers still queued on it (its socket is closed). */
static void
softrdma_conn_free(struct softrdma_conn *c)
{
	while (!softrdma__list_empty(&c->txq)) {
		struct softrdma_list *b = c->txq.next;

		softrdma__list_del(b);
		free(SOFTRDMA_CONTAINER_OF(b, struct softrdma_txbuf, node));
	}
	free(c);
}

/* Free connections closed since the last loop (progress thread only). */
static void
softrdma_reap(void)
{
	struct softrdma_list dead;

	softrdma__list_init(&dead);
	pthread_mutex_lock(&softrdma_prog.lock);
	softrdma_park();
	softrdma_prog.epoch++;
	pthread_cond_broadcast(&softrdma_prog.cond);
	while (!softrdma__list_empty(&softrdma_prog.grave)) {
		struct softrdma_list *n = softrdma_prog.grave.next;

		softrdma__list_del(n);
		softrdma__list_add_tail(&dead, n);
	}
	pthread_mutex_unlock(&softrdma_prog.lock);
	while (!softrdma__list_empty(&dead)) {
		struct softrdma_conn *c =
		    SOFTRDMA_CONTAINER_OF(dead.next, struct softrdma_conn, node);

		softrdma__list_del(&c->node);
		softrdma__list_del(&c->shm_node);
		softrdma__shm_release(c);
		epoll_ctl(softrdma_prog.epfd, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
		softrdma_conn_free(c);
	}
}

/*
 * Detach @c from its QP and schedule it for closing (qp->lock held when @c
 * has a QP). The QP stops pointing at @c before @c reaches the grave, so no
 * path from a QP leads to a connection the progress thread may free. The
 * peer sees the shutdown at once; the progress thread frees @c after the
 * epoll batch it may be in.
 */
void
softrdma__conn_close(struct softrdma_conn *c)
{
	struct softrdma_qp *qp = c->qp;

	if (__atomic_load_n(&c->dead, __ATOMIC_RELAXED))
		return;
	if (qp && qp->in == c)
		qp->in = NULL;
	if (qp && qp->out == c)
		qp->out = NULL;
	__atomic_store_n(&c->dead, 1, __ATOMIC_RELAXED);
	/* released after dead: whoever finds qp NULL also finds the connection dead */
	__atomic_store_n(&c->qp, NULL, __ATOMIC_RELEASE);
	shutdown(c->fd, SHUT_RDWR);
	pthread_mutex_lock(&softrdma_prog.lock);
	softrdma__list_del(&c->node);
	softrdma__list_add_tail(&softrdma_prog.grave, &c->node);
	pthread_mutex_unlock(&softrdma_prog.lock);
	softrdma__progress_kick();
}

/*
 * Register or update the epoll interest of @c. A connection of a QP
 * inherited through fork is never added (EIO): it would be the parent's
 * QP number reaching out from the child.
 */
int
softrdma__progress_watch(struct softrdma_conn *c, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = c};

	if (c->dead)
		return 0;
	if (c->events == events && c->events)
		return 0;
	if (!c->events) {
		if (c->qp && softrdma__ctx_inherited(c->qp->qpx.qp_base.context))
			return EIO;
		c->events = events;
		if (epoll_ctl(softrdma_prog.epfd, EPOLL_CTL_ADD, c->fd, &ev) < 0) {
			c->events = 0;
			return errno;
		}
		return 0;
	}
	c->events = events;
	return epoll_ctl(softrdma_prog.epfd, EPOLL_CTL_MOD, c->fd, &ev) < 0 ? errno : 0;
}

/* Wake the progress thread so it rescans stalled responders and reaps. */
void
softrdma__progress_kick(void)
{
	uint64_t one = 1;

	if (write(softrdma_prog.wakefd, &one, sizeof(one)) < 0) {
		/* counter saturation only delays, never loses, a wakeup */
	}
}

/*
 * accept4() on @l failed with @err (progress thread). Returns non-zero when
 * the next connection may be tried at once. Out of descriptors or memory,
 * the listener is unwatched for a while instead of being reported ready
 * again and again, and the burst is logged once.
 */
static int
softrdma_accept_failed(struct softrdma_listener *l, int err)
{
	if (err == EINTR || err == ECONNABORTED || err == EPROTO)
		return 1;
	if (!softrdma__accept_starved(err)) {
		l->starved = 0;
		return 0;
	}
	if (!l->resume_at)
		softrdma_prog.npaused++;
	epoll_ctl(softrdma_prog.epfd, EPOLL_CTL_DEL, l->fd, NULL);
	l->resume_at = softrdma__now_ns() + SOFTRDMA_ACCEPT_PAUSE_NS;
	if (!l->starved)
		softrdma__log("data listener on TCP port %u: accept: %s; new connections wait, "
			      "tried again every %llu ms",
			      l->port, strerror(err), SOFTRDMA_ACCEPT_PAUSE_NS / 1000000);
	l->starved = 1;
	return 0;
}

static void softrdma_drop_hello(struct softrdma_conn *c);
static void softrdma_hello(struct softrdma_conn *c);

/*
 * Read the hello of @c, a connection on the hello list, and count it out
 * of the pending ones once it left the list, attached or dropped
 * (progress thread).
 */
static void
softrdma_hello_step(struct softrdma_conn *c)
{
	softrdma_hello(c);
	if (c->pending_until && (__atomic_load_n(&c->dead, __ATOMIC_RELAXED) ||
				 __atomic_load_n(&c->qp, __ATOMIC_ACQUIRE))) {
		c->pending_until = 0;
		softrdma_prog.npending--;
	}
}

/*
 * Close the oldest connection waiting for its hello, after a last read: a
 * hello already in its socket is served instead, so a peer that spoke at
 * once is not lost to a flood (progress thread; @c stays allocated until
 * the next reap).
 */
static void
softrdma_hello_evict(void)
{
	struct softrdma_conn *c =
	    SOFTRDMA_CONTAINER_OF(softrdma_prog.hello.next, struct softrdma_conn, node);

	softrdma_hello_step(c);
	if (!c->pending_until)
		return;
	softrdma_drop_hello(c);
	c->pending_until = 0;
	softrdma_prog.npending--;
}

/*
 * Accept new data connections on @l, a batch at a time so that a flood
 * does not starve the connections already open; they wait for their hello
 * on the hello list, at most softrdma__pending_cap() of them.
 */
static void
softrdma_accept(struct softrdma_listener *l)
{
	long cap = softrdma__pending_cap(softrdma_prog.pending_max);
	int i;

	for (i = 0; i < SOFTRDMA_ACCEPT_BATCH; i++) {
		struct softrdma_conn *c;
		int one = 1;
		int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (softrdma_accept_failed(l, errno))
				continue;
			return;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->ring_fd = -1;
		softrdma__list_init(&c->txq);
		softrdma__list_init(&c->shm_node);
		softrdma__list_add_tail(&softrdma_prog.hello, &c->node);
		if (softrdma__progress_watch(c, EPOLLIN | EPOLLRDHUP)) {
			softrdma__list_del(&c->node);
			close(fd);
			free(c);
			continue;
		}
		c->pending_until = softrdma__now_ns() + softrdma_prog.pending_ns;
		softrdma_prog.npending++;
		while (softrdma_prog.npending > cap)
			softrdma_hello_evict();
	}
}

/*
 * Offer the parked hellos to their QPs again (progress thread); returns
 * whether some are still parked.
 */
static int
softrdma_hello_retry_parked(void)
{
	struct softrdma_list *n, *next;
	int left = 0;

	for (n = softrdma_prog.hello.next; n != &softrdma_prog.hello; n = next) {
		struct softrdma_conn *c = SOFTRDMA_CONTAINER_OF(n, struct softrdma_conn, node);

		next = n->next;
		if (!c->parked)
			continue;
		softrdma_hello_step(c);
		left |= c->pending_until && c->parked;
	}
	return left;
}

/*
 * Close the connections whose hello did not come in time and watch paused
 * listeners again once their pause is over (progress thread). Returns the
 * epoll timeout in milliseconds until the next of these, -1 when none.
 */
static int
softrdma_pending_timers(void)
{
	uint64_t now = softrdma__now_ns(), next = 0;
	int k, nlis = __atomic_load_n(&softrdma_prog.nlis, __ATOMIC_ACQUIRE);

	while (!softrdma__list_empty(&softrdma_prog.hello)) {
		struct softrdma_conn *c =
		    SOFTRDMA_CONTAINER_OF(softrdma_prog.hello.next, struct softrdma_conn, node);

		if (c->pending_until > now) {
			next = c->pending_until;
			break;
		}
		softrdma_hello_evict();
	}
	if (softrdma_hello_retry_parked() && (!next || now + SOFTRDMA_PARKED_RETRY_NS < next))
		next = now + SOFTRDMA_PARKED_RETRY_NS;
	for (k = 0; softrdma_prog.npaused && k < nlis; k++) {
		struct softrdma_listener *l = softrdma_prog.lis[k];
		struct epoll_event ev = {.events = EPOLLIN, .data.ptr = (void *)((uintptr_t)l | 1)};

		if (!l->resume_at)
			continue;
		if (now >= l->resume_at) {
			l->resume_at = 0;
			softrdma_prog.npaused--;
			if (!epoll_ctl(softrdma_prog.epfd, EPOLL_CTL_ADD, l->fd, &ev))
				continue;
			l->resume_at = now + SOFTRDMA_ACCEPT_PAUSE_NS;
			softrdma_prog.npaused++;
		}
		if (!next || l->resume_at < next)
			next = l->resume_at;
	}
	if (!next)
		return -1;
	return (int)((next - now) / 1000000) + 1;
}

/* Drop a connection that never became a valid data connection. */
static void
softrdma_drop_hello(struct softrdma_conn *c)
{
	__atomic_store_n(&c->dead, 1, __ATOMIC_RELAXED);
	shutdown(c->fd, SHUT_RDWR);
	pthread_mutex_lock(&softrdma_prog.lock);
	softrdma__list_del(&c->node);
	softrdma__list_add_tail(&softrdma_prog.grave, &c->node);
	pthread_mutex_unlock(&softrdma_prog.lock);
}

/*
 * Read the hello and the same-host offer of a new connection into hbuf and
 * abuf. Returns 1 when complete, 0 to wait, -1 when the connection failed.
 */
static int
softrdma_hello_read(struct softrdma_conn *c)
{
	size_t hl = sizeof(struct softrdma_wire_hello);

	while (c->hhave < SOFTRDMA_WIRE_HELLO_LEN) {
		ssize_t n;

		if (c->hhave < hl)
			n = recv(c->fd, c->hbuf + c->hhave, hl - c->hhave, MSG_DONTWAIT);
		else
			n = recv(c->fd, c->abuf + (c->hhave - hl),
				 SOFTRDMA_WIRE_HELLO_LEN - c->hhave, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			return -1;
		c->hhave += n;
	}
	return 1;
}

/*
 * A parked connection (its hello read, waiting for its QP): 1 while the
 * requester keeps it open, -1 once it closed or failed.
 */
static int
softrdma_parked_alive(struct softrdma_conn *c)
{
	char b;
	ssize_t n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);

	if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
		return 1;
	return -1;
}

/*
 * Whether the hello on @c names a QP of the listener that accepted @c: a
 * listener bound to one address serves the QPs of that address alone.
 */
static int
softrdma_hello_port_ok(struct softrdma_conn *c, uint32_t dst_qpn)
{
	struct sockaddr_in local;
	socklen_t len = sizeof(local);

	if (getsockname(c->fd, (struct sockaddr *)&local, &len) < 0 || local.sin_family != AF_INET)
		return 0;
	return ntohs(local.sin_port) == dst_qpn >> 8;
}

/*
 * Whether @qp takes the hello @h: it is alive, not in error, connected to
 * the hello's source (when it knows its peer), has no inbound connection
 * yet (one is never replaced) and the hello carries its secret, when it has
 * one (qp->lock held).
 */
static int
softrdma_hello_admitted(struct softrdma_qp *qp, const struct softrdma_wire_hello *h)
{
	enum ibv_qp_state st = qp->qpx.qp_base.state;

	if (qp->destroyed || st == IBV_QPS_ERR || qp->in)
		return 0;
	if (st != IBV_QPS_RESET && st != IBV_QPS_INIT && qp->dest_qpn != h->src_qpn)
		return 0;
	return softrdma__secret_admits(h->dst_qpn, h->secret);
}

/*
 * Whether a hello @qp does not take now may be taken later (qp->lock held):
 * the QP is in the error state, from which a reset brings it back, or its
 * inbound connection ended (the peer left RTS) and is about to close. An
 * RNIC drops the packets of such a peer, which retries until the QP is
 * back; here the hello waits, at most as long as a pending connection.
 */
static int
softrdma_hello_may_wait(struct softrdma_qp *qp)
{
	if (qp->destroyed)
		return 0;
	if (qp->qpx.qp_base.state == IBV_QPS_ERR)
		return 1;
	return qp->in && (qp->in->eos || qp->in->dead);
}

/*
 * Read and check the hello of a new connection, answer it (taking up a
 * same-host offer when possible), then attach it to its QP.
 */
static void
softrdma_hello(struct softrdma_conn *c)
{
	struct softrdma_wire_hello h;
	struct softrdma_wire_shm offer, answer;
	struct softrdma_qp *qp;
	int r = c->parked ? softrdma_parked_alive(c) : softrdma_hello_read(c);

	if (r < 0) {
		softrdma_drop_hello(c);
		return;
	}
	if (!r)
		return;
	memcpy(&h, c->hbuf, sizeof(h));
	memcpy(&offer, c->abuf, sizeof(offer));
	softrdma__wire_shm_from_le(&offer);
	c->hhave = 0;
	qp = softrdma__wire_hello_check(&h) || !softrdma_hello_port_ok(c, h.dst_qpn)
		 ? NULL
		 : softrdma__progress_find_qp(h.dst_qpn);
	if (!qp) {
		softrdma_drop_hello(c);
		return;
	}
	pthread_mutex_lock(&qp->lock);
	if (!softrdma_hello_admitted(qp, &h)) {
		/* keep the hello for a later try (the buffers hold it), watching for a close */
		int wait = c->pending_until && softrdma_hello_may_wait(qp);

		if (wait && !c->parked && softrdma__progress_watch(c, EPOLLRDHUP))
			wait = 0;
		c->parked = wait;
		c->hhave = c->parked ? SOFTRDMA_WIRE_HELLO_LEN : 0;
		pthread_mutex_unlock(&qp->lock);
		if (!c->parked)
			softrdma_drop_hello(c);
		return;
	}
	c->parked = 0;
	softrdma__shm_accept(c, &offer, &answer);
	softrdma__wire_shm_to_le(&answer);
	if (send(c->fd, &answer, sizeof(answer), MSG_DONTWAIT | MSG_NOSIGNAL) !=
	    (ssize_t)sizeof(answer)) {
		/* a fresh socket takes 64 bytes at once; anything else is a failure */
		pthread_mutex_unlock(&qp->lock);
		softrdma__shm_release(c);
		softrdma_drop_hello(c);
		return;
	}
	softrdma__list_del(&c->node);
	c->qp = qp;
	c->rx = SOFTRDMA_RX_HDR;
	qp->in = c;
	if (c->shm) {
		softrdma__progress_shm_add(c);
		softrdma__shm_publish_qp(qp);
	}
	softrdma__qp_conn_readable(c);
	pthread_mutex_unlock(&qp->lock);
}

/* Dispatch epoll events of one connection. */
static void
softrdma_conn_event(struct softrdma_conn *c, uint32_t ev)
{
	struct softrdma_qp *qp;

	/* @c lives until the next reap, which only this thread performs */
	if (__atomic_load_n(&c->dead, __ATOMIC_RELAXED))
		return;
	qp = __atomic_load_n(&c->qp, __ATOMIC_ACQUIRE);
	if (!qp) {
		/*
		 * no QP: a new connection's hello, unless the connection was
		 * detached and closed since the look at dead above
		 */
		if (!__atomic_load_n(&c->dead, __ATOMIC_RELAXED))
			softrdma_hello_step(c);
		return;
	}
	pthread_mutex_lock(&qp->lock);
	if (c->dead) {
		pthread_mutex_unlock(&qp->lock);
		return;
	}
	if (ev & (EPOLLOUT | EPOLLERR))
		softrdma__qp_conn_writable(c);
	if (!c->dead && (ev & EPOLLIN) && (c->events & EPOLLIN))
		softrdma__qp_conn_readable(c);
	if (!c->dead && (ev & (EPOLLHUP | EPOLLRDHUP | EPOLLERR))) {
		/* the peer is gone: consume what it sent, then fail the QP */
		if ((c->events & EPOLLIN) || c->shm)
			softrdma__qp_conn_readable(c);
		if (!c->dead)
			softrdma__qp_conn_failed(c, ECONNRESET);
	}
	pthread_mutex_unlock(&qp->lock);
}

/*
 * Retry stalled responders, time out requests to peers that left RTS, and
 * compute the nearest deadline.
 */
static int
softrdma_rescan(void)
{
	uint64_t now = softrdma__now_ns(), next = 0;
	int l, i, nlis = __atomic_load_n(&softrdma_prog.nlis, __ATOMIC_ACQUIRE);

	for (l = 0; l < nlis; l++) {
		struct softrdma_listener *lis = softrdma_prog.lis[l];

		for (i = 1; i <= SOFTRDMA_QP_PER_PORT; i++) {
			struct softrdma_qp *qp = __atomic_load_n(&lis->qps[i], __ATOMIC_ACQUIRE);
			int rnr, cqerr;

			/*
			 * The QP outlives this batch (softrdma__progress_del_qp waits
			 * for the next reap); its connections are read under its lock.
			 */
			if (!qp)
				continue;
			rnr = __atomic_load_n(&qp->rnr_waiting, __ATOMIC_RELAXED);
			cqerr = __atomic_load_n(&qp->cq_overrun, __ATOMIC_RELAXED);
			if (!rnr && !cqerr && !__atomic_load_n(&qp->eos_deadline, __ATOMIC_RELAXED))
				continue;
			pthread_mutex_lock(&qp->lock);
			if (cqerr)
				softrdma__qp_check_cq(qp);
			if (rnr)
				softrdma__qp_check_rnr(qp, now, &next);
			softrdma__qp_check_eos(qp, now, &next);
			pthread_mutex_unlock(&qp->lock);
		}
	}
	if (!next)
		return -1;
	return (int)((next - now) / 1000000) + 1;
}

/* Add @c, which now runs over rings, to the polled set (progress thread). */
void
softrdma__progress_shm_add(struct softrdma_conn *c)
{
	softrdma__shm_set_active();
	softrdma__list_del(&c->shm_node);
	softrdma__list_add_tail(&softrdma_prog.shm, &c->shm_node);
}

/*
 * Serve the rings of every same-host connection once. With @peek, only
 * report whether anything is waiting. Returns non-zero when bytes moved
 * (or, with @peek, are waiting).
 */
static int
softrdma_shm_poll(int peek)
{
	struct softrdma_list *n;
	int work = 0;

	for (n = softrdma_prog.shm.next; n != &softrdma_prog.shm; n = n->next) {
		struct softrdma_conn *c = SOFTRDMA_CONTAINER_OF(n, struct softrdma_conn, shm_node);
		struct softrdma_qp *qp;
		uint64_t head, tail;
		uint32_t avail;
		int tx;

		if (__atomic_load_n(&c->dead, __ATOMIC_RELAXED))
			continue;
		/* hints, read without qp->lock; acted upon only under it */
		avail = softrdma__shm_rx_avail(c);
		tx = !softrdma__list_empty_hint(&c->txq) && softrdma__shm_tx_space(c);
		if (!avail && !tx)
			continue;
		qp = __atomic_load_n(&c->qp, __ATOMIC_RELAXED);
		if (!qp)
			continue;
		if (pthread_mutex_trylock(&qp->lock)) {
			/* an application thread is at work on this QP */
			if (peek)
				return 1;
			pthread_mutex_lock(&qp->lock);
		}
		if (c->qp != qp) {
			pthread_mutex_unlock(&qp->lock);
			continue;
		}
		if (avail && !softrdma__qp_conn_wants_rx(c))
			avail = 0;
		if (peek) {
			pthread_mutex_unlock(&qp->lock);
			if (avail || tx)
				return 1;
			continue;
		}
		head = c->rx_head;
		tail = c->tx_tail;
		if (!c->dead && tx)
			softrdma__qp_conn_writable(c);
		if (!c->dead && avail)
			softrdma__qp_conn_readable(c);
		if (c->dead || c->rx_head != head || c->tx_tail != tail)
			work = 1;
		pthread_mutex_unlock(&qp->lock);
	}
	return work;
}

/* Body of the progress thread. */
static void *
softrdma_progress_main(void *arg)
{
	struct epoll_event evs[64];
	uint64_t last = 0, now;
	int timeout = -1, n, i, spin = 0, work;

	(void)arg;
	softrdma__block_signals();
	/* peers mapping our memory learn of our death from this thread's lock */
	softrdma__shm_hold_alive();
	for (;;) {
		softrdma_reap();
		if (spin) {
			n = epoll_wait(softrdma_prog.epfd, evs, 64, 0);
		} else {
			int t = timeout;

			if (!softrdma__list_empty(&softrdma_prog.shm)) {
				/*
				 * While the application polls its CQs it moves the rings
				 * itself: doze and look again soon. Otherwise sleep until
				 * a producer rings. Either way, look once more first.
				 */
				int doze = softrdma__shm_app_polling(softrdma__now_ns());

				softrdma__seg_set_sleeping(doze ? 1 : 2);
				if (softrdma_shm_poll(1)) {
					softrdma__seg_set_sleeping(0);
					spin = 1;
					last = softrdma__now_ns();
					continue;
				}
				if (doze && (t < 0 || t > 1))
					t = 1;
			}
			n = epoll_wait(softrdma_prog.epfd, evs, 64, t);
			softrdma__seg_set_sleeping(0);
		}
		if (n < 0 && errno != EINTR)
			break;
		work = n > 0;
		/* a poster may have asked for a hand with a large copy */
		if (softrdma__shm_help())
			work = 1;
		for (i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;

			if (p == &softrdma_tag_wake) {
				uint64_t v;

				if (read(softrdma_prog.wakefd, &v, sizeof(v)) < 0) {
					/* spurious wakeup */
				}
			} else if ((uintptr_t)p & 1) {
				softrdma_accept((struct softrdma_listener *)((uintptr_t)p - 1));
			} else {
				softrdma_conn_event(p, evs[i].events);
			}
		}
		for (i = 0; i < 64 && !softrdma__list_empty(&softrdma_prog.shm); i++) {
			if (softrdma_shm_poll(0)) {
				work = 1;
				break;
			}
			if (!spin)
				break;
			__builtin_ia32_pause();
		}
		timeout = softrdma_rescan();
		i = softrdma_pending_timers();
		if (i >= 0 && (timeout < 0 || i < timeout))
			timeout = i;
		now = softrdma__now_ns();
		if (work)
			last = now;
		spin = !softrdma__list_empty(&softrdma_prog.shm) &&
		       now - last < softrdma_prog.spin_ns && !softrdma__shm_app_polling(now);
		if (spin && !work)
			sched_yield();
	}
	return NULL;
}

/* Whether a listener of this process already has port @port (prog.lock held). */
static int
softrdma_port_taken(uint16_t port)
{
	int k;

	for (k = 0; k < softrdma_prog.nlis; k++)
		if (softrdma_prog.lis[k]->port == port)
			return 1;
	return 0;
}

/*
 * A socket bound to @addr on a port the kernel picks that no other listener
 * of this process has (listeners on different addresses may be given the
 * same port, and the port names the QPs): the sockets given a taken port are
 * held until one is not, so the kernel picks another. The socket, or -1 with
 * errno.
 */
static int
softrdma_listener_socket(struct in_addr addr, uint16_t *port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr = addr};
	int held[16], nheld = 0, fd = -1, err = EADDRINUSE;

	while (nheld < (int)(sizeof(held) / sizeof(held[0]))) {
		socklen_t len = sizeof(sin);

		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			err = errno;
			break;
		}
		sin.sin_port = 0;
		if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
		    getsockname(fd, (struct sockaddr *)&sin, &len) < 0) {
			err = errno;
			close(fd);
			fd = -1;
			break;
		}
		if (!softrdma_port_taken(ntohs(sin.sin_port))) {
			*port = ntohs(sin.sin_port);
			break;
		}
		held[nheld++] = fd;
		fd = -1;
	}
	while (nheld)
		close(held[--nheld]);
	if (fd < 0)
		errno = err;
	return fd;
}

/*
 * Open one more listener, at local address @addr; returns it or NULL with
 * errno (prog.lock held).
 */
static struct softrdma_listener *
softrdma_listener_new(struct in_addr addr)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct softrdma_listener *l;
	int err;

	if (softrdma_prog.nlis >= SOFTRDMA_MAX_LISTENERS) {
		errno = ENOMEM;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->fd = softrdma_listener_socket(addr, &l->port);
	if (l->fd < 0)
		goto free_l;
	l->addr = addr;
	if (listen(l->fd, 128) < 0)
		goto close_fd;
	ev.data.ptr = (void *)((uintptr_t)l | 1);
	if (epoll_ctl(softrdma_prog.epfd, EPOLL_CTL_ADD, l->fd, &ev) < 0)
		goto close_fd;
	softrdma_prog.lis[softrdma_prog.nlis] = l;
	__atomic_store_n(&softrdma_prog.nlis, softrdma_prog.nlis + 1, __ATOMIC_RELEASE);
	return l;

close_fd:
	err = errno;
	close(l->fd);
	errno = err;
free_l:
	err = errno;
	free(l);
	errno = err;
	return NULL;
}

/*
 * Create the epoll set and the thread (prog.lock held); listeners come with
 * the first QP of each local address. Returns 0 or an errno, with nothing
 * left behind on failure.
 */
static int
softrdma_progress_init(void)
{
	struct epoll_event ev = {.events = EPOLLIN};
	const char *spin = getenv("SOFTRDMA_SPIN_US");
	sigset_t all, old;
	int err;

	softrdma_prog.spin_ns = (spin ? strtoull(spin, NULL, 10) : 50) * 1000;
	softrdma__pending_limits(&softrdma_prog.pending_max, &softrdma_prog.pending_ns);
	softrdma_prog.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (softrdma_prog.epfd < 0)
		return errno;
	softrdma_prog.wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (softrdma_prog.wakefd < 0) {
		err = errno;
		goto close_ep;
	}
	ev.data.ptr = &softrdma_tag_wake;
	if (epoll_ctl(softrdma_prog.epfd, EPOLL_CTL_ADD, softrdma_prog.wakefd, &ev) < 0) {
		err = errno;
		goto close_wake;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&softrdma_prog.thr, NULL, softrdma_progress_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		goto close_wake;
	pthread_detach(softrdma_prog.thr);
	__atomic_store_n(&softrdma_prog.started, 1, __ATOMIC_RELEASE);
	return 0;

close_wake:
	close(softrdma_prog.wakefd);
	softrdma_prog.wakefd = -1;
close_ep:
	close(softrdma_prog.epfd);
	softrdma_prog.epfd = -1;
	return err;
}

/*
 * Start the progress machinery on first use (again in a forked child);
 * returns 0 or the error of starting it, which a later call retries.
 */
int
softrdma__progress_start(void)
{
	int err = 0;

	if (__atomic_load_n(&softrdma_prog.started, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&softrdma_prog.lock);
	if (!softrdma_prog.started)
		err = softrdma_progress_init();
	pthread_mutex_unlock(&softrdma_prog.lock);
	return err;
}

/* The eventfd peers ring to wake the progress thread. */
int
softrdma__progress_bell(void)
{
	return softrdma_prog.wakefd;
}

/*
 * Give @qp a slot and a QP number in a listener at local address @bind,
 * opening one if needed. A QP on a context inherited through fork gets none
 * (EIO).
 */
int
softrdma__progress_add_qp(struct softrdma_qp *qp, struct in_addr bind)
{
	struct softrdma_listener *l = NULL;
	int i, j, k, err;

	if (softrdma__ctx_inherited(qp->qpx.qp_base.context))
		return EIO;
	err = softrdma__progress_start();
	if (err)
		return err;
	pthread_mutex_lock(&softrdma_prog.lock);
	for (k = softrdma_prog.nlis - 1; k >= 0; k--) {
		if (softrdma_prog.lis[k]->addr.s_addr == bind.s_addr &&
		    softrdma_prog.lis[k]->used < SOFTRDMA_QP_PER_PORT) {
			l = softrdma_prog.lis[k];
			break;
		}
	}
	if (!l) {
		l = softrdma_listener_new(bind);
		if (!l) {
			err = errno ? errno : ENOMEM;
			pthread_mutex_unlock(&softrdma_prog.lock);
			return err;
		}
		k = softrdma_prog.nlis - 1;
	}
	/*
	 * Like an RNIC, do not hand a just-freed number out again at once: a
	 * late hello meant for the destroyed QP would attach to the new one.
	 */
	for (j = 1; j <= SOFTRDMA_QP_PER_PORT; j++) {
		i = (l->last + j - 1) % SOFTRDMA_QP_PER_PORT + 1;
		if (!l->qps[i]) {
			__atomic_store_n(&l->qps[i], qp, __ATOMIC_RELEASE);
			l->used++;
			l->last = i;
			qp->idx = k * (SOFTRDMA_QP_PER_PORT + 1) + i;
			qp->qpx.qp_base.qp_num = (uint32_t)l->port << 8 | i;
			break;
		}
	}
	pthread_mutex_unlock(&softrdma_prog.lock);
	return 0;
}

/*
 * Forget @qp and wait until the progress thread has finished the epoll
 * batch it may be in, so nothing references the QP any more. A QP
 * inherited through fork was never seen by this process's progress
 * thread: nothing to wait for.
 */
void
softrdma__progress_del_qp(struct softrdma_qp *qp)
{
	struct softrdma_listener *l;
	uint64_t target;
	int k = qp->idx / (SOFTRDMA_QP_PER_PORT + 1);
	int i = qp->idx % (SOFTRDMA_QP_PER_PORT + 1);

	if (softrdma__ctx_inherited(qp->qpx.qp_base.context))
		return;
	pthread_mutex_lock(&softrdma_prog.lock);
	l = k < softrdma_prog.nlis ? softrdma_prog.lis[k] : NULL;
	if (l && l->qps[i] == qp) {
		__atomic_store_n(&l->qps[i], NULL, __ATOMIC_RELEASE);
		l->used--;
	}
	target = softrdma_prog.epoch + 1;
	softrdma__progress_kick();
	while ((int64_t)(softrdma_prog.epoch - target) < 0)
		pthread_cond_wait(&softrdma_prog.cond, &softrdma_prog.lock);
	pthread_mutex_unlock(&softrdma_prog.lock);
}

/* Find a local QP by number (progress thread, during a batch). */
struct softrdma_qp *
softrdma__progress_find_qp(uint32_t qpn)
{
	struct softrdma_qp *qp = NULL;
	uint32_t idx = qpn & 0xff;
	int k;

	if (!idx || idx > SOFTRDMA_QP_PER_PORT || qpn > 0xffffff)
		return NULL;
	pthread_mutex_lock(&softrdma_prog.lock);
	for (k = 0; k < softrdma_prog.nlis; k++) {
		if (softrdma_prog.lis[k]->port == (qpn >> 8)) {
			qp = softrdma_prog.lis[k]->qps[idx];
			break;
		}
	}
	pthread_mutex_unlock(&softrdma_prog.lock);
	return qp;
}

/*
 * fork(), before: listeners, slots, grave and epoch are whole in the copy,
 * and the progress thread waits at the top of its loop (softrdma_park).
 * It is given a second at most: a fork is never held up longer, and the
 * locks alone keep the copy consistent.
 */
void
softrdma__progress_fork_prepare(void)
{
	struct timespec ts;

	pthread_mutex_lock(&softrdma_prog.lock);
	if (!softrdma_prog.started)
		return;
	softrdma_prog.park = 1;
	softrdma__progress_kick();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += 1;
	while (!softrdma_prog.parked &&
	       pthread_cond_clockwait(&softrdma_prog.cond, &softrdma_prog.lock, CLOCK_MONOTONIC,
				      &ts) != ETIMEDOUT) {
		/* woken by a new epoch or by parking: look again */
	}
}

/* fork(), in the parent: the progress thread goes on. */
void
softrdma__progress_fork_parent(void)
{
	softrdma_prog.park = 0;
	pthread_cond_broadcast(&softrdma_prog.cond);
	pthread_mutex_unlock(&softrdma_prog.lock);
}

/*
 * Forked child: the resources of @c, the parent's connection: its socket
 * becomes @dead and its rings are unmapped, so nothing done on it here
 * reaches the parent's connection or its peer. Its list nodes are left as
 * they are: @c may be on two of the progress thread's lists (the same-host
 * one and the hello or grave one), which are being walked.
 */
static void
softrdma_conn_disown_res(struct softrdma_conn *c, int dead)
{
	softrdma__shm_disown(c);
	softrdma__fd_disown(&c->fd, dead);
}

/*
 * Forked child: @c is the parent's. Its socket becomes @dead and its rings
 * are unmapped, so nothing done on it here reaches the parent's connection
 * or its peer, and it is on no list of this process. Idempotent.
 */
static void
softrdma_conn_disown(struct softrdma_conn *c, int dead)
{
	if (!c)
		return;
	softrdma_conn_disown_res(c, dead);
	softrdma__list_init(&c->node);
	softrdma__list_init(&c->shm_node);
}

/* wr_start of a QP inherited through fork: the batch built next goes nowhere. */
static void
softrdma_dead_wr_start(struct ibv_qp_ex *x)
{
	(void)x;
}

/* wr_complete of a QP inherited through fork: nothing is posted (EIO). */
static int
softrdma_dead_wr_complete(struct ibv_qp_ex *x)
{
	(void)x;
	return EIO;
}

/* wr_abort of a QP inherited through fork. */
static void
softrdma_dead_wr_abort(struct ibv_qp_ex *x)
{
	(void)x;
}

/*
 * Forked child: @qp is the parent's. The locks of the QP, its CQs and its
 * SRQ are made anew (a thread of the parent may have held them), a CM
 * disconnect of the parent no longer holds it, its connections are
 * disowned, and a batch of the extended post interface is never posted
 * (like ibv_post_send() on its inert context, ibv_wr_complete() fails with
 * EIO). It stays allocated for ibv_destroy_qp().
 */
static void
softrdma_qp_disown(struct softrdma_qp *qp, int dead)
{
	struct ibv_qp *q = &qp->qpx.qp_base;

	softrdma__qp_init_locks(qp);
	qp->draining = 0;
	qp->qpx.wr_start = softrdma_dead_wr_start;
	qp->qpx.wr_complete = softrdma_dead_wr_complete;
	qp->qpx.wr_abort = softrdma_dead_wr_abort;
	softrdma_conn_disown(qp->in, dead);
	softrdma_conn_disown(qp->out, dead);
	softrdma__cq_fork_disown(q->send_cq);
	softrdma__cq_fork_disown(q->recv_cq);
	if (q->srq)
		pthread_mutex_init(&SOFTRDMA_CONTAINER_OF(q->srq, struct softrdma_srq, srq)->lock,
				   NULL);
}

/*
 * Forked child: disown the connections on the progress thread's lists. Those
 * waiting for their hello are left allocated (had the parent's thread not
 * parked in time, a hello it was attaching may be reachable from a QP too);
 * closed ones, which no QP points to, are freed.
 */
static void
softrdma_conns_fork_child(int dead)
{
	struct softrdma_list *n, *next;

	/*
	 * the closed ones first, each taken off the same-host list it may still
	 * be on (as the progress thread's reaping does), then the others' own
	 * resources only: re-initializing a node of a connection that is on two
	 * lists would make the other list's walk loop on it (and free it twice)
	 */
	for (n = softrdma_prog.grave.next; n != &softrdma_prog.grave; n = next) {
		struct softrdma_conn *c = SOFTRDMA_CONTAINER_OF(n, struct softrdma_conn, node);

		next = n->next;
		softrdma__list_del(&c->shm_node);
		softrdma__shm_disown(c);
		close(c->fd);
		softrdma_conn_free(c);
	}
	for (n = softrdma_prog.shm.next; n != &softrdma_prog.shm; n = n->next)
		softrdma_conn_disown_res(SOFTRDMA_CONTAINER_OF(n, struct softrdma_conn, shm_node),
					 dead);
	for (n = softrdma_prog.hello.next; n != &softrdma_prog.hello; n = n->next)
		softrdma_conn_disown_res(SOFTRDMA_CONTAINER_OF(n, struct softrdma_conn, node),
					 dead);
	softrdma__list_init(&softrdma_prog.shm);
	softrdma__list_init(&softrdma_prog.hello);
	softrdma__list_init(&softrdma_prog.grave);
	softrdma_prog.npending = 0;
}

/*
 * fork(), in the child: no progress thread, listener or epoll set until
 * first use; every QP in the listeners' slots and every connection is the
 * parent's and is disowned. Only the child's references to the parent's
 * sockets, epoll set and doorbell are closed.
 */
void
softrdma__progress_fork_child(int dead)
{
	int l, i;

	/* held since prepare, by this very thread: released, not made anew */
	pthread_mutex_unlock(&softrdma_prog.lock);
	pthread_cond_init(&softrdma_prog.cond, NULL);
	softrdma_prog.park = 0;
	softrdma_prog.parked = 0;
	if (!softrdma_prog.started)
		return;
	softrdma_conns_fork_child(dead);
	for (l = 0; l < softrdma_prog.nlis; l++) {
		struct softrdma_listener *lis = softrdma_prog.lis[l];

		for (i = 1; i <= SOFTRDMA_QP_PER_PORT; i++)
			if (lis->qps[i])
				softrdma_qp_disown(lis->qps[i], dead);
		close(lis->fd);
		free(lis);
		softrdma_prog.lis[l] = NULL;
	}
	softrdma_prog.nlis = 0;
	softrdma_prog.npaused = 0;
	close(softrdma_prog.wakefd);
	close(softrdma_prog.epfd);
	softrdma_prog.wakefd = -1;
	softrdma_prog.epfd = -1;
	softrdma_prog.started = 0;
}
