/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by softrdma's cmocka tests: bounded waits for completions
 * and CM events, free ports, and the rdma_cm client/server steps. Every wait
 * is bounded so a broken library makes a test fail instead of hang.
 */
#ifndef SOFTRDMA_TEST_H
#define SOFTRDMA_TEST_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define T_WAIT_MS 10000

/* Milliseconds of CLOCK_MONOTONIC. */
static inline int64_t t_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Poll @cq until one completion arrives; fail after T_WAIT_MS. */
static inline struct ibv_wc t_wait_wc(struct ibv_cq *cq)
{
	int64_t end = t_now_ms() + T_WAIT_MS;
	struct ibv_wc wc;
	int n;

	memset(&wc, 0, sizeof(wc));
	while (t_now_ms() < end) {
		n = ibv_poll_cq(cq, 1, &wc);
		assert_true(n >= 0);
		if (n)
			return wc;
		usleep(100);
	}
	fail_msg("no completion within %d ms", T_WAIT_MS);
	return wc;
}

/* Assert that @cq stays empty for @ms milliseconds. */
static inline void t_no_wc(struct ibv_cq *cq, int ms)
{
	int64_t end = t_now_ms() + ms;
	struct ibv_wc wc;

	while (t_now_ms() < end) {
		assert_int_equal(ibv_poll_cq(cq, 1, &wc), 0);
		usleep(1000);
	}
}

/* Wait up to @ms for the next CM event on @ch; NULL on timeout. */
static inline struct rdma_cm_event *t_try_event(struct rdma_event_channel *ch, int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev = NULL;

	if (poll(&pfd, 1, ms) != 1)
		return NULL;
	if (rdma_get_cm_event(ch, &ev))
		return NULL;
	return ev;
}

/* Next CM event on @ch, which must be of type @type (caller acks it). */
static inline struct rdma_cm_event *t_event(struct rdma_event_channel *ch,
					    enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev = t_try_event(ch, T_WAIT_MS);

	if (!ev)
		fail_msg("no CM event (wanted %s)", rdma_event_str(type));
	if (ev->event != type)
		fail_msg("got %s (status %d), wanted %s", rdma_event_str(ev->event),
			 ev->status, rdma_event_str(type));
	return ev;
}

/* Wait for an event of @type on @ch and acknowledge it. */
static inline void t_event_ack(struct rdma_event_channel *ch, enum rdma_cm_event_type type)
{
	assert_int_equal(rdma_ack_cm_event(t_event(ch, type)), 0);
}

/* Assert that no CM event shows up on @ch within @ms. */
static inline void t_no_event(struct rdma_event_channel *ch, int ms)
{
	struct rdma_cm_event *ev = t_try_event(ch, ms);

	if (ev)
		fail_msg("unexpected %s (status %d)", rdma_event_str(ev->event), ev->status);
}

/* A TCP port on 127.0.0.1 that nothing listens on right now. */
static inline uint16_t t_free_port(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	close(fd);
	return ntohs(sin.sin_port);
}

/* 127.0.0.1:@port as a sockaddr_in. */
static inline struct sockaddr_in t_lo(uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	return sin;
}

/* Create a listener on 127.0.0.1:@port (0 = any) with events on @ch. */
static inline struct rdma_cm_id *t_listen(struct rdma_event_channel *ch, uint16_t port)
{
	struct sockaddr_in sin = t_lo(port);
	struct rdma_cm_id *id;

	assert_int_equal(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rdma_bind_addr(id, (struct sockaddr *)&sin), 0);
	assert_int_equal(rdma_listen(id, 8), 0);
	return id;
}

/* Create an id on @ch and resolve address and route towards 127.0.0.1:@port. */
static inline struct rdma_cm_id *t_resolve(struct rdma_event_channel *ch, uint16_t port)
{
	struct sockaddr_in dst = t_lo(port);
	struct rdma_cm_id *id;

	assert_int_equal(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000), 0);
	t_event_ack(ch, RDMA_CM_EVENT_ADDR_RESOLVED);
	assert_int_equal(rdma_resolve_route(id, 2000), 0);
	t_event_ack(ch, RDMA_CM_EVENT_ROUTE_RESOLVED);
	return id;
}

/* Create an RC QP with CM-made CQs on @id. */
static inline void t_create_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = 8;
	a.cap.max_recv_wr = 8;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	assert_int_equal(rdma_create_qp(id, NULL, &a), 0);
	assert_non_null(id->qp);
}

/* Post one receive of @len bytes at @buf. */
static inline void t_post_recv(struct ibv_qp *qp, struct ibv_mr *mr, void *buf, uint32_t len,
			       uint64_t wr_id)
{
	struct ibv_sge s = { .addr = (uintptr_t)buf, .length = len, .lkey = mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &s, .num_sge = 1 }, *bad;

	assert_int_equal(ibv_post_recv(qp, &wr, &bad), 0);
}

/* Post one send WR; returns the ibv_post_send result. */
static inline int t_post(struct ibv_qp *qp, enum ibv_wr_opcode op, void *buf, uint32_t len,
			 uint32_t lkey, uint64_t raddr, uint32_t rkey, int flags, uint64_t wr_id)
{
	struct ibv_sge s = { .addr = (uintptr_t)buf, .length = len, .lkey = lkey };
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = flags;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

#endif
