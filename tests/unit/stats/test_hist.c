/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_hist.c -- the log-linear histogram: bucket boundaries exact and
 * contiguous over the whole uint64_t range, percentiles within the stated
 * error of a sorted reference on random data, merges, empty histograms.
 */

#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hist.h"

/* test_bucket_bounds -- buckets tile [0, 2^64) with no gap and no overlap */
static void
test_bucket_bounds(void **state)
{
	(void)state;
	assert_int_equal(rpmaf__hist_bucket_low(0), 0);
	for (size_t i = 0; i < RPMAF__HIST_BUCKETS; i++) {
		uint64_t lo = rpmaf__hist_bucket_low(i), hi = rpmaf__hist_bucket_high(i);

		assert_true(lo <= hi);
		assert_int_equal(rpmaf__hist_bucket(lo), i);
		assert_int_equal(rpmaf__hist_bucket(hi), i);
		if (i + 1 < RPMAF__HIST_BUCKETS)
			assert_int_equal(rpmaf__hist_bucket_low(i + 1), hi + 1);
		/* the width is below 1/2^SUB_BITS of the bucket's lowest value */
		if (lo >= RPMAF__HIST_SUB)
			assert_true((hi - lo) * RPMAF__HIST_SUB < lo);
		else
			assert_int_equal(lo, hi);
	}
	assert_int_equal(rpmaf__hist_bucket_high(RPMAF__HIST_BUCKETS - 1), UINT64_MAX);
	assert_int_equal(rpmaf__hist_bucket(UINT64_MAX), RPMAF__HIST_BUCKETS - 1);
	/* a few by hand */
	assert_int_equal(rpmaf__hist_bucket(31), 31);
	assert_int_equal(rpmaf__hist_bucket(32), 32);
	assert_int_equal(rpmaf__hist_bucket(63), 63);
	assert_int_equal(rpmaf__hist_bucket(64), 64);
	assert_int_equal(rpmaf__hist_bucket(65), 64);
	assert_int_equal(rpmaf__hist_bucket(66), 65);
	assert_int_equal(rpmaf__hist_bucket_low(65), 66);
	assert_int_equal(rpmaf__hist_bucket_high(65), 67);
	assert_int_equal(rpmaf__hist_bucket(1000000), rpmaf__hist_bucket(1000000 + 1));
}

/* xorshift -- a reproducible pseudo-random sequence */
static uint64_t
xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* cmp_u64 -- qsort order */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ref_rank -- the 1-based rank the histogram uses: ceil(p% of n), 1 to n */
static size_t
ref_rank(double p, size_t n)
{
	double want = p / 100.0 * (double)n;
	size_t r = (size_t)want;

	if ((double)r < want)
		r++;
	return r == 0 ? 1 : r > n ? n : r;
}

/*
 * check_percentiles -- every percentile of the n values at v (recorded in a
 * histogram) is at or above the reference sample and less than 1/2^SUB_BITS
 * above it
 */
static void
check_percentiles(uint64_t *v, size_t n)
{
	static struct rpmaf__hist h;
	static struct rpmaf__hist_snap s;
	static const double ps[] = {0, 0.1, 1, 10, 25, 50, 75, 90, 99, 99.5, 99.9, 99.99, 100};
	unsigned __int128 sum = 0;

	rpmaf__hist_init(&h);
	for (size_t i = 0; i < n; i++) {
		rpmaf__hist_record(&h, v[i]);
		sum += v[i];
	}
	rpmaf__hist_snap_clear(&s);
	rpmaf__hist_snap_add(&s, &h);
	qsort(v, n, sizeof(*v), cmp_u64);
	assert_int_equal(s.count, n);
	assert_int_equal(s.min, v[0]);
	assert_int_equal(s.max, v[n - 1]);
	assert_int_equal(s.sum, (uint64_t)sum);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		uint64_t ref = v[ref_rank(ps[i], n) - 1];
		uint64_t got = rpmaf__hist_snap_percentile(&s, ps[i]);

		if (got < ref || (ref >= RPMAF__HIST_SUB && (got - ref) * RPMAF__HIST_SUB >= ref) ||
		    (ref < RPMAF__HIST_SUB && got != ref))
			fail_msg("p%g: %llu for %llu", ps[i], (unsigned long long)got,
				 (unsigned long long)ref);
	}
	assert_int_equal(rpmaf__hist_snap_percentile(&s, 100), v[n - 1]);
}

