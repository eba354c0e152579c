/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srq_cfg.c -- unit tests of librpma/src/srq_cfg.c: the shared receive queue
 * configuration
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <string.h>

#include "librpma.h"
#include "mocks.h"
#include "srq_cfg.h"

#define BAD_CFG ((struct rpma_srq_cfg *)0x5a5a)

/* new_defaults -- a new configuration has RQ 20 and receive CQ 20 */
static void
new_defaults(void **state)
{
	struct rpma_srq_cfg *cfg = NULL;
	uint32_t rq = 0, rcq = 0;

	(void)state;
	assert_int_equal(rpma_srq_cfg_new(&cfg), 0);
	assert_non_null(cfg);
	assert_int_equal(mock_alloc_live(), 1);
	assert_int_equal(rpma_srq_cfg_get_rq_size(cfg, &rq), 0);
	assert_int_equal(rpma_srq_cfg_get_rcq_size(cfg, &rcq), 0);
	assert_int_equal(rq, 20);
	assert_int_equal(rcq, 20);
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
	assert_null(cfg);
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
}

/* new_delete_invalid -- NULL pointers: RPMA_E_INVAL */
static void
new_delete_invalid(void **state)
{
	(void)state;
	assert_int_equal(rpma_srq_cfg_new(NULL), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_cfg_delete(NULL), RPMA_E_INVAL);
	assert_string_equal(rpma_errormsg(), "cfg_ptr is NULL");
}

/* new_nomem -- allocation failure: RPMA_E_NOMEM, output untouched */
static void
new_nomem(void **state)
{
	struct rpma_srq_cfg *cfg = BAD_CFG;

	(void)state;
	mock_alloc_fail_nth(1);
	assert_int_equal(rpma_srq_cfg_new(&cfg), RPMA_E_NOMEM);
	assert_ptr_equal(cfg, BAD_CFG);
}

/* set_get -- each setter's value is read back by its getter only */
static void
set_get(void **state)
{
	struct rpma_srq_cfg *cfg = NULL;
	uint32_t rq, rcq;

	(void)state;
	assert_int_equal(rpma_srq_cfg_new(&cfg), 0);
	assert_int_equal(rpma_srq_cfg_set_rq_size(cfg, 123), 0);
	assert_int_equal(rpma_srq_cfg_get_rq_size(cfg, &rq), 0);
	assert_int_equal(rpma_srq_cfg_get_rcq_size(cfg, &rcq), 0);
	assert_int_equal(rq, 123);
	assert_int_equal(rcq, 20);

	assert_int_equal(rpma_srq_cfg_set_rcq_size(cfg, 0), 0);
	assert_int_equal(rpma_srq_cfg_get_rcq_size(cfg, &rcq), 0);
	assert_int_equal(rpma_srq_cfg_get_rq_size(cfg, &rq), 0);
	assert_int_equal(rcq, 0);
	assert_int_equal(rq, 123);

	assert_int_equal(rpma_srq_cfg_set_rq_size(cfg, 0xffffffffu), 0);
	assert_int_equal(rpma_srq_cfg_get_rq_size(cfg, &rq), 0);
	assert_int_equal(rq, 0xffffffffu);
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
}

/* null_args -- setters and getters refuse NULL and write nothing */
static void
null_args(void **state)
{
	struct rpma_srq_cfg *cfg = NULL;
	uint32_t v = 77;

	(void)state;
	assert_int_equal(rpma_srq_cfg_new(&cfg), 0);
	assert_int_equal(rpma_srq_cfg_set_rq_size(NULL, 1), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_cfg_set_rcq_size(NULL, 1), RPMA_E_INVAL);
	assert_string_equal(rpma_errormsg(), "cfg is NULL");
	assert_int_equal(rpma_srq_cfg_get_rq_size(NULL, &v), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_cfg_get_rq_size(cfg, NULL), RPMA_E_INVAL);
	assert_string_equal(rpma_errormsg(), "cfg or rq_size is NULL");
	assert_int_equal(rpma_srq_cfg_get_rcq_size(NULL, &v), RPMA_E_INVAL);
	assert_int_equal(rpma_srq_cfg_get_rcq_size(cfg, NULL), RPMA_E_INVAL);
	assert_int_equal(v, 77);
	assert_int_equal(rpma_srq_cfg_get_rq_size(cfg, &v), 0);
	assert_int_equal(v, 20);
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
}

/* get_sizes -- the internal reader: defaults for NULL, else the set values */
static void
get_sizes(void **state)
{
	struct rpma_srq_cfg *cfg = NULL;
	uint32_t rq = 0, rcq = 0;

	(void)state;
	rpma__srq_cfg_get_sizes(NULL, &rq, &rcq);
	assert_int_equal(rq, 20);
	assert_int_equal(rcq, 20);

	assert_int_equal(rpma_srq_cfg_new(&cfg), 0);
	assert_int_equal(rpma_srq_cfg_set_rq_size(cfg, 5), 0);
	assert_int_equal(rpma_srq_cfg_set_rcq_size(cfg, 6), 0);
	rpma__srq_cfg_get_sizes(cfg, &rq, &rcq);
	assert_int_equal(rq, 5);
	assert_int_equal(rcq, 6);
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
}

#define NTHREADS 4
#define NITER	 50000

struct mt_arg {
	struct rpma_srq_cfg *cfg;
	uint32_t k;
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

/* mt_worker -- write this thread's values and read any thread's values */
static void *
mt_worker(void *arg)
{
	struct mt_arg *a = arg;
	uint32_t w = a->k * 0x01010101u;

	for (int i = 0; i < NITER; i++) {
		uint32_t v, rq, rcq;

		a->failed |= rpma_srq_cfg_set_rq_size(a->cfg, w);
		a->failed |= rpma_srq_cfg_set_rcq_size(a->cfg, w);
		a->failed |= rpma_srq_cfg_get_rq_size(a->cfg, &v);
		a->bad += !u32_ok(v);
		a->failed |= rpma_srq_cfg_get_rcq_size(a->cfg, &v);
		a->bad += !u32_ok(v);
		rpma__srq_cfg_get_sizes(a->cfg, &rq, &rcq);
		a->bad += !u32_ok(rq) + !u32_ok(rcq);
	}
	return NULL;
}

/* multithreaded -- concurrent setters and getters never read a torn value */
static void
multithreaded(void **state)
{
	struct rpma_srq_cfg *cfg = NULL;
	struct mt_arg args[NTHREADS];
	pthread_t th[NTHREADS];

	(void)state;
	assert_int_equal(rpma_srq_cfg_new(&cfg), 0);
	assert_int_equal(rpma_srq_cfg_set_rq_size(cfg, 0x01010101u), 0);
	assert_int_equal(rpma_srq_cfg_set_rcq_size(cfg, 0x01010101u), 0);
	for (uint32_t i = 0; i < NTHREADS; i++) {
		args[i] = (struct mt_arg){cfg, i + 1, 0, 0};
		assert_int_equal(pthread_create(&th[i], NULL, mt_worker, &args[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	for (int i = 0; i < NTHREADS; i++) {
		assert_int_equal(args[i].failed, 0);
		assert_int_equal(args[i].bad, 0);
	}
	assert_int_equal(rpma_srq_cfg_delete(&cfg), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(new_defaults, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(new_delete_invalid, mock_test_setup,
					    mock_test_teardown),
	    cmocka_unit_test_setup_teardown(new_nomem, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(set_get, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(null_args, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(get_sizes, mock_test_setup, mock_test_teardown),
	    cmocka_unit_test_setup_teardown(multithreaded, mock_test_setup, mock_test_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
