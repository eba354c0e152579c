/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_shared_cq.c -- CQs shared by connections (rpma_cq_new()) between two
 * processes over softrdma. This process serves N connections (1, 8, 64) of
 * a client process (this program run again as "client PORT N") with one
 * send CQ and one receive CQ on one completion channel, watched with epoll,
 * and a shared receive queue without a CQ of its own, so that every receive
 * completes on the shared receive CQ. Each side sends ROUNDS messages on
 * every connection; each completion is routed to its connection by qp_num
 * and checked against what the message says. A CQ in use cannot be
 * deleted; once every connection is gone, it can.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"

#define MAX_CONNS    64
#define ROUNDS	     4
#define MAGIC_ASK    0x41534b21u /* a client's message */
#define MAGIC_ANSWER 0x414e5321u /* the server's answer */
#define RECV_SLOTS   (2 * MAX_CONNS)
#define SEND_OFF     ((size_t)RECV_SLOTS * T_MSG) /* answers: ROUNDS slots per connection */
#define BUF_SIZE     (SEND_OFF + (size_t)MAX_CONNS * ROUNDS * T_MSG)

/* one message, either way */
struct msg {
	uint32_t magic;
	uint32_t idx;	/* the connection, as the client numbers them */
	uint32_t round; /* 0 .. ROUNDS - 1 */
	uint32_t qpn;	/* in an answer: the server's qp_num of the connection */
};

/* the server side: everything this process makes for one test */
static struct {
	int n;
	struct rpma_peer *peer;
	struct rpma_cq *scq, *rcq; /* on one completion channel */
	struct rpma_srq *srq;
	struct rpma_conn_cfg *cfg;
	struct rpma_mr_local *mr;
	uint8_t *buf;
	struct rpma_ep *ep;
	struct rpma_conn *conns[MAX_CONNS];
	uint32_t qpn[MAX_CONNS];
	int received[MAX_CONNS]; /* messages received on the connection */
	int answered[MAX_CONNS]; /* send completions of answers */
	int events_scq, events_rcq;
	int epfd;
	struct t_srv client;
} S;

/* ---------------------------------------------------------------- client */

/* client_die -- report a failure of the client process and end it */
static void __attribute__((noreturn, format(printf, 1, 2))) client_die(const char *fmt, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	printf("ERR %s (%s)\n", text, rpma_errormsg());
	fflush(stdout);
	exit(1);
}

