/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_rma.c -- one-sided operations between two processes over softrdma:
 * rpma_read, rpma_write, rpma_atomic_write, rpma_write_atomic and rpma_flush
 * move the right bytes into the other process's memory (checked there) and
 * produce completions with the right opcode, status, byte count and
 * op_context; the 0.11 rpma_cq_get_completion() reports the same; waiting on
 * the CQ fd works, blocking and non-blocking; the flush types are refused
 * when the remote region or the remote peer does not support them.
 */

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

static struct rpma_peer *Peer;
static struct t_srv Srv;
static struct rpma_conn *Conn;
static struct rpma_cq *Cq;
static struct rpma_mr_remote *Rmr, *Noflush;
static struct rpma_mr_local *Lmr;
static uint8_t *Local;
static uint8_t Spd[T_PD_SIZE];
static uint8_t Dump[T_REGION];

static int
setup(void **state)
{
	(void)state;
	return t_setup_region(&Peer, 120,
			      RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC |
				  RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV,
			      &Local, &Lmr);
}

static int
teardown(void **state)
{
	(void)state;
	return t_teardown_region(&Peer, &Local, &Lmr);
}

/* start a server with opts and connect to it */
static void
open_rma(const char *const *opts)
{
	assert_int_equal(t_srv_connect(&Srv, opts, Peer, NULL, "rma", 3, &Conn, Spd), 0);
	assert_int_equal(rpma_conn_get_cq(Conn, &Cq), 0);
	assert_int_equal(rpma_mr_remote_from_descriptor(Spd + T_PD_MR, T_MR_DESC, &Rmr), 0);
	assert_int_equal(rpma_mr_remote_from_descriptor(Spd + T_PD_NOFLUSH, T_MR_DESC, &Noflush),
			 0);
}

/* close the connection, take the server's final region into Dump */
static void
close_rma(void)
{
	assert_int_equal(t_close(&Conn), 0);
	assert_int_equal(t_srv_dump(&Srv, Dump), T_REGION);
	assert_int_equal(t_srv_wait(&Srv, T_WAIT_MS), 0);
}

static int
test_teardown(void **state)
{
	(void)state;
	(void)rpma_conn_delete(&Conn);
	(void)rpma_mr_remote_delete(&Rmr);
	(void)rpma_mr_remote_delete(&Noflush);
	t_srv_kill(&Srv);
	return 0;
}

/* one successful completion of op_context with opcode */
static void
expect_wc(enum ibv_wc_opcode opcode, const void *ctx, struct ibv_wc *wc)
{
	assert_int_equal(t_wait_wc(Cq, wc, T_WAIT_MS), 0);
	assert_int_equal(wc->status, IBV_WC_SUCCESS);
	assert_int_equal(wc->opcode, opcode);
	assert_ptr_equal((void *)(uintptr_t)wc->wr_id, ctx);
}

/* the remote region, read whole, is the server's pattern */
static void
test_read(void **state)
{
	(void)state;
	struct ibv_wc wc;
	int ctx;

	open_rma(NULL);
	memset(Local, 0, T_REGION);
	assert_int_equal(rpma_read(Conn, Lmr, 0, Rmr, 0, T_REGION, RPMA_F_COMPLETION_ALWAYS, &ctx),
			 0);
	expect_wc(IBV_WC_RDMA_READ, &ctx, &wc);
	assert_int_equal(wc.byte_len, T_REGION);
	for (size_t i = 0; i < T_REGION; i++)
		assert_int_equal(Local[i], t_pattern(i));

	/* a part, at offsets on both sides */
	memset(Local, 0, T_REGION);
	assert_int_equal(rpma_read(Conn, Lmr, 100, Rmr, 1000, 333, RPMA_F_COMPLETION_ALWAYS, &wc),
			 0);
	expect_wc(IBV_WC_RDMA_READ, &wc, &wc);
	for (size_t i = 0; i < 333; i++)
		assert_int_equal(Local[100 + i], t_pattern(1000 + i));
	assert_int_equal(Local[99], 0);
	assert_int_equal(Local[433], 0);

	/*
	 * out of the remote region: posted, as librpma 1.3 posts it; the
	 * device refuses it with an error completion
	 */
	assert_int_equal(
	    rpma_read(Conn, Lmr, 0, Rmr, T_REGION - 8, 16, RPMA_F_COMPLETION_ON_ERROR, &ctx), 0);
	assert_int_equal(t_wait_wc(Cq, &wc, T_WAIT_MS), 0);
	assert_int_equal(wc.status, IBV_WC_REM_ACCESS_ERR);
	assert_ptr_equal((void *)(uintptr_t)wc.wr_id, &ctx);
	close_rma();
}

