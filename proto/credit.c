/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * credit.c -- the accounting of message credits of one connection.
 */

#include "credit.h"

/* credit_window_ok -- a window within the protocol's bounds */
static bool
credit_window_ok(uint32_t window)
{
	return window >= RPMAF__PROTO_CREDITS_MIN && window <= RPMAF__PROTO_CREDITS_MAX;
}

/* see credit.h */
int
rpmaf__proto_credit_init(struct rpmaf__proto_credit *c, uint32_t window)
{
	if (!credit_window_ok(window))
		return RPMAF__PROTO_E_CREDITS;
	*c = (struct rpmaf__proto_credit){.window = window, .avail = 1};
	return 0;
}

/* see credit.h */
int
rpmaf__proto_credit_start(struct rpmaf__proto_credit *c, uint32_t peer_window)
{
	/* before the start at most one credit is in hand: the first message's, maybe returned */
	if (!credit_window_ok(peer_window) || c->peer_window || c->avail > 1)
		return RPMAF__PROTO_E_CREDITS;
	c->peer_window = peer_window;
	c->avail += peer_window - 1;
	return 0;
}

/* see credit.h */
int
rpmaf__proto_credit_received(struct rpmaf__proto_credit *c, uint32_t hdr_credits)
{
	/* before the peer's window is known, only the first message can have come back */
	uint32_t limit = c->peer_window ? c->peer_window : 1;

	if (hdr_credits > limit || c->avail > limit - hdr_credits)
		return RPMAF__PROTO_E_CREDITS;
	c->avail += hdr_credits;
	return 0;
}

/* see credit.h */
int
rpmaf__proto_credit_reposted(struct rpmaf__proto_credit *c, uint32_t n)
{
	if (n > c->window || c->owed > c->window - n)
		return RPMAF__PROTO_E_CREDITS;
	c->owed += n;
	return 0;
}

/* see credit.h */
int
rpmaf__proto_credit_hold(struct rpmaf__proto_credit *c)
{
	if (c->held >= c->owed)
		return RPMAF__PROTO_E_CREDITS;
	c->held++;
	return 0;
}

/* see credit.h */
void
rpmaf__proto_credit_unhold(struct rpmaf__proto_credit *c)
{
	if (c->held)
		c->held--;
}

/* see credit.h */
uint32_t
rpmaf__proto_credit_returning(const struct rpmaf__proto_credit *c)
{
	return c->owed - c->held;
}

/* see credit.h */
bool
rpmaf__proto_credit_can_send(const struct rpmaf__proto_credit *c)
{
	if (c->peer_window == 0)
		return c->avail >= 1;
	return c->avail >= 2 || (c->avail == 1 && c->owed > c->held);
}

/* see credit.h */
bool
rpmaf__proto_credit_can_answer(const struct rpmaf__proto_credit *c)
{
	return rpmaf__proto_credit_can_send(c) || (c->peer_window && c->avail >= 1 && c->held);
}

/* see credit.h */
int
rpmaf__proto_credit_take(struct rpmaf__proto_credit *c, struct rpmaf__proto_hdr *hdr)
{
	uint32_t n = rpmaf__proto_credit_returning(c);

	if (!rpmaf__proto_credit_can_send(c))
		return RPMAF__PROTO_E_CREDITS;
	c->avail--;
	hdr->credits = n;
	c->owed -= n;
	return 0;
}

/* see credit.h */
bool
rpmaf__proto_credit_need_update(const struct rpmaf__proto_credit *c)
{
	/* ceil(window / 2), at least 2 since a window is at least 3 */
	return c->owed - c->held >= (c->window + 1) / 2 && c->avail >= 1;
}
