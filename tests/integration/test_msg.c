/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_msg.c -- two-sided operations between two processes over softrdma:
 * rpma_send, rpma_send_with_imm, rpma_write_with_imm, rpma_recv,
 * rpma_conn_req_recv and rpma_srq_recv. The server answers every message it
 * receives with what its receive completion said (opcode, status, byte_len,
 * immediate data, op_context) and the bytes it got, so both sides'
 * completions are checked. Receive completions on the main CQ, on a
 * separate receive CQ, on a shared receive queue's CQ and through a shared
 * completion channel (rpma_conn_wait), on either side.
 */

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"

#define SEND_OFF 0
#define RECV_OFF 2048 /* receive slots of T_MSG bytes from here */

static struct rpma_peer *Peer;
static struct t_srv Srv;
static struct rpma_conn *Conn, *Conn2;
static struct rpma_srq *Srq;
static struct rpma_mr_remote *Rmr;
static struct rpma_mr_local *Lmr;
static uint8_t *Local;

/* completions taken while looking for another one */
static struct {
	struct rpma_cq *cq;
	struct ibv_wc wc;
} Stash[32];
static int Nstash;

static int
setup(void **state)
{
	(void)state;
	return t_setup_region(&Peer, 120,
			      RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV,
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
	(void)rpma_conn_delete(&Conn2);
	(void)rpma_srq_delete(&Srq);
	(void)rpma_mr_remote_delete(&Rmr);
	t_srv_kill(&Srv);
	Nstash = 0;
	return 0;
}

/* the completion of op_context ctx from cq, whatever came before it */
static void
take(struct rpma_cq *cq, uintptr_t ctx, struct ibv_wc *wc)
{
	long long end = t_now_ms() + T_WAIT_MS;

	for (int i = 0; i < Nstash; i++) {
		if (Stash[i].cq == cq && Stash[i].wc.wr_id == ctx) {
			*wc = Stash[i].wc;
			Stash[i] = Stash[--Nstash];
			return;
		}
	}
	for (;;) {
		int ret = rpma_cq_get_wc(cq, 1, wc, NULL);

		if (ret == 0 && wc->wr_id == ctx)
			return;
		if (ret == 0) {
			assert_true(Nstash < 32);
			Stash[Nstash].cq = cq;
			Stash[Nstash++].wc = *wc;
			continue;
		}
		assert_int_equal(ret, RPMA_E_NO_COMPLETION);
		assert_true(t_now_ms() < end);
		usleep(100);
	}
}

/* the receive completion of the server's answer in slot, and the answer */
static void
expect_echo(struct rpma_cq *cq, int slot, uint32_t reply_imm, struct t_echo *e)
{
	struct ibv_wc wc;

	take(cq, (uintptr_t)(100 + slot), &wc);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_RECV);
	assert_int_equal(wc.byte_len, sizeof(*e));
	assert_true(wc.wc_flags & IBV_WC_WITH_IMM);
	assert_int_equal(ntohl(wc.imm_data), reply_imm);
	memcpy(e, Local + RECV_OFF + (size_t)slot * T_MSG, sizeof(*e));
}

/* the successful send completion of op_context ctx */
static void
expect_send(struct rpma_cq *cq, uintptr_t ctx)
{
	struct ibv_wc wc;

	take(cq, ctx, &wc);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_SEND);
}

/* the server's WC line of its next receive completion contains what */
static void
expect_srv_wc(const char *what)
{
	char line[256];

	assert_int_equal(t_srv_line(&Srv, "WC ", line, sizeof(line), T_WAIT_MS), 0);
	if (strstr(line, what) == NULL)
		fail_msg("server: \"%s\" lacks \"%s\"", line, what);
}

/* close, then the server must end well */
static void
finish(void)
{
	static char line[T_LINE];

	assert_int_equal(t_close(&Conn), 0);
	assert_int_equal(t_close(&Conn2), 0);
	assert_int_equal(t_srv_line(&Srv, "DUMP ", line, sizeof(line), T_WAIT_MS), 0);
	assert_int_equal(t_srv_wait(&Srv, T_WAIT_MS), 0);
}

