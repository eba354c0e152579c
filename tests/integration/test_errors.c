/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_errors.c -- error paths between two processes over softrdma: an
 * operation on a deregistered remote region or beyond the real end of a
 * remote region completes with IBV_WC_REM_ACCESS_ERR; a peer killed with
 * SIGKILL in the middle of a transfer (the server, then the client) makes
 * the survivor see error completions and RPMA_CONN_LOST or RPMA_CONN_CLOSED
 * within a bound, without hanging.
 */

#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"

#define LOSS_BOUND_MS 10000

static struct rpma_peer *Peer;
static struct t_srv Srv;
static struct rpma_conn *Conn;
static struct rpma_ep *Ep;
static struct rpma_mr_remote *Rmr;
static struct rpma_mr_local *Lmr;
static uint8_t *Local;

static int
setup(void **state)
{
	(void)state;
	return t_setup_region(&Peer, 120,
			      RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC |
				  RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_RECV,
			      &Local, &Lmr);
}

static int
teardown(void **state)
{
	(void)state;
	return t_teardown_region(&Peer, &Local, &Lmr);
}

static int
test_teardown(void **state)
{
	(void)state;
	(void)rpma_conn_delete(&Conn);
	(void)rpma_mr_remote_delete(&Rmr);
	(void)rpma_ep_shutdown(&Ep);
	t_srv_kill(&Srv);
	return 0;
}

/* the connection is closed or lost within the bound */
static void
expect_loss(void)
{
	enum rpma_conn_event ev = RPMA_CONN_UNDEFINED;

	assert_int_equal(t_wait_event(Conn, &ev, LOSS_BOUND_MS), 0);
	print_message("the survivor saw %s\n", rpma_utils_conn_event_2str(ev));
	assert_true(ev == RPMA_CONN_LOST || ev == RPMA_CONN_CLOSED);
}

/*
 * op on the remote region rebuilt from desc (a descriptor of the server's
 * private data, its length possibly doubled) at offset: an error completion
 * with IBV_WC_REM_ACCESS_ERR and the op_context
 */
static void
bad_region(int which, bool grow, size_t offset, bool read)
{
	uint8_t spd[T_PD_SIZE];
	struct rpma_cq *cq;
	struct ibv_wc wc;
	int ctx;

	assert_int_equal(t_srv_connect(&Srv, NULL, Peer, NULL, NULL, 0, &Conn, spd), 0);
	assert_int_equal(rpma_conn_get_cq(Conn, &cq), 0);
	if (grow) {
		/* the length field (bytes 8..15, little endian) made twice as large */
		uint64_t len = (uint64_t)T_REGION * 2;

		for (int i = 0; i < 8; i++)
			spd[which + 8 + i] = (uint8_t)(len >> (8 * i));
	}
	assert_int_equal(rpma_mr_remote_from_descriptor(spd + which, T_MR_DESC, &Rmr), 0);
	if (read)
		assert_int_equal(
		    rpma_read(Conn, Lmr, 0, Rmr, offset, 64, RPMA_F_COMPLETION_ON_ERROR, &ctx), 0);
	else
		assert_int_equal(
		    rpma_write(Conn, Rmr, offset, Lmr, 0, 64, RPMA_F_COMPLETION_ON_ERROR, &ctx), 0);
	/* an error completion comes even though only errors were asked for */
	assert_int_equal(t_wait_wc(cq, &wc, T_WAIT_MS), 0);
	assert_int_equal(wc.status, IBV_WC_REM_ACCESS_ERR);
	assert_ptr_equal((void *)(uintptr_t)wc.wr_id, &ctx);

	/* the connection is broken: a later operation does not succeed */
	int ret = rpma_read(Conn, Lmr, 0, Rmr, 0, 8, RPMA_F_COMPLETION_ALWAYS, &wc);

	if (ret == 0) {
		assert_int_equal(t_wait_wc(cq, &wc, T_WAIT_MS), 0);
		assert_int_not_equal(wc.status, IBV_WC_SUCCESS);
	} else {
		assert_int_equal(ret, RPMA_E_PROVIDER);
	}
	(void)rpma_conn_disconnect(Conn);
	assert_int_equal(rpma_conn_delete(&Conn), 0);
	/* the server was never written: its region is unchanged */
	uint8_t dump[T_REGION];

	assert_int_equal(t_srv_dump(&Srv, dump), T_REGION);
	for (size_t i = 0; i < T_REGION; i++)
		assert_int_equal(dump[i], t_pattern(i));
	assert_int_equal(t_srv_wait(&Srv, T_WAIT_MS), 0);
}

