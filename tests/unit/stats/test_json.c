/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_json.c -- counters and the JSON line: exact output, truncation,
 * names refused, the stream version, counter snapshots and merges.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "json.h"

static struct rpmaf__hist h;
static struct rpmaf__hist_snap hs, empty;
static struct rpmaf__ctrs c;
static struct rpmaf__ctrs_snap cs;
static struct rpmaf__stats_lat lat[2];
static struct rpmaf__stats_view view;

static const char expected[] =
    "{\"time_ms\":1700000000123,\"scope\":\"worker\",\"id\":3,\"counters\":{"
    "\"write_ops\":4,\"write_bytes\":4096,\"read_ops\":0,\"read_bytes\":0,\"flush_ops\":0,"
    "\"write_flush_ops\":0,\"write_flush_bytes\":0,\"atomic_write_ops\":0,\"msg_ops\":0,"
    "\"msg_bytes_out\":0,\"msg_bytes_in\":0,\"errors\":1,\"timeouts\":0,\"reconnects\":0,"
    "\"polls\":3,\"empty_polls\":1,\"completions\":4,\"credit_stalls\":0,\"waited\":0,\"retried\":"
    "0,"
    "\"wait_timeouts\":0,\"conn_lost\":0,\"peer_silent\":0},"
    "\"completions_per_poll\":\"1.333\",\"latency_ns\":{"
    "\"write\":{\"count\":4,\"mean\":2510,\"min\":10,\"p50\":10,\"p90\":10000,\"p99\":10000,"
    "\"p99.9\":10000,\"max\":10000},"
    "\"read\":{\"count\":0,\"mean\":0,\"min\":0,\"p50\":0,\"p90\":0,\"p99\":0,\"p99.9\":0,"
    "\"max\":0}}}\n";

/* setup -- counters and histograms with known contents, and a view of them */
static int
setup(void **state)
{
	(void)state;
	rpmaf__ctrs_init(&c);
	rpmaf__ctrs_add(&c, RPMAF__CTR_WRITE_OPS, 4);
	rpmaf__ctrs_add(&c, RPMAF__CTR_WRITE_BYTES, 4096);
	rpmaf__ctrs_add(&c, RPMAF__CTR_ERRORS, 1);
	rpmaf__ctrs_add(&c, RPMAF__CTR_POLLS, 3);
	rpmaf__ctrs_add(&c, RPMAF__CTR_EMPTY_POLLS, 1);
	rpmaf__ctrs_add(&c, RPMAF__CTR_COMPLETIONS, 4);
	rpmaf__ctrs_snap_clear(&cs);
	rpmaf__ctrs_snap_add(&cs, &c);
	rpmaf__hist_init(&h);
	rpmaf__hist_record(&h, 10);
	rpmaf__hist_record(&h, 20);
	rpmaf__hist_record(&h, 10);
	rpmaf__hist_record(&h, 10000); /* bucket [9984, 10239]: reported as the max */
	rpmaf__hist_snap_clear(&hs);
	rpmaf__hist_snap_add(&hs, &h);
	rpmaf__hist_snap_clear(&empty);
	lat[0] = (struct rpmaf__stats_lat){"write", &hs};
	lat[1] = (struct rpmaf__stats_lat){"read", &empty};
	view = (struct rpmaf__stats_view){1700000000123ULL, "worker", 3, &cs, lat, 2};
	return 0;
}

/* test_exact -- the line is exactly the documented one */
static void
test_exact(void **state)
{
	char buf[2048];

	(void)state;
	assert_int_equal(rpmaf__stats_json_buf(&view, buf, sizeof(buf)), strlen(expected));
	assert_string_equal(buf, expected);
}

/* test_nospc -- a buffer one byte short is refused, with a terminated prefix */
static void
test_nospc(void **state)
{
	size_t n = strlen(expected);
	char *buf = malloc(n + 1);

	(void)state;
	assert_non_null(buf);
	assert_int_equal(rpmaf__stats_json_buf(&view, buf, n), RPMAF__STATS_E_NOSPC);
	assert_int_equal(strlen(buf), n - 1);
	assert_memory_equal(buf, expected, n - 1);
	assert_int_equal(rpmaf__stats_json_buf(&view, buf, n + 1), n);
	assert_int_equal(rpmaf__stats_json_buf(&view, buf, 1), RPMAF__STATS_E_NOSPC);
	free(buf);
}