static void
connect_to(const char *const *opts, const struct rpma_conn_cfg *cfg, bool recv_on_req)
{
	uint8_t spd[T_PD_SIZE];

	assert_int_equal(t_srv_start(&Srv, "rma", opts), 0);
	memset(Local + RECV_OFF, 0, T_REGION - RECV_OFF);
	assert_int_equal(t_connect(Peer, Srv.port, cfg, NULL, 0, recv_on_req ? Lmr : NULL, RECV_OFF,
				   T_MSG, (void *)100, &Conn, spd),
			 0);
	assert_int_equal(rpma_mr_remote_from_descriptor(spd + T_PD_MR, T_MR_DESC, &Rmr), 0);
}

/*
 * a send reaches a receive posted on the server's request; the answer
 * reaches the receive the client posted on its request before connecting
 */
static void
test_send_recv(void **state)
{
	(void)state;
	struct rpma_cq *cq;
	struct t_echo e;

	connect_to(NULL, NULL, true);
	assert_int_equal(rpma_conn_get_cq(Conn, &cq), 0);
	memcpy(Local + SEND_OFF, "hello world", 11);
	assert_int_equal(rpma_send(Conn, Lmr, SEND_OFF, 11, RPMA_F_COMPLETION_ALWAYS, (void *)1),
			 0);
	expect_send(cq, 1);
	expect_echo(cq, 0, 11, &e);
	assert_int_equal(e.opcode, IBV_WC_RECV);
	assert_int_equal(e.status, IBV_WC_SUCCESS);
	assert_int_equal(e.byte_len, 11);
	assert_int_equal(e.with_imm, 0);
	assert_memory_equal(e.data, "hello world", 11);
	expect_srv_wc("src=cq op=128 status=0 len=11 imm=0:0");

	/* a second round: rpma_recv() on the connection, a message of 0 bytes */
	assert_int_equal(rpma_recv(Conn, Lmr, RECV_OFF + T_MSG, T_MSG, (void *)101), 0);
	assert_int_equal(rpma_send(Conn, NULL, 0, 0, RPMA_F_COMPLETION_ALWAYS, (void *)2), 0);
	expect_send(cq, 2);
	expect_echo(cq, 1, 0, &e);
	assert_int_equal(e.byte_len, 0);
	assert_int_equal(e.with_imm, 0);
	expect_srv_wc("len=0 imm=0:0");
	finish();
}

/* the immediate data of a send arrives in host order, both ways */
static void
test_send_with_imm(void **state)
{
	(void)state;
	struct rpma_cq *cq;
	struct t_echo e;

	connect_to(NULL, NULL, true);
	assert_int_equal(rpma_conn_get_cq(Conn, &cq), 0);
	memcpy(Local + SEND_OFF, "imm", 3);
	assert_int_equal(rpma_send_with_imm(Conn, Lmr, SEND_OFF, 3, RPMA_F_COMPLETION_ALWAYS,
					    0x12345678, (void *)7),
			 0);
	expect_send(cq, 7);
	expect_echo(cq, 0, 0x12345679, &e);
	assert_int_equal(e.opcode, IBV_WC_RECV);
	assert_int_equal(e.byte_len, 3);
	assert_int_equal(e.with_imm, 1);
	assert_int_equal(e.imm, 0x12345678);
	assert_memory_equal(e.data, "imm", 3);
	expect_srv_wc("op=128 status=0 len=3 imm=1:305419896");
	finish();
}

/*
 * write with immediate data: the bytes land in the server's region and its
 * receive completion is IBV_WC_RECV_RDMA_WITH_IMM with the write's length
 */
