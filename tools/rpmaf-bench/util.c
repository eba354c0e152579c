// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * util.c -- the clock, the peer and the first-failure record of rpmaf-bench
 */

#include <librpma.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "util.h"

/* util_now -- a monotonic clock: intervals must not jump with the wall clock */
double
util_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* util_sleep -- a fractional sleep, resumed after signals, for measurement windows */
void
util_sleep(double seconds)
{
	struct timespec ts;

	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* util_peer_new -- both sides open the device the same way: the one serving UTIL_ADDR */
int
util_peer_new(struct rpma_peer **peer_ptr)
{
	struct ibv_context *ctx;
	int ret;

	ret = rpma_utils_get_ibv_context(UTIL_ADDR, RPMA_UTIL_IBV_CONTEXT_REMOTE, &ctx);
	if (ret)
		return ret;
	return rpma_peer_new(ctx, peer_ptr);
}

/* util_fail -- keep the first reason only: later failures are usually its echoes */
void
util_fail(struct util_fail *f, const char *fmt, ...)
{
	va_list ap;
	int expected = 0;

	if (!atomic_compare_exchange_strong(&f->set, &expected, -1))
		return;
	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
	/* readers see the flag only once the reason is written */
	atomic_store(&f->set, 1);
}

/* util_failed -- a cheap look for the loops that must stop on a failure */
bool
util_failed(struct util_fail *f)
{
	return atomic_load_explicit(&f->set, memory_order_relaxed) != 0;
}

/* util_why -- the flag is set before the text: wait for the text to be complete */
const char *
util_why(struct util_fail *f)
{
	if (atomic_load(&f->set) == 0)
		return "no failure";
	while (atomic_load(&f->set) < 0)
		;
	return f->why;
}

/* util_wait -- every wait of the benchmark is bounded: a hang becomes an error */
int
util_wait(atomic_uint *v, unsigned n, double timeout, struct util_fail *f, const char *what)
{
	double deadline = util_now() + timeout;

	while (atomic_load(v) < n) {
		if (util_failed(f))
			return -1;
		if (util_now() > deadline) {
			util_fail(f, "%s: %u of %u after %.1f s", what, atomic_load(v), n, timeout);
			return -1;
		}
		util_sleep(0.0005);
	}
	return 0;
}
