/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * mt_misc.c -- the thread-safe calls that need no peer, from NTHREADS
 * threads at once on shared objects: the connection, shared receive queue
 * and peer configuration getters and setters (every value read is one some
 * thread wrote, the last values win), the logging thresholds and function
 * (every message reaches exactly one of the functions set), rpma_errormsg()
 * (each thread reads its own last error), rpma_err_2str() and
 * rpma_check_version(). Run under ThreadSanitizer.
 */

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <librpma.h>

#define NTHREADS 8
#define ITERS	 2000

static pthread_barrier_t Barrier;
static struct rpma_conn_cfg *Ccfg;
static struct rpma_srq_cfg *Scfg;
static struct rpma_peer_cfg *Pcfg;
static int Errors;

#define EXPECT(cond)                                                                               \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond);                 \
			__atomic_fetch_add(&Errors, 1, __ATOMIC_RELAXED);                          \
		}                                                                                  \
	} while (0)

/* a value thread t writes in iteration i: decodable, never a default */
#define VAL(t, i) ((uint32_t)(((t) + 1) << 16 | (i)))

static bool
valid(uint32_t v, uint32_t dflt)
{
	return v == dflt || ((v >> 16) >= 1 && (v >> 16) <= NTHREADS && (v & 0xffff) < ITERS);
}

static void
run_threads(void *(*fn)(void *))
{
	pthread_t th[NTHREADS];

	Errors = 0;
	assert_int_equal(pthread_barrier_init(&Barrier, NULL, NTHREADS), 0);
	for (long t = 0; t < NTHREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, fn, (void *)t), 0);
	for (int t = 0; t < NTHREADS; t++)
		assert_int_equal(pthread_join(th[t], NULL), 0);
	pthread_barrier_destroy(&Barrier);
	assert_int_equal(Errors, 0);
}

static void *
cfg_worker(void *arg)
{
	long t = (long)arg;

	pthread_barrier_wait(&Barrier);
	for (int i = 0; i < ITERS; i++) {
		uint32_t v = VAL(t, i), got;
		int timeout;
		bool b;

		switch ((i + t) % 6) {
		case 0:
			EXPECT(rpma_conn_cfg_set_cq_size(Ccfg, v) == 0);
			break;
		case 1:
			EXPECT(rpma_conn_cfg_set_sq_size(Ccfg, v) == 0);
			EXPECT(rpma_conn_cfg_set_rq_size(Ccfg, v) == 0);
			break;
		case 2:
			EXPECT(rpma_conn_cfg_set_rcq_size(Ccfg, v) == 0);
			EXPECT(rpma_conn_cfg_set_timeout(Ccfg, (int)v) == 0);
			break;
		case 3:
			EXPECT(rpma_conn_cfg_set_compl_channel(Ccfg, (i & 1) != 0) == 0);
			EXPECT(rpma_peer_cfg_set_direct_write_to_pmem(Pcfg, (i & 1) != 0) == 0);
			break;
		case 4:
			EXPECT(rpma_srq_cfg_set_rq_size(Scfg, v) == 0);
			EXPECT(rpma_srq_cfg_set_rcq_size(Scfg, v) == 0);
			break;
		default:
			break;
		}
		/* every read gives a value some thread wrote (or the default) */
		EXPECT(rpma_conn_cfg_get_cq_size(Ccfg, &got) == 0 && valid(got, 10));
		EXPECT(rpma_conn_cfg_get_sq_size(Ccfg, &got) == 0 && valid(got, 10));
		EXPECT(rpma_conn_cfg_get_rq_size(Ccfg, &got) == 0 && valid(got, 10));
		EXPECT(rpma_conn_cfg_get_rcq_size(Ccfg, &got) == 0 && valid(got, 0));
		EXPECT(rpma_conn_cfg_get_timeout(Ccfg, &timeout) == 0 &&
		       valid((uint32_t)timeout, RPMA_DEFAULT_TIMEOUT_MS));
		EXPECT(rpma_conn_cfg_get_compl_channel(Ccfg, &b) == 0);
		EXPECT(rpma_srq_cfg_get_rq_size(Scfg, &got) == 0 && valid(got, 20));
		EXPECT(rpma_srq_cfg_get_rcq_size(Scfg, &got) == 0 && valid(got, 20));

		uint8_t desc = 0xff;

		EXPECT(rpma_peer_cfg_get_direct_write_to_pmem(Pcfg, &b) == 0);
		EXPECT(rpma_peer_cfg_get_descriptor(Pcfg, &desc) == 0 && desc <= 1);
	}
	return NULL;
}

/*
 * configurations shared by all threads: reads never see a torn or foreign
 * value; after the threads, each field holds a last value of some thread
 */
static void
test_cfg_getters_setters(void **state)
{
	(void)state;
	uint32_t got;

	assert_int_equal(rpma_conn_cfg_new(&Ccfg), 0);
	assert_int_equal(rpma_srq_cfg_new(&Scfg), 0);
	assert_int_equal(rpma_peer_cfg_new(&Pcfg), 0);
	run_threads(cfg_worker);

	/* the last write of each thread to cq_size was in iteration >= ITERS - 6 */
	assert_int_equal(rpma_conn_cfg_get_cq_size(Ccfg, &got), 0);
	assert_true((got >> 16) >= 1 && (got >> 16) <= NTHREADS && (got & 0xffff) >= ITERS - 6);
	assert_int_equal(rpma_srq_cfg_get_rq_size(Scfg, &got), 0);
	assert_true((got >> 16) >= 1 && (got >> 16) <= NTHREADS && (got & 0xffff) >= ITERS - 6);
	assert_int_equal(rpma_conn_cfg_delete(&Ccfg), 0);
	assert_int_equal(rpma_srq_cfg_delete(&Scfg), 0);
	assert_int_equal(rpma_peer_cfg_delete(&Pcfg), 0);
}

