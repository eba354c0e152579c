/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * mt_conn.c -- one connection, one CQ, many threads: NTHREADS threads post
 * receives (rpma_recv, or rpma_srq_recv on a shared receive queue) and then
 * rpma_write, rpma_read, rpma_atomic_write, rpma_write_with_imm, rpma_flush
 * and rpma_send at once, each with its own op_contexts; then NTHREADS
 * threads poll the one CQ at once (rpma_cq_get_wc). Every op_context must
 * come back exactly once and successful with its opcode, every message must
 * be answered by the server exactly once, every read must bring the
 * server's bytes, and the server's region must end with what each thread
 * wrote. Run under ThreadSanitizer.
 */

#include <arpa/inet.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"

#define NTHREADS   8
#define ITERS	   8
#define SLICE	   (T_REGION / NTHREADS) /* each thread's part of the server's region */
#define WRITE_LEN  240			 /* [0, 240) rpma_write */
#define ATOMIC_OFF 240			 /* [240, 248) rpma_atomic_write */
#define IMM_OFF	   248			 /* [248, 256) rpma_write_with_imm */
#define READ_OFF   256			 /* [256, 512) read only */
#define READ_LEN   256

enum op { OP_WRITE, OP_READ, OP_ATOMIC, OP_IMM, OP_FLUSH, OP_SEND, OP_RECV, OP_N };

#define NRECV (NTHREADS * ITERS * 2) /* a send and a write_with_imm each answered */
#define NCTX  (NTHREADS * ITERS * OP_N)

/* op_context: 1 + thread * ITERS * OP_N + iter * OP_N + op */
#define CTX(t, i, op) ((uintptr_t)(1 + ((t)*ITERS + (i)) * OP_N + (op)))

static struct rpma_peer *Peer;
static struct t_srv Srv;
static struct rpma_conn *Conn;
static struct rpma_cq *Cq, *Rcq;
static struct rpma_srq *Srq;
static struct rpma_mr_remote *Rmr;
static struct rpma_mr_local *Src_mr, *Dst_mr, *Recv_mr;
static uint8_t Src[T_REGION];			 /* what the threads write */
static uint8_t Dst[NTHREADS * ITERS * READ_LEN]; /* where each read lands */
static uint8_t Recv[NRECV * T_MSG];		 /* the answers */
static pthread_barrier_t Barrier;

static int Seen[NCTX + 1];
static int Bad[NCTX + 1];
static int Collected;
static int Post_errors;

static int
setup(void **state)
{
	(void)state;
	if (t_setup_peer(&Peer, 150))
		return -1;
	if (rpma_mr_reg(Peer, Src, sizeof(Src), RPMA_MR_USAGE_WRITE_SRC | RPMA_MR_USAGE_SEND,
			&Src_mr) ||
	    rpma_mr_reg(Peer, Dst, sizeof(Dst), RPMA_MR_USAGE_READ_DST, &Dst_mr) ||
	    rpma_mr_reg(Peer, Recv, sizeof(Recv), RPMA_MR_USAGE_RECV, &Recv_mr))
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	int ret = rpma_mr_dereg(&Src_mr);

	ret |= rpma_mr_dereg(&Dst_mr);
	ret |= rpma_mr_dereg(&Recv_mr);
	return ret ? ret : rpma_peer_delete(&Peer);
}

static int
test_teardown(void **state)
{
	(void)state;
	(void)rpma_conn_delete(&Conn);
	(void)rpma_srq_delete(&Srq);
	(void)rpma_mr_remote_delete(&Rmr);
	t_srv_kill(&Srv);
	return 0;
}

static void
post_error(int ret, const char *what, long t)
{
	fprintf(stderr, "thread %ld: %s: %s (%s)\n", t, what, rpma_err_2str(ret), rpma_errormsg());
	__atomic_fetch_add(&Post_errors, 1, __ATOMIC_RELAXED);
}