static void
test_write_with_imm(void **state)
{
	(void)state;
	uint8_t dump[T_REGION];
	struct rpma_cq *cq;
	struct ibv_wc wc;
	struct t_echo e;

	connect_to(NULL, NULL, false);
	assert_int_equal(rpma_conn_get_cq(Conn, &cq), 0);
	assert_int_equal(rpma_recv(Conn, Lmr, RECV_OFF, T_MSG, (void *)100), 0);
	for (int i = 0; i < 100; i++)
		Local[SEND_OFF + i] = (uint8_t)(200 - i);
	assert_int_equal(rpma_write_with_imm(Conn, Rmr, 3000, Lmr, SEND_OFF, 100,
					     RPMA_F_COMPLETION_ALWAYS, 0xcafe, (void *)9),
			 0);
	take(cq, 9, &wc);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_RDMA_WRITE);
	expect_echo(cq, 0, 0xcaff, &e);
	assert_int_equal(e.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	assert_int_equal(e.status, IBV_WC_SUCCESS);
	assert_int_equal(e.byte_len, 100);
	assert_int_equal(e.with_imm, 1);
	assert_int_equal(e.imm, 0xcafe);
	expect_srv_wc("op=129 status=0 len=100 imm=1:51966");

	assert_int_equal(t_close(&Conn), 0);
	assert_int_equal(t_srv_dump(&Srv, dump), T_REGION);
	assert_int_equal(t_srv_wait(&Srv, T_WAIT_MS), 0);
	assert_memory_equal(dump + 3000, Local + SEND_OFF, 100);
	assert_int_equal(dump[2999], t_pattern(2999));
	assert_int_equal(dump[3100], t_pattern(3100));
}

/*
 * a receive buffer too small for the message: the receive completes with an
 * error status (IBV_WC_LOC_LEN_ERR) and the right op_context
 */
static void
test_recv_too_small(void **state)
{
	(void)state;
	struct rpma_cq *cq;
	struct ibv_wc wc;

	connect_to(NULL, NULL, false);
	assert_int_equal(rpma_conn_get_cq(Conn, &cq), 0);
	assert_int_equal(rpma_recv(Conn, NULL, 0, 0, (void *)100), 0); /* an empty buffer */
	assert_int_equal(rpma_send(Conn, Lmr, SEND_OFF, 5, RPMA_F_COMPLETION_ALWAYS, (void *)3), 0);
	take(cq, 100, &wc);
	assert_int_equal(wc.status, IBV_WC_LOC_LEN_ERR);
	expect_srv_wc("status=0 len=5");
	(void)rpma_conn_disconnect(Conn);
	assert_int_equal(rpma_conn_delete(&Conn), 0);
	assert_int_equal(t_srv_wait(&Srv, T_WAIT_MS), 0);
}

/* one exchange on a connection: send_with_imm imm, the answer in slot */
static void
exchange(struct rpma_conn *conn, struct rpma_cq *send_cq, struct rpma_cq *recv_cq, int slot,
	 uint32_t imm)
{
	struct t_echo e;

	snprintf((char *)Local + SEND_OFF + slot * 16, 16, "msg %d", slot);
	assert_int_equal(rpma_send_with_imm(conn, Lmr, SEND_OFF + (size_t)slot * 16, 16,
					    RPMA_F_COMPLETION_ALWAYS, imm,
					    (void *)(uintptr_t)(50 + slot)),
			 0);
	expect_send(send_cq, 50 + (uintptr_t)slot);
	expect_echo(recv_cq, slot, imm + 1, &e);
	assert_int_equal(e.opcode, IBV_WC_RECV);
	assert_int_equal(e.byte_len, 16);
	assert_int_equal(e.imm, imm);
	assert_string_equal((char *)e.data, (char *)Local + SEND_OFF + slot * 16);
}

/*
 * the server's shared receive queue (with its own CQ) serves two
 * connections; each answer goes back on the connection its message came on
 */
static void
test_server_srq(void **state)
{
	(void)state;
	const char *opts[] = {"srq=1", "conns=2", NULL};
	struct rpma_cq *cq, *cq2;

	connect_to(opts, NULL, true);
	assert_int_equal(t_connect(Peer, Srv.port, NULL, NULL, 0, Lmr, RECV_OFF + T_MSG, T_MSG,
				   (void *)101, &Conn2, NULL),
			 0);
	assert_int_equal(rpma_conn_get_cq(Conn, &cq), 0);
	assert_int_equal(rpma_conn_get_cq(Conn2, &cq2), 0);
	exchange(Conn2, cq2, cq2, 1, 2000);
	expect_srv_wc("src=srq op=128 status=0 len=16 imm=1:2000");
	exchange(Conn, cq, cq, 0, 1000);
	expect_srv_wc("src=srq op=128 status=0 len=16 imm=1:1000");
	finish();
}

