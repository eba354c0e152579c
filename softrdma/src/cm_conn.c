// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * cm_conn.c -- the handshake: listen, connect, accept, reject, establish,
 * disconnect, and the CM messages that carry them.
 * See cm_int.h for the whole CM and its lock.
 */
#define _GNU_SOURCE

#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "cm_int.h"

/* Watch the id's socket in the CM thread. */
int
softrdma__cm_watch(struct softrdma_cm_id *id, uint32_t events, int add)
{
	struct epoll_event ev = {.events = events, .data.ptr = id};

	return epoll_ctl(softrdma__cm.epfd, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, id->fd, &ev) < 0
		   ? errno
		   : 0;
}

/* Start listening for connection requests. */
int
rdma_listen(struct rdma_cm_id *cid, int backlog)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	int err = 0;

	if (softrdma__cm_id_lock(id))
		return -1;
	if (id->state != CM_BOUND || id->fd < 0) {
		err = EINVAL;
		goto out;
	}
	if (listen(id->fd, backlog > 0 ? backlog : 128) < 0) {
		err = errno;
		goto out;
	}
	err = softrdma__cm_watch(id, EPOLLIN, 1);
	if (!err)
		id->state = CM_LISTEN;
out:
	pthread_mutex_unlock(&softrdma__cm.lock);
	return err ? softrdma__cm_err(err) : 0;
}

/* Send one CM message on the id's connection. */
int
softrdma__cm_send(struct softrdma_cm_id *id, struct softrdma_cm_msg *m)
{
	struct softrdma_cm_msg w = *m;
	ssize_t n;

	w.magic = htole32(SOFTRDMA_CM_MAGIC);
	w.qpn = htole32(m->qpn);
	if (id->fd < 0)
		return ENOTCONN;
	n = send(id->fd, &w, sizeof(w), MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n != sizeof(w))
		return n < 0 ? errno : EIO;
	return 0;
}
/* Fill the common part of a REQ or REP from @param. */
static int
softrdma_cm_fill(struct softrdma_cm_id *id, struct softrdma_cm_msg *m, uint8_t type,
		 struct rdma_conn_param *param, int max)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
	m->rnr_retry = 7;
	m->retry = 7;
	if (param) {
		if (param->private_data_len > max ||
		    (param->private_data_len && !param->private_data))
			return EINVAL;
		m->pdata_len = param->private_data_len;
		if (m->pdata_len)
			memcpy(m->pdata, param->private_data, m->pdata_len);
		m->responder_resources = param->responder_resources;
		m->initiator_depth = param->initiator_depth;
		m->flow_control = param->flow_control;
		m->retry = param->retry_count;
		m->rnr_retry = param->rnr_retry_count;
		m->srq = param->srq;
		m->qpn = param->qp_num & 0xffffff;
	}
	if (id->id.qp) {
		m->qpn = id->id.qp->qp_num;
		m->srq = !!id->id.qp->srq;
	}
	softrdma__cm_gid((union ibv_gid *)m->gid, id->id.route.addr.src_sin.sin_addr);
	return 0;
}

/*
 * The start of rdma_connect() and rdma_accept(), under the CM's lock: @id must be in
 * @state (else EINVAL); @m is its REQ or REP (@type, at most @max bytes of private
 * data) for @param, and the QP it names is secured for the peer. 0 or an errno.
 */
static int
softrdma_cm_conn_msg(struct softrdma_cm_id *id, enum softrdma_cm_state state,
		     struct softrdma_cm_msg *m, uint8_t type, struct rdma_conn_param *param,
		     int max)
{
	int err;

	if (id->state != state)
		return EINVAL;
	err = softrdma_cm_fill(id, m, type, param, max);
	if (!err)
		err = softrdma__cm_secure_qp(id, m->qpn);
	return err;
}

/*
 * The end of rdma_connect() and rdma_accept(), under the CM's lock: when @err is 0
 * (what starts the connection went out) @id moves to @state, then the lock is
 * released and a synchronous id waits for ESTABLISHED. 0, or -1 with errno.
 */
static int
softrdma_cm_conn_sent(struct softrdma_cm_id *id, enum softrdma_cm_state state, int err)
{
	if (!err)
		id->state = state;
	pthread_mutex_unlock(&softrdma__cm.lock);
	if (err)
		return softrdma__cm_err(err);
	if (id->sync)
		return softrdma__cm_sync_wait(id, RDMA_CM_EVENT_ESTABLISHED);
	return 0;
}