/* written bytes land in the server's memory, the rest is untouched */
static void
test_write(void **state)
{
	(void)state;
	struct ibv_wc wc;
	int ctx;

	open_rma(NULL);
	for (size_t i = 0; i < T_REGION; i++)
		Local[i] = (uint8_t)(0xff - i);
	assert_int_equal(rpma_write(Conn, Rmr, 1024, Lmr, 0, 1024, RPMA_F_COMPLETION_ALWAYS, &ctx),
			 0);
	expect_wc(IBV_WC_RDMA_WRITE, &ctx, &wc);

	/* visible to a read that follows */
	memset(Local + 2048, 0, 1024);
	assert_int_equal(rpma_read(Conn, Lmr, 2048, Rmr, 1024, 1024, RPMA_F_COMPLETION_ALWAYS, &wc),
			 0);
	expect_wc(IBV_WC_RDMA_READ, &wc, &wc);
	assert_memory_equal(Local + 2048, Local, 1024);

	close_rma();
	for (size_t i = 0; i < T_REGION; i++) {
		uint8_t want =
		    (i >= 1024 && i < 2048) ? (uint8_t)(0xff - (i - 1024)) : t_pattern(i);

		assert_int_equal(Dump[i], want);
	}
}

/*
 * RPMA_F_COMPLETION_ON_ERROR: a successful write gives no completion, the
 * signaled read after it gives exactly one
 */
static void
test_completion_on_error_only(void **state)
{
	(void)state;
	struct ibv_wc wc[4];
	int n, ctx;

	open_rma(NULL);
	memset(Local, 0x5a, 64);
	assert_int_equal(rpma_write(Conn, Rmr, 0, Lmr, 0, 64, RPMA_F_COMPLETION_ON_ERROR, NULL), 0);
	assert_int_equal(rpma_read(Conn, Lmr, 64, Rmr, 0, 64, RPMA_F_COMPLETION_ALWAYS, &ctx), 0);
	expect_wc(IBV_WC_RDMA_READ, &ctx, &wc[0]);
	assert_memory_equal(Local + 64, Local, 64);
	usleep(20000);
	assert_int_equal(rpma_cq_get_wc(Cq, 4, wc, &n), RPMA_E_NO_COMPLETION);
	close_rma();
	for (size_t i = 0; i < 64; i++)
		assert_int_equal(Dump[i], 0x5a);
}

/*
 * both atomic writes store 8 aligned bytes; unaligned offsets are refused;
 * one past the region is the device's to refuse, with an error completion
 */
