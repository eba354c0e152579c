/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * hist.c -- the log-linear latency histogram: bounds, snapshots, merges and
 * percentiles (recording is inline in hist.h).
 */

#include <string.h>

#include "hist.h"

/* see hist.h */
void
rpmaf__hist_init(struct rpmaf__hist *h)
{
	for (size_t i = 0; i < RPMAF__HIST_BUCKETS; i++)
		atomic_init(&h->bucket[i], 0);
	atomic_init(&h->sum, 0);
	atomic_init(&h->min, UINT64_MAX);
	atomic_init(&h->max, 0);
}

/* see hist.h */
uint64_t
rpmaf__hist_bucket_low(size_t i)
{
	size_t shift;

	if (i < RPMAF__HIST_SUB)
		return i;
	shift = i / RPMAF__HIST_SUB - 1;
	return (uint64_t)(RPMAF__HIST_SUB + i % RPMAF__HIST_SUB) << shift;
}

/* see hist.h */
uint64_t
rpmaf__hist_bucket_high(size_t i)
{
	if (i < RPMAF__HIST_SUB)
		return i;
	/* low + width - 1, written so that the last bucket ends at UINT64_MAX */
	return rpmaf__hist_bucket_low(i) + ((((uint64_t)1) << (i / RPMAF__HIST_SUB - 1)) - 1);
}

/* see hist.h */
void
rpmaf__hist_snap_clear(struct rpmaf__hist_snap *s)
{
	memset(s, 0, sizeof(*s));
	s->min = UINT64_MAX;
}

/* see hist.h */
void
rpmaf__hist_snap_add(struct rpmaf__hist_snap *s, const struct rpmaf__hist *h)
{
	uint64_t v;

	for (size_t i = 0; i < RPMAF__HIST_BUCKETS; i++) {
		v = atomic_load_explicit(&h->bucket[i], memory_order_relaxed);
		s->bucket[i] += v;
		s->count += v;
	}
	s->sum += atomic_load_explicit(&h->sum, memory_order_relaxed);
	v = atomic_load_explicit(&h->min, memory_order_relaxed);
	if (v < s->min)
		s->min = v;
	v = atomic_load_explicit(&h->max, memory_order_relaxed);
	if (v > s->max)
		s->max = v;
}

/* see hist.h */
void
rpmaf__hist_snap_merge(struct rpmaf__hist_snap *dst, const struct rpmaf__hist_snap *src)
{
	for (size_t i = 0; i < RPMAF__HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* see hist.h */
uint64_t
rpmaf__hist_snap_percentile(const struct rpmaf__hist_snap *s, double p)
{
	uint64_t rank, seen = 0, v;
	double want;

	if (s->count == 0)
		return 0;
	if (!(p > 0.0)) /* NaN too */
		p = 0.0;
	if (p > 100.0)
		p = 100.0;
	/* the 1-based rank of the sample wanted: ceil(p% of count), at least 1 */
	want = p / 100.0 * (double)s->count;
	rank = (uint64_t)want;
	if ((double)rank < want)
		rank++;
	if (rank == 0)
		rank = 1;
	if (rank > s->count)
		rank = s->count;
	for (size_t i = 0; i < RPMAF__HIST_BUCKETS; i++) {
		seen += s->bucket[i];
		if (seen >= rank) {
			v = rpmaf__hist_bucket_high(i);
			/* a torn snapshot may have a max below the bucket: keep the bucket */
			if (v > s->max && s->max >= rpmaf__hist_bucket_low(i))
				v = s->max;
			return v;
		}
	}
	return s->max; /* not reached: count is the sum of the buckets */
}

/* see hist.h */
uint64_t
rpmaf__hist_snap_mean(const struct rpmaf__hist_snap *s)
{
	return s->count ? s->sum / s->count : 0;
}
