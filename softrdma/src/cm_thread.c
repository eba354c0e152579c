// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * cm_thread.c -- the CM thread: accepts, reads CM messages off each id's socket,
 * runs the timers and evicts pending connections (all signals blocked).
 * See cm_int.h for the whole CM and its lock.
 */
#define _GNU_SOURCE

#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cm_int.h"

static void softrdma_cm_on_io(struct softrdma_cm_id *id, uint32_t ev);

/*
 * Make room among the pending connections: the oldest goes, unless its
 * whole request already waits in its socket, which is then served, so a
 * client that spoke at once is not lost to a flood (CM thread, softrdma__cm.lock
 * held). Either way the oldest leaves softrdma__cm.pending or its socket is drained,
 * so a caller's loop ends.
 */
static void
softrdma_cm_pend_evict(void)
{
	struct softrdma_cm_id *id =
	    SOFTRDMA_CONTAINER_OF(softrdma__cm.pending.next, struct softrdma_cm_id, pend);
	int avail = 0;

	if (!ioctl(id->fd, FIONREAD, &avail) && avail > 0 &&
	    id->rhave + (size_t)avail >= sizeof(struct softrdma_cm_msg)) {
		softrdma_cm_on_io(id, EPOLLIN);
		return;
	}
	softrdma__cm_pend_drop(id);
}

/*
 * Close the pending connections whose request did not come in time; the
 * deadline of the oldest that stays, 0 when none (CM thread, softrdma__cm.lock held).
 */
static uint64_t
softrdma_cm_pend_timers(uint64_t now)
{
	while (!softrdma__list_empty(&softrdma__cm.pending)) {
		struct softrdma_cm_id *id =
		    SOFTRDMA_CONTAINER_OF(softrdma__cm.pending.next, struct softrdma_cm_id, pend);

		if (id->deadline > now)
			return id->deadline;
		softrdma_cm_pend_evict();
	}
	return 0;
}

/*
 * accept4() on listener @l failed with @err (CM thread, softrdma__cm.lock held).
 * Returns non-zero when the next connection may be tried at once. Out of
 * descriptors or memory, the listener is unwatched for a while instead of
 * being reported ready again and again, and the burst is logged once.
 */
static int
softrdma_cm_accept_failed(struct softrdma_cm_id *l, int err)
{
	if (err == EINTR || err == ECONNABORTED || err == EPROTO)
		return 1;
	if (!softrdma__accept_starved(err)) {
		l->starved = 0;
		return 0;
	}
	epoll_ctl(softrdma__cm.epfd, EPOLL_CTL_DEL, l->fd, NULL);
	l->retry_at = softrdma__now_ns() + SOFTRDMA_ACCEPT_PAUSE_NS;
	if (!l->starved) {
		struct sockaddr_in sin = {.sin_family = AF_INET};
		socklen_t len = sizeof(sin);

		getsockname(l->fd, (struct sockaddr *)&sin, &len);
		softrdma__log("CM listener on TCP port %u: accept: %s; new connections wait, "
			      "tried again every %llu ms",
			      ntohs(sin.sin_port), strerror(err),
			      SOFTRDMA_ACCEPT_PAUSE_NS / 1000000);
	}
	l->starved = 1;
	return 0;
}

/*
 * Accept new TCP connections on a listener, a batch at a time so that a
 * flood does not starve the connections already accepted; each waits for
 * its request as a pending connection (CM thread, softrdma__cm.lock held).
 */
static void
softrdma_cm_accept(struct softrdma_cm_id *l)
{
	long cap = softrdma__pending_cap(softrdma__cm.pending_max);
	int i;

	for (i = 0; i < SOFTRDMA_ACCEPT_BATCH; i++) {
		struct softrdma_cm_id *id;
		int one = 1;
		int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (softrdma_cm_accept_failed(l, errno))
				continue;
			return;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		id = softrdma__cm_id_new(l->sync ? NULL : l->id.channel, l->id.context, l->id.ps);
		if (!id) {
			close(fd);
			continue;
		}
		id->fd = fd;
		id->listen = l;
		id->state = CM_REQ_WAIT;
		id->deadline = softrdma__now_ns() + softrdma__cm.pending_ns;
		softrdma__list_add_tail(&softrdma__cm.ids, &id->node);
		softrdma__list_add_tail(&softrdma__cm.pending, &id->pend);
		softrdma__cm.npending++;
		if (softrdma__cm_watch(id, EPOLLIN, 1)) {
			softrdma__cm_pend_drop(id);
			continue;
		}
		while (softrdma__cm.npending > cap)
			softrdma_cm_pend_evict();
	}
}