/*
 * Open (when needed) the id's TCP socket and start a non-blocking connect to
 * the destination's CM port (softrdma__cm.lock held). Returns 0 or an errno; on error
 * the socket is closed.
 */
int
softrdma__cm_tcp_connect(struct softrdma_cm_id *id)
{
	struct sockaddr_in dst, src;
	int one = 1, err;

	if (id->fd < 0) {
		id->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (id->fd < 0) {
			err = errno;
			goto out;
		}
		src = id->id.route.addr.src_sin;
		src.sin_port = 0;
		if (bind(id->fd, (struct sockaddr *)&src, sizeof(src)) < 0) {
			err = errno;
			goto close;
		}
	}
	setsockopt(id->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	dst = id->id.route.addr.dst_sin;
	dst.sin_port = softrdma__cm_tcp_port(dst.sin_port);
	if (connect(id->fd, (struct sockaddr *)&dst, sizeof(dst)) < 0 && errno != EINPROGRESS) {
		err = errno;
		goto close;
	}
	id->tcp_connecting = 1;
	id->rhave = 0;
	err = softrdma__cm_watch(id, EPOLLOUT | EPOLLIN, 1);
	if (err)
		goto close;
	return 0;
close:
	close(id->fd);
	id->fd = -1;
out:
	return err;
}

/* Connect to the resolved destination. */
int
rdma_connect(struct rdma_cm_id *cid, struct rdma_conn_param *param)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	int saved = errno, err;
	uint64_t now;

	if (softrdma__cm_id_lock(id))
		return -1;
	err = softrdma_cm_conn_msg(id, CM_ROUTE, &id->out_req, SOFTRDMA_CM_REQ, param,
				   SOFTRDMA_CM_REQ_PDATA);
	if (err)
		goto out;
	memcpy(id->out_req.secret, id->secret, sizeof(id->secret));
	id->rnr_retry = param ? param->rnr_retry_count : 7;
	if (id->rnr_retry > 7)
		id->rnr_retry = 7;
	err = softrdma__cm_qp_init(id);
	if (err)
		goto out;
	id->peer = id->id.route.addr.dst_sin;
	now = softrdma__now_ns();
	id->deadline = now + softrdma__cm.timeout_ns;
	id->refuse_until = now + softrdma__cm.grace_ns;
	id->retry_at = 0;
	err = softrdma__cm_tcp_connect(id);
	if (err == ECONNREFUSED) {
		/* refused at once: the CM thread retries, then reports it */
		id->retry_at = now + SOFTRDMA_CM_RETRY_NS;
		err = 0;
	}
	if (!err) {
		/* the CM thread takes the new socket once the lock is released */
		softrdma__cm_kick();
		errno = saved;
	}
out:
	return softrdma_cm_conn_sent(id, CM_CONNECTING, err);
}

/* Complete a connection after CONNECT_RESPONSE (id without QP at connect). */
int
rdma_establish(struct rdma_cm_id *cid)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	struct softrdma_cm_msg m;
	int err;

	if (softrdma__cm_id_lock(id))
		return -1;
	if (id->state != CM_RESPONSE) {
		pthread_mutex_unlock(&softrdma__cm.lock);
		return softrdma__cm_err(EINVAL);
	}
	err = softrdma__cm_qp_connect(id);
	if (!err) {
		memset(&m, 0, sizeof(m));
		m.type = SOFTRDMA_CM_RTU;
		err = softrdma__cm_send(id, &m);
	}
	if (!err)
		id->state = CM_ESTABLISHED;
	pthread_mutex_unlock(&softrdma__cm.lock);
	return err ? softrdma__cm_err(err) : 0;
}

/* Accept a connection request; the QP reaches RTS before the reply. */
int
rdma_accept(struct rdma_cm_id *cid, struct rdma_conn_param *param)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	struct softrdma_cm_msg m;
	int err;

	if (softrdma__cm_id_lock(id))
		return -1;
	err = softrdma_cm_conn_msg(id, CM_REQ_RCVD, &m, SOFTRDMA_CM_REP, param,
				   SOFTRDMA_CM_REP_PDATA);
	if (err)
		goto out;
	if (param)
		id->rnr_retry = param->rnr_retry_count > 7 ? 7 : param->rnr_retry_count;
	err = softrdma__cm_qp_connect(id);
	if (!err)
		err = softrdma__cm_send(id, &m);
	/* the QP has its own entry now, and any hello it sends went out at RTR */
	if (!err)
		softrdma__cm_forget_request(id);
