// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * test_prange.c -- the page runs of a group commit (server/prange.h): byte
 * ranges rounded out to pages, sorted, merged where they overlap or touch,
 * empty ones dropped; against a brute-force page map on random input.
 */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "prange.h"

#define PAGE 4096u

/* merge -- rpmaf__prange_merge() of the n ranges of in (pairs off, end) into v */
static size_t
merge(struct rpmaf__prange *v, const uint64_t *in, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (struct rpmaf__prange){in[2 * i], in[2 * i + 1]};
	return rpmaf__prange_merge(v, n, PAGE);
}

/* expect -- the runs of v are exactly the k pairs of want */
static void
expect(const struct rpmaf__prange *v, size_t got, const uint64_t *want, size_t k)
{
	assert_int_equal(got, k);
	for (size_t i = 0; i < k; i++) {
		assert_int_equal(v[i].off, want[2 * i]);
		assert_int_equal(v[i].end, want[2 * i + 1]);
	}
}

/* test_round -- one range is rounded out to whole pages */
static void
test_round(void **state)
{
	struct rpmaf__prange v[4];
	const uint64_t in[] = {100, 200, PAGE, 2 * PAGE, PAGE * 5 - 1, PAGE * 5 + 1};
	const uint64_t w1[] = {0, PAGE}, w2[] = {PAGE, 2 * PAGE}, w3[] = {4 * PAGE, 6 * PAGE};

	(void)state;
	expect(v, merge(v, in, 1), w1, 1);
	expect(v, merge(v, in + 2, 1), w2, 1);
	expect(v, merge(v, in + 4, 1), w3, 1);
}

/* test_sorted -- ranges given out of order come out sorted, apart when a page lies between */
static void
test_sorted(void **state)
{
	struct rpmaf__prange v[3];
	const uint64_t in[] = {8 * PAGE, 8 * PAGE + 10, 0, 10, 4 * PAGE + 7, 4 * PAGE + 9};
	const uint64_t want[] = {0, PAGE, 4 * PAGE, 5 * PAGE, 8 * PAGE, 9 * PAGE};

	(void)state;
	expect(v, merge(v, in, 3), want, 3);
}

/* test_overlap -- overlapping ranges, one inside another, merge into one run */
static void
test_overlap(void **state)
{
	struct rpmaf__prange v[3];
	const uint64_t in[] = {PAGE + 5,     3 * PAGE,	   2 * PAGE,
			       4 * PAGE + 1, 2 * PAGE + 1, 2 * PAGE + 2};
	const uint64_t want[] = {PAGE, 5 * PAGE};

	(void)state;
	expect(v, merge(v, in, 3), want, 1);
}

/* test_adjacent -- ranges in the same page, or in pages next to each other, make one run */
static void
test_adjacent(void **state)
{
	struct rpmaf__prange v[4];
	const uint64_t same[] = {10, 20, 30, 40};
	const uint64_t next[] = {PAGE - 1, PAGE, PAGE, PAGE + 1, 3 * PAGE, 4 * PAGE};
	const uint64_t w1[] = {0, PAGE}, w2[] = {0, 2 * PAGE, 3 * PAGE, 4 * PAGE};

	(void)state;
	expect(v, merge(v, same, 2), w1, 1);
	expect(v, merge(v, next, 3), w2, 2);
}

/* test_empty -- empty ranges are dropped, none at all gives no run */
static void
test_empty(void **state)
{
	struct rpmaf__prange v[3];
	const uint64_t in[] = {PAGE, PAGE, 5, 5, 2 * PAGE + 1, 2 * PAGE + 2};
	const uint64_t want[] = {2 * PAGE, 3 * PAGE};

	(void)state;
	assert_int_equal(merge(v, in, 2), 0);
	assert_int_equal(rpmaf__prange_merge(v, 0, PAGE), 0);
	expect(v, merge(v, in, 3), want, 1);
}

/* test_random -- random ranges against a map of the pages they touch */
static void
test_random(void **state)
{
	enum { PAGES = 64, N = 40 };
	struct rpmaf__prange v[N];
	unsigned seed = 7;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		uint8_t map[PAGES] = {0}, got[PAGES] = {0};
		size_t n = (size_t)(rand_r(&seed) % N), k;

		for (size_t i = 0; i < n; i++) {
			uint64_t off = (uint64_t)rand_r(&seed) % (PAGES * PAGE);
			uint64_t len = (uint64_t)rand_r(&seed) % (3 * PAGE);

			if (off + len > PAGES * PAGE)
				len = PAGES * PAGE - off;
			v[i] = (struct rpmaf__prange){off, off + len};
			for (uint64_t p = off / PAGE; len && p <= (off + len - 1) / PAGE; p++)
				map[p] = 1;
		}
		k = rpmaf__prange_merge(v, n, PAGE);
		for (size_t i = 0; i < k; i++) {
			assert_true(v[i].off % PAGE == 0 && v[i].end % PAGE == 0);
			assert_true(v[i].off < v[i].end);
			/* sorted, and a page at least between two runs */
			assert_true(i == 0 || v[i - 1].end < v[i].off);
			for (uint64_t p = v[i].off / PAGE; p < v[i].end / PAGE; p++)
				got[p] = 1;
		}
		assert_memory_equal(map, got, PAGES);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round),   cmocka_unit_test(test_sorted),
	    cmocka_unit_test(test_overlap), cmocka_unit_test(test_adjacent),
	    cmocka_unit_test(test_empty),   cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
