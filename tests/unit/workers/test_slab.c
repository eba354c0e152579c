// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/* test_slab.c -- the worker's preallocated buffers (workers/slab.c) */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rpmaf.h"
#include "slab.h"

/* get hands out 0, 1, 2 ... in order, page-aligned base, distinct buffers, then NULL */
static void
test_get_all(void **state)
{
	struct rpmaf__slab s;

	(void)state;
	assert_int_equal(rpmaf__slab_init(&s, 8, 100), 0);
	assert_int_equal((uintptr_t)s.base % 4096, 0);
	for (uint32_t i = 0; i < 8; i++) {
		char *b = rpmaf__slab_get(&s);

		assert_ptr_equal(b, s.base + i * 100);
		assert_int_equal(rpmaf__slab_index(&s, b), i);
	}
	assert_null(rpmaf__slab_get(&s));
	assert_int_equal(rpmaf__slab_size(&s), 800);
	rpmaf__slab_fini(&s);
}

/* put: a buffer comes back and is handed out again; double put, foreign and interior refused */
static void
test_put(void **state)
{
	struct rpmaf__slab s;
	char other;

	(void)state;
	assert_int_equal(rpmaf__slab_init(&s, 4, 64), 0);
	char *a = rpmaf__slab_get(&s);
	char *b = rpmaf__slab_get(&s);

	assert_int_equal(rpmaf__slab_put(&s, b), 0);
	assert_int_equal(rpmaf__slab_put(&s, b), RPMAF_E_INVAL);
	assert_int_equal(rpmaf__slab_put(&s, a + 1), RPMAF_E_INVAL);
	assert_int_equal(rpmaf__slab_put(&s, &other), RPMAF_E_INVAL);
	assert_int_equal(rpmaf__slab_put(&s, NULL), RPMAF_E_INVAL);
	assert_int_equal(rpmaf__slab_put(&s, s.base + 3 * 64),
			 RPMAF_E_INVAL); /* never handed out */
	assert_ptr_equal(rpmaf__slab_get(&s), b);
	assert_int_equal(rpmaf__slab_index(&s, s.base + 4 * 64), UINT32_MAX);
	rpmaf__slab_fini(&s);
}

/* init refuses zero sizes and an overflowing product */
static void
test_init_invalid(void **state)
{
	struct rpmaf__slab s;

	(void)state;
	assert_int_equal(rpmaf__slab_init(&s, 0, 64), RPMAF_E_INVAL);
	assert_int_equal(rpmaf__slab_init(&s, 4, 0), RPMAF_E_INVAL);
	assert_int_equal(rpmaf__slab_init(&s, UINT32_MAX, SIZE_MAX / 2), RPMAF_E_INVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_get_all),
	    cmocka_unit_test(test_put),
	    cmocka_unit_test(test_init_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
