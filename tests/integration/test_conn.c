/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_conn.c -- connection set-up and tear-down between two processes over
 * softrdma: private data both ways, the ESTABLISHED and CLOSED events on both
 * sides, a non-blocking event fd, a rejected request, no listener and an
 * unreachable address.
 */

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"

static struct rpma_peer *Peer;
static struct t_srv Srv;

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

/* every test leaves no server behind, whatever happened */
static int
test_teardown(void **state)
{
	(void)state;
	t_srv_kill(&Srv);
	return 0;
}

/* the server's exit code after its DUMP line, or -1 */
static int
srv_finish(void)
{
	static char line[T_LINE];

	if (t_srv_line(&Srv, "DUMP", line, sizeof(line), T_WAIT_MS))
		return -1;
	return t_srv_wait(&Srv, T_WAIT_MS);
}

/*
 * private data travel both ways: the server gets the client's 56 bytes on
 * the request and on the connection, the client gets the server's
 * descriptors after ESTABLISHED; 57 bytes are refused and, as librpma 1.3
 * does when the connection manager refuses them, consume the request
 */
static void
test_private_data_both_ways(void **state)
{
	(void)state;
	uint8_t cpd[57];
	uint8_t got[64];
	char line[256];
	struct rpma_conn_req *req;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data pd = {.ptr = cpd, .len = 57};

	for (size_t i = 0; i < sizeof(cpd); i++)
		cpd[i] = (uint8_t)(0xa0 + i);
	assert_int_equal(t_srv_start(&Srv, "rma", NULL), 0);
	assert_int_equal(rpma_conn_req_new(Peer, T_ADDR, Srv.port, NULL, &req), 0);

	assert_int_equal(rpma_conn_req_connect(&req, &pd, &conn), RPMA_E_INVAL);
	assert_null(req);
	assert_null(conn);

	pd.len = 56;
	assert_int_equal(rpma_conn_req_new(Peer, T_ADDR, Srv.port, NULL, &req), 0);
	assert_int_equal(rpma_conn_req_connect(&req, &pd, &conn), 0);
	assert_null(req);
	enum rpma_conn_event ev;

	assert_int_equal(t_wait_event(conn, &ev, T_WAIT_MS), 0);
	assert_int_equal(ev, RPMA_CONN_ESTABLISHED);

	/* what the server saw on the request and on its connection */
	assert_int_equal(t_srv_line(&Srv, "PDATA ", line, sizeof(line), T_WAIT_MS), 0);
	assert_true(t_hex_decode(line + 6, got, sizeof(got)) >= 56);
	assert_memory_equal(got, cpd, 56);
	assert_int_equal(t_srv_line(&Srv, "CPDATA ", line, sizeof(line), T_WAIT_MS), 0);
	assert_true(t_hex_decode(line + 7, got, sizeof(got)) >= 56);
	assert_memory_equal(got, cpd, 56);

	/* what the client got: a usable region descriptor and a peer cfg */
	struct rpma_conn_private_data spd;
	struct rpma_mr_remote *mr;
	struct rpma_peer_cfg *pcfg;
	size_t size;
	int ft;
	bool pmem = true;

	assert_int_equal(rpma_conn_get_private_data(conn, &spd), 0);
	/* like on InfiniBand, the length may be the transport's (zero padded) */
	assert_true(spd.len >= T_PD_SIZE);
	assert_int_equal(
	    rpma_mr_remote_from_descriptor((uint8_t *)spd.ptr + T_PD_MR, T_MR_DESC, &mr), 0);
	assert_int_equal(rpma_mr_remote_get_size(mr, &size), 0);
	assert_int_equal(size, T_REGION);
	assert_int_equal(rpma_mr_remote_get_flush_type(mr, &ft), 0);
	assert_int_equal(ft,
			 RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY | RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT);
	assert_int_equal(rpma_mr_remote_delete(&mr), 0);
	assert_int_equal(rpma_peer_cfg_from_descriptor((uint8_t *)spd.ptr + T_PD_PCFG, 1, &pcfg),
			 0);
	assert_int_equal(rpma_peer_cfg_get_direct_write_to_pmem(pcfg, &pmem), 0);
	assert_false(pmem);
	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);

	uint32_t qpn = 0;

	assert_int_equal(rpma_conn_get_qp_num(conn, &qpn), 0);
	assert_int_equal(t_close(&conn), 0);
	assert_int_equal(srv_finish(), 0);
}

