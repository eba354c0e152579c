/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn_cfg.c -- unit tests of librpma/src/conn_cfg.c: the connection
 * configuration, its defaults, setters, getters and snapshot, the shared
 * CQs included
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <string.h>

#include "conn_cfg.h"
#include "conn_helpers.h"
#include "cq.h"
#include "librpma.h"
#include "mocks.h"

#define BAD_CFG ((struct rpma_conn_cfg *)0x5a5a)
#define SRQ_A	((struct rpma_srq *)0x1000)
#define SRQ_B	((struct rpma_srq *)0x2000)

/* check_defaults -- cfg holds the documented defaults, read through the getters */
static void
check_defaults(const struct rpma_conn_cfg *cfg)
{
	int timeout = -1;
	uint32_t v;
	bool shared = true;
	struct rpma_srq *srq = SRQ_A;
	struct rpma_cq *cq = (struct rpma_cq *)SRQ_A;

	assert_int_equal(rpma_conn_cfg_get_cq(cfg, &cq), 0);
	assert_null(cq);
	cq = (struct rpma_cq *)SRQ_A;
	assert_int_equal(rpma_conn_cfg_get_rcq(cfg, &cq), 0);
	assert_null(cq);
	assert_int_equal(rpma_conn_cfg_get_timeout(cfg, &timeout), 0);
	assert_int_equal(timeout, 1000);
	assert_int_equal(timeout, RPMA_DEFAULT_TIMEOUT_MS);
	v = 0;
	assert_int_equal(rpma_conn_cfg_get_cq_size(cfg, &v), 0);
	assert_int_equal(v, 10);
	v = 99;
	assert_int_equal(rpma_conn_cfg_get_rcq_size(cfg, &v), 0);
	assert_int_equal(v, 0);
	v = 0;
	assert_int_equal(rpma_conn_cfg_get_sq_size(cfg, &v), 0);
	assert_int_equal(v, 10);
	v = 0;
	assert_int_equal(rpma_conn_cfg_get_rq_size(cfg, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(rpma_conn_cfg_get_compl_channel(cfg, &shared), 0);
	assert_false(shared);
	assert_int_equal(rpma_conn_cfg_get_srq(cfg, &srq), 0);
	assert_null(srq);
}

/* new_defaults -- a new configuration holds the defaults; delete NULLs it */
static void
new_defaults(void **state)
{
	struct rpma_conn_cfg *cfg = NULL;

	(void)state;
	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_non_null(cfg);
	assert_int_equal(mock_alloc_live(), 1);
	check_defaults(cfg);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_null(cfg);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

/* new_delete_invalid -- NULL pointers: RPMA_E_INVAL */
static void
new_delete_invalid(void **state)
{
	(void)state;
	assert_int_equal(rpma_conn_cfg_new(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_delete(NULL), RPMA_E_INVAL);
	assert_string_equal(rpma_errormsg(), "cfg_ptr is NULL");
}

/* new_nomem -- allocation failure: RPMA_E_NOMEM, output untouched */
static void
new_nomem(void **state)
{
	struct rpma_conn_cfg *cfg = BAD_CFG;

	(void)state;
	mock_alloc_fail_nth(1);
	assert_int_equal(rpma_conn_cfg_new(&cfg), RPMA_E_NOMEM);
	assert_ptr_equal(cfg, BAD_CFG);
}

/* set_get_all -- every setter's value is read back by its getter only */
static void
set_get_all(void **state)
{
	struct rpma_conn_cfg *cfg = NULL;
	int timeout;
	uint32_t cq, rcq, sq, rq;
	bool shared;
	struct rpma_srq *srq;

	(void)state;
	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_timeout(cfg, 0), 0);
	assert_int_equal(rpma_conn_cfg_get_timeout(cfg, &timeout), 0);
	assert_int_equal(timeout, 0);
	assert_int_equal(rpma_conn_cfg_set_timeout(cfg, 2147483647), 0);
	assert_int_equal(rpma_conn_cfg_get_timeout(cfg, &timeout), 0);
	assert_int_equal(timeout, 2147483647);

	assert_int_equal(rpma_conn_cfg_set_cq_size(cfg, 11), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, 22), 0);
	assert_int_equal(rpma_conn_cfg_set_sq_size(cfg, 33), 0);
	assert_int_equal(rpma_conn_cfg_set_rq_size(cfg, 0xffffffffu), 0);
	assert_int_equal(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	assert_int_equal(rpma_conn_cfg_set_srq(cfg, SRQ_A), 0);

	assert_int_equal(rpma_conn_cfg_get_cq_size(cfg, &cq), 0);
	assert_int_equal(rpma_conn_cfg_get_rcq_size(cfg, &rcq), 0);
	assert_int_equal(rpma_conn_cfg_get_sq_size(cfg, &sq), 0);
	assert_int_equal(rpma_conn_cfg_get_rq_size(cfg, &rq), 0);
	assert_int_equal(rpma_conn_cfg_get_compl_channel(cfg, &shared), 0);
	assert_int_equal(rpma_conn_cfg_get_srq(cfg, &srq), 0);
	assert_int_equal(cq, 11);
	assert_int_equal(rcq, 22);
	assert_int_equal(sq, 33);
	assert_int_equal(rq, 0xffffffffu);
	assert_true(shared);
	assert_ptr_equal(srq, SRQ_A);

	/* and back */
	assert_int_equal(rpma_conn_cfg_set_compl_channel(cfg, false), 0);
	assert_int_equal(rpma_conn_cfg_get_compl_channel(cfg, &shared), 0);
	assert_false(shared);
	assert_int_equal(rpma_conn_cfg_set_srq(cfg, NULL), 0);
	assert_int_equal(rpma_conn_cfg_get_srq(cfg, &srq), 0);
	assert_null(srq);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, 0), 0);
	assert_int_equal(rpma_conn_cfg_get_rcq_size(cfg, &rcq), 0);
	assert_int_equal(rcq, 0);

	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

/* timeout_negative -- a negative timeout: RPMA_E_INVAL, value kept */
static void
timeout_negative(void **state)
{
	struct rpma_conn_cfg *cfg = NULL;
	int timeout;

	(void)state;
	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_timeout(cfg, 500), 0);
	assert_int_equal(rpma_conn_cfg_set_timeout(cfg, -1), RPMA_E_INVAL);
	assert_non_null(strstr(rpma_errormsg(), "(-1) is negative"));
	assert_int_equal(rpma_conn_cfg_set_timeout(cfg, -2147483647 - 1), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_timeout(cfg, &timeout), 0);
	assert_int_equal(timeout, 500);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

/* setters_null_cfg -- every setter refuses a NULL configuration */
static void
setters_null_cfg(void **state)
{
	(void)state;
	assert_int_equal(rpma_conn_cfg_set_timeout(NULL, 1), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_set_cq_size(NULL, 1), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(NULL, 1), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_set_sq_size(NULL, 1), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_set_rq_size(NULL, 1), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_set_compl_channel(NULL, true), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_set_srq(NULL, SRQ_A), RPMA_E_INVAL);
	assert_string_equal(rpma_errormsg(), "cfg is NULL");
}

/* getters_null -- every getter refuses NULL arguments and writes nothing */
static void
getters_null(void **state)
{
	struct rpma_conn_cfg *cfg = NULL;
	int timeout = 77;
	uint32_t v = 77;
	bool shared = true;
	struct rpma_srq *srq = SRQ_B;

	(void)state;
	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);

	assert_int_equal(rpma_conn_cfg_get_timeout(NULL, &timeout), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_timeout(cfg, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_cq_size(NULL, &v), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_cq_size(cfg, NULL), RPMA_E_INVAL);
	assert_string_equal(rpma_errormsg(), "cfg or cq_size is NULL");
	assert_int_equal(rpma_conn_cfg_get_rcq_size(NULL, &v), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_rcq_size(cfg, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_sq_size(NULL, &v), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_sq_size(cfg, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_rq_size(NULL, &v), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_rq_size(cfg, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_compl_channel(NULL, &shared), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_compl_channel(cfg, NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_srq(NULL, &srq), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_srq(cfg, NULL), RPMA_E_INVAL);

	assert_int_equal(timeout, 77);
	assert_int_equal(v, 77);
	assert_true(shared);
	assert_ptr_equal(srq, SRQ_B);
	/* the configuration is unchanged */
	check_defaults(cfg);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

/* snapshot_defaults -- a NULL configuration snapshots as the defaults */
static void
snapshot_defaults(void **state)
{
	struct rpma_conn_cfg_snapshot snap;

	(void)state;
	memset(&snap, 0xab, sizeof(snap));
	rpma__conn_cfg_snapshot(NULL, &snap);
	assert_int_equal(snap.timeout_ms, RPMA_DEFAULT_TIMEOUT_MS);
	assert_int_equal(snap.cq_size, 10);
	assert_int_equal(snap.rcq_size, 0);
	assert_int_equal(snap.sq_size, 10);
	assert_int_equal(snap.rq_size, 10);
	assert_false(snap.shared_comp_channel);
	assert_null(snap.srq);
	assert_null(snap.cq);
	assert_null(snap.rcq);
}

/* snapshot_values -- a snapshot copies every field of the configuration */
static void
snapshot_values(void **state)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct rpma_conn_cfg_snapshot snap;

	(void)state;
	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_timeout(cfg, 1), 0);
	assert_int_equal(rpma_conn_cfg_set_cq_size(cfg, 2), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, 3), 0);
	assert_int_equal(rpma_conn_cfg_set_sq_size(cfg, 4), 0);
	assert_int_equal(rpma_conn_cfg_set_rq_size(cfg, 5), 0);
	assert_int_equal(rpma_conn_cfg_set_compl_channel(cfg, true), 0);
	assert_int_equal(rpma_conn_cfg_set_srq(cfg, SRQ_B), 0);

	memset(&snap, 0, sizeof(snap));
	rpma__conn_cfg_snapshot(cfg, &snap);
	assert_int_equal(snap.timeout_ms, 1);
	assert_int_equal(snap.cq_size, 2);
	assert_int_equal(snap.rcq_size, 3);
	assert_int_equal(snap.sq_size, 4);
	assert_int_equal(snap.rq_size, 5);
	assert_true(snap.shared_comp_channel);
	assert_ptr_equal(snap.srq, SRQ_B);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

/*
 * set_get_cqs -- the CQs of their own are read back and snapshotted; NULL
 * clears them; a connection's CQ is refused and changes nothing
 */
static void
set_get_cqs(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_cfg *cfg = h_cfg_new();
	struct rpma_cq *a = NULL, *b = NULL, *conn_cq = NULL, *got = NULL;
	struct rpma_conn_cfg_snapshot snap;

	assert_int_equal(rpma_cq_new(st->peer, 8, NULL, &a), 0);
	assert_int_equal(rpma_cq_new(st->peer, 8, a, &b), 0);
	assert_int_equal(rpma_conn_cfg_set_cq(cfg, a), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq(cfg, b), 0);
	assert_int_equal(rpma_conn_cfg_get_cq(cfg, &got), 0);
	assert_ptr_equal(got, a);
	assert_int_equal(rpma_conn_cfg_get_rcq(cfg, &got), 0);
	assert_ptr_equal(got, b);
	rpma__conn_cfg_snapshot(cfg, &snap);
	assert_ptr_equal(snap.cq, a);
	assert_ptr_equal(snap.rcq, b);

	/* a connection's CQ is not taken: the values stay */
	assert_int_equal(rpma__cq_new(mock_ibv_context(), 4, NULL, &conn_cq), 0);
	assert_int_equal(rpma_conn_cfg_set_cq(cfg, conn_cq), RPMA_E_INVAL);
	assert_string_equal(rpma_errormsg(), "cq was not made by rpma_cq_new()");
	assert_int_equal(rpma_conn_cfg_set_rcq(cfg, conn_cq), RPMA_E_INVAL);
	assert_string_equal(rpma_errormsg(), "rcq was not made by rpma_cq_new()");
	assert_int_equal(rpma_conn_cfg_get_cq(cfg, &got), 0);
	assert_ptr_equal(got, a);
	assert_int_equal(rpma_conn_cfg_get_rcq(cfg, &got), 0);
	assert_ptr_equal(got, b);

	/* one CQ for both; then none */
	assert_int_equal(rpma_conn_cfg_set_rcq(cfg, a), 0);
	assert_int_equal(rpma_conn_cfg_get_rcq(cfg, &got), 0);
	assert_ptr_equal(got, a);
	assert_int_equal(rpma_conn_cfg_set_cq(cfg, NULL), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq(cfg, NULL), 0);
	check_defaults(cfg);

	/* the configuration holds no CQ: they are deleted while it lives */
	assert_int_equal(rpma_conn_cfg_set_cq(cfg, b), 0);
	assert_int_equal(rpma__cq_delete(&conn_cq), 0);
	assert_int_equal(rpma_cq_delete(&a), 0);
	assert_int_equal(rpma_cq_delete(&b), 0);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	h_assert_baseline(st);
}

/* cqs_null -- NULL arguments of the CQ setters and getters: RPMA_E_INVAL, nothing written */
static void
cqs_null(void **state)
{
	struct h_state *st = *state;
	struct rpma_conn_cfg *cfg = h_cfg_new();
	struct rpma_cq *a = NULL, *got = (struct rpma_cq *)SRQ_B;

	assert_int_equal(rpma_cq_new(st->peer, 8, NULL, &a), 0);
	assert_int_equal(rpma_conn_cfg_set_cq(NULL, a), RPMA_E_INVAL);
	assert_string_equal(rpma_errormsg(), "cfg is NULL");
	assert_int_equal(rpma_conn_cfg_set_rcq(NULL, a), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_cq(NULL, &got), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_cq(cfg, NULL), RPMA_E_INVAL);
	assert_string_equal(rpma_errormsg(), "cfg or cq_ptr is NULL");
	assert_int_equal(rpma_conn_cfg_get_rcq(NULL, &got), RPMA_E_INVAL);
	assert_int_equal(rpma_conn_cfg_get_rcq(cfg, NULL), RPMA_E_INVAL);
	assert_string_equal(rpma_errormsg(), "cfg or rcq_ptr is NULL");
	assert_ptr_equal(got, (struct rpma_cq *)SRQ_B);
	check_defaults(cfg);
	assert_int_equal(rpma_cq_delete(&a), 0);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	h_assert_baseline(st);
}

#define NTHREADS 4
#define NITER	 20000

struct mt_arg {
	struct rpma_conn_cfg *cfg;
	struct rpma_cq *cqs[2]; /* two CQs of their own, set by turns */
	unsigned k;		/* 1..NTHREADS: every byte of what this thread writes */
	int bad;
	int failed;
};

/* u32_ok -- a value some thread wrote: all 4 bytes equal, 1..NTHREADS */
static int
u32_ok(uint32_t v)
{
	uint32_t b = v & 0xff;

	return b >= 1 && b <= NTHREADS && v == b * 0x01010101u;
}

/* ptr_ok -- a pointer some thread wrote: all bytes equal, 1..NTHREADS */
static int
ptr_ok(const void *p)
{
	uintptr_t v = (uintptr_t)p;
	uintptr_t b = v & 0xff;

	return b >= 1 && b <= NTHREADS && v == b * (UINTPTR_MAX / 0xff);
}

/* mt_worker -- write this thread's values and read any thread's values */
static void *
mt_worker(void *arg)
{
	struct mt_arg *a = arg;
	uint32_t v32 = a->k * 0x01010101u;
	struct rpma_srq *srq_w = (struct rpma_srq *)(a->k * (UINTPTR_MAX / 0xff));

	for (int i = 0; i < NITER; i++) {
		int timeout;
		uint32_t v;
		bool shared;
		struct rpma_srq *srq;

		a->failed |= rpma_conn_cfg_set_timeout(a->cfg, (int)v32);
		a->failed |= rpma_conn_cfg_set_cq_size(a->cfg, v32);
		a->failed |= rpma_conn_cfg_set_rcq_size(a->cfg, v32);
		a->failed |= rpma_conn_cfg_set_sq_size(a->cfg, v32);
		a->failed |= rpma_conn_cfg_set_rq_size(a->cfg, v32);
		a->failed |= rpma_conn_cfg_set_compl_channel(a->cfg, a->k & 1);
		a->failed |= rpma_conn_cfg_set_srq(a->cfg, srq_w);
		a->failed |= rpma_conn_cfg_set_cq(a->cfg, a->cqs[a->k & 1]);
		a->failed |= rpma_conn_cfg_set_rcq(a->cfg, a->cqs[(a->k + 1) & 1]);

		a->failed |= rpma_conn_cfg_get_timeout(a->cfg, &timeout);
		a->bad += !u32_ok((uint32_t)timeout);
		a->failed |= rpma_conn_cfg_get_cq_size(a->cfg, &v);
		a->bad += !u32_ok(v);
		a->failed |= rpma_conn_cfg_get_rcq_size(a->cfg, &v);
		a->bad += !u32_ok(v);
		a->failed |= rpma_conn_cfg_get_sq_size(a->cfg, &v);
		a->bad += !u32_ok(v);
		a->failed |= rpma_conn_cfg_get_rq_size(a->cfg, &v);
		a->bad += !u32_ok(v);
		a->failed |= rpma_conn_cfg_get_compl_channel(a->cfg, &shared);
		a->failed |= rpma_conn_cfg_get_srq(a->cfg, &srq);
		a->bad += !ptr_ok(srq);

		struct rpma_cq *cq = NULL;

		a->failed |= rpma_conn_cfg_get_cq(a->cfg, &cq);
		a->bad += cq != a->cqs[0] && cq != a->cqs[1];
		a->failed |= rpma_conn_cfg_get_rcq(a->cfg, &cq);
		a->bad += cq != a->cqs[0] && cq != a->cqs[1];
	}
	return NULL;
}

/* multithreaded -- concurrent setters and getters never read a torn value */
static void
multithreaded(void **state)
{
	struct rpma_conn_cfg *cfg = NULL;
	struct mt_arg args[NTHREADS];
	pthread_t th[NTHREADS];
	struct rpma_peer *peer = h_peer_new(false);
	struct rpma_cq *cqs[2] = {NULL, NULL};

	(void)state;
	assert_int_equal(rpma_cq_new(peer, 8, NULL, &cqs[0]), 0);
	assert_int_equal(rpma_cq_new(peer, 8, NULL, &cqs[1]), 0);
	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_cq(cfg, cqs[0]), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq(cfg, cqs[1]), 0);
	/* start from values of "thread 1", so that every read must pass */
	assert_int_equal(rpma_conn_cfg_set_timeout(cfg, 0x01010101), 0);
	assert_int_equal(rpma_conn_cfg_set_cq_size(cfg, 0x01010101u), 0);
	assert_int_equal(rpma_conn_cfg_set_rcq_size(cfg, 0x01010101u), 0);
	assert_int_equal(rpma_conn_cfg_set_sq_size(cfg, 0x01010101u), 0);
	assert_int_equal(rpma_conn_cfg_set_rq_size(cfg, 0x01010101u), 0);
	assert_int_equal(rpma_conn_cfg_set_srq(cfg, (struct rpma_srq *)(UINTPTR_MAX / 0xff)), 0);

	for (unsigned i = 0; i < NTHREADS; i++) {
		args[i] = (struct mt_arg){cfg, {cqs[0], cqs[1]}, i + 1, 0, 0};
		assert_int_equal(pthread_create(&th[i], NULL, mt_worker, &args[i]), 0);
	}
	for (unsigned i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	for (unsigned i = 0; i < NTHREADS; i++) {
		assert_int_equal(args[i].failed, 0);
		assert_int_equal(args[i].bad, 0);
	}

	/* the final values are those of one of the threads */
	uint32_t v;

	assert_int_equal(rpma_conn_cfg_get_cq_size(cfg, &v), 0);
	assert_true(u32_ok(v));
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
	assert_int_equal(rpma_cq_delete(&cqs[0]), 0);
	assert_int_equal(rpma_cq_delete(&cqs[1]), 0);
	assert_int_equal(rpma_peer_delete(&peer), 0);
}

/* the rounds of snapshot_consistent's writer */
#define SNAP_ROUNDS 400000

/* snap_writer -- set timeout then rq_size to k, for k = 1, 2, ... */
static void *
snap_writer(void *arg)
{
	struct rpma_conn_cfg *cfg = arg;

	for (int k = 1; k <= SNAP_ROUNDS; k++) {
		(void)rpma_conn_cfg_set_timeout(cfg, k);
		(void)rpma_conn_cfg_set_rq_size(cfg, (uint32_t)k);
	}
	return NULL;
}

/*
 * snapshot_consistent -- a snapshot is a state the configuration was in:
 * while one thread sets timeout then rq_size to each k in turn, no snapshot
 * sees rq_size ahead of timeout, nor more than one step behind it
 */
static void
snapshot_consistent(void **state)
{
	struct rpma_conn_cfg *cfg = NULL;
	pthread_t th;
	unsigned bad = 0;

	(void)state;
	assert_int_equal(rpma_conn_cfg_new(&cfg), 0);
	assert_int_equal(rpma_conn_cfg_set_timeout(cfg, 0), 0);
	assert_int_equal(rpma_conn_cfg_set_rq_size(cfg, 0), 0);
	assert_int_equal(pthread_create(&th, NULL, snap_writer, cfg), 0);
	for (;;) {
		struct rpma_conn_cfg_snapshot snap;

		rpma__conn_cfg_snapshot(cfg, &snap);
		if (snap.rq_size > (uint32_t)snap.timeout_ms ||
		    (uint32_t)snap.timeout_ms - snap.rq_size > 1)
			bad++;
		if (snap.rq_size == SNAP_ROUNDS)
			break;
	}
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(bad, 0);
	assert_int_equal(rpma_conn_cfg_delete(&cfg), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(new_defaults, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(new_delete_invalid, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(new_nomem, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(set_get_all, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(timeout_negative, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(setters_null_cfg, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(getters_null, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(snapshot_defaults, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(snapshot_values, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(set_get_cqs, h_setup, h_teardown),
	    cmocka_unit_test_setup_teardown(cqs_null, h_setup, h_teardown),
	    cmocka_unit_test_setup_teardown(multithreaded, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(snapshot_consistent, mock_test_setup,
					    mock_test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
