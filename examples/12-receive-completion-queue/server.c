/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.c -- the "pong" side of a ping-pong on connections with a separate
 * receive CQ: receives complete on the receive CQ, sends on the main CQ, so
 * each wait looks for exactly one kind of completion.
 *
 * usage: server ADDR PORT [CLIENTS]
 */

#include <stdint.h>
#include <stdio.h>

#include "common-conn.h"
#include "common-cq.h"
#include "common-messages.h"

#define RCQ_SIZE 4

/*
 * main -- accept each client on a configuration with a receive CQ and
 * answer every ping: wait on the receive CQ, send, wait on the main CQ.
 */
int
main(int argc, char *argv[])
{
	struct common_args args;
	struct common_msgs m;
	struct rpma_conn_cfg *cfg;
	struct rpma_cq *cq, *rcq;
	struct ibv_wc wc;

	unsigned long clients = common_server_init(argc, argv, 1000, NULL, &args);

	COMMON_CHECK(rpma_conn_cfg_new(&cfg));
	COMMON_CHECK(rpma_conn_cfg_set_rcq_size(cfg, RCQ_SIZE));

	struct rpma_peer *peer = common_peer_new(args.addr, RPMA_UTIL_IBV_CONTEXT_LOCAL);

	common_msgs_new(peer, COMMON_PING_SIZE, &m);

	uint64_t *recv_buf = m.recv_buf, *send_buf = m.send_buf;
	struct rpma_ep *ep = common_listen(peer, args.addr, args.port);

	for (unsigned long i = 0; i < clients; i++) {
		uint32_t rounds;
		struct rpma_conn *conn = common_accept_ping(ep, cfg, &m, &rounds);

		common_conn_cqs(conn, &cq, &rcq);
		printf("server: client %lu connected for %u rounds\n", i + 1, rounds);

		for (uint32_t r = 1; r <= rounds; r++) {
			common_wait_one(rcq, IBV_WC_RECV, &wc);
			uint64_t value = *recv_buf;

			printf("server: round %u: got %llu on the receive CQ\n", r,
			       (unsigned long long)value);
			if (r < rounds)
				COMMON_CHECK(rpma_recv(conn, m.recv_mr, 0, COMMON_PING_SIZE, NULL));
			*send_buf = value + 1;
			COMMON_CHECK(rpma_send(conn, m.send_mr, 0, COMMON_PING_SIZE,
					       RPMA_F_COMPLETION_ALWAYS, NULL));
			common_wait_one(cq, IBV_WC_SEND, NULL);
		}

		common_wait_closed(&conn);
		printf("server: client %lu disconnected\n", i + 1);
	}

	common_msgs_delete(&m);
	COMMON_CHECK(rpma_conn_cfg_delete(&cfg));
	common_server_end(&ep, &peer);
	return 0;
}
