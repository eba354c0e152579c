/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmocka tests of softrdma's connection manager, built against the real
 * librdmacm headers and run under softrdma. Server and client ids live in
 * one process on separate event channels over 127.0.0.1.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>

#include <rdma/rdma_verbs.h>

#include "softrdma_test.h"

struct conn {
	struct rdma_event_channel *sch; /* server side */
	struct rdma_event_channel *cch; /* client side */
	struct rdma_cm_id *listen;
	struct rdma_cm_id *srv;
	struct rdma_cm_id *cli;
	uint16_t port;
};

/* Two channels and a listener on a fresh port. */
static int
setup(void **state)
{
	struct conn *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->sch = rdma_create_event_channel();
	c->cch = rdma_create_event_channel();
	assert_non_null(c->sch);
	assert_non_null(c->cch);
	c->listen = t_listen(c->sch, 0);
	c->port = ntohs(rdma_get_src_port(c->listen));
	assert_int_not_equal(c->port, 0);
	*state = c;
	return 0;
}

/* Destroy whatever setup and the test left behind. */
static int
teardown(void **state)
{
	struct conn *c = *state;

	if (c->cli) {
		rdma_destroy_qp(c->cli);
		rdma_destroy_id(c->cli);
	}
	if (c->srv) {
		rdma_destroy_qp(c->srv);
		rdma_destroy_id(c->srv);
	}
	rdma_destroy_id(c->listen);
	rdma_destroy_event_channel(c->sch);
	rdma_destroy_event_channel(c->cch);
	free(c);
	return 0;
}

/* Fill @p with @len bytes of a recognisable pattern. */
static void
pattern(unsigned char *p, size_t len, unsigned char seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(seed + i * 7 + 1);
}

/* Check that @len bytes of @p hold the pattern and the rest up to @field is 0. */
static void
check_pdata(const void *p, size_t field, size_t len, unsigned char seed)
{
	unsigned char want[256];
	size_t i;

	assert_non_null(p);
	pattern(want, len, seed);
	assert_memory_equal(p, want, len);
	for (i = len; i < field; i++)
		assert_int_equal(((const unsigned char *)p)[i], 0);
}