/* test_inval -- NULLs and names that would need escaping */
static void
test_inval(void **state)
{
	char buf[2048];
	struct rpmaf__stats_view v = view;
	struct rpmaf__stats_lat bad[1] = {{"wr\"ite", &hs}};

	(void)state;
	assert_int_equal(rpmaf__stats_json_buf(NULL, buf, sizeof(buf)), RPMAF__STATS_E_INVAL);
	assert_int_equal(rpmaf__stats_json_buf(&view, NULL, 10), RPMAF__STATS_E_INVAL);
	assert_int_equal(rpmaf__stats_json_buf(&view, buf, 0), RPMAF__STATS_E_INVAL);
	assert_int_equal(rpmaf__stats_json_file(&view, NULL), RPMAF__STATS_E_INVAL);
	v.scope = "Worker";
	assert_int_equal(rpmaf__stats_json_buf(&v, buf, sizeof(buf)), RPMAF__STATS_E_INVAL);
	v.scope = "";
	assert_int_equal(rpmaf__stats_json_buf(&v, buf, sizeof(buf)), RPMAF__STATS_E_INVAL);
	v = view;
	v.ctrs = NULL;
	assert_int_equal(rpmaf__stats_json_buf(&v, buf, sizeof(buf)), RPMAF__STATS_E_INVAL);
	v = view;
	v.lat = bad;
	v.n_lat = 1;
	assert_int_equal(rpmaf__stats_json_buf(&v, buf, sizeof(buf)), RPMAF__STATS_E_INVAL);
	v.lat = NULL;
	assert_int_equal(rpmaf__stats_json_buf(&v, buf, sizeof(buf)), RPMAF__STATS_E_INVAL);
	/* no histogram at all is fine */
	v.n_lat = 0;
	assert_true(rpmaf__stats_json_buf(&v, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\"latency_ns\":{}}\n"));
}

/* test_file -- the stream version writes the same line; a failing stream is IO */
static void
test_file(void **state)
{
	char buf[2048];
	FILE *f = tmpfile();
	size_t n;

	(void)state;
	assert_non_null(f);
	assert_int_equal(rpmaf__stats_json_file(&view, f), 0);
	assert_int_equal(rpmaf__stats_json_file(&view, f), 0);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	assert_int_equal(n, 2 * strlen(expected));
	assert_memory_equal(buf, expected, strlen(expected));
	assert_string_equal(buf + strlen(expected), expected);
	fclose(f);
	f = fopen("/dev/full", "w");
	if (f != NULL) {
		assert_int_equal(rpmaf__stats_json_file(&view, f), RPMAF__STATS_E_IO);
		fclose(f);
	}
}

/* test_counters -- names, snapshots and merges of counter blocks */
static void
test_counters(void **state)
{
	struct rpmaf__ctrs c2;
	struct rpmaf__ctrs_snap s2, sum;

	(void)state;
	for (int k = 0; k < RPMAF__CTR_MAX; k++) {
		assert_non_null(rpmaf__ctr_name(k));
		for (int j = 0; j < k; j++)
			assert_string_not_equal(rpmaf__ctr_name(j), rpmaf__ctr_name(k));
	}
	assert_null(rpmaf__ctr_name(RPMAF__CTR_MAX));
	assert_null(rpmaf__ctr_name((enum rpmaf__ctr) - 1));
	rpmaf__ctrs_init(&c2);
	rpmaf__ctrs_add(&c2, RPMAF__CTR_WRITE_OPS, 6);
	rpmaf__ctrs_add(&c2, RPMAF__CTR_CREDIT_STALLS, 2);
	rpmaf__ctrs_snap_clear(&s2);
	rpmaf__ctrs_snap_add(&s2, &c2);
	sum = cs;
	rpmaf__ctrs_snap_merge(&sum, &s2);
	assert_int_equal(sum.v[RPMAF__CTR_WRITE_OPS], 10);
	assert_int_equal(sum.v[RPMAF__CTR_CREDIT_STALLS], 2);
	assert_int_equal(sum.v[RPMAF__CTR_POLLS], 3);
	rpmaf__ctrs_snap_add(&s2, &c);
	assert_memory_equal(&s2, &sum, sizeof(sum));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_exact, setup),	  cmocka_unit_test_setup(test_nospc, setup),
	    cmocka_unit_test_setup(test_inval, setup),	  cmocka_unit_test_setup(test_file, setup),
	    cmocka_unit_test_setup(test_counters, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
