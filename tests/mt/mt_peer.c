/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * mt_peer.c -- one peer, many threads: NTHREADS threads register and
 * deregister memory regions at once and check each region they got;
 * NTHREADS threads create connection requests from the one peer at once
 * (rpma_conn_req_new) against a server accepting them all, connect, read
 * from the server and close; NTHREADS threads look up the device context at
 * once. Every call must succeed and every result be right. Run under
 * ThreadSanitizer.
 */

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

#define NTHREADS	 8
#define MR_ITERS	 200
#define CONNS_PER_THREAD 2

static struct rpma_peer *Peer;
static struct t_srv Srv;
static pthread_barrier_t Barrier;
static int Good, Errors;

static int
setup(void **state)
{
	(void)state;
	return t_setup_peer(&Peer, 150);
}

static int
teardown(void **state)
{
	(void)state;
	return rpma_peer_delete(&Peer);
}

static int
test_teardown(void **state)
{
	(void)state;
	t_srv_kill(&Srv);
	return 0;
}

static void
error(long t, const char *what, int ret)
{
	fprintf(stderr, "thread %ld: %s: %s (%s)\n", t, what, rpma_err_2str(ret), rpma_errormsg());
	__atomic_fetch_add(&Errors, 1, __ATOMIC_RELAXED);
}

static void *
mr_worker(void *arg)
{
	long t = (long)arg;
	size_t size = 4096 * (size_t)(t + 1);
	uint8_t *buf = aligned_alloc(4096, size);
	static const int usages[] = {
	    RPMA_MR_USAGE_READ_SRC,
	    RPMA_MR_USAGE_WRITE_DST | RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY,
	    RPMA_MR_USAGE_SEND | RPMA_MR_USAGE_RECV,
	    RPMA_MR_USAGE_READ_DST | RPMA_MR_USAGE_WRITE_SRC,
	};

	pthread_barrier_wait(&Barrier);
	for (int i = 0; buf && i < MR_ITERS; i++) {
		struct rpma_mr_local *mr;
		struct rpma_mr_remote *rmr;
		uint8_t desc[T_MR_DESC];
		size_t len = size - (size_t)(i % 7) * 64, got = 0;
		void *ptr = NULL;
		int ret;

		if ((ret = rpma_mr_reg(Peer, buf, len, usages[i % 4], &mr))) {
			error(t, "rpma_mr_reg", ret);
			continue;
		}
		if ((ret = rpma_mr_get_ptr(mr, &ptr)) || ptr != buf ||
		    (ret = rpma_mr_get_size(mr, &got)) || got != len ||
		    (ret = rpma_mr_get_descriptor(mr, desc)) ||
		    (ret = rpma_mr_remote_from_descriptor(desc, sizeof(desc), &rmr)))
			error(t, "the region's attributes", ret);
		else if ((ret = rpma_mr_remote_get_size(rmr, &got)) || got != len ||
			 (ret = rpma_mr_remote_delete(&rmr)))
			error(t, "the remote region", ret);
		if ((ret = rpma_mr_dereg(&mr)) || mr != NULL)
			error(t, "rpma_mr_dereg", ret);
		else
			__atomic_fetch_add(&Good, 1, __ATOMIC_RELAXED);
	}
	free(buf);
	return NULL;
}

/* memory registration and deregistration from many threads on one peer */
static void
test_mr_reg_dereg(void **state)
{
	(void)state;
	pthread_t th[NTHREADS];

	Good = Errors = 0;
	assert_int_equal(pthread_barrier_init(&Barrier, NULL, NTHREADS), 0);
	for (long t = 0; t < NTHREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, mr_worker, (void *)t), 0);
	for (int t = 0; t < NTHREADS; t++)
		assert_int_equal(pthread_join(th[t], NULL), 0);
	pthread_barrier_destroy(&Barrier);
	assert_int_equal(Errors, 0);
	assert_int_equal(Good, NTHREADS * MR_ITERS);
}

static void *
conn_worker(void *arg)
{
	long t = (long)arg;
	uint8_t buf[64];
	struct rpma_mr_local *mr;
	int ret;

	pthread_barrier_wait(&Barrier);
	if ((ret = rpma_mr_reg(Peer, buf, sizeof(buf), RPMA_MR_USAGE_READ_DST, &mr))) {
		error(t, "rpma_mr_reg", ret);
		return NULL;
	}
	for (int i = 0; i < CONNS_PER_THREAD; i++) {
		struct rpma_conn *conn = NULL;
		struct rpma_mr_remote *rmr;
		struct rpma_cq *cq;
		struct ibv_wc wc;
		uint8_t spd[T_PD_SIZE];
		size_t off = (size_t)(t * 64 + i * 8);

		/* t_connect() starts with rpma_conn_req_new() on the shared peer */
		if ((ret = t_connect(Peer, Srv.port, NULL, &t, sizeof(t), NULL, 0, 0, NULL, &conn,
				     spd))) {
			error(t, "connect", ret);
			continue;
		}
		memset(buf, 0, sizeof(buf));
		if ((ret = rpma_mr_remote_from_descriptor(spd + T_PD_MR, T_MR_DESC, &rmr)) ||
		    (ret = rpma_conn_get_cq(conn, &cq)) ||
		    (ret = rpma_read(conn, mr, 0, rmr, off, 64, RPMA_F_COMPLETION_ALWAYS,
				     (void *)off)) ||
		    (ret = t_wait_wc(cq, &wc, T_WAIT_MS))) {
			error(t, "read", ret);
		} else if (wc.status != IBV_WC_SUCCESS || wc.wr_id != off) {
			error(t, "read completion", RPMA_E_UNKNOWN);
		} else {
			bool same = true;

			for (size_t k = 0; k < 64; k++)
				same = same && buf[k] == t_pattern(off + k);
			if (same)
				__atomic_fetch_add(&Good, 1, __ATOMIC_RELAXED);
			else
				error(t, "read data", RPMA_E_UNKNOWN);
		}
		(void)rpma_mr_remote_delete(&rmr);
		if ((ret = t_close(&conn)))
			error(t, "close", ret);
	}
	if ((ret = rpma_mr_dereg(&mr)))
		error(t, "rpma_mr_dereg", ret);
	return NULL;
}

