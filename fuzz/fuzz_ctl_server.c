/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_ctl_server.c -- libFuzzer harness of the server's side of the
 * control channel: sequences of messages, as a client sends them, through
 * the real dispatch (ctl/ctl.c rpmaf__ctl_recv(), server/sconn.c's session
 * and queues, server/serve.c's requests), the connection's state kept from
 * one message to the next.
 *
 * The worker under the channel is fuzz_ctl_stub.c's, shared with the
 * client's harness (fuzz_ctl_pool.c): the functions of workers/ the channel
 * and the connection call and rpma_send() over plain memory, so that no
 * device or thread is needed; every send is decoded and kept until the
 * input completes it.
 *
 * An input is a sequence of steps, each a byte:
 *   0 LEN_LO LEN_HI BYTES  a receive of LEN bytes (longer than the buffer:
 *                          a receive failed with IBV_WC_LOC_LEN_ERR)
 *   1 / 2                  the oldest send completes / fails
 *   3                      the connection's timer fires
 *   4                      the client disconnects
 * (the step byte modulo 5). The server has no key, no region, no handler.
 *
 * Properties, after every step:
 * - whatever the server sends decodes, fits the client's buffer (the size
 *   its HELLO announced, at least RPMAF__PROTO_MSG_MIN), and nothing is
 *   sent once the connection is closed;
 * - the channel never has more sends in flight than its send queue, nor
 *   the connection more requests waiting than its window; the requests
 *   counted pending are those waiting;
 * - every receive buffer is posted back exactly once;
 * - once the connection is closed and its memory freed, nothing is left:
 *   no object, no buffer, no timer (and AddressSanitizer's leak check).
 */

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <librpma.h>

#include "../server/sconn.h"
#include "../workers/worker.h"
#include "fuzz_assert.h"
#include "fuzz_ctl_stub.h"

#define MSG_SIZE   512
#define CREDITS	   4
#define SQ	   8
#define STEP_KINDS 5

/* see server.h: no handler */
const struct rpmaf__srv_handler *
rpmaf__srv_handler_find(const struct rpmaf_server *srv, uint32_t id)
{
	(void)srv;
	(void)id;
	return NULL;
}

static struct rpmaf_cfg Cfg;
static struct rpmaf__wlog Log;
static struct rpmaf_server Srv;
static struct rpmaf__srv_wstate Wst;

/* LLVMFuzzerInitialize -- the server: no key, an empty region table, a quiet log */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_ctl_cfg(&Cfg, MSG_SIZE, CREDITS, SQ);
	Cfg.timeouts.heartbeat_interval_ms = 1000;
	Cfg.timeouts.heartbeat_misses = 3;
	Log.level = RPMAF_LOG_DEBUG; /* every line formatted, then dropped */
	fuzz_assert((Log.out = fopen("/dev/null", "w")) != NULL);
	Srv.cfg = &Cfg;
	Srv.log = &Log;
	Srv.wst = &Wst;
	fuzz_assert((Wst.scratch = malloc(MSG_SIZE)) != NULL);
	fuzz_assert(rpmaf__sregtab_init(&Srv.regs, 1) == 0);
	return 0;
}

/* check -- the connection's invariants between steps */
static void
check(const struct rpmaf__sconn *sc)
{
	if (Fw.closed)
		return;
	fuzz_assert(sc->ctl.ninflight <= sc->ctl.inflight_max);
	fuzz_assert(sc->npend <= sc->pend_cap);
	fuzz_assert(atomic_load(&Srv.pending) == sc->npend);
	fuzz_assert(Fw.wconn.acct.sq.used <= SQ);
}

/* conn_new -- a connection accepted and attached, as the acceptor and the worker do */
static struct rpmaf__sconn *
conn_new(void)
{
	struct rpmaf__sconn *sc;

	fuzz_ctl_reset(MSG_SIZE, 2 * SQ, SQ, 4 * SQ);
	Srv.wst[0].conns = NULL;
	atomic_store(&Srv.nconns, 1);
	fuzz_assert(rpmaf__sconn_new(&Srv, &Fw.w, (struct rpma_conn *)&Fw, 1, &sc) == 0);
	rpmaf__sconn_hand_over(sc);
	fuzz_ctl_drain();
	fuzz_assert(Fw.attached);
	return sc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct rpmaf__sconn *sc = conn_new();

	while (p < end && !Fw.closed) {
		const uint8_t *msg;
		size_t len;

		switch (*p++ % STEP_KINDS) {
		case 0:
			msg = fuzz_ctl_recv_step(&p, end, &len);
			fuzz_ctl_recv_hello(msg, len, RPMAF__PROTO_T_HELLO);
			break;
		case 1:
		case 2:
			fuzz_ctl_complete(p[-1] % STEP_KINDS == 1);
			break;
		case 3:
			(void)fuzz_ctl_timer_fire(Fw.ctx);
			break;
		default:
			fuzz_ctl_disconnect();
			break;
		}
		check(sc);
		fuzz_ctl_drain();
	}
	fuzz_ctl_disconnect();
	fuzz_ctl_drain();
	fuzz_assert(atomic_load(&Srv.nobjs) == 0 && atomic_load(&Srv.pending) == 0);
	fuzz_assert(Srv.wst[0].conns == NULL);
	fuzz_ctl_check_idle();
	return 0;
}
