/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * util.h -- what every part of rpmaf-bench shares: the clock, the RDMA peer
 * on the loopback address, and the record of the first failure of a run.
 */

#ifndef RPMAF_BENCH_UTIL_H
#define RPMAF_BENCH_UTIL_H

#include <stdatomic.h>
#include <stdbool.h>

struct rpma_peer;

/* the address every connection of the benchmark uses */
#define UTIL_ADDR "127.0.0.1"

/* the TCP ports the benchmark may use: its server listens on one of them */
#define UTIL_PORT_FIRST 18800u
#define UTIL_PORT_LAST	18899u

#define UTIL_WHY_MAX 256

/*
 * The first failure of a run, set by any thread (workers, pollers, the main
 * thread); the others only look whether it is set.
 */
struct util_fail {
	atomic_int set;
	char why[UTIL_WHY_MAX]; /* written once, by the thread that set the flag */
};

/* util_now -- seconds on the monotonic clock. Thread-safe. */
double util_now(void);

/* util_sleep -- sleep for seconds (a fraction allowed). Thread-safe. */
void util_sleep(double seconds);

/*
 * util_peer_new -- open the RDMA device serving UTIL_ADDR and a peer on it.
 * RETURN VALUE: 0 and *peer_ptr set; a librpma error code otherwise.
 * THREAD SAFETY: thread-safe.
 */
int util_peer_new(struct rpma_peer **peer_ptr);

/*
 * util_fail -- record why a run failed, unless a failure is recorded
 * already (the first one is the cause, the others its consequences).
 * THREAD SAFETY: any thread.
 */
void util_fail(struct util_fail *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* util_failed -- whether a failure is recorded. Any thread. */
bool util_failed(struct util_fail *f);

/* util_why -- the reason recorded (waits for its writer to finish it). Any thread. */
const char *util_why(struct util_fail *f);

/*
 * util_wait -- wait until *v reaches n, a failure is recorded or timeout
 * seconds pass; a time-out is recorded as a failure naming what.
 * RETURN VALUE: 0 when *v reached n; -1 otherwise.
 * THREAD SAFETY: any thread.
 */
int util_wait(atomic_uint *v, unsigned n, double timeout, struct util_fail *f, const char *what);

#endif
