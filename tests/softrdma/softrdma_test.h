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
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <cmocka.h>

#include "rc_qp.h"

#define T_WAIT_MS 10000

/* Local write plus remote write and read: what most QPs and MRs here allow. */
#define T_ACCESS_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

/* Milliseconds of CLOCK_MONOTONIC. */
static inline int64_t
t_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Poll @cq until one completion arrives; fail after T_WAIT_MS. */
static inline struct ibv_wc
t_wait_wc(struct ibv_cq *cq)
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
static inline void
t_no_wc(struct ibv_cq *cq, int ms)
{
	int64_t end = t_now_ms() + ms;
	struct ibv_wc wc;

	while (t_now_ms() < end) {
		assert_int_equal(ibv_poll_cq(cq, 1, &wc), 0);
		usleep(1000);
	}
}

/* Wait up to @ms for the next CM event on @ch; NULL on timeout. */
static inline struct rdma_cm_event *
t_try_event(struct rdma_event_channel *ch, int ms)
{
	struct pollfd pfd = {.fd = ch->fd, .events = POLLIN};
	struct rdma_cm_event *ev = NULL;

	if (poll(&pfd, 1, ms) != 1)
		return NULL;
	if (rdma_get_cm_event(ch, &ev))
		return NULL;
	return ev;
}

/* Next CM event on @ch, which must be of type @type (caller acks it). */
static inline struct rdma_cm_event *
t_event(struct rdma_event_channel *ch, enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev = t_try_event(ch, T_WAIT_MS);

	if (!ev)
		fail_msg("no CM event (wanted %s)", rdma_event_str(type));
	if (ev->event != type)
		fail_msg("got %s (status %d), wanted %s", rdma_event_str(ev->event), ev->status,
			 rdma_event_str(type));
	return ev;
}

/* Wait for an event of @type on @ch and acknowledge it. */
static inline void
t_event_ack(struct rdma_event_channel *ch, enum rdma_cm_event_type type)
{
	assert_int_equal(rdma_ack_cm_event(t_event(ch, type)), 0);
}

/* Assert that no CM event shows up on @ch within @ms. */
static inline void
t_no_event(struct rdma_event_channel *ch, int ms)
{
	struct rdma_cm_event *ev = t_try_event(ch, ms);

	if (ev)
		fail_msg("unexpected %s (status %d)", rdma_event_str(ev->event), ev->status);
}

/*
 * An rdma_cm port on 127.0.0.1 whose TCP port (the same, plus
 * SOFTRDMA_CM_PORT_OFFSET) nothing holds right now, below 32768: a port the
 * kernel hands out (bind to 0) may be taken again at once as the ephemeral
 * port of an outgoing connection, the test's own client's included, and the
 * test's listener then fails to bind it.
 */
static inline uint16_t
t_free_port(void)
{
	const char *env = getenv("SOFTRDMA_CM_PORT_OFFSET");
	int offset = env ? atoi(env) : 0;
	unsigned i;

	for (i = 0; i < 200; i++) {
		uint16_t p =
		    (uint16_t)(22000 +
			       ((unsigned)getpid() * 7 + i * 131 + (unsigned)rand()) % 10000);
		struct sockaddr_in sin = {.sin_family = AF_INET};
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int ok;

		assert_true(fd >= 0);
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sin.sin_port = htons((uint16_t)(p + offset));
		ok = bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0;
		close(fd);
		if (ok)
			return p;
	}
	fail_msg("no free port below 32768");
	return 0;
}

/* 127.0.0.1:@port as a sockaddr_in. */
static inline struct sockaddr_in
t_lo(uint16_t port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	return sin;
}

/* Create a listener on 127.0.0.1:@port (0 = any) with events on @ch. */
static inline struct rdma_cm_id *
t_listen(struct rdma_event_channel *ch, uint16_t port)
{
	struct sockaddr_in sin = t_lo(port);
	struct rdma_cm_id *id;

	assert_int_equal(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rdma_bind_addr(id, (struct sockaddr *)&sin), 0);
	assert_int_equal(rdma_listen(id, 8), 0);
	return id;
}

/* Create an id on @ch and resolve address and route towards 127.0.0.1:@port. */
static inline struct rdma_cm_id *
t_resolve(struct rdma_event_channel *ch, uint16_t port)
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

/*
 * Init attributes of an RC QP on @cq (NULL: CQs made by rdma_create_qp())
 * with @send_wr and @recv_wr WRs of @sge SGEs each.
 */
static inline struct ibv_qp_init_attr
t_rc_attr(struct ibv_cq *cq, uint32_t send_wr, uint32_t recv_wr, uint32_t sge)
{
	struct ibv_qp_init_attr a;

	memset(&a, 0, sizeof(a));
	a.send_cq = cq;
	a.recv_cq = cq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = send_wr;
	a.cap.max_recv_wr = recv_wr;
	a.cap.max_send_sge = sge;
	a.cap.max_recv_sge = sge;
	return a;
}

/* Create an RC QP with CM-made CQs on @id. */
static inline void
t_create_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr a = t_rc_attr(NULL, 8, 8, 1);

	assert_int_equal(rdma_create_qp(id, NULL, &a), 0);
	assert_non_null(id->qp);
}

/* Open the first device (softrdma0); NULL when there is none or it fails. */
static inline struct ibv_context *
t_try_open_dev(void)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	if (!l)
		return NULL;
	if (l[0])
		ctx = ibv_open_device(l[0]);
	ibv_free_device_list(l);
	return ctx;
}

