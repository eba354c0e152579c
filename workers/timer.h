/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * timer.h -- a worker's timers: a binary min-heap of caller-owned timer
 * nodes over an array preallocated once, ordered by deadline.
 *
 * ASSUMPTIONS: one thread (the worker's) uses a heap; the nodes are the
 * storage of struct rpmaf_timer (rpmaf.h) and outlive their time in it.
 */

#ifndef RPMAF_WORKERS_TIMER_H
#define RPMAF_WORKERS_TIMER_H

#include <stdint.h>

#include "rpmaf.h"

/* what a struct rpmaf_timer holds */
struct rpmaf__timer {
	uint64_t deadline_ns; /* CLOCK_MONOTONIC */
	rpmaf_timer_fn fn;
	void *arg;
	uint32_t pos; /* index in the heap + 1; 0: not armed */
	uint32_t unused;
};

struct rpmaf__timer_heap {
	struct rpmaf__timer **v; /* cap entries, v[0] the earliest */
	uint32_t n;
	uint32_t cap;
};

/*
 * rpmaf__timer_heap_init -- allocate room for cap timers.
 * ERRORS: RPMAF_E_INVAL (cap 0), RPMAF_E_NOMEM.
 */
int rpmaf__timer_heap_init(struct rpmaf__timer_heap *h, uint32_t cap);

/* rpmaf__timer_heap_fini -- free the array; the timers in it are forgotten */
void rpmaf__timer_heap_fini(struct rpmaf__timer_heap *h);

/*
 * rpmaf__timer_heap_push -- arm t (deadline_ns, fn, arg set by the caller).
 * ERRORS: RPMAF_E_INVAL (t already armed), RPMAF_E_AGAIN (the heap is full).
 */
int rpmaf__timer_heap_push(struct rpmaf__timer_heap *h, struct rpmaf__timer *t);

/* rpmaf__timer_heap_remove -- disarm t. ERRORS: RPMAF_E_INVAL (t not armed in h) */
int rpmaf__timer_heap_remove(struct rpmaf__timer_heap *h, struct rpmaf__timer *t);

/* rpmaf__timer_heap_top -- the earliest timer, NULL when none is armed */
struct rpmaf__timer *rpmaf__timer_heap_top(const struct rpmaf__timer_heap *h);

/* rpmaf__timer_heap_pop_due -- disarm and return the earliest timer due at now_ns, or NULL */
struct rpmaf__timer *rpmaf__timer_heap_pop_due(struct rpmaf__timer_heap *h, uint64_t now_ns);

#endif /* RPMAF_WORKERS_TIMER_H */
