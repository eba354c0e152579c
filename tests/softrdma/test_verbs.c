/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cmocka tests of softrdma's verbs, built against the real rdma-core headers
 * and run with LD_LIBRARY_PATH pointing at build/softrdma. Two RC QPs in one
 * process are connected to each other over 127.0.0.1.
 */
#include "softrdma_test.h"

#define BUF 4096

/*
 * Create two QPs with their own CQs (on one completion channel) and buffers,
 * connected to each other; qp[1] gives up after one RNR retry.
 */
static int
setup(void **state)
{
	const struct t_pair_cfg c = {
	    .cqe = 16,
	    .channel = 1,
	    .send_wr = 4,
	    .recv_wr = 4,
	    .sge = 2,
	    .max_inline = 64,
	    .len = BUF,
	    .access = {T_ACCESS_ALL, T_ACCESS_ALL},
	    .rnr_retry = {7, 1},
	};
	struct t_pair *p = t_pair_new(&c);

	assert_string_equal(ibv_get_device_name(p->ctx->device), "softrdma0");
	*state = p;
	return 0;
}

/* Release everything setup created. */
static int
teardown(void **state)
{
	t_pair_free(*state);
	return 0;
}

/* Poll @cq for one completion, failing after ~5 s. */
static struct ibv_wc
wait_wc(struct ibv_cq *cq)
{
	struct ibv_wc wc;
	int i, n;

	for (i = 0; i < 500000; i++) {
		n = ibv_poll_cq(cq, 1, &wc);
		assert_true(n >= 0);
		if (n)
			return wc;
		usleep(10);
	}
	fail_msg("no completion");
	return wc;
}

/* Post one send WR on @qp. */
static int
post(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t laddr, uint32_t len, uint32_t lkey,
     uint64_t raddr, uint32_t rkey, int flags, uint32_t imm)
{
	struct ibv_sge s = {.addr = laddr, .length = len, .lkey = lkey};
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = op + 100;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = flags;
	wr.imm_data = htobe32(imm);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

/* Post a receive of @len bytes into buf[i]+off. */
static void
post_recv(struct t_pair *p, int i, uint32_t off, uint32_t len)
{
	struct ibv_sge s = {
	    .addr = (uintptr_t)p->buf[i] + off, .length = len, .lkey = p->mr[i]->lkey};
	struct ibv_recv_wr wr = {.wr_id = 7, .sg_list = &s, .num_sge = 1}, *bad;

	assert_int_equal(ibv_post_recv(p->qp[i], &wr, &bad), 0);
}

static void
test_device(void **state)
{
	struct t_pair *p = *state;
	struct ibv_device_attr_ex dx;
	struct ibv_port_attr pa;
	union ibv_gid gid;

	assert_int_equal(ibv_query_device_ex(p->ctx, NULL, &dx), 0);
	assert_true(dx.orig_attr.max_qp_wr >= 4);
	assert_int_equal(dx.odp_caps.general_caps, 0);
	assert_int_equal(ibv_query_port(p->ctx, 1, &pa), 0);
	assert_int_equal(pa.state, IBV_PORT_ACTIVE);
	assert_int_equal(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	assert_int_equal(pa.lid, 0);
	assert_int_equal(ibv_query_gid(p->ctx, 1, 0, &gid), 0);
	assert_int_equal(gid.raw[10], 0xff);
	assert_int_not_equal(ibv_query_gid(p->ctx, 1, 1000, &gid), 0);
}

static void
test_reg_mr_errors(void **state)
{
	struct t_pair *p = *state;
	char *m;

	/* remote write without local write is refused */
	errno = 0;
	assert_null(ibv_reg_mr(p->pd, p->buf[0], 64, IBV_ACCESS_REMOTE_WRITE));
	assert_int_equal(errno, EINVAL);
	/*
	 * unmapped memory is refused: pages of the kernel's half of the address
	 * space, which no thread of the process can map meanwhile (another
	 * thread could map a range the test had just unmapped)
	 */
	errno = 0;
	assert_null(ibv_reg_mr(p->pd, (void *)(uintptr_t)0xffff900000000000ull, 8192,
			       IBV_ACCESS_LOCAL_WRITE));
	assert_int_equal(errno, EFAULT);
	/* and so is memory mapped without access */
	m = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	errno = 0;
	assert_null(ibv_reg_mr(p->pd, m, 8192, IBV_ACCESS_LOCAL_WRITE));
	assert_int_equal(errno, EFAULT);
	munmap(m, 8192);
	/* unsupported objects fail cleanly */
	assert_null(ibv_create_ah(p->pd, &(struct ibv_ah_attr){0}));
	assert_int_equal(errno, EOPNOTSUPP);
}

static void
test_write_read(void **state)
{
	struct t_pair *p = *state;
	struct ibv_wc wc;

	strcpy(p->buf[0], "hello softrdma");
	assert_int_equal(post(p->qp[0], IBV_WR_RDMA_WRITE, (uintptr_t)p->buf[0], 15, p->mr[0]->lkey,
			      (uintptr_t)p->buf[1] + 100, p->mr[1]->rkey, IBV_SEND_SIGNALED, 0),
			 0);
	wc = wait_wc(p->cq[0]);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_RDMA_WRITE);
	assert_string_equal(p->buf[1] + 100, "hello softrdma");
	/* read it back into another place */
	assert_int_equal(post(p->qp[0], IBV_WR_RDMA_READ, (uintptr_t)p->buf[0] + 200, 15,
			      p->mr[0]->lkey, (uintptr_t)p->buf[1] + 100, p->mr[1]->rkey,
			      IBV_SEND_SIGNALED, 0),
			 0);
	wc = wait_wc(p->cq[0]);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_RDMA_READ);
	assert_int_equal(wc.byte_len, 15);
	assert_string_equal(p->buf[0] + 200, "hello softrdma");
}

