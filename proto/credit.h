/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * credit.h -- credit-based flow control of a connection's messages, so that
 * a receiver never runs out of posted receive buffers (no RNR):
 * - each side announces its window (receive buffers for the connection) in
 *   its hello; the peer may have at most that many messages outstanding;
 * - sending any message spends one credit;
 * - a receiver that has posted a buffer again owes the peer a credit; every
 *   message it sends returns all it owes in the header's credits field;
 * - the last credit is spent only on a message that returns credits, and a
 *   CREDIT message (returning credits, nothing else) is due once
 *   ceil(window / 2) credits are owed, which is at least 2 since a window
 *   is at least RPMAF__PROTO_CREDITS_MIN (3): together these keep the two
 *   sides from waiting on each other forever (doc/PROTOCOL.md has the
 *   argument) and CREDIT messages from answering each other without end.
 *
 * ASSUMPTIONS
 * A struct rpmaf__proto_credit belongs to the connection's owner thread;
 * nothing here is thread-safe against concurrent use of the same one.
 */

#ifndef RPMAF_PROTO_CREDIT_H
#define RPMAF_PROTO_CREDIT_H

#include <stdbool.h>
#include <stdint.h>

#include "msg.h"

struct rpmaf__proto_credit {
	uint32_t window;      /* own receive buffers for the connection */
	uint32_t peer_window; /* the peer's, from its hello; 0 until known */
	uint32_t avail;	      /* messages this side may still send */
	uint32_t owed;	      /* own buffers posted again, not yet returned to the peer */
	uint32_t held;	      /* of owed: kept back by the owner (requests it has not served) */
};

/*
 * rpmaf__proto_credit_init -- the flow control of a new connection whose
 * side posted window receive buffers before the connection was
 * established. Until the peer's window is known one message may be sent:
 * the client's HELLO.
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_CREDITS for a window outside the protocol's bounds.
 */
int rpmaf__proto_credit_init(struct rpmaf__proto_credit *c, uint32_t window);

/*
 * rpmaf__proto_credit_start -- the peer's window is known (HELLO.credits on
 * the server, HELLO_REPLY.credits on the client).
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_CREDITS when it is out of bounds, already known, or
 * smaller than the credits already in hand.
 */
int rpmaf__proto_credit_start(struct rpmaf__proto_credit *c, uint32_t peer_window);

/*
 * rpmaf__proto_credit_received -- a message from the peer returned
 * hdr_credits credits (its header's credits field).
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_CREDITS when the peer returns more than it could owe
 * (a protocol violation: close the connection); nothing is changed then.
 */
int rpmaf__proto_credit_received(struct rpmaf__proto_credit *c, uint32_t hdr_credits);

/*
 * rpmaf__proto_credit_reposted -- n receive buffers of this side were
 * posted again: they are owed to the peer.
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_CREDITS when that makes more than the window owed.
 */
int rpmaf__proto_credit_reposted(struct rpmaf__proto_credit *c, uint32_t n);

/*
 * rpmaf__proto_credit_hold -- keep one owed credit back: a message the
 * owner copied aside to serve later returns its credit only once served,
 * so that the peer never has more such messages waiting than the window.
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_CREDITS when every owed credit is held already.
 */
int rpmaf__proto_credit_hold(struct rpmaf__proto_credit *c);

/*
 * rpmaf__proto_credit_unhold -- a held credit may go back to the peer (the
 * message it kept was served); nothing when none is held.
 */
void rpmaf__proto_credit_unhold(struct rpmaf__proto_credit *c);

/*
 * rpmaf__proto_credit_returning -- the credits rpmaf__proto_credit_take()
 * would return now: those owed and not held.
 */
uint32_t rpmaf__proto_credit_returning(const struct rpmaf__proto_credit *c);

/*
 * rpmaf__proto_credit_can_send -- a message may be sent now: two credits,
 * or the last one with credits not held to return (a reply to a message
 * consumed at once always has: the request's own buffer, posted again
 * before the reply is sent). A held credit never goes back but with the
 * answer of the message it kept, so the peer never has more messages
 * copied aside than the window.
 */
bool rpmaf__proto_credit_can_send(const struct rpmaf__proto_credit *c);

/*
 * rpmaf__proto_credit_can_answer -- the answer of a message copied aside
 * may be sent now, once rpmaf__proto_credit_unhold() lets its credit go:
 * as rpmaf__proto_credit_can_send(), or the last credit with a held one.
 * Such answers never wait for the peer, which is why the last credit never
 * has to return a held credit with another message (doc/PROTOCOL.md, rule 3).
 */
bool rpmaf__proto_credit_can_answer(const struct rpmaf__proto_credit *c);

/*
 * rpmaf__proto_credit_take -- spend a credit on the message whose header is
 * hdr and put the credits returned (rpmaf__proto_credit_returning()) in
 * hdr->credits.
 *
 * RETURN VALUE
 * 0; RPMAF__PROTO_E_CREDITS when rpmaf__proto_credit_can_send() is false
 * (queue the message until credits come back).
 */
int rpmaf__proto_credit_take(struct rpmaf__proto_credit *c, struct rpmaf__proto_hdr *hdr);

/*
 * rpmaf__proto_credit_need_update -- enough credits are owed that a CREDIT
 * message should carry them now, when no other message is about to.
 */
bool rpmaf__proto_credit_need_update(const struct rpmaf__proto_credit *c);

#endif /* RPMAF_PROTO_CREDIT_H */
