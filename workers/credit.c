// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * credit.c -- SQ and CQ credits of a worker's connections.
 */

#include <stddef.h>

#include "credit.h"
#include "rpmaf.h"

/* see credit.h */
void
rpmaf__credits_init(struct rpmaf__credits *c, uint32_t cap)
{
	c->cap = cap;
	c->used = 0;
	c->used_max = 0;
}

/* credits_take -- take n slots if there is room */
static bool
credits_take(struct rpmaf__credits *c, uint32_t n)
{
	if (c->cap - c->used < n)
		return false;
	c->used += n;
	if (c->used > c->used_max)
		c->used_max = c->used;
	return true;
}

/* credits_give -- give n slots back (never below zero) */
static void
credits_give(struct rpmaf__credits *c, uint32_t n)
{
	c->used -= n < c->used ? n : c->used;
}

/* see credit.h */
void
rpmaf__acct_init(struct rpmaf__acct *a, uint32_t sq, uint32_t *ring)
{
	rpmaf__credits_init(&a->sq, sq);
	a->ring = ring;
	a->head = 0;
	a->nbatch = 0;
	a->broken = false;
}

/* see credit.h */
int
rpmaf__acct_admit(struct rpmaf__acct *a, struct rpmaf__credits *cq, uint32_t n)
{
	if (n == 0 || n > a->sq.cap || a->broken)
		return RPMAF_E_INVAL;
	if (!credits_take(&a->sq, n))
		return RPMAF_E_AGAIN;
	if (!credits_take(cq, n)) {
		credits_give(&a->sq, n);
		return RPMAF_E_AGAIN;
	}
	/* at most sq.cap batches of at least one request each: the ring never overflows */
	a->ring[(a->head + a->nbatch++) % a->sq.cap] = n;
	return 0;
}

/* see credit.h */
int
rpmaf__acct_unadmit(struct rpmaf__acct *a, struct rpmaf__credits *cq, uint32_t n)
{
	if (a->nbatch == 0 || n == 0)
		return RPMAF_E_INVAL;
	uint32_t *last = &a->ring[(a->head + a->nbatch - 1) % a->sq.cap];

	if (n > *last)
		return RPMAF_E_INVAL;
	*last -= n;
	if (*last == 0)
		a->nbatch--;
	else
		a->broken = true;
	credits_give(&a->sq, n);
	credits_give(cq, n);
	return 0;
}

/* see credit.h */
uint32_t
rpmaf__acct_retire(struct rpmaf__acct *a, struct rpmaf__credits *cq, bool success)
{
	uint32_t n;

	if (!success)
		a->broken = true;
	if (a->broken) {
		n = a->sq.used ? 1 : 0;
	} else {
		if (a->nbatch == 0)
			return 0;
		n = a->ring[a->head];
		a->head = (a->head + 1) % a->sq.cap;
		a->nbatch--;
	}
	credits_give(&a->sq, n);
	credits_give(cq, n);
	return n;
}

/* see credit.h */
uint32_t
rpmaf__acct_release_all(struct rpmaf__acct *a, struct rpmaf__credits *cq)
{
	uint32_t n = a->sq.used;

	credits_give(&a->sq, n);
	credits_give(cq, n);
	a->nbatch = 0;
	a->head = 0;
	return n;
}
