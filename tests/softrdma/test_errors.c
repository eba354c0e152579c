/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmocka tests of softrdma's error paths: CQ overflow, flushing after the
 * error state, send-queue slots held by unsignaled WRs, memory unmapped
 * after registration, stale and under-privileged keys. Two RC QPs in one
 * process are connected to each other over 127.0.0.1; the responder side
 * is this very process, so a fault there would crash the test.
 */
#define _GNU_SOURCE
#include "softrdma_test.h"

#define BUF 8192

/* Build a connected pair: CQs of @cqe entries, send queues of @sq entries. */
static struct t_pair *
make_pair(int cqe, uint32_t sq, int access1)
{
	const struct t_pair_cfg c = {
	    .cqe = cqe,
	    .send_wr = sq,
	    .recv_wr = 8,
	    .sge = 1,
	    .len = BUF,
	    .access = {T_ACCESS_ALL, access1},
	    .rnr_retry = {7, 7},
	};

	return t_pair_new(&c);
}

/* The default pair: roomy CQs, 4-entry send queues, full access. */
static int
setup(void **state)
{
	*state = make_pair(64, 4, T_ACCESS_ALL);
	return 0;
}

/* Release a pair (buffers may already be unmapped). */
static int
teardown(void **state)
{
	t_pair_free(*state);
	return 0;
}

/* State of @qp. */
static enum ibv_qp_state
qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	assert_int_equal(ibv_query_qp(qp, &a, IBV_QP_STATE, &ia), 0);
	return a.qp_state;
}

/* Wait for an async event of @type on @ctx; fail after T_WAIT_MS. */
static struct ibv_async_event
wait_async(struct ibv_context *ctx, enum ibv_event_type type)
{
	struct pollfd pfd = {.fd = ctx->async_fd, .events = POLLIN};
	int64_t end = t_now_ms() + T_WAIT_MS;
	struct ibv_async_event ev;

	memset(&ev, 0, sizeof(ev));
	while (t_now_ms() < end) {
		if (poll(&pfd, 1, 100) != 1)
			continue;
		assert_int_equal(ibv_get_async_event(ctx, &ev), 0);
		ibv_ack_async_event(&ev);
		if (ev.event_type == type)
			return ev;
	}
	fail_msg("no async event %s", ibv_event_type_str(type));
	return ev;
}

/* CQ overflow: IBV_EVENT_CQ_ERR, and the QP that overflowed it is in error. */
static void
test_cq_overflow(void **state)
{
	struct t_pair *p = make_pair(2, 8, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	struct ibv_async_event ev;
	int i, n;

	*state = p;
	n = p->cq[0]->cqe + 2;
	assert_true(n <= 8);
	for (i = 0; i < n; i++)
		assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
					(uintptr_t)p->buf[1], p->mr[1]->rkey, IBV_SEND_SIGNALED, i),
				 0);
	ev = wait_async(p->ctx, IBV_EVENT_CQ_ERR);
	assert_ptr_equal(ev.element.cq, p->cq[0]);
	for (i = 0; i < 100 && qp_state(p->qp[0]) != IBV_QPS_ERR; i++)
		usleep(10000);
	assert_int_equal(qp_state(p->qp[0]), IBV_QPS_ERR);
}

/*
 * CQ overflow as an RNIC does it: IBV_EVENT_CQ_ERR, and every QP completing
 * on that CQ (not only the one whose completion overflowed) gets
 * IBV_EVENT_QP_FATAL and enters the error state; a CQ in use cannot be
 * destroyed meanwhile.
 */