static int Calls_a, Calls_b;

static void
log_a(enum rpma_log_level level, const char *file_name, const int line_no,
      const char *function_name, const char *message_format, ...)
{
	(void)file_name;
	(void)line_no;
	(void)function_name;
	(void)message_format;
	if (level == RPMA_LOG_LEVEL_ERROR)
		__atomic_fetch_add(&Calls_a, 1, __ATOMIC_RELAXED);
}

static void
log_b(enum rpma_log_level level, const char *file_name, const int line_no,
      const char *function_name, const char *message_format, ...)
{
	(void)file_name;
	(void)line_no;
	(void)function_name;
	(void)message_format;
	if (level == RPMA_LOG_LEVEL_ERROR)
		__atomic_fetch_add(&Calls_b, 1, __ATOMIC_RELAXED);
}

static void *
threshold_worker(void *arg)
{
	long t = (long)arg;

	pthread_barrier_wait(&Barrier);
	for (int i = 0; i < ITERS; i++) {
		enum rpma_log_level level = (enum rpma_log_level)((i + t) % 7 - 1);
		enum rpma_log_level got;

		EXPECT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, level) == 0);
		EXPECT(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_AUX, &got) == 0 &&
		       got >= RPMA_LOG_DISABLED && got <= RPMA_LOG_LEVEL_DEBUG);
		EXPECT(rpma_log_get_threshold(RPMA_LOG_THRESHOLD, &got) == 0 &&
		       got == RPMA_LOG_DISABLED);
		EXPECT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_MAX, level) == RPMA_E_INVAL);
	}
	/* everybody ends on the same level */
	EXPECT(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_LEVEL_NOTICE) == 0);
	return NULL;
}

/* logging thresholds set and read from many threads */
static void
test_log_threshold(void **state)
{
	(void)state;
	enum rpma_log_level got;

	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED), 0);
	/* the refused calls log: to a function of ours, not to syslog */
	assert_int_equal(rpma_log_set_function(log_a), 0);
	run_threads(threshold_worker);
	assert_int_equal(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	assert_int_equal(rpma_log_get_threshold(RPMA_LOG_THRESHOLD_AUX, &got), 0);
	assert_int_equal(got, RPMA_LOG_LEVEL_NOTICE);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD_AUX, RPMA_LOG_DISABLED), 0);
}

static void *
function_worker(void *arg)
{
	long t = (long)arg;
	struct rpma_conn_cfg *cfg;

	EXPECT(rpma_conn_cfg_new(&cfg) == 0);
	pthread_barrier_wait(&Barrier);
	for (int i = 0; i < ITERS; i++) {
		EXPECT(rpma_log_set_function((i + t) % 2 ? log_a : log_b) == 0);
		/* fails and logs exactly one error */
		EXPECT(rpma_conn_cfg_set_timeout(cfg, -1) == RPMA_E_INVAL);
	}
	EXPECT(rpma_conn_cfg_delete(&cfg) == 0);
	return NULL;
}

/* log functions switched from many threads: every message reaches one */
static void
test_log_function(void **state)
{
	(void)state;
	Calls_a = Calls_b = 0;
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_LEVEL_ERROR), 0);
	run_threads(function_worker);
	assert_int_equal(rpma_log_set_threshold(RPMA_LOG_THRESHOLD, RPMA_LOG_DISABLED), 0);
	assert_int_equal(rpma_log_set_function(RPMA_LOG_USE_DEFAULT_FUNCTION), 0);
	assert_int_equal(Calls_a + Calls_b, NTHREADS * ITERS);
	assert_true(Calls_a > 0);
	assert_true(Calls_b > 0);
}

static void *
errormsg_worker(void *arg)
{
	long t = (long)arg;
	struct rpma_conn_cfg *cfg;
	char want[128];

	EXPECT(rpma_conn_cfg_new(&cfg) == 0);
	pthread_barrier_wait(&Barrier);
	for (int i = 0; i < ITERS; i++) {
		int bad = -(int)(t * ITERS + i + 1);

		EXPECT(rpma_conn_cfg_set_timeout(cfg, bad) == RPMA_E_INVAL);
		snprintf(want, sizeof(want), "timeout_ms (%d) is negative", bad);
		/* this thread's own last error, not another thread's */
		EXPECT(strstr(rpma_errormsg(), want) != NULL);
		EXPECT(strcmp(rpma_err_2str(RPMA_E_INVAL), rpma_err_2str(RPMA_E_INVAL)) == 0);
		EXPECT(rpma_check_version(RPMA_MAJOR_VERSION, RPMA_MINOR_VERSION) == NULL);
		EXPECT(rpma_check_version(RPMA_MAJOR_VERSION + 1, 0) != NULL);
	}
	EXPECT(rpma_conn_cfg_delete(&cfg) == 0);
	return NULL;
}

/* rpma_errormsg() is per thread */
static void
test_errormsg(void **state)
{
	(void)state;
	run_threads(errormsg_worker);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cfg_getters_setters),
	    cmocka_unit_test(test_log_threshold),
	    cmocka_unit_test(test_log_function),
	    cmocka_unit_test(test_errormsg),
	};

	alarm(120);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
