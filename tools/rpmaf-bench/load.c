// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * load.c -- the writes, the counters and the measurement window shared by
 * both load models
 */

#include <librpma.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"

/* load_write_batch -- both models post exactly the same writes */
int
load_write_batch(const struct load_params *params, struct load_dst *d, void *ctx, unsigned *posted)
{
	unsigned b = params->batch, window = params->window;

	for (unsigned k = 0; k < b; k++) {
		size_t off = ((size_t)d->idx * window + d->slot) * LOAD_WRITE_SIZE % d->dst_size;
		int flags = k + 1 == b ? RPMA_F_COMPLETION_ALWAYS : RPMA_F_COMPLETION_ON_ERROR;
		int ret;

		d->slot = (d->slot + 1) % window;
		ret = rpma_write(d->conn, d->dst, off, d->src_mr, d->src_off, LOAD_WRITE_SIZE,
				 flags, ctx);
		if (ret) {
			*posted = k;
			return ret;
		}
	}
	*posted = b;
	return 0;
}

/*
 * load_counters_new -- both models count the same way: each counter on a
 * cache line of its own, so that the threads' counting never shares a line
 */
struct load_counter *
load_counters_new(unsigned n)
{
	struct load_counter *ctr = aligned_alloc(_Alignof(struct load_counter), sizeof(*ctr) * n);

	if (ctr)
		memset(ctr, 0, sizeof(*ctr) * n);
	return ctr;
}

/* load_count -- one writer per counter: a relaxed store is enough for the sampler */
void
load_count(struct load_counter *c, unsigned n)
{
	uint_fast64_t v = atomic_load_explicit(&c->ops, memory_order_relaxed);

	atomic_store_explicit(&c->ops, v + n, memory_order_relaxed);
}

/* load_sum -- the writes completed on all counters so far */
static uint64_t
load_sum(struct load_counter *ctr, unsigned n)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < n; i++)
		sum += atomic_load_explicit(&ctr[i].ops, memory_order_relaxed);
	return sum;
}

/* load_measure -- one window for every model: the rate is comparable only if timed alike */
int
load_measure(const struct load_params *params, struct load_counter *ctr, unsigned n,
	     struct load_result *r)
{
	util_sleep(params->warmup);
	if (util_failed(&r->fail))
		return -1;

	double t0 = util_now();
	uint64_t c0 = load_sum(ctr, n);

	util_sleep(params->seconds);

	uint64_t c1 = load_sum(ctr, n);
	double t1 = util_now();

	if (util_failed(&r->fail))
		return -1;
	r->ops_per_sec = (double)(c1 - c0) / (t1 - t0);
	return 0;
}
