/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * hist.h -- a log-linear latency histogram of fixed size: values below
 * 2^SUB_BITS each have a bucket of their own; above, every power of two
 * [2^k, 2^(k+1)) is split into 2^SUB_BITS equal buckets. Any uint64_t value
 * is recorded (nanoseconds, typically) in O(1), with no allocation and no
 * lock.
 *
 * PRECISION
 * A percentile is reported as the highest value of the bucket that holds
 * the sample of that rank, capped at the largest value recorded: it is
 * never below the true sample and exceeds it by less than 1/2^SUB_BITS of
 * it (3.125 % with SUB_BITS 5); exact below 2^SUB_BITS.
 *
 * CONCURRENCY
 * One writer per histogram (its owner, a worker thread): it updates the
 * buckets with relaxed atomic loads and stores, no read-modify-write.
 * Readers on any thread take a snapshot: every 64-bit value they read is
 * whole (no torn value), but a snapshot taken while the writer records is
 * not a single instant: a record may be seen in its bucket and not yet in
 * sum or max, or the other way round. A snapshot's count is the sum of the
 * buckets it read, so its percentiles are consistent with it.
 */

#ifndef RPMAF_STATS_HIST_H
#define RPMAF_STATS_HIST_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define RPMAF__HIST_SUB_BITS 5
#define RPMAF__HIST_SUB	     (1u << RPMAF__HIST_SUB_BITS)
/* the exact buckets, then SUB buckets for each k from SUB_BITS to 63 */
#define RPMAF__HIST_BUCKETS ((64 - RPMAF__HIST_SUB_BITS + 1) * RPMAF__HIST_SUB)

/* a live histogram: written by its owner only */
struct rpmaf__hist {
	_Atomic uint64_t bucket[RPMAF__HIST_BUCKETS];
	_Atomic uint64_t sum; /* wraps after 2^64 ns of latency: 584 years */
	_Atomic uint64_t min; /* UINT64_MAX while empty */
	_Atomic uint64_t max;
};

/* a snapshot: plain memory, owned by the reader */
struct rpmaf__hist_snap {
	uint64_t bucket[RPMAF__HIST_BUCKETS];
	uint64_t count; /* the sum of bucket[] */
	uint64_t sum;
	uint64_t min; /* UINT64_MAX while empty */
	uint64_t max;
};

/*
 * rpmaf__hist_init -- make h empty.
 * CONCURRENCY: not thread-safe against any use of h.
 */
void rpmaf__hist_init(struct rpmaf__hist *h);

/*
 * rpmaf__hist_bucket -- the index of the bucket of value v.
 * CONCURRENCY: thread-safe (pure).
 */
static inline size_t
rpmaf__hist_bucket(uint64_t v)
{
	unsigned k, shift;

	if (v < RPMAF__HIST_SUB)
		return (size_t)v;
	k = 63u - (unsigned)__builtin_clzll(v); /* v in [2^k, 2^(k+1)), k >= SUB_BITS */
	shift = k - RPMAF__HIST_SUB_BITS;
	return (size_t)(shift + 1) * RPMAF__HIST_SUB + (size_t)((v >> shift) - RPMAF__HIST_SUB);
}

/*
 * rpmaf__hist_bucket_low, rpmaf__hist_bucket_high -- the lowest and the
 * highest value of bucket i (< RPMAF__HIST_BUCKETS).
 * CONCURRENCY: thread-safe (pure).
 */
uint64_t rpmaf__hist_bucket_low(size_t i);
uint64_t rpmaf__hist_bucket_high(size_t i);

/*
 * rpmaf__hist_record -- record value v. No allocation, no lock, no atomic
 * read-modify-write.
 * CONCURRENCY: only h's single writer may call it; readers may snapshot
 * concurrently.
 */
static inline void
rpmaf__hist_record(struct rpmaf__hist *h, uint64_t v)
{
	_Atomic uint64_t *b = &h->bucket[rpmaf__hist_bucket(v)];

	atomic_store_explicit(b, atomic_load_explicit(b, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	atomic_store_explicit(&h->sum, atomic_load_explicit(&h->sum, memory_order_relaxed) + v,
			      memory_order_relaxed);
	if (v < atomic_load_explicit(&h->min, memory_order_relaxed))
		atomic_store_explicit(&h->min, v, memory_order_relaxed);
	if (v > atomic_load_explicit(&h->max, memory_order_relaxed))
		atomic_store_explicit(&h->max, v, memory_order_relaxed);
}

/*
 * rpmaf__hist_snap_clear -- make s an empty snapshot (to merge into).
 * CONCURRENCY: s belongs to the caller.
 */
void rpmaf__hist_snap_clear(struct rpmaf__hist_snap *s);

/*
 * rpmaf__hist_snap_add -- add the current contents of live histogram h to
 * snapshot s (a snapshot of one histogram: clear, then add; of a worker's
 * connections: add each).
 * CONCURRENCY: thread-safe against h's writer (see CONCURRENCY above); s
 * belongs to the caller.
 */
void rpmaf__hist_snap_add(struct rpmaf__hist_snap *s, const struct rpmaf__hist *h);

/*
 * rpmaf__hist_snap_merge -- add snapshot src to snapshot dst.
 * CONCURRENCY: both belong to the caller.
 */
void rpmaf__hist_snap_merge(struct rpmaf__hist_snap *dst, const struct rpmaf__hist_snap *src);

/*
 * rpmaf__hist_snap_percentile -- the value at percentile p (0 to 100) of s:
 * the smallest recorded value such that at least p % of the samples are at
 * most it, within the precision stated above.
 *
 * RETURN VALUE
 * The value; 0 when s is empty. p below 0 counts as 0, above 100 as 100.
 *
 * CONCURRENCY: s belongs to the caller.
 */
uint64_t rpmaf__hist_snap_percentile(const struct rpmaf__hist_snap *s, double p);

/*
 * rpmaf__hist_snap_mean -- the mean of s, rounded down; 0 when empty.
 * CONCURRENCY: s belongs to the caller.
 */
uint64_t rpmaf__hist_snap_mean(const struct rpmaf__hist_snap *s);

#endif /* RPMAF_STATS_HIST_H */
