// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * test_submit.c -- cross-thread submission (workers/submit.c): many
 * producer threads and one consumer that sleeps on the eventfd with the
 * worker's handshake; every item runs exactly once, in order per
 * producer, and the consumer never sleeps through a submission (each
 * wait is bounded: a lost wake-up fails the test). Each test runs twice:
 * the consumer looks at the queue itself (liburcu's cds_wfcq_empty()), then
 * with the counters of rpmaf__submitq_pending(), as the worker's loop does.
 */

#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "submit.h"

#define PRODUCERS 8
#define ITEMS	  20000
#define STUCK_MS  5000

struct item {
	struct rpmaf_work work;
	unsigned producer;
	unsigned seq;
};

static struct rpmaf__submitq Q;
static struct item Items[PRODUCERS][ITEMS];
static unsigned Next[PRODUCERS]; /* the consumer's: next seq expected per producer */
static unsigned Ran;		 /* the consumer's */
static int Disorder;
static unsigned Announced; /* the consumer's: sleeps announced */
static bool Use_pending;   /* the consumer looks with rpmaf__submitq_pending() */

/* queued -- the consumer's look at the queue: something waits, or is half-way in */
static bool
queued(void)
{
	return Use_pending ? rpmaf__submitq_pending(&Q) : !cds_wfcq_empty(&Q.head, &Q.tail);
}

/* item_run -- the consumer runs an item: check its order */
static void
item_run(struct rpmaf_worker *w, void *arg)
{
	struct item *it = arg;

	(void)w;
	if (it->seq != Next[it->producer])
		Disorder = 1;
	Next[it->producer]++;
	Ran++;
}

/* producer -- submit ITEMS items, yielding now and then */
static void *
producer(void *arg)
{
	unsigned p = (unsigned)(uintptr_t)arg;

	for (unsigned i = 0; i < ITEMS; i++) {
		Items[p][i].producer = p;
		Items[p][i].seq = i;
		if (rpmaf__submitq_push(&Q, &Items[p][i].work, item_run, &Items[p][i]))
			return (void *)1;
		if (i % 64 == 0)
			sched_yield();
	}
	return NULL;
}

/* consume -- run items; when none, sleep the worker's way; 0, or -1 on a lost wake-up */
static int
consume(unsigned total, unsigned *sleeps)
{
	struct pollfd pfd = {.fd = Q.efd, .events = POLLIN};

	while (Ran < total) {
		if (rpmaf__submitq_run(&Q, NULL, 16) || queued())
			continue;
		rpmaf__submitq_sleep_begin(&Q);
		Announced++;
		if (queued()) { /* the second look */
			rpmaf__submitq_sleep_end(&Q, false);
			continue;
		}
		(*sleeps)++;
		int r = poll(&pfd, 1, STUCK_MS);

		rpmaf__submitq_sleep_end(&Q, r == 1);
		if (r == 0 && queued())
			return -1; /* slept through a submission */
	}
	return 0;
}

/* many producers, one sleeping consumer */
static void
test_many_producers(void **state)
{
	pthread_t t[PRODUCERS];
	unsigned sleeps = 0;

	Use_pending = *state != NULL;
	Ran = Announced = 0;
	Disorder = 0;
	memset(Next, 0, sizeof(Next));
	assert_int_equal(rpmaf__submitq_init(&Q), 0);
	for (uintptr_t p = 0; p < PRODUCERS; p++)
		assert_int_equal(pthread_create(&t[p], NULL, producer, (void *)p), 0);
	int ret = consume(PRODUCERS * ITEMS, &sleeps);

	for (int p = 0; p < PRODUCERS; p++) {
		void *r;

		pthread_join(t[p], &r);
		assert_null(r);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(Ran, PRODUCERS * ITEMS);
	assert_false(Disorder);
	assert_true(cds_wfcq_empty(&Q.head, &Q.tail));
	assert_false(rpmaf__submitq_pending(&Q));
	print_message("%u items, %u sleeps, %lu eventfd writes\n", Ran, sleeps,
		      (unsigned long)atomic_load(&Q.wakeups));
	/* the eventfd is written at most once per announced sleep, never per item */
	assert_true(atomic_load(&Q.wakeups) <= Announced);
	assert_true(atomic_load(&Q.wakeups) < PRODUCERS * ITEMS);
	rpmaf__submitq_fini(&Q);
}

/* ping-pong: each item is submitted only when the consumer has gone to sleep or is about to */
static atomic_uint Pong;
static void
pong(struct rpmaf_worker *w, void *arg)
{
	(void)w;
	(void)arg;
	atomic_fetch_add(&Pong, 1);
}

static void *
pinger(void *arg)
{
	static struct rpmaf_work work;

	(void)arg;
	for (unsigned i = 0; i < ITEMS; i++) {
		/* wait until the previous one ran: the consumer is then going to sleep */
		while (atomic_load(&Pong) != i)
			sched_yield();
		if (rpmaf__submitq_push(&Q, &work, pong, NULL))
			return (void *)1;
	}
	return NULL;
}

static void
test_ping_pong(void **state)
{
	pthread_t t;
	unsigned sleeps = 0;
	void *r;

	Use_pending = *state != NULL;
	Ran = 0;
	atomic_store(&Pong, 0);
	assert_int_equal(rpmaf__submitq_init(&Q), 0);
	assert_int_equal(pthread_create(&t, NULL, pinger, NULL), 0);
	struct pollfd pfd = {.fd = Q.efd, .events = POLLIN};
	int lost = 0;

	while (atomic_load(&Pong) < ITEMS && !lost) {
		if (rpmaf__submitq_run(&Q, NULL, 16) || queued())
			continue;
		rpmaf__submitq_sleep_begin(&Q);
		if (queued()) {
			rpmaf__submitq_sleep_end(&Q, false);
			continue;
		}
		sleeps++;
		int n = poll(&pfd, 1, STUCK_MS);

		rpmaf__submitq_sleep_end(&Q, n == 1);
		lost = n == 0;
	}
	pthread_join(t, &r);
	assert_null(r);
	assert_false(lost);
	assert_int_equal(atomic_load(&Pong), ITEMS);
	print_message("ping-pong: %u items, %u sleeps\n", ITEMS, sleeps);
	rpmaf__submitq_fini(&Q);
}

int
main(void)
{
	static int pending = 1;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_prestate(test_many_producers, NULL),
	    cmocka_unit_test_prestate(test_ping_pong, NULL),
	    cmocka_unit_test_prestate(test_many_producers, &pending),
	    cmocka_unit_test_prestate(test_ping_pong, &pending),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
