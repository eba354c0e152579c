// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/* test_timer.c -- the worker's timer heap (workers/timer.c) */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "timer.h"

#define N 1000

/* order: random deadlines come out sorted; every pop is the minimum */
static void
test_order(void **state)
{
	static struct rpmaf__timer t[N];
	struct rpmaf__timer_heap h;
	uint64_t last = 0;

	(void)state;
	assert_int_equal(rpmaf__timer_heap_init(&h, N), 0);
	srand(7);
	for (int i = 0; i < N; i++) {
		t[i] = (struct rpmaf__timer){.deadline_ns = (uint64_t)(rand() % 5000)};
		assert_int_equal(rpmaf__timer_heap_push(&h, &t[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		struct rpmaf__timer *x = rpmaf__timer_heap_pop_due(&h, UINT64_MAX);

		assert_non_null(x);
		assert_true(x->deadline_ns >= last);
		assert_int_equal(x->pos, 0);
		last = x->deadline_ns;
	}
	assert_null(rpmaf__timer_heap_top(&h));
	rpmaf__timer_heap_fini(&h);
}

/* remove: cancelling any timer keeps the heap ordered; double arm/cancel refused */
static void
test_remove(void **state)
{
	static struct rpmaf__timer t[N];
	struct rpmaf__timer_heap h;
	int left = 0;

	(void)state;
	assert_int_equal(rpmaf__timer_heap_init(&h, N), 0);
	for (int i = 0; i < N; i++) {
		t[i] = (struct rpmaf__timer){.deadline_ns = (uint64_t)((i * 7919) % N)};
		assert_int_equal(rpmaf__timer_heap_push(&h, &t[i]), 0);
	}
	assert_int_equal(rpmaf__timer_heap_push(&h, &t[0]), RPMAF_E_INVAL);
	for (int i = 0; i < N; i += 3)
		assert_int_equal(rpmaf__timer_heap_remove(&h, &t[i]), 0);
	assert_int_equal(rpmaf__timer_heap_remove(&h, &t[0]), RPMAF_E_INVAL);
	uint64_t last = 0;
	struct rpmaf__timer *x;

	while ((x = rpmaf__timer_heap_pop_due(&h, UINT64_MAX))) {
		assert_true(x->deadline_ns >= last);
		assert_true((x - t) % 3 != 0);
		last = x->deadline_ns;
		left++;
	}
	assert_int_equal(left, N - (N + 2) / 3);
	rpmaf__timer_heap_fini(&h);
}

/* due and full: nothing pops before its deadline; a full heap says AGAIN */
static void
test_due_full(void **state)
{
	struct rpmaf__timer t[3] = {{.deadline_ns = 100}, {.deadline_ns = 50}, {.deadline_ns = 9}};
	struct rpmaf__timer_heap h;

	(void)state;
	assert_int_equal(rpmaf__timer_heap_init(&h, 0), RPMAF_E_INVAL);
	assert_int_equal(rpmaf__timer_heap_init(&h, 2), 0);
	assert_int_equal(rpmaf__timer_heap_push(&h, &t[0]), 0);
	assert_int_equal(rpmaf__timer_heap_push(&h, &t[1]), 0);
	assert_int_equal(rpmaf__timer_heap_push(&h, &t[2]), RPMAF_E_AGAIN);
	assert_null(rpmaf__timer_heap_pop_due(&h, 49));
	assert_ptr_equal(rpmaf__timer_heap_pop_due(&h, 50), &t[1]);
	assert_null(rpmaf__timer_heap_pop_due(&h, 99));
	assert_int_equal(rpmaf__timer_heap_push(&h, &t[2]), 0);
	assert_ptr_equal(rpmaf__timer_heap_top(&h), &t[2]);
	rpmaf__timer_heap_fini(&h);
	assert_int_equal(t[0].pos, 0); /* fini disarms what was left */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order),
	    cmocka_unit_test(test_remove),
	    cmocka_unit_test(test_due_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
