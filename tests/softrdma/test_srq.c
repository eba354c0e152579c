/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */
/*
 * cmocka tests of a shared receive queue: a SEND that finds the SRQ empty
 * waits (RNR retried without end) and is delivered once a receive is
 * posted; and a post that no responder waits for wakes no thread (it once
 * woke the progress thread on every post, a system call and a context
 * switch per receive of every message-driven program).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>

#include "softrdma_test.h"

#define MSG	 64
#define SRQ_WR	 256
#define QUIET_N	 100 /* posts nobody waits for */
#define QUIET_OK 20  /* context switches of the other threads they may cost, at most */

/* A sender QP and a receiver QP taking its receives from an SRQ. */
struct srq_pair {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq[2];
	struct ibv_srq *srq;
	struct ibv_qp *qp[2];
	char *buf;
	struct ibv_mr *mr;
};

/* srq_pair_new -- build and connect the pair, the SRQ empty */
static struct srq_pair *
srq_pair_new(void)
{
	struct srq_pair *p = calloc(1, sizeof(*p));
	struct ibv_srq_init_attr sa = {.attr = {.max_wr = SRQ_WR, .max_sge = 1}};
	struct ibv_qp_init_attr ia;

	assert_non_null(p);
	p->ctx = t_open_dev();
	assert_non_null(p->pd = ibv_alloc_pd(p->ctx));
	assert_non_null(p->srq = ibv_create_srq(p->pd, &sa));
	for (int i = 0; i < 2; i++) {
		assert_non_null(p->cq[i] = ibv_create_cq(p->ctx, 2 * SRQ_WR, NULL, NULL, 0));
		ia = t_rc_attr(p->cq[i], 16, i ? 0 : 16, 1);
		if (i)
			ia.srq = p->srq;
		assert_non_null(p->qp[i] = ibv_create_qp(p->pd, &ia));
	}
	p->buf = mmap(NULL, 2 * SRQ_WR * MSG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	assert_true(p->buf != MAP_FAILED);
	assert_non_null(p->mr = ibv_reg_mr(p->pd, p->buf, 2 * SRQ_WR * MSG, T_ACCESS_ALL));
	t_connect_qp(p->qp[0], p->qp[1]->qp_num, T_ACCESS_ALL, 7);
	t_connect_qp(p->qp[1], p->qp[0]->qp_num, T_ACCESS_ALL, 7);
	return p;
}

/* srq_pair_free -- release what srq_pair_new() made */
static void
srq_pair_free(struct srq_pair *p)
{
	for (int i = 0; i < 2; i++)
		ibv_destroy_qp(p->qp[i]);
	ibv_destroy_srq(p->srq);
	for (int i = 0; i < 2; i++)
		ibv_destroy_cq(p->cq[i]);
	ibv_dereg_mr(p->mr);
	munmap(p->buf, 2 * SRQ_WR * MSG);
	ibv_dealloc_pd(p->pd);
	ibv_close_device(p->ctx);
	free(p);
}

/* srq_post -- post receive buffer i of the second half of the buffer to the SRQ */
static void
srq_post(struct srq_pair *p, unsigned i)
{
	struct ibv_sge s = {.addr = (uintptr_t)(p->buf + (size_t)(SRQ_WR + i) * MSG),
			    .length = MSG,
			    .lkey = p->mr->lkey};
	struct ibv_recv_wr wr = {.wr_id = i, .sg_list = &s, .num_sge = 1}, *bad;

	assert_int_equal(ibv_post_srq_recv(p->srq, &wr, &bad), 0);
}

/* A SEND into an empty SRQ waits, and arrives once a receive is posted: five times */
static void
test_srq_stalled_send_arrives(void **state)
{
	struct srq_pair *p = srq_pair_new();
	struct ibv_wc wc;

	(void)state;
	for (unsigned i = 0; i < 5; i++) {
		memset(p->buf, (int)('a' + i), MSG);
		assert_int_equal(t_post(p->qp[0], IBV_WR_SEND, p->buf, MSG, p->mr->lkey, 0, 0,
					IBV_SEND_SIGNALED, 100 + i),
				 0);
		/* receiver not ready: nothing arrives, the sender keeps retrying */
		t_no_wc(p->cq[1], 30);
		srq_post(p, i);
		wc = t_wait_wc(p->cq[1]);
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		assert_int_equal(wc.wr_id, i);
		assert_int_equal(wc.byte_len, MSG);
		assert_int_equal(p->buf[(size_t)(SRQ_WR + i) * MSG], 'a' + i);
		wc = t_wait_wc(p->cq[0]);
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		assert_int_equal(wc.wr_id, 100 + i);
	}
	srq_pair_free(p);
}

/* switches -- context switches so far of every thread of the process but the caller */
static long
switches(void)
{
	char path[300], line[128];
	long sum = 0, v;
	pid_t me = gettid();
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || atoi(e->d_name) == me)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
		FILE *f = fopen(path, "r");

		if (!f)
			continue; /* a thread that ended */
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
			    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
				sum += v;
		fclose(f);
	}
	closedir(d);
	return sum;
}

/* Receives posted while no responder waits wake no other thread */
static void
test_srq_post_wakes_nobody(void **state)
{
	struct srq_pair *p = srq_pair_new();
	struct ibv_wc wc;
	long before, after;

	(void)state;
	/* one message through, so that the connection is up and idle */
	srq_post(p, 0);
	assert_int_equal(
	    t_post(p->qp[0], IBV_WR_SEND, p->buf, MSG, p->mr->lkey, 0, 0, IBV_SEND_SIGNALED, 1), 0);
	assert_int_equal(t_wait_wc(p->cq[1]).status, IBV_WC_SUCCESS);
	assert_int_equal(t_wait_wc(p->cq[0]).status, IBV_WC_SUCCESS);
	usleep(20000); /* past the time the progress thread spins or dozes after traffic */
	before = switches();
	for (unsigned i = 1; i <= QUIET_N; i++) {
		srq_post(p, i);
		usleep(2000);
	}
	after = switches();
	print_message("%d posts: %ld context switches of the other threads\n", QUIET_N,
		      after - before);
	assert_true(after - before <= QUIET_OK);
	/* and the receives posted are there: a SEND takes the oldest */
	assert_int_equal(
	    t_post(p->qp[0], IBV_WR_SEND, p->buf, MSG, p->mr->lkey, 0, 0, IBV_SEND_SIGNALED, 2), 0);
	wc = t_wait_wc(p->cq[1]);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.wr_id, 1);
	srq_pair_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_srq_stalled_send_arrives),
	    cmocka_unit_test(test_srq_post_wakes_nobody),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
