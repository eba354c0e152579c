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
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "progress.h"

static struct {
	pthread_once_t once;
	int err;
	int epfd;
	int wakefd;
	int lfd;
	uint16_t port;
	pthread_t thr;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t epoch;
	struct softrdma_qp *qps[SOFTRDMA_MAX_QP + 1];
	struct softrdma_list grave;
	struct softrdma_list hello;
} softrdma_prog = {
	.once = PTHREAD_ONCE_INIT,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

static char softrdma_tag_listen, softrdma_tag_wake;

/* Free connections closed since the last loop (progress thread only). */
static void softrdma_reap(void)
{
	struct softrdma_list dead;

	softrdma__list_init(&dead);
	pthread_mutex_lock(&softrdma_prog.lock);
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
		epoll_ctl(softrdma_prog.epfd, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
		while (!softrdma__list_empty(&c->txq)) {
			struct softrdma_list *b = c->txq.next;

			softrdma__list_del(b);
			free(SOFTRDMA_CONTAINER_OF(b, struct softrdma_txbuf, node));
		}
		free(c);
	}
}

/*
 * Detach @c from its QP and schedule it for closing. The peer sees the
 * shutdown at once; the progress thread frees it between epoll batches.
 */
void softrdma__conn_close(struct softrdma_conn *c)
{
	if (c->dead)
		return;
	c->dead = 1;
	c->qp = NULL;
	shutdown(c->fd, SHUT_RDWR);
	pthread_mutex_lock(&softrdma_prog.lock);
	softrdma__list_del(&c->node);
	softrdma__list_add_tail(&softrdma_prog.grave, &c->node);
	pthread_mutex_unlock(&softrdma_prog.lock);
	softrdma__progress_kick();
}

/* Register or update the epoll interest of @c. */
int softrdma__progress_watch(struct softrdma_conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	if (c->dead)
		return 0;
	if (c->events == events && c->events)
		return 0;
	if (!c->events) {
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
void softrdma__progress_kick(void)
{
	uint64_t one = 1;

	if (write(softrdma_prog.wakefd, &one, sizeof(one)) < 0) {
		/* counter saturation only delays, never loses, a wakeup */
	}
}

/* Accept new data connections; they wait for their hello. */
static void softrdma_accept(void)
{
	for (;;) {
		struct softrdma_conn *c;
		int one = 1;
		int fd = accept4(softrdma_prog.lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		c->fd = fd;
		softrdma__list_init(&c->txq);
		softrdma__list_add_tail(&softrdma_prog.hello, &c->node);
		if (softrdma__progress_watch(c, EPOLLIN | EPOLLRDHUP)) {
			softrdma__list_del(&c->node);
			close(fd);
			free(c);
		}
	}
}

/* Drop a connection that never became a valid data connection. */
static void softrdma_drop_hello(struct softrdma_conn *c)
{
	c->dead = 1;
	shutdown(c->fd, SHUT_RDWR);
	pthread_mutex_lock(&softrdma_prog.lock);
	softrdma__list_del(&c->node);
	softrdma__list_add_tail(&softrdma_prog.grave, &c->node);
	pthread_mutex_unlock(&softrdma_prog.lock);
}

/* Read and check the hello of a new connection, then attach it to its QP. */
static void softrdma_hello(struct softrdma_conn *c)
{
	struct softrdma_wire_hello h;
	struct softrdma_qp *qp;
	ssize_t n;

	n = recv(c->fd, c->hbuf + c->hhave, sizeof(h) - c->hhave, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		softrdma_drop_hello(c);
		return;
	}
	c->hhave += n;
	if (c->hhave < sizeof(h))
		return;
	memcpy(&h, c->hbuf, sizeof(h));
	c->hhave = 0;
	qp = softrdma__wire_hello_check(&h) ? NULL : softrdma__progress_find_qp(h.dst_qpn);
	if (!qp) {
		softrdma_drop_hello(c);
		return;
	}
	pthread_mutex_lock(&qp->lock);
	if (qp->destroyed || qp->qpx.qp_base.state == IBV_QPS_ERR ||
	    (qp->qpx.qp_base.state != IBV_QPS_RESET && qp->qpx.qp_base.state != IBV_QPS_INIT &&
	     qp->dest_qpn != h.src_qpn)) {
		pthread_mutex_unlock(&qp->lock);
		softrdma_drop_hello(c);
		return;
	}
	if (qp->in)
		softrdma__conn_close(qp->in);
	softrdma__list_del(&c->node);
	c->qp = qp;
	c->rx = SOFTRDMA_RX_HDR;
	qp->in = c;
	softrdma__qp_conn_readable(c);
	pthread_mutex_unlock(&qp->lock);
}

/* Dispatch epoll events of one connection. */
static void softrdma_conn_event(struct softrdma_conn *c, uint32_t ev)
{
	struct softrdma_qp *qp;

	if (c->dead)
		return;
	qp = c->qp;
	if (!qp) {
		softrdma_hello(c);
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
		if (c->events & EPOLLIN)
			softrdma__qp_conn_readable(c);
		if (!c->dead)
			softrdma__qp_conn_failed(c, ECONNRESET);
	}
	pthread_mutex_unlock(&qp->lock);
}

/* Retry stalled responders and compute the nearest RNR deadline. */
static int softrdma_rescan(void)
{
	uint64_t now = softrdma__now_ns(), next = 0;
	int i;

	for (i = 1; i <= SOFTRDMA_MAX_QP; i++) {
		struct softrdma_qp *qp = softrdma_prog.qps[i];

		if (!qp || !qp->in)
			continue;
		pthread_mutex_lock(&qp->lock);
		softrdma__qp_check_rnr(qp, now, &next);
		pthread_mutex_unlock(&qp->lock);
	}
	if (!next)
		return -1;
	return (int)((next - now) / 1000000) + 1;
}

/* Body of the progress thread. */
static void *softrdma_progress_main(void *arg)
{
	struct epoll_event evs[64];
	int timeout = -1, n, i;

	(void)arg;
	softrdma__block_signals();
	for (;;) {
		softrdma_reap();
		n = epoll_wait(softrdma_prog.epfd, evs, 64, timeout);
		if (n < 0 && errno != EINTR)
			break;
		for (i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;

			if (p == &softrdma_tag_wake) {
				uint64_t v;

				if (read(softrdma_prog.wakefd, &v, sizeof(v)) < 0) {
					/* spurious wakeup */
				}
			} else if (p == &softrdma_tag_listen) {
				softrdma_accept();
			} else {
				softrdma_conn_event(p, evs[i].events);
			}
		}
		timeout = softrdma_rescan();
	}
	return NULL;
}

/* Create the listener, epoll set and thread (once per process). */
static void softrdma_progress_init(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	sigset_t all, old;
	int err;

	softrdma__list_init(&softrdma_prog.grave);
	softrdma__list_init(&softrdma_prog.hello);
	softrdma_prog.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (softrdma_prog.lfd < 0)
		goto fail;
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(softrdma_prog.lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(softrdma_prog.lfd, 128) < 0 ||
	    getsockname(softrdma_prog.lfd, (struct sockaddr *)&sin, &len) < 0)
		goto close_lfd;
	softrdma_prog.port = ntohs(sin.sin_port);
	softrdma_prog.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (softrdma_prog.epfd < 0)
		goto close_lfd;
	softrdma_prog.wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (softrdma_prog.wakefd < 0)
		goto close_ep;
	ev.data.ptr = &softrdma_tag_listen;
	if (epoll_ctl(softrdma_prog.epfd, EPOLL_CTL_ADD, softrdma_prog.lfd, &ev) < 0)
		goto close_wake;
	ev.data.ptr = &softrdma_tag_wake;
	if (epoll_ctl(softrdma_prog.epfd, EPOLL_CTL_ADD, softrdma_prog.wakefd, &ev) < 0)
		goto close_wake;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&softrdma_prog.thr, NULL, softrdma_progress_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		errno = err;
		goto close_wake;
	}
	pthread_detach(softrdma_prog.thr);
	return;

close_wake:
	close(softrdma_prog.wakefd);
close_ep:
	close(softrdma_prog.epfd);
close_lfd:
	close(softrdma_prog.lfd);
fail:
	softrdma_prog.err = errno ? errno : EIO;
}

/* Start the progress machinery once; returns its creation error if any. */
int softrdma__progress_start(void)
{
	pthread_once(&softrdma_prog.once, softrdma_progress_init);
	return softrdma_prog.err;
}

/* Listener port encoded in this process's QP numbers. */
uint16_t softrdma__progress_port(void)
{
	return softrdma_prog.port;
}

/* Give @qp an index and a QP number. */
int softrdma__progress_add_qp(struct softrdma_qp *qp)
{
	int i, err = softrdma__progress_start();

	if (err)
		return err;
	pthread_mutex_lock(&softrdma_prog.lock);
	for (i = 1; i <= SOFTRDMA_MAX_QP; i++) {
		if (!softrdma_prog.qps[i]) {
			softrdma_prog.qps[i] = qp;
			qp->idx = i;
			qp->qpx.qp_base.qp_num = (uint32_t)softrdma_prog.port << 8 | i;
			pthread_mutex_unlock(&softrdma_prog.lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&softrdma_prog.lock);
	return ENOMEM;
}

/*
 * Forget @qp and wait until the progress thread has finished the epoll
 * batch it may be in, so nothing references the QP any more.
 */
void softrdma__progress_del_qp(struct softrdma_qp *qp)
{
	uint64_t target;

	pthread_mutex_lock(&softrdma_prog.lock);
	if (softrdma_prog.qps[qp->idx] == qp)
		softrdma_prog.qps[qp->idx] = NULL;
	target = softrdma_prog.epoch + 1;
	softrdma__progress_kick();
	while ((int64_t)(softrdma_prog.epoch - target) < 0)
		pthread_cond_wait(&softrdma_prog.cond, &softrdma_prog.lock);
	pthread_mutex_unlock(&softrdma_prog.lock);
}

/* Find a local QP by number (progress thread, during a batch). */
struct softrdma_qp *softrdma__progress_find_qp(uint32_t qpn)
{
	struct softrdma_qp *qp = NULL;
	uint32_t idx = qpn & 0xff;

	if ((qpn >> 8) != softrdma_prog.port || !idx || idx > SOFTRDMA_MAX_QP)
		return NULL;
	pthread_mutex_lock(&softrdma_prog.lock);
	qp = softrdma_prog.qps[idx];
	pthread_mutex_unlock(&softrdma_prog.lock);
	return qp;
}