/* the rkey of a region the server deregistered: remote access error */
static void
test_write_deregistered_region(void **state)
{
	(void)state;
	bad_region(T_PD_DEAD, false, 0, false);
}

static void
test_read_deregistered_region(void **state)
{
	(void)state;
	bad_region(T_PD_DEAD, false, 0, true);
}

/* past the real end of the server's region: remote access error */
static void
test_write_beyond_region(void **state)
{
	(void)state;
	bad_region(T_PD_MR, true, T_REGION + 1024, false);
}

static void
test_read_beyond_region(void **state)
{
	(void)state;
	bad_region(T_PD_MR, true, T_REGION - 32, true);
}

/*
 * the server is killed while the client writes: the client gets an error
 * completion and RPMA_CONN_LOST or CLOSED, all within the bound
 */
static void
test_server_killed(void **state)
{
	(void)state;
	uint8_t spd[T_PD_SIZE];
	struct rpma_conn_cfg *cfg;
	struct rpma_cq *cq;
	struct ibv_wc wc[8];
	int ok = 0, errors = 0, inflight = 0, n;
	bool killed = false;

	assert_int_equal(t_srv_start(&Srv, "rma", NULL), 0);
	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_sq_size(cfg, 16), 0);
	assert_int_equal(rpma_conn_cfg_set_cq_size(cfg, 16), 0);
	assert_int_equal(t_connect(Peer, Srv.port, cfg, NULL, 0, NULL, 0, 0, NULL, &Conn, spd), 0);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_int_equal(rpma_conn_get_cq(Conn, &cq), 0);
	assert_int_equal(rpma_mr_remote_from_descriptor(spd + T_PD_MR, T_MR_DESC, &Rmr), 0);
	memset(Local, 0x3c, T_REGION);

	long long end = t_now_ms() + LOSS_BOUND_MS;

	while (errors == 0) {
		assert_true(t_now_ms() < end);
		if (!killed && ok >= 50) {
			assert_int_equal(kill(Srv.pid, SIGKILL), 0);
			killed = true;
		}
		if (inflight < 8) {
			int ret = rpma_write(Conn, Rmr, 0, Lmr, 0, T_REGION,
					     RPMA_F_COMPLETION_ALWAYS, NULL);

			if (ret == 0)
				inflight++;
			else
				assert_int_equal(ret, RPMA_E_PROVIDER);
		}
		int ret = rpma_cq_get_wc(cq, 8, wc, &n);

		if (ret == RPMA_E_NO_COMPLETION) {
			usleep(100);
			continue;
		}
		assert_int_equal(ret, 0);
		for (int i = 0; i < n; i++) {
			inflight--;
			if (wc[i].status == IBV_WC_SUCCESS)
				ok++;
			else
				errors++;
		}
	}
	assert_true(killed);
	print_message("%d writes done, %d failed after the kill\n", ok, errors);
	expect_loss();
	assert_int_equal(rpma_conn_delete(&Conn), 0);
	assert_int_equal(t_srv_wait(&Srv, T_WAIT_MS), -1); /* killed, not exited */
}