#define C_CHECK(call)                                                                              \
	do {                                                                                       \
		int ret_ = (call);                                                                 \
		if (ret_)                                                                          \
			client_die("%s: %s", #call, rpma_err_2str(ret_));                          \
	} while (0)

/* the client's connections, its buffer (send slot i, then receive slot i) */
static struct {
	struct rpma_peer *peer;
	struct rpma_mr_local *mr;
	uint8_t *buf;
	struct rpma_conn *conns[MAX_CONNS];
} C;

/* client_connect -- connection idx, its first answer's receive posted, established */
static void
client_connect(const char *port, uint32_t idx)
{
	struct rpma_conn_private_data pd = {.ptr = &idx, .len = sizeof(idx)};
	struct rpma_conn_cfg *cfg;
	struct rpma_conn_req *req;
	enum rpma_conn_event ev;

	C_CHECK(rpma_conn_cfg_new(&cfg));
	C_CHECK(rpma_conn_cfg_set_cq_size(cfg, 2 * ROUNDS + 2));
	C_CHECK(rpma_conn_req_new(C.peer, T_ADDR, port, cfg, &req));
	C_CHECK(rpma_conn_cfg_delete(&cfg));
	C_CHECK(rpma_conn_req_recv(req, C.mr, (2 * idx + 1) * T_MSG, T_MSG,
				   (void *)(uintptr_t)(0x10000 + idx)));
	C_CHECK(rpma_conn_req_connect(&req, &pd, &C.conns[idx]));
	C_CHECK(t_wait_event(C.conns[idx], &ev, T_WAIT_MS));
	if (ev != RPMA_CONN_ESTABLISHED)
		client_die("connection %u: event %d", idx, (int)ev);
}

/* client_ask -- send message round of connection idx */
static void
client_ask(uint32_t idx, uint32_t round)
{
	struct msg m = {MAGIC_ASK, idx, round, 0};

	memcpy(C.buf + 2 * idx * T_MSG, &m, sizeof(m));
	C_CHECK(rpma_send(C.conns[idx], C.mr, 2 * idx * T_MSG, sizeof(m), RPMA_F_COMPLETION_ALWAYS,
			  (void *)(uintptr_t)idx));
}

/* client_check_answer -- the answer of round on connection idx, with the next receive posted */
static void
client_check_answer(uint32_t idx, uint32_t round)
{
	struct msg m;

	memcpy(&m, C.buf + (2 * idx + 1) * T_MSG, sizeof(m));
	if (m.magic != MAGIC_ANSWER || m.idx != idx || m.round != round)
		client_die("connection %u round %u: answer %x %u %u", idx, round, m.magic, m.idx,
			   m.round);
	if (round + 1 < ROUNDS)
		C_CHECK(rpma_recv(C.conns[idx], C.mr, (2 * idx + 1) * T_MSG, T_MSG,
				  (void *)(uintptr_t)(0x10000 + idx)));
}

/* client_wait -- the send completion and the answer of round on connection idx */
static void
client_wait(uint32_t idx, uint32_t round)
{
	struct rpma_cq *cq;
	struct ibv_wc wc;
	bool sent = false, answered = false;

	C_CHECK(rpma_conn_get_cq(C.conns[idx], &cq));
	while (!sent || !answered) {
		C_CHECK(t_wait_wc(cq, &wc, T_WAIT_MS));
		if (wc.status != IBV_WC_SUCCESS)
			client_die("connection %u: %s", idx, ibv_wc_status_str(wc.status));
		if (wc.opcode == IBV_WC_SEND && wc.wr_id == idx)
			sent = true;
		else if (wc.opcode == IBV_WC_RECV && wc.wr_id == 0x10000 + idx)
			answered = true;
		else
			client_die("connection %u: opcode %d wr_id %lx", idx, (int)wc.opcode,
				   (unsigned long)wc.wr_id);
	}
	client_check_answer(idx, round);
}

/* client_main -- connect n times, ask ROUNDS times on each, check the answers, disconnect */
static int
client_main(const char *port, int n)
{
	alarm(120);
	C.peer = t_peer_new();
	C.buf = aligned_alloc(4096, BUF_SIZE);
	if (C.peer == NULL || C.buf == NULL || n < 1 || n > MAX_CONNS)
		client_die("no peer, no memory or a bad count %d", n);
	C_CHECK(
	    rpma_mr_reg(C.peer, C.buf, BUF_SIZE, RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &C.mr));
	for (int i = 0; i < n; i++)
		client_connect(port, (uint32_t)i);
	for (uint32_t r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < n; i++)
			client_ask((uint32_t)i, r);
		for (int i = 0; i < n; i++)
			client_wait((uint32_t)i, r);
	}
	for (int i = 0; i < n; i++)
		C_CHECK(t_close(&C.conns[i]));
	C_CHECK(rpma_mr_dereg(&C.mr));
	C_CHECK(rpma_peer_delete(&C.peer));
	free(C.buf);
	printf("DONE\n");
	return 0;
}

/* ---------------------------------------------------------------- server */

/* conn_of -- the connection of a completion's qp_num, or -1 */
static int
conn_of(uint32_t qpn)
{
	for (int i = 0; i < S.n; i++)
		if (S.conns[i] && S.qpn[i] == qpn)
			return i;
	return -1;
}

