/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * client.c -- the "ping" side of a ping-pong on a connection with a
 * separate receive CQ (rpma_conn_cfg_set_rcq_size()): the pongs complete on
 * the receive CQ, the pings on the main CQ. The rest of the game is that of
 * 08-messages-ping-pong (common_ping_main() in common/common-messages.c).
 *
 * usage: client ADDR PORT [ROUNDS]
 */

#include <stdint.h>
#include <stdio.h>

#include "common-cq.h"
#include "common-messages.h"

#define RCQ_SIZE 4

/*
 * rcq_cfg_new -- a connection configuration with a receive CQ of RCQ_SIZE
 * entries; print the size it reads back.
 */
static struct rpma_conn_cfg *
rcq_cfg_new(void)
{
	struct rpma_conn_cfg *cfg;
	uint32_t rcq_size;

	COMMON_CHECK(rpma_conn_cfg_new(&cfg));
	COMMON_CHECK(rpma_conn_cfg_set_rcq_size(cfg, RCQ_SIZE));
	COMMON_CHECK(rpma_conn_cfg_get_rcq_size(cfg, &rcq_size));
	printf("client: receive CQ size %u\n", rcq_size);
	return cfg;
}

/*
 * wait_on_two_cqs -- the ping completes on the CQ, the pong on the receive
 * CQ: each wait looks for exactly one kind of completion.
 */
static void
wait_on_two_cqs(struct rpma_conn *conn, struct rpma_cq *cq, struct rpma_cq *rcq)
{
	(void)conn;
	common_wait_one(cq, IBV_WC_SEND, NULL);
	common_wait_one(rcq, IBV_WC_RECV, NULL);
}

/*
 * main -- play the ping-pong on a connection with a receive CQ.
 */
int
main(int argc, char *argv[])
{
	static const struct common_ping_ops ops = {
	    .cfg_new = rcq_cfg_new,
	    .has_rcq = true,
	    .wait = wait_on_two_cqs,
	    .round_note = " on the receive CQ",
	};

	return common_ping_main(argc, argv, &ops);
}
