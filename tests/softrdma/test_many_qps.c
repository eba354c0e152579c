/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmocka test: one process opens 600 RC QPs (more than one listener's 255
 * QP numbers), all numbers are distinct, and the last two QPs, connected to
 * each other, carry WRITE, READ and SEND. Runs with either transport.
 */
#include "softrdma_test.h"

#define NQP 600
#define BUF 4096

/* Busy-poll @cq for one completion, failing after 10 s. */
static struct ibv_wc
wait_wc(struct ibv_cq *cq)
{
	struct timespec t0, t;
	struct ibv_wc wc;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = ibv_poll_cq(cq, 1, &wc);
		assert_true(n >= 0);
		if (n)
			return wc;
		clock_gettime(CLOCK_MONOTONIC, &t);
		assert_true(t.tv_sec - t0.tv_sec < 10);
	}
}

/* Post one signaled WR of @len bytes from @buf. */
static int
post(struct ibv_qp *qp, enum ibv_wr_opcode op, char *buf, uint32_t len, uint32_t lkey, char *raddr,
     uint32_t rkey)
{
	struct ibv_sge s = {.addr = (uintptr_t)buf, .length = len, .lkey = lkey};
	struct ibv_send_wr wr = {.sg_list = &s,
				 .num_sge = 1,
				 .opcode = op,
				 .send_flags = IBV_SEND_SIGNALED},
			   *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

/* Order QP numbers. */
static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void
test_600_qps(void **state)
{
	struct ibv_qp **qp = calloc(NQP, sizeof(*qp));
	uint32_t *num = calloc(NQP, sizeof(*num));
	struct ibv_qp_init_attr ia;
	struct ibv_context *ctx;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge rs;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_wc wc;
	char *buf;
	int i;

	(void)state;
	ctx = t_open_dev();
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	buf = calloc(1, 2 * BUF);
	assert_non_null(pd);
	assert_non_null(cq);
	mr = ibv_reg_mr(pd, buf, 2 * BUF, T_ACCESS_ALL);
	assert_non_null(mr);
	ia = t_rc_attr(cq, 4, 4, 1);
	for (i = 0; i < NQP; i++) {
		qp[i] = ibv_create_qp(pd, &ia);
		assert_non_null(qp[i]);
		num[i] = qp[i]->qp_num;
		assert_true(num[i] && num[i] <= 0xffffff);
	}
	qsort(num, NQP, sizeof(*num), cmp_u32);
	for (i = 1; i < NQP; i++)
		assert_true(num[i] != num[i - 1]);
	/* the last two QPs live past the first listener's 255 numbers */
	t_connect_qp(qp[NQP - 2], qp[NQP - 1]->qp_num, T_ACCESS_ALL, 7);
	t_connect_qp(qp[NQP - 1], qp[NQP - 2]->qp_num, T_ACCESS_ALL, 7);
	strcpy(buf, "six hundred");
	assert_int_equal(
	    post(qp[NQP - 2], IBV_WR_RDMA_WRITE, buf, 12, mr->lkey, buf + BUF, mr->rkey), 0);
	wc = wait_wc(cq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_string_equal(buf + BUF, "six hundred");
	assert_int_equal(
	    post(qp[NQP - 2], IBV_WR_RDMA_READ, buf + 100, 12, mr->lkey, buf + BUF, mr->rkey), 0);
	wc = wait_wc(cq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_string_equal(buf + 100, "six hundred");
	rs.addr = (uintptr_t)buf + BUF + 200;
	rs.length = 64;
	rs.lkey = mr->lkey;
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &rs;
	rwr.num_sge = 1;
	rwr.wr_id = 42;
	assert_int_equal(ibv_post_recv(qp[NQP - 1], &rwr, &rbad), 0);
	assert_int_equal(post(qp[NQP - 2], IBV_WR_SEND, buf, 12, mr->lkey, NULL, 0), 0);
	for (i = 0; i < 2; i++) {
		wc = wait_wc(cq);
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		if (wc.opcode == IBV_WC_RECV)
			assert_int_equal(wc.wr_id, 42);
	}
	assert_string_equal(buf + BUF + 200, "six hundred");
	for (i = 0; i < NQP; i++)
		assert_int_equal(ibv_destroy_qp(qp[i]), 0);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_int_equal(ibv_dealloc_pd(pd), 0);
	free(buf);
	free(qp);
	free(num);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_600_qps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