/*
 * server_setup -- the CQs on one channel (watched by epoll), the shared
 * receive queue with its buffers posted, the configuration naming them, the
 * endpoint, and the client process started
 */
static void
server_setup(int n)
{
	struct rpma_srq_cfg *scfg;
	struct epoll_event ev = {.events = EPOLLIN};
	char port[16];
	int fd = -1, rfd = -2;

	memset(&S, 0, sizeof(S));
	S.n = n;
	assert_int_equal(t_setup_peer(&S.peer, 120), 0);
	assert_int_equal(rpma_cq_new(S.peer, n * ROUNDS + 8, NULL, &S.scq), 0);
	assert_int_equal(rpma_cq_new(S.peer, RECV_SLOTS + 8, S.scq, &S.rcq), 0);
	assert_int_equal(rpma_cq_get_fd(S.scq, &fd), 0);
	assert_int_equal(rpma_cq_get_fd(S.rcq, &rfd), 0);
	assert_int_equal(fd, rfd);
	assert_int_equal(rpma_cq_wait(S.scq), RPMA_E_SHARED_CHANNEL);
	assert_int_equal(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
	S.epfd = epoll_create1(EPOLL_CLOEXEC);
	assert_true(S.epfd >= 0);
	assert_int_equal(epoll_ctl(S.epfd, EPOLL_CTL_ADD, fd, &ev), 0);

	assert_int_equal(rpma_srq_cfg_new(&scfg), 0);
	assert_int_equal(rpma_srq_cfg_set_rq_size(scfg, RECV_SLOTS), 0);
	assert_int_equal(rpma_srq_cfg_set_rcq_size(scfg, 0), 0);
	assert_int_equal(rpma_srq_new(S.peer, scfg, &S.srq), 0);
	assert_int_equal(rpma_srq_cfg_delete(&scfg), 0);

	S.buf = aligned_alloc(4096, BUF_SIZE);
	assert_non_null(S.buf);
	assert_int_equal(
	    rpma_mr_reg(S.peer, S.buf, BUF_SIZE, RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &S.mr),
	    0);
	for (int s = 0; s < 2 * n; s++)
		assert_int_equal(
		    rpma_srq_recv(S.srq, S.mr, (size_t)s * T_MSG, T_MSG, (void *)(uintptr_t)s), 0);

	assert_int_equal(rpma_conn_cfg_new(&S.cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_cq(S.cfg, S.scq), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq(S.cfg, S.rcq), 0);
	assert_int_equal(rpma_conn_cfg_set_srq(S.cfg, S.srq), 0);
	assert_int_equal(rpma_conn_cfg_set_sq_size(S.cfg, ROUNDS + 2), 0);

	int ret = RPMA_E_PROVIDER;

	for (int attempt = 0; attempt < 8 && ret; attempt++)
		ret = rpma_ep_listen(S.peer, T_ADDR, t_next_port(port, sizeof(port)), &S.ep);
	assert_int_equal(ret, 0);

	char count[16];
	const char *opts[] = {count, NULL};

	snprintf(count, sizeof(count), "%d", n);
	assert_int_equal(t_prog_exec(&S.client, "/proc/self/exe", "client", port, opts), 0);
}

/* server_accept -- take the n requests, accept each and wait until it is established */
static void
server_accept(void)
{
	struct pollfd pfd = {.events = POLLIN};

	assert_int_equal(rpma_ep_get_fd(S.ep, &pfd.fd), 0);
	for (int i = 0; i < S.n; i++) {
		struct rpma_conn_private_data pd;
		struct rpma_conn_req *req = NULL;
		struct rpma_conn *conn = NULL;
		struct rpma_cq *cq = NULL, *rcq = NULL;
		enum rpma_conn_event ev;
		uint32_t idx;

		assert_int_equal(poll(&pfd, 1, T_WAIT_MS), 1);
		assert_int_equal(rpma_ep_next_conn_req(S.ep, S.cfg, &req), 0);
		assert_int_equal(rpma_conn_req_get_private_data(req, &pd), 0);
		/* the transport may pad the private data (RDMA CM to 56 bytes) */
		assert_true(pd.len >= sizeof(idx));
		memcpy(&idx, pd.ptr, sizeof(idx));
		assert_true(idx < (uint32_t)S.n && S.conns[idx] == NULL);
		assert_int_equal(rpma_conn_req_connect(&req, NULL, &conn), 0);
		assert_int_equal(t_wait_event(conn, &ev, T_WAIT_MS), 0);
		assert_int_equal(ev, RPMA_CONN_ESTABLISHED);
		assert_int_equal(rpma_conn_get_cq(conn, &cq), 0);
		assert_int_equal(rpma_conn_get_rcq(conn, &rcq), 0);
		assert_ptr_equal(cq, S.scq);
		assert_ptr_equal(rcq, S.rcq);
		assert_int_equal(rpma_conn_get_qp_num(conn, &S.qpn[idx]), 0);
		assert_int_equal(conn_of(S.qpn[idx]), -1); /* every QP has its own number */
		S.conns[idx] = conn;
	}
}

/* server_answer -- a client's message came in slot on connection j: answer it, repost the slot */
static void
server_answer(int j, uint64_t slot)
{
	struct msg m;

	assert_true(slot < RECV_SLOTS);
	memcpy(&m, S.buf + slot * T_MSG, sizeof(m));
	assert_int_equal(m.magic, MAGIC_ASK);
	/* the completion's qp_num named the connection the message says it came on */
	assert_int_equal(m.idx, j);
	assert_int_equal(m.round, S.received[j]);
	S.received[j]++;
	assert_int_equal(rpma_srq_recv(S.srq, S.mr, slot * T_MSG, T_MSG, (void *)(uintptr_t)slot),
			 0);

	size_t off = SEND_OFF + ((size_t)j * ROUNDS + m.round) * T_MSG;
	struct msg a = {MAGIC_ANSWER, m.idx, m.round, S.qpn[j]};

	memcpy(S.buf + off, &a, sizeof(a));
	assert_int_equal(rpma_send(S.conns[j], S.mr, off, sizeof(a), RPMA_F_COMPLETION_ALWAYS,
				   (void *)(uintptr_t)(j * ROUNDS + m.round)),
			 0);
}

/* server_take -- one completion of the shared CQ cq, routed to its connection */
static void
server_take(struct rpma_cq *cq, const struct ibv_wc *wc)
{
	int j = conn_of(wc->qp_num);

	assert_int_equal(wc->status, IBV_WC_SUCCESS);
	assert_true(j >= 0);
	if (cq == S.rcq) {
		assert_int_equal(wc->opcode, IBV_WC_RECV);
		assert_int_equal(wc->byte_len, sizeof(struct msg));
		server_answer(j, wc->wr_id);
	} else {
		assert_int_equal(wc->opcode, IBV_WC_SEND);
		/* the answer's op_context names the connection the qp_num names */
		assert_int_equal(wc->wr_id / ROUNDS, j);
		assert_int_equal(wc->wr_id % ROUNDS, S.answered[j]);
		S.answered[j]++;
	}
}

/* server_drain -- take every completion of cq */
static void
server_drain(struct rpma_cq *cq)
{
	struct ibv_wc wc[16];
	int got, ret;

	while ((ret = rpma_cq_get_wc(cq, 16, wc, &got)) == 0)
		for (int i = 0; i < got; i++)
			server_take(cq, &wc[i]);
	assert_int_equal(ret, RPMA_E_NO_COMPLETION);
}

/* server_done -- every connection got and answered ROUNDS messages */
static bool
server_done(void)
{
	for (int i = 0; i < S.n; i++)
		if (S.received[i] < ROUNDS || S.answered[i] < ROUNDS)
			return false;
	return true;
}

/*
 * server_serve -- sleep in epoll on the one descriptor of both CQs; on each
 * wake-up take every event with rpma_cq_channel_wait(), which tells the CQ,
 * and drain that CQ
 */
static void
server_serve(void)
{
	while (!server_done()) {
		struct epoll_event ev;
		struct rpma_cq *which;
		int ret;

		assert_int_equal(epoll_wait(S.epfd, &ev, 1, T_WAIT_MS), 1);
		while ((ret = rpma_cq_channel_wait(S.rcq, &which)) == 0) {
			assert_true(which == S.scq || which == S.rcq);
			if (which == S.scq)
				S.events_scq++;
			else
				S.events_rcq++;
			server_drain(which);
		}
		assert_int_equal(ret, RPMA_E_NO_COMPLETION);
	}
	assert_true(S.events_scq > 0);
	assert_true(S.events_rcq > 0);
}

/* assert_cq_in_use -- rpma_cq_delete() refuses the CQ, which stays */
static void
assert_cq_in_use(struct rpma_cq *cq)
{
	struct rpma_cq *keep = cq;

	assert_int_equal(rpma_cq_delete(&cq), RPMA_E_INVAL);
	assert_ptr_equal(cq, keep);
}

/*
 * server_close -- each connection closed by the client is deleted; the CQs
 * stay in use until the last one is gone, then they are deleted
 */
static void
server_close(void)
{
	for (int i = 0; i < S.n; i++) {
		enum rpma_conn_event ev;

		assert_cq_in_use(S.scq);
		assert_cq_in_use(S.rcq);
		assert_int_equal(t_wait_event(S.conns[i], &ev, T_WAIT_MS), 0);
		assert_int_equal(ev, RPMA_CONN_CLOSED);
		(void)rpma_conn_disconnect(S.conns[i]);
		assert_int_equal(rpma_conn_delete(&S.conns[i]), 0);
	}
	assert_int_equal(t_srv_wait(&S.client, T_WAIT_MS), 0);
	assert_int_equal(rpma_cq_delete(&S.scq), 0);
	assert_null(S.scq);
	assert_int_equal(rpma_cq_delete(&S.rcq), 0);
	assert_null(S.rcq);
}

/* serve -- the whole exchange with n connections */
static void
serve(int n)
{
	char line[256];

	server_setup(n);
	server_accept();
	assert_cq_in_use(S.scq);
	server_serve();
	assert_int_equal(t_srv_line(&S.client, "DONE", line, sizeof(line), T_WAIT_MS), 0);
	server_close();
}

/* teardown -- whatever a test left: the client, connections, queues, regions */
static int
teardown(void **state)
{
	(void)state;
	t_srv_kill(&S.client);
	for (int i = 0; i < MAX_CONNS; i++)
		(void)rpma_conn_delete(&S.conns[i]);
	(void)rpma_ep_shutdown(&S.ep);
	(void)rpma_conn_cfg_delete(&S.cfg);
	(void)rpma_srq_delete(&S.srq);
	(void)rpma_cq_delete(&S.rcq);
	(void)rpma_cq_delete(&S.scq);
	(void)rpma_mr_dereg(&S.mr);
	free(S.buf);
	S.buf = NULL;
	if (S.epfd > 0)
		close(S.epfd);
	S.epfd = -1;
	return S.peer ? rpma_peer_delete(&S.peer) : 0;
}

static void
test_one(void **state)
{
	(void)state;
	serve(1);
}

static void
test_eight(void **state)
{
	(void)state;
	serve(8);
}

static void
test_sixty_four(void **state)
{
	(void)state;
	serve(64);
}

int
main(int argc, char *argv[])
{
	if (argc == 4 && strcmp(argv[1], "client") == 0)
		return client_main(argv[2], atoi(argv[3]));

	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_one, teardown),
	    cmocka_unit_test_teardown(test_eight, teardown),
	    cmocka_unit_test_teardown(test_sixty_four, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