static void
test_send_imm(void **state)
{
	struct t_pair *p = *state;
	struct ibv_wc wc;

	post_recv(p, 1, 512, 64);
	strcpy(p->buf[0] + 300, "message");
	assert_int_equal(post(p->qp[0], IBV_WR_SEND_WITH_IMM, (uintptr_t)p->buf[0] + 300, 8,
			      p->mr[0]->lkey, 0, 0, IBV_SEND_SIGNALED | IBV_SEND_INLINE, 0x1234),
			 0);
	wc = wait_wc(p->cq[1]);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_RECV);
	assert_true(wc.wc_flags & IBV_WC_WITH_IMM);
	assert_int_equal(be32toh(wc.imm_data), 0x1234);
	assert_int_equal(wc.byte_len, 8);
	assert_string_equal(p->buf[1] + 512, "message");
	wc = wait_wc(p->cq[0]);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_SEND);
	/* write with immediate consumes a receive */
	post_recv(p, 1, 0, 0);
	assert_int_equal(post(p->qp[0], IBV_WR_RDMA_WRITE_WITH_IMM, (uintptr_t)p->buf[0], 4,
			      p->mr[0]->lkey, (uintptr_t)p->buf[1] + 1000, p->mr[1]->rkey, 0, 77),
			 0);
	wc = wait_wc(p->cq[1]);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	assert_int_equal(be32toh(wc.imm_data), 77);
}

static void
test_notify(void **state)
{
	struct t_pair *p = *state;
	struct pollfd pfd = {.fd = p->ch->fd, .events = POLLIN};
	struct ibv_cq *cq;
	void *ctx;

	assert_int_equal(ibv_req_notify_cq(p->cq[0], 0), 0);
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_int_equal(post(p->qp[0], IBV_WR_RDMA_WRITE, (uintptr_t)p->buf[0], 4, p->mr[0]->lkey,
			      (uintptr_t)p->buf[1], p->mr[1]->rkey, IBV_SEND_SIGNALED, 0),
			 0);
	assert_int_equal(poll(&pfd, 1, 5000), 1);
	assert_int_equal(ibv_get_cq_event(p->ch, &cq, &ctx), 0);
	assert_ptr_equal(cq, p->cq[0]);
	ibv_ack_cq_events(cq, 1);
	assert_int_equal(wait_wc(p->cq[0]).status, IBV_WC_SUCCESS);
}

static void
test_qp_ex(void **state)
{
	struct t_pair *p = *state;
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(p->qp[0]);

	assert_non_null(x);
	assert_null(x->wr_atomic_write);
	ibv_wr_start(x);
	x->wr_id = 5;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, p->mr[1]->rkey, (uintptr_t)p->buf[1] + 2000);
	ibv_wr_set_inline_data(x, "inline!", 8);
	assert_int_equal(ibv_wr_complete(x), 0);
	assert_int_equal(wait_wc(p->cq[0]).status, IBV_WC_SUCCESS);
	assert_string_equal(p->buf[1] + 2000, "inline!");
}

