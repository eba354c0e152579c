// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/* test_qpmap.c -- the qp_num routing table (workers/qpmap.c) against a plain array */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "qpmap.h"
#include "rpmaf.h"

#define MAX  100
#define KEYS 300 /* qp numbers drawn from 0 .. KEYS - 1, colliding often */

/* random inserts and removes keep the map equal to the model */
static void
test_model(void **state)
{
	static char vals[KEYS];
	void *model[KEYS] = {0};
	struct rpmaf__qpmap m;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(rpmaf__qpmap_init(&m, MAX), 0);
	srand(11);
	for (int i = 0; i < 200000; i++) {
		uint32_t k = (uint32_t)rand() % KEYS * 64; /* same low bits: clusters */
		uint32_t j = k / 64;

		if (rand() % 2) {
			int ret = rpmaf__qpmap_insert(&m, k, &vals[j]);

			if (model[j])
				assert_int_equal(ret, RPMAF_E_INVAL);
			else if (n == MAX)
				assert_int_equal(ret, RPMAF_E_AGAIN);
			else {
				assert_int_equal(ret, 0);
				model[j] = &vals[j];
				n++;
			}
		} else {
			int ret = rpmaf__qpmap_remove(&m, k);

			assert_int_equal(ret, model[j] ? 0 : RPMAF_E_INVAL);
			if (model[j]) {
				model[j] = NULL;
				n--;
			}
		}
		if (i % 1000 == 0)
			for (uint32_t x = 0; x < KEYS; x++)
				assert_ptr_equal(rpmaf__qpmap_get(&m, x * 64), model[x]);
	}
	assert_int_equal(m.n, n);
	assert_int_equal(rpmaf__qpmap_insert(&m, 1, NULL), RPMAF_E_INVAL);
	rpmaf__qpmap_fini(&m);
	assert_int_equal(rpmaf__qpmap_init(&m, 0), RPMAF_E_INVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