static void
test_atomic_writes(void **state)
{
	(void)state;
	struct ibv_wc wc;
	const char val[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	int ctx1, ctx2, ctx3;

	open_rma(NULL);
	assert_int_equal(rpma_atomic_write(Conn, Rmr, 3, val, RPMA_F_COMPLETION_ALWAYS, NULL),
			 RPMA_E_INVAL);
	assert_int_equal(rpma_atomic_write(Conn, Rmr, 2048, val, RPMA_F_COMPLETION_ALWAYS, &ctx1),
			 0);
	assert_int_equal(t_wait_wc(Cq, &wc, T_WAIT_MS), 0);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_true(wc.opcode == IBV_WC_ATOMIC_WRITE || wc.opcode == IBV_WC_RDMA_WRITE);
	assert_ptr_equal((void *)(uintptr_t)wc.wr_id, &ctx1);

	memcpy(Local + 8, "ABCDEFGH", 8);
	assert_int_equal(
	    rpma_write_atomic(Conn, Rmr, 2056, Lmr, 8, RPMA_F_COMPLETION_ALWAYS, &ctx2), 0);
	assert_int_equal(t_wait_wc(Cq, &wc, T_WAIT_MS), 0);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_true(wc.opcode == IBV_WC_ATOMIC_WRITE || wc.opcode == IBV_WC_RDMA_WRITE);
	assert_ptr_equal((void *)(uintptr_t)wc.wr_id, &ctx2);

	assert_int_equal(
	    rpma_atomic_write(Conn, Rmr, T_REGION, val, RPMA_F_COMPLETION_ON_ERROR, &ctx3), 0);
	assert_int_equal(t_wait_wc(Cq, &wc, T_WAIT_MS), 0);
	assert_int_equal(wc.status, IBV_WC_REM_ACCESS_ERR);
	assert_ptr_equal((void *)(uintptr_t)wc.wr_id, &ctx3);
	close_rma();
	assert_memory_equal(Dump + 2048, val, 8);
	assert_memory_equal(Dump + 2056, "ABCDEFGH", 8);
	assert_int_equal(Dump[2047], t_pattern(2047));
	assert_int_equal(Dump[2064], t_pattern(2064));
}

/*
 * flush: visibility works on a region that declares it; persistent needs
 * both the region's usage and the peer's direct write to PMem (applied from
 * its configuration); a region without flush usages refuses both
 */
static void
flush_case(int server_pmem)
{
	const char *opts[] = {server_pmem ? "pmem=1" : "pmem=0", NULL};
	struct rpma_peer_cfg *pcfg;
	struct ibv_wc wc;
	int ctx;

	open_rma(opts);
	memset(Local, 0x77, 512);
	assert_int_equal(rpma_write(Conn, Rmr, 512, Lmr, 0, 512, RPMA_F_COMPLETION_ON_ERROR, NULL),
			 0);
	assert_int_equal(rpma_flush(Conn, Rmr, 512, 512, RPMA_FLUSH_TYPE_VISIBILITY,
				    RPMA_F_COMPLETION_ALWAYS, &ctx),
			 0);
	assert_int_equal(t_wait_wc(Cq, &wc, T_WAIT_MS), 0);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_ptr_equal((void *)(uintptr_t)wc.wr_id, &ctx);

	/* not declared yet: the library assumes no direct write to PMem */
	assert_int_equal(rpma_flush(Conn, Rmr, 0, 64, RPMA_FLUSH_TYPE_PERSISTENT,
				    RPMA_F_COMPLETION_ALWAYS, NULL),
			 RPMA_E_NOSUPP);
	assert_int_equal(rpma_peer_cfg_from_descriptor(Spd + T_PD_PCFG, T_PCFG_DESC, &pcfg), 0);
	assert_int_equal(rpma_conn_apply_remote_peer_cfg(Conn, pcfg), 0);
	assert_int_equal(rpma_peer_cfg_delete(&pcfg), 0);
	int ret = rpma_flush(Conn, Rmr, 512, 512, RPMA_FLUSH_TYPE_PERSISTENT,
			     RPMA_F_COMPLETION_ALWAYS, &ctx);

	if (server_pmem) {
		assert_int_equal(ret, 0);
		assert_int_equal(t_wait_wc(Cq, &wc, T_WAIT_MS), 0);
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		assert_ptr_equal((void *)(uintptr_t)wc.wr_id, &ctx);
	} else {
		assert_int_equal(ret, RPMA_E_NOSUPP);
	}

	/* a region without flush usages refuses both, whatever the peer */
	assert_int_equal(rpma_flush(Conn, Noflush, 0, 64, RPMA_FLUSH_TYPE_VISIBILITY,
				    RPMA_F_COMPLETION_ALWAYS, NULL),
			 RPMA_E_NOSUPP);
	assert_int_equal(rpma_flush(Conn, Noflush, 0, 64, RPMA_FLUSH_TYPE_PERSISTENT,
				    RPMA_F_COMPLETION_ALWAYS, NULL),
			 RPMA_E_NOSUPP);
	/* nothing was posted by the refused calls */
	assert_int_equal(rpma_cq_get_wc(Cq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	close_rma();
	for (size_t i = 512; i < 1024; i++)
		assert_int_equal(Dump[i], 0x77);
}

static void
test_flush_peer_without_pmem(void **state)
{
	(void)state;
	flush_case(0);
}

static void
test_flush_peer_with_pmem(void **state)
{
	(void)state;
	flush_case(1);
}

/* the 0.11 rpma_cq_get_completion() reports op, status, length, context */
static void
test_get_completion(void **state)
{
	(void)state;
	struct rpma_completion cmpl;
	int ctx1, ctx2;

	open_rma(NULL);
	assert_int_equal(rpma_write(Conn, Rmr, 0, Lmr, 0, 128, RPMA_F_COMPLETION_ALWAYS, &ctx1), 0);
	long long end = t_now_ms() + T_WAIT_MS;
	int ret;

	while ((ret = rpma_cq_get_completion(Cq, &cmpl)) == RPMA_E_NO_COMPLETION &&
	       t_now_ms() < end)
		usleep(100);
	assert_int_equal(ret, 0);
	assert_int_equal(cmpl.op, RPMA_OP_WRITE);
	assert_int_equal(cmpl.op_status, IBV_WC_SUCCESS);
	assert_ptr_equal(cmpl.op_context, &ctx1);
	assert_int_equal(cmpl.flags & IBV_WC_WITH_IMM, 0);
	assert_int_equal(cmpl.imm, 0);

	assert_int_equal(rpma_read(Conn, Lmr, 0, Rmr, 256, 200, RPMA_F_COMPLETION_ALWAYS, &ctx2),
			 0);
	while ((ret = rpma_cq_get_completion(Cq, &cmpl)) == RPMA_E_NO_COMPLETION &&
	       t_now_ms() < end)
		usleep(100);
	assert_int_equal(ret, 0);
	assert_int_equal(cmpl.op, RPMA_OP_READ);
	assert_int_equal(cmpl.op_status, IBV_WC_SUCCESS);
	assert_int_equal(cmpl.byte_len, 200);
	assert_ptr_equal(cmpl.op_context, &ctx2);
	assert_int_equal(rpma_cq_get_completion(Cq, &cmpl), RPMA_E_NO_COMPLETION);
	close_rma();
}

/*
 * the CQ's fd: blocking rpma_cq_wait() returns once a completion came;
 * non-blocking, it says RPMA_E_NO_COMPLETION while nothing did
 */
static void
test_cq_wait_and_fd(void **state)
{
	(void)state;
	struct ibv_wc wc;
	int fd, n, ctx;

	open_rma(NULL);
	assert_int_equal(rpma_cq_get_fd(Cq, &fd), 0);
	assert_int_equal(rpma_conn_get_compl_fd(Conn, &n), RPMA_E_NOT_SHARED_CHNL);
	assert_int_equal(rpma_conn_wait(Conn, 0, NULL, NULL), RPMA_E_NOT_SHARED_CHNL);

	/* blocking */
	assert_int_equal(rpma_read(Conn, Lmr, 0, Rmr, 0, 8, RPMA_F_COMPLETION_ALWAYS, &ctx), 0);
	assert_int_equal(rpma_cq_wait(Cq), 0);
	expect_wc(IBV_WC_RDMA_READ, &ctx, &wc);

	/* non-blocking */
	assert_int_equal(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
	assert_int_equal(rpma_cq_wait(Cq), RPMA_E_NO_COMPLETION);
	assert_int_equal(rpma_cq_get_wc(Cq, 1, &wc, NULL), RPMA_E_NO_COMPLETION);
	assert_int_equal(rpma_read(Conn, Lmr, 0, Rmr, 0, 8, RPMA_F_COMPLETION_ALWAYS, &ctx), 0);
	struct pollfd pfd = {.fd = fd, .events = POLLIN};

	assert_int_equal(poll(&pfd, 1, T_WAIT_MS), 1);
	assert_int_equal(rpma_cq_wait(Cq), 0);
	assert_int_equal(rpma_cq_get_wc(Cq, 1, &wc, &n), 0);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_ptr_equal((void *)(uintptr_t)wc.wr_id, &ctx);
	assert_int_equal(rpma_cq_wait(Cq), RPMA_E_NO_COMPLETION);

	/* several completions in one call */
	for (int i = 0; i < 3; i++)
		assert_int_equal(rpma_read(Conn, Lmr, 8 * (size_t)i, Rmr, 0, 8,
					   RPMA_F_COMPLETION_ALWAYS, (void *)(uintptr_t)(i + 1)),
				 0);
	struct ibv_wc wcs[8];
	int got = 0;
	long long end = t_now_ms() + T_WAIT_MS;

	while (got < 3 && t_now_ms() < end) {
		int ret = rpma_cq_get_wc(Cq, 8, wcs + got, &n);

		if (ret == 0)
			got += n;
		else
			assert_int_equal(ret, RPMA_E_NO_COMPLETION);
	}
	assert_int_equal(got, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(wcs[i].status, IBV_WC_SUCCESS);
		assert_int_equal(wcs[i].wr_id, i + 1); /* in order on one QP */
	}
	close_rma();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_read, test_teardown),
	    cmocka_unit_test_teardown(test_write, test_teardown),
	    cmocka_unit_test_teardown(test_completion_on_error_only, test_teardown),
	    cmocka_unit_test_teardown(test_atomic_writes, test_teardown),
	    cmocka_unit_test_teardown(test_flush_peer_without_pmem, test_teardown),
	    cmocka_unit_test_teardown(test_flush_peer_with_pmem, test_teardown),
	    cmocka_unit_test_teardown(test_get_completion, test_teardown),
	    cmocka_unit_test_teardown(test_cq_wait_and_fd, test_teardown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