static void
test_full_sq(void **state)
{
	struct t_pair *p = *state;
	int i, ret = 0;

	/* unsignaled WRs hold their slots: the fifth post finds the queue full */
	for (i = 0; i < 5 && !ret; i++)
		ret = post(p->qp[0], IBV_WR_RDMA_WRITE, (uintptr_t)p->buf[0], 4, p->mr[0]->lkey,
			   (uintptr_t)p->buf[1], p->mr[1]->rkey, 0, 0);
	assert_int_equal(ret, ENOMEM);
	assert_int_equal(i, 5);
}

static void
test_bad_rkey(void **state)
{
	struct t_pair *p = *state;
	struct ibv_wc wc;

	post_recv(p, 0, 0, 64);
	assert_int_equal(post(p->qp[0], IBV_WR_RDMA_WRITE, (uintptr_t)p->buf[0], 4, p->mr[0]->lkey,
			      (uintptr_t)p->buf[1], p->mr[1]->rkey + 1, IBV_SEND_SIGNALED, 0),
			 0);
	wc = wait_wc(p->cq[0]);
	assert_int_equal(wc.status, IBV_WC_REM_ACCESS_ERR);
	/* the receive is flushed, later posts complete flushed */
	wc = wait_wc(p->cq[0]);
	assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
	assert_int_equal(post(p->qp[0], IBV_WR_RDMA_WRITE, (uintptr_t)p->buf[0], 4, p->mr[0]->lkey,
			      (uintptr_t)p->buf[1], p->mr[1]->rkey, 0, 0),
			 0);
	wc = wait_wc(p->cq[0]);
	assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
}

static void
test_out_of_range(void **state)
{
	struct t_pair *p = *state;

	assert_int_equal(post(p->qp[0], IBV_WR_RDMA_READ, (uintptr_t)p->buf[0], 64, p->mr[0]->lkey,
			      (uintptr_t)p->buf[1] + BUF - 8, p->mr[1]->rkey, IBV_SEND_SIGNALED, 0),
			 0);
	assert_int_equal(wait_wc(p->cq[0]).status, IBV_WC_REM_ACCESS_ERR);
}

static void
test_recv_too_small(void **state)
{
	struct t_pair *p = *state;
	struct ibv_wc wc;

	post_recv(p, 1, 0, 4);
	assert_int_equal(post(p->qp[0], IBV_WR_SEND, (uintptr_t)p->buf[0], 64, p->mr[0]->lkey, 0, 0,
			      IBV_SEND_SIGNALED, 0),
			 0);
	wc = wait_wc(p->cq[1]);
	assert_int_equal(wc.status, IBV_WC_LOC_LEN_ERR);
	wc = wait_wc(p->cq[0]);
	assert_int_equal(wc.status, IBV_WC_REM_INV_REQ_ERR);
}

static void
test_rnr(void **state)
{
	struct t_pair *p = *state;

	/* qp[1] has rnr_retry 1: no receive posted on qp[0] */
	assert_int_equal(post(p->qp[1], IBV_WR_SEND, (uintptr_t)p->buf[1], 4, p->mr[1]->lkey, 0, 0,
			      IBV_SEND_SIGNALED, 0),
			 0);
	assert_int_equal(wait_wc(p->cq[1]).status, IBV_WC_RNR_RETRY_EXC_ERR);
}

static void
test_post_before_rts(void **state)
{
	struct t_pair *p = *state;
	struct ibv_qp_init_attr ia;
	struct ibv_qp *qp;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = p->cq[0];
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 1;
	ia.cap.max_send_sge = 1;
	qp = ibv_create_qp(p->pd, &ia);
	assert_non_null(qp);
	assert_int_equal(
	    post(qp, IBV_WR_RDMA_WRITE, (uintptr_t)p->buf[0], 4, p->mr[0]->lkey, 0, 0, 0, 0),
	    EINVAL);
	ibv_destroy_qp(qp);
	ia.qp_type = IBV_QPT_UD;
	assert_null(ibv_create_qp(p->pd, &ia));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_device, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reg_mr_errors, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_write_read, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_send_imm, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_notify, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_qp_ex, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_full_sq, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_rkey, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_out_of_range, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_recv_too_small, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rnr, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_post_before_rts, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
