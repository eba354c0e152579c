// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/* test_credit.c -- SQ and CQ admission (workers/credit.c) */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "credit.h"
#include "rpmaf.h"

#define SQ 8

/* the SQ bound: a batch that does not fit is refused whole, nothing taken */
static void
test_sq_bound(void **state)
{
	uint32_t ring[SQ];
	struct rpmaf__acct a;
	struct rpmaf__credits cq;

	(void)state;
	rpmaf__credits_init(&cq, 100);
	rpmaf__acct_init(&a, SQ, ring);
	assert_int_equal(rpmaf__acct_admit(&a, &cq, 0), RPMAF_E_INVAL);
	assert_int_equal(rpmaf__acct_admit(&a, &cq, SQ + 1), RPMAF_E_INVAL);
	assert_int_equal(rpmaf__acct_admit(&a, &cq, 5), 0);
	assert_int_equal(rpmaf__acct_admit(&a, &cq, 4), RPMAF_E_AGAIN);
	assert_int_equal(a.sq.used, 5);
	assert_int_equal(cq.used, 5);
	assert_int_equal(rpmaf__acct_admit(&a, &cq, 3), 0);
	assert_int_equal(rpmaf__acct_admit(&a, &cq, 1), RPMAF_E_AGAIN);
	/* the batches retire in order, each whole */
	assert_int_equal(rpmaf__acct_retire(&a, &cq, true), 5);
	assert_int_equal(rpmaf__acct_retire(&a, &cq, true), 3);
	assert_int_equal(rpmaf__acct_retire(&a, &cq, true), 0);
	assert_int_equal(cq.used, 0);
	assert_int_equal(cq.used_max, 8);
}

/* the CQ bound across connections: the shared CQ refuses what the SQs would take */
static void
test_cq_bound(void **state)
{
	uint32_t r1[SQ], r2[SQ];
	struct rpmaf__acct a, b;
	struct rpmaf__credits cq;

	(void)state;
	rpmaf__credits_init(&cq, 10);
	rpmaf__acct_init(&a, SQ, r1);
	rpmaf__acct_init(&b, SQ, r2);
	assert_int_equal(rpmaf__acct_admit(&a, &cq, 6), 0);
	assert_int_equal(rpmaf__acct_admit(&b, &cq, 5), RPMAF_E_AGAIN);
	assert_int_equal(b.sq.used, 0); /* the SQ slots given back */
	assert_int_equal(rpmaf__acct_admit(&b, &cq, 4), 0);
	assert_int_equal(cq.used, 10);
	assert_int_equal(rpmaf__acct_admit(&a, &cq, 1), RPMAF_E_AGAIN);
	assert_int_equal(rpmaf__acct_retire(&b, &cq, true), 4);
	assert_int_equal(rpmaf__acct_admit(&a, &cq, 2), 0);
	assert_true(cq.used_max <= cq.cap);
}

/* a failure breaks the connection: one per completion, the rest on release */
static void
test_broken(void **state)
{
	uint32_t ring[SQ];
	struct rpmaf__acct a;
	struct rpmaf__credits cq;

	(void)state;
	rpmaf__credits_init(&cq, 16);
	rpmaf__acct_init(&a, SQ, ring);
	assert_int_equal(rpmaf__acct_admit(&a, &cq, 4), 0);
	assert_int_equal(rpmaf__acct_admit(&a, &cq, 4), 0);
	assert_int_equal(rpmaf__acct_retire(&a, &cq, false), 1);
	assert_true(a.broken);
	assert_int_equal(rpmaf__acct_admit(&a, &cq, 1), RPMAF_E_INVAL);
	assert_int_equal(rpmaf__acct_retire(&a, &cq, false), 1);
	assert_int_equal(a.sq.used, 6);
	assert_int_equal(rpmaf__acct_release_all(&a, &cq), 6);
	assert_int_equal(cq.used, 0);
	assert_int_equal(rpmaf__acct_retire(&a, &cq, false), 0); /* never below zero */
}

/* unadmit: a batch not posted at all is forgotten; a part of one breaks the connection */
static void
test_unadmit(void **state)
{
	uint32_t ring[SQ];
	struct rpmaf__acct a;
	struct rpmaf__credits cq;

	(void)state;
	rpmaf__credits_init(&cq, 16);
	rpmaf__acct_init(&a, SQ, ring);
	assert_int_equal(rpmaf__acct_unadmit(&a, &cq, 1), RPMAF_E_INVAL);
	assert_int_equal(rpmaf__acct_admit(&a, &cq, 3), 0);
	assert_int_equal(rpmaf__acct_unadmit(&a, &cq, 4), RPMAF_E_INVAL);
	assert_int_equal(rpmaf__acct_unadmit(&a, &cq, 3), 0);
	assert_false(a.broken);
	assert_int_equal(a.nbatch, 0);
	assert_int_equal(rpmaf__acct_admit(&a, &cq, 3), 0);
	assert_int_equal(rpmaf__acct_unadmit(&a, &cq, 1), 0);
	assert_true(a.broken);
	assert_int_equal(cq.used, 2);
}

/* many random batches: the ring wraps, the counters always agree */
static void
test_random(void **state)
{
	uint32_t ring[SQ];
	struct rpmaf__acct a;
	struct rpmaf__credits cq;
	uint32_t fifo[1 << 16], head = 0, tail = 0, out = 0;

	(void)state;
	rpmaf__credits_init(&cq, 12);
	rpmaf__acct_init(&a, SQ, ring);
	srand(3);
	for (int i = 0; i < 100000; i++) {
		if (rand() % 2) {
			uint32_t n = 1 + (uint32_t)rand() % SQ;
			int ret = rpmaf__acct_admit(&a, &cq, n);

			if (ret == 0) {
				fifo[tail++ % (1 << 16)] = n;
				out += n;
			} else {
				assert_int_equal(ret, RPMAF_E_AGAIN);
				assert_true(out + n > SQ);
			}
		} else if (head != tail) {
			uint32_t n = fifo[head++ % (1 << 16)];

			assert_int_equal(rpmaf__acct_retire(&a, &cq, true), n);
			out -= n;
		}
		assert_int_equal(a.sq.used, out);
		assert_int_equal(cq.used, out);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sq_bound), cmocka_unit_test(test_cq_bound),
	    cmocka_unit_test(test_broken),   cmocka_unit_test(test_unadmit),
	    cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
