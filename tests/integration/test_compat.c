/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_compat.c -- patterns of programs written for librpma 1.3 that must
 * run unchanged, between two processes over softrdma:
 * - a server whose connections share a completion channel puts every
 *   connection's rpma_cq_get_fd() in one epoll set and serves them all
 *   with rpma_conn_wait() and rpma_cq_get_wc(); its clients are this
 *   program started again as "compat-client PORT CONNS MSGS";
 * - regions whose usage words name other operations, but whose access
 *   flags let the device run these, against the echo server: received into
 *   (RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC), sent from
 *   (RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST), read into
 *   (RPMA_MR_USAGE_WRITE_SRC) and written from (RPMA_MR_USAGE_RECV);
 * - a receive into a region whose access flags do not allow it
 *   (RPMA_MR_USAGE_SEND only) is posted and fails in its completion, as on
 *   an RNIC.
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

#define CONNS	 4  /* connections the epoll server serves */
#define MSGS	 8  /* messages each client connection sends */
#define MSG_SIZE 32 /* bytes of one message */
#define CLIENT	 "compat-client"

static struct rpma_peer *Peer;
static struct t_srv Peer_proc; /* the other process: client or echo server */

/* what a test of the usage words holds, released by test_teardown() if it fails */
static struct rpma_conn *Conn;
static struct rpma_mr_local *Rx_mr, *Tx_mr, *Rd_mr, *Wr_mr;
static struct rpma_mr_remote *Rmr;

/* the byte i of message m on connection c, and what the server answers */
static uint8_t
msg_byte(int c, int m, int i)
{
	return (uint8_t)(c * 64 + m * 8 + i);
}

static uint8_t
echo_byte(int c, int m, int i)
{
	return (uint8_t)~msg_byte(c, m, i);
}

static int
setup(void **state)
{
	(void)state;
	return t_setup_peer(&Peer, 120);
}

static int
teardown(void **state)
{
	(void)state;
	return rpma_peer_delete(&Peer);
}

/* ------------------------------------------------- the epoll server test */

/* one connection of the server */
struct sconn {
	struct rpma_conn *conn;
	struct rpma_cq *cq, *rcq;
	int served;
};

/* the server's state */
struct server {
	struct rpma_ep *ep;
	struct rpma_conn_cfg *cfg;
	struct rpma_mr_local *rx_mr, *tx_mr;
	uint8_t rx[CONNS * MSGS * MSG_SIZE];
	uint8_t tx[CONNS * MSGS * MSG_SIZE];
	struct sconn c[CONNS];
	int epfd;
};

static struct server S;

/* server_release -- release whatever the server holds (a failed test leaves some) */
static void
server_release(struct server *s)
{
	for (int i = 0; i < CONNS; i++)
		(void)rpma_conn_delete(&s->c[i].conn);
	(void)rpma_ep_shutdown(&s->ep);
	(void)rpma_conn_cfg_delete(&s->cfg);
	(void)rpma_mr_dereg(&s->rx_mr);
	(void)rpma_mr_dereg(&s->tx_mr);
	if (s->epfd > 0)
		close(s->epfd);
	s->epfd = -1;
}

/* test_teardown -- release what a test left, so that the peer can go */
static int
test_teardown(void **state)
{
	(void)state;
	server_release(&S);
	(void)rpma_conn_delete(&Conn);
	(void)rpma_mr_dereg(&Rx_mr);
	(void)rpma_mr_dereg(&Tx_mr);
	(void)rpma_mr_dereg(&Rd_mr);
	(void)rpma_mr_dereg(&Wr_mr);
	(void)rpma_mr_remote_delete(&Rmr);
	t_srv_kill(&Peer_proc);
	return 0;
}

/* listen on the next free port */
static void
server_listen(struct server *s, char *port, size_t size)
{
	for (int attempt = 0; attempt < 8; attempt++) {
		if (rpma_ep_listen(Peer, T_ADDR, t_next_port(port, size), &s->ep) == 0)
			return;
	}
	fail_msg("rpma_ep_listen() found no free port: %s", rpma_errormsg());
}

/*
 * server_accept -- take connection i (receives posted on the request into
 * its slots), wait until it is established, put its CQ's fd in the epoll
 * set: with a shared channel it is the channel's, for the CQ and the RCQ
 */
