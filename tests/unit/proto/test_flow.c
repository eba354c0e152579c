/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_flow.c -- credits and heartbeats. The credit rules are checked one
 * by one, then by simulating two peers exchanging requests, replies,
 * unsolicited messages and CREDIT messages in random order: no receive
 * queue is ever overrun, the accounting always adds up, and once traffic
 * stops both sides can send again (no deadlock) after finitely many CREDIT
 * messages.
 */

#include "proto_test.h"

#include <string.h>

#include "credit.h"
#include "heartbeat.h"

/* credit_rules -- the handshake's accounting, the last credit, the bounds */
static void
credit_rules(void **state)
{
	struct rpmaf__proto_credit cli, srv;
	struct rpmaf__proto_hdr h = {0};

	(void)state;
	assert_int_equal(rpmaf__proto_credit_init(&cli, 2), RPMAF__PROTO_E_CREDITS);
	assert_int_equal(rpmaf__proto_credit_init(&cli, 65537), RPMAF__PROTO_E_CREDITS);
	assert_int_equal(rpmaf__proto_credit_init(&cli, 16), 0);
	assert_int_equal(rpmaf__proto_credit_init(&srv, 64), 0);

	/* HELLO: the one message allowed before the peer's window is known */
	assert_true(rpmaf__proto_credit_can_send(&cli));
	assert_int_equal(rpmaf__proto_credit_take(&cli, &h), 0);
	assert_int_equal(h.credits, 0);
	assert_false(rpmaf__proto_credit_can_send(&cli));
	assert_int_equal(rpmaf__proto_credit_take(&cli, &h), RPMAF__PROTO_E_CREDITS);
	assert_int_equal(rpmaf__proto_credit_received(&srv, 0), 0);
	assert_int_equal(rpmaf__proto_credit_start(&srv, 16), 0);
	assert_int_equal(srv.avail, 16);
	assert_int_equal(rpmaf__proto_credit_reposted(&srv, 1), 0);
	assert_int_equal(rpmaf__proto_credit_take(&srv, &h), 0); /* HELLO_REPLY */
	assert_int_equal(h.credits, 1);
	assert_int_equal(srv.owed, 0);
	assert_int_equal(srv.avail, 15);
	assert_int_equal(rpmaf__proto_credit_received(&cli, 2), RPMAF__PROTO_E_CREDITS);
	assert_int_equal(rpmaf__proto_credit_received(&cli, 1), 0);
	assert_int_equal(rpmaf__proto_credit_start(&cli, 64), 0);
	assert_int_equal(cli.avail, 64);
	assert_int_equal(rpmaf__proto_credit_start(&cli, 64), RPMAF__PROTO_E_CREDITS);
	assert_int_equal(rpmaf__proto_credit_received(&cli, 1), RPMAF__PROTO_E_CREDITS);
	assert_int_equal(cli.avail, 64);

	/* the last credit only with credits to return */
	cli.avail = 1;
	assert_false(rpmaf__proto_credit_can_send(&cli));
	assert_int_equal(rpmaf__proto_credit_reposted(&cli, 1), 0);
	assert_true(rpmaf__proto_credit_can_send(&cli));
	assert_int_equal(rpmaf__proto_credit_reposted(&cli, 16), RPMAF__PROTO_E_CREDITS);
	assert_int_equal(rpmaf__proto_credit_reposted(&cli, 15), 0);
	assert_int_equal(rpmaf__proto_credit_take(&cli, &h), 0);
	assert_int_equal(h.credits, 16);
	assert_int_equal(cli.avail, 0);
	assert_int_equal(rpmaf__proto_credit_start(&srv, 2), RPMAF__PROTO_E_CREDITS);
}