/*
 * connection requests from many threads on one peer: each connection works
 * (a read brings the server's bytes) and the server sees each one
 */
static void
test_conn_req_new(void **state)
{
	(void)state;
	char conns[32];
	const char *opts[] = {conns, NULL};
	pthread_t th[NTHREADS];
	char line[256];

	snprintf(conns, sizeof(conns), "conns=%d", NTHREADS * CONNS_PER_THREAD);
	Good = Errors = 0;
	assert_int_equal(t_srv_start(&Srv, "rma", opts), 0);
	assert_int_equal(pthread_barrier_init(&Barrier, NULL, NTHREADS), 0);
	for (long t = 0; t < NTHREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, conn_worker, (void *)t), 0);
	for (int t = 0; t < NTHREADS; t++)
		assert_int_equal(pthread_join(th[t], NULL), 0);
	pthread_barrier_destroy(&Barrier);
	assert_int_equal(Errors, 0);
	assert_int_equal(Good, NTHREADS * CONNS_PER_THREAD);

	/* the server got every thread's private data CONNS_PER_THREAD times */
	int per_thread[NTHREADS] = {0};

	for (int i = 0; i < NTHREADS * CONNS_PER_THREAD; i++) {
		uint8_t pd[64];
		long t;

		assert_int_equal(t_srv_line(&Srv, "PDATA ", line, sizeof(line), T_WAIT_MS), 0);
		assert_true(t_hex_decode(line + 6, pd, sizeof(pd)) >= (int)sizeof(t));
		memcpy(&t, pd, sizeof(t));
		assert_true(t >= 0 && t < NTHREADS);
		per_thread[t]++;
	}
	for (int t = 0; t < NTHREADS; t++)
		assert_int_equal(per_thread[t], CONNS_PER_THREAD);
	assert_int_equal(t_srv_line(&Srv, "DUMP ", line, sizeof(line), T_WAIT_MS), 0);
	assert_int_equal(t_srv_wait(&Srv, T_WAIT_MS), 0);
}

static char Dev_name[64];

static void *
ctx_worker(void *arg)
{
	long t = (long)arg;

	pthread_barrier_wait(&Barrier);
	for (int i = 0; i < 50; i++) {
		struct ibv_context *ctx = NULL;
		enum rpma_util_ibv_context_type type =
		    i % 2 ? RPMA_UTIL_IBV_CONTEXT_LOCAL : RPMA_UTIL_IBV_CONTEXT_REMOTE;
		int ret = rpma_utils_get_ibv_context(T_ADDR, type, &ctx);

		if (ret)
			error(t, "rpma_utils_get_ibv_context", ret);
		else if (strcmp(ibv_get_device_name(ctx->device), Dev_name) != 0)
			error(t, "another device", RPMA_E_UNKNOWN);
		else
			__atomic_fetch_add(&Good, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* the device context looked up from many threads: always the same device */
static void
test_get_ibv_context(void **state)
{
	(void)state;
	struct ibv_context *ctx;
	pthread_t th[NTHREADS];

	assert_int_equal(rpma_utils_get_ibv_context(T_ADDR, RPMA_UTIL_IBV_CONTEXT_LOCAL, &ctx), 0);
	snprintf(Dev_name, sizeof(Dev_name), "%s", ibv_get_device_name(ctx->device));
	Good = Errors = 0;
	assert_int_equal(pthread_barrier_init(&Barrier, NULL, NTHREADS), 0);
	for (long t = 0; t < NTHREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, ctx_worker, (void *)t), 0);
	for (int t = 0; t < NTHREADS; t++)
		assert_int_equal(pthread_join(th[t], NULL), 0);
	pthread_barrier_destroy(&Barrier);
	assert_int_equal(Errors, 0);
	assert_int_equal(Good, NTHREADS * 50);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mr_reg_dereg),
	    cmocka_unit_test_teardown(test_conn_req_new, test_teardown),
	    cmocka_unit_test(test_get_ibv_context),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