static void
test_cq_overflow_all_qps(void **state)
{
	struct t_pair *p = make_pair(2, 8, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	struct ibv_qp_init_attr ia = t_rc_attr(p->cq[0], 4, 4, 1);
	struct ibv_qp *other = ibv_create_qp(p->pd, &ia), *peer;
	struct ibv_async_event ev;
	int i, fatal_first = 0, fatal_other = 0, cq_err = 0;
	int64_t end;

	*state = p;
	ia = t_rc_attr(p->cq[1], 4, 4, 1);
	peer = ibv_create_qp(p->pd, &ia);
	assert_non_null(other);
	assert_non_null(peer);
	t_connect_qp(other, peer->qp_num, T_ACCESS_ALL, 7);
	t_connect_qp(peer, other->qp_num, T_ACCESS_ALL, 7);
	for (i = 0; i < p->cq[0]->cqe + 2; i++)
		assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
					(uintptr_t)p->buf[1], p->mr[1]->rkey, IBV_SEND_SIGNALED, i),
				 0);
	end = t_now_ms() + T_WAIT_MS;
	while (!(cq_err && fatal_first && fatal_other) && t_now_ms() < end) {
		struct pollfd pfd = {.fd = p->ctx->async_fd, .events = POLLIN};

		if (poll(&pfd, 1, 100) != 1)
			continue;
		assert_int_equal(ibv_get_async_event(p->ctx, &ev), 0);
		cq_err |= ev.event_type == IBV_EVENT_CQ_ERR && ev.element.cq == p->cq[0];
		fatal_first |= ev.event_type == IBV_EVENT_QP_FATAL && ev.element.qp == p->qp[0];
		fatal_other |= ev.event_type == IBV_EVENT_QP_FATAL && ev.element.qp == other;
		assert_false(ev.event_type == IBV_EVENT_QP_FATAL && ev.element.qp == peer);
		ibv_ack_async_event(&ev);
	}
	assert_true(cq_err);
	assert_true(fatal_first);
	assert_true(fatal_other);
	assert_int_equal(qp_state(p->qp[0]), IBV_QPS_ERR);
	assert_int_equal(qp_state(other), IBV_QPS_ERR);
	assert_int_equal(ibv_destroy_cq(p->cq[0]), EBUSY);
	assert_int_equal(ibv_destroy_qp(other), 0);
	assert_int_equal(ibv_destroy_qp(peer), 0);
}

/* Everything posted after the QP entered the error state completes flushed. */
static void
test_flush_after_err(void **state)
{
	struct t_pair *p = *state;
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};
	struct ibv_wc wc;
	int i;

	t_post_recv(p->qp[0], p->mr[0], p->buf[0], 64, 500);
	assert_int_equal(ibv_modify_qp(p->qp[0], &a, IBV_QP_STATE), 0);
	wc = t_wait_wc(p->cq[0]);
	assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
	assert_int_equal(wc.wr_id, 500);
	t_post_recv(p->qp[0], p->mr[0], p->buf[0], 64, 501);
	/* unsignaled or not, error completions are always generated */
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
				(uintptr_t)p->buf[1], p->mr[1]->rkey, 0, 502),
			 0);
	assert_int_equal(t_post(p->qp[0], IBV_WR_SEND, p->buf[0], 8, p->mr[0]->lkey, 0, 0,
				IBV_SEND_SIGNALED, 503),
			 0);
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_READ, p->buf[0], 8, p->mr[0]->lkey,
				(uintptr_t)p->buf[1], p->mr[1]->rkey, IBV_SEND_SIGNALED, 504),
			 0);
	for (i = 0; i < 4; i++) {
		wc = t_wait_wc(p->cq[0]);
		assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
		assert_true(wc.wr_id >= 501 && wc.wr_id <= 504);
	}
	t_no_wc(p->cq[0], 50);
}

/* Unsignaled WRs hold their slots until a later signaled one completes. */
static void
test_unsignaled_slots(void **state)
{
	struct t_pair *p = *state;
	struct ibv_wc wc;
	int i;

	for (i = 0; i < 3; i++)
		assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
					(uintptr_t)p->buf[1], p->mr[1]->rkey, 0, i),
				 0);
	t_no_wc(p->cq[0], 50);
	/* three slots are still taken: one left */
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
				(uintptr_t)p->buf[1], p->mr[1]->rkey, IBV_SEND_SIGNALED, 3),
			 0);
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
				(uintptr_t)p->buf[1], p->mr[1]->rkey, IBV_SEND_SIGNALED, 4),
			 ENOMEM);
	wc = t_wait_wc(p->cq[0]);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 3);
	t_no_wc(p->cq[0], 20);
	/* the signaled completion released all four slots */
	for (i = 0; i < 4; i++)
		assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
					(uintptr_t)p->buf[1], p->mr[1]->rkey,
					i == 3 ? IBV_SEND_SIGNALED : 0, 10 + i),
				 0);
	wc = t_wait_wc(p->cq[0]);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 13);
}

/* Remote @op on the target's MR after its memory was unmapped. */
static void
unmapped_access(struct t_pair *p, enum ibv_wr_opcode op)
{
	struct ibv_wc wc;

	memset(p->buf[1], 0x5a, BUF);
	t_unmap_pages(p->buf[1], BUF);
	assert_int_equal(t_post(p->qp[0], op, p->buf[0], 256, p->mr[0]->lkey,
				(uintptr_t)p->mr[1]->addr + 512, p->mr[1]->rkey, IBV_SEND_SIGNALED,
				77),
			 0);
	wc = t_wait_wc(p->cq[0]);
	assert_int_equal(wc.wr_id, 77);
	assert_int_equal(wc.status, IBV_WC_REM_ACCESS_ERR);
	/* the target (this process) is alive and its QP went to error too */
	for (int i = 0; i < 100 && qp_state(p->qp[1]) != IBV_QPS_ERR; i++)
		usleep(10000);
	assert_int_equal(qp_state(p->qp[1]), IBV_QPS_ERR);
}

