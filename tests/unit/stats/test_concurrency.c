/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_concurrency.c -- one writer records into a histogram and a counter
 * block while a reader takes snapshots (built with ThreadSanitizer too):
 * no race, every value the reader sees whole and never going backwards,
 * the last snapshot exact.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "counters.h"
#include "hist.h"

#define RECORDS 200000

static struct rpmaf__hist h;
static struct rpmaf__ctrs c;
static atomic_bool done;

/* writer -- the single writer of h and c */
static void *
writer(void *arg)
{
	(void)arg;
	for (uint64_t i = 1; i <= RECORDS; i++) {
		/* large values too: a torn 64-bit sum would show as a jump */
		rpmaf__hist_record(&h, i % 2 ? i : (uint64_t)1 << 40);
		rpmaf__ctrs_add(&c, RPMAF__CTR_WRITE_OPS, 1);
		rpmaf__ctrs_add(&c, RPMAF__CTR_WRITE_BYTES, 1ULL << 33);
	}
	atomic_store(&done, true);
	return NULL;
}

/* test_writer_reader -- snapshots under a running writer */
static void
test_writer_reader(void **state)
{
	static struct rpmaf__hist_snap s;
	struct rpmaf__ctrs_snap cs;
	uint64_t last_count = 0, last_ops = 0, last_bytes = 0, snaps = 0;
	pthread_t t;

	(void)state;
	rpmaf__hist_init(&h);
	rpmaf__ctrs_init(&c);
	assert_int_equal(pthread_create(&t, NULL, writer, NULL), 0);
	while (!atomic_load(&done)) {
		rpmaf__hist_snap_clear(&s);
		rpmaf__hist_snap_add(&s, &h);
		rpmaf__ctrs_snap_clear(&cs);
		rpmaf__ctrs_snap_add(&cs, &c);
		assert_true(s.count >= last_count);
		assert_true(cs.v[RPMAF__CTR_WRITE_OPS] >= last_ops);
		assert_true(cs.v[RPMAF__CTR_WRITE_BYTES] >= last_bytes);
		/* bytes are a whole multiple of 2^33: no torn value */
		assert_int_equal(cs.v[RPMAF__CTR_WRITE_BYTES] % (1ULL << 33), 0);
		assert_true(s.count <= RECORDS);
		if (s.count)
			assert_true(rpmaf__hist_snap_percentile(&s, 50) <= (uint64_t)1 << 41);
		last_count = s.count;
		last_ops = cs.v[RPMAF__CTR_WRITE_OPS];
		last_bytes = cs.v[RPMAF__CTR_WRITE_BYTES];
		snaps++;
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	rpmaf__hist_snap_clear(&s);
	rpmaf__hist_snap_add(&s, &h);
	rpmaf__ctrs_snap_clear(&cs);
	rpmaf__ctrs_snap_add(&cs, &c);
	assert_int_equal(s.count, RECORDS);
	assert_int_equal(s.max, (uint64_t)1 << 40);
	assert_int_equal(s.min, 1);
	assert_int_equal(s.sum,
			 (uint64_t)(RECORDS / 2) * (RECORDS / 2) + ((uint64_t)(RECORDS / 2) << 40));
	assert_int_equal(cs.v[RPMAF__CTR_WRITE_OPS], RECORDS);
	assert_int_equal(cs.v[RPMAF__CTR_WRITE_BYTES], (uint64_t)RECORDS << 33);
	print_message("%llu snapshots taken while the writer ran\n", (unsigned long long)snaps);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_writer_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