/*
 * the client is killed while it writes into this process's region: the
 * receives posted here are flushed with errors, the connection is lost or
 * closed, within the bound; the listening endpoint works non-blocking
 */
static void
test_client_killed(void **state)
{
	(void)state;
	uint8_t pdata[T_PD_SIZE] = {0};
	struct rpma_conn_private_data pd = {.ptr = pdata, .len = T_PD_SIZE};
	struct rpma_conn_req *req = NULL;
	enum rpma_conn_event ev;
	struct rpma_cq *cq;
	struct ibv_wc wc;
	char port[16], line[64];
	int fd, ret;

	memset(Local, 0, T_REGION);
	assert_int_equal(rpma_mr_get_descriptor(Lmr, pdata + T_PD_MR), 0);
	for (int i = 0; i < 8 && !Ep; i++)
		(void)rpma_ep_listen(Peer, T_ADDR, t_next_port(port, sizeof(port)), &Ep);
	assert_non_null(Ep);
	assert_int_equal(rpma_ep_get_fd(Ep, &fd), 0);
	assert_int_equal(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
	assert_int_equal(rpma_ep_next_conn_req(Ep, NULL, &req), RPMA_E_NO_EVENT);
	assert_null(req);

	assert_int_equal(t_srv_exec(&Srv, "client", port, NULL), 0);
	struct pollfd pfd = {.fd = fd, .events = POLLIN};

	assert_int_equal(poll(&pfd, 1, T_WAIT_MS), 1);
	assert_int_equal(rpma_ep_next_conn_req(Ep, NULL, &req), 0);
	assert_int_equal(rpma_conn_req_recv(req, Lmr, T_REGION - 128, 64, (void *)1), 0);
	assert_int_equal(rpma_conn_req_recv(req, Lmr, T_REGION - 64, 64, (void *)2), 0);
	assert_int_equal(rpma_conn_req_connect(&req, &pd, &Conn), 0);
	assert_int_equal(t_wait_event(Conn, &ev, T_WAIT_MS), 0);
	assert_int_equal(ev, RPMA_CONN_ESTABLISHED);
	assert_int_equal(rpma_conn_get_cq(Conn, &cq), 0);

	assert_int_equal(t_srv_line(&Srv, "STREAMING", line, sizeof(line), T_WAIT_MS), 0);
	for (size_t i = 0; i < 1024; i++)
		assert_int_equal(Local[i], 0xc5); /* the client's bytes arrived */
	usleep(20000);				  /* in the middle of the stream */
	assert_int_equal(kill(Srv.pid, SIGKILL), 0);

	long long start = t_now_ms();

	expect_loss();
	/* both posted receives are flushed with an error status */
	bool seen[3] = {false};

	for (int i = 0; i < 2; i++) {
		ret = t_wait_wc(cq, &wc, LOSS_BOUND_MS);
		assert_int_equal(ret, 0);
		assert_int_not_equal(wc.status, IBV_WC_SUCCESS);
		assert_true(wc.wr_id == 1 || wc.wr_id == 2);
		assert_false(seen[wc.wr_id]);
		seen[wc.wr_id] = true;
	}
	assert_true(t_now_ms() - start < 2 * LOSS_BOUND_MS);
	(void)rpma_conn_disconnect(Conn);
	assert_int_equal(rpma_conn_delete(&Conn), 0);
	assert_int_equal(rpma_ep_shutdown(&Ep), 0);
	assert_null(Ep);
	assert_int_equal(t_srv_wait(&Srv, T_WAIT_MS), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_write_deregistered_region, test_teardown),
	    cmocka_unit_test_teardown(test_read_deregistered_region, test_teardown),
	    cmocka_unit_test_teardown(test_write_beyond_region, test_teardown),
	    cmocka_unit_test_teardown(test_read_beyond_region, test_teardown),
	    cmocka_unit_test_teardown(test_server_killed, test_teardown),
	    cmocka_unit_test_teardown(test_client_killed, test_teardown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