/* A REQ arrived on a new passive connection: announce it to the listener. */
static int
softrdma_cm_on_req(struct softrdma_cm_id *id, struct softrdma_cm_msg *m)
{
	struct softrdma_cm_msg mra;
	struct sockaddr_in local, peer;
	socklen_t len = sizeof(local);

	if (!id->listen)
		return EPROTO;
	if (getsockname(id->fd, (struct sockaddr *)&local, &len) < 0)
		return errno;
	len = sizeof(peer);
	if (getpeername(id->fd, (struct sockaddr *)&peer, &len) < 0)
		return errno;
	id->peer = peer;
	local.sin_port = softrdma__cm_rdma_port(local.sin_port);
	peer.sin_port = softrdma__cm_rdma_port(peer.sin_port);
	softrdma__cm_set_addrs(id, &local, &peer);
	softrdma__cm_set_device(&id->id);
	id->remote_qpn = m->qpn;
	id->remote_rnr_retry = m->rnr_retry;
	memcpy(id->secret, m->secret, sizeof(id->secret));
	id->has_secret = 1;
	/* for a QP the application moves to RTR before it accepts */
	if (!softrdma__cm_ops(softrdma__cm.verbs)
		 ->secret_set_remote(peer.sin_addr, m->qpn, id->secret))
		id->remote_entry = 1;
	id->state = CM_REQ_RCVD;
	softrdma__cm_event(id, id->listen, RDMA_CM_EVENT_CONNECT_REQUEST, 0, m,
			   SOFTRDMA_CM_REQ_PDATA);
	/* tell the active side the request arrived: it stops its timer */
	memset(&mra, 0, sizeof(mra));
	mra.type = SOFTRDMA_CM_MRA;
	softrdma__cm_send(id, &mra);
	return 0;
}

/* Handle one validated CM message (CM thread, softrdma__cm.lock held). */
static int
softrdma_cm_on_msg(struct softrdma_cm_id *id, struct softrdma_cm_msg *m)
{
	struct softrdma_cm_msg r;

	switch (m->type) {
	case SOFTRDMA_CM_REQ:
		return id->state == CM_REQ_WAIT ? softrdma_cm_on_req(id, m) : EPROTO;
	case SOFTRDMA_CM_MRA:
		if (id->state != CM_CONNECTING)
			return EPROTO;
		id->deadline = 0;
		return 0;
	case SOFTRDMA_CM_REP:
		if (id->state != CM_CONNECTING)
			return EPROTO;
		id->deadline = 0;
		id->remote_qpn = m->qpn;
		if (!id->id.qp) {
			id->state = CM_RESPONSE;
			softrdma__cm_event(id, NULL, RDMA_CM_EVENT_CONNECT_RESPONSE, 0, m,
					   SOFTRDMA_CM_REP_PDATA);
			return 0;
		}
		if (softrdma__cm_qp_connect(id)) {
			memset(&r, 0, sizeof(r));
			r.type = SOFTRDMA_CM_REJ;
			softrdma__cm_send(id, &r);
			softrdma__cm_close_fd(id);
			id->state = CM_ERROR;
			softrdma__cm_event(id, NULL, RDMA_CM_EVENT_CONNECT_ERROR, -EINVAL, NULL, 0);
			return 0;
		}
		memset(&r, 0, sizeof(r));
		r.type = SOFTRDMA_CM_RTU;
		softrdma__cm_send(id, &r);
		id->state = CM_ESTABLISHED;
		softrdma__cm_event(id, NULL, RDMA_CM_EVENT_ESTABLISHED, 0, m,
				   SOFTRDMA_CM_REP_PDATA);
		return 0;
	case SOFTRDMA_CM_REJ:
		if (id->state != CM_CONNECTING && id->state != CM_ACCEPTING)
			return EPROTO;
		id->deadline = 0;
		softrdma__cm_close_fd(id);
		id->state = CM_ERROR;
		softrdma__cm_event(id, NULL, RDMA_CM_EVENT_REJECTED, 28, m, SOFTRDMA_CM_REJ_PDATA);
		return 0;
	case SOFTRDMA_CM_RTU:
		if (id->state != CM_ACCEPTING)
			return EPROTO;
		id->state = CM_ESTABLISHED;
		softrdma__cm_event(id, NULL, RDMA_CM_EVENT_ESTABLISHED, 0, NULL, 0);
		return 0;
	case SOFTRDMA_CM_DREQ:
		if (id->state != CM_ESTABLISHED && id->state != CM_DISCONNECTING &&
		    id->state != CM_RESPONSE && id->state != CM_ACCEPTING)
			return EPROTO;
		memset(&r, 0, sizeof(r));
		r.type = SOFTRDMA_CM_DREP;
		softrdma__cm_send(id, &r);
		softrdma__cm_disconnected(id);
		return 0;
	case SOFTRDMA_CM_DREP:
		if (id->state != CM_DISCONNECTING)
			return EPROTO;
		softrdma__cm_disconnected(id);
		return 0;
	}
	return EPROTO;
}