static void
server_accept(struct server *s, int i)
{
	struct pollfd pfd = {.events = POLLIN};
	struct rpma_conn_req *req;
	enum rpma_conn_event ev;
	struct epoll_event eev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
	int cq_fd = -1, rcq_fd = -1, compl_fd = -1;

	assert_int_equal(rpma_ep_get_fd(s->ep, &pfd.fd), 0);
	if (poll(&pfd, 1, T_WAIT_MS) != 1)
		fail_msg("no connection request %d within %d ms", i, T_WAIT_MS);
	assert_int_equal(rpma_ep_next_conn_req(s->ep, s->cfg, &req), 0);
	for (int m = 0; m < MSGS; m++) {
		size_t slot = (size_t)(i * MSGS + m);

		assert_int_equal(rpma_conn_req_recv(req, s->rx_mr, slot * MSG_SIZE, MSG_SIZE,
						    (void *)(uintptr_t)slot),
				 0);
	}
	assert_int_equal(rpma_conn_req_connect(&req, NULL, &s->c[i].conn), 0);
	assert_int_equal(t_wait_event(s->c[i].conn, &ev, T_WAIT_MS), 0);
	assert_int_equal(ev, RPMA_CONN_ESTABLISHED);

	assert_int_equal(rpma_conn_get_cq(s->c[i].conn, &s->c[i].cq), 0);
	assert_int_equal(rpma_conn_get_rcq(s->c[i].conn, &s->c[i].rcq), 0);
	assert_non_null(s->c[i].rcq);
	/* what librpma 1.3 gives: the shared channel's fd, from either CQ */
	int ret = rpma_cq_get_fd(s->c[i].cq, &cq_fd);

	if (ret)
		fail_msg("rpma_cq_get_fd() of a CQ sharing its channel: %s", rpma_err_2str(ret));
	assert_int_equal(rpma_cq_get_fd(s->c[i].rcq, &rcq_fd), 0);
	assert_int_equal(rpma_conn_get_compl_fd(s->c[i].conn, &compl_fd), 0);
	assert_int_equal(cq_fd, compl_fd);
	assert_int_equal(rcq_fd, compl_fd);
	assert_int_equal(fcntl(cq_fd, F_SETFL, fcntl(cq_fd, F_GETFL) | O_NONBLOCK), 0);
	assert_int_equal(epoll_ctl(s->epfd, EPOLL_CTL_ADD, cq_fd, &eev), 0);
}

/* server_echo -- answer the message of a receive completion and post the slot again */
static void
server_echo(struct server *s, int i, const struct ibv_wc *wc)
{
	size_t slot = (size_t)wc->wr_id;

	assert_int_equal(wc->status, IBV_WC_SUCCESS);
	assert_int_equal(wc->opcode, IBV_WC_RECV);
	assert_int_equal(wc->byte_len, MSG_SIZE);
	assert_true(slot / MSGS == (size_t)i);
	for (size_t b = 0; b < MSG_SIZE; b++)
		s->tx[slot * MSG_SIZE + b] = (uint8_t)~s->rx[slot * MSG_SIZE + b];
	assert_int_equal(
	    rpma_recv(s->c[i].conn, s->rx_mr, slot * MSG_SIZE, MSG_SIZE, (void *)(uintptr_t)slot),
	    0);
	assert_int_equal(rpma_send(s->c[i].conn, s->tx_mr, slot * MSG_SIZE, MSG_SIZE,
				   RPMA_F_COMPLETION_ALWAYS, (void *)(uintptr_t)slot),
			 0);
	s->c[i].served++;
}

/* server_drain -- take every completion of a CQ of connection i */
static void
server_drain(struct server *s, int i, struct rpma_cq *cq)
{
	struct ibv_wc wc[8];
	int n;
	int ret;

	while ((ret = rpma_cq_get_wc(cq, 8, wc, &n)) == 0) {
		for (int k = 0; k < n; k++) {
			if (wc[k].opcode == IBV_WC_SEND && wc[k].status == IBV_WC_SUCCESS)
				continue;
			server_echo(s, i, &wc[k]);
		}
	}
	assert_int_equal(ret, RPMA_E_NO_COMPLETION);
}

/*
 * server_serve -- one epoll loop over every connection's fd until each
 * connection was served MSGS messages: a ready fd is acknowledged with
 * rpma_conn_wait(), then both CQs are drained
 */