/* Open the first device (softrdma0), which must exist and open. */
static inline struct ibv_context *
t_open_dev(void)
{
	struct ibv_context *ctx = t_try_open_dev();

	assert_non_null(ctx);
	return ctx;
}

/*
 * Drive @qp through INIT and RTR to RTS towards QP number @remote on
 * 127.0.0.1 (MTU 1024, one READ or atomic in flight each way), with QP access
 * flags @access and @rnr_retry RNR retries. Returns 0 or the error of the
 * first ibv_modify_qp() that failed.
 */
static inline int
t_qp_to_rts(struct ibv_qp *qp, uint32_t remote, int access, int rnr_retry)
{
	struct rc_qp_path p = {.dest_qpn = remote,
			       .access = access,
			       .rnr_retry = (uint8_t)rnr_retry,
			       .mtu = IBV_MTU_1024,
			       .rd_atomic = 1,
			       .loopback = 1};

	return rc_qp_to_rts(qp, &p);
}

/* t_qp_to_rts(), which must succeed. */
static inline void
t_connect_qp(struct ibv_qp *qp, uint32_t remote, int access, int rnr_retry)
{
	assert_int_equal(t_qp_to_rts(qp, remote, access, rnr_retry), 0);
}

/* How t_pair_new() builds a pair. */
struct t_pair_cfg {
	int cqe;	     /* entries of each CQ */
	int channel;	     /* both CQs report to one completion channel */
	uint32_t send_wr;    /* send queue entries of each QP */
	uint32_t recv_wr;    /* receive queue entries of each QP */
	uint32_t sge;	     /* SGEs of each send and receive WR */
	uint32_t max_inline; /* inline data bytes of each QP */
	size_t len;	     /* bytes of each side's buffer */
	int access[2];	     /* QP access flags of each side */
	int rnr_retry[2];    /* RNR retries of each side */
};

/*
 * Two RC QPs of one process connected to each other over 127.0.0.1, each
 * with its own CQ and a zeroed, page-aligned buffer registered with
 * T_ACCESS_ALL. A test may unmap a buffer or deregister an MR and set the
 * pointer to NULL.
 */
struct t_pair {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
	char *buf[2];
	struct ibv_mr *mr[2];
	size_t len;
};

/* Build and connect a pair as @c says. */
static inline struct t_pair *
t_pair_new(const struct t_pair_cfg *c)
{
	struct t_pair *p = calloc(1, sizeof(*p));
	struct ibv_qp_init_attr ia;
	int i;

	assert_non_null(p);
	p->len = c->len;
	p->ctx = t_open_dev();
	p->pd = ibv_alloc_pd(p->ctx);
	assert_non_null(p->pd);
	if (c->channel) {
		p->ch = ibv_create_comp_channel(p->ctx);
		assert_non_null(p->ch);
	}
	for (i = 0; i < 2; i++) {
		p->cq[i] = ibv_create_cq(p->ctx, c->cqe, NULL, p->ch, 0);
		assert_non_null(p->cq[i]);
		ia = t_rc_attr(p->cq[i], c->send_wr, c->recv_wr, c->sge);
		ia.cap.max_inline_data = c->max_inline;
		p->qp[i] = ibv_create_qp(p->pd, &ia);
		assert_non_null(p->qp[i]);
		p->buf[i] =
		    mmap(NULL, p->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		assert_true(p->buf[i] != MAP_FAILED);
		p->mr[i] = ibv_reg_mr(p->pd, p->buf[i], p->len, T_ACCESS_ALL);
		assert_non_null(p->mr[i]);
	}
	t_connect_qp(p->qp[0], p->qp[1]->qp_num, c->access[0], c->rnr_retry[0]);
	t_connect_qp(p->qp[1], p->qp[0]->qp_num, c->access[1], c->rnr_retry[1]);
	return p;
}

/*
 * Take the pages of [@addr, @addr + @len) from the process as munmap would,
 * but leave an inaccessible mapping in their place in the same call: a hole
 * would be free for the next mmap of any thread (an allocator's, a
 * sanitizer's), and a remote access meant to find nothing there could land in
 * that new memory and succeed. The placeholder is munmap'ed like the buffer.
 */
static inline void
t_unmap_pages(void *addr, size_t len)
{
	assert_true(mmap(addr, len, PROT_NONE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
		    addr);
}

/* Release a pair; buffers and MRs set to NULL are skipped. */
static inline void
t_pair_free(struct t_pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		ibv_destroy_qp(p->qp[i]);
		if (p->mr[i])
			ibv_dereg_mr(p->mr[i]);
		if (p->buf[i])
			munmap(p->buf[i], p->len);
		ibv_destroy_cq(p->cq[i]);
	}
	if (p->ch)
		ibv_destroy_comp_channel(p->ch);
	ibv_dealloc_pd(p->pd);
	ibv_close_device(p->ctx);
	free(p);
}

/* Post one receive of @len bytes at @buf. */
static inline void
t_post_recv(struct ibv_qp *qp, struct ibv_mr *mr, void *buf, uint32_t len, uint64_t wr_id)
{
	struct ibv_sge s = {.addr = (uintptr_t)buf, .length = len, .lkey = mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = wr_id, .sg_list = &s, .num_sge = 1}, *bad;

	assert_int_equal(ibv_post_recv(qp, &wr, &bad), 0);
}

/* Post one send WR; returns the ibv_post_send result. */
static inline int
t_post(struct ibv_qp *qp, enum ibv_wr_opcode op, void *buf, uint32_t len, uint32_t lkey,
       uint64_t raddr, uint32_t rkey, int flags, uint64_t wr_id)
{
	struct ibv_sge s = {.addr = (uintptr_t)buf, .length = len, .lkey = lkey};
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