/* Remote WRITE into memory unmapped after registration: REM_ACCESS_ERR. */
static void
test_unmapped_write(void **state)
{
	unmapped_access(*state, IBV_WR_RDMA_WRITE);
}

/* Remote READ from memory unmapped after registration: REM_ACCESS_ERR. */
static void
test_unmapped_read(void **state)
{
	unmapped_access(*state, IBV_WR_RDMA_READ);
}

/* A key from before re-registration no longer works. */
static void
test_stale_rkey(void **state)
{
	struct t_pair *p = *state;
	uint32_t old = p->mr[1]->rkey;
	struct ibv_wc wc;

	assert_int_equal(ibv_dereg_mr(p->mr[1]), 0);
	p->mr[1] = ibv_reg_mr(p->pd, p->buf[1], BUF, T_ACCESS_ALL);
	assert_non_null(p->mr[1]);
	assert_int_not_equal(p->mr[1]->rkey, old);
	/* the new key works */
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
				(uintptr_t)p->buf[1], p->mr[1]->rkey, IBV_SEND_SIGNALED, 1),
			 0);
	assert_int_equal(t_wait_wc(p->cq[0]).status, IBV_WC_SUCCESS);
	/* the old one fails */
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
				(uintptr_t)p->buf[1], old, IBV_SEND_SIGNALED, 2),
			 0);
	wc = t_wait_wc(p->cq[0]);
	assert_int_equal(wc.wr_id, 2);
	assert_int_equal(wc.status, IBV_WC_REM_ACCESS_ERR);
}

/* Remote @op on an MR registered with @access: REM_ACCESS_ERR. */
static void
no_permission(struct t_pair *p, enum ibv_wr_opcode op, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(p->pd, p->buf[1] + 4096, 4096, access);
	struct ibv_wc wc;

	assert_non_null(mr);
	assert_int_equal(t_post(p->qp[0], op, p->buf[0], 16, p->mr[0]->lkey,
				(uintptr_t)p->buf[1] + 4096, mr->rkey, IBV_SEND_SIGNALED, 9),
			 0);
	wc = t_wait_wc(p->cq[0]);
	assert_int_equal(wc.status, IBV_WC_REM_ACCESS_ERR);
	ibv_dereg_mr(mr);
}

/* MR without REMOTE_WRITE refuses a remote WRITE. */
static void
test_no_remote_write(void **state)
{
	no_permission(*state, IBV_WR_RDMA_WRITE, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
}

/* MR without REMOTE_READ refuses a remote READ. */
static void
test_no_remote_read(void **state)
{
	no_permission(*state, IBV_WR_RDMA_READ, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
}

/* The responder QP's access flags forbid WRITE: REM_INV_REQ_ERR. */
static void
test_qp_forbids_write(void **state)
{
	struct t_pair *p = make_pair(16, 4, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	struct ibv_wc wc;

	*state = p;
	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey,
				(uintptr_t)p->buf[1], p->mr[1]->rkey, IBV_SEND_SIGNALED, 1),
			 0);
	wc = t_wait_wc(p->cq[0]);
	assert_int_equal(wc.status, IBV_WC_REM_INV_REQ_ERR);
}

/* A bad local key fails locally with LOC_PROT_ERR. */
static void
test_bad_lkey(void **state)
{
	struct t_pair *p = *state;
	struct ibv_wc wc;

	assert_int_equal(t_post(p->qp[0], IBV_WR_RDMA_WRITE, p->buf[0], 8, p->mr[0]->lkey ^ 0x100,
				(uintptr_t)p->buf[1], p->mr[1]->rkey, IBV_SEND_SIGNALED, 1),
			 0);
	wc = t_wait_wc(p->cq[0]);
	assert_int_equal(wc.status, IBV_WC_LOC_PROT_ERR);
}

/* Teardown for tests that build their own pair. */
static int
teardown_own(void **state)
{
	return *state ? teardown(state) : 0;
}

/* Nothing to set up: the test builds its pair. */
static int
setup_none(void **state)
{
	*state = NULL;
	return 0;
}

/* Run the error-path tests. */
int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_cq_overflow, setup_none, teardown_own),
	    cmocka_unit_test_setup_teardown(test_cq_overflow_all_qps, setup_none, teardown_own),
	    cmocka_unit_test_setup_teardown(test_flush_after_err, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unsignaled_slots, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unmapped_write, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unmapped_read, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stale_rkey, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_remote_write, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_remote_read, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_qp_forbids_write, setup_none, teardown_own),
	    cmocka_unit_test_setup_teardown(test_bad_lkey, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