out:
	return softrdma_cm_conn_sent(id, CM_ACCEPTING, err);
}

/* Reject a connection request with up to 148 bytes of private data. */
int
rdma_reject(struct rdma_cm_id *cid, const void *private_data, uint8_t private_data_len)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	struct softrdma_cm_msg m;
	int err = 0;

	if (id->inherited)
		return softrdma__cm_err(EIO);
	if (private_data_len > SOFTRDMA_CM_REJ_PDATA || (private_data_len && !private_data))
		return softrdma__cm_err(EINVAL);
	pthread_mutex_lock(&softrdma__cm.lock);
	if (id->state != CM_REQ_RCVD) {
		err = EINVAL;
		goto out;
	}
	memset(&m, 0, sizeof(m));
	m.type = SOFTRDMA_CM_REJ;
	m.pdata_len = private_data_len;
	if (private_data_len)
		memcpy(m.pdata, private_data, private_data_len);
	err = softrdma__cm_send(id, &m);
	softrdma__cm_close_fd(id);
	softrdma__cm_forget_request(id);
	id->state = CM_ERROR;
out:
	pthread_mutex_unlock(&softrdma__cm.lock);
	return err ? softrdma__cm_err(err) : 0;
}

/* Reject with ECE: same as a plain reject here. */
int
rdma_reject_ece(struct rdma_cm_id *cid, const void *private_data, uint8_t private_data_len)
{
	return rdma_reject(cid, private_data, private_data_len);
}

/* Report DISCONNECTED once and close the connection (softrdma__cm.lock held). */
void
softrdma__cm_disconnected(struct softrdma_cm_id *id)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};

	/*
	 * The connection is gone: outstanding work requests are flushed. The
	 * peer ended its data streams before its DREQ or DREP, but on other
	 * connections: the QP consumes them first (bounded), so answers the
	 * peer sent before disconnecting still complete the requests.
	 */
	if (id->id.qp)
		ibv_modify_qp(id->id.qp, &a, IBV_QP_STATE | SOFTRDMA_QP_DISCONNECT);
	softrdma__cm_close_fd(id);
	id->state = CM_DISCONNECTED;
	if (!id->disc_reported) {
		id->disc_reported = 1;
		softrdma__cm_event(id, NULL, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
	}
}

/* Disconnect: the QP enters error (flushing its WRs) and the peer is told. */
int
rdma_disconnect(struct rdma_cm_id *cid)
{
	struct softrdma_cm_id *id = (struct softrdma_cm_id *)cid;
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};
	struct softrdma_cm_msg m;
	int err = 0;

	if (softrdma__cm_id_lock(id))
		return -1;
	if (cid->qp)
		ibv_modify_qp(cid->qp, &a, IBV_QP_STATE);
	switch (id->state) {
	case CM_ESTABLISHED:
	case CM_ACCEPTING:
	case CM_RESPONSE:
		memset(&m, 0, sizeof(m));
		m.type = SOFTRDMA_CM_DREQ;
		if (softrdma__cm_send(id, &m))
			softrdma__cm_disconnected(id);
		else
			id->state = CM_DISCONNECTING;
		break;
	case CM_DISCONNECTING:
	case CM_DISCONNECTED:
		break;
	default:
		err = EINVAL;
		break;
	}
	pthread_mutex_unlock(&softrdma__cm.lock);
	return err ? softrdma__cm_err(err) : 0;
}
/* Wait for a connection request on a synchronous listener. */
int
rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **cid)
{
	struct softrdma_cm_id *l = (struct softrdma_cm_id *)listen;
	struct softrdma_cm_id *id;
	struct rdma_cm_event *ev;

	if (!l->sync)
		return softrdma__cm_err(EINVAL);
	for (;;) {
		if (rdma_get_cm_event(listen->channel, &ev))
			return -1;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			break;
		rdma_ack_cm_event(ev);
	}
	id = (struct softrdma_cm_id *)ev->id;
	if (id->sync_event)
		rdma_ack_cm_event(id->sync_event);
	id->sync_event = ev;
	id->id.event = ev;
	if (l->has_ep_attr) {
		struct ibv_qp_init_attr a = l->ep_attr;

		if (rdma_create_qp(&id->id, l->ep_pd, &a)) {
			int err = errno;

			rdma_reject(&id->id, NULL, 0);
			rdma_destroy_id(&id->id);
			return softrdma__cm_err(err);
		}
	}
	*cid = &id->id;
	return 0;
}
