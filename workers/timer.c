// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * timer.c -- the timer heap of a worker: push, remove and pop in
 * O(log n), no allocation after rpmaf__timer_heap_init().
 */

#include <stdlib.h>

#include <assert.h>

#include "timer.h"

static_assert(sizeof(struct rpmaf__timer) <= sizeof(struct rpmaf_timer),
	      "struct rpmaf_timer too small for a timer");

/* heap_set -- put t at index i and remember where it is */
static inline void
heap_set(struct rpmaf__timer_heap *h, uint32_t i, struct rpmaf__timer *t)
{
	h->v[i] = t;
	t->pos = i + 1;
}

/* heap_up -- move the timer at i towards the root while it is earlier than its parent */
static void
heap_up(struct rpmaf__timer_heap *h, uint32_t i)
{
	struct rpmaf__timer *t = h->v[i];

	while (i > 0) {
		uint32_t parent = (i - 1) / 2;

		if (h->v[parent]->deadline_ns <= t->deadline_ns)
			break;
		heap_set(h, i, h->v[parent]);
		i = parent;
	}
	heap_set(h, i, t);
}

/* heap_down -- move the timer at i towards the leaves while a child is earlier */
static void
heap_down(struct rpmaf__timer_heap *h, uint32_t i)
{
	struct rpmaf__timer *t = h->v[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1]->deadline_ns < h->v[c]->deadline_ns)
			c++;
		if (t->deadline_ns <= h->v[c]->deadline_ns)
			break;
		heap_set(h, i, h->v[c]);
		i = c;
	}
	heap_set(h, i, t);
}

/* see timer.h */
int
rpmaf__timer_heap_init(struct rpmaf__timer_heap *h, uint32_t cap)
{
	if (cap == 0)
		return RPMAF_E_INVAL;
	h->v = calloc(cap, sizeof(*h->v));
	if (!h->v)
		return RPMAF_E_NOMEM;
	h->n = 0;
	h->cap = cap;
	return 0;
}

/* see timer.h */
void
rpmaf__timer_heap_fini(struct rpmaf__timer_heap *h)
{
	for (uint32_t i = 0; i < h->n; i++)
		h->v[i]->pos = 0;
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}

/* see timer.h */
int
rpmaf__timer_heap_push(struct rpmaf__timer_heap *h, struct rpmaf__timer *t)
{
	if (t->pos != 0)
		return RPMAF_E_INVAL;
	if (h->n == h->cap)
		return RPMAF_E_AGAIN;
	h->v[h->n] = t;
	heap_up(h, h->n++);
	return 0;
}

/* see timer.h */
int
rpmaf__timer_heap_remove(struct rpmaf__timer_heap *h, struct rpmaf__timer *t)
{
	uint32_t i = t->pos - 1;

	if (t->pos == 0 || i >= h->n || h->v[i] != t)
		return RPMAF_E_INVAL;
	t->pos = 0;
	if (i == --h->n)
		return 0;
	heap_set(h, i, h->v[h->n]);
	if (i > 0 && h->v[i]->deadline_ns < h->v[(i - 1) / 2]->deadline_ns)
		heap_up(h, i);
	else
		heap_down(h, i);
	return 0;
}

/* see timer.h */
struct rpmaf__timer *
rpmaf__timer_heap_top(const struct rpmaf__timer_heap *h)
{
	return h->n ? h->v[0] : NULL;
}

/* see timer.h */
struct rpmaf__timer *
rpmaf__timer_heap_pop_due(struct rpmaf__timer_heap *h, uint64_t now_ns)
{
	struct rpmaf__timer *t = rpmaf__timer_heap_top(h);

	if (!t || t->deadline_ns > now_ns)
		return NULL;
	(void)rpmaf__timer_heap_remove(h, t);
	return t;
}