/* credit_update_threshold -- ceil(window / 2) owed and a credit to send it with */
static void
credit_update_threshold(void **state)
{
	static const uint32_t windows[] = {3, 4, 5, 16, 17, 1024};
	static const uint32_t thresholds[] = {2, 2, 3, 8, 9, 512};
	struct rpmaf__proto_credit c;

	(void)state;
	for (size_t i = 0; i < sizeof(windows) / sizeof(windows[0]); i++) {
		assert_int_equal(rpmaf__proto_credit_init(&c, windows[i]), 0);
		assert_int_equal(rpmaf__proto_credit_start(&c, 8), 0);
		assert_int_equal(rpmaf__proto_credit_reposted(&c, thresholds[i] - 1), 0);
		assert_false(rpmaf__proto_credit_need_update(&c));
		assert_int_equal(rpmaf__proto_credit_reposted(&c, 1), 0);
		assert_true(rpmaf__proto_credit_need_update(&c));
		c.avail = 0;
		assert_false(rpmaf__proto_credit_need_update(&c));
	}
}

/*
 * credit_hold -- credits held for messages served later stay with the
 * receiver (not returned, no CREDIT for them) until let go, even on the
 * last credit, which then goes only to an answer that lets one go
 */
static void
credit_hold(void **state)
{
	struct rpmaf__proto_credit c;
	struct rpmaf__proto_hdr h = {0};

	(void)state;
	assert_int_equal(rpmaf__proto_credit_init(&c, 8), 0);
	assert_int_equal(rpmaf__proto_credit_start(&c, 4), 0);
	assert_int_equal(rpmaf__proto_credit_hold(&c), RPMAF__PROTO_E_CREDITS); /* none owed */
	assert_int_equal(rpmaf__proto_credit_reposted(&c, 6), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(rpmaf__proto_credit_hold(&c), 0);
	assert_false(rpmaf__proto_credit_need_update(&c)); /* 1 free of 4 due */
	assert_int_equal(rpmaf__proto_credit_returning(&c), 1);
	assert_int_equal(rpmaf__proto_credit_take(&c, &h), 0);
	assert_int_equal(h.credits, 1);
	assert_int_equal(c.owed, 5);
	assert_int_equal(c.held, 5);
	/* two credits: nothing returned */
	assert_int_equal(rpmaf__proto_credit_take(&c, &h), 0);
	assert_int_equal(h.credits, 0);
	assert_int_equal(c.avail, 2);
	assert_int_equal(rpmaf__proto_credit_take(&c, &h), 0);
	assert_int_equal(h.credits, 0);
	/* the last one: only for the answer of a message kept aside, its credit let go */
	assert_int_equal(c.avail, 1);
	assert_false(rpmaf__proto_credit_can_send(&c));
	assert_true(rpmaf__proto_credit_can_answer(&c));
	assert_int_equal(rpmaf__proto_credit_take(&c, &h), RPMAF__PROTO_E_CREDITS);
	assert_int_equal(c.held, 5);
	rpmaf__proto_credit_unhold(&c);
	assert_true(rpmaf__proto_credit_can_send(&c));
	assert_int_equal(rpmaf__proto_credit_take(&c, &h), 0);
	assert_int_equal(h.credits, 1);
	assert_int_equal(c.held, 4);
	assert_int_equal(c.owed, 4);
	assert_false(rpmaf__proto_credit_can_answer(&c)); /* no credit at all */
	/* let go: returned with the next message, and due in a CREDIT again */
	assert_int_equal(rpmaf__proto_credit_received(&c, 2), 0);
	for (int i = 0; i < 4; i++)
		rpmaf__proto_credit_unhold(&c);
	rpmaf__proto_credit_unhold(&c); /* none left: nothing */
	assert_int_equal(c.held, 0);
	assert_true(rpmaf__proto_credit_need_update(&c));
	assert_int_equal(rpmaf__proto_credit_take(&c, &h), 0);
	assert_int_equal(h.credits, 4);
	assert_int_equal(c.owed, 0);
}

/* ---------------------------------------------------------------- the simulation */

enum { M_REQ, M_REPLY, M_UNSOLICITED, M_CREDIT };

struct sim_msg {
	int kind;
	uint32_t credits;
};

#define QCAP 4096

struct side {
	struct rpmaf__proto_credit c;
	uint32_t posted;	/* receive buffers posted */
	uint32_t unreposted;	/* received, not posted again */
	uint32_t replies;	/* requests received, not answered */
	uint32_t aside;		/* of replies: copied aside, their credits held */
	uint32_t waiting;	/* own requests not answered yet */
	struct sim_msg q[QCAP]; /* in flight towards the peer */
	size_t head, tail;
	unsigned long sent_credit_msgs;
};

static struct side A, B;
static uint64_t Rng;

/* rnd -- a small deterministic generator (xorshift) */
static uint32_t
rnd(uint32_t n)
{
	Rng ^= Rng << 13;
	Rng ^= Rng >> 7;
	Rng ^= Rng << 17;
	return (uint32_t)(Rng % n);
}

/* sim_send -- x sends a message of kind to its peer, when the credits allow */
static int
sim_send(struct side *x, int kind)
{
	struct rpmaf__proto_hdr h = {0};

	if (!rpmaf__proto_credit_can_send(&x->c))
		return 0;
	assert_int_equal(rpmaf__proto_credit_take(&x->c, &h), 0);
	assert_true(x->tail - x->head < QCAP);
	x->q[x->tail++ % QCAP] = (struct sim_msg){kind, h.credits};
	if (kind == M_REQ)
		x->waiting++;
	if (kind == M_CREDIT)
		x->sent_credit_msgs++;
	return 1;
}

/* sim_deliver -- the oldest message from x arrives at y: it must find a posted buffer */
static int
sim_deliver(struct side *x, struct side *y)
{
	struct sim_msg m;

	if (x->head == x->tail)
		return 0;
	m = x->q[x->head++ % QCAP];
	assert_true(y->posted > 0); /* otherwise: RNR */
	y->posted--;
	y->unreposted++;
	assert_int_equal(rpmaf__proto_credit_received(&y->c, m.credits), 0);
	if (m.kind == M_REQ)
		y->replies++;
	if (m.kind == M_REPLY)
		y->waiting--;
	return 1;
}

/* sim_repost -- x posts its consumed buffers again */
static int
sim_repost(struct side *x)
{
	uint32_t n = x->unreposted;

	if (n == 0)
		return 0;
	x->posted += n;
	x->unreposted = 0;
	assert_int_equal(rpmaf__proto_credit_reposted(&x->c, n), 0);
	return 1;
}

/* sim_hold -- x copies a request aside: its credit is held until its reply */
static int
sim_hold(struct side *x)
{
	if (x->aside == x->replies || rpmaf__proto_credit_hold(&x->c))
		return 0;
	x->aside++;
	return 1;
}

/*
 * sim_answer -- x answers a request (after its buffer was posted again; a
 * request aside lets its credit go with the reply), or sends a CREDIT
 */
static int
sim_answer(struct side *x)
{
	bool aside = x->aside > 0;

	if (aside)
		rpmaf__proto_credit_unhold(&x->c);
	if (x->replies && sim_send(x, M_REPLY)) {
		x->replies--;
		x->aside -= aside;
		return 1;
	}
	if (aside) /* back: a held credit never goes with another message */
		assert_int_equal(rpmaf__proto_credit_hold(&x->c), 0);
	if (rpmaf__proto_credit_need_update(&x->c))
		return sim_send(x, M_CREDIT);
	return 0;
}

/*
 * sim_check -- y's window is made of what x may still send, x's messages in
 * flight, what y owes (or returns in its own messages in flight) and what y
 * has consumed
 */
static void
sim_check(const struct side *x, const struct side *y)
{
	size_t inflight = x->tail - x->head, returning = 0;

	for (size_t i = y->head; i < y->tail; i++)
		returning += y->q[i % QCAP].credits;
	assert_int_equal(x->c.avail + inflight + y->c.owed + returning + y->unreposted,
			 y->c.window);
	assert_int_equal(y->posted + y->unreposted, y->c.window);
	/* every request copied aside keeps its credit: never more aside than the window */
	assert_int_equal(y->aside, y->c.held);
}

/* sim_step -- one random action of the running traffic */
static void
sim_step(void)
{
	struct side *x = rnd(2) ? &A : &B, *y = x == &A ? &B : &A;

	switch (rnd(7)) {
	case 0:
		sim_send(x, M_REQ);
		break;
	case 1:
		sim_send(x, M_UNSOLICITED);
		break;
	case 2:
	case 3:
		sim_deliver(x, y);
		break;
	case 4:
		sim_repost(x);
		break;
	case 5:
		sim_hold(x);
		break;
	default:
		sim_answer(x);
		break;
	}
	sim_check(&A, &B);
	sim_check(&B, &A);
}

/* sim_drain -- no new traffic: run until nothing moves; returns the rounds it took */
static unsigned
sim_drain(void)
{
	unsigned rounds = 0;
	int moved;

	do {
		moved = sim_repost(&A) | sim_repost(&B);
		moved |= sim_answer(&A) | sim_answer(&B);
		moved |= sim_deliver(&A, &B) | sim_deliver(&B, &A);
		sim_check(&A, &B);
		sim_check(&B, &A);
		assert_true(++rounds < 100000);
	} while (moved);
	return rounds;
}

/* sim_run -- windows wa and wb, steps random actions, then drain */
static void
sim_run(uint32_t wa, uint32_t wb, unsigned steps, uint64_t seed)
{
	memset(&A, 0, sizeof(A));
	memset(&B, 0, sizeof(B));
	Rng = seed;
	assert_int_equal(rpmaf__proto_credit_init(&A.c, wa), 0);
	assert_int_equal(rpmaf__proto_credit_init(&B.c, wb), 0);
	A.posted = wa;
	B.posted = wb;
	/* the hello exchange: A's HELLO, B's reply */
	assert_int_equal(sim_send(&A, M_REQ), 1);
	assert_int_equal(sim_deliver(&A, &B), 1);
	assert_int_equal(rpmaf__proto_credit_start(&B.c, wa), 0);
	sim_repost(&B);
	assert_int_equal(sim_answer(&B), 1);
	assert_int_equal(sim_deliver(&B, &A), 1);
	assert_int_equal(rpmaf__proto_credit_start(&A.c, wb), 0);
	sim_check(&A, &B);
	sim_check(&B, &A);
	for (unsigned i = 0; i < steps; i++)
		sim_step();
	sim_drain();
	/* every request answered, and both sides free to send */
	assert_int_equal(A.waiting + B.waiting + A.replies + B.replies, 0);
	assert_int_equal(A.c.held + B.c.held, 0);
	assert_true(rpmaf__proto_credit_can_send(&A.c));
	assert_true(rpmaf__proto_credit_can_send(&B.c));
	assert_false(rpmaf__proto_credit_need_update(&A.c));
	assert_false(rpmaf__proto_credit_need_update(&B.c));
}

/* credit_simulation -- many windows and seeds */
static void
credit_simulation(void **state)
{
	static const uint32_t windows[][2] = {{3, 3},  {3, 16},	 {4, 5},
					      {16, 3}, {64, 64}, {5, 1024}};

	(void)state;
	for (size_t w = 0; w < sizeof(windows) / sizeof(windows[0]); w++)
		for (uint64_t seed = 1; seed <= 40; seed++)
			sim_run(windows[w][0], windows[w][1], 20000, seed * 0x9e3779b97f4a7c15ull);
}

/* credit_messages_die_out -- CREDITs alone answer each other a finite number of times */
static void
credit_messages_die_out(void **state)
{
	(void)state;
	sim_run(3, 3, 0, 7);
	/* A owes the HELLO_REPLY's buffer; a burst of unsolicited messages from B */
	for (int i = 0; i < 3; i++) {
		if (!sim_send(&B, M_UNSOLICITED))
			break;
		sim_deliver(&B, &A);
	}
	unsigned long before = A.sent_credit_msgs + B.sent_credit_msgs;
	unsigned rounds = sim_drain();

	assert_true(rounds < 20);
	assert_true(A.sent_credit_msgs + B.sent_credit_msgs - before <= 4);
	assert_true(rpmaf__proto_credit_can_send(&A.c));
	assert_true(rpmaf__proto_credit_can_send(&B.c));
}

/* ---------------------------------------------------------------- heartbeats */

/* heartbeat_timeline -- a heartbeat per interval of silence, lost after interval x misses */
static void
heartbeat_timeline(void **state)
{
	struct rpmaf__proto_heartbeat h;

	(void)state;
	rpmaf__proto_heartbeat_init(&h, 100, 3, 1000);
	assert_int_equal(rpmaf__proto_heartbeat_next(&h), 1100);
	assert_int_equal(rpmaf__proto_heartbeat_tick(&h, 1050), RPMAF__PROTO_HB_NONE);
	assert_int_equal(rpmaf__proto_heartbeat_tick(&h, 1100), RPMAF__PROTO_HB_SEND);
	assert_int_equal(rpmaf__proto_heartbeat_tick(&h, 1100), RPMAF__PROTO_HB_NONE);
	assert_int_equal(rpmaf__proto_heartbeat_next(&h), 1200);
	assert_int_equal(rpmaf__proto_heartbeat_tick(&h, 1150), RPMAF__PROTO_HB_NONE);
	assert_int_equal(rpmaf__proto_heartbeat_tick(&h, 1200), RPMAF__PROTO_HB_SEND);
	rpmaf__proto_heartbeat_received(&h, 1250); /* the answer */
	assert_int_equal(rpmaf__proto_heartbeat_next(&h), 1350);
	assert_int_equal(rpmaf__proto_heartbeat_tick(&h, 1300), RPMAF__PROTO_HB_NONE);
	assert_int_equal(rpmaf__proto_heartbeat_tick(&h, 1350), RPMAF__PROTO_HB_SEND);
	assert_int_equal(rpmaf__proto_heartbeat_tick(&h, 1450), RPMAF__PROTO_HB_SEND);
	assert_int_equal(rpmaf__proto_heartbeat_next(&h), 1550);
	assert_int_equal(rpmaf__proto_heartbeat_tick(&h, 1549), RPMAF__PROTO_HB_NONE);
	assert_int_equal(rpmaf__proto_heartbeat_tick(&h, 1550), RPMAF__PROTO_HB_LOST);
	rpmaf__proto_heartbeat_received(&h, 1200); /* an older time changes nothing */
	assert_int_equal(h.last_rx_ms, 1250);
	assert_int_equal(rpmaf__proto_heartbeat_tick(&h, 900), RPMAF__PROTO_HB_NONE);
}

/* heartbeat_traffic_and_off -- traffic keeps a peer alive; interval 0 never acts */
static void
heartbeat_traffic_and_off(void **state)
{
	struct rpmaf__proto_heartbeat h;

	(void)state;
	rpmaf__proto_heartbeat_init(&h, 10, 1, 0);
	for (uint64_t t = 5; t < 1000; t += 5) {
		rpmaf__proto_heartbeat_received(&h, t);
		assert_int_equal(rpmaf__proto_heartbeat_tick(&h, t + 4), RPMAF__PROTO_HB_NONE);
	}
	assert_int_equal(rpmaf__proto_heartbeat_tick(&h, 995 + 10), RPMAF__PROTO_HB_LOST);
	rpmaf__proto_heartbeat_init(&h, 0, 3, 0);
	assert_int_equal(rpmaf__proto_heartbeat_tick(&h, UINT64_MAX), RPMAF__PROTO_HB_NONE);
	assert_int_equal(rpmaf__proto_heartbeat_next(&h), UINT64_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(credit_rules),
	    cmocka_unit_test(credit_update_threshold),
	    cmocka_unit_test(credit_hold),
	    cmocka_unit_test(credit_simulation),
	    cmocka_unit_test(credit_messages_die_out),
	    cmocka_unit_test(heartbeat_timeline),
	    cmocka_unit_test(heartbeat_traffic_and_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