/* one thread: its receives, then its operations */
static void *
poster(void *arg)
{
	long t = (long)arg;
	size_t base = (size_t)t * SLICE;
	int ret;

	/* two receives per iteration, in slots of this thread */
	for (int i = 0; i < ITERS * 2; i++) {
		int slot = (int)t * ITERS * 2 + i;
		const void *ctx = (const void *)CTX(t, i / 2, OP_RECV);

		/* the second receive of an iteration: an op_context of its own */
		if (i % 2)
			ctx = (const void *)(CTX(t, i / 2, OP_RECV) + (uintptr_t)NCTX);
		ret = Srq ? rpma_srq_recv(Srq, Recv_mr, (size_t)slot * T_MSG, T_MSG, ctx)
			  : rpma_recv(Conn, Recv_mr, (size_t)slot * T_MSG, T_MSG, ctx);
		if (ret)
			post_error(ret, "recv", t);
	}
	pthread_barrier_wait(&Barrier);

	for (int i = 0; i < ITERS; i++) {
		const int f = RPMA_F_COMPLETION_ALWAYS;

		if ((ret = rpma_write(Conn, Rmr, base, Src_mr, base, WRITE_LEN, f,
				      (void *)CTX(t, i, OP_WRITE))))
			post_error(ret, "write", t);
		if ((ret = rpma_read(Conn, Dst_mr, ((size_t)t * ITERS + (size_t)i) * READ_LEN, Rmr,
				     base + READ_OFF, READ_LEN, f, (void *)CTX(t, i, OP_READ))))
			post_error(ret, "read", t);
		if ((ret = rpma_atomic_write(Conn, Rmr, base + ATOMIC_OFF,
					     (const char *)Src + base + ATOMIC_OFF, f,
					     (void *)CTX(t, i, OP_ATOMIC))))
			post_error(ret, "atomic_write", t);
		if ((ret = rpma_write_with_imm(Conn, Rmr, base + IMM_OFF, Src_mr, base + IMM_OFF, 8,
					       f, (uint32_t)CTX(t, i, OP_IMM),
					       (void *)CTX(t, i, OP_IMM))))
			post_error(ret, "write_with_imm", t);
		if ((ret = rpma_flush(Conn, Rmr, base, WRITE_LEN, RPMA_FLUSH_TYPE_VISIBILITY, f,
				      (void *)CTX(t, i, OP_FLUSH))))
			post_error(ret, "flush", t);
		/* the message is its own op_context, as text (set up by run()) */
		if ((ret = rpma_send(Conn, Src_mr, base + READ_OFF + (size_t)i * 16, 16, f,
				     (void *)CTX(t, i, OP_SEND))))
			post_error(ret, "send", t);
	}
	return NULL;
}

static enum ibv_wc_opcode
expected_opcode(int op)
{
	switch (op) {
	case OP_WRITE:
	case OP_IMM:
		return IBV_WC_RDMA_WRITE;
	case OP_READ:
	case OP_FLUSH:
		return IBV_WC_RDMA_READ;
	case OP_SEND:
		return IBV_WC_SEND;
	default:
		return IBV_WC_RECV;
	}
}