/* the client disconnects: both sides see RPMA_CONN_CLOSED */
static void
test_client_disconnects(void **state)
{
	(void)state;
	struct rpma_conn *conn;
	char line[64];

	assert_int_equal(t_srv_connect(&Srv, NULL, Peer, NULL, NULL, 0, &conn, NULL), 0);
	assert_int_equal(t_srv_line(&Srv, "EVENT ", line, sizeof(line), T_WAIT_MS), 0);
	assert_string_equal(line, "EVENT 0"); /* ESTABLISHED on the server */
	assert_int_equal(t_close(&conn), 0);  /* CLOSED on the client */
	assert_int_equal(t_srv_line(&Srv, "EVENT ", line, sizeof(line), T_WAIT_MS), 0);
	assert_string_equal(line, "EVENT 1"); /* CLOSED on the server */
	assert_int_equal(srv_finish(), 0);
}

/* the server disconnects: the client sees RPMA_CONN_CLOSED without asking */
static void
test_server_disconnects(void **state)
{
	(void)state;
	const char *opts[] = {"bye=1", NULL};
	struct rpma_conn *conn;
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;

	assert_int_equal(t_srv_connect(&Srv, opts, Peer, NULL, NULL, 0, &conn, NULL), 0);
	assert_int_equal(t_wait_event(conn, &ev, T_WAIT_MS), 0);
	assert_int_equal(ev, RPMA_CONN_CLOSED);
	assert_int_equal(rpma_conn_disconnect(conn), 0);
	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_null(conn);
	assert_int_equal(srv_finish(), 0);
}

/*
 * with O_NONBLOCK on the event fd, rpma_conn_next_event() reports
 * RPMA_E_NO_EVENT while nothing happened, then the event once it came
 */