/*
 * Whether @fd connected to itself. TCP's simultaneous open lets a connect to
 * a free local port reach its own socket when the kernel picks that same
 * port as the source, where an RNIC's request would find no listener and be
 * refused; the request would come back to its sender as a stray REQ.
 */
static int
softrdma_cm_self_connected(int fd)
{
	struct sockaddr_in local, peer;
	socklen_t llen = sizeof(local), plen = sizeof(peer);

	return !getsockname(fd, (struct sockaddr *)&local, &llen) &&
	       !getpeername(fd, (struct sockaddr *)&peer, &plen) &&
	       local.sin_addr.s_addr == peer.sin_addr.s_addr && local.sin_port == peer.sin_port;
}

/* The id's connection failed or closed (CM thread, softrdma__cm.lock held). */
static void
softrdma_cm_conn_lost(struct softrdma_cm_id *id, int err)
{
	switch (id->state) {
	case CM_CONNECTING:
		softrdma__cm_close_fd(id);
		if (err == ECONNREFUSED && id->tcp_connecting &&
		    softrdma__now_ns() < id->refuse_until) {
			/* the listener may not be up yet: try again shortly */
			id->retry_at = softrdma__now_ns() + SOFTRDMA_CM_RETRY_NS;
			return;
		}
		id->state = CM_ERROR;
		id->deadline = 0;
		id->retry_at = 0;
		if (err == ECONNREFUSED)
			softrdma__cm_event(id, NULL, RDMA_CM_EVENT_REJECTED, 8, NULL, 0);
		else if (err == ETIMEDOUT || err == EHOSTUNREACH || err == ENETUNREACH)
			softrdma__cm_event(id, NULL, RDMA_CM_EVENT_UNREACHABLE, -err, NULL, 0);
		else
			softrdma__cm_event(id, NULL, RDMA_CM_EVENT_CONNECT_ERROR, -err, NULL, 0);
		break;
	case CM_ACCEPTING:
		softrdma__cm_close_fd(id);
		id->state = CM_ERROR;
		softrdma__cm_event(id, NULL, RDMA_CM_EVENT_CONNECT_ERROR, -err, NULL, 0);
		break;
	case CM_ESTABLISHED:
	case CM_DISCONNECTING:
	case CM_RESPONSE:
		softrdma__cm_disconnected(id);
		break;
	default:
		softrdma__cm_close_fd(id);
		if (id->state == CM_REQ_WAIT && id->listen) {
			/* never announced: forget it */
			softrdma__cm_pend_drop(id);
			return;
		}
		id->state = CM_ERROR;
		break;
	}
}