/* test_percentiles_random -- uniform, log-uniform and small-value data */
static void
test_percentiles_random(void **state)
{
	enum { N = 100000 };
	uint64_t *v = malloc(N * sizeof(*v));
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	(void)state;
	assert_non_null(v);
	for (int round = 0; round < 10; round++) {
		for (size_t i = 0; i < N; i++) {
			uint64_t r = xorshift(&seed);

			switch (round % 3) {
			case 0: /* latencies: 1 us to 10 ms */
				v[i] = 1000 + r % 10000000;
				break;
			case 1: /* log-uniform over the whole range */
				v[i] = r >> (r % 64);
				break;
			default: /* small values, exact buckets */
				v[i] = r % 40;
			}
		}
		check_percentiles(v, round == 9 ? 7 : N); /* a tiny sample too */
	}
	free(v);
}

/* test_empty -- an empty histogram answers zeros */
static void
test_empty(void **state)
{
	static struct rpmaf__hist h;
	static struct rpmaf__hist_snap s;

	(void)state;
	rpmaf__hist_init(&h);
	rpmaf__hist_snap_clear(&s);
	rpmaf__hist_snap_add(&s, &h);
	assert_int_equal(s.count, 0);
	assert_int_equal(rpmaf__hist_snap_percentile(&s, 50), 0);
	assert_int_equal(rpmaf__hist_snap_mean(&s), 0);
	assert_int_equal(s.min, UINT64_MAX);
	/* one value: every percentile is it, out-of-range p clamped */
	rpmaf__hist_record(&h, 123456);
	rpmaf__hist_snap_clear(&s);
	rpmaf__hist_snap_add(&s, &h);
	assert_int_equal(rpmaf__hist_snap_percentile(&s, -5), 123456);
	assert_int_equal(rpmaf__hist_snap_percentile(&s, 50), 123456);
	assert_int_equal(rpmaf__hist_snap_percentile(&s, 500), 123456);
	assert_int_equal(rpmaf__hist_snap_mean(&s), 123456);
}

/* test_merge -- merging snapshots equals recording everything in one */
static void
test_merge(void **state)
{
	static struct rpmaf__hist a, b, all;
	static struct rpmaf__hist_snap sa, sb, sall, viaadd;
	uint64_t seed = 42;

	(void)state;
	rpmaf__hist_init(&a);
	rpmaf__hist_init(&b);
	rpmaf__hist_init(&all);
	for (int i = 0; i < 50000; i++) {
		uint64_t x = xorshift(&seed) % 5000000;

		rpmaf__hist_record(i % 3 ? &a : &b, x);
		rpmaf__hist_record(&all, x);
	}
	rpmaf__hist_snap_clear(&sa);
	rpmaf__hist_snap_add(&sa, &a);
	rpmaf__hist_snap_clear(&sb);
	rpmaf__hist_snap_add(&sb, &b);
	rpmaf__hist_snap_merge(&sa, &sb);
	rpmaf__hist_snap_clear(&sall);
	rpmaf__hist_snap_add(&sall, &all);
	assert_memory_equal(&sa, &sall, sizeof(sa));
	/* adding both live histograms to one snapshot is the same */
	rpmaf__hist_snap_clear(&viaadd);
	rpmaf__hist_snap_add(&viaadd, &b);
	rpmaf__hist_snap_add(&viaadd, &a);
	assert_memory_equal(&viaadd, &sall, sizeof(sall));
	assert_int_equal(rpmaf__hist_snap_percentile(&sa, 99.9),
			 rpmaf__hist_snap_percentile(&sall, 99.9));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bucket_bounds),
	    cmocka_unit_test(test_percentiles_random),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
