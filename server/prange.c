// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * prange.c -- byte ranges made into runs of whole pages (see prange.h)
 */

#include "prange.h"

/* sift -- restore the max-heap of v[0, n) below i (ordered by offset) */
static void
sift(struct rpmaf__prange *v, size_t i, size_t n)
{
	for (;;) {
		size_t big = i, l = 2 * i + 1, r = l + 1;

		if (l < n && v[l].off > v[big].off)
			big = l;
		if (r < n && v[r].off > v[big].off)
			big = r;
		if (big == i)
			return;
		struct rpmaf__prange t = v[i];

		v[i] = v[big];
		v[big] = t;
		i = big;
	}
}

/* sort -- v[0, n) by increasing offset, in place (a heap sort: no allocation, no recursion) */
static void
sort(struct rpmaf__prange *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift(v, i, n);
	for (size_t k = n; k > 1; k--) {
		struct rpmaf__prange t = v[0];

		v[0] = v[k - 1];
		v[k - 1] = t;
		sift(v, 0, k - 1);
	}
}

/* round_out -- the non-empty ranges of v[0, n) rounded out to pages, packed; how many */
static size_t
round_out(struct rpmaf__prange *v, size_t n, uint64_t page)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (v[i].end <= v[i].off)
			continue;
		v[k].off = v[i].off & ~(page - 1);
		v[k].end = (v[i].end + page - 1) & ~(page - 1);
		k++;
	}
	return k;
}

/* see prange.h */
size_t
rpmaf__prange_merge(struct rpmaf__prange *v, size_t n, uint64_t page)
{
	size_t k = round_out(v, n, page), runs = 0;

	sort(v, k);
	for (size_t i = 0; i < k; i++) {
		if (runs && v[i].off <= v[runs - 1].end) {
			if (v[i].end > v[runs - 1].end)
				v[runs - 1].end = v[i].end;
			continue;
		}
		v[runs++] = v[i];
	}
	return runs;
}
