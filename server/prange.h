/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * prange.h -- byte ranges of a mapping made into runs of whole pages: what
 * one msync() each makes durable (sgroup.c: the persists of a turn).
 */

#ifndef RPMAF_SERVER_PRANGE_H
#define RPMAF_SERVER_PRANGE_H

#include <stddef.h>
#include <stdint.h>

/* the bytes [off, end) of a mapping */
struct rpmaf__prange {
	uint64_t off;
	uint64_t end;
};

/*
 * rpmaf__prange_merge -- round each of the n ranges of v out to page
 * boundaries (page: a power of two), sort them by offset and merge those
 * that overlap or touch, in place: the first runs of v are then disjoint
 * runs of whole pages, in increasing order, with a gap of at least one
 * page between two. Empty ranges (off == end) are dropped. No allocation
 * (an in-place heap sort), O(n log n).
 * RETURN VALUE: the number of runs (0 when every range was empty).
 * CONCURRENCY: v is the caller's.
 */
size_t rpmaf__prange_merge(struct rpmaf__prange *v, size_t n, uint64_t page);

#endif /* RPMAF_SERVER_PRANGE_H */