static void
server_serve(struct server *s)
{
	long long deadline = t_now_ms() + T_WAIT_MS;
	int total = 0;

	while (total < CONNS * MSGS) {
		struct epoll_event ev[CONNS];
		int n = epoll_wait(s->epfd, ev, CONNS, 100);

		if (n < 0 && errno == EINTR)
			continue;
		assert_true(n >= 0);
		if (t_now_ms() > deadline)
			fail_msg("served %d of %d messages within %d ms", total, CONNS * MSGS,
				 T_WAIT_MS);
		for (int k = 0; k < n; k++) {
			int i = (int)ev[k].data.u32;
			struct rpma_cq *cq;
			bool is_rcq;
			int ret;

			while ((ret = rpma_conn_wait(s->c[i].conn, 0, &cq, &is_rcq)) == 0)
				assert_true(cq == (is_rcq ? s->c[i].rcq : s->c[i].cq));
			assert_int_equal(ret, RPMA_E_NO_COMPLETION);
			server_drain(s, i, s->c[i].rcq);
			server_drain(s, i, s->c[i].cq);
		}
		total = 0;
		for (int i = 0; i < CONNS; i++)
			total += s->c[i].served;
	}
}

/* server_open -- regions, the configuration with a shared channel, the endpoint */
static void
server_open(struct server *s, char *port, size_t size)
{
	memset(s, 0, sizeof(*s));
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	assert_true(s->epfd >= 0);
	assert_int_equal(rpma_mr_reg(Peer, s->rx, sizeof(s->rx), RPMA_MR_USAGE_RECV, &s->rx_mr), 0);
	assert_int_equal(rpma_mr_reg(Peer, s->tx, sizeof(s->tx), RPMA_MR_USAGE_SEND, &s->tx_mr), 0);
	assert_int_equal(rpma_conn_cfg_new(&s->cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_compl_channel(s->cfg, true), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(s->cfg, MSGS * 2), 0);
	assert_int_equal(rpma_conn_cfg_set_cq_size(s->cfg, MSGS * 2), 0);
	assert_int_equal(rpma_conn_cfg_set_rq_size(s->cfg, MSGS), 0);
	assert_int_equal(rpma_conn_cfg_set_sq_size(s->cfg, MSGS * 2), 0);
	server_listen(s, port, size);
}

/* server_close -- every connection closed by its client, then everything released */
static void
server_close(struct server *s)
{
	for (int i = 0; i < CONNS; i++) {
		enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;

		if (s->c[i].conn == NULL)
			continue;
		assert_int_equal(t_wait_event(s->c[i].conn, &ev, T_WAIT_MS), 0);
		assert_int_equal(ev, RPMA_CONN_CLOSED);
		assert_int_equal(rpma_conn_disconnect(s->c[i].conn), 0);
		assert_int_equal(rpma_conn_delete(&s->c[i].conn), 0);
	}
	assert_int_equal(rpma_ep_shutdown(&s->ep), 0);
	assert_int_equal(rpma_conn_cfg_delete(&s->cfg), 0);
	assert_int_equal(rpma_mr_dereg(&s->rx_mr), 0);
	assert_int_equal(rpma_mr_dereg(&s->tx_mr), 0);
	close(s->epfd);
	s->epfd = -1;
}

/*
 * the server of the issue: rpma_conn_cfg_set_compl_channel(cfg, true), every
 * connection's rpma_cq_get_fd() in one epoll set; CONNS connections from
 * another process each get MSGS echoes
 */
static void
test_epoll_shared_channel_server(void **state)
{
	(void)state;
	struct server *s = &S;
	char port[16];
	char conns[16], msgs[16], line[256];
	const char *opts[] = {conns, msgs, NULL};

	snprintf(conns, sizeof(conns), "%d", CONNS);
	snprintf(msgs, sizeof(msgs), "%d", MSGS);
	server_open(s, port, sizeof(port));
	assert_int_equal(t_prog_exec(&Peer_proc, "/proc/self/exe", CLIENT, port, opts), 0);

	for (int i = 0; i < CONNS; i++)
		server_accept(s, i);
	server_serve(s);
	server_close(s);

	if (t_srv_line(&Peer_proc, "DONE", line, sizeof(line), T_WAIT_MS))
		fail_msg("the client did not finish");
	assert_int_equal(t_srv_wait(&Peer_proc, T_WAIT_MS), 0);
}

/* ------------------------------------------------- the client process */

/* client_die -- report why the client failed, on its stdout, and exit 1 */
static void __attribute__((noreturn, format(printf, 1, 2))) client_die(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("ERR %s (%s)\n", buf, rpma_errormsg());
	fflush(stdout);
	exit(1);
}

#define CLIENT_CHECK(call)                                                                         \
	do {                                                                                       \
		int ret_ = (call);                                                                 \
		if (ret_)                                                                          \
			client_die("%s: %s", #call, rpma_err_2str(ret_));                          \
	} while (0)

/* client_connect -- connection c with a receive posted for each echo */
static struct rpma_conn *
client_connect(struct rpma_peer *peer, const char *port, struct rpma_mr_local *mr, int c, int msgs)
{
	struct rpma_conn_req *req;
	struct rpma_conn *conn;
	enum rpma_conn_event ev;

	CLIENT_CHECK(rpma_conn_req_new(peer, T_ADDR, port, NULL, &req));
	for (int m = 0; m < msgs; m++) {
		size_t slot = (size_t)(c * msgs + m);

		CLIENT_CHECK(rpma_conn_req_recv(req, mr, (2 * slot + 1) * MSG_SIZE, MSG_SIZE,
						(void *)(uintptr_t)slot));
	}
	CLIENT_CHECK(rpma_conn_req_connect(&req, NULL, &conn));
	CLIENT_CHECK(t_wait_event(conn, &ev, T_WAIT_MS));
	if (ev != RPMA_CONN_ESTABLISHED)
		client_die("connection %d: %s", c, rpma_utils_conn_event_2str(ev));
	return conn;
}

/* client_exchange -- send the messages of connection c, check their echoes */
static void
client_exchange(struct rpma_conn *conn, struct rpma_mr_local *mr, uint8_t *buf, int c, int msgs)
{
	struct rpma_cq *cq;
	struct ibv_wc wc;
	int echoes = 0;

	CLIENT_CHECK(rpma_conn_get_cq(conn, &cq));
	for (int m = 0; m < msgs; m++) {
		size_t slot = (size_t)(c * msgs + m);

		for (int i = 0; i < MSG_SIZE; i++)
			buf[2 * slot * MSG_SIZE + (size_t)i] = msg_byte(c, m, i);
		CLIENT_CHECK(rpma_send(conn, mr, 2 * slot * MSG_SIZE, MSG_SIZE,
				       RPMA_F_COMPLETION_ON_ERROR, NULL));
	}
	while (echoes < msgs) {
		CLIENT_CHECK(t_wait_wc(cq, &wc, T_WAIT_MS));
		if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV)
			client_die("connection %d: completion %s of opcode %d", c,
				   ibv_wc_status_str(wc.status), (int)wc.opcode);
		size_t slot = (size_t)wc.wr_id;
		int m = (int)slot - c * msgs;

		if (m < 0 || m >= msgs || wc.byte_len != MSG_SIZE)
			client_die("connection %d: echo of slot %zu, %u bytes", c, slot,
				   wc.byte_len);
		for (int i = 0; i < MSG_SIZE; i++)
			if (buf[(2 * slot + 1) * MSG_SIZE + (size_t)i] != echo_byte(c, m, i))
				client_die("connection %d: byte %d of echo %d is wrong", c, i, m);
		echoes++;
	}
}

/* client_close -- disconnect and wait for the end */
static void
client_close(struct rpma_conn **conn)
{
	enum rpma_conn_event ev;

	CLIENT_CHECK(rpma_conn_disconnect(*conn));
	CLIENT_CHECK(t_wait_event(*conn, &ev, T_WAIT_MS));
	CLIENT_CHECK(rpma_conn_delete(conn));
}

/*
 * client_main -- the other process of the epoll server test: connect conns
 * times to port, send msgs messages on each, check every echo, disconnect
 */
static int
client_main(const char *port, int conns, int msgs)
{
	struct rpma_conn *conn[CONNS];
	struct rpma_mr_local *mr;
	struct rpma_peer *peer = t_peer_new();
	size_t size = (size_t)conns * (size_t)msgs * 2 * MSG_SIZE;
	uint8_t *buf = calloc(1, size);

	alarm(60);
	if (peer == NULL || buf == NULL || conns < 1 || conns > CONNS || msgs < 1)
		client_die("cannot start");
	CLIENT_CHECK(rpma_mr_reg(peer, buf, size, RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV, &mr));
	for (int c = 0; c < conns; c++)
		conn[c] = client_connect(peer, port, mr, c, msgs);
	for (int c = 0; c < conns; c++)
		client_exchange(conn[c], mr, buf, c, msgs);
	for (int c = 0; c < conns; c++)
		client_close(&conn[c]);
	CLIENT_CHECK(rpma_mr_dereg(&mr));
	CLIENT_CHECK(rpma_peer_delete(&peer));
	free(buf);
	printf("DONE\n");
	fflush(stdout);
	return 0;
}

/* ------------------------------------------------- usage words */

/* the echo server's answer to the message in slot 0 of tx, received in rx */
static void
expect_echo(struct rpma_cq *cq, const uint8_t *rx, const uint8_t *tx, uintptr_t ctx)
{
	struct t_echo e;
	struct ibv_wc wc;

	/* the send's own completion may come first */
	do {
		assert_int_equal(t_wait_wc(cq, &wc, T_WAIT_MS), 0);
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
	} while (wc.opcode == IBV_WC_SEND);
	assert_int_equal(wc.opcode, IBV_WC_RECV);
	assert_int_equal(wc.wr_id, ctx);
	assert_int_equal(wc.byte_len, sizeof(e));
	memcpy(&e, rx, sizeof(e));
	assert_int_equal(e.status, IBV_WC_SUCCESS);
	assert_int_equal(e.byte_len, MSG_SIZE);
	assert_memory_equal(e.data, tx, MSG_SIZE);
}

/*
 * exchange -- with the echo server, receive into a region registered for
 * rx_usage and send from one registered for tx_usage: a receive posted on
 * the request (rpma_conn_req_recv), then one on the connection (rpma_recv)
 */
static void
exchange(int rx_usage, int tx_usage)
{
	static uint8_t rx[2 * T_MSG], tx[T_MSG];
	struct rpma_cq *cq;

	assert_int_equal(rpma_mr_reg(Peer, rx, sizeof(rx), rx_usage, &Rx_mr), 0);
	assert_int_equal(rpma_mr_reg(Peer, tx, sizeof(tx), tx_usage, &Tx_mr), 0);
	assert_int_equal(t_srv_start(&Peer_proc, "rma", NULL), 0);
	assert_int_equal(
	    t_connect(Peer, Peer_proc.port, NULL, NULL, 0, Rx_mr, 0, T_MSG, (void *)1, &Conn, NULL),
	    0);
	assert_int_equal(rpma_conn_get_cq(Conn, &cq), 0);

	for (int i = 0; i < MSG_SIZE; i++)
		tx[i] = (uint8_t)(0x40 + i);
	assert_int_equal(rpma_send(Conn, Tx_mr, 0, MSG_SIZE, RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	expect_echo(cq, rx, tx, 1);

	assert_int_equal(rpma_recv(Conn, Rx_mr, T_MSG, T_MSG, (void *)2), 0);
	for (int i = 0; i < MSG_SIZE; i++)
		tx[i] = (uint8_t)(0x90 - i);
	assert_int_equal(rpma_send(Conn, Tx_mr, 0, MSG_SIZE, RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
	expect_echo(cq, rx + T_MSG, tx, 2);

	assert_int_equal(t_close(&Conn), 0);
	assert_int_equal(t_srv_wait(&Peer_proc, T_WAIT_MS), 0);
	assert_int_equal(rpma_mr_dereg(&Rx_mr), 0);
	assert_int_equal(rpma_mr_dereg(&Tx_mr), 0);
}

/*
 * receive buffers in a region registered as a read destination and a write
 * source: its registration grants local write, which is all a receive
 * needs on the device (librpma 1.3 posts them, an RNIC runs them)
 */
static void
test_recv_into_read_dst_write_src(void **state)
{
	(void)state;
	exchange(RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC, RPMA_MR_USAGE_SEND);
}

/*
 * messages sent from a region registered as a read source and a write
 * destination: a send source needs nothing but a valid key
 */
static void
test_send_from_read_src_write_dst(void **state)
{
	(void)state;
	exchange(RPMA_MR_USAGE_RECV, RPMA_MR_USAGE_READ_SRC | RPMA_MR_USAGE_WRITE_DST);
}

/*
 * one-sided operations on regions registered for other usages: a read into
 * a write source (librpma 1.3 grants it local write), a write from a
 * receive buffer (a source needs only its key)
 */
static void
test_rma_with_other_usages(void **state)
{
	(void)state;
	static uint8_t rd[T_REGION], wr[64];
	uint8_t spd[T_PD_SIZE], dump[T_REGION];
	struct rpma_cq *cq;
	struct ibv_wc wc;

	assert_int_equal(rpma_mr_reg(Peer, rd, sizeof(rd), RPMA_MR_USAGE_WRITE_SRC, &Rd_mr), 0);
	assert_int_equal(rpma_mr_reg(Peer, wr, sizeof(wr), RPMA_MR_USAGE_RECV, &Wr_mr), 0);
	assert_int_equal(t_srv_start(&Peer_proc, "rma", NULL), 0);
	assert_int_equal(
	    t_connect(Peer, Peer_proc.port, NULL, NULL, 0, NULL, 0, 0, NULL, &Conn, spd), 0);
	assert_int_equal(rpma_conn_get_cq(Conn, &cq), 0);
	assert_int_equal(rpma_mr_remote_from_descriptor(spd + T_PD_MR, T_MR_DESC, &Rmr), 0);

	assert_int_equal(
	    rpma_read(Conn, Rd_mr, 0, Rmr, 0, T_REGION, RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(t_wait_wc(cq, &wc, T_WAIT_MS), 0);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	for (size_t i = 0; i < T_REGION; i++)
		assert_int_equal(rd[i], t_pattern(i));
	memset(wr, 0xa5, sizeof(wr));
	assert_int_equal(
	    rpma_write(Conn, Rmr, 128, Wr_mr, 0, sizeof(wr), RPMA_F_COMPLETION_ALWAYS, NULL), 0);
	assert_int_equal(t_wait_wc(cq, &wc, T_WAIT_MS), 0);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);

	assert_int_equal(t_close(&Conn), 0);
	assert_int_equal(t_srv_dump(&Peer_proc, dump), T_REGION);
	assert_int_equal(t_srv_wait(&Peer_proc, T_WAIT_MS), 0);
	for (size_t i = 0; i < T_REGION; i++)
		assert_int_equal(dump[i], i >= 128 && i < 192 ? 0xa5 : t_pattern(i));
	assert_int_equal(rpma_mr_remote_delete(&Rmr), 0);
	assert_int_equal(rpma_mr_dereg(&Rd_mr), 0);
	assert_int_equal(rpma_mr_dereg(&Wr_mr), 0);
}

/*
 * a receive into a region registered for sending only has no local write
 * access: it is posted (librpma does not refuse it, nor does an RNIC), and
 * the device fails it when a message arrives, in its completion
 */
static void
test_access_checked_by_device(void **state)
{
	(void)state;
	static uint8_t rx[T_MSG], tx[T_MSG];
	struct rpma_cq *cq;
	struct ibv_wc wc;

	assert_int_equal(rpma_mr_reg(Peer, rx, sizeof(rx), RPMA_MR_USAGE_SEND, &Rx_mr), 0);
	assert_int_equal(rpma_mr_reg(Peer, tx, sizeof(tx), RPMA_MR_USAGE_SEND, &Tx_mr), 0);
	assert_int_equal(t_srv_start(&Peer_proc, "rma", NULL), 0);
	assert_int_equal(
	    t_connect(Peer, Peer_proc.port, NULL, NULL, 0, NULL, 0, 0, NULL, &Conn, NULL), 0);
	assert_int_equal(rpma_conn_get_cq(Conn, &cq), 0);

	assert_int_equal(rpma_recv(Conn, Rx_mr, 0, T_MSG, (void *)7), 0);
	memset(tx, 0x3c, sizeof(tx));
	memset(rx, 0, sizeof(rx));
	assert_int_equal(rpma_send(Conn, Tx_mr, 0, MSG_SIZE, RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
	assert_int_equal(t_wait_wc(cq, &wc, T_WAIT_MS), 0);
	assert_int_equal(wc.wr_id, 7);
	assert_int_equal(wc.status, IBV_WC_LOC_PROT_ERR);
	/* nothing was written into the region */
	for (size_t i = 0; i < sizeof(rx); i++)
		assert_int_equal(rx[i], 0);

	(void)rpma_conn_disconnect(Conn);
	assert_int_equal(rpma_conn_delete(&Conn), 0);
	assert_int_equal(t_srv_wait(&Peer_proc, T_WAIT_MS), 0);
	assert_int_equal(rpma_mr_dereg(&Rx_mr), 0);
	assert_int_equal(rpma_mr_dereg(&Tx_mr), 0);
}

int
main(int argc, char *argv[])
{
	if (argc == 5 && strcmp(argv[1], CLIENT) == 0)
		return client_main(argv[2], atoi(argv[3]), atoi(argv[4]));

	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_epoll_shared_channel_server, test_teardown),
	    cmocka_unit_test_teardown(test_recv_into_read_dst_write_src, test_teardown),
	    cmocka_unit_test_teardown(test_send_from_read_src_write_dst, test_teardown),
	    cmocka_unit_test_teardown(test_rma_with_other_usages, test_teardown),
	    cmocka_unit_test_teardown(test_access_checked_by_device, test_teardown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