static void
test_event_fd_nonblocking(void **state)
{
	(void)state;
	struct rpma_conn *conn;
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	int fd;

	assert_int_equal(t_srv_connect(&Srv, NULL, Peer, NULL, NULL, 0, &conn, NULL), 0);
	assert_int_equal(rpma_conn_get_event_fd(conn, &fd), 0);
	assert_int_equal(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
	assert_int_equal(rpma_conn_next_event(conn, &ev), RPMA_E_NO_EVENT);
	assert_int_equal(ev, RPMA_CONN_UNDEFINED);
	assert_int_equal(t_close(&conn), 0);
	assert_int_equal(srv_finish(), 0);
}

/* the server deletes the request: the client sees RPMA_CONN_REJECTED */
static void
test_rejected(void **state)
{
	(void)state;
	struct rpma_conn_req *req;
	struct rpma_conn *conn = NULL;
	struct rpma_conn_private_data pd = {.ptr = "knock", .len = 5};
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	char line[64];

	assert_int_equal(t_srv_start(&Srv, "reject", NULL), 0);
	assert_int_equal(rpma_conn_req_new(Peer, T_ADDR, Srv.port, NULL, &req), 0);
	assert_int_equal(rpma_conn_req_connect(&req, &pd, &conn), 0);
	assert_int_equal(t_wait_event(conn, &ev, T_WAIT_MS), 0);
	assert_int_equal(ev, RPMA_CONN_REJECTED);
	assert_int_equal(rpma_conn_delete(&conn), 0);
	assert_int_equal(t_srv_line(&Srv, "PDATA ", line, sizeof(line), T_WAIT_MS), 0);
	assert_memory_equal(line, "PDATA 6b6e6f636b", 16);
	for (size_t i = 16; line[i]; i++)
		assert_int_equal(line[i], '0'); /* zero padding only */
	assert_int_equal(t_srv_line(&Srv, "REJECTED", line, sizeof(line), T_WAIT_MS), 0);
	assert_int_equal(t_srv_wait(&Srv, T_WAIT_MS), 0);
}

/*
 * connecting where nobody listens, or to an address nobody answers: either
 * rpma_conn_req_new() fails with RPMA_E_PROVIDER or the connection ends with
 * RPMA_CONN_REJECTED / RPMA_CONN_UNREACHABLE (or LOST) -- within the bound
 */
static void
connect_nowhere(const char *addr, const char *port)
{
	struct rpma_conn_cfg *cfg;
	struct rpma_conn_req *req = NULL;
	struct rpma_conn *conn = NULL;
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;
	long long start = t_now_ms();

	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_timeout(cfg, 500), 0);
	int ret = rpma_conn_req_new(Peer, addr, port, cfg, &req);

	if (ret) {
		print_message("%s:%s: rpma_conn_req_new() -> %s\n", addr, port, rpma_err_2str(ret));
		assert_int_equal(ret, RPMA_E_PROVIDER);
		assert_null(req);
	} else {
		ret = rpma_conn_req_connect(&req, NULL, &conn);
		assert_null(req);
		if (ret) {
			print_message("%s:%s: rpma_conn_req_connect() -> %s\n", addr, port,
				      rpma_err_2str(ret));
			assert_int_equal(ret, RPMA_E_PROVIDER);
		} else {
			assert_int_equal(t_wait_event(conn, &ev, T_WAIT_MS), 0);
			print_message("%s:%s: event %s\n", addr, port,
				      rpma_utils_conn_event_2str(ev));
			assert_true(ev == RPMA_CONN_REJECTED || ev == RPMA_CONN_UNREACHABLE ||
				    ev == RPMA_CONN_LOST);
			assert_int_equal(rpma_conn_delete(&conn), 0);
		}
	}
	assert_true(t_now_ms() - start < T_WAIT_MS + 2000);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

static void
test_no_listener(void **state)
{
	(void)state;
	char port[16];

	connect_nowhere(T_ADDR, t_next_port(port, sizeof(port)));
}

/*
 * test_unreachable_address -- a peer that takes the connection but never
 * answers it (a plain TCP listener that accepts nothing, on loopback, so no
 * packet leaves this host): the request times out and the client sees the
 * connection fail, within the bound
 */
static void
test_unreachable_address(void **state)
{
	(void)state;
	char port[16];
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	/* the kernel picks a free port: a fixed one may be held by another socket */
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	assert_int_equal(listen(fd, 8), 0);
	snprintf(port, sizeof(port), "%u", (unsigned)ntohs(sin.sin_port));
	connect_nowhere(T_ADDR, port);
	close(fd);
}

/* an outgoing request dropped before connecting is freed */
static void
test_req_delete_outgoing(void **state)
{
	(void)state;
	struct rpma_conn_req *req;
	char line[64];

	assert_int_equal(t_srv_start(&Srv, "reject", NULL), 0);
	assert_int_equal(rpma_conn_req_new(Peer, T_ADDR, Srv.port, NULL, &req), 0);
	assert_int_equal(rpma_conn_req_delete(&req), 0);
	assert_null(req);
	/* the server never got a request */
	assert_int_equal(t_srv_line(&Srv, "PDATA", line, sizeof(line), 300), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_private_data_both_ways, test_teardown),
	    cmocka_unit_test_teardown(test_client_disconnects, test_teardown),
	    cmocka_unit_test_teardown(test_server_disconnects, test_teardown),
	    cmocka_unit_test_teardown(test_event_fd_nonblocking, test_teardown),
	    cmocka_unit_test_teardown(test_rejected, test_teardown),
	    cmocka_unit_test_teardown(test_no_listener, test_teardown),
	    cmocka_unit_test_teardown(test_unreachable_address, test_teardown),
	    cmocka_unit_test_teardown(test_req_delete_outgoing, test_teardown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