/* Send @len bytes from one connected id to the other and check them. */
static void
exchange(struct rdma_cm_id *from, struct rdma_cm_id *to)
{
	char sbuf[64] = "softrdma cm data", rbuf[64] = "";
	struct ibv_mr *smr = ibv_reg_mr(from->pd, sbuf, sizeof(sbuf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_mr *rmr = ibv_reg_mr(to->pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_wc wc;

	assert_non_null(smr);
	assert_non_null(rmr);
	t_post_recv(to->qp, rmr, rbuf, sizeof(rbuf), 11);
	assert_int_equal(
	    t_post(from->qp, IBV_WR_SEND, sbuf, 17, smr->lkey, 0, 0, IBV_SEND_SIGNALED, 12), 0);
	wc = t_wait_wc(from->send_cq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 12);
	wc = t_wait_wc(to->recv_cq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_RECV);
	assert_int_equal(wc.byte_len, 17);
	assert_string_equal(rbuf, "softrdma cm data");
	ibv_dereg_mr(smr);
	ibv_dereg_mr(rmr);
}

/* Client connects with @cpd_len bytes; server gets CONNECT_REQUEST (kept in c->srv). */
static void
connect_to_request(struct conn *c, size_t cpd_len)
{
	unsigned char cpd[56];
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;

	pattern(cpd, sizeof(cpd), 1);
	p = rc_conn_param(cpd, cpd_len);
	p.retry_count = 7;
	assert_int_equal(rdma_connect(c->cli, &p), 0);
	ev = t_event(c->sch, RDMA_CM_EVENT_CONNECT_REQUEST);
	assert_ptr_equal(ev->listen_id, c->listen);
	assert_ptr_not_equal(ev->id, c->listen);
	assert_non_null(ev->id->verbs);
	assert_int_equal(ev->param.conn.private_data_len, 56);
	check_pdata(ev->param.conn.private_data, 56, cpd_len, 1);
	assert_int_equal(ev->id->route.addr.dst_sin.sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	c->srv = ev->id;
	assert_int_equal(rdma_ack_cm_event(ev), 0);
}

/* Names of CM events, and of an unknown one. */
static void
test_event_str(void **state)
{
	(void)state;
	assert_string_equal(rdma_event_str(RDMA_CM_EVENT_ADDR_RESOLVED),
			    "RDMA_CM_EVENT_ADDR_RESOLVED");
	assert_string_equal(rdma_event_str(RDMA_CM_EVENT_REJECTED), "RDMA_CM_EVENT_REJECTED");
	assert_string_equal(rdma_event_str(RDMA_CM_EVENT_DISCONNECTED),
			    "RDMA_CM_EVENT_DISCONNECTED");
	assert_string_equal(rdma_event_str(RDMA_CM_EVENT_TIMEWAIT_EXIT),
			    "RDMA_CM_EVENT_TIMEWAIT_EXIT");
	assert_string_equal(rdma_event_str((enum rdma_cm_event_type)1000), "UNKNOWN EVENT");
}

/* Active and passive rdma_getaddrinfo results. */
static void
test_getaddrinfo(void **state)
{
	struct rdma_addrinfo hints, *res;
	struct sockaddr_in *sin;

	(void)state;
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	assert_int_equal(rdma_getaddrinfo("127.0.0.1", "7471", &hints, &res), 0);
	assert_non_null(res->ai_dst_addr);
	assert_int_equal(res->ai_qp_type, IBV_QPT_RC);
	sin = (struct sockaddr_in *)res->ai_dst_addr;
	assert_int_equal(sin->sin_family, AF_INET);
	assert_int_equal(ntohs(sin->sin_port), 7471);
	assert_int_equal(sin->sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	rdma_freeaddrinfo(res);
	hints.ai_flags = RAI_PASSIVE;
	assert_int_equal(rdma_getaddrinfo(NULL, "7472", &hints, &res), 0);
	assert_non_null(res->ai_src_addr);
	assert_int_equal(ntohs(((struct sockaddr_in *)res->ai_src_addr)->sin_port), 7472);
	assert_true(res->ai_flags & RAI_PASSIVE);
	rdma_freeaddrinfo(res);
}

/* Full asynchronous life cycle with private data, event order and disconnect. */
static void
test_connect_accept(void **state)
{
	struct conn *c = *state;
	unsigned char apd[196];
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;

	c->cli = t_resolve(c->cch, c->port);
	assert_non_null(c->cli->verbs);
	t_create_qp(c->cli);
	connect_to_request(c, 10); /* receiver sees 56 bytes, zero padded */
	t_create_qp(c->srv);
	pattern(apd, sizeof(apd), 3);
	p = rc_conn_param(apd, 20); /* client sees 196 bytes, zero padded */
	assert_int_equal(rdma_accept(c->srv, &p), 0);
	ev = t_event(c->cch, RDMA_CM_EVENT_ESTABLISHED);
	assert_ptr_equal(ev->id, c->cli);
	assert_int_equal(ev->param.conn.private_data_len, 196);
	check_pdata(ev->param.conn.private_data, 196, 20, 3);
	rdma_ack_cm_event(ev);
	ev = t_event(c->sch, RDMA_CM_EVENT_ESTABLISHED);
	assert_ptr_equal(ev->id, c->srv);
	rdma_ack_cm_event(ev);
	exchange(c->cli, c->srv);
	exchange(c->srv, c->cli);
	/* one DISCONNECTED per side, none more */
	assert_int_equal(rdma_disconnect(c->cli), 0);
	t_event_ack(c->cch, RDMA_CM_EVENT_DISCONNECTED);
	t_event_ack(c->sch, RDMA_CM_EVENT_DISCONNECTED);
	assert_int_equal(rdma_disconnect(c->srv), 0);
	assert_int_equal(rdma_disconnect(c->cli), 0);
	t_no_event(c->cch, 200);
	t_no_event(c->sch, 50);
}

/* Private data at the InfiniBand limits; one byte more fails with EINVAL. */
static void
test_pdata_limits(void **state)
{
	struct conn *c = *state;
	unsigned char buf[256];
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;

	pattern(buf, sizeof(buf), 5);
	c->cli = t_resolve(c->cch, c->port);
	t_create_qp(c->cli);
	memset(&p, 0, sizeof(p));
	p.private_data = buf;
	p.private_data_len = 57;
	errno = 0;
	assert_int_equal(rdma_connect(c->cli, &p), -1);
	assert_int_equal(errno, EINVAL);
	connect_to_request(c, 56);
	t_create_qp(c->srv);
	p.private_data_len = 197;
	errno = 0;
	assert_int_equal(rdma_accept(c->srv, &p), -1);
	assert_int_equal(errno, EINVAL);
	p.private_data_len = 196;
	assert_int_equal(rdma_accept(c->srv, &p), 0);
	ev = t_event(c->cch, RDMA_CM_EVENT_ESTABLISHED);
	check_pdata(ev->param.conn.private_data, 196, 196, 5);
	rdma_ack_cm_event(ev);
	t_event_ack(c->sch, RDMA_CM_EVENT_ESTABLISHED);
	/* simultaneous disconnects: still exactly one event per side */
	assert_int_equal(rdma_disconnect(c->srv), 0);
	assert_int_equal(rdma_disconnect(c->cli), 0);
	t_event_ack(c->cch, RDMA_CM_EVENT_DISCONNECTED);
	t_event_ack(c->sch, RDMA_CM_EVENT_DISCONNECTED);
	t_no_event(c->cch, 200);
	t_no_event(c->sch, 50);
}

/* Reject with 148 bytes: REJECTED with status 28 and the data, zero padded. */
static void
test_reject(void **state)
{
	struct conn *c = *state;
	unsigned char buf[200];
	struct rdma_cm_event *ev;

	pattern(buf, sizeof(buf), 9);
	c->cli = t_resolve(c->cch, c->port);
	t_create_qp(c->cli);
	connect_to_request(c, 0);
	errno = 0;
	assert_int_equal(rdma_reject(c->srv, buf, 149), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(rdma_reject(c->srv, buf, 148), 0);
	ev = t_event(c->cch, RDMA_CM_EVENT_REJECTED);
	assert_int_equal(ev->status, 28);
	assert_int_equal(ev->param.conn.private_data_len, 148);
	check_pdata(ev->param.conn.private_data, 148, 148, 9);
	rdma_ack_cm_event(ev);
	t_no_event(c->sch, 100);
	/* a second, shorter rejection is padded */
	rdma_destroy_qp(c->cli);
	rdma_destroy_id(c->cli);
	rdma_destroy_id(c->srv);
	c->srv = NULL;
	c->cli = t_resolve(c->cch, c->port);
	t_create_qp(c->cli);
	connect_to_request(c, 0);
	assert_int_equal(rdma_reject(c->srv, buf, 3), 0);
	ev = t_event(c->cch, RDMA_CM_EVENT_REJECTED);
	check_pdata(ev->param.conn.private_data, 148, 3, 9);
	rdma_ack_cm_event(ev);
}

/* Nobody listens: REJECTED with status 8 (invalid service id). */
static void
test_no_listener(void **state)
{
	struct conn *c = *state;
	struct rdma_cm_event *ev;

	c->cli = t_resolve(c->cch, t_free_port());
	t_create_qp(c->cli);
	assert_int_equal(rdma_connect(c->cli, NULL), 0);
	ev = t_event(c->cch, RDMA_CM_EVENT_REJECTED);
	assert_int_equal(ev->status, 8);
	rdma_ack_cm_event(ev);
	t_no_event(c->cch, 100);
}

/* A listener that comes up just after the connect still gets the request. */
static void
test_late_listener(void **state)
{
	struct conn *c = *state;
	uint16_t port = t_free_port();
	struct rdma_cm_id *l2;
	struct rdma_cm_event *ev;

	c->cli = t_resolve(c->cch, port);
	t_create_qp(c->cli);
	assert_int_equal(rdma_connect(c->cli, NULL), 0);
	usleep(100000);
	l2 = t_listen(c->sch, port);
	ev = t_event(c->sch, RDMA_CM_EVENT_CONNECT_REQUEST);
	assert_ptr_equal(ev->listen_id, l2);
	c->srv = ev->id;
	rdma_ack_cm_event(ev);
	t_create_qp(c->srv);
	assert_int_equal(rdma_accept(c->srv, NULL), 0);
	t_event_ack(c->cch, RDMA_CM_EVENT_ESTABLISHED);
	t_event_ack(c->sch, RDMA_CM_EVENT_ESTABLISHED);
	exchange(c->cli, c->srv);
	assert_int_equal(rdma_disconnect(c->cli), 0);
	t_event_ack(c->cch, RDMA_CM_EVENT_DISCONNECTED);
	t_event_ack(c->sch, RDMA_CM_EVENT_DISCONNECTED);
	rdma_destroy_qp(c->srv);
	rdma_destroy_id(c->srv);
	c->srv = NULL;
	rdma_destroy_id(l2);
}

/*
 * A listener destroyed while a CONNECT_REQUEST waits on its channel, not
 * taken yet: the request goes with it (no event naming the freed listener
 * is left on the channel, nothing leaks) and the client's connect fails.
 */
static void
test_listener_gone(void **state)
{
	struct conn *c = *state;
	uint16_t port = t_free_port();
	struct rdma_cm_id *l2 = t_listen(c->sch, port);
	struct pollfd pfd = {.fd = c->sch->fd, .events = POLLIN};
	struct rdma_cm_event *ev;

	c->cli = t_resolve(c->cch, port);
	t_create_qp(c->cli);
	assert_int_equal(rdma_connect(c->cli, NULL), 0);
	/* the request is queued once the channel's descriptor is readable */
	assert_int_equal(poll(&pfd, 1, T_WAIT_MS), 1);
	assert_int_equal(rdma_destroy_id(l2), 0);
	t_no_event(c->sch, 200);
	ev = t_try_event(c->cch, T_WAIT_MS);
	assert_non_null(ev);
	if (ev->event != RDMA_CM_EVENT_REJECTED && ev->event != RDMA_CM_EVENT_UNREACHABLE &&
	    ev->event != RDMA_CM_EVENT_CONNECT_ERROR)
		fail_msg("the client got %s", rdma_event_str(ev->event));
	rdma_ack_cm_event(ev);
}

/* The peer accepts the TCP connection but never answers: UNREACHABLE. */
static void
test_unreachable(void **state)
{
	struct conn *c = *state;
	struct sockaddr_in sin = t_lo(0);
	socklen_t len = sizeof(sin);
	struct rdma_cm_event *ev;
	int64_t t0;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	c->cli = t_resolve(c->cch, ntohs(sin.sin_port));
	t_create_qp(c->cli);
	t0 = t_now_ms();
	assert_int_equal(rdma_connect(c->cli, NULL), 0);
	ev = t_event(c->cch, RDMA_CM_EVENT_UNREACHABLE);
	assert_int_equal(ev->status, -ETIMEDOUT);
	assert_true(t_now_ms() - t0 >= 1000);
	rdma_ack_cm_event(ev);
	close(fd);
}

/* Unroutable and invalid destinations fail address resolution. */
static void
test_addr_error(void **state)
{
	struct conn *c = *state;
	struct sockaddr_in bcast = {.sin_family = AF_INET};
	struct sockaddr bad = {.sa_family = AF_UNIX};
	struct rdma_cm_event *ev;

	bcast.sin_addr.s_addr = htonl(INADDR_BROADCAST);
	bcast.sin_port = htons(7471);
	assert_int_equal(rdma_create_id(c->cch, &c->cli, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rdma_resolve_addr(c->cli, NULL, (struct sockaddr *)&bcast, 2000), 0);
	ev = t_event(c->cch, RDMA_CM_EVENT_ADDR_ERROR);
	assert_true(ev->status < 0);
	rdma_ack_cm_event(ev);
	/* no route was resolved: route resolution and connect are refused */
	assert_int_equal(rdma_resolve_route(c->cli, 2000), -1);
	assert_int_equal(rdma_connect(c->cli, NULL), -1);
	assert_int_equal(rdma_resolve_addr(c->cli, NULL, &bad, 2000), -1);
	/* a QP attribute query needs a resolved id */
	{
		struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR};
		int mask;

		assert_int_equal(rdma_init_qp_attr(c->cli, &a, &mask), -1);
	}
}

struct sync_srv {
	uint16_t port;
	int ready;
	int failed;
	int step;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* Server thread of the synchronous test: one request, one message. */
static void *
sync_server(void *arg)
{
	struct sync_srv *s = arg;
	struct rdma_addrinfo hints, *res = NULL;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *l = NULL, *id = NULL;
	struct ibv_mr *mr = NULL;
	char port[16], buf[32] = "";
	struct ibv_wc wc;
	int64_t end;
	int n = 0;

	snprintf(port, sizeof(port), "%u", s->port);
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_port_space = RDMA_PS_TCP;
	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 4;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	attr.sq_sig_all = 1;
	s->step = 1;
	if (rdma_getaddrinfo("127.0.0.1", port, &hints, &res) ||
	    rdma_create_ep(&l, res, NULL, &attr) || rdma_listen(l, 1))
		goto fail;
	pthread_mutex_lock(&s->lock);
	s->ready = 1;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	s->step = 2;
	if (rdma_get_request(l, &id) || !id->qp)
		goto fail;
	s->step = 3;
	mr = rdma_reg_msgs(id, buf, sizeof(buf));
	if (!mr || rdma_post_recv(id, NULL, buf, sizeof(buf), mr))
		goto fail;
	s->step = 4;
	if (rdma_accept(id, NULL))
		goto fail;
	s->step = 5;
	for (end = t_now_ms() + T_WAIT_MS; !n && t_now_ms() < end; usleep(100))
		n = ibv_poll_cq(id->recv_cq, 1, &wc);
	if (n != 1 || wc.status != IBV_WC_SUCCESS || strcmp(buf, "sync hello")) {
		errno = n == 1 ? 1000 + (int)wc.status : ETIMEDOUT;
		goto fail;
	}
	rdma_disconnect(id);
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	rdma_destroy_ep(l);
	rdma_freeaddrinfo(res);
	return NULL;
fail:
	s->failed = errno ? errno : -1;
	pthread_mutex_lock(&s->lock);
	s->ready = 1;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Synchronous ids (rdma_create_ep, rdma_get_request): calls block until done. */
static void
test_sync(void **state)
{
	struct sync_srv s = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
	struct rdma_addrinfo hints, *res;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	char port[16], buf[32] = "sync hello";
	struct ibv_wc wc;
	pthread_t thr;

	(void)state;
	s.port = t_free_port();
	assert_int_equal(pthread_create(&thr, NULL, sync_server, &s), 0);
	pthread_mutex_lock(&s.lock);
	while (!s.ready)
		pthread_cond_wait(&s.cond, &s.lock);
	pthread_mutex_unlock(&s.lock);
	assert_int_equal(s.failed, 0);
	snprintf(port, sizeof(port), "%u", s.port);
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	assert_int_equal(rdma_getaddrinfo("127.0.0.1", port, &hints, &res), 0);
	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 4;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	attr.sq_sig_all = 1;
	assert_int_equal(rdma_create_ep(&id, res, NULL, &attr), 0);
	assert_non_null(id->qp);
	assert_int_equal(rdma_connect(id, NULL), 0);
	mr = rdma_reg_msgs(id, buf, sizeof(buf));
	assert_non_null(mr);
	assert_int_equal(rdma_post_send(id, NULL, buf, 11, mr, 0), 0);
	wc = t_wait_wc(id->send_cq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(pthread_join(thr, NULL), 0);
	if (s.failed)
		fail_msg("sync server failed at step %d: %d", s.step, s.failed);
	rdma_disconnect(id);
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	rdma_freeaddrinfo(res);

	/* a blocking connect to nobody fails with ECONNREFUSED */
	snprintf(port, sizeof(port), "%u", t_free_port());
	assert_int_equal(rdma_getaddrinfo("127.0.0.1", port, &hints, &res), 0);
	/* rdma_create_qp wrote the CQs it made (now gone) into attr: start afresh */
	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 4;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	assert_int_equal(rdma_create_ep(&id, res, NULL, &attr), 0);
	errno = 0;
	assert_int_equal(rdma_connect(id, NULL), -1);
	assert_int_equal(errno, ECONNREFUSED);
	rdma_destroy_ep(id);
	rdma_freeaddrinfo(res);
}

/* rdma_migrate_id moves pending events; later events follow the id. */
static void
test_migrate(void **state)
{
	struct conn *c = *state;
	struct rdma_event_channel *other = rdma_create_event_channel();
	struct sockaddr_in dst = t_lo(c->port);
	struct rdma_cm_event *ev;
	struct rdma_cm_id *sid;

	assert_non_null(other);
	assert_int_equal(rdma_create_id(c->cch, &c->cli, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rdma_resolve_addr(c->cli, NULL, (struct sockaddr *)&dst, 2000), 0);
	/* ADDR_RESOLVED is pending on cch when the id moves */
	usleep(20000);
	assert_int_equal(rdma_migrate_id(c->cli, other), 0);
	assert_ptr_equal(c->cli->channel, other);
	assert_int_equal(fcntl(c->cch->fd, F_SETFL, O_NONBLOCK), 0);
	errno = 0;
	assert_int_equal(rdma_get_cm_event(c->cch, &ev), -1);
	assert_int_equal(errno, EAGAIN);
	ev = t_event(other, RDMA_CM_EVENT_ADDR_RESOLVED);
	assert_ptr_equal(ev->id, c->cli);
	rdma_ack_cm_event(ev);
	assert_int_equal(rdma_resolve_route(c->cli, 2000), 0);
	t_event_ack(other, RDMA_CM_EVENT_ROUTE_RESOLVED);
	t_create_qp(c->cli);
	assert_int_equal(rdma_connect(c->cli, NULL), 0);
	ev = t_event(c->sch, RDMA_CM_EVENT_CONNECT_REQUEST);
	c->srv = ev->id;
	rdma_ack_cm_event(ev);
	/* the passive id moves to its own channel before accepting */
	assert_int_equal(rdma_migrate_id(c->srv, other), 0);
	t_create_qp(c->srv);
	assert_int_equal(rdma_accept(c->srv, NULL), 0);
	ev = t_event(other, RDMA_CM_EVENT_ESTABLISHED);
	rdma_ack_cm_event(ev);
	ev = t_event(other, RDMA_CM_EVENT_ESTABLISHED);
	rdma_ack_cm_event(ev);
	assert_int_equal(fcntl(c->sch->fd, F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(rdma_get_cm_event(c->sch, &ev), -1);
	exchange(c->cli, c->srv);
	assert_int_equal(rdma_disconnect(c->cli), 0);
	t_event_ack(other, RDMA_CM_EVENT_DISCONNECTED);
	t_event_ack(other, RDMA_CM_EVENT_DISCONNECTED);
	rdma_destroy_qp(c->cli);
	rdma_destroy_id(c->cli);
	rdma_destroy_qp(c->srv);
	rdma_destroy_id(c->srv);
	c->cli = c->srv = NULL;

	/* a synchronous id becomes asynchronous */
	assert_int_equal(rdma_create_id(NULL, &sid, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rdma_resolve_addr(sid, NULL, (struct sockaddr *)&dst, 2000), 0);
	assert_int_equal(rdma_migrate_id(sid, other), 0);
	assert_int_equal(rdma_resolve_route(sid, 2000), 0);
	ev = t_event(other, RDMA_CM_EVENT_ROUTE_RESOLVED);
	assert_ptr_equal(ev->id, sid);
	rdma_ack_cm_event(ev);
	rdma_destroy_id(sid);
	rdma_destroy_event_channel(other);
	/* restore blocking mode for teardown */
	fcntl(c->cch->fd, F_SETFL, 0);
	fcntl(c->sch->fd, F_SETFL, 0);
}

/* Move a self-created QP through INIT, RTR and RTS with rdma_init_qp_attr. */
static void
self_modify(struct rdma_cm_id *id, struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	int mask;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	assert_int_equal(rdma_init_qp_attr(id, &a, &mask), 0);
	assert_int_equal(mask & (IBV_QP_STATE | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
			 IBV_QP_STATE | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	assert_int_equal(a.port_num, 1);
	assert_int_equal(ibv_modify_qp(qp, &a, mask), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	assert_int_equal(rdma_init_qp_attr(id, &a, &mask), 0);
	assert_true(mask & IBV_QP_DEST_QPN);
	assert_true(mask & IBV_QP_AV);
	assert_int_not_equal(a.dest_qp_num, 0);
	assert_int_equal(ibv_modify_qp(qp, &a, mask), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	assert_int_equal(rdma_init_qp_attr(id, &a, &mask), 0);
	assert_true(mask & IBV_QP_SQ_PSN);
	assert_int_equal(ibv_modify_qp(qp, &a, mask), 0);
}

/* No QP on the id: CONNECT_RESPONSE, then rdma_establish; passive side ESTABLISHED. */
static void
test_establish(void **state)
{
	struct conn *c = *state;
	struct ibv_qp_init_attr ia;
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	char sbuf[32] = "after establish", rbuf[32] = "";
	struct ibv_mr *smr, *rmr;
	unsigned char apd[8];

	c->cli = t_resolve(c->cch, c->port);
	pd = ibv_alloc_pd(c->cli->verbs);
	cq = ibv_create_cq(c->cli->verbs, 8, NULL, NULL, 0);
	assert_non_null(pd);
	assert_non_null(cq);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &ia);
	assert_non_null(qp);
	memset(&p, 0, sizeof(p));
	p.qp_num = qp->qp_num;
	p.rnr_retry_count = 7;
	assert_int_equal(rdma_connect(c->cli, &p), 0);
	ev = t_event(c->sch, RDMA_CM_EVENT_CONNECT_REQUEST);
	assert_int_equal(ev->param.conn.qp_num, qp->qp_num);
	c->srv = ev->id;
	rdma_ack_cm_event(ev);
	t_create_qp(c->srv);
	pattern(apd, sizeof(apd), 4);
	memset(&p, 0, sizeof(p));
	p.private_data = apd;
	p.private_data_len = sizeof(apd);
	assert_int_equal(rdma_accept(c->srv, &p), 0);
	ev = t_event(c->cch, RDMA_CM_EVENT_CONNECT_RESPONSE);
	assert_int_equal(ev->param.conn.private_data_len, 196);
	check_pdata(ev->param.conn.private_data, 196, sizeof(apd), 4);
	assert_int_equal(ev->param.conn.qp_num, c->srv->qp->qp_num);
	rdma_ack_cm_event(ev);
	t_no_event(c->sch, 50);
	self_modify(c->cli, qp);
	assert_int_equal(rdma_establish(c->cli), 0);
	t_event_ack(c->sch, RDMA_CM_EVENT_ESTABLISHED);
	t_no_event(c->cch, 100);
	/* data both ways */
	smr = ibv_reg_mr(pd, sbuf, sizeof(sbuf), IBV_ACCESS_LOCAL_WRITE);
	rmr = ibv_reg_mr(pd, rbuf, sizeof(rbuf), IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(smr);
	assert_non_null(rmr);
	t_post_recv(qp, rmr, rbuf, sizeof(rbuf), 1);
	{
		char b2[32] = "to the active side", r2[32] = "";
		struct ibv_mr *m2 = ibv_reg_mr(c->srv->pd, b2, sizeof(b2), IBV_ACCESS_LOCAL_WRITE);
		struct ibv_mr *m3 = ibv_reg_mr(c->srv->pd, r2, sizeof(r2), IBV_ACCESS_LOCAL_WRITE);

		t_post_recv(c->srv->qp, m3, r2, sizeof(r2), 2);
		assert_int_equal(
		    t_post(qp, IBV_WR_SEND, sbuf, 16, smr->lkey, 0, 0, IBV_SEND_SIGNALED, 3), 0);
		assert_int_equal(t_wait_wc(c->srv->recv_cq).status, IBV_WC_SUCCESS);
		assert_string_equal(r2, "after establish");
		assert_int_equal(
		    t_post(c->srv->qp, IBV_WR_SEND, b2, 19, m2->lkey, 0, 0, IBV_SEND_SIGNALED, 4),
		    0);
		assert_int_equal(t_wait_wc(c->srv->send_cq).status, IBV_WC_SUCCESS);
		ibv_dereg_mr(m2);
		ibv_dereg_mr(m3);
	}
	/* cq holds the client's send completion and its receive */
	assert_int_equal(t_wait_wc(cq).status, IBV_WC_SUCCESS);
	assert_int_equal(t_wait_wc(cq).status, IBV_WC_SUCCESS);
	assert_string_equal(rbuf, "to the active side");
	assert_int_equal(rdma_disconnect(c->cli), 0);
	t_event_ack(c->cch, RDMA_CM_EVENT_DISCONNECTED);
	t_event_ack(c->sch, RDMA_CM_EVENT_DISCONNECTED);
	ibv_dereg_mr(smr);
	ibv_dereg_mr(rmr);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
}

/* rdma_create_qp_ex with caller-made CQs; a second QP on the id is refused. */
static void
test_create_qp_ex(void **state)
{
	struct conn *c = *state;
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_cq *cq;
	struct ibv_pd *pd;

	c->cli = t_resolve(c->cch, c->port);
	pd = ibv_alloc_pd(c->cli->verbs);
	cq = ibv_create_cq(c->cli->verbs, 8, NULL, NULL, 0);
	assert_non_null(pd);
	assert_non_null(cq);
	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_RC;
	a.send_cq = a.recv_cq = cq;
	a.cap.max_send_wr = a.cap.max_recv_wr = 4;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	a.pd = pd;
	assert_int_equal(rdma_create_qp_ex(c->cli, &a), 0);
	assert_non_null(c->cli->qp);
	assert_int_equal(ibv_query_qp(c->cli->qp, &qa, IBV_QP_STATE, &qi), 0);
	assert_int_equal(qa.qp_state, IBV_QPS_INIT);
	errno = 0;
	assert_int_equal(rdma_create_qp_ex(c->cli, &a), -1);
	assert_int_equal(errno, EINVAL);
	rdma_destroy_qp(c->cli);
	assert_null(c->cli->qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
}

/* Run the CM tests with short CM timers. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_event_str),
	    cmocka_unit_test(test_getaddrinfo),
	    cmocka_unit_test_setup_teardown(test_connect_accept, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pdata_limits, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reject, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_listener, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_late_listener, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_listener_gone, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unreachable, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_addr_error, setup, teardown),
	    cmocka_unit_test(test_sync),
	    cmocka_unit_test_setup_teardown(test_migrate, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_establish, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_create_qp_ex, setup, teardown),
	};

	/* short CM timers keep the timeout and no-listener cases quick */
	setenv("SOFTRDMA_CM_TIMEOUT_MS", "3000", 0);
	setenv("SOFTRDMA_CM_REJECT_GRACE_MS", "1000", 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