/* one thread polling the shared CQ until everything expected was collected */
static void *
collector(void *arg)
{
	struct rpma_cq *cq = arg;
	int total = NTHREADS * ITERS * (OP_N - 1) + NRECV;
	long long end = t_now_ms() + 60000;
	struct ibv_wc wc[4];
	int n;

	pthread_barrier_wait(&Barrier);
	while (__atomic_load_n(&Collected, __ATOMIC_ACQUIRE) < total && t_now_ms() < end) {
		int ret = rpma_cq_get_wc(cq, 4, wc, &n);

		if (ret == RPMA_E_NO_COMPLETION) {
			usleep(50);
			continue;
		}
		if (ret) {
			post_error(ret, "rpma_cq_get_wc", -1);
			return NULL;
		}
		for (int k = 0; k < n; k++) {
			uintptr_t c = wc[k].wr_id;
			uintptr_t idx = c > NCTX ? c - NCTX : c;
			int op = (int)((idx - 1) % OP_N);
			bool ok = wc[k].status == IBV_WC_SUCCESS;

			if (idx < 1 || idx > NCTX) {
				__atomic_fetch_add(&Bad[0], 1, __ATOMIC_RELAXED);
				continue;
			}
			if (op == OP_ATOMIC)
				ok = ok && (wc[k].opcode == IBV_WC_RDMA_WRITE ||
					    wc[k].opcode == IBV_WC_ATOMIC_WRITE);
			else
				ok = ok && wc[k].opcode == expected_opcode(op);
			if (op == OP_RECV)
				ok = ok && wc[k].byte_len == sizeof(struct t_echo) &&
				     (wc[k].wc_flags & IBV_WC_WITH_IMM);
			if (!ok) {
				fprintf(stderr, "completion %lu: status %s opcode %d\n",
					(unsigned long)c, ibv_wc_status_str(wc[k].status),
					(int)wc[k].opcode);
				__atomic_fetch_add(&Bad[idx], 1, __ATOMIC_RELAXED);
			}
			/* the two receives of an iteration count separately */
			__atomic_fetch_add(&Seen[idx], c > NCTX ? 0x100 : 1, __ATOMIC_RELAXED);
		}
		__atomic_fetch_add(&Collected, n, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void
run(bool use_srq)
{
	const char *opts[] = {"recvs=128", NULL};
	uint8_t spd[T_PD_SIZE];
	struct rpma_conn_cfg *cfg;
	pthread_t th[NTHREADS];

	memset(Seen, 0, sizeof(Seen));
	memset(Bad, 0, sizeof(Bad));
	memset(Dst, 0, sizeof(Dst));
	memset(Recv, 0, sizeof(Recv));
	Collected = 0;
	Post_errors = 0;
	for (int t = 0; t < NTHREADS; t++) {
		size_t base = (size_t)t * SLICE;

		memset(Src + base, 0x10 + t, WRITE_LEN);
		memset(Src + base + ATOMIC_OFF, 0x40 + t, 8);
		memset(Src + base + IMM_OFF, 0x60 + t, 8);
		for (int i = 0; i < ITERS; i++)
			snprintf((char *)Src + base + READ_OFF + i * 16, 16, "m%lu",
				 (unsigned long)CTX(t, i, OP_SEND));
	}

	assert_int_equal(t_srv_start(&Srv, "rma", opts), 0);
	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_sq_size(cfg, NTHREADS * ITERS * OP_N), 0);
	assert_int_equal(rpma_conn_cfg_set_rq_size(cfg, NRECV), 0);
	assert_int_equal(rpma_conn_cfg_set_cq_size(cfg, NCTX * 2), 0);
	if (use_srq) {
		struct rpma_srq_cfg *scfg;

		assert_int_equal(rpma_srq_cfg_new(&scfg), 0);
		assert_int_equal(rpma_srq_cfg_set_rq_size(scfg, NRECV), 0);
		assert_int_equal(rpma_srq_cfg_set_rcq_size(scfg, NRECV * 2), 0);
		assert_int_equal(rpma_srq_new(Peer, scfg, &Srq), 0);
		assert_int_equal(rpma_srq_cfg_delete(&scfg), 0);
		assert_int_equal(rpma_conn_cfg_set_srq(cfg, Srq), 0);
	}
	assert_int_equal(t_connect(Peer, Srv.port, cfg, NULL, 0, NULL, 0, 0, NULL, &Conn, spd), 0);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_int_equal(rpma_mr_remote_from_descriptor(spd + T_PD_MR, T_MR_DESC, &Rmr), 0);
	assert_int_equal(rpma_conn_get_cq(Conn, &Cq), 0);
	assert_int_equal(rpma_conn_get_rcq(Conn, &Rcq), 0);
	/* with an SRQ the answers come on its CQ, else on the one CQ */
	assert_true(use_srq ? Rcq != NULL : Rcq == NULL);

	/* all threads post at once */
	assert_int_equal(pthread_barrier_init(&Barrier, NULL, NTHREADS), 0);
	for (long t = 0; t < NTHREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, poster, (void *)t), 0);
	for (int t = 0; t < NTHREADS; t++)
		assert_int_equal(pthread_join(th[t], NULL), 0);
	pthread_barrier_destroy(&Barrier);
	assert_int_equal(Post_errors, 0);

	/* all threads poll at once: the receive CQ too when there is one */
	assert_int_equal(pthread_barrier_init(&Barrier, NULL, NTHREADS), 0);
	for (int t = 0; t < NTHREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, collector, (Rcq && t % 2) ? Rcq : Cq),
				 0);
	for (int t = 0; t < NTHREADS; t++)
		assert_int_equal(pthread_join(th[t], NULL), 0);
	pthread_barrier_destroy(&Barrier);
	assert_int_equal(Post_errors, 0);
	assert_int_equal(Collected, NTHREADS * ITERS * (OP_N - 1) + NRECV);

	/* each op_context exactly once, successful, with its opcode */
	assert_int_equal(Bad[0], 0);
	for (int t = 0; t < NTHREADS; t++) {
		for (int i = 0; i < ITERS; i++) {
			for (int op = 0; op < OP_N; op++) {
				uintptr_t c = CTX(t, i, op);

				assert_int_equal(Bad[c], 0);
				assert_int_equal(Seen[c], op == OP_RECV ? 0x101 : 1);
			}
		}
	}

	/* every read brought the server's bytes */
	for (int t = 0; t < NTHREADS; t++)
		for (int i = 0; i < ITERS; i++)
			for (size_t k = 0; k < READ_LEN; k++)
				assert_int_equal(
				    Dst[((size_t)t * ITERS + (size_t)i) * READ_LEN + k],
				    t_pattern((size_t)t * SLICE + READ_OFF + k));

	/*
	 * every message and write_with_imm was answered exactly once: the
	 * answers hold the sent text or the immediate data
	 */
	int got_msg[NTHREADS][ITERS] = {{0}};
	int got_imm[NTHREADS][ITERS] = {{0}};

	for (int s = 0; s < NRECV; s++) {
		struct t_echo e;

		memcpy(&e, Recv + (size_t)s * T_MSG, sizeof(e));
		assert_int_equal(e.status, IBV_WC_SUCCESS);
		if (e.opcode == IBV_WC_RECV) {
			unsigned long c;

			assert_int_equal(e.byte_len, 16);
			assert_int_equal(sscanf((char *)e.data, "m%lu", &c), 1);
			assert_true(c >= 1 && c <= NCTX && (c - 1) % OP_N == OP_SEND);
			got_msg[(c - 1) / OP_N / ITERS][(c - 1) / OP_N % ITERS]++;
		} else {
			assert_int_equal(e.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
			assert_int_equal(e.with_imm, 1);
			assert_int_equal(e.byte_len, 8);
			uint32_t c = e.imm;

			assert_true(c >= 1 && c <= NCTX && (c - 1) % OP_N == OP_IMM);
			got_imm[(c - 1) / OP_N / ITERS][(c - 1) / OP_N % ITERS]++;
		}
	}
	for (int t = 0; t < NTHREADS; t++) {
		for (int i = 0; i < ITERS; i++) {
			assert_int_equal(got_msg[t][i], 1);
			assert_int_equal(got_imm[t][i], 1);
		}
	}

	/* the server's region: what each thread wrote, the rest untouched */
	uint8_t dump[T_REGION];

	assert_int_equal(t_close(&Conn), 0);
	assert_int_equal(t_srv_dump(&Srv, dump), T_REGION);
	assert_int_equal(t_srv_wait(&Srv, T_WAIT_MS), 0);
	for (int t = 0; t < NTHREADS; t++) {
		size_t base = (size_t)t * SLICE;

		assert_memory_equal(dump + base, Src + base, READ_OFF);
		for (size_t k = READ_OFF; k < SLICE; k++)
			assert_int_equal(dump[base + k], t_pattern(base + k));
	}
	if (Srq)
		assert_int_equal(rpma_srq_delete(&Srq), 0);
	assert_int_equal(rpma_mr_remote_delete(&Rmr), 0);
}

static void
test_one_conn_one_cq(void **state)
{
	(void)state;
	run(false);
}

static void
test_one_conn_srq(void **state)
{
	(void)state;
	run(true);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_one_conn_one_cq, test_teardown),
	    cmocka_unit_test_teardown(test_one_conn_srq, test_teardown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