/* Socket events of one id (CM thread, softrdma__cm.lock held). */
static void
softrdma_cm_on_io(struct softrdma_cm_id *id, uint32_t ev)
{
	if (id->state == CM_LISTEN) {
		softrdma_cm_accept(id);
		return;
	}
	if (id->fd < 0)
		return;
	if (id->tcp_connecting && (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
		int err = 0;
		socklen_t len = sizeof(err);
		struct sockaddr_in local;

		getsockopt(id->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (!err && softrdma_cm_self_connected(id->fd))
			err = ECONNREFUSED; /* nobody listens there */
		if (err) {
			softrdma_cm_conn_lost(id, err);
			return;
		}
		id->tcp_connecting = 0;
		len = sizeof(local);
		if (!getsockname(id->fd, (struct sockaddr *)&local, &len)) {
			local.sin_port = softrdma__cm_rdma_port(local.sin_port);
			softrdma__cm_set_addrs(id, &local, NULL);
		}
		softrdma__cm_watch(id, EPOLLIN, 0);
		err = softrdma__cm_send(id, &id->out_req);
		if (err) {
			softrdma_cm_conn_lost(id, err);
			return;
		}
	}
	while (id->fd >= 0 && (ev & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
		ssize_t n =
		    recv(id->fd, id->rbuf + id->rhave, sizeof(id->rbuf) - id->rhave, MSG_DONTWAIT);
		struct softrdma_cm_msg m;

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			softrdma_cm_conn_lost(id, n < 0 ? errno : ECONNRESET);
			return;
		}
		id->rhave += n;
		if (id->rhave < sizeof(m))
			continue;
		memcpy(&m, id->rbuf, sizeof(m));
		id->rhave = 0;
		if (softrdma__cm_msg_check(&m) || softrdma_cm_on_msg(id, &m)) {
			/* malformed or out-of-order message: drop the connection */
			softrdma_cm_conn_lost(id, EPROTO);
			return;
		}
		if (id->state != CM_REQ_WAIT)
			softrdma__cm_pend_del(id); /* its request came */
	}
}

/*
 * A listener paused for want of descriptors: watch it again once its pause
 * is over, or add the pause's end to *@next (CM thread, softrdma__cm.lock held).
 */
static void
softrdma_cm_listen_timer(struct softrdma_cm_id *l, uint64_t now, uint64_t *next)
{
	if (!l->retry_at)
		return;
	if (now >= l->retry_at) {
		l->retry_at = 0;
		if (!softrdma__cm_watch(l, EPOLLIN, 1))
			return;
		l->retry_at = now + SOFTRDMA_ACCEPT_PAUSE_NS;
	}
	if (!*next || l->retry_at < *next)
		*next = l->retry_at;
}

/*
 * Run the timers (CM thread, softrdma__cm.lock held): retry refused connects, report
 * UNREACHABLE when the REQ was never acknowledged, close pending passive
 * connections whose request is late, resume paused listeners. Returns the
 * epoll timeout in milliseconds until the next timer, -1 when none.
 */
static int
softrdma_cm_timers(void)
{
	uint64_t now = softrdma__now_ns(), next = softrdma_cm_pend_timers(now);
	struct softrdma_list *n, *nx;
	int err;

	for (n = softrdma__cm.ids.next; n != &softrdma__cm.ids; n = nx) {
		struct softrdma_cm_id *id = SOFTRDMA_CONTAINER_OF(n, struct softrdma_cm_id, node);

		nx = n->next;
		if (id->state == CM_LISTEN)
			softrdma_cm_listen_timer(id, now, &next);
		if (id->state != CM_CONNECTING)
			continue;
		if (id->deadline && now >= id->deadline) {
			id->tcp_connecting = 0;
			softrdma_cm_conn_lost(id, ETIMEDOUT);
			continue;
		}
		if (id->retry_at && now >= id->retry_at) {
			id->retry_at = 0;
			err = softrdma__cm_tcp_connect(id);
			if (err) {
				id->tcp_connecting = 1;
				softrdma_cm_conn_lost(id, err);
			}
		}
		if (id->state != CM_CONNECTING)
			continue;
		if (id->deadline && (!next || id->deadline < next))
			next = id->deadline;
		if (id->retry_at && (!next || id->retry_at < next))
			next = id->retry_at;
	}
	if (!next)
		return -1;
	now = softrdma__now_ns();
	return next <= now ? 0 : (int)((next - now + 999999) / 1000000);
}

/* Body of the CM thread. */
void *
softrdma__cm_thread(void *arg)
{
	struct epoll_event evs[32];
	int n, i, timeout = -1;

	(void)arg;
	softrdma__block_signals();
	for (;;) {
		n = epoll_wait(softrdma__cm.epfd, evs, 32, timeout);
		if (n < 0 && errno != EINTR)
			break;
		pthread_mutex_lock(&softrdma__cm.lock);
		for (i = 0; i < n; i++) {
			struct softrdma_list *it;
			void *p = evs[i].data.ptr;
			int alive = 0;

			if (p == &softrdma__cm_wake_tag) {
				uint64_t v;

				if (read(softrdma__cm.wakefd, &v, sizeof(v)) < 0) {
					/* already drained */
				}
				continue;
			}
			/* the id may have been destroyed since epoll_wait returned */
			for (it = softrdma__cm.ids.next; it != &softrdma__cm.ids; it = it->next)
				if (SOFTRDMA_CONTAINER_OF(it, struct softrdma_cm_id, node) == p)
					alive = 1;
			if (alive)
				softrdma_cm_on_io(p, evs[i].events);
		}
		timeout = softrdma_cm_timers();
		pthread_mutex_unlock(&softrdma__cm.lock);
	}
	return NULL;
}