/* the server's receive completions on a separate receive CQ */
static void
test_server_rcq(void **state)
{
	(void)state;
	const char *opts[] = {"rcq=1", NULL};
	struct rpma_cq *cq;

	connect_to(opts, NULL, true);
	assert_int_equal(rpma_conn_get_cq(Conn, &cq), 0);
	exchange(Conn, cq, cq, 0, 42);
	expect_srv_wc("src=rcq op=128 status=0 len=16 imm=1:42");
	finish();
}

/* the server's CQ and receive CQ share a channel (it uses rpma_conn_wait) */
static void
test_server_shared_channel(void **state)
{
	(void)state;
	const char *opts[] = {"rcq=1", "shared=1", NULL};
	struct rpma_cq *cq;

	connect_to(opts, NULL, true);
	assert_int_equal(rpma_conn_get_cq(Conn, &cq), 0);
	exchange(Conn, cq, cq, 0, 43);
	expect_srv_wc("src=rcq op=128 status=0 len=16 imm=1:43");
	finish();
}

/* the client's answers land on its separate receive CQ, waited for */
static void
test_client_rcq(void **state)
{
	(void)state;
	struct rpma_conn_cfg *cfg;
	struct rpma_cq *cq, *rcq;
	struct ibv_wc wc;

	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, 8), 0);
	connect_to(NULL, cfg, true);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_int_equal(rpma_conn_get_cq(Conn, &cq), 0);
	assert_int_equal(rpma_conn_get_rcq(Conn, &rcq), 0);
	assert_non_null(rcq);
	assert_ptr_not_equal(cq, rcq);
	exchange(Conn, cq, rcq, 0, 1);
	/* nothing on the main CQ but the send */
	assert_int_equal(rpma_cq_get_wc(cq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);

	/* blocking wait on the receive CQ */
	assert_int_equal(rpma_recv(Conn, Lmr, RECV_OFF + T_MSG, T_MSG, (void *)101), 0);
	assert_int_equal(rpma_send(Conn, Lmr, SEND_OFF, 4, RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
	assert_int_equal(rpma_cq_wait(rcq), 0);
	take(rcq, 101, &wc);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(ntohl(wc.imm_data), 4);
	finish();
}

/*
 * the client's CQ and receive CQ share a completion channel: as in librpma
 * 1.3 both CQs give its fd, rpma_cq_wait() refuses, rpma_conn_wait() tells
 * which CQ has a completion
 */
static void
test_client_shared_channel(void **state)
{
	(void)state;
	struct rpma_conn_cfg *cfg;
	struct rpma_cq *cq, *rcq, *which;
	struct ibv_wc wc;
	bool is_rcq, saw_cq = false, saw_rcq = false;
	int fd, cq_fd = -1, rcq_fd = -1;

	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, 8), 0);
	assert_int_equal(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	connect_to(NULL, cfg, true);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_int_equal(rpma_conn_get_cq(Conn, &cq), 0);
	assert_int_equal(rpma_conn_get_rcq(Conn, &rcq), 0);
	assert_int_equal(rpma_conn_get_compl_fd(Conn, &fd), 0);
	assert_int_equal(rpma_cq_get_fd(cq, &cq_fd), 0);
	assert_int_equal(rpma_cq_get_fd(rcq, &rcq_fd), 0);
	assert_int_equal(cq_fd, fd);
	assert_int_equal(rcq_fd, fd);
	assert_int_equal(rpma_cq_wait(cq), RPMA_E_SHARED_CHANNEL);

	assert_int_equal(rpma_send(Conn, Lmr, SEND_OFF, 8, RPMA_F_COMPLETION_ALWAYS, (void *)5), 0);
	while (!saw_cq || !saw_rcq) {
		which = NULL;
		assert_int_equal(rpma_conn_wait(Conn, 0, &which, &is_rcq), 0);
		if (which == cq) {
			assert_false(is_rcq);
			if (rpma_cq_get_wc(cq, 1, &wc, NULL) == 0) {
				assert_int_equal(wc.wr_id, 5);
				assert_int_equal(wc.opcode, IBV_WC_SEND);
				saw_cq = true;
			}
		} else {
			assert_ptr_equal(which, rcq);
			assert_true(is_rcq);
			if (rpma_cq_get_wc(rcq, 1, &wc, NULL) == 0) {
				assert_int_equal(wc.wr_id, 100);
				assert_int_equal(wc.opcode, IBV_WC_RECV);
				assert_int_equal(ntohl(wc.imm_data), 8);
				saw_rcq = true;
			}
		}
	}
	assert_int_equal(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
	assert_int_equal(rpma_conn_wait(Conn, 0, NULL, NULL), RPMA_E_NO_COMPLETION);
	/* the reserved flags are ignored, as in librpma 1.3 */
	assert_int_equal(rpma_conn_wait(Conn, 1, NULL, NULL), RPMA_E_NO_COMPLETION);
	finish();
}

/*
 * the client's own shared receive queue: receives posted with
 * rpma_srq_recv() complete on its CQ with the connection's QP number
 */
static void
test_client_srq(void **state)
{
	(void)state;
	struct rpma_srq_cfg *scfg;
	struct rpma_conn_cfg *cfg;
	struct rpma_cq *cq, *srq_cq;
	uint32_t qpn;
	struct ibv_wc wc;
	struct t_echo e;

	assert_int_equal(rpma_srq_cfg_new(&scfg), 0);
	assert_int_equal(rpma_srq_cfg_set_rq_size(scfg, 8), 0);
	assert_int_equal(rpma_srq_cfg_set_rcq_size(scfg, 8), 0);
	assert_int_equal(rpma_srq_new(Peer, scfg, &Srq), 0);
	assert_int_equal(rpma_srq_cfg_delete(&scfg), 0);
	assert_int_equal(rpma_srq_get_rcq(Srq, &srq_cq), 0);
	assert_non_null(srq_cq);
	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_srq(cfg, Srq), 0);
	memset(Local + RECV_OFF, 0, T_MSG * 2);
	assert_int_equal(rpma_srq_recv(Srq, Lmr, RECV_OFF, T_MSG, (void *)100), 0);
	assert_int_equal(rpma_srq_recv(Srq, Lmr, RECV_OFF + T_MSG, T_MSG, (void *)101), 0);
	connect_to(NULL, cfg, false);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_int_equal(rpma_conn_get_cq(Conn, &cq), 0);
	assert_int_equal(rpma_conn_get_qp_num(Conn, &qpn), 0);
	struct rpma_cq *rcq;

	assert_int_equal(rpma_conn_get_rcq(Conn, &rcq), 0);
	assert_ptr_equal(rcq, srq_cq); /* the connection receives on the SRQ's CQ */

	assert_int_equal(
	    rpma_send_with_imm(Conn, Lmr, SEND_OFF, 6, RPMA_F_COMPLETION_ALWAYS, 77, (void *)1), 0);
	expect_send(cq, 1);
	take(srq_cq, 100, &wc);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_RECV);
	assert_int_equal(wc.qp_num, qpn);
	assert_int_equal(ntohl(wc.imm_data), 78);
	memcpy(&e, Local + RECV_OFF, sizeof(e));
	assert_int_equal(e.imm, 77);
	assert_int_equal(e.byte_len, 6);
	/* the second buffer is still posted */
	assert_int_equal(rpma_cq_get_wc(srq_cq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	finish();
	assert_int_equal(rpma_srq_delete(&Srq), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_send_recv, test_teardown),
	    cmocka_unit_test_teardown(test_send_with_imm, test_teardown),
	    cmocka_unit_test_teardown(test_write_with_imm, test_teardown),
	    cmocka_unit_test_teardown(test_recv_too_small, test_teardown),
	    cmocka_unit_test_teardown(test_server_srq, test_teardown),
	    cmocka_unit_test_teardown(test_server_rcq, test_teardown),
	    cmocka_unit_test_teardown(test_server_shared_channel, test_teardown),
	    cmocka_unit_test_teardown(test_client_rcq, test_teardown),
	    cmocka_unit_test_teardown(test_client_shared_channel, test_teardown),
	    cmocka_unit_test_teardown(test_client_srq, test_teardown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
